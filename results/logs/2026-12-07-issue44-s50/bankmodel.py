#!/usr/bin/env python3
"""Shared-memory bank model of the block-level multisplit scatter (m = 256, u32 keys; pairs).

Simulates whole blocks of `multisplit_scatter_block_u32_keys` as built at fc1af3e (256 threads,
8 warps x 16 windows of 32 keys = 4096 keys a block, radix 256, uniformly random digits) at the
level of its shared-memory instructions (the LDS/STS/ATOMS of the SASS, see the report), and of
the proposed variants. For each instruction it counts requests (warp instructions with at least
one active lane) and wavefronts under an explicit bank model, then prints them per window of 32
keys (a block holds 128 windows) next to Nsight Compute's measured totals.

Bank model (sm_90, 32 banks of 4 bytes, bank = (byte_address / 4) % 32):
- 4-byte loads and stores: wavefronts = the largest number of *distinct* 4-byte words that the
  active lanes touch in any one bank (lanes reading the same word share it: broadcast; lanes
  storing to the same word: one of them wins, one wavefront).
- 4-byte atomics: two models, because the hardware's handling of several lanes on one address
  is not documented: `distinct` (as loads) and `lanes` (every active lane counts in its bank,
  i.e. same-address lanes serialise). Nsight Compute's 3.60 atomic wavefronts a window decides
  between them (the script prints both).
- 8-byte accesses (only in variant P3): a wavefront moves at most 128 bytes, so a warp's 8-byte
  access is served in two half-warp phases (lanes 0-15, 16-31), each phase costing the largest
  number of distinct 4-byte words in one bank among its lanes (an 8-byte word covers two
  adjacent banks); model `half`. If the whole warp touches at most one word a bank (e.g. every
  lane the same 8-byte word) it takes one wavefront ("addresses allow better"). Model `warp`
  (optimistic): the whole warp at once, wavefronts = max(largest distinct words in a bank,
  ceil(distinct bytes / 128)).

Usage: python3 bankmodel.py [blocks] [seed]   (defaults 400 blocks = 51,200 windows; pure Python)
"""
import random
import sys
from collections import defaultdict

WARPS, WINDOWS, LANES, RADIX = 8, 16, 32, 256
WINDOWS_A_BLOCK = WARPS * WINDOWS  # 128
TILE = WARPS * WINDOWS * LANES  # 4096


def wf32(addrs):
    """Wavefronts of a 4-byte access by the lanes whose byte addresses are `addrs`."""
    if not addrs:
        return 0
    per_bank = defaultdict(set)
    for a in addrs:
        per_bank[(a >> 2) & 31].add(a >> 2)
    return max(len(s) for s in per_bank.values())


def wf32_lanes(addrs):
    """Atomic model `lanes`: every lane counts in its bank, same address or not."""
    if not addrs:
        return 0
    per_bank = defaultdict(int)
    for a in addrs:
        per_bank[(a >> 2) & 31] += 1
    return max(per_bank.values())


def _words64(addrs):
    per_bank = defaultdict(set)
    for a in addrs:
        w = a >> 2
        per_bank[w & 31].add(w)
        per_bank[(w + 1) & 31].add(w + 1)
    return per_bank


def wf64_half(addrs_by_lane):
    """8-byte access, `half` model; `addrs_by_lane` is a list of (lane, byte address)."""
    if not addrs_by_lane:
        return 0
    whole = _words64([a for _, a in addrs_by_lane])
    if max(len(s) for s in whole.values()) <= 1:
        return 1
    total = 0
    for lo in (0, 16):
        half = [a for l, a in addrs_by_lane if lo <= l < lo + 16]
        if half:
            total += max(len(s) for s in _words64(half).values())
    return total


