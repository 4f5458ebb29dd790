// blind_common.cuh: host helpers for the blind example set (examples/blind_set/) beyond
// ../kernels/example_common.cuh: cuBLAS status checks and a spot check of a GEMM against a CPU dot
// product. Include after example_common.cuh.
#pragma once

#include <cublas_v2.h>

#include <cmath>

#define CKB(call)                                                                   \
  do {                                                                              \
    cublasStatus_t s_ = (call);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
      fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #call, (int)s_); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

// Checks C[i][j] (row-major M x N view of a column-major result, see the callers) against a double dot
// product of row i of A (M x K, row-major) and column j of B (K x N, row-major), within rel_tol.
inline void check_gemm_element(const float* hA_row, const float* hB_col, int K, float got, double rel_tol) {
  double want = 0;
  for (int k = 0; k < K; ++k) want += double(hA_row[k]) * hB_col[k];
  if (!(fabs(got - want) <= rel_tol * fabs(want))) fail("wrong result %f vs %f\n", got, want);
}
