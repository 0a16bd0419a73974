// Measurement tool, not part of the library: the FFT peer of warpkit's convolution on the same
// GPU. Full convolution of two device vectors of length n by cuFFT (zero-pad both to L, the
// power of two >= 2n - 1, one batched R2C, a pointwise product scaled by 1/L, one C2R), timed
// with CUDA events from device inputs to the padded device output, plans made beforehand; and
// a batch of 4096 pairs of 256 the same way in one batched call each. It also prints how far
// the FFT's outputs are from a direct f64 sum: the largest relative error of any output, for
// random positive inputs and for geometric ones falling to 1e-30 (the issue's tails test).
// Built and run on the lent GPU with `nvcc -O3 -arch=sm_90 fft_convolve.cu -lcufft -o fft &&
// ./fft`; the figures are the FFT line of results/convolve.md.
#include <cufft.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                   \
    do {                                                                           \
        auto r_ = (x);                                                             \
        if (r_ != 0) {                                                             \
            fprintf(stderr, "%s:%d %s failed: %d\n", __FILE__, __LINE__, #x, (int)r_); \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

template <class T> struct Fft;
template <> struct Fft<float> {
    typedef cufftComplex C;
    static const cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R;
    static cufftResult fwd(cufftHandle h, float *in, C *out) { return cufftExecR2C(h, in, out); }
    static cufftResult inv(cufftHandle h, C *in, float *out) { return cufftExecC2R(h, in, out); }
    static const char *name() { return "f32"; }
};
template <> struct Fft<double> {
    typedef cufftDoubleComplex C;
    static const cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D;
    static cufftResult fwd(cufftHandle h, double *in, C *out) { return cufftExecD2Z(h, in, out); }
    static cufftResult inv(cufftHandle h, C *in, double *out) { return cufftExecZ2D(h, in, out); }
    static const char *name() { return "f64"; }
};

// pad[b][i] = x[b][i] for i < n, 0 up to L, for the batch's 2 * pairs vectors.
template <class T> __global__ void pad(const T *x, int n, T *padded, int L, long vectors) {
    long total = vectors * L;
    for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < total; k += (long)gridDim.x * blockDim.x) {
        long b = k / L, i = k % L;
        padded[k] = i < n ? x[b * n + i] : T(0);
    }
}

// P[b] *= Q[b] / L for each pair's spectra (P of pair b at b, Q at pairs + b).
template <class C, class T> __global__ void product(C *spectra, long bins, long pairs, T scale) {
    for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < pairs * bins; k += (long)gridDim.x * blockDim.x) {
        C p = spectra[k], q = spectra[pairs * bins + k];
        spectra[k].x = (p.x * q.x - p.y * q.y) * scale;
        spectra[k].y = (p.x * q.y + p.y * q.x) * scale;
    }
}

struct Result { float us; std::vector<double> out; };

// `pairs` convolutions of length-n vectors held back to back in x (all p, then all q).
template <class T> Result convolve(const std::vector<T> &x, int n, int pairs, int reps) {
    typedef typename Fft<T>::C C;
    int L = 1;
    while (L < 2 * n - 1) L *= 2;
    long bins = L / 2 + 1, vectors = 2L * pairs;
    T *dx, *padded;
    C *spectra;
    CHECK(cudaMalloc(&dx, x.size() * sizeof(T)));
    CHECK(cudaMalloc(&padded, vectors * L * sizeof(T)));
    CHECK(cudaMalloc(&spectra, vectors * bins * sizeof(C)));
    CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
    cufftHandle fwd, inv;
    CHECK(cufftPlan1d(&fwd, L, Fft<T>::r2c, (int)vectors));
    CHECK(cufftPlan1d(&inv, L, Fft<T>::c2r, pairs));
    auto once = [&] {
        pad<T><<<1024, 256>>>(dx, n, padded, L, vectors);
        CHECK(Fft<T>::fwd(fwd, padded, spectra));
        product<C, T><<<1024, 256>>>(spectra, bins, pairs, T(1) / L);
        CHECK(Fft<T>::inv(inv, spectra, padded));  // pair b's output at padded[b * L]
    };
    once();
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++) once();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::vector<T> first(2 * n - 1);
    CHECK(cudaMemcpy(first.data(), padded, first.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cufftDestroy(fwd));
    CHECK(cufftDestroy(inv));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(padded));
    CHECK(cudaFree(spectra));
    return {1000 * ms / reps, std::vector<double>(first.begin(), first.end())};
}

// The largest |got - want| / want over the first pair's outputs, by a direct f64 sum.
template <class T> double max_relative(const std::vector<T> &x, int n, int pairs, const std::vector<double> &got) {
    const T *p = x.data(), *q = x.data() + (long)pairs * n;
    double worst = 0;
    for (int i = 0; i < 2 * n - 1; i++) {
        double want = 0;
        for (int j = (i < n ? 0 : i - n + 1); j <= i && j < n; j++) want += (double)p[i - j] * q[j];
        if (want > 0) worst = fmax(worst, fabs(got[i] - want) / want);
    }
    return worst;
}

template <class T> void line(int n, int pairs, bool accuracy) {
    std::vector<T> x(2L * pairs * n);
    srand(n);
    for (auto &v : x) v = T(rand()) / RAND_MAX;
    int reps = n * (double)n * pairs > 1e9 ? 20 : 200;
    Result r = convolve(x, n, pairs, reps);
    printf("cuFFT %s %5d pairs of %6d: %9.1f us", Fft<T>::name(), pairs, n, r.us);
    if (accuracy) {
        printf("  max rel err: random %.1e", max_relative(x, n, pairs, r.out));
        double rho = pow(1e-30, 1.0 / (n - 1));
        for (int i = 0; i < n; i++) x[i] = x[n + i] = T((1 - rho) * pow(rho, i));
        printf(", geometric to 1e-30 %.1e", max_relative(x, n, 1, convolve(x, n, 1, 1).out));
    }
    printf("\n");
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int version;
    CHECK(cufftGetVersion(&version));
    printf("%s, cuFFT %d\n", prop.name, version);
    for (int n : {256, 1024, 2048, 4096, 16384, 65536}) line<float>(n, 1, n <= 16384);
    for (int n : {2048, 65536}) line<double>(n, 1, n <= 2048);
    line<float>(256, 4096, false);
    return 0;
}
