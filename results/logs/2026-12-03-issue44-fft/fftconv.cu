// Prototype: FFT convolution variants on the lent GPU (issue 44), events and wall clock.
#include <cufft.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <chrono>
#include <cmath>
#define CK(x) do { auto e = (x); if (e != 0) { printf("error %d at %s:%d\n", (int)e, __FILE__, __LINE__); exit(1);} } while (0)

template <class T> struct C2 {};
template <> struct C2<float> { using t = cufftComplex; };
template <> struct C2<double> { using t = cufftDoubleComplex; };

template <class T> __global__ void pad2(const T *p, int m, const T *q, int n, T *w, int L) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < L; i += gridDim.x * blockDim.x) {
    w[i] = i < m ? p[i] : T(0);
    w[L + i] = i < n ? q[i] : T(0);
  }
}
template <class T, class C> __global__ void mulscale(C *a, const C *b, int n, T s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    C x = a[i], y = b[i];
    C z; z.x = (x.x * y.x - x.y * y.y) * s; z.y = (x.x * y.y + x.y * y.x) * s; a[i] = z;
  }
}
template <class T, class C> __global__ void mul(C *a, const C *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { C x = a[i], y = b[i]; C z; z.x = x.x*y.x - x.y*y.y; z.y = x.x*y.y + x.y*y.x; a[i] = z; }
}
template <class T> __global__ void fill(T *p, int m, unsigned s) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < m) { unsigned h = (i + s) * 2654435761u; p[i] = T(h >> 8) / T(1 << 24) / T(m); } }

