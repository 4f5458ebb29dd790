// cublas_sgemm_covariance: blind set 5, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// The sample covariance of 4,096 asset return series over 4,096 days (risk model, finance), C = X X^T / (T-1)
// on centred returns, through plain cublasSgemm in FP32 (default math mode: no TF32, the risk desk wants
// full fp32), 137 GFLOP in one call. cuBLAS's SIMT SGEMM kernel runs near the FP32 FMA ceiling; nothing
// in the kernel is left to fix (TF32 would be a precision decision, not a code defect).
// Usage: ./cublas_sgemm_covariance [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int assets = 4096, days = 4096;
  float* x = device_alloc<float>(size_t(assets) * days);  // column-major assets x days
  float* c = device_alloc<float>(size_t(assets) * assets);
  fill_random<<<2048, 256>>>(x, size_t(assets) * days, 511, -0.02f + 1e-6f, 0.02f);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float alpha = 1.0f / (days - 1), beta = 0.0f;
  auto launch = [&] {
    CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, assets, assets, days, &alpha, x, assets, x, assets, &beta, c,
                    assets));
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(size_t(assets) * days);
  CK(cudaMemcpy(hx.data(), x, hx.size() * 4, cudaMemcpyDeviceToHost));
  for (auto [i, j] : {std::pair{0, 0}, {17, 4000}, {4095, 123}}) {
    double want = 0, mag = 0;
    for (int t = 0; t < days; ++t) {
      double p = double(hx[size_t(t) * assets + i]) * hx[size_t(t) * assets + j];
      want += p;
      mag += std::fabs(p);
    }
    want *= alpha;
    float got = read_back(c + size_t(j) * assets + i);
    if (!(std::fabs(got - want) <= 1e-4 * mag * alpha + 1e-9))
      fail("wrong covariance (%d,%d): %g vs %g\n", i, j, got, want);
  }
  time_kernel("cublas_sgemm_covariance", reps, launch);
  CKB(cublasDestroy(h));
  free_device({x, c});
  printf("ok\n");
  return 0;
}
