#!/usr/bin/env python3
"""Which kernels' machine code differs between the checked-in sm_90 images of a revision
(default HEAD) and the working tree: `scripts/sass-diff.py [REV]`.

Rebuilding the kernels crate reorders functions and renumbers internal helpers in every area's
image, so a byte diff of the images says nothing about which kernels changed. This disassembles
both sides with nvdisasm (NVDISASM, else on PATH), strips addresses, label numbers and
helper numbering, and compares kernel by kernel: only the kernels listed need their GPU tests
again. Exits 1 where any kernel differs, appeared or vanished."""

import os
import re
import subprocess
import sys
from pathlib import Path

IMAGES = Path("host/kernels/images")
NVDISASM = os.environ.get("NVDISASM", "nvdisasm")


def kernels(cubin: bytes) -> dict[str, str]:
    """Each function of a cubin, its SASS with addresses and numbering taken out."""
    path = Path("/tmp/sass-diff.cubin")
    path.write_bytes(cubin)
    text = subprocess.run([NVDISASM, "-c", str(path)], capture_output=True, text=True, check=True).stdout
    # Every section header splits; only the `.text.NAME` sections are kernels' code.
    parts = re.split(r"//-+ (\S+)\s+-+", text)
    out = {}
    for section, body in zip(parts[1::2], parts[2::2]):
        if not section.startswith(".text."):
            continue
        name = section.removeprefix(".text.")
        body = re.sub(r"/\*[0-9a-f]{4,}\*/", "", body)
        body = re.sub(r"\.L_x_\d+", "L", body)
        body = re.sub(r"__internal_\d+_", "__internal_", body)
        out[name] = body
    return out


def unzstd(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-dqc"], input=data, capture_output=True, check=True).stdout


def main() -> int:
    rev = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
    changed = 0
    for image in sorted(IMAGES.glob("*_sm_90.cubin.zst")):
        old = subprocess.run(["git", "show", f"{rev}:{image}"], capture_output=True).stdout
        before = kernels(unzstd(old)) if old else {}
        after = kernels(unzstd(image.read_bytes()))
        for name in sorted(before.keys() | after.keys()):
            if before.get(name) != after.get(name):
                what = "new" if name not in before else "gone" if name not in after else "differs"
                print(f"{image.name}: {name} {what}")
                changed += 1
    print(f"{changed} kernel(s) differ from {rev}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
