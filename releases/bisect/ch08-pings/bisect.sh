#!/bin/bash
# Which Tokio release between 1.38.2 and 1.43.4 made Chapter 8's pings answer sooner, and whether
# boxing the spawned future by hand on 1.40.0 does the same (releases/changes.toml says what was
# found). Run from the repository root after `cargo run -p book -- releases run` has made the
# workspaces of 1.38.2 and 1.43.4 under target/releases/. Writes records under $OUT (default
# target/bisect-ch08-pings/out), one per release and round; `analyse.py` summarises them.
set -euo pipefail
ROOT=$(pwd); W=$ROOT/target/bisect-ch08-pings; OUT=${OUT:-$W/out}; ROUNDS=${ROUNDS:-4}
mkdir -p "$W/bin" "$OUT"
for v in 1.38.2 1.39.3 1.40.0 1.41.1 1.42.1 1.43.4 1.40.0-boxed; do
  base=${v%-boxed}
  case $base in 1.38.*|1.39.*|1.40.*) from=1.38.2 ;; *) from=1.43.4 ;; esac
  rm -rf "$W/tokio-$v"; mkdir -p "$W/tokio-$v"
  (cd "target/releases/tokio-$from" && cp -r Cargo.toml Cargo.lock listings tools rust-toolchain.toml "$W/tokio-$v/")
  sed -i -E "s/^version = \"=1\.(38\.2|43\.4)\"/version = \"=$base\"/" "$W/tokio-$v/Cargo.toml"
  (cd "$W/tokio-$v" && cargo update -q -p tokio --precise "$base")
  [ "$v" = "$base" ] || (cd "$W/tokio-$v" && patch -s -p1 < "$ROOT/releases/bisect/ch08-pings/boxed.patch")
  # A target folder per release: the measurement library reads the lock file when it is built.
  (cd "$W/tokio-$v" && CARGO_TARGET_DIR=$W/tokio-$v/target cargo build -q --locked -p ch08-database --bin ch08-database)
  cp "$W/tokio-$v/target/debug/ch08-database" "$W/bin/ch08-$v"
done
for r in $(seq 1 "$ROUNDS"); do
  for v in $(printf '%s\n' 1.38.2 1.39.3 1.40.0 1.40.0-boxed 1.41.1 1.42.1 1.43.4 | shuf); do
    (cd "$W/tokio-$v" && "../bin/ch08-$v" --reps 1 --filter sqlx --filter sync_block_in_place \
      --filter sync_spawn_blocking --out "$OUT/$v-r$r.json" > "$OUT/$v-r$r.log" 2>&1)
  done
done
python3 "$ROOT/releases/bisect/ch08-pings/analyse.py" "$OUT"
