#!/usr/bin/env bash
# Installs oha 1.16.0, the HTTP load generator Chapter 7 checks its own generator against
# (`cargo run -p ch07-axum` runs it when it is on the PATH or in ~/.cargo/bin). A few minutes.
set -euo pipefail
if command -v oha >/dev/null 2>&1 && oha --version | grep -q "1.16.0"; then
    echo "oha 1.16.0 is installed: $(command -v oha)"
    exit 0
fi
cargo install --locked oha@1.16.0
