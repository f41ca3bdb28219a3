#!/usr/bin/env bash
# The one test command: formatting, lints, unit tests, every listing in quick mode (its record
# validated, its invariants checked by the run itself), the book built and its code blocks tested,
# the program output it shows rerun, the stored data checked (valid, fresh, every conclusion held
# on the book's machine, none not marked quiet refuted beside the busy neighbour), and every change
# to a claim recorded in its history.
# Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

# CI builds from cold: incremental caches of the optimised dev profile would take gigabytes of a
# shared disk (a CI run once ran out of it) and save nothing on a build that runs once.
export CARGO_INCREMENTAL=0
# Nor does it need the dev profile's line tables (for a profiler's frames and a backtrace's lines,
# which no step reads): the tests build and link sooner without them. An environment override, not
# a change to Cargo.toml's [profile], which would make every record stale.
export CARGO_PROFILE_DEV_DEBUG=0

# The programs from outside Rust, installed in the background while the first two steps compile:
# the installs wait on the network and the disk, the compiler on the CPUs. Chromium opens every
# page of the built book (the browser check) and prints the PDF; poppler-utils reads the PDF back
# (page numbers, outline); the chapters' manifests name the rest (`[[needs]]`), each installed from
# Debian where Debian has it (in one apt-get call with Chromium), else by the manifest's `install`
# command (Go, from PyPI: scripts/install-go.sh). The list is made first, in the foreground (it
# builds the book's tool, which the steps use too, and two cargo commands at once would wait on
# each other). The first step that needs a program waits for the installs and prints their log
# (`wait_for_installs`); where one could not be installed, the steps that need it fail and say
# why: they never pass unchecked.
missing=$(scripts/missing-programs.sh)
install_programs() {
    local debian=() lost=() commands=() program package install without t0
    if ! command -v chromium >/dev/null 2>&1 || ! command -v pdftotext >/dev/null 2>&1; then
        debian+=(chromium poppler-utils)
        lost+=("chromium and poppler-utils: the browser check and the PDF step will fail")
    fi
    while IFS=$'\t' read -r program package install without; do
        [ -n "$program" ] || continue
        if [ "$package" != "-" ]; then
            debian+=("$package")
            lost+=("$program ($package): $without")
        elif [ "$install" != "-" ]; then
            # Go is named by three chapters: installed once.
            [[ " ${commands[*]} " == *" $install "* ]] || commands+=("$install")
        else
            echo "note: $program is not installed; $without"
        fi
    done <<<"$missing"
    if [ ${#debian[@]} -gt 0 ]; then
        echo "installing from Debian: ${debian[*]}"
        t0=$SECONDS
        if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debian[@]}") >/dev/null 2>&1; then
            echo "installed in $((SECONDS - t0))s"
        else
            echo "error: could not install ${debian[*]} (apt-get install); without them:"
            printf '  %s\n' "${lost[@]}"
        fi
    fi
    for install in "${commands[@]}"; do
        echo "installing: $install"
        t0=$SECONDS
        if $install >/dev/null 2>&1; then
            echo "installed in $((SECONDS - t0))s"
        else
            echo "error: \`$install\` failed; the chapters that need it:"
            grep -F "$install" <<<"$missing" | cut -f4 | sed 's/^/  /'
        fi
    done
}
install_log=$(mktemp)
install_programs >"$install_log" 2>&1 &
install_pid=$!
wait_for_installs() {
    if [ -n "$install_pid" ]; then
        wait "$install_pid"
        install_pid=
        echo
        cat "$install_log"
    fi
}

passed=0
failed=0
failures=()
failed_logs=()
# Each step's output is kept, so that a failed step's last lines are printed again at the end:
# a CI log cut in the middle still shows why.
logs=$(mktemp -d)
trap 'rm -rf "$logs" "$install_log"' EXIT
step() {
    local name=$1
    shift
    echo
    echo "==> $name"
    local t0=$SECONDS
    local log="$logs/$((passed + failed)).log"
    "$@" 2>&1 | tee "$log"
    if [ "${PIPESTATUS[0]}" -eq 0 ]; then
        passed=$((passed + 1))
        echo "<== $name: ok ($((SECONDS - t0))s)"
    else
        failed=$((failed + 1))
        failures+=("$name")
        failed_logs+=("$log")
        echo "<== $name: FAILED ($((SECONDS - t0))s)"
    fi
}

# The listings' Go programs (listings/*/go), held to Go's own format and vet checks.
go_checks() {
    local gofmt unformatted ok=0
    gofmt="$(GOTOOLCHAIN=local go env GOROOT)/bin/gofmt" || return 1
    unformatted=$("$gofmt" -l listings/*/go) || return 1
    if [ -n "$unformatted" ]; then
        echo "not gofmt-formatted: $unformatted"
        ok=1
    fi
    for dir in listings/*/go; do
        (cd "$dir" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go vet .) || ok=1
    done
    return $ok
}

quick_listings() {
    local tmp
    tmp=$(mktemp -d)
    local ok=0
    # The listings' binaries as the cargo test step built them (its integration tests need them),
    # then each run from target/debug: `cargo run -p` one listing at a time would resolve its
    # dependencies' features anew and rebuild them, minutes of a cold CI run.
    # (Chapter 10's quick mode runs its service from there too; a full run builds it for release.)
    cargo test -q --workspace --no-run || return 1
    for dir in listings/*/; do
        local name
        name=$(basename "$dir")
        # Quick mode leaves out the experiments a chapter's manifest names as too slow for it
        # (`quick-skips`: Chapter 7's two LTO builds of its service), each said on stderr.
        echo "--- $name --quick"
        if "target/debug/$name" --quick --seed 1 --out "$tmp/$name.json" >"$tmp/$name.out" \
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

# The course's exercises through the workshop runner, both ways, as a student goes: each start
# fails its test (as a test, not a build error), the solution passes, reset brings the start
# back (tools/course/tests/every_exercise.rs). Minutes: every exercise is built twice; each runner
# call's time is printed, so that the log shows where they go.
every_exercise() {
    cargo test -q -p course --test every_exercise -- --ignored --test-threads=1 --nocapture
}

# The rustlings exercise set made from the same exercises. Its own check (`rustlings dev check`)
# builds all 16 programs against every chapter's dependencies again: about six minutes on two
# cores, which would take CI past its limit, so it runs when asked (RUSTLINGS_CHECK=1), and the
# set's layout is checked in the cargo test step either way.
rustlings_set() {
    if [ "${RUSTLINGS_CHECK:-0}" = 1 ]; then
        bash scripts/rustlings-check.sh
    else
        echo "skipped: \`rustlings dev check\` on the generated set takes about six minutes more than CI allows;" \
            "RUSTLINGS_CHECK=1 scripts/test.sh (or scripts/rustlings-check.sh) runs it"
    fi
}

# The PDF of the book as built, checked: without poppler-utils it would print unchecked, so here
# that is a failure.
book_pdf() {
    if ! command -v pdftotext >/dev/null 2>&1 || ! command -v pdfinfo >/dev/null 2>&1; then
        echo "pdftotext and pdfinfo (Debian's poppler-utils) are missing: the PDF cannot be checked"
        return 1
    fi
    cargo run -q -p book -- pdf --no-build
}

# The stock `mdbook test` on every code block, as the Rust Book runs it in CI, without installing
# the mdbook binary (83 s of CPU, beside the first steps' compiles): `book test --stock` calls
# mdbook-driver's `MDBook::test`, the function the binary's `test` command calls, at the same
# version, with the preprocessors as book.toml names them. `-L` names the one folder `book deps`
# makes from the cargo test build above (one build of each crate a block names, and what they
# link), and the `measure-test` preprocessor gives each block a hidden `extern crate` for each
# crate it names. It fails on a block that does not compile, or panics; it passes a missing
# anchor, or a missing include outside a Rust block, which the book build step fails on.
# Chapter 1's main.rs (compiled, not run) reads env!("CARGO_MANIFEST_DIR"), which cargo sets; the
# rustdoc it runs is the pinned toolchain's, whatever rustup's default is (it runs in a temporary
# folder, where rust-toolchain.toml does not reach).
stock_mdbook_test() {
    PATH="$(rustc --print sysroot)/bin:$PATH" cargo run -q -p book -- test --stock
}

step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets -- -D warnings
wait_for_installs
step "gofmt and go vet (the listings' Go programs)" go_checks
# Every unit and integration test, in parallel, but one: Chapter 3's `resident()` reads its own
# process's resident memory and its peak in two reads of /proc/self/status, and a test beside it
# that frees memory between the reads can leave the peak below the first read: the kernel keeps
# the peak only "when about to lower" the figure, and its snapshots "can always be inconsistent"
# (`task_mem`, fs/proc/task_mmu.c). CI of 2026-12-07 failed on `peak >= rss` so. That test runs
# alone, in a process of its own. Fixing `resident()` to read both from one read changes Chapter 3's measuring code and
# would stale its records on both machines: it waits for Chapter 3's next run on each.
ALONE=child::tests::reads_its_own_resident_memory
cargo_tests() {
    cargo test --workspace -- --skip "$ALONE" &&
        cargo test -p ch03-spawns --lib -- --exact "$ALONE"
}
step "cargo test" cargo_tests
step "every exercise through the runner, both ways" every_exercise
step "rustlings exercise set (rustlings dev check)" rustlings_set
# Chapter 7's tokio-console setup and Chapter 10's service with tokio-console's layer need Tokio's
# unstable API (with Chapter 10's Spot-it example): checked here (in a target folder of its own, so the flags do not rebuild everything
# else). Chapter 10's full run builds and measures its own (its quick run skips it).
step "tokio-console build (ch07, ch10, --cfg tokio_unstable)" env RUSTFLAGS="--cfg tokio_unstable" \
    cargo check -q -p ch07-axum -p ch10-logging --features ch07-axum/console,ch10-logging/console \
    --lib --bins --example console_spot \
    --target-dir target/console
step "listings in quick mode" quick_listings
step "book build (includes, anchors, links)" cargo run -q -p book -- build
step "browser check (every page in Chromium at 1280 and 390 px)" cargo run -q -p book -- browse
step "book pdf (page numbers, outline, contents)" book_pdf
step "mdbook test (every code block, the stock MDBook::test)" stock_mdbook_test
step "outputs shown in the book (rerun, compared)" cargo run -q -p book -- outputs
step "data check (valid, fresh, verdicts, invariants)" cargo run -q -p book -- check
step "claims history (every change to a claim has its entry)" cargo run -q -p book -- history

echo
for k in "${!failures[@]}"; do
    echo "--- the last lines of the failed step: ${failures[$k]}"
    tail -n 30 "${failed_logs[$k]}"
done
if [ "$failed" -gt 0 ]; then
    printf 'failed: %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
