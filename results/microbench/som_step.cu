// Measurement tool, not part of the library: what one step of an online SOM epoch costs in a
// cooperative launch (the seed's case: 200 x 200 cells of 12 f32, 12000 steps, every cell in
// the window), by the way the blocks exchange their candidates. Built and run on the lent H100
// with `nvcc -O3 -arch=sm_90 som_step.cu -o som_step && ./som_step`. Every way must give the
// same winners as the counter barrier (way 0, the library's kernel at the time); the figures
// chose the exchange of `som_online_*` (results/som.md).
#include <cooperative_groups.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int DIM = 12, COLS = 200, CELLS = 200 * 200, STEPS = 12000, MAXB = 256;

struct Params {
    const float *nodes;       // STEPS x DIM, already in visiting order
    const float *weights;     // CELLS x DIM, the map before the epoch
    const float *table;       // rate * g, then g: radius + 1 each
    int radius;
    double *dist;             // way 0: 2 x blocks distances
    unsigned *idx;            // way 0: 2 x blocks cells
    unsigned *counter;        // way 0 and 1: the barrier's count
    unsigned long long *slot; // ways 1-3 and 5: candidates (2 x blocks)
    unsigned long long *word; // way 3: the leader's winner, tagged with the step
    unsigned *winners;        // STEPS, written by block 0
    float *out;               // CELLS x DIM after the epoch
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned add_release(unsigned *p, unsigned v) {
    unsigned old;
    asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ void grid_barrier(unsigned *counter) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned blocks = gridDim.x, add = blockIdx.x == 0 ? 0x80000000u - (blocks - 1) : 1;
        unsigned before = add_release(counter, add);
        while (((ld_acquire(counter) ^ before) & 0x80000000u) == 0) {
        }
    }
    __syncthreads();
}

__device__ __forceinline__ unsigned long long warp_min(unsigned long long v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);
        v = w < v ? w : v;
    }
    return v;
}

// A candidate as one word: distance bits above (non-negative f32 order as integers), the
// cell below, so the integer minimum is the lowest distance, then the lowest cell. The sign bit
// carries the step's parity in ways 2 and 3.
__device__ __forceinline__ unsigned long long pack(float d, unsigned cell) {
    return ((unsigned long long)__float_as_uint(d) << 32) | cell;
}

// Reads the blocks' candidates (one word each) with the calling warp, polling until all carry
// the tag `par` in their top bit; returns the warp's minimum without the tag.
__device__ __forceinline__ unsigned long long poll_all(const unsigned long long *slot, int blocks,
                                                       unsigned long long par) {
    const unsigned long long top = 1ull << 63;
    int lane = threadIdx.x & 31;
    unsigned long long v[MAXB / 32];
#pragma unroll
    for (int j = 0; j < MAXB / 32; j++) v[j] = lane + 32 * j < blocks ? par ^ top : par;
    bool done;
    do {
        done = true;
#pragma unroll
        for (int j = 0; j < MAXB / 32; j++) {
            int b = lane + 32 * j;
            if (b < blocks && (v[j] & top) != par) v[j] = ld_relaxed(slot + b);
        }
#pragma unroll
        for (int j = 0; j < MAXB / 32; j++) done &= (v[j] & top) == par;
    } while (!__all_sync(0xffffffffu, done));
    unsigned long long m = ~0ull;
#pragma unroll
    for (int j = 0; j < MAXB / 32; j++) {
        int b = lane + 32 * j;
        if (b < blocks) m = min(m, v[j] & ~top);
    }
    return warp_min(m);
}

template <int WAY> __global__ void epoch(Params p) {
    extern __shared__ float planes[]; // DIM planes of `share` cells
    __shared__ unsigned long long warp_best[32];
    __shared__ unsigned winner_cell;
    const int blocks = gridDim.x, share = (CELLS + blocks - 1) / blocks;
    const int first = min((int)blockIdx.x * share, CELLS), end = min(first + share, CELLS);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int i = threadIdx.x; i < (end - first) * DIM; i += blockDim.x)
        planes[(i % DIM) * share + i / DIM] = p.weights[first * DIM + i];
    __syncthreads();
    float x[DIM], next[DIM];
