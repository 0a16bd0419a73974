#!/usr/bin/env python3
"""Hand edits of one block-scatter pairs entry's PTX, for ptxas -v (register counts only):
  --noballot   P1: the ranking's radix <= 2 ballot path made dead (setp ... 196607 -> mov.pred 1)
  --late MODE  the values' early loads removed, loaded again late:
      each   : each value loaded just before its own staging store (inside its window's guard)
      batch  : all 16 loaded (predicated on the window count) just before the block's
               sync_threads_or (after the scan), then staged as now
      shared : as batch, but from shared memory (ld.shared of a 32-bit address): the
               register cost of values copied early by cp.async into shared memory
      none   : values not loaded at all (staged value := key): the floor
  --bound B    .maxntid 256 .minnctapersm B
"""
import re, sys, argparse
sys.path.insert(0, __import__('os').path.dirname(__file__))
from live import analyse

ap = argparse.ArgumentParser()
ap.add_argument('src'); ap.add_argument('dst')
ap.add_argument('--noballot', action='store_true')
ap.add_argument('--late', default=None)
ap.add_argument('--bound', type=int, default=0)
a = ap.parse_args()

text = open(a.src).read()
lines = text.split('\n')
insts, info, live_in, loaded, succ = analyse(a.src)
vals = loaded.get(1, set())
# line index (0-based) of each instruction
ln = {k: insts[k][0] - 1 for k in range(len(insts))}
line_of_inst = {insts[k][0] - 1: k for k in range(len(insts))}

edits = {}    # line idx -> replacement text (list of lines)
nr = [int(re.search(r'%r<(\d+)>', text).group(1))]
nrd = [int(re.search(r'%rd<(\d+)>', text).group(1))]
np_ = [int(re.search(r'%p<(\d+)>', text).group(1))]
def R():
    nr[0] += 1; return f'%r{nr[0]-1}'
def RD():
    nrd[0] += 1; return f'%rd{nrd[0]-1}'
def P():
    np_[0] += 1; return f'%p{np_[0]-1}'

if a.noballot:
    for i, l in enumerate(lines):
        m = re.match(r'\s*setp\.gt\.u32 \t(%p\d+), (%r\d+), 196607;', l)
        if m:
            edits[i] = [f'\tmov.pred \t{m.group(1)}, 1;']

