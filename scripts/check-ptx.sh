#!/usr/bin/env bash
# Assembles the embedded PTX for sm_90 with ptxas (PyPI's nvidia-cuda-nvcc-cu12) and fails on
# any register spill. Prints registers and stack per kernel. Run after a build of `warpkit`.
set -euo pipefail
cd "$(dirname "$0")/.."
ptxas=$(command -v ptxas || python3 -c 'import os, nvidia.cuda_nvcc as m; print(os.path.join(list(m.__path__)[0], "bin", "ptxas"))')
status=0
for ptx in $(ls -t target/*/build/warpkit-*/out/kernels_sm_90.ptx | head -1) \
           $(ls -t target/*/build/warpkit-*/out/kernels_sm_80.ptx | head -1); do
    arch=$(basename "$ptx" .ptx | sed 's/kernels_//')
    report=$("$ptxas" -arch="$arch" -v "$ptx" -o /dev/null 2>&1) || { echo "$report"; exit 1; }
    echo "$report" | awk -v arch="$arch" '
        /Compiling entry function/ { name = $7; gsub("\047", "", name) }
        /bytes stack frame/ { stack = $1; spills = $5 + $9 }
        /Used [0-9]+ registers/ { printf "%-6s %-28s %4s registers %5s B stack %s\n", arch, name, $5, stack, (spills > 0 ? "SPILLS" : "") }' \
        | tee /tmp/warpkit-ptxas.txt
    if grep -q SPILLS /tmp/warpkit-ptxas.txt; then echo "register spills in $arch kernels"; status=1; fi
done
exit $status
