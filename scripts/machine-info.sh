#!/usr/bin/env bash
# Records what in a machine shapes the book's results, beside its records:
# data/NAME/machine.toml (the Machines page shows it). Run it on the machine that made the records.
#
#   scripts/machine-info.sh amd-epyc-2c
#
# What it records, and why: the CPU (model, vendor, family) and how the guest sees its topology
# (cores, threads per core, the thread siblings of each CPU, the caches), since a lock's cost and
# two threads' speed-up depend on what the CPUs share; the hypervisor, which hides the host's
# placement of the vCPUs; the clock source every timing reads; the kernel, whose scheduler decides
# who runs, and its tick, which bounds how long a preemption left to the tick can wait; glibc, whose allocator is Chapter 3's subject; and the mimalloc sources the build uses.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 MACHINE-NAME (the folder under data/)" >&2; exit 2; }
name=$1
case $name in */* | .* | "") echo "error: '$name' is not a folder name" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/data/$name
[ -d "$dir" ] || { echo "error: no records in data/$name (run a chapter with --save --machine $name first)" >&2; exit 1; }
command -v lscpu >/dev/null || { echo "error: lscpu is missing (apt-get install util-linux)" >&2; exit 1; }

field() { LC_ALL=C lscpu | sed -n "s/^$1:[[:space:]]*//p" | head -1; }
quote() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

siblings=$(for f in /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list; do
    cpu=${f#/sys/devices/system/cpu/cpu}; printf 'cpu%s: %s; ' "${cpu%%/*}" "$(cat "$f")"
done | sed 's/; $//')
kconfig=$( (zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null) || true)
hz=$(printf '%s\n' "$kconfig" | sed -n 's/^CONFIG_HZ=//p')
preempt=$(printf '%s\n' "$kconfig" | sed -n 's/^CONFIG_\(PREEMPT_NONE\|PREEMPT_VOLUNTARY\|PREEMPT\|PREEMPT_DYNAMIC\)=y$/\1/p' | tr '\n' ' ' | sed 's/ $//')
case " $preempt " in
    *" PREEMPT_DYNAMIC "*) model="preemption chosen at boot (PREEMPT_DYNAMIC; built default: ${preempt%% *})" ;;
    "  ") model="preemption model unknown" ;;
    *) model="preemption: $preempt" ;;
esac
if [ -n "$hz" ]; then
    tick="CONFIG_HZ=$hz (a tick of $((1000 / hz)) ms); $model"
else
    tick="unknown (no /proc/config.gz or /boot/config)"
fi
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null || echo "not glibc")
mimalloc_sys=$(sed -n '/^name = "libmimalloc-sys"$/{n;s/^version = "\(.*\)"$/\1/p}' "$root/Cargo.lock")
mimalloc="libmimalloc-sys $mimalloc_sys"
header=$(ls "$HOME"/.cargo/registry/src/*/libmimalloc-sys-"$mimalloc_sys"/c_src/mimalloc/v3/include/mimalloc.h 2>/dev/null | head -1 || true)
if [ -n "$header" ] && ! grep -q '"v2"' <(grep -E '^(mimalloc|libmimalloc-sys)' "$root/Cargo.toml"); then
    v=$(sed -n 's/^#define MI_MALLOC_VERSION \([0-9]*\).*/\1/p' "$header")
    mimalloc="mimalloc $((v / 10000)).$((v / 100 % 100)).$((v % 100)) ($mimalloc, its default v3 sources)"
fi

tmp=$(mktemp "$dir/.machine.toml.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
    echo "# What shapes this machine's results; written by scripts/machine-info.sh."
    echo "cpu_model = $(quote "$(field 'Model name')")"
    echo "vendor = $(quote "$(field 'Vendor ID')")"
    echo "family_model = $(quote "family $(field 'CPU family'), model $(field 'Model')")"
    echo "cpus = $(quote "$(field 'CPU(s)') online ($(field 'On-line CPU(s) list'))")"
    echo "topology = $(quote "$(field 'Socket(s)') socket(s), $(field 'Core(s) per socket') core(s) per socket, $(field 'Thread(s) per core') thread(s) per core, as the guest sees them")"
    echo "thread_siblings = $(quote "$siblings")"
    echo "caches = $(quote "L1d $(field 'L1d cache'), L2 $(field 'L2 cache'), L3 $(field 'L3 cache')")"
    echo "hypervisor = $(quote "$(field 'Hypervisor vendor') $(field 'Virtualization type')")"
    echo "clocksource = $(quote "$clocksource")"
    echo "kernel = $(quote "$(uname -sr)")"
    echo "scheduler_tick = $(quote "$tick")"
    echo "glibc = $(quote "$glibc")"
    echo "mimalloc = $(quote "$mimalloc")"
    echo "recorded = $(quote "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
} > "$tmp"
mv "$tmp" "$dir/machine.toml"
trap - EXIT
echo "wrote data/$name/machine.toml"
