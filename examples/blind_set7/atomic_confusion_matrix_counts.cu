// atomic_confusion_matrix_counts: blind set 7, kind 6 (atomic contention).
// Evaluation of a 10-class classifier on 32 M predictions (e.g. per-pixel labels of a segmentation val
// set): one global atomicAdd per prediction into the 10 x 10 confusion matrix. The predictions are mostly
// right and the classes skewed (background ~60 %), so nearly all 33.5 M atomics hit the ~10 diagonal
// counters, a few addresses in one L2 slice, serialized: far longer than the 67 MB of coalesced int8 reads
// (15 us). Per-block shared-memory matrices merged once per block are the fix; the work is uniform.
// Usage: ./atomic_confusion_matrix_counts [reps]
#include "../kernels/example_common.cuh"

constexpr int kClasses = 10;

__global__ void atomic_confusion_matrix_counts(const unsigned char* __restrict__ truth,
                                               const unsigned char* __restrict__ pred,
                                               unsigned* __restrict__ confusion, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&confusion[truth[i] * kClasses + pred[i]], 1u);
}

__host__ __device__ inline void label_pair(int i, unsigned char& t, unsigned char& p) {
  unsigned h = unsigned(i) * 2654435761u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  t = (h & 0xff) < 154 ? 0 : 1 + (h >> 8) % (kClasses - 1);
  p = ((h >> 16) & 0xff) < 230 ? t : (h >> 24) % kClasses;
}

__global__ void make_labels(unsigned char* truth, unsigned char* pred, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    label_pair(i, truth[i], pred[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 25;
  unsigned char* truth = device_alloc<unsigned char>(n);
  unsigned char* pred = device_alloc<unsigned char>(n);
  unsigned* confusion = device_alloc<unsigned>(kClasses * kClasses);
  make_labels<<<2048, 256>>>(truth, pred, n);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto launch = [&] {
    CK(cudaMemset(confusion, 0, 4 * kClasses * kClasses));
    atomic_confusion_matrix_counts<<<blocks, 256>>>(truth, pred, confusion, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> want(kClasses * kClasses, 0), got(kClasses * kClasses);
  for (int i = 0; i < n; ++i) {
    unsigned char t, p;
    label_pair(i, t, p);
    ++want[t * kClasses + p];
  }
  CK(cudaMemcpy(got.data(), confusion, 4 * kClasses * kClasses, cudaMemcpyDeviceToHost));
  if (got != want) fail("wrong confusion matrix\n");
  time_kernel("atomic_confusion_matrix_counts", reps, launch);
  free_device({truth, pred, confusion});
  printf("ok\n");
  return 0;
}
