# Honest control, ModelNew format (problem softmax_small): row softmax with
# max subtraction, one block per row, on PyTorch's current stream. Must pass.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__device__ float block_reduce(float v, bool is_max) {
    __shared__ float partial[32];
    for (int o = 16; o > 0; o /= 2) {
        float other = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads();
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < blockDim.x / 32 ? partial[lane] : (is_max ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o /= 2) {
        float other = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    return v;
}

__global__ void softmax_rows(const float* x, float* y, int cols) {
    const float* row = x + (long long)blockIdx.x * cols;
    float* out = y + (long long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    m = block_reduce(m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
    s = block_reduce(s, false);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    softmax_rows<<<x.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

softmax = load_inline(name="honest_softmax", cpp_sources="torch::Tensor softmax_cuda(torch::Tensor x);",
                      cuda_sources=source, functions=["softmax_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = softmax

    def forward(self, x):
        return self.softmax.softmax_cuda(x)
