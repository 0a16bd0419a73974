// Wall-clock floor of one launch and a synchronize on this machine: an empty kernel, and one
// taking 40 eight-byte parameters, on a non-blocking stream; median of 20000 calls.
#include <cstdio>
#include <chrono>
#include <vector>
#include <algorithm>
struct P40 { unsigned long long w[40]; };
__global__ void empty() {}
__global__ void forty(P40 p) { if (p.w[0] == 1234567) p.w[1] = 0; }
template <class F> double median_us(F f, int n) {
  std::vector<double> t(n);
  for (int i = 0; i < n; i++) {
    auto a = std::chrono::steady_clock::now(); f();
    t[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
  }
  std::sort(t.begin(), t.end()); return t[n / 2];
}
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  P40 p{}; 
  for (int i = 0; i < 1000; i++) { empty<<<1, 32, 0, s>>>(); forty<<<128, 512, 0, s>>>(p); }
  cudaStreamSynchronize(s);
  printf("empty launch+sync  %.2f us\n", median_us([&] { empty<<<1, 32, 0, s>>>(); cudaStreamSynchronize(s); }, 20000));
  printf("40-param 128x512 launch+sync  %.2f us\n", median_us([&] { forty<<<128, 512, 0, s>>>(p); cudaStreamSynchronize(s); }, 20000));
  printf("empty launch only (queued)  %.2f us\n", median_us([&] { empty<<<1, 32, 0, s>>>(); }, 2000));
  cudaStreamSynchronize(s);
  printf("40-param launch only (queued)  %.2f us\n", median_us([&] { forty<<<128, 512, 0, s>>>(p); }, 2000));
  cudaStreamSynchronize(s);
  return 0;
}
