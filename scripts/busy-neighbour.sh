#!/usr/bin/env bash
# Runs a command beside a busy neighbour: one process spinning, unpinned, for as long as the
# command runs, as another tenant's job would on a shared machine. The book's claims are checked
# on the records this leaves (`cargo run -p book -- check`), to see which conclusions survive.
#
#   scripts/busy-neighbour.sh scripts/measure.sh --machine amd-epyc-2c-busy
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
( while :; do :; done ) &
neighbour=$!
trap 'kill "$neighbour" 2>/dev/null; wait "$neighbour" 2>/dev/null' EXIT
echo "busy neighbour: pid $neighbour spinning (unpinned)" >&2
"$@"