def wf64_warp(addrs_by_lane):
    if not addrs_by_lane:
        return 0
    addrs = [a for _, a in addrs_by_lane]
    per_bank = _words64(addrs)
    distinct_bytes = 8 * len(set(addrs))
    return max(max(len(s) for s in per_bank.values()), -(-distinct_bytes // 128))


class Tally:
    def __init__(self):
        self.req = defaultdict(int)
        self.wf = defaultdict(float)
        self.kind = {}
        self.order = []

    def add(self, name, kind, wavefronts):
        if name not in self.kind:
            self.kind[name] = kind
            self.order.append(name)
        if wavefronts:
            self.req[name] += 1
            self.wf[name] += wavefronts


# ---- variants -------------------------------------------------------------------------------
# main: as built. P1: the ranking's match words indexed by the digit's low 5 bits (32 words a
# warp, so at most one word a bank: conflict-free), the peers with the other 3 bits found by 3
# ballots; the clear a store of word[lane] by every lane. P2: the running count by the leader's
# atom.add with return (+ one SHFL to the peers) instead of a load by all lanes and a store by
# the leader. P1P2: both. P3: match and count of a digit in one 8-byte word (swizzled so the
# match halves and the count halves each spread over all 32 banks): atom.or on the match half,
# one 8-byte load, one 8-byte store by the leader. P4: CUB's sm_90 ranking: 8 ballots, no match
# words, leader atom.add with return + SHFL.
VARIANTS = ("main", "P1", "P2", "P1P2", "P3", "P4")


def sim_block(rng, variant, values, atom_model):
    t = Tally()
    atom = wf32 if atom_model == "distinct" else wf32_lanes
    digits = [[[rng.randrange(RADIX) for _ in range(LANES)] for _ in range(WINDOWS)] for _ in range(WARPS)]
    packed = variant == "P3"
    # Byte layout.
    if packed:
        pair_base = 0  # 8 warps x 256 digits x 8 bytes = 16 KB, then the block-level write's parts
        moved_base = 16384
    else:
        counts_base, match_base = 0, 8192
        moved_base = 8192  # laid over the match words
    match32_base = 8192  # P1: 8 warps x 32 words (the block-level parts would go past it; here
    # only banks matter: 8192 is bank 0 like the original match rows)
    scratch_base = moved_base + 1024
    staged_base = scratch_base + 32
    values_base = staged_base + 4 * TILE

    def count_addr(w, d):
        if packed:
            return pair_base + 8 * (w * RADIX + d) + 4 * (1 - ((d >> 4) & 1))
        return counts_base + 4 * (w * RADIX + d)

    def match_addr(w, d):
        if packed:
            return pair_base + 8 * (w * RADIX + d) + 4 * ((d >> 4) & 1)
        if variant in ("P1", "P1P2"):
            return match32_base + 4 * (w * 32 + (d & 31))
        return match_base + 4 * (w * RADIX + d)

    def pair_addr(w, d):
        return pair_base + 8 * (w * RADIX + d)

    uses_match = variant != "P4"
    # 1. clear this warp's rows (8 trips of 2 stores as built; P1: counts 8 + the 32 match words 1)
    for w in range(WARPS):
        for i in range(RADIX // 32):
            t.add("clear counts", "st", wf32([count_addr(w, 32 * i + l) for l in range(32)]))
            if uses_match and variant not in ("P1", "P1P2"):
                t.add("clear match", "st", wf32([match_addr(w, 32 * i + l) for l in range(32)]))
        if variant in ("P1", "P1P2"):
            t.add("clear match", "st", wf32([match_addr(w, l) for l in range(32)]))
    # 2. ranking
    counts = [[0] * RADIX for _ in range(WARPS)]
    before_rank = [[[0] * LANES for _ in range(WINDOWS)] for _ in range(WARPS)]
    for w in range(WARPS):
        for k in range(WINDOWS):
            dl = digits[w][k]
            leaders = {}
            for l in range(LANES):
                leaders.setdefault(dl[l], l)
            lead_lanes = list(leaders.values())
            if uses_match:
                t.add("rank atom.or match", "atom", atom([match_addr(w, dl[l]) for l in range(LANES)]))
                if packed:
                    pairs = [(l, pair_addr(w, dl[l])) for l in range(LANES)]
                    t.add("rank ld.64 match+count", "ld", wf64_half(pairs))
                    t.add("rank ld.64 match+count [warp model]", "info", wf64_warp(pairs))
                else:
                    t.add("rank ld match", "ld", wf32([match_addr(w, dl[l]) for l in range(LANES)]))
            if variant in ("P2", "P1P2", "P4"):
                t.add("rank atom.add count (leaders, ret)", "atom", atom([count_addr(w, dl[l]) for l in lead_lanes]))
                t.add("rank shfl before (not a shared wavefront)", "info", 1)
            elif not packed:
                t.add("rank ld count", "ld", wf32([count_addr(w, dl[l]) for l in range(LANES)]))
            if packed:
                pairs = [(l, pair_addr(w, dl[l])) for l in lead_lanes]
                t.add("rank st.64 count+clear (leaders)", "st", wf64_half(pairs))
                t.add("rank st.64 count+clear [warp model]", "info", wf64_warp(pairs))
            else:
                if variant not in ("P2", "P1P2", "P4"):
                    t.add("rank st count (leaders)", "st", wf32([count_addr(w, dl[l]) for l in lead_lanes]))
                if variant in ("P1", "P1P2"):
                    t.add("rank st clear match (word[lane])", "st", wf32([match_addr(w, l) for l in range(32)]))
                elif uses_match:
                    t.add("rank st clear match (leaders)", "st", wf32([match_addr(w, dl[l]) for l in lead_lanes]))
            seen = defaultdict(int)
            for l in range(LANES):
                before_rank[w][k][l] = counts[w][dl[l]] + seen[dl[l]]
                seen[dl[l]] += 1
            for d, c in seen.items():
                counts[w][d] += c
    # 3. column sums (8 loads a thread), block scan (1 store a warp, 8 broadcast loads a warp),
    # warp starts (7 loads + 8 stores a thread), moves (1 store a thread)
    for w in range(WARPS):
        ds = range(32 * w, 32 * w + 32)
        for w2 in range(WARPS):
            t.add("column sums", "ld", wf32([count_addr(w2, d) for d in ds]))
        t.add("scan st warp total", "st", wf32([scratch_base + 4 * w]))
        for i in range(WARPS):
            t.add("scan ld totals (broadcast)", "ld", wf32([scratch_base + 4 * i] * 32))
        for w2 in range(WARPS):
            if w2 < WARPS - 1:
                t.add("warp_starts ld", "ld", wf32([count_addr(w2, d) for d in ds]))
            t.add("warp_starts st", "st", wf32([count_addr(w2, d) for d in ds]))
        t.add("moved st", "st", wf32([moved_base + 4 * d for d in ds]))
    # starts: the tile's digit start plus the warps before
    tile_count = [sum(counts[w][d] for w in range(WARPS)) for d in range(RADIX)]
    dstart, s = [0] * RADIX, 0
    for d in range(RADIX):
        dstart[d], s = s, s + tile_count[d]
    wstart = [[0] * RADIX for _ in range(WARPS)]
    for d in range(RADIX):
        acc = dstart[d]
        for w in range(WARPS):
            wstart[w][d], acc = acc, acc + counts[w][d]
    # 4. staging: load the warp's start of the digit, store the key (and value) at its slot
    slot_digit = [0] * TILE
    for w in range(WARPS):
        for k in range(WINDOWS):
            dl = digits[w][k]
            t.add("staging ld start", "ld", wf32([count_addr(w, dl[l]) for l in range(LANES)]))
            slots = [wstart[w][dl[l]] + before_rank[w][k][l] for l in range(LANES)]
            for l in range(LANES):
                slot_digit[slots[l]] = dl[l]
            t.add("staging st key", "st", wf32([staged_base + 4 * x for x in slots]))
            if values:
                t.add("staging st value", "st", wf32([values_base + 4 * x for x in slots]))
    # 5. write-out: slot j = k*256 + thread; load the key, then moved[digit(key)] (and the value)
    for w in range(WARPS):
        for k in range(WINDOWS):
            js = [k * 256 + 32 * w + l for l in range(LANES)]
            t.add("write-out ld key", "ld", wf32([staged_base + 4 * j for j in js]))
            t.add("write-out ld moved[digit]", "ld", wf32([moved_base + 4 * slot_digit[j] for j in js]))
            if values:
                t.add("write-out ld value", "ld", wf32([values_base + 4 * j for j in js]))
    return t


def run(variant, values, atom_model, blocks, seed):
    rng = random.Random(seed)
    total = Tally()
    for _ in range(blocks):
        t = sim_block(rng, variant, values, atom_model)
        for name in t.order:
            if name not in total.kind:
                total.kind[name] = t.kind[name]
                total.order.append(name)
            total.req[name] += t.req[name]
            total.wf[name] += t.wf[name]
    return total


def per_window(total, blocks):
    n = blocks * WINDOWS_A_BLOCK
    rows = []
    sums = defaultdict(lambda: [0.0, 0.0])
    for name in total.order:
        r, w = total.req[name] / n, total.wf[name] / n
        rows.append((name, total.kind[name], r, w, w / r if r else 0.0))
        if total.kind[name] != "info":
            sums[total.kind[name]][0] += r
            sums[total.kind[name]][1] += w
    return rows, sums


NCU = {  # multisplit_scatter_block_u32_keys, m = 256, 2^28 keys, H200 (s49 callN), a window
    "ld": (54001664 / 2**23, 109097054 / 2**23),
    "st": (38797312 / 2**23, 97709127 / 2**23),
    "atom": (None, 30215280 / 2**23),
}


def main():
    blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 44
    print(f"# {blocks} blocks of 4096 keys ({blocks * WINDOWS_A_BLOCK} windows), radix 256, seed {seed}")
    for atom_model in ("distinct", "lanes"):
        rows, sums = per_window(run("main", False, atom_model, blocks, seed), blocks)
        print(f"\n## main, u32 keys, atomic model `{atom_model}` (per window of 32 keys)")
        print("| instruction | kind | requests | wavefronts | way |")
        print("|---|---|---|---|---|")
        for name, kind, r, w, way in rows:
            print(f"| {name} | {kind} | {r:.4f} | {w:.3f} | {way:.2f} |")
        for kind in ("ld", "st", "atom"):
            r, w = sums[kind]
            nr, nw = NCU[kind]
            nrs = f"{nr:.4f}" if nr else "-"
            print(f"| **sum {kind}** | | {r:.4f} (ncu {nrs}) | {w:.3f} (ncu {nw:.3f}) | |")
        tot = sum(v[1] for v in sums.values())
        print(f"| **all** | | | {tot:.3f} (ncu {244460410 / 2**23:.3f}) | |")
    print("\n## variants (atomic model `distinct`; wavefronts a window; `lanes` in brackets)")
    print("| variant | kind | ld | st | atom | total | saved vs main | shared instr. a window |")
    print("|---|---|---|---|---|---|---|---|")
    base = {}
    for values in (False, True):
        for variant in VARIANTS:
            res = {}
            for atom_model in ("distinct", "lanes"):
                rows, sums = per_window(run(variant, values, atom_model, blocks, seed), blocks)
                res[atom_model] = (rows, sums)
            rows, sums = res["distinct"]
            sl = res["lanes"][1]
            tot = sum(v[1] for v in sums.values())
            totl = sum(v[1] for v in sl.values())
            reqs = sum(v[0] for v in sums.values())
            key = "pairs" if values else "keys"
            if variant == "main":
                base[key] = (tot, totl)
            print(
                f"| {variant} | {key} | {sums['ld'][1]:.2f} | {sums['st'][1]:.2f} | {sums['atom'][1]:.2f} [{sl['atom'][1]:.2f}] "
                f"| {tot:.2f} [{totl:.2f}] | {base[key][0] - tot:.2f} [{base[key][1] - totl:.2f}] | {reqs:.2f} |"
            )
            if variant in ("P3",):
                for name, kind, r, w, way in rows:
                    if "warp model" in name:
                        print(f"|  ({name}) | | | | | {w:.2f} a window | | |")
    print("\n## per-instruction detail of the variants, u32 keys, atomic model `distinct`")
    for variant in VARIANTS[1:]:
        rows, _ = per_window(run(variant, False, "distinct", blocks, seed), blocks)
        print(f"\n### {variant}")
        print("| instruction | kind | requests | wavefronts | way |")
        print("|---|---|---|---|---|")
        for name, kind, r, w, way in rows:
            print(f"| {name} | {kind} | {r:.4f} | {w:.3f} | {way:.2f} |")


def layouts(trials, seed):
    """Layouts that do not change which instructions index by a random digit: the same balls in
    bins. A warp's gather of 32 random digits (counts, match words, moves) under each layout of a
    warp's 256-word row, and the staging store under an XOR swizzle of the staged slots."""
    rng = random.Random(seed)
    w = 3  # any warp
    maps = {
        "as built: word w*256 + d": lambda d: w * 256 + d,
        "row padded to 257 words: w*257 + d": lambda d: w * 257 + d,
        "XOR swizzle: w*256 + (d ^ (d >> 5))": lambda d: w * 256 + (d ^ (d >> 5)),
        "transposed: d*8 + w": lambda d: d * 8 + w,
        "split (P1): w*32 + (d & 31), loads/stores": lambda d: w * 32 + (d & 31),
    }
    print("\n## layouts of a random-digit gather (32 lanes, radix 256), wavefronts a request")
    print("| layout | loads (distinct words) | atomics, `lanes` model |")
    print("|---|---|---|")
    samples = [[rng.randrange(RADIX) for _ in range(32)] for _ in range(trials)]
    for name, f in maps.items():
        ld = sum(wf32([4 * f(d) for d in ds]) for ds in samples) / trials
        at = sum(wf32_lanes([4 * f(d) for d in ds]) for ds in samples) / trials
        print(f"| {name} | {ld:.3f} | {at:.3f} |")
    # Staged slots: 32 distinct random slots of a 4096-slot tile stand in for a window's slots
    # (their banks are what matters); the write-out reads 32 consecutive slots.
    sw = lambda j: j ^ ((j >> 5) & 31)
    st_plain = sum(wf32([4 * j for j in rng.sample(range(TILE), 32)]) for _ in range(trials)) / trials
    st_sw = sum(wf32([4 * sw(j) for j in rng.sample(range(TILE), 32)]) for _ in range(trials)) / trials
    rd_sw = sum(wf32([4 * sw(j) for j in range(32 * r, 32 * r + 32)]) for r in range(TILE // 32)) / (TILE // 32)
    print(f"| staging store, random slots, as built | {st_plain:.3f} | - |")
    print(f"| staging store, slots XOR-swizzled j ^ ((j >> 5) & 31) | {st_sw:.3f} | - |")
    print(f"| write-out read of 32 consecutive slots, XOR-swizzled | {rd_sw:.3f} | - |")


if __name__ == "__main__":
    main()
    layouts(20000, 7)
