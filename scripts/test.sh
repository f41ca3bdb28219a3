#!/usr/bin/env bash
# The one test command: formatting, lints, unit tests, every listing in quick mode (its record
# validated), the book built and its code blocks tested, the program output it shows rerun, and
# the stored data checked (valid, fresh, each chapter's claim holding).
# Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()
step() {
    local name=$1
    shift
    echo
    echo "==> $name"
    local t0=$SECONDS
    if "$@"; then
        passed=$((passed + 1))
        echo "<== $name: ok ($((SECONDS - t0))s)"
    else
        failed=$((failed + 1))
        failures+=("$name")
        echo "<== $name: FAILED ($((SECONDS - t0))s)"
    fi
}

quick_listings() {
    local tmp
    tmp=$(mktemp -d)
    local ok=0
    for dir in listings/*/; do
        local name
        name=$(basename "$dir")
        echo "--- $name --quick"
        if cargo run -q -p "$name" -- --quick --seed 1 --out "$tmp/$name.json" >"$tmp/$name.out" \
            && cargo run -q -p book -- check "$tmp/$name.json"; then
            tail -n 5 "$tmp/$name.out"
        else
            cat "$tmp/$name.out"
            ok=1
        fi
    done
    rm -rf "$tmp"
    return $ok
}

step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets -- -D warnings
step "cargo test" cargo test --workspace
step "listings in quick mode" quick_listings
step "book build (includes, anchors, links)" cargo run -q -p book -- build
step "book test (every code block)" cargo run -q -p book -- test
step "outputs shown in the book (rerun, compared)" cargo run -q -p book -- outputs
step "data check (valid, fresh, claims)" cargo run -q -p book -- check

echo
if [ "$failed" -gt 0 ]; then
    printf 'failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
