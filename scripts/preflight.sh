#!/usr/bin/env bash
# Before a class: checks that this machine can run every chapter without a network, and says so
# on one screen. It checks the toolchain, the CPUs, free memory and disk; fetches every crate and
# builds everything (the two release profiles of Chapter 7 included); runs every chapter in quick
# mode; and ends with READY, or with what to fix. From a fresh clone it took 8 min 25 s on the
# book's 2-CPU machine, with the crates already in cargo's cache; run it the day before.
set -uo pipefail
cd "$(dirname "$0")/.."

problems=()
notes=()
log=$(mktemp -d)
started=$SECONDS
say() { printf '%-44s %s\n' "$1" "$2"; }

# The toolchain the book pins (rustup installs it on first use when it is missing).
want=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
have=$(rustc --version 2>/dev/null | awk '{print $2}')
if [ "$have" = "$want" ]; then
    say "toolchain" "rustc $have, as pinned"
else
    problems+=("rustc is '${have:-missing}', the book pins $want: rustup toolchain install $want")
fi

cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ "$cpus" -ge 2 ]; then
    say "CPUs" "$cpus"
else
    problems+=("1 CPU: the chapters need two or more to show their effects")
fi
mem_mib=$(awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo 2>/dev/null || echo 0)
if [ "$mem_mib" -ge 2048 ]; then
    say "memory available" "$mem_mib MiB"
else
    problems+=("$mem_mib MiB of memory available: the builds want 2 GiB or more")
fi
disk_gib=$(df -Pk . | awk 'NR == 2 {print int($4 / 1048576)}')
if [ "$disk_gib" -ge 6 ]; then
    say "disk free" "$disk_gib GiB"
else
    problems+=("$disk_gib GiB of disk free: the build needs about 6 GiB")
fi

step() {
    local name=$1
    shift
    local t0=$SECONDS
    if "$@" >"$log/$name.log" 2>&1; then
        say "$name" "ok ($((SECONDS - t0)) s)"
        return 0
    fi
    say "$name" "FAILED ($((SECONDS - t0)) s; log: $log/$name.log)"
    problems+=("$name failed: $(tail -n 3 "$log/$name.log" | tr '\n' ' ')")
    return 1
}

# Everything the room needs, fetched and built now; then a build that may not use the network.
step "fetch every crate" cargo fetch --locked
step "build everything" cargo build -q --workspace --all-targets --locked
step "build ch07's release profiles" bash -c \
    'cargo build -q -p ch07-axum --bin ch07-axum --profile ch07-release-default &&
     cargo build -q -p ch07-axum --bin ch07-axum --profile ch07-tuned'
step "offline build" cargo build -q --workspace --offline
step "course runner" cargo run -q -p course -- list

# Every chapter in quick mode, as the class will first run it.
for dir in listings/*/; do
    name=$(basename "$dir")
    step "$name --quick" cargo run -q -p "$name" -- --quick --out "$log/$name.json"
done

# The programs outside Rust the chapters run and this machine lacks (their manifests' `[[needs]]`).
while IFS=$'\t' read -r program package install without; do
    if [ "$package" = "-" ] && [ "$install" != "-" ] && $install >"$log/install-$program.log" 2>&1; then
        say "$program" "installed ($install)"
        continue
    fi
    how=$([ "$package" = "-" ] && echo "${install/#-/see the chapter's manifest}" || echo "Debian, Ubuntu: apt-get install $package")
    notes+=("$program is not installed ($how); $without")
done < <(scripts/missing-programs.sh)

echo
echo "preflight took $((SECONDS - started)) s"
for n in "${notes[@]}"; do echo -e "note: $n"; done
if [ "${#problems[@]}" -eq 0 ]; then
    echo "READY: every chapter builds offline and runs in quick mode on this machine."
    rm -rf "$log"
    exit 0
fi
echo "NOT READY, fix:"
for p in "${problems[@]}"; do echo "  - $p"; done
exit 1
