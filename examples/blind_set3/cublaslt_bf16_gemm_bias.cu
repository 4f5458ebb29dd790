// cublaslt_bf16_gemm_bias: blind set 3, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// A transformer MLP up-projection through cublasLt: y = x W^T + b with x [4096 tokens x 4096] and
// W [16384 x 4096] in bf16 (nn.Linear's row-major layout), fp32 accumulation, the bias added by the
// CUBLASLT_EPILOGUE_BIAS epilogue, bf16 output. cublasLt's heuristic picks a Hopper wgmma/TMA kernel
// that runs near the bf16 tensor ceiling (550 GFLOP per call). Nothing above minor is right; its
// ldmatrix/wgmma/TMA shared-memory wavefronts are not bank conflicts.
// Usage: ./cublaslt_bf16_gemm_bias [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cublasLt.h>
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

__global__ void to_bf16_scaled(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, size_t n,
                               float s) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i] * s);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 4096, in_features = 4096, out_features = 16384;
  float* staging = device_alloc<float>(size_t(out_features) * in_features);
  __nv_bfloat16* x = device_alloc<__nv_bfloat16>(size_t(tokens) * in_features);
  __nv_bfloat16* w = device_alloc<__nv_bfloat16>(size_t(out_features) * in_features);
  __nv_bfloat16* bias = device_alloc<__nv_bfloat16>(out_features);
  __nv_bfloat16* y = device_alloc<__nv_bfloat16>(size_t(tokens) * out_features);
  fill_random<<<2048, 256>>>(staging, size_t(tokens) * in_features, 306, -1.0f, 1.0f);
  to_bf16_scaled<<<2048, 256>>>(staging, x, size_t(tokens) * in_features, 1.0f);
  fill_random<<<2048, 256>>>(staging, size_t(out_features) * in_features, 307, -1.0f, 1.0f);
  to_bf16_scaled<<<2048, 256>>>(staging, w, size_t(out_features) * in_features, 1.0f / 64);
  fill_random<<<64, 256>>>(staging, out_features, 308, -1.0f, 1.0f);
  to_bf16_scaled<<<64, 256>>>(staging, bias, out_features, 1.0f);
  CK(cudaGetLastError());

  // Column-major view: D (out_features x tokens) = op(W) (out_features x K) * X (K x tokens) + bias (per
  // row).
  cublasLtHandle_t lt;
  CKB(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op;
  CKB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
  CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
  const void* bias_ptr = bias;
  CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof(bias_ptr)));
  cudaDataType_t bias_type = CUDA_R_16BF;
  CKB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
  cublasLtMatrixLayout_t la, lb, lc;
  CKB(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, in_features, out_features, in_features));
  CKB(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, in_features, tokens, in_features));
  CKB(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, out_features, tokens, out_features));
  size_t workspace_bytes = size_t(32) << 20;
  void* workspace = device_alloc<char>(workspace_bytes);
  cublasLtMatmulPreference_t pref;
  CKB(cublasLtMatmulPreferenceCreate(&pref));
  CKB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                           sizeof(workspace_bytes)));
  cublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  CKB(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heuristic, &found));
  if (found == 0) fail("no cublasLt algorithm\n");
  const float alpha = 1.0f, beta = 0.0f;
  auto launch = [&] {
    CKB(cublasLtMatmul(lt, op, &alpha, w, la, x, lb, &beta, y, lc, y, lc, &heuristic.algo, workspace,
                       workspace_bytes, 0));
  };
  launch();
  CK(cudaDeviceSynchronize());

  std::vector<__nv_bfloat16> hx(in_features), hw(in_features);
  for (int t : {0, 2049, tokens - 1}) {
    CK(cudaMemcpy(hx.data(), x + size_t(t) * in_features, in_features * 2, cudaMemcpyDeviceToHost));
    for (int f : {0, 7777, out_features - 1}) {
      CK(cudaMemcpy(hw.data(), w + size_t(f) * in_features, in_features * 2, cudaMemcpyDeviceToHost));
      double want = __bfloat162float(read_back(bias + f));
      for (int k = 0; k < in_features; ++k) want += double(__bfloat162float(hx[k])) * __bfloat162float(hw[k]);
      float got = __bfloat162float(read_back(y + size_t(t) * out_features + f));
      if (!(fabs(got - want) <= 0.02 * fabs(want) + 0.02))
        fail("wrong result (%d, %d): %f vs %f\n", t, f, got, want);
    }
  }
  time_kernel("cublaslt_bf16_gemm_bias", reps, launch);
  CKB(cublasLtMatmulPreferenceDestroy(pref));
  CKB(cublasLtMatrixLayoutDestroy(la));
  CKB(cublasLtMatrixLayoutDestroy(lb));
  CKB(cublasLtMatrixLayoutDestroy(lc));
  CKB(cublasLtMatmulDescDestroy(op));
  CKB(cublasLtDestroy(lt));
  free_device({staging, x, w, bias, y, workspace});
  printf("ok\n");
  return 0;
}