template <class F> double events(F f, cudaStream_t st, int reps = 50) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; i++) f();
  std::vector<float> t;
  for (int r = 0; r < 15; r++) {
    cudaEventRecord(a, st); for (int i = 0; i < reps; i++) f(); cudaEventRecord(b, st); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1e3 / reps);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <class F> double submit(F f, cudaStream_t st) {
  for (int i = 0; i < 5; i++) f(); cudaStreamSynchronize(st);
  std::vector<double> t;
  for (int r = 0; r < 15; r++) {
    auto a = std::chrono::steady_clock::now(); for (int i = 0; i < 100; i++) f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count() / 100); cudaStreamSynchronize(st);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <class F> double wall(F f, cudaStream_t st) {
  for (int i = 0; i < 5; i++) { f(); cudaStreamSynchronize(st); }
  std::vector<double> t;
  for (int r = 0; r < 201; r++) {
    auto a = std::chrono::steady_clock::now(); f(); cudaStreamSynchronize(st);
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

int nice(int n) { for (int L = n;; L++) { int x = L; for (int f : {2, 3, 5, 7}) while (x % f == 0) x /= f; if (x == 1) return L; } }

template <class T> void run(int m, int n, const char *name) {
  using C = typename C2<T>::t; bool dbl = sizeof(T) == 8;
  cufftType r2c = dbl ? CUFFT_D2Z : CUFFT_R2C, c2r = dbl ? CUFFT_Z2D : CUFFT_C2R;
  cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  int out = m + n - 1;
  for (int L : {nice(out), 1 << (32 - __builtin_clz(out - 1))}) {
    int Cn = L / 2 + 1;
    T *p, *q, *r, *w; C *S; CK(cudaMalloc(&p, m * sizeof(T))); CK(cudaMalloc(&q, n * sizeof(T))); CK(cudaMalloc(&r, out * sizeof(T)));
    CK(cudaMalloc(&w, 2 * (size_t)L * sizeof(T))); CK(cudaMalloc(&S, 2 * (size_t)Cn * sizeof(C)));
    fill<<<(m + 255) / 256, 256, 0, st>>>(p, m, 1); fill<<<(n + 255) / 256, 256, 0, st>>>(q, n, 7);
    cufftHandle f1, fb, inv; CK(cufftPlan1d(&f1, L, r2c, 1)); CK(cufftPlan1d(&inv, L, c2r, 1));
    int nn[1] = {L}; CK(cufftPlanMany(&fb, 1, nn, nullptr, 1, L, nullptr, 1, Cn, r2c, 2));
    for (auto h : {f1, fb, inv}) CK(cufftSetStream(h, st));
    auto R2C = [&](cufftHandle h, T *x, C *y) { if (dbl) cufftExecD2Z(h, (cufftDoubleReal *)x, (cufftDoubleComplex *)y); else cufftExecR2C(h, (cufftReal *)x, (cufftComplex *)y); };
    auto C2R = [&](cufftHandle h, C *x, T *y) { if (dbl) cufftExecZ2D(h, (cufftDoubleComplex *)x, (cufftDoubleReal *)y); else cufftExecC2R(h, (cufftComplex *)x, (cufftReal *)y); };
    int grid = std::min((L + 255) / 256, 132 * 8);
    // anchor: pre-padded inputs, output of L
    auto anchor = [&] { R2C(f1, w, S); R2C(f1, w + L, S + Cn); mul<T, C><<<(Cn + 255) / 256, 256, 0, st>>>(S, S + Cn, Cn); C2R(inv, S, w); };
    auto full = [&] { pad2<<<grid, 256, 0, st>>>(p, m, q, n, w, L); R2C(fb, w, S); mulscale<T, C><<<std::min((Cn + 255) / 256, 132 * 8), 256, 0, st>>>(S, S + Cn, Cn, T(1) / T(L)); C2R(inv, S, w); cudaMemcpyAsync(r, w, out * sizeof(T), cudaMemcpyDeviceToDevice, st); };
    auto twoff = [&] { pad2<<<grid, 256, 0, st>>>(p, m, q, n, w, L); R2C(f1, w, S); R2C(f1, w + L, S + Cn); mulscale<T, C><<<std::min((Cn + 255) / 256, 132 * 8), 256, 0, st>>>(S, S + Cn, Cn, T(1) / T(L)); C2R(inv, S, w); cudaMemcpyAsync(r, w, out * sizeof(T), cudaMemcpyDeviceToDevice, st); };
    cudaGraph_t g; cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal)); full(); CK(cudaStreamEndCapture(st, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
    auto graph = [&] { cudaGraphLaunch(ge, st); };
    size_t nodes = 0; cudaGraphGetNodes(g, nullptr, &nodes);
    // accuracy: against a double CPU sum on the host
    full(); CK(cudaStreamSynchronize(st));
    std::vector<T> hp(m), hq(n), hr(out); cudaMemcpy(hp.data(), p, m * sizeof(T), cudaMemcpyDeviceToHost); cudaMemcpy(hq.data(), q, n * sizeof(T), cudaMemcpyDeviceToHost); cudaMemcpy(hr.data(), r, out * sizeof(T), cudaMemcpyDeviceToHost);
    double err = 0, mass = 0, sp = 0, sq = 0; for (auto x : hp) sp += x; for (auto x : hq) sq += x; mass = sp * sq;
    long step = std::max(1L, (long)((double)m * n / 2e8));
    for (int i = 0; i < out; i += step) { double s = 0; for (int j = std::max(0, i - m + 1); j <= std::min(i, n - 1); j++) s += (double)hp[i - j] * hq[j]; err = std::max(err, fabs(s - hr[i])); }
    auto r2conly = [&] { R2C(fb, w, S); };
    auto c2ronly = [&] { C2R(inv, S, w); };
    auto padonly = [&] { pad2<<<grid, 256, 0, st>>>(p, m, q, n, w, L); };
    printf("%s m=%d n=%d L=%d: anchor ev %.1f | full ev %.1f wall %.1f submit %.1f | two R2C ev %.1f | graph(%zu nodes) ev %.1f wall %.1f submit %.1f | R2C(2) ev %.1f submit %.1f | C2R ev %.1f submit %.1f | pad ev %.1f submit %.1f | err/mass %.2e = %.2f u\n",
           name, m, n, L, events(anchor, st), events(full, st), wall(full, st), submit(full, st), events(twoff, st), nodes, events(graph, st), wall(graph, st), submit(graph, st),
           events(r2conly, st), submit(r2conly, st), events(c2ronly, st), submit(c2ronly, st), events(padonly, st), submit(padonly, st), err / mass, err / mass / (dbl ? 1.11e-16 : 5.96e-8));
    cufftDestroy(f1); cufftDestroy(fb); cufftDestroy(inv); cudaFree(p); cudaFree(q); cudaFree(r); cudaFree(w); cudaFree(S); cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
  }
}
int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int v; cufftGetVersion(&v); printf("cufft version %d\n", v);
  for (int m : {2048, 16384, 65536, 1 << 20}) { run<float>(m, m, "f32"); run<double>(m, m, "f64"); }
  run<float>(65536, 1000, "f32"); run<float>(1 << 22, 1 << 22, "f32"); run<float>(3, 2, "f32"); run<float>(1, 1, "f32");
  return 0;
}
