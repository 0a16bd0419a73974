// Measurement tool, not part of the library: what it costs a warp to find each lane's peers
// (the lanes holding the same digit) in a window of 32 random digits, three ways. Built and run
// on the lent H100 with `nvcc -O3 -arch=sm_90 peers.cu -o peers && ./peers`; the figures chose
// the multisplit scatter's ranking (results/multisplit.md, fourth session, step 1).
#include <cstdint>
#include <cstdio>

__device__ __forceinline__ uint32_t xorshift(uint32_t &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

// One ballot per bit of the digit, the seed's way.
template <int BITS> __device__ __forceinline__ uint32_t peers_by_ballots(uint32_t d) {
    uint32_t peers = 0xffffffffu;
#pragma unroll
    for (int r = 0; r < BITS; r++) {
        uint32_t ones = __ballot_sync(0xffffffffu, (d >> r) & 1);
        peers &= ((d >> r) & 1) ? ones : ~ones;
    }
    return peers;
}

// WAY: 0 match.any, 1 ballots, 2 an atomic OR into the digit's shared word and a read back.
template <int WAY, int BITS> __global__ void windows(uint32_t seed, int iterations, uint32_t *sink) {
    __shared__ uint32_t words[8][256];
    uint32_t s = seed ^ (threadIdx.x * 747796405u + blockIdx.x * 2891336453u);
    if (s == 0) s = 1;
    uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5, below = (1u << lane) - 1, sum = 0;
    for (int i = threadIdx.x; i < 8 * 256; i += blockDim.x) (&words[0][0])[i] = 0;
    __syncthreads();
    for (int i = 0; i < iterations; i++) {
        uint32_t d = xorshift(s) & ((1u << BITS) - 1), peers;
        if (WAY == 0) {
            peers = __match_any_sync(0xffffffffu, d);
        } else if (WAY == 1) {
            peers = peers_by_ballots<BITS>(d);
        } else {
            atomicOr(&words[warp][d], 1u << lane);
            __syncwarp();
            peers = words[warp][d];
            __syncwarp();
            if ((peers & below) == 0) words[warp][d] = 0;
            __syncwarp();
        }
        sum += __popc(peers & below);
    }
    if (sum == 0xdeadbeef) sink[0] = sum;  // keeps the work
}

template <int WAY, int BITS> void measure(const char *name, uint32_t *sink) {
    const int blocks = 132 * 8, iterations = 4096;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    windows<WAY, BITS><<<blocks, 256>>>(1, iterations, sink);
    cudaDeviceSynchronize();
    cudaEventRecord(start);
    windows<WAY, BITS><<<blocks, 256>>>(2, iterations, sink);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    double count = (double)blocks * 8 * iterations;
    printf("%-10s bits=%d  %.3f ms  %.1f G windows/s  (%.2f SM-cycles/window at 1.755GHz)\n", name, BITS, ms,
           count / ms / 1e6, ms * 1e-3 * 1.755e9 * 132 / count);
}

int main() {
    uint32_t *sink;
    cudaMalloc(&sink, 4);
    measure<0, 1>("match", sink);
    measure<0, 5>("match", sink);
    measure<0, 8>("match", sink);
    measure<1, 1>("ballot", sink);
    measure<1, 5>("ballot", sink);
    measure<1, 8>("ballot", sink);
    measure<2, 1>("atomicOr", sink);
    measure<2, 5>("atomicOr", sink);
    measure<2, 8>("atomicOr", sink);
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
