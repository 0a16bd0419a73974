#!/usr/bin/env bash
# Batch 1: CUB on uniform and lib_anchors keys; warpkit bench and ncu breakdown at m=256/32/4096.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name" >> $L/steps.txt; }
tar xJf b1.tar.xz
nvidia-smi > $L/smi.txt 2>&1
step nvcc 200 nvcc -O3 -arch=sm_90 cub_one.cu -o cub_one
for d in 0 1; do for lo in 31 27 24 20 16 0; do step cub_k_${lo}_d$d 60 ./cub_one $lo 0 $d; done; done
for lo in 31 27 24; do step cub_p_${lo} 60 ./cub_one $lo 1 0; done
M='--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum'
step ncu_cub24 120 ncu $M --launch-count 12 ./cub_one 24 0 0
step ncu_cub20 120 ncu $M --launch-count 12 ./cub_one 20 0 0
export CRITERION_HOME=$OUT/crit
B=b1/multisplit
step bench 300 $B --bench 'multisplit u32/.*(keys|pairs) m=.*/2\^28' --noplot
for m in 256 32 4096; do
  step ncu_wk_$m 150 ncu $M --launch-skip 40 --launch-count 12 $B --bench "multisplit u32/BlockLevel keys m=$m/2\^28" --noplot
done
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