#pragma unroll
    for (int k = 0; k < DIM; k++) x[k] = __ldg(p.nodes + k);
    for (int t = 0; t < STEPS; t++) {
        if (t + 1 < STEPS) {
#pragma unroll
            for (int k = 0; k < DIM; k++) next[k] = __ldg(p.nodes + (t + 1) * DIM + k);
        }
        // The search: a thread's cells upward, strict <.
        unsigned long long best = ~0ull;
        for (int c = first + threadIdx.x; c < end; c += blockDim.x) {
            float s = 0.f;
#pragma unroll
            for (int k = 0; k < DIM; k++) {
                float d = x[k] - planes[k * share + c - first];
                s = fmaf(d, d, s);
            }
            unsigned long long w = pack(s, c);
            best = w < best ? w : best;
        }
        best = warp_min(best);
        if (lane == 0) warp_best[warp] = best;
        __syncthreads();
        unsigned long long mine = ~0ull;
        if (warp == 0) {
            mine = lane < warps ? warp_best[lane] : ~0ull;
            mine = warp_min(mine);
        }
        unsigned win;
        if (WAY == 0) {
            // The library's way: two words a candidate, the counter barrier, every warp reads all.
            int half = (t & 1) * blocks;
            if (threadIdx.x == 0) {
                p.dist[half + blockIdx.x] = (double)__uint_as_float((unsigned)(mine >> 32));
                p.idx[half + blockIdx.x] = (unsigned)mine;
            }
            grid_barrier(p.counter);
            double bd = INFINITY;
            unsigned bi = 0xffffffffu;
            for (int b = lane; b < blocks; b += 32) {
                double d = p.dist[half + b];
                unsigned i = p.idx[half + b];
                if (d < bd || (d == bd && i < bi)) bd = d, bi = i;
            }
            unsigned long long m = pack((float)bd, bi);
            win = (unsigned)warp_min(m);
        } else if (WAY == 1) {
            // One word a candidate, the counter barrier, every warp reads all at once.
            int half = (t & 1) * blocks;
            if (threadIdx.x == 0) st_relaxed(p.slot + half + blockIdx.x, mine);
            grid_barrier(p.counter);
            unsigned long long m = ~0ull;
            for (int j = 0; j < MAXB / 32; j++) {
                int b = lane + 32 * j;
                if (b < blocks) m = min(m, ld_relaxed(p.slot + half + b));
            }
            win = (unsigned)warp_min(m);
        } else if (WAY == 2) {
            // No barrier: a word a block in two halves by the step's parity, tagged with the
            // parity of t / 2 (a half's last value was step t - 2's); warp 0 of every block
            // polls all.
            const unsigned long long par = (unsigned long long)((t >> 1) & 1) << 63;
            int half = (t & 1) * blocks;
            if (threadIdx.x == 0) st_relaxed(p.slot + half + blockIdx.x, mine | par);
            if (warp == 0) {
                unsigned long long m = poll_all(p.slot + half, blocks, par);
                if (lane == 0) winner_cell = (unsigned)m;
            }
            __syncthreads();
            win = winner_cell;
        } else if (WAY == 5) {
            // As way 2, but every thread of a block polls one block's word (the library's way
            // from the thirty-fourth session): warp minima, then a block barrier.
            const unsigned long long par = (unsigned long long)((t >> 1) & 1) << 63, top = 1ull << 63;
            int half = (t & 1) * blocks;
            __shared__ unsigned long long gathered[32];
            if (threadIdx.x == 0) st_relaxed(p.slot + half + blockIdx.x, mine | par);
            unsigned long long m = ~0ull;
            for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
                unsigned long long v;
                do v = ld_relaxed(p.slot + half + b);
                while ((v & top) != par);
                m = min(m, v & ~top);
            }
            m = warp_min(m);
            if (lane == 0) gathered[warp] = m;
            __syncthreads();
            m = ~0ull;
            for (int w = 0; w < warps; w++) m = min(m, gathered[w]);
            win = (unsigned)m;
        } else if (WAY == 4) {
            // No exchange (wrong winners): the step's arithmetic and the block's reduction alone.
            if (threadIdx.x == 0) winner_cell = (unsigned)mine;
            __syncthreads();
            win = winner_cell;
        } else {
            // WAY 3, a leader: block 0's warp 0 polls all and publishes the winner tagged with the step;
            // every block's thread 0 polls that one word.
            const unsigned long long par = (unsigned long long)(t & 1) << 63;
            if (threadIdx.x == 0) st_relaxed(p.slot + blockIdx.x, mine | par);
            if (blockIdx.x == 0 && warp == 0) {
                unsigned long long m = poll_all(p.slot, blocks, par);
                if (lane == 0) st_relaxed(p.word, ((unsigned long long)(t + 1) << 32) | (unsigned)m);
            }
            if (threadIdx.x == 0) {
                unsigned long long w;
                do w = ld_relaxed(p.word);
                while ((w >> 32) != (unsigned long long)(t + 1));
                winner_cell = (unsigned)w;
            }
            __syncthreads();
            win = winner_cell;
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) p.winners[t] = win;
        // The update: every cell of the window pulled toward x.
        int wr = win / COLS, wc = win % COLS;
        for (int c = first + threadIdx.x; c < end; c += blockDim.x) {
            int dr = abs(c / COLS - wr), dc = abs(c % COLS - wc);
            if (dr <= p.radius && dc <= p.radius) {
                float rate = __ldg(p.table + dr) * __ldg(p.table + p.radius + 1 + dc);
#pragma unroll
                for (int k = 0; k < DIM; k++) {
                    float w = planes[k * share + c - first];
                    planes[k * share + c - first] = fmaf(rate, x[k], fmaf(-rate, w, w));
                }
            }
        }
        // The next search reads only this thread's own cells: no block barrier needed here,
        // but way 0 and 1 reuse warp_best only after their barriers, ways 2 and 3 after theirs.
