#!/usr/bin/env bash
# Prints registers and stack per kernel from the `ptxas -v` reports that the host build writes
# while assembling each area's module (OUT_DIR/ptxas/<area>_<sm>.txt), and fails on any
# register spill or if the build embedded PTX only (no ptxas). Kernels under launch bounds
# (kernels-gpu/src/launch_bounds.rs) trade registers for resident blocks on purpose, and their
# benches measure the trade: a stack frame of up to 256 bytes a thread (spilled registers,
# which stay in L1) is reported for them, not failed. Run after a build of `warpkit`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(ls -td target/*/build/warpkit-*/out 2>/dev/null | while read -r d; do
    [ -f "$d/kernels.rs" ] && { echo "$d"; break; }; done)
[ -n "$out" ] || { echo "no build of warpkit found: run cargo build first"; exit 1; }
if ! ls "$out"/ptxas/*.txt >/dev/null 2>&1; then
    echo "the build in $out found no ptxas: run scripts/setup.sh, which installs it"; exit 1
fi
bounded=$({ grep -ho "launch bounds of [A-Za-z0-9_]*" "$out"/ptx/*.ptx || true; } | awk '{print $4}' | sort -u | tr '\n' ' ')
status=0
for report in "$out"/ptxas/*.txt; do
    piece=$(basename "$report" .txt)   # <area>_sm_XX
    awk -v piece="$piece" -v bounded=" $bounded" '
        /Compiling entry function/ { name = $7; gsub("\047", "", name) }
        /bytes stack frame/ { stack = $1; spills = $5 + $9 }
        /Used [0-9]+ registers/ {
            note = ""
            if (spills > 0) note = (index(bounded, " " name " ") && stack <= 256) ? "spills under launch bounds" : "SPILLS"
            printf "%-16s %-40s %4s registers %5s B stack %s\n", piece, name, $5, stack, note }' \
        "$report" | tee /tmp/warpkit-ptxas.txt
    if grep -q SPILLS /tmp/warpkit-ptxas.txt; then echo "register spills in $piece"; status=1; fi
done
exit $status
