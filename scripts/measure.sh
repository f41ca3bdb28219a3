#!/usr/bin/env bash
# Reruns every chapter in full mode and stores each record under data/<machine>/.
# A chapter that fails (a wrong checksum, a crash, Ctrl-C) stores nothing: its previous record
# stays as it was. Extra arguments go to every listing (e.g. --machine NAME, --reps 7).
# With --quick, records go to a temporary folder instead of data/.
set -uo pipefail
cd "$(dirname "$0")/.."

args=("$@")
mode=(--save)
for a in "$@"; do
    if [ "$a" = "--quick" ]; then
        out=$(mktemp -d)
        mode=()
        echo "quick mode: records go to $out, data/ is not touched"
    fi
done

listings=(listings/*/)
cargo build -q --workspace --bins || exit 1
status=0
i=0
for dir in "${listings[@]}"; do
    i=$((i + 1))
    name=$(basename "$dir")
    echo "[$i/${#listings[@]}] $name"
    extra=()
    [ ${#mode[@]} -eq 0 ] && extra=(--out "$out/$name.json")
    if ! cargo run -q -p "$name" -- "${mode[@]}" "${extra[@]}" "${args[@]}"; then
        echo "$name failed; its stored record was left as it was" >&2
        status=1
    fi
done
machine=$(cargo run -q -p ch01-blocking -- --print-machine "${args[@]}" 2>/dev/null | tail -n 1)
if [ ${#mode[@]} -gt 0 ] && [ -n "$machine" ]; then
    echo
    echo "Read the book with these figures, and see which of its claims held here:"
    echo "  cargo run -p book -- serve --machine $machine"
fi
exit $status