#pragma unroll
        for (int k = 0; k < DIM; k++) x[k] = next[k];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < (end - first) * DIM; i += blockDim.x)
        p.out[first * DIM + i] = planes[(i % DIM) * share + i / DIM];
}

#define CK(x)                                                                                        \
    do {                                                                                             \
        cudaError_t e = (x);                                                                         \
        if (e != cudaSuccess) {                                                                      \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                         \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

template <int WAY> float run(Params p, int blocks, int threads, std::vector<unsigned> &winners) {
    int share = (CELLS + blocks - 1) / blocks;
    size_t shared = (size_t)share * DIM * 4;
    CK(cudaFuncSetAttribute(epoch<WAY>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, epoch<WAY>, threads, shared));
    if (per_sm * 132 < blocks) return -1.f; // not all resident: a cooperative launch would fail
    float best = 1e30f;
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaMemset(p.counter, 0, 4));
        CK(cudaMemset(p.slot, 0xff, 2 * MAXB * 8)); // parity 1: no step 0 candidate yet
        CK(cudaMemset(p.word, 0, 8));
        void *args[] = {&p};
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        cudaEventRecord(a);
        if (cudaLaunchCooperativeKernel((void *)epoch<WAY>, blocks, threads, args, shared) != cudaSuccess) {
            cudaGetLastError(); // too many registers for the block, say: this shape is skipped
            return -2.f;
        }
        cudaEventRecord(b);
        CK(cudaEventSynchronize(b));
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        best = fminf(best, ms);
    }
    winners.resize(STEPS);
    CK(cudaMemcpy(winners.data(), p.winners, STEPS * 4, cudaMemcpyDeviceToHost));
    return best;
}

int main() {
    std::vector<float> nodes(STEPS * DIM), weights(CELLS * DIM);
    uint64_t s = 12345;
    auto next = [&]() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (float)((s >> 40) * (1.0 / (1ull << 24)));
    };
    for (auto &v : nodes) v = next();
    for (auto &v : weights) v = next();
    int radius = 199;
    std::vector<float> table(2 * (radius + 1));
    for (int k = 0; k <= radius; k++) {
        float g = expf(-(float)(k * k) / (2.f * 100.f * 100.f));
        table[k] = 0.5f * g;
        table[radius + 1 + k] = g;
    }
    Params p{};
    float *d_nodes, *d_weights, *d_table;
    CK(cudaMalloc(&d_nodes, nodes.size() * 4));
    CK(cudaMalloc(&d_weights, weights.size() * 4));
    CK(cudaMalloc(&d_table, table.size() * 4));
    CK(cudaMemcpy(d_nodes, nodes.data(), nodes.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_weights, weights.data(), weights.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_table, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
    p.nodes = d_nodes;
    p.weights = d_weights;
    p.table = d_table;
    p.radius = radius;
    CK(cudaMalloc(&p.dist, 2 * MAXB * 8));
    CK(cudaMalloc(&p.idx, 2 * MAXB * 4));
    CK(cudaMalloc(&p.counter, 4));
    CK(cudaMalloc(&p.slot, 2 * MAXB * 8));
    CK(cudaMalloc(&p.word, 8));
    CK(cudaMalloc(&p.winners, STEPS * 4));
    CK(cudaMalloc(&p.out, CELLS * DIM * 4));
    printf("ways: 0 the barrier (library), 1 the barrier and one word a candidate, 2 posts polled by"
           " warp 0 of each block, 3 a leader, 4 no exchange (the arithmetic alone: its winners"
           " differ), 5 posts polled by a thread a block; -1 ms: not resident, -2: not launched\n");
    std::vector<unsigned> reference;
    struct Shape {
        int blocks, threads;
    } shapes[] = {{157, 256}, {132, 320}, {132, 160}, {79, 512}, {66, 640}, {40, 1024}, {250, 160}};
    for (auto sh : shapes) {
        float ms[6];
        std::vector<unsigned> w[6];
        ms[0] = run<0>(p, sh.blocks, sh.threads, w[0]);
        ms[1] = run<1>(p, sh.blocks, sh.threads, w[1]);
        ms[2] = run<2>(p, sh.blocks, sh.threads, w[2]);
        ms[3] = run<3>(p, sh.blocks, sh.threads, w[3]);
        ms[4] = run<4>(p, sh.blocks, sh.threads, w[4]);
        ms[5] = run<5>(p, sh.blocks, sh.threads, w[5]);
        if (reference.empty()) reference = w[0];
        printf("%4d blocks x %4d threads:", sh.blocks, sh.threads);
        for (int v = 0; v < 6; v++) {
            bool same = w[v] == reference;
            printf("  way %d %7.2f ms (%.2f us a step)%s", v, ms[v], ms[v] * 1e3f / STEPS, same ? "" : " DIFFERENT");
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
