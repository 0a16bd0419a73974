#!/usr/bin/env bash
# Call 1: subsets A/B (main, 0cf0935 bounded registers, 17ba056 + first block up front), 32x32;
# the branch's subset tests on the GPU and under memcheck/racecheck/synccheck; the 2^28 scan by
# wall clock beside events; then a detached 600 s soak of the tour (collected by call 2).
cd "$(dirname "$0")"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
sub='^subsets(/| to host/).*32x32'
for i in 1 2; do
  for v in main 0cf0935 17ba056; do
    exe=benches/subset; [ $v = main ] || exe=ab/bench-subset-$v
    el "subset $v $i"; $exe --bench "$sub" 2>&1 | grep -E "^subsets|time:|thrpt:" | sed "s/^/$v$i /" | tee -a "$logs/subset-ab.txt" | grep -E "thrpt" | head -20
  done
done
el "grid scan"; benches/grid --bench 'scan_exclusive 2\^28 u32( wall)?$' 2>&1 | tee "$logs/grid-scan.txt" | grep -E "^grid|time:|thrpt:"
el "subset tests 17ba056"
WARPKIT_TEST_DEVICES=gpu timeout 300 ab/test-subset-17ba056 --test-threads=4 > "$logs/t-subset-17ba056.log" 2>&1; echo "exit $?"; grep -E "^test result|FAILED|panicked|SKIPPED" "$logs/t-subset-17ba056.log"
el "subset sanitize 17ba056"
sb=/tmp/sb; rm -rf $sb; mkdir -p $sb/tests; cp run.sh $sb/; ln -s "$PWD/ab/test-subset-17ba056" $sb/tests/test-subset
OUT=$logs/san SANITIZE_JOBS=3 SANITIZE_TIMEOUT=240 SANITIZE_ONLY=test-subset $sb/run.sh sanitize > "$logs/san-out.txt" 2>&1; echo "sanitize exit $?"; cat "$logs/san/sanitize-summary.txt"
el "soak start"; ./run.sh soak-start 600
el done
cd "$logs" && tar -czf logs.tgz --exclude=logs.tgz . 2>/dev/null; ls "$logs" | head
