# A KernelBench-format candidate (ModelNew) for level1/88_MinGPTNewGelu:
# the tanh-approximation GELU, one thread per element.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gelu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void new_gelu_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

torch::Tensor new_gelu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    const int block = 256;
    const long long grid = (n + block - 1) / block;
    new_gelu_kernel<<<grid, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

gelu_cpp_source = "torch::Tensor new_gelu_cuda(torch::Tensor x);"

new_gelu = load_inline(
    name="new_gelu",
    cpp_sources=gelu_cpp_source,
    cuda_sources=gelu_source,
    functions=["new_gelu_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.new_gelu = new_gelu

    def forward(self, x):
        return self.new_gelu.new_gelu_cuda(x)
