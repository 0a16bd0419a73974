#!/usr/bin/env bash
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
exe() { python3 scripts/executables.py | awk '{print $3}' | tail -1; }
b=$(cargo bench -p warpkit-benches --bench multisplit --no-run --message-format=json 2>/dev/null | exe)
cp "$b" .gpu-next/bench-multisplit-ms
t=$(cargo test --release -p warpkit-tests --test multisplit --no-run --message-format=json 2>/dev/null | exe)
cp "$t" .gpu-next/test-multisplit-ms
strip .gpu-next/bench-multisplit-ms .gpu-next/test-multisplit-ms
echo "built ms $(date +%T)"
git stash -q
b=$(cargo bench -p warpkit-benches --bench multisplit --no-run --message-format=json 2>/dev/null | exe)
cp "$b" .gpu-next/bench-multisplit-main
strip .gpu-next/bench-multisplit-main
git stash pop -q
echo "built main $(date +%T)"
