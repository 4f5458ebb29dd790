#!/usr/bin/env python3
"""Writes a raw-page CSV of many kernels with long real-world names and one kernel launched 1,000 times,
from the real H200 rows of tests/fixtures/exports/raw_44_launches_of_one_kernel.csv (issue 19's HTML check).

usage: make_many_kernels_csv.py FIXTURE.csv OUT.csv [STEPS]
  STEPS (default 1000): training steps; the add kernel runs once a step, the others in the first three.
  With 1, every kernel once (tests/golden/inputs/torch_names_12_kernels.csv).
"""
import csv
import sys

NAMES = [
    'void cutlass::Kernel2<cutlass_80_wmma_tensorop_s161616gemm_f16_32x32_128x1_tn_align8>('
    'cutlass_80_wmma_tensorop_s161616gemm_f16_32x32_128x1_tn_align8::Params)',
    'sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__'
    '5x_cublas',
    'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, '
    'at::detail::Array<char *, 3>>(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char *, 3>)',
    'void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, float, '
    'at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, 4>(float *, const float *, long)',
    'void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, const float *, '
    'const float *, const float *, float *, float *, float *)',
    'scale(float *, float, int)',
    'void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t, '
    'Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t>>, false, true, false, false, true, true, false, false>'
    '(Flash_fwd_params)',
    'void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, '
    'cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, '
    'cublasGemvTensorStridedBatched<float>, float>>(T13, T5, T5)',
    'reduce_sum(const float *, float *, int)',
    'void nvjet_tst_128x64_64x8_2x1_v_bz_TNN(int, int, const float *, const float *, float *)',
    'transpose_tiled(const float *, float *, int, int)',
    'gelu_forward(const __half *, __half *, int)',
]


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    steps = int(argv[3]) if len(argv) == 4 else 1000
    lines = [l for l in open(argv[1], encoding='utf-8').read().splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    header, units, data = rows[0], rows[1], rows[2:]
    name = header.index('Kernel Name')
    out = [header, units]
    launch = 0
    # The add kernel 1,000 times, the others a few times each, interleaved as a training step would.
    for step in range(steps):
        for k, kernel in enumerate(NAMES):
            if k != 2 and step >= 3:
                continue
            row = list(data[launch % len(data)])
            row[0] = str(launch)
            row[name] = kernel
            out.append(row)
            launch += 1
    with open(argv[2], 'w', newline='', encoding='utf-8') as f:
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator='\n').writerows(out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
