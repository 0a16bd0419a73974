#!/usr/bin/env python3
"""Which kernels' machine code differs between the checked-in sm_90 images of a revision
(default HEAD) and the working tree: `scripts/sass-diff.py [REV]`.

Rebuilding the kernels crate reorders functions and renumbers internal helpers in every area's
image, so a byte diff of the images says nothing about which kernels changed. This disassembles
both sides with nvdisasm (NVDISASM, else on PATH), takes out addresses, numbers each function's
labels in order of first use and drops helper numbering, and compares kernel by kernel: only
the kernels listed need their GPU tests again. It compares code only, and only for sm_90 (the
H100 and H200): a change to launch bounds, constant tables or static shared memory alone, or
to the sm_80 images and the PTX, goes unseen. Exits 1 where any kernel differs, appeared or
vanished, 2 where a revision or image cannot be read."""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

NVDISASM = os.environ.get("NVDISASM", "nvdisasm")


def normalized(body: str) -> str:
    """A function's SASS without addresses, with labels numbered in order of first use."""
    body = re.sub(r"/\*[0-9a-f]{4,}\*/", "", body)
    body = re.sub(r"__internal_\d+_", "__internal_", body)
    labels: dict[str, str] = {}
    return re.sub(r"\.L_x_\d+", lambda m: labels.setdefault(m.group(0), f"L{len(labels)}"), body)


def kernels(cubin: bytes) -> dict[str, str]:
    """Each function of a cubin, normalized."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        text = subprocess.run([NVDISASM, "-c", f.name], capture_output=True, text=True, check=True).stdout
    # Every section header splits; only the `.text.NAME` sections are kernels' code.
    parts = re.split(r"//-+ (\S+)\s+-+", text)
    return {
        section.removeprefix(".text."): normalized(body)
        for section, body in zip(parts[1::2], parts[2::2])
        if section.startswith(".text.")
    }


def unzstd(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-dqc"], input=data, capture_output=True, check=True).stdout


ROOT = Path(__file__).resolve().parents[1]


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)


def main() -> int:
    rev = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
    root = ROOT
    images = "host/kernels/images"
    listed = git("ls-tree", "--name-only", f"{rev}:{images}")
    if listed.returncode != 0:
        print(f"cannot list {images} at {rev}: {listed.stderr.decode().strip()}")
        return 2
    names = {n for n in listed.stdout.decode().split() if n.endswith("_sm_90.cubin.zst")}
    names |= {p.name for p in (root / images).glob("*_sm_90.cubin.zst")}
    if not names:
        print(f"no sm_90 images under {root / images}")
        return 2
    changed = 0
    for name in sorted(names):
        old = git("show", f"{rev}:{images}/{name}")
        before = kernels(unzstd(old.stdout)) if old.returncode == 0 else {}
        path = root / images / name
        after = kernels(unzstd(path.read_bytes())) if path.exists() else {}
        for kernel in sorted(before.keys() | after.keys()):
            if before.get(kernel) != after.get(kernel):
                what = "new" if kernel not in before else "gone" if kernel not in after else "differs"
                print(f"{name}: {kernel} {what}")
                changed += 1
    print(f"{changed} kernel(s) differ from {rev}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
