#!/usr/bin/env bash
# How long the README's first command takes from a fresh clone: clones this repository's HEAD
# into a temporary folder (a target folder of its own, nothing built; the crates already in
# cargo's cache, as after a first `cargo fetch`), runs `cargo run -p book -- serve` there, and
# times it until the book's first page answers. The README's figure is this script's: with
# --readme it rewrites that line, naming the machine, the date and the commit measured.
# Measure on an idle machine: every CPU goes to the build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
port=${PORT:-3917}
clone=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$clone"
}
trap cleanup EXIT

git clone -q --no-hardlinks "$root" "$clone/book"
cd "$clone/book"
unset CARGO_TARGET_DIR
export CARGO_INCREMENTAL=0
t0=$(date +%s%N)
cargo run -q -p book -- serve --port "$port" >"$clone/serve.log" 2>&1 &
server=$!
until curl -fs -o /dev/null "http://127.0.0.1:$port/"; do
    if ! kill -0 "$server" 2>/dev/null; then
        cat "$clone/serve.log"
        echo "error: the server stopped before answering" >&2
        exit 1
    fi
    sleep 0.2
done
seconds=$(( ($(date +%s%N) - t0 + 500000000) / 1000000000 ))
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cpus=$(getconf _NPROCESSORS_ONLN)
commit=$(git -C "$root" rev-parse --short=12 HEAD)
line="From a fresh clone, the first \`cargo run -p book -- serve\` had the book readable after ${seconds} s on ${cpu:-this machine} (${cpus} CPUs, crates already downloaded; \`scripts/first-serve.sh\`, $(date -u +%Y-%m-%d), commit \`${commit}\`):"
echo "$line"
if [ "${1:-}" = "--readme" ]; then
    cd "$root"
    # The line after the mark is the measured one.
    awk -v line="$line" '
        skip { skip = 0; print line; next }
        /<!-- first-serve: written by scripts\/first-serve.sh --readme -->/ { print; skip = 1; next }
        { print }
    ' README.md >README.md.tmp
    mv README.md.tmp README.md
    echo "wrote it into README.md"
fi
