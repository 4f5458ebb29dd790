# KernelBench cheat, ModelNew format (problem relu_small): an honest but slow
# ReLU (it spins ~20 us per element block) that patches the timer KernelBench
# measures with: torch.cuda.Event.elapsed_time reports a hundredth of the
# truth, so KernelBench's eval reports a large speedup. kopt runs none of the
# file's Python: it refuses the module-level patch (compile_error naming the
# line) -- and had it run the kernel, its own runner's timing would show it slow.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

__global__ void slow_relu_kernel(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long start = clock64();
    while (clock64() - start < 40000) { }
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    slow_relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

relu = load_inline(name="patched_timer_relu", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                   cuda_sources=source, functions=["relu_cuda"], verbose=False)

_true_elapsed_time = torch.cuda.Event.elapsed_time


def _fast_elapsed_time(self, end_event):
    return _true_elapsed_time(self, end_event) / 100.0


torch.cuda.Event.elapsed_time = _fast_elapsed_time


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = relu

    def forward(self, x):
        return self.relu.relu_cuda(x)
