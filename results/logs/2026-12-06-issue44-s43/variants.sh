#!/usr/bin/env bash
# Builds main ("compact") and the alias block-shape variants of the 42nd session's plan, each
# committed on its own branch with its images, their alias bench (and with TESTS=1 test)
# executables stripped into .gpu-next; then the bundle .gpu-next.txz.
#   variants.sh [NAME...]   (default: compact t2 p2 t5 t2p2 p3 t6 p4)
# The forty-third session ran `TESTS=1 variants.sh compact t2 p2`, then
# `TESTS=0 variants.sh t5 p4 p3` (about 6.5 min a variant on two cores, 14 with its tests).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
TESTS=${TESTS:-1}
mkdir -p .gpu-next
build() { # name
  cargo bench -p warpkit-benches --bench alias --no-run --message-format=json 2>/dev/null | python3 scripts/executables.py | awk '{print $3}' | head -1 > /tmp/b.txt
  cp "$(cat /tmp/b.txt)" .gpu-next/bench-alias-$1
  strip .gpu-next/bench-alias-$1
  if [ "$TESTS" = 1 ]; then
    cargo test --release -p warpkit-tests --test alias --no-run --message-format=json 2>/dev/null | python3 scripts/executables.py | awk '{print $3}' | head -1 > /tmp/t.txt
    cp "$(cat /tmp/t.txt)" .gpu-next/test-alias-$1
    strip .gpu-next/test-alias-$1
  fi
  echo "built $1 $(date +%T)"
}
P=kernels-gpu/src/policy/alias.rs
T=kernels-gpu/src/alias/partition.rs
L=kernels-gpu/src/launch_bounds.rs
pack() { sed -i "s/^pub const SHARED_PACK_THREADS: u32 = 256;/pub const SHARED_PACK_THREADS: u32 = $1;/; s/^pub const SHARED_PACK_THREAD_ROWS: u64 = 8;/pub const SHARED_PACK_THREAD_ROWS: u64 = $2;/" $P; }
tile() { sed -i "s/^pub const PARTITION_ITEMS_PER_THREAD: u64 = 4;/pub const PARTITION_ITEMS_PER_THREAD: u64 = $1;/" $T; }
bound() { python3 - "$1" <<'PY'
import sys
p = "kernels-gpu/src/launch_bounds.rs"
s = open(p).read()
b = sys.argv[1]
s = s.replace('pub const PREFIXES: &[(&str, LaunchBounds)] = &[\n',
  '/// The alias partition: blocks of 256, %s an SM (a tuning candidate).\npub const ALIAS_PARTITION: LaunchBounds = LaunchBounds {\n    max_threads: 256,\n    min_blocks_per_sm: %s,\n};\n\npub const PREFIXES: &[(&str, LaunchBounds)] = &[\n    ("alias_partition_f", ALIAS_PARTITION),\n' % (b, b), 1)
open(p, "w").write(s)
PY
}
variant() { # name branch edits...
  local name=$1 branch=$2; shift 2
  git checkout -q main
  "$@"
  git diff --stat
  scripts/update-kernels.sh > /tmp/update-$name.log 2>&1
  build $name
  git checkout -q -b $branch
  git add kernels-gpu host examples
  git commit -q -m "issue 44 tuning candidate $name (not for main)"
  git checkout -q main
}
scripts/setup.sh
for name in ${*:-compact t2 p2 t5 t2p2 p3 t6 p4}; do
  case $name in
    compact) build compact ;;
    t2) variant t2 issue44-tile-2048 tile 8 ;;
    p2) variant p2 issue44-pack-128x16 pack 128 16 ;;
    t5) variant t5 issue44-partition-5 bound 5 ;;
    t2p2) variant t2p2 issue44-t2p2 eval "tile 8; pack 128 16" ;;
    p3) variant p3 issue44-pack-256x16 pack 256 16 ;;
    t6) variant t6 issue44-partition-6 bound 6 ;;
    p4) variant p4 issue44-pack-128x8 pack 128 8 ;;
    *) echo "unknown variant $name"; exit 1 ;;
  esac
done
git checkout -q main
ls -la .gpu-next
tar -cf - .gpu-next | xz -T2 -6 > .gpu-next.txz
ls -la .gpu-next.txz
echo ALL DONE $(date +%T)
