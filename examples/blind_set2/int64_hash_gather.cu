// int64_hash_gather: blind set 2, kind 1 (integer index arithmetic dominates).
// out[i] = table[h(i)] with h computed in 64-bit: (i * 2654435761 + salt) % table_size and a second
// % for a bucket offset, both run-time 64-bit modulo (a long software sequence per element). The gather
// itself is cheap by comparison (the table fits in L2); 32-bit indices and a power-of-two table (mask)
// or a precomputed magic-number division would remove most of the instructions.
// Usage: ./int64_hash_gather [reps]
#include "../kernels/example_common.cuh"

__global__ void int64_hash_gather(const float* __restrict__ table, float* __restrict__ out, long long n,
                                  long long table_size, long long buckets) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long h = (i * 2654435761LL + 12345) % table_size;
  long long bucket = (h / 7) % buckets;
  out[i] = table[(h + bucket) % table_size];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const long long n = 1 << 24, table_size = 1000003, buckets = 977;
  float* table = device_alloc<float>(table_size);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(table, table_size, 203, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int64_hash_gather<<<(unsigned)((n + 255) / 256), 256>>>(table, out, n, table_size, buckets);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h = read_back(out + 1234);
  if (!(h >= 0.5f && h < 1.5f)) fail("wrong result %f\n", h);
  time_kernel("int64_hash_gather", reps, launch);
  free_device({table, out});
  printf("ok\n");
  return 0;
}
