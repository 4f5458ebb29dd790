# A KernelBench-format candidate (ModelNew) for level1/12_Matmul_with_diagonal_matrices_:
# diag(A) @ B as a row scaling, float4 per thread, on PyTorch's current stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void diag_scale_kernel(const float* __restrict__ a, const float4* __restrict__ b,
                                  float4* __restrict__ out, long long rows, long long cols4) {
    long long total = rows * cols4;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        float s = a[i / cols4];
        float4 v = b[i];
        out[i] = make_float4(s * v.x, s * v.y, s * v.z, s * v.w);
    }
}

torch::Tensor diag_matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(B.size(1) % 4 == 0, "columns must be a multiple of 4");
    auto out = torch::empty_like(B);
    auto stream = at::cuda::getCurrentCUDAStream();
    diag_scale_kernel<<<2112, 256, 0, stream>>>(
        A.data_ptr<float>(), reinterpret_cast<const float4*>(B.data_ptr<float>()),
        reinterpret_cast<float4*>(out.data_ptr<float>()), B.size(0), B.size(1) / 4);
    return out;
}
"""

cpp_source = "torch::Tensor diag_matmul_cuda(torch::Tensor A, torch::Tensor B);"

diag_matmul = load_inline(
    name="diag_matmul",
    cpp_sources=cpp_source,
    cuda_sources=source,
    functions=["diag_matmul_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.diag_matmul = diag_matmul

    def forward(self, A, B):
        return self.diag_matmul.diag_matmul_cuda(A, B)
