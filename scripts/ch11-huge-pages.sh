#!/usr/bin/env bash
# Chapter 11, Experiment 4's part two: where mimalloc's blocks sit in its memory, and what the
# kernel backs them with. Runs the chapter's `limit` command (4 MiB blocks, each written) with
# glibc's malloc and with mimalloc, stops each (SIGSTOP) once it holds BLOCKS blocks, and prints,
# for the mapping that holds the most: its resident and anonymous-huge-page sizes, whether it was
# advised for huge pages (`hg` in VmFlags), and for mimalloc a map of it in 2 MiB steps, a row per
# 32 MiB: `#` resident, `.` not, `+` part. No cgroup and no root needed (the present bits of
# /proc/PID/pagemap are readable by the process's owner). Needs python3.
#
# Usage: scripts/ch11-huge-pages.sh [BLOCKS]   (default 56: eight of mimalloc's 32 MiB chunks)
set -euo pipefail
cd "$(dirname "$0")/.."

blocks=${1:-56}
[[ "$blocks" =~ ^[1-9][0-9]*$ ]] || {
    echo "ch11-huge-pages: BLOCKS must be a positive whole number, not '$blocks'" >&2
    exit 2
}
command -v python3 >/dev/null || {
    echo "ch11-huge-pages: needs python3" >&2
    exit 2
}
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo 'not available')"
cargo build -q --release -p ch11-memory --bin ch11-system --bin ch11-mimalloc

chunk_mib=4
pid=
# The MiB held, from the program's `ch11-held` line, if `$line` is one.
note_held() {
    if [[ "$line" =~ \"held_mib\":([0-9]+) ]]; then held=${BASH_REMATCH[1]}; fi
}
trap '[[ -n "$pid" ]] && kill -KILL "$pid" 2>/dev/null || true' EXIT
for program in ch11-system ch11-mimalloc; do
    config="{\"chunk_mib\":$chunk_mib,\"max_chunks\":$((blocks + 1000))}"
    coproc SERVICE { exec "target/release/$program" limit "$config" 2>&1 >/dev/null; }
    pid=$SERVICE_PID
    exec {from}<&"${SERVICE[0]}"
    held=0
    while ((held < blocks * chunk_mib)) && read -r line <&"$from"; do note_held; done
    ((held >= blocks * chunk_mib)) || {
        echo "ch11-huge-pages: $program ended after $held MiB" >&2
        exit 1
    }
    kill -STOP "$pid"
    until [[ "$(awk '{print $3}' "/proc/$pid/stat")" == T ]]; do sleep 0.01; done
    # The program runs ahead of the lines read: count the blocks it held when it stopped.
    while read -r -t 0.2 line <&"$from"; do note_held; done
    exec {from}<&-
    echo "== $program: holds $held MiB in $((held / chunk_mib)) blocks"
    python3 - "$pid" "$program" <<'EOF'
import re, struct, sys
pid, program = int(sys.argv[1]), sys.argv[2]
maps, cur = [], None
for line in open(f"/proc/{pid}/smaps"):
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
    if m:
        cur = {"lo": int(m[1], 16), "hi": int(m[2], 16)}
        maps.append(cur)
    elif ":" in line:
        key, value = line.split(":", 1)
        cur[key] = value.strip()
big = max(maps, key=lambda m: int(m.get("Rss", "0 kB").split()[0]))
advised = "hg" in big.get("VmFlags", "").split()
print(f"largest mapping: {(big['hi'] - big['lo']) >> 20} MiB, resident {big['Rss']}, "
      f"in huge pages {big.get('AnonHugePages', 'none')}, advised for huge pages: {'yes' if advised else 'no'}")
if program == "ch11-mimalloc":
    pagemap = open(f"/proc/{pid}/pagemap", "rb")
    def present(address):
        pagemap.seek((address >> 12) * 8)
        return struct.unpack("Q", pagemap.read(8))[0] >> 63 & 1
    step, row = 2 << 20, 32 << 20
    for start in range(big["lo"], big["hi"], row):
        cells = ""
        for a in range(start, min(start + row, big["hi"]), step):
            ends = (present(a), present(a + step - 4096))
            cells += "#" if all(ends) else "+" if any(ends) else "."
        if "#" in cells or "+" in cells:
            print(f"  {(start - big['lo']) >> 20:4d} MiB {cells}")
EOF
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
done
