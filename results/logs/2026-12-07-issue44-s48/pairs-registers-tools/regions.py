import sys, re, collections
from live import analyse, weight
path = sys.argv[1]
insts, info, live_in, loaded, succ = analyse(path)
n = len(insts)
vals, keys = loaded.get(1, set()), loaded.get(0, set())
w = lambda S: sum(weight(r) for r in S)
def reach(starts, stop=lambda k: False):
    seen = set(); st = list(starts)
    while st:
        k = st.pop()
        if k in seen: continue
        seen.add(k)
        if stop(k): continue
        st += succ[k]
    return seen
# arm entries: brx targets + default
brx = [k for k in range(n) if insts[k][1].startswith('brx.idx')][0]
arms = list(succ[brx])
# default arm: the branch before brx (setp.gt kind,6 ; @p bra)
pre = [k for k in range(brx) if insts[k][1].startswith('@') and 'bra' in insts[k][1]]
arms.append(succ[pre[-1]][0])
radix_tests = [k for k in range(n) if '196607' in insts[k][1]]
def phases(starts):
    # 0-1 BFS over bar.sync count
    import collections
    dist = {}; dq = collections.deque((s, 0) for s in starts)
    while dq:
        k, d = dq.popleft()
        if k in dist and dist[k] <= d: continue
        dist[k] = d
        dd = d + (1 if insts[k][1].startswith('bar.sync') else 0)
        for j in succ[k]:
            if dd == d: dq.appendleft((j, dd))
            else: dq.append((j, dd))
    return dist
for a, e in enumerate(arms):
    R = reach([e])
    rt = [k for k in radix_tests if k in R]
    tag = f'arm{a} (line {insts[e][0]})'
    if rt:
        br = rt[0] + 1
        while not insts[br][1].startswith('@'): br += 1
        s1, s2 = succ[br]  # taken (match, radix>2), fallthrough (ballot)
        Rm, Rb = reach([s1]), reach([s2])
        common = Rm & Rb
        regions = {'pre': R - Rm - Rb, 'ballot': Rb - common, 'match': Rm - common}
        join = min(common, key=lambda k: k)  # any; phases from both entries
        ph = phases([k for k in common if any(p not in common for p in range(0)) ] or [s1])
    else:
        # no ballot path: match starts at first clear... treat first red.or
        Rm = R; common = R
        regions = {'all': R}
        ph = phases([e])
    out = [tag]
    for nm, S in regions.items():
        if not S: continue
        k = max(S, key=lambda k: w(live_in[k]))
        out.append(f'{nm}:{w(live_in[k])}(v{w(live_in[k]&vals)},k{w(live_in[k]&keys)})')
    if rt:
        ph = phases([s1])
        byp = collections.defaultdict(list)
        for k in common: byp[ph.get(k, -1)].append(k)
        for p in sorted(byp):
            k = max(byp[p], key=lambda k: w(live_in[k]))
            out.append(f'post{p}:{w(live_in[k])}(v{w(live_in[k]&vals)},k{w(live_in[k]&keys)})')
    print(' '.join(out))
