#!/usr/bin/env bash
# The programs outside Rust that the chapters run and this machine lacks, as the chapters'
# manifests name them (listings/*/chapter.toml, `[[needs]]`): one line each, tab-separated,
# the program, its Debian package (or -), the command that installs it otherwise (or -) and what
# is lost without it. scripts/test.sh installs
# them; scripts/preflight.sh lists them.
set -uo pipefail
cd "$(dirname "$0")/.."
while IFS=$'\t' read -r program package also_in install without; do
    found=$(command -v "$program" 2>/dev/null)
    if [ "$also_in" != "-" ]; then
        for dir in $also_in; do
            [ -z "$found" ] && [ -x "$dir/$program" ] && found="$dir/$program"
        done
    fi
    [ -n "$found" ] || printf '%s\t%s\t%s\t%s\n' "$program" "$package" "$install" "$without"
done < <(cargo run -q -p book -- chapters --needs)
