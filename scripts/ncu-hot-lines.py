#!/usr/bin/env python3
"""Summarizes Nsight Compute's source page of one kernel, as
`ncu --import REP --page source --csv --print-source sass > FILE` writes it.

    scripts/ncu-hot-lines.py FILE KERNEL [top N | loops | all]

`top N` (the default, N = 40): the stall reasons' shares, then the N SASS lines with the most
warp-stall samples, each with its executions, excess shared wavefronts or L2 sectors, and the
stall reasons that make up more than 5 % of its samples. `loops`: instructions grouped by how
often they ran (a loop's body runs as often as its trips; straight-line code once a warp). `all`: every line.
"""
import csv
import io
import sys
from collections import defaultdict

SAMPLES = 'Warp Stall Sampling (All Samples)'
EXECUTED = 'Instructions Executed'
EXCESS = ['L1 Wavefronts Shared Excessive', 'L2 Theoretical Sectors Global Excessive']


def kernel_rows(text, kernel):
    for block in text.split('"Kernel Name",')[1:]:
        if block.split(',')[0].strip('"') != kernel:
            continue
        table = list(csv.reader(io.StringIO(block.split('\n', 1)[1])))
        header = table[0]
        return header, [r for r in table[1:] if len(r) == len(header)]
    sys.exit(f'no kernel {kernel}')


def main():
    path, kernel = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else 'top'
    header, rows = kernel_rows(open(path).read(), kernel)
    col = {h: i for i, h in enumerate(header)}

    def num(row, name):
        try:
            return float(row[col[name]].replace(',', ''))
        except ValueError:
            return 0.0

    stalls = [h for h in header if h.startswith('stall_') and 'Not Issued' not in h]
    samples = sum(num(r, SAMPLES) for r in rows) or 1.0
    executed = sum(num(r, EXECUTED) for r in rows)
    print(f'{kernel}: {samples:.0f} stall samples, {executed:.0f} warp instructions')
    shares = sorted(((sum(num(r, h) for r in rows) / samples * 100, h[6:]) for h in stalls), reverse=True)
    print('stalls: ' + ', '.join(f'{name} {share:.1f} %' for share, name in shares[:10] if share > 0))

    def line(r):
        excess = {k: int(num(r, k)) for k in EXCESS if num(r, k)}
        why = {h[6:]: int(num(r, h)) for h in stalls if num(r, h) > 0.05 * num(r, SAMPLES) > 0}
        return (f"{r[col['Address']]} {num(r, SAMPLES) / samples * 100:5.1f} % {int(num(r, EXECUTED)):9d}  "
                f"{r[col['Source']].strip()[:70]} {excess or ''} {why or ''}")

    if mode == 'top':
        count = int(sys.argv[4]) if len(sys.argv) > 4 else 40
        for r in sorted(rows, key=lambda r: -num(r, SAMPLES))[:count]:
            print(line(r))
    elif mode == 'loops':
        groups = defaultdict(lambda: [0, 0.0, 0.0])
        for r in rows:
            g = groups[int(num(r, EXECUTED))]
            g[0] += 1
            g[1] += num(r, EXECUTED)
            g[2] += num(r, SAMPLES)
        for runs, (n, total, s) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:20]:
            print(f'ran {runs:9d}: {n:4d} instructions, {total / executed * 100:5.1f} % of executed, '
                  f'{s / samples * 100:5.1f} % of samples')
    else:
        for r in rows:
            print(line(r))


if __name__ == '__main__':
    main()
