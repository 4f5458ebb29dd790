// cublas_sgemv_decode: blind set 3, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// The batch-1 decode step of an LLM MLP projection: y = W x with W [28,672 x 8,192] float (nn.Linear's
// row-major layout, 940 MB) through cublasSgemv (column-major view, CUBLAS_OP_T). Every weight is read
// once: the kernel is DRAM-bound and cuBLAS's gemv streams W near the bandwidth ceiling. Nothing above
// minor is right (the fix for the program — batching tokens or lower-precision weights — is not the
// kernel's).
// Usage: ./cublas_sgemv_decode [reps]   (build: nvcc ... -lcublas)
#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int in_features = 8192, out_features = 28672;
  float* w = device_alloc<float>(size_t(in_features) * out_features);
  float* x = device_alloc<float>(in_features);
  float* y = device_alloc<float>(out_features);
  fill_random<<<4096, 256>>>(w, size_t(in_features) * out_features, 309, -1.0f, 1.0f);
  fill_random<<<32, 256>>>(x, in_features, 310, -1.0f, 1.0f);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float alpha = 1.0f, beta = 0.0f;
  auto launch = [&] {
    CKB(cublasSgemv(h, CUBLAS_OP_T, in_features, out_features, &alpha, w, in_features, x, 1, &beta, y, 1));
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(in_features), hrow(in_features);
  CK(cudaMemcpy(hx.data(), x, in_features * sizeof(float), cudaMemcpyDeviceToHost));
  for (int f : {0, 12345, out_features - 1}) {
    CK(cudaMemcpy(hrow.data(), w + size_t(f) * in_features, in_features * sizeof(float),
                  cudaMemcpyDeviceToHost));
    double want = 0, scale = 0;
    for (int k = 0; k < in_features; ++k) {
      want += double(hrow[k]) * hx[k];
      scale += fabs(double(hrow[k]) * hx[k]);
    }
    float got = read_back(y + f);
    if (!(fabs(got - want) <= 1e-5 * scale)) fail("wrong result at %d: %f vs %f\n", f, got, want);
  }
  time_kernel("cublas_sgemv_decode", reps, launch);
  CKB(cublasDestroy(h));
  free_device({w, x, y});
  printf("ok\n");
  return 0;
}
