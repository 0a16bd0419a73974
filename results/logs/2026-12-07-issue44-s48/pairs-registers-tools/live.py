#!/usr/bin/env python3
"""PTX virtual-register liveness over the CFG of one entry (an estimate of register pressure
before ptxas's own scheduling and allocation). %r and %rs count 1, %rd counts 2, predicates
apart. Tags: regs loaded from the values pointer (param_1), from keys (param_0)."""
import re, sys, collections

REG = re.compile(r'%(rd|rs|r|p)\d+\b')
NODEF = ('st.', 'red.', 'bar.', 'bra', 'prefetch', 'ret', 'trap', 'membar', 'fence', 'cp.async',
         'brx.idx', 'barrier', 'exit')


def parse(path):
    lines = open(path).read().split('\n')
    insts = []  # (lineno, text)
    labels = {}
    in_brx = False
    brx_tables = {}
    cur_tbl = None
    for i, l in enumerate(lines, 1):
        s = l.split('//')[0].strip()
        if not s:
            continue
        m = re.match(r'(\$L_brx_\d+): \.branchtargets', s)
        if m:
            cur_tbl = m.group(1)
            brx_tables[cur_tbl] = []
            rest = s[m.end():]
            brx_tables[cur_tbl] += re.findall(r'\$L__BB\w+', rest)
            if not rest.endswith(';'):
                in_brx = True
            continue
        if in_brx:
            brx_tables[cur_tbl] += re.findall(r'\$L__BB\w+', s)
            if s.endswith(';'):
                in_brx = False
            continue
        m = re.match(r'(\$L__BB\w+):$', s)
        if m:
            labels[m.group(1)] = len(insts)
            continue
        if s.startswith('.') or s in ('{', '}') or s.startswith(')'):
            continue
        insts.append((i, s))
    return insts, labels, brx_tables


def defs_uses(s):
    pred = None
    m = re.match(r'@!?(%p\d+)\s+', s)
    if m:
        pred = m.group(1)
        s = s[m.end():]
    op = s.split()[0] if s.split() else ''
    body = s[len(op):].strip().rstrip(';')
    regs_all = [m.group(0) for m in REG.finditer(body)]
    if op.startswith(NODEF) or not regs_all:
        d, u = [], regs_all
    else:
        # dest: first operand, possibly {a, b} or a|b
        if body.startswith('{'):
            first = body[:body.index('}') + 1]
        else:
            first = body.split(',')[0]
        d = [m.group(0) for m in REG.finditer(first)]
        rest = body[len(first):]
        u = [m.group(0) for m in REG.finditer(rest)]
    if pred:
        u = u + [pred]
    return op, d, u, pred is not None


def weight(r):
    return 2 if r.startswith('%rd') else (0 if r.startswith('%p') else 1)


def analyse(path):
    insts, labels, brx = parse(path)
    n = len(insts)
    info = [defs_uses(s) for _, s in insts]
    succ = [[] for _ in range(n)]
    for k, (op, d, u, predicated) in enumerate(info):
        s = insts[k][1]
        if op.startswith('bra'):
            tgt = re.findall(r'\$L__BB\w+', s)[0]
            succ[k].append(labels[tgt])
            if predicated and k + 1 < n:
                succ[k].append(k + 1)
        elif op.startswith('brx.idx'):
            tbl = re.findall(r'\$L_brx_\d+', s)[0]
            succ[k] += [labels[t] for t in brx[tbl]]
        elif op.startswith('ret') or op.startswith('trap') and not predicated:
            pass
        else:
            if k + 1 < n:
                succ[k].append(k + 1)
    # taints: pointers from params
    ptr = {}
    for k, (op, d, u, _) in enumerate(info):
        s = insts[k][1]
        m = re.search(r'param_(\d+)\]', s)
        if m and op.startswith('ld.param') and d:
            ptr[d[0]] = int(m.group(1))
    changed = True
    while changed:
        changed = False
        for k, (op, d, u, _) in enumerate(info):
            if not d or not d[0].startswith('%rd') or op.startswith('ld.'):
                continue
            srcs = {ptr[x] for x in u if x in ptr}
            if len(srcs) == 1 and d[0] not in ptr:
                ptr[d[0]] = srcs.pop()
                changed = True
    loaded = collections.defaultdict(set)  # param -> regs loaded from it
    for k, (op, d, u, _) in enumerate(info):
        if op.startswith('ld.global'):
            a = [x for x in u if x in ptr]
            if a:
                for x in d:
                    loaded[ptr[a[0]]].add(x)
    # backward dataflow
    live_in = [set() for _ in range(n)]
    work = list(range(n))
    preds = [[] for _ in range(n)]
    for k in range(n):
        for j in succ[k]:
            preds[j].append(k)
    inq = [True] * n
    while work:
        k = work.pop()
        inq[k] = False
        out = set()
        for j in succ[k]:
            out |= live_in[j]
        op, d, u, predicated = info[k]
        new = (out - (set() if predicated else set(d))) | set(u)
        if new != live_in[k]:
            live_in[k] = new
            for p in preds[k]:
                if not inq[p]:
                    inq[p] = True
                    work.append(p)
    return insts, info, live_in, loaded, succ


if __name__ == '__main__':
    path = sys.argv[1]
    insts, info, live_in, loaded, succ = analyse(path)
    vals, keys = loaded.get(1, set()), loaded.get(0, set())
    def w(S):
        return sum(weight(r) for r in S)
    best = max(range(len(insts)), key=lambda k: w(live_in[k]))
    print(f'{path}: {len(insts)} insts; value-load regs {len(vals)}, key-load regs {len(keys)}')
    print(f'  max live {w(live_in[best])} (values {w(live_in[best] & vals)}, keys {w(live_in[best] & keys)}) at line {insts[best][0]}: {insts[best][1][:60]}')
    # landmarks
    for name, pat in [('ballot', 'vote.sync.ballot'), ('match red.or', 'red.shared.or'),
                      ('bar.sync', 'bar.sync'), ('st.shared (all)', 'st.shared'),
                      ('st.global', 'st.global')]:
        ks = [k for k in range(len(insts)) if insts[k][1].startswith(pat) or insts[k][1].split(' ', 1)[-1].startswith(pat)]
        ks = [k for k in range(len(insts)) if pat in insts[k][1]]
        if not ks:
            continue
        mx = max(ks, key=lambda k: w(live_in[k]))
        print(f'  at {name:16s} n={len(ks):4d} max live {w(live_in[mx]):3d} (values {w(live_in[mx] & vals):2d}, keys {w(live_in[mx] & keys):2d}) line {insts[mx][0]}; '
              f'values live at min/max: {min(w(live_in[k] & vals) for k in ks)}/{max(w(live_in[k] & vals) for k in ks)}')
