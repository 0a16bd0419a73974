#!/usr/bin/env bash
# Call 2: the tour's 10-minute soak beside racecheck to the end of the binaries that ran out of
# time (each test its own run), and the sanitizers over the scan, dist, properties and memory
# tests changed since the last GPU run.
cd "$(dirname "$0")"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
mkdir -p "$OUT/soak" "$OUT/race" "$OUT/race2" "$OUT/mem"
( WARPKIT_TOUR_SOAK_SECS=${SOAK:-560} timeout 590 examples/tour gpu >"$OUT/soak/tour.txt" 2>&1; echo "soak exit $?" >>"$OUT/soak/tour.txt" ) &
soak=$!
( for i in $(seq 1 20); do nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader; sleep 30; done >"$OUT/soak/nvidia-smi.txt" 2>&1 ) &
smi=$!
export SANITIZE_TIMEOUT=${RACE_TIMEOUT:-540}
( OUT=$OUT/race SANITIZE_TOOLS=racecheck SANITIZE_SPLIT=1 SANITIZE_JOBS=10 \
  SANITIZE_ONLY="test-alias test-multisplit test-som test-concurrency tour" ./run.sh sanitize >"$OUT/race/out.txt" 2>&1 ) &
r1=$!
( OUT=$OUT/race2 SANITIZE_TOOLS=racecheck SANITIZE_JOBS=2 SANITIZE_ONLY="test-scan_reduce test-dist" ./run.sh sanitize >"$OUT/race2/out.txt" 2>&1 ) &
r2=$!
( OUT=$OUT/mem SANITIZE_TOOLS="memcheck synccheck" SANITIZE_JOBS=3 \
  SANITIZE_ONLY="test-scan_reduce test-dist test-properties test-memory" ./run.sh sanitize >"$OUT/mem/out.txt" 2>&1 ) &
r3=$!
wait $r2; el "race2 done"; wait $r3; el "mem done"; wait $r1; el "race done"; wait $soak; el "soak done"; kill $smi 2>/dev/null
for d in race race2 mem; do echo "== $d"; cat "$OUT/$d/sanitize-summary.txt"; done
tail -4 "$OUT/soak/tour.txt"
