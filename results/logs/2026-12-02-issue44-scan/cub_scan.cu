// CUB DeviceScan::ExclusiveSum of 2^log_n u32 (uniform random words) and a device copy of the same
// bytes, CUDA events, median of 20 after 3 warm-ups: cub_scan [log_n] [f64]: with f64, the same
// for doubles (16 bytes an element moved).
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
template <class F> float bench(F f, int reps = 20) {
  for (int i = 0; i < 3; i++) f();
  cudaDeviceSynchronize();
  std::vector<float> t;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < reps; i++) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
__global__ void fill(unsigned* x, size_t n) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) { unsigned s = (unsigned)i * 2654435761u; x[i] = s ^ (s >> 15) * 2246822519u; } }
int main(int argc, char** argv) {
  int log_n = argc > 1 ? atoi(argv[1]) : 28;
  size_t n = 1ull << log_n;
  unsigned *x, *y; cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  fill<<<(n + 255) / 256, 256>>>(x, n);
  void* tmp = nullptr; size_t tb = 0;
  cub::DeviceScan::ExclusiveSum(tmp, tb, x, y, (int)n); cudaMalloc(&tmp, tb);
  if (argc > 2) {
    double *a, *b; cudaMalloc(&a, n * 8); cudaMalloc(&b, n * 8); cudaMemset(a, 0, n * 8);
    void* t2 = nullptr; size_t b2 = 0;
    cub::DeviceScan::ExclusiveSum(t2, b2, a, b, (int)n); cudaMalloc(&t2, b2);
    for (int r = 0; r < 2; r++) {
      float ms = bench([&] { cub::DeviceScan::ExclusiveSum(t2, b2, a, b, (int)n); });
      printf("CUB ExclusiveSum f64 2^%d: %.1f us = %.3f TB/s\n", log_n, ms * 1e3, 16.0 * n / (ms * 1e-3) / 1e12);
      ms = bench([&] { cub::DeviceScan::InclusiveSum(t2, b2, a, b, (int)n); });
      printf("CUB InclusiveSum f64 2^%d: %.1f us = %.3f TB/s\n", log_n, ms * 1e3, 16.0 * n / (ms * 1e-3) / 1e12);
    }
  }
  for (int r = 0; r < 2; r++) {
    float ms = bench([&] { cub::DeviceScan::ExclusiveSum(tmp, tb, x, y, (int)n); });
    printf("CUB ExclusiveSum u32 2^%d: %.1f us = %.3f TB/s\n", log_n, ms * 1e3, 8.0 * n / (ms * 1e-3) / 1e12);
    ms = bench([&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); });
    printf("cudaMemcpy D2D u32 2^%d: %.1f us = %.3f TB/s\n", log_n, ms * 1e3, 8.0 * n / (ms * 1e-3) / 1e12);
  }
  return cudaGetLastError() != cudaSuccess;
}
