// How fast can a full convolution of two f32 vectors of 2048 go, launched and synchronized?
// Issue 44 asks 12 us a call by wall clock; an empty launch and synchronize takes 7.7-9.4 us
// on the H100s lent. This measures plain CUDA kernels of a few shapes beside an empty one at
// lengths 2048 to 256, by CUDA events (200 launches back to back) and by wall clock (a launch,
// then a synchronize), each checked against f64 sums on the host. Any argument: each shape
// launched three times at 2048 and not timed, for Nsight Compute.
// Build: nvcc -O3 -arch=sm_90 conv_small.cu
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void empty() {}

// An output a lane, 32 a block; warp w of W sums the w-th of W stretches of the inner index
// straight from global memory, and warp 0 adds the W partial sums in order.
template <int W>
__global__ void __launch_bounds__(32 * W) lanes(const float* a, const float* b, float* out, int na, int nb) {
    __shared__ float part[W * 32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int nout = na + nb - 1;
    int o = blockIdx.x * 32 + lane;
    int oc = min(o, nout - 1);
    int klo = max(0, oc - na + 1), khi = min(nb, oc + 1);
    int per = (min(na, nb) + W - 1) / W;
    int s = min(klo + w * per, khi), e = min(s + per, khi);
    float sum = 0.f;
#pragma unroll 8
    for (int k = s; k < e; k++) sum = fmaf(a[oc - k], b[k], sum);
    part[threadIdx.x] = sum;
    __syncthreads();
    if (w == 0 && o < nout) {
        float t = 0.f;
#pragma unroll
        for (int i = 0; i < W; i++) t += part[i * 32 + lane];
        out[o] = t;
    }
}

// 32 outputs a block as `lanes`, both vectors' needed runs staged in shared memory by the whole
// block first (a block's outputs need at most nb + 31 elements of each).
template <int W>
__global__ void __launch_bounds__(32 * W) staged(const float* a, const float* b, float* out, int na, int nb) {
    extern __shared__ float sh[];
    __shared__ float part[W * 32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int nout = na + nb - 1;
    int o0 = blockIdx.x * 32;
    // Terms of the block: k in [max(0, o0 - na + 1), min(nb, o0 + 32)); a at o - k.
    int kb = max(0, o0 - na + 1), ke = min(nb, o0 + 32);
    int ab = max(0, o0 - ke + 1), ae = min(na, o0 + 32);  // a indices o - k over the block
    float* sb = sh;
    float* sa = sh + (ke - kb);
    for (int i = threadIdx.x; i < ke - kb; i += 32 * W) sb[i] = b[kb + i];
    for (int i = threadIdx.x; i < ae - ab; i += 32 * W) sa[i] = a[ab + i];
    __syncthreads();
    int o = o0 + lane;
    int oc = min(o, nout - 1);
    int klo = max(0, oc - na + 1), khi = min(nb, oc + 1);
    int per = (min(na, nb) + W - 1) / W;
    int s = min(klo + w * per, khi), e = min(s + per, khi);
    float sum = 0.f;
#pragma unroll 8
    for (int k = s; k < e; k++) sum = fmaf(sa[oc - k - ab], sb[k - kb], sum);
    part[threadIdx.x] = sum;
    __syncthreads();
    if (w == 0 && o < nout) {
        float t = 0.f;
#pragma unroll
        for (int i = 0; i < W; i++) t += part[i * 32 + lane];
        out[o] = t;
    }
}


// As `staged`, with every staging load issued before the first store and the inner sum in four
// accumulators (terms k = s + 4i + j into accumulator j, added in order at the end).
template <int W>
__global__ void __launch_bounds__(32 * W) staged4(const float* a, const float* b, float* out, int na, int nb) {
    extern __shared__ float sh[];
    __shared__ float part[W * 32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int nout = na + nb - 1;
    int o0 = blockIdx.x * 32;
    int kb = max(0, o0 - na + 1), ke = min(nb, o0 + 32);
    int ab = max(0, o0 - ke + 1), ae = min(na, o0 + 32 - kb);
    int lb = ke - kb, la = ae - ab;
    float* sb = sh;
    float* sa = sh + lb;
    constexpr int R = (2048 + 32 + 32 * W - 1) / (32 * W);
    float vb[R], va[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        int i = threadIdx.x + r * 32 * W;
        vb[r] = i < lb ? b[kb + i] : 0.f;
        va[r] = i < la ? a[ab + i] : 0.f;
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        int i = threadIdx.x + r * 32 * W;
        if (i < lb) sb[i] = vb[r];
        if (i < la) sa[i] = va[r];
    }
    __syncthreads();
    int o = o0 + lane;
    int oc = min(o, nout - 1);
    int klo = max(0, oc - na + 1), khi = min(nb, oc + 1);
    int per = (min(na, nb) + W - 1) / W;
    int s = min(klo + w * per, khi), e = min(s + per, khi);
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    const float* pa = sa + (oc - s - ab);
    const float* pb = sb + (s - kb);
    int n = e - s, i = 0;
    for (; i + 4 <= n; i += 4) {
#pragma unroll
        for (int j = 0; j < 4; j++) acc[j] = fmaf(pa[-(i + j)], pb[i + j], acc[j]);
    }
    for (; i < n; i++) acc[0] = fmaf(pa[-i], pb[i], acc[0]);
    part[threadIdx.x] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    __syncthreads();
    if (w == 0 && o < nout) {
        float t = 0.f;
#pragma unroll
        for (int i = 0; i < W; i++) t += part[i * 32 + lane];
        out[o] = t;
    }
}

// An output a warp, G warps a block: lane l sums terms k = klo + l, + 32, ... and a shuffle
// tree adds the lanes.
template <int G>
__global__ void __launch_bounds__(32 * G) warpsg(const float* a, const float* b, float* out, int na, int nb) {
    int lane = threadIdx.x & 31;
    int o = blockIdx.x * G + (threadIdx.x >> 5);
    int nout = na + nb - 1;
    if (o >= nout) return;
    int klo = max(0, o - na + 1), khi = min(nb, o + 1);
    float s = 0.f;
#pragma unroll 4
    for (int k = klo + lane; k < khi; k += 32) s = fmaf(a[o - k], b[k], s);
    for (int d = 16; d; d >>= 1) s += __shfl_xor_sync(~0u, s, d);
    if (lane == 0) out[o] = s;
}

// Two outputs a warp (a half-warp each), G warps a block.
template <int G>
__global__ void __launch_bounds__(32 * G) halves(const float* a, const float* b, float* out, int na, int nb) {
    int lane = threadIdx.x & 15;
    int o = blockIdx.x * 2 * G + (threadIdx.x >> 4);
    int nout = na + nb - 1;
    int oc = min(o, nout - 1);
    int klo = max(0, oc - na + 1), khi = min(nb, oc + 1);
    float s = 0.f;
#pragma unroll 4
    for (int k = klo + lane; k < khi; k += 16) s = fmaf(a[oc - k], b[k], s);
    for (int d = 8; d; d >>= 1) s += __shfl_xor_sync(~0u, s, d);
    if (lane == 0 && o < nout) out[o] = s;
}

template <class F> double median(F f, int n) {
    std::vector<double> t(n);
    for (int i = 0; i < n; i++) t[i] = f();
    std::sort(t.begin(), t.end());
    return t[n / 2];
}

static int N;  // the length of both vectors in this run

// Times every shape at length n (both vectors), after checking each against f64 sums.
static void run(int n, bool profile) {
    N = n;
    const int nout = 2 * n - 1;
    std::vector<float> ha(n), hb(n);
    unsigned long long x = 12345;
    auto rnd = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return (float)((x >> 40) * 0x1p-24) - 0.25f; };
    for (auto& v : ha) v = rnd();
    for (auto& v : hb) v = rnd();
    std::vector<double> want(nout, 0.0);
    double mass = 0;
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) want[i + j] += (double)ha[i] * hb[j];
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) mass += std::fabs((double)ha[i] * hb[j]);
    float *a, *b, *out;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMalloc(&out, nout * 4);
    cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice);
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    int sh = 2 * (n + 32) * 4;
    cudaFuncSetAttribute(staged<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, sh);
    cudaFuncSetAttribute(staged<32>, cudaFuncAttributeMaxDynamicSharedMemorySize, sh);
    cudaFuncSetAttribute(staged4<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, sh);
    cudaFuncSetAttribute(staged4<32>, cudaFuncAttributeMaxDynamicSharedMemorySize, sh);
    struct V { const char* name; void (*go)(cudaStream_t); };
    static float *A, *B, *O; A = a; B = b; O = out;
    static int SH; SH = sh;
    V vs[] = {
        {"empty 1x32", [](cudaStream_t s) { empty<<<1, 32, 0, s>>>(); }},
        {"empty 128x512", [](cudaStream_t s) { empty<<<128, 512, 0, s>>>(); }},
        {"lanes W=8", [](cudaStream_t s) { lanes<8><<<(2 * N - 1 + 31) / 32, 256, 0, s>>>(A, B, O, N, N); }},
        {"lanes W=16", [](cudaStream_t s) { lanes<16><<<(2 * N - 1 + 31) / 32, 512, 0, s>>>(A, B, O, N, N); }},
        {"lanes W=32", [](cudaStream_t s) { lanes<32><<<(2 * N - 1 + 31) / 32, 1024, 0, s>>>(A, B, O, N, N); }},
        {"warps (output a warp)", [](cudaStream_t s) { warpsg<8><<<(2 * N - 1 + 7) / 8, 256, 0, s>>>(A, B, O, N, N); }},
        {"staged W=16", [](cudaStream_t s) { staged<16><<<(2 * N - 1 + 31) / 32, 512, SH, s>>>(A, B, O, N, N); }},
        {"staged W=32", [](cudaStream_t s) { staged<32><<<(2 * N - 1 + 31) / 32, 1024, SH, s>>>(A, B, O, N, N); }},
        {"staged4 W=16", [](cudaStream_t s) { staged4<16><<<(2 * N - 1 + 31) / 32, 512, SH, s>>>(A, B, O, N, N); }},
        {"staged4 W=32", [](cudaStream_t s) { staged4<32><<<(2 * N - 1 + 31) / 32, 1024, SH, s>>>(A, B, O, N, N); }},
        {"warps G=4", [](cudaStream_t s) { warpsg<4><<<(2 * N - 1 + 3) / 4, 128, 0, s>>>(A, B, O, N, N); }},
        {"warps G=16", [](cudaStream_t s) { warpsg<16><<<(2 * N - 1 + 15) / 16, 512, 0, s>>>(A, B, O, N, N); }},
        {"halves G=8", [](cudaStream_t s) { halves<8><<<(2 * N - 1 + 15) / 16, 256, 0, s>>>(A, B, O, N, N); }},
    };
    std::vector<float> got(nout);
    for (auto& v : vs) {
        cudaMemsetAsync(out, 0xff, nout * 4, s);
        v.go(s);
        cudaError_t err = cudaStreamSynchronize(s);
        cudaMemcpy(got.data(), out, nout * 4, cudaMemcpyDeviceToHost);
        double worst = 0;
        bool empty_kernel = v.name[0] == 'e';
        if (!empty_kernel)
            for (int i = 0; i < nout; i++) worst = std::max(worst, std::fabs(got[i] - want[i]) / mass);
        if (profile) {
            for (int i = 0; i < 3; i++) v.go(s);
            cudaStreamSynchronize(s);
            printf("n=%-5d %-24s err/mass %.2e\n", n, v.name, worst);
            continue;
        }
        for (int i = 0; i < 200; i++) v.go(s);
        cudaStreamSynchronize(s);
        double ev = median([&] {
            cudaEventRecord(e0, s);
            for (int i = 0; i < 200; i++) v.go(s);
            cudaEventRecord(e1, s);
            cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            return ms * 1000.0 / 200;
        }, 31);
        double wall = median([&] {
            auto t = std::chrono::steady_clock::now();
            v.go(s);
            cudaStreamSynchronize(s);
            return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count();
        }, 5000);
        double queue = median([&] {
            auto t = std::chrono::steady_clock::now();
            v.go(s);
            double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count();
            cudaStreamSynchronize(s);
            return us;
        }, 2000);
        printf("n=%-5d %-24s events %6.2f us  wall %6.2f us  queue %5.2f us  err/mass %.2e  %s\n", n, v.name, ev, wall, queue, worst,
               err == cudaSuccess ? "ok" : cudaGetErrorString(err));
    }
    cudaFree(a); cudaFree(b); cudaFree(out);
    cudaStreamDestroy(s);
}

int main(int argc, char** argv) {
    bool profile = argc > 1;
    {
        cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        auto idle = [&] {
            return median([&] {
                auto t = std::chrono::steady_clock::now();
                cudaStreamSynchronize(s);
                return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count();
            }, 5000);
        };
        printf("a synchronize with nothing queued %.3f us\n", idle());
        // The same once a kernel has run on the stream (and finished).
        empty<<<1, 32, 0, s>>>();
        cudaStreamSynchronize(s);
        printf("a synchronize with nothing queued, after a kernel %.3f us\n", idle());
        cudaStreamDestroy(s);
    }
    for (int n : {2048, 1024, 512, 256}) {
        if (!profile || n == 2048) run(n, profile);
    }
    return 0;
}
