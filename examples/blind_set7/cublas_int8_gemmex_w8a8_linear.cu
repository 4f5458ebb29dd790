// cublas_int8_gemmex_w8a8_linear: blind set 7, kind 3 (a vendor-tuned library kernel near its ceiling:
// healthy). W8A8 quantized inference: an 8,192 x 8,192 linear layer applied to 8,192 tokens with int8
// activations and weights and int32 accumulation, one cublasGemmEx call (CUDA_R_8I operands, CUDA_R_32I
// output, CUBLAS_COMPUTE_32I, the "TN" layout int8 requires): 1.1 TOP on the int8 tensor cores (IMMA/wgmma),
// a vendor kernel near its ceiling, well under a millisecond. Nothing to fix; the inputs come from the host
// (cudaMemcpy), so the GEMM is the first kernel launch.
// Usage: ./cublas_int8_gemmex_w8a8_linear [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cstdint>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 8192, in = 8192, out = 8192;
  std::vector<int8_t> hx(size_t(tokens) * in), hw(size_t(out) * in);  // row-major [tokens][in], [out][in]
  unsigned s = 9001u;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return int8_t(int(s >> 24) - 128);
  };
  for (auto& v : hx) v = next();
  for (auto& v : hw) v = next();
  int8_t* x = device_alloc<int8_t>(hx.size());
  int8_t* w = device_alloc<int8_t>(hw.size());
  int32_t* y = device_alloc<int32_t>(size_t(tokens) * out);
  CK(cudaMemcpy(x, hx.data(), hx.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), hw.size(), cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const int32_t alpha = 1, beta = 0;
  // column-major view: Y^T (out x tokens) = W (in x out, transposed) * X^T (in x tokens)
  auto launch = [&] {
    CKB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, out, tokens, in, &alpha, w, CUDA_R_8I, in, x, CUDA_R_8I, in,
                     &beta, y, CUDA_R_32I, out, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (auto [t, o] : {std::pair{0, 0}, {4095, 8191}, {8191, 1234}}) {
    int64_t want = 0;
    for (int k = 0; k < in; ++k) want += int64_t(hx[size_t(t) * in + k]) * hw[size_t(o) * in + k];
    int32_t got = read_back(y + size_t(t) * out + o);
    if (got != want) fail("wrong output (%d,%d): %d vs %lld\n", t, o, got, (long long)want);
  }
  time_kernel("cublas_int8_gemmex_w8a8_linear", reps, launch);
  CKB(cublasDestroy(h));
  free_device({x, w, y});
  printf("ok\n");
  return 0;
}
