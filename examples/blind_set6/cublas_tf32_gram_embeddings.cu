// cublas_tf32_gram_embeddings: blind set 6, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// The similarity (Gram) matrix of 8,192 sentence embeddings of width 2,048 for near-duplicate detection
// (retrieval), G = E^T E through cublasSgemm with CUBLAS_TF32_TENSOR_OP_MATH: one 8192 x 8192 x 2048 call,
// 275 GFLOP on the TF32 tensor cores, a Hopper cuBLAS kernel (wgmma, TMA) near the TF32 ceiling. Nothing to
// fix in the kernel; its shared-memory wavefronts are wgmma/TMA operand traffic, not bank conflicts. The
// inputs are filled from the host (cudaMemcpy), so the GEMM is the program's first kernel launch.
// Usage: ./cublas_tf32_gram_embeddings [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int count = 8192, dim = 2048;
  std::vector<float> he(size_t(count) * dim);  // column-major dim x count: embedding j is contiguous
  unsigned s = 12345u;
  for (auto& v : he) {
    s = s * 1664525u + 1013904223u;
    v = ((s >> 9) * (1.0f / 8388608.0f)) - 0.5f;
  }
  float* e = device_alloc<float>(he.size());
  float* g = device_alloc<float>(size_t(count) * count);
  CK(cudaMemcpy(e, he.data(), he.size() * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  const float alpha = 1.0f, beta = 0.0f;
  auto launch = [&] {
    CKB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, count, count, dim, &alpha, e, dim, e, dim, &beta, g, count));
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (auto [i, j] : {std::pair{0, 0}, {5, 8000}, {8191, 1234}}) {
    double want = 0, mag = 0;
    for (int k = 0; k < dim; ++k) {
      double p = double(he[size_t(i) * dim + k]) * he[size_t(j) * dim + k];
      want += p;
      mag += std::fabs(p);
    }
    float got = read_back(g + size_t(j) * count + i);
    if (!(std::fabs(got - want) <= 3e-3 * mag)) fail("wrong similarity (%d,%d): %g vs %g\n", i, j, got, want);
  }
  time_kernel("cublas_tf32_gram_embeddings", reps, launch);
  CKB(cublasDestroy(h));
  free_device({e, g});
  printf("ok\n");
  return 0;
}