if a.late:
    # value loads: ld.global with a params-1 address
    vloads = []
    for k, (op, d, u, pr) in enumerate(info):
        if op.startswith('ld.global') and d and d[0] in vals:
            vloads.append((k, op, d[0], u[0]))
    # base of each value address: add.s64 A, B, C with B tainted
    defs = {}
    for k, (op, d, u, pr) in enumerate(info):
        for x in d:
            defs.setdefault(x, []).append(k)
    vb = 8 if 'b64' in vloads[0][1] else 4
    vreg = {}   # value reg -> base reg
    for k, op, v, addr in vloads:
        (dk,) = defs[addr]
        s = insts[dk][1]
        m = re.match(r'add\.s64 \t(%rd\d+), (%rd\d+), (%rd\d+);', s)
        assert m, s
        # the base is whichever operand is itself a param-1 pointer without lane offset:
        # take the one defined by add.s64 of (tainted, something) earliest; use heuristics:
        b1, b2 = m.group(2), m.group(3)
        vreg[v] = (b1, b2)
        if a.late in ('shared', 'sharedeach'):
            # cp.async of the value into shared memory instead of a load into a register
            sm, t, sa = R(), R(), R()
            nb = 8 if 'b64' in op else 4
            edits[ln[k]] = [f'\tmov.u32 \t{sm}, WARPKIT_DYN_SMEM;', f'\tmov.u32 \t{t}, %tid.x;',
                            f'\tmad.lo.s32 \t{sa}, {t}, {16*nb}, {sm};',
                            f'\tcp.async.ca.shared.global [{sa}+{32768 + len(vreg)*nb}], [{addr}], {nb};']
        else:
            edits[ln[k]] = []   # drop the early load
    # common base: operand present in every value load's add
    from collections import Counter
    cnt = Counter(x for pair in vreg.values() for x in set(pair))
    # per arm 16 loads share a base
    def base_of(v):
        b1, b2 = vreg[v]
        return b1 if cnt[b1] >= cnt[b2] else b2
    # staging stores of value regs
    stores = []
    for k, (op, d, u, pr) in enumerate(info):
        if op.startswith('st.shared') and u and u[-1] in vals:
            stores.append(k)
    ld_t = f'b{vb*8}'
    reg_t = R if vb == 4 else RD
    # guard of each store: nearest preceding 'setp.* %p, %rdW, K' and its @%p bra
    def guard(k):
        j = k
        while True:
            j -= 1
            s = insts[j][1]
            m = re.match(r'setp\.(lt|eq)\.(u64|b64) \t(%p\d+), (%rd\d+), (\d+);', s)
            if m:
                kk = int(m.group(5)) - 1 if m.group(1) == 'lt' else 0
                if m.group(1) == 'eq':
                    assert m.group(5) == '0'
                return m.group(4), kk
    if a.late in ('each', 'none', 'sharedeach'):
        for k in stores:
            s = insts[k][1]
            v = info[k][2][-1]
            w, kk = guard(k)
            if a.late == 'none':
                # store the key register of the same window instead: find preceding key store
                j = k - 1
                while not insts[j][1].startswith('st.shared'):
                    j -= 1
                key = info[j][2][-1]
                edits[ln[k]] = [lines[ln[k]].replace(v + ';', key + ';')]
                continue
            base = base_of(v)
            lr, l2, off, ad = R(), R(), RD(), RD()
            nv = reg_t()
            if a.late == 'sharedeach':
                sb, t, t2, t3, wb = R(), R(), R(), R(), R()
                edits[ln[k]] = [f'\tmov.u32 \t{lr}, %laneid;', f'\tmov.u32 \t{sb}, WARPKIT_DYN_SMEM;', f'\tmov.u32 \t{t}, %tid.x;',
                        f'\tshr.u32 \t{t2}, {t}, 5;', f'\tmad.lo.s32 \t{t3}, {t2}, 512, {lr};',
                        f'\tmad.lo.s32 \t{wb}, {t3}, {vb}, {sb};',
                        f'\tld.shared.{ld_t} \t{nv}, [{wb}+{65536 + 32*kk*vb}];',
                        lines[ln[k]].replace(v + ';', nv + ';')]
                continue
            new = [f'\tmov.u32 \t{lr}, %laneid;', f'\tadd.s32 \t{l2}, {lr}, {32*kk};',
                   f'\tmul.wide.u32 \t{off}, {l2}, {vb};', f'\tadd.s64 \t{ad}, {base}, {off};',
                   f'\tld.global.{ld_t} \t{nv}, [{ad}];',
                   lines[ln[k]].replace(v + ';', nv + ';')]
            edits[ln[k]] = new
    elif a.late in ('batch', 'shared'):
        # per arm: insert before its bar.red.or.pred, 16 predicated loads; replace store regs
        bars = [k for k in range(len(insts)) if insts[k][1].startswith('bar.red.or.pred')]
        # map each store to the nearest preceding bar.red.or (in the arm's staging blocks)
        by_bar = {}
        for k in stores:
            # the staging of an arm follows its bar.red.or in text order
            b = max(x for x in bars if x < k)
            by_bar.setdefault(b, []).append(k)
        for b, ks in by_bar.items():
            new = []
            lr = R()
            new.append(f'\tmov.u32 \t{lr}, %laneid;')
            if a.late == 'shared':
                sb, t, t2, t3, wb = R(), R(), R(), R(), R()
                new += [f'\tmov.u32 \t{sb}, WARPKIT_DYN_SMEM;', f'\tmov.u32 \t{t}, %tid.x;',
                        f'\tshr.u32 \t{t2}, {t}, 5;', f'\tmad.lo.s32 \t{t3}, {t2}, 512, {lr};',
                        f'\tmad.lo.s32 \t{wb}, {t3}, {vb}, {sb};']
            assert len(ks) == 16, (b, len(ks))
            assert sorted(guard(k)[1] for k in ks) == list(range(16)), [guard(k) for k in ks]
            for k in ks:
                v = info[k][2][-1]
                w, kk = guard(k)
                base = base_of(v)
                pp, l2, off, ad = P(), R(), RD(), RD()
                nv = reg_t()
                new += [f'\tmov.b{vb*8} \t{nv}, 0;', f'\tsetp.gt.u64 \t{pp}, {w}, {kk};',
                        f'\tadd.s32 \t{l2}, {lr}, {32*kk};']
                if a.late == 'batch':
                    new += [f'\tmul.wide.u32 \t{off}, {l2}, {vb};', f'\tadd.s64 \t{ad}, {base}, {off};',
                            f'\t@{pp} ld.global.{ld_t} \t{nv}, [{ad}];']
                else:
                    # raw values in input order at a fixed shared offset (+ warp part via tid)
                    new += [f'\t@{pp} ld.shared.{ld_t} \t{nv}, [{wb}+{32768 + 32*kk*vb}];']
                edits[ln[k]] = [lines[ln[k]].replace(v + ';', nv + ';')]
            if a.late == 'shared':
                new = ['\tcp.async.wait_all;'] + new
            edits[ln[b]] = new + [lines[ln[b]]]

if a.late == 'sharedeach':
    for k in range(len(insts)):
        if insts[k][1].startswith('bar.red.or.pred'):
            edits[ln[k]] = ['\tcp.async.wait_all;', lines[ln[k]]]
out = []
for i, l in enumerate(lines):
    if i in edits:
        out += edits[i]
    else:
        out.append(l)
t = '\n'.join(out)
t = re.sub(r'%r<\d+>', f'%r<{nr[0]}>', t, count=1)
t = re.sub(r'%rd<\d+>', f'%rd<{nrd[0]}>', t, count=1)
t = re.sub(r'%p<\d+>', f'%p<{np_[0]}>', t, count=1)
if a.bound:
    t = re.sub(r'(\.visible \.entry \w+\([^)]*\))', lambda m: m.group(1) + f'\n.maxntid 256, 1, 1\n.minnctapersm {a.bound}', t, count=1)
open(a.dst, 'w').write(t)
