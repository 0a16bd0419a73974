#!/usr/bin/env bash
# Builds release executables of another revision beside the GPU bundle, for an A/B measured on
# one machine in one call (the bundle's own binaries are the B):
#   scripts/gpu-ab.sh REV bench:NAME|test:NAME...
# e.g. `scripts/gpu-ab.sh issue44-subset-bound bench:subset test:subset` puts
# .gpu-bundle/ab/bench-subset-<rev> and .gpu-bundle/ab/test-subset-<rev> (stripped) there; then
# tar the bundle again. REV is checked out in a worktree (target/ab/<rev>/src) and built into a
# target directory of its own (target/ab/<rev>/build): cargo tells path packages apart by their
# paths relative to the workspace, so a second checkout built into this one's target directory
# can leave one revision's artifacts standing for the other's (seen 2026-12-05).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts="$PWD/scripts"
rev=${1:?give a revision, then bench:NAME or test:NAME}
shift
[ $# -gt 0 ] || { echo "give one or more bench:NAME or test:NAME"; exit 1; }
short=$(git rev-parse --short "$rev")
root="$PWD/target/ab/$short"
if [ ! -d "$root/src" ]; then
    mkdir -p "$root"
    git worktree add --detach "$root/src" "$short"
fi
mkdir -p .gpu-bundle/ab
for target in "$@"; do
    kind=${target%%:*} name=${target#*:}
    case $kind in
        bench) args=(bench -p warpkit-benches --bench "$name" --no-run) ;;
        test) args=(test --release -p warpkit-tests --test "$name" --no-run) ;;
        *) echo "$target: give bench:NAME or test:NAME"; exit 1 ;;
    esac
    exe=$(cd "$root/src" && CARGO_TARGET_DIR="$root/build" cargo "${args[@]}" --message-format=json |
        python3 "$scripts/executables.py" | awk '{ print $3 }' | tail -n 1)
    [ -n "$exe" ] || { echo "$target: nothing built"; exit 1; }
    cp "$exe" ".gpu-bundle/ab/$kind-$name-$short"
    strip ".gpu-bundle/ab/$kind-$name-$short"
    echo ".gpu-bundle/ab/$kind-$name-$short"
done
