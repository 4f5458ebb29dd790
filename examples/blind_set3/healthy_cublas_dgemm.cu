// healthy_cublas_dgemm: blind set 3, HEALTHY control (a cuBLAS call whose FP64 work is the real work).
// A double-precision solve step needs C = A B in double: cublasDgemm at 6144^3 on double data (464 GFLOP).
// cuBLAS runs a Hopper FP64 tensor-core (DMMA) kernel near the FP64 ceiling. The data are double and the
// result is needed in double, so the FP64 pipe is the right unit here: nothing above minor is right.
// Usage: ./healthy_cublas_dgemm [reps]   (build: nvcc ... -lcublas)
#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

__global__ void fill_random_double(double* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long h = (i + 1) * 0x9e3779b97f4a7c15ull ^ (unsigned long long)seed * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    p[i] = 0.5 + double(h >> 11) * (1.0 / 9007199254740992.0);  // [0.5, 1.5)
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 6144;
  const size_t nn = size_t(n) * n;
  double* A = device_alloc<double>(nn);
  double* B = device_alloc<double>(nn);
  double* C = device_alloc<double>(nn);
  fill_random_double<<<2048, 256>>>(A, nn, 311);
  fill_random_double<<<2048, 256>>>(B, nn, 312);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const double alpha = 1.0, beta = 0.0;
  auto launch = [&] {
    CKB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, n, B, n, &beta, C, n));
  };
  launch();
  CK(cudaDeviceSynchronize());
  // column-major: C(i, j) = sum_k A(i, k) B(k, j); A(i, k) at i + k n, B(k, j) at k + j n
  std::vector<double> hcol(n), hrow(n);
  for (int j : {0, 3001, n - 1}) {
    CK(cudaMemcpy(hcol.data(), B + size_t(j) * n, n * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i : {0, 4095, n - 1}) {
      CK(cudaMemcpy2D(hrow.data(), sizeof(double), A + i, n * sizeof(double), sizeof(double), n,
                      cudaMemcpyDeviceToHost));
      double want = 0;
      for (int k = 0; k < n; ++k) want += hrow[k] * hcol[k];
      double got = read_back(C + i + size_t(j) * n);
      if (!(fabs(got - want) <= 1e-10 * want)) fail("wrong result (%d, %d): %f vs %f\n", i, j, got, want);
    }
  }
  time_kernel("healthy_cublas_dgemm", reps, launch);
  CKB(cublasDestroy(h));
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
