// CUB radix sorts of 2^28 u32 keys by bits [lo, 32): cub_one lo pairs(0|1) dist(0 uniform|1 i*2654435761%100 as lib_anchors)
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  int lo = argc > 1 ? atoi(argv[1]) : 24;
  bool pairs = argc > 2 && atoi(argv[2]);
  int dist = argc > 3 ? atoi(argv[3]) : 0;
  size_t n = 1u << 28;
  unsigned *k, *k2, *v, *v2; void* tmp = nullptr; size_t tb = 0;
  cudaMalloc(&k, n * 4); cudaMalloc(&k2, n * 4); cudaMalloc(&v, n * 4); cudaMalloc(&v2, n * 4);
  unsigned* h = (unsigned*)malloc(n * 4); unsigned s = 12345;
  for (size_t i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; h[i] = dist ? (unsigned)(i * 2654435761u) % 100 : s ^ (s >> 13) * 2654435761u; }
  cudaMemcpy(k, h, n * 4, cudaMemcpyHostToDevice);
  if (pairs) cub::DeviceRadixSort::SortPairs(tmp, tb, k, k2, v, v2, n, lo, 32);
  else cub::DeviceRadixSort::SortKeys(tmp, tb, k, k2, n, lo, 32);
  cudaMalloc(&tmp, tb);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int r = 0; r < 3; r++) {
    cudaEventRecord(a);
    if (pairs) cub::DeviceRadixSort::SortPairs(tmp, tb, k, k2, v, v2, n, lo, 32);
    else cub::DeviceRadixSort::SortKeys(tmp, tb, k, k2, n, lo, 32);
    cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    printf("cub sort dist %d bits [%d,32) %s: %.1f us = %.1f G/s (temp %zu B)\n", dist, lo, pairs ? "pairs" : "keys", ms * 1e3, n / (ms * 1e-3) / 1e9, tb);
  }
  return 0;
}
