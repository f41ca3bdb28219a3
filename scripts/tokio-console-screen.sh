#!/usr/bin/env bash
# Chapter 10's Spot it: what tokio-console shows of a service whose workers write their log lines
# into a collector's pipe that has fallen behind. Builds the example `console_spot` for
# tokio-console (--cfg tokio_unstable, into target/ch10-console as the chapter's console build),
# runs it for 12 s on 127.0.0.1:6669, attaches tokio-console in a detached tmux window 150 columns
# wide, and prints the window after 8 s: the key help left out, each line cut before the Fields
# column, and the spawn locations' folders shortened (Tokio's left out). The states and figures
# vary from run to run (which worker holds the pipe's lock), the shape does not: the stored
# output's command says so (`# numbers vary; BUSY|SCHED|IDLE vary`), and `book outputs` compares it so.
#
# Needs tokio-console (`cargo install --locked tokio-console`, 0.1.14 when this was written) and
# tmux. listings/ch10-logging/outputs/tokio-console.txt is its output (`book outputs` reruns it
# where tokio-console is installed).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in tokio-console tmux ss; do
    command -v "$tool" >/dev/null || {
        echo "tokio-console-screen: needs $tool" >&2
        exit 2
    }
done
if ss -Hltn 'sport = :6669' | grep -q .; then
    echo "tokio-console-screen: 127.0.0.1:6669 is in use; stop what listens there" >&2
    exit 1
fi

RUSTFLAGS="--cfg tokio_unstable" cargo build -q --release -p ch10-logging --features console \
    --example console_spot --target-dir target/ch10-console

session="ch10-console-$$"
target/ch10-console/release/examples/console_spot 12 2>/dev/null &
app=$!
trap 'tmux kill-session -t "$session" 2>/dev/null || true; kill "$app" 2>/dev/null || true' EXIT

sleep 1
tmux new-session -d -s "$session" -x 150 -y 20 \
    "tokio-console --ascii-only true --no-colors http://127.0.0.1:6669"
sleep 8
screen=$(tmux capture-pane -p -t "$session")
grep -q "(CONNECTED)" <<<"$screen" || {
    echo "tokio-console-screen: tokio-console did not connect:" >&2
    echo "$screen" >&2
    exit 1
}
# Keep each line up to its spawn location (the Fields column cut); drop the key help and blank
# lines; shorten the locations' folders.
awk '
    /^(views|controls):|^invert sort|scroll to top|quit = q/ { next }
    {
        line = $0
        sub(/Location.*/, "Location", line)
        if (match(line, /\.rs:[0-9]+:[0-9]+/)) line = substr(line, 1, RSTART + RLENGTH - 1)
        sub(/listings\/ch10-logging\/examples\//, "", line)
        sub(/src\/runtime\/scheduler\/multi_thread\//, ".../", line)
        # The registry folder of Tokio left out too, so that the rows fit a page 1280 px wide.
        sub(/<cargo>\/tokio-[0-9.]+\//, "", line)
        sub(/ +$/, "", line)
        if (line != "") print line
    }' <<<"$screen"
