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
# The set is made anew at the same place every run, its build kept beside it: cargo names a
# package's artifacts alike wherever it sits, so a set built from another folder into the same
# target could pass for this one.
set_dir=$root/target/rustlings-set
rm -rf "$set_dir/exercises"
mkdir -p "$set_dir"
cargo run -q -p course -- rustlings "$set_dir/exercises"
cd "$set_dir/exercises"
CARGO_TARGET_DIR=$set_dir/target "$rustlings" dev check
