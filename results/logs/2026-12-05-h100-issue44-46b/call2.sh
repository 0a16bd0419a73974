#!/usr/bin/env bash
# Call 2: racecheck leftovers beside the running soak, then soak-wait.
cd .gpu-bundle
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
mkdir -p "$OUT/race" "$OUT/race2"
export SANITIZE_TIMEOUT=420
( OUT=$OUT/race SANITIZE_TOOLS=racecheck SANITIZE_SPLIT=1 SANITIZE_JOBS=8 SANITIZE_ONLY="test-dist test-som test-concurrency" SANITIZE_RACECHECK_LEN=1025 ./run.sh sanitize >"$OUT/race/out.txt" 2>&1 ) &
r1=$!
( OUT=$OUT/race2 SANITIZE_TOOLS=racecheck SANITIZE_ONLY="tour" SANITIZE_RACECHECK_LEN=1025 ./run.sh sanitize >"$OUT/race2/out.txt" 2>&1 ) &
r2=$!
wait $r1; el race; wait $r2; el race2
for d in race race2; do echo "== $d"; cat "$OUT/$d/sanitize-summary.txt"; done
el soak-wait; OUT=$OUT ./run.sh soak-wait 120; echo "soak-wait exit $?"
tail -5 "$OUT/warpkit-soak/nvidia-smi.txt"
cd "$OUT" && tar -czf logs.tgz --exclude=logs.tgz . 2>/dev/null
