#!/usr/bin/env bash
# The course's exercises as a rustlings exercise set, checked by rustlings itself: generated into
# a temporary folder (`cargo run -p course -- rustlings DIR`), then `rustlings dev check` builds
# every exercise (each must fail its test) and every solution (each must pass, formatted).
# Installs rustlings 6.5.0 into target/tools the first time (about a minute on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rustlings=$root/target/tools/bin/rustlings
if ! "$rustlings" --version 2>/dev/null | grep -q "6\.5\.0"; then
    cargo install -q --locked rustlings --version 6.5.0 --root "$root/target/tools"
fi
set_dir=$(mktemp -d)
trap 'rm -rf "$set_dir"' EXIT
cargo run -q -p course -- rustlings "$set_dir/exercises-set"
cd "$set_dir/exercises-set"
# A target folder of its own, kept between runs.
CARGO_TARGET_DIR=$root/target/rustlings "$rustlings" dev check
