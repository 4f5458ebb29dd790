#!/usr/bin/env bash
# Captures the blind example set (examples/blind_set/, issue 18) and the calibration microbenchmarks
# (src/measure/calibrate_bench.cu) on a GPU machine; writes ONE file $OUT/h18.tar.gz.
#   OUT=/tmp/out scripts/capture_h200_blind.sh
#   OUT=/tmp/out SET=blind_set2 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 2;
#       writes $OUT/blind_set2.tar.gz)
#   OUT=/tmp/out SET=blind_set3 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 3, 23
#       programs, about 3 minutes; writes $OUT/blind_set3.tar.gz; scripts/blind_set3_after_capture.sh
#       turns it into tests/fixtures/h200_blind3/ and the accuracy table)
#   OUT=/tmp/out SET=blind_set3 ONLY="prog ..." TAR_NAME=blind_set3_rest CALIBRATE=0 TARGETED=0 \
#       scripts/capture_h200_blind.sh   (only the programs named: what a budget skipped)
#   OUT=/tmp/out SET=blind_set4 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 4, 27
#       programs, about 3.5 minutes (BUDGET_S=210 TIMING_BUDGET_S=235 to fit all of them; or ONLY=... for
#       the rest); writes $OUT/blind_set4.tar.gz; scripts/blind_set4_after_capture.sh turns it into
#       tests/fixtures/h200_blind4/ and the accuracy table)
#   OUT=/tmp/out SET=blind_set5 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 5, about
#       3.5 minutes (BUDGET_S=210 TIMING_BUDGET_S=235 to fit all of them; or ONLY=... for the rest); writes
#       $OUT/blind_set5.tar.gz; scripts/blind_set5_after_capture.sh turns it into tests/fixtures/h200_blind5/
#       and the accuracy table)
#   OUT=/tmp/out SET=blind_set6 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 6, 27
#       programs, about 3.5 minutes (BUDGET_S=210 TIMING_BUDGET_S=235 to fit all of them; or ONLY=... for
#       the rest); writes $OUT/blind_set6.tar.gz; scripts/blind_set6_after_capture.sh turns it into
#       tests/fixtures/h200_blind6/ and the accuracy table; its two cuBLAS programs fill their inputs from
#       the host, so `regex:.` with one launch profiles the library's first kernel, whatever its name)
#   OUT=/tmp/out SET=blind_set7 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 7, 27
#       programs, about 3.5 minutes (BUDGET_S=210 TIMING_BUDGET_S=235 to fit all of them; or ONLY=... for
#       the rest); writes $OUT/blind_set7.tar.gz; scripts/blind_set7_after_capture.sh turns it into
#       tests/fixtures/h200_blind7/ and the accuracy table; its two cuBLAS programs fill their inputs from
#       the host, so `regex:.` with one launch profiles the library's first kernel)
#   OUT=/tmp/out SET=blind_set8 CALIBRATE=0 TARGETED=0 scripts/capture_h200_blind.sh   (blind set 8, 26
#       programs, about 3.5 minutes (BUDGET_S=210 TIMING_BUDGET_S=235 to fit all of them; or ONLY=... for
#       the rest); writes $OUT/blind_set8.tar.gz; scripts/blind_set8_after_capture.sh turns it into
#       tests/fixtures/h200_blind8/ and the accuracy table; its two cuBLAS programs fill their inputs from
#       the host, so `regex:.` with one launch profiles the library's first kernel)
# It was run as .carry/capture/h18/run.sh (this script with the sources copied beside it) on
# 2026-12-01; turning the capture into tests/fixtures/h200_blind/:
#   scripts/capture_h200_fixtures.sh --trim CAPTURE/cap FIXTURES       (trimming, as for the first set)
#   scripts/blind_set_labels.py examples/blind_set/labels.toml FIXTURES   (expected.toml from the labels)
# Steps (each with a timeout; no ncu profile is started after BUDGET_S s, no timing run after
# TIMING_BUDGET_S s; the allowance is 240 s):
#   1. build the 21 blind programs and calibrate_bench (nvcc -O3 -lineinfo -gencode=arch=compute_90a,
#      code=sm_90a -Xptxas -v, ptxas.txt; cuobjdump -sass, sass.txt);
#   2. calibrate_bench (copy/read/fma/memcpy at sizes and occupancies) -> calibrate/bench.csv, and its
#      copy kernels once each under ncu (duration and DRAM bytes) -> calibrate/ncu_copy_raw.csv;
#   3. each labelled launch: LC_ALL=C ncu --set full --clock-control none, exported (in the background,
#      while the next one is profiled) as raw (--print-units base, and with --print-metric-instances
#      values), details (ncu's rules) and source (SASS) pages;
#   4. each program without ncu: ./prog 20 (timing.txt);
#   5. if time is left: two kernels with a targeted section list (wall time and raw page), for the
#      fast-collection comparison.
set -uo pipefail
H=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)  # the repository root
OUT=${OUT:?OUT must name an empty folder}
export LC_ALL=C
W=/tmp/h18_capture
BUDGET_S=${BUDGET_S:-180}          # no ncu profile is started after this
TIMING_BUDGET_S=${TIMING_BUDGET_S:-212}  # no timing run is started after this
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
rm -rf "$W"; mkdir -p "$W/bin" "$W/cap/calibrate" "$OUT"
export W H

SET=${SET:-blind_set}  # the folder under examples/ whose programs are captured
CALIBRATE=${CALIBRATE:-1}
TARGETED=${TARGETED:-1}
TAR_NAME=${TAR_NAME:-$([[ $SET == blind_set ]] && echo h18 || echo "$SET")}
export SET

# name|ncu kernel filter|launch count
KERNELS_BLIND_SET2=(
  "fp64_pow_rms|regex:^fp64_pow_rms\$|1"
  "mufu_logistic_loss|regex:^mufu_logistic_loss\$|1"
  "int64_hash_gather|regex:^int64_hash_gather\$|1"
  "hot_bin_histogram|regex:^hot_bin_histogram\$|1"
  "skewed_block_rows|regex:^skewed_block_rows\$|1"
  "smem_batched_sgemm|regex:^smem_batched_sgemm\$|1"
  "cublas_hgemm_fp16|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "short_relu_16mb|regex:^short_relu_16mb\$|1"
  "per_row_launches|regex:^row_scale\$|10"
  "fp16_cast_pass|regex:^(produce_activations_f32|cast_to_half_pass|consume_row_sums)\$|3"
  "column_sum_smem_conflicts|regex:^column_sum_smem_conflicts\$|1"
  "aos_particle_read|regex:^aos_particle_read\$|1"
  "dependent_chain_gather|regex:^dependent_chain_gather\$|1"
  "collatz_steps|regex:^collatz_steps\$|1"
  "healthy_bf16_axpy|regex:^healthy_bf16_axpy\$|1"
  "healthy_fma_horner|regex:^healthy_fma_horner\$|1"
  "partial_wave_blocks|regex:^partial_wave_blocks\$|1"
)
KERNELS_BLIND_SET3=(
  "fp64_haversine_pairs|regex:^fp64_haversine_pairs\$|1"
  "nbody_sqrt_div_forces|regex:^nbody_sqrt_div_forces\$|1"
  "gmm_loglik_div_exp|regex:^gmm_loglik_div_exp\$|1"
  "int64_generic_permute|regex:^int64_generic_permute\$|1"
  "int_circular_delay_taps|regex:^int_circular_delay_taps\$|1"
  "bitonic_sort_smem|regex:^bitonic_sort_smem\$|1"
  "cublaslt_bf16_gemm_bias|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "cublas_sgemv_decode|regex:gemv|gemm|nvjet|xmma|sm90_|1"
  "short_residual_scale_24mb|regex:^short_residual_scale_24mb\$|1"
  "short_embedding_gather_12mb|regex:^short_embedding_gather_12mb\$|1"
  "sgemm_textbook_tiled|regex:^sgemm_textbook_tiled\$|1"
  "hgemm_half2_simt|regex:^hgemm_half2_simt\$|1"
  "csr_spmv_hub_rows|regex:^csr_spmv_hub_rows\$|1"
  "kmeans_atomic_centroids|regex:^kmeans_atomic_centroids\$|1"
  "heat_step_launches|regex:^heat_step\$|10"
  "adam_per_tensor_launches|regex:^adam_step\$|10"
  "pad_copy_pass|regex:^(produce_feature_map|zero_pad_copy|depthwise_conv3x3)\$|3"
  "naive_transpose_store|regex:^naive_transpose_store\$|1"
  "knn_topk_local_array|regex:^knn_topk_local_array\$|1"
  "healthy_cublas_dgemm|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "tiny_class_weights|regex:^tiny_class_weights\$|1"
  "healthy_philox_uniform|regex:^healthy_philox_uniform\$|1"
  "healthy_row_sumsq|regex:^healthy_row_sumsq\$|1"
)
KERNELS_BLIND_SET4=(
  "fp64_kde_gaussian|regex:^fp64_kde_gaussian\$|1"
  "fp64_coulomb_constant_pairs|regex:^fp64_coulomb_constant_pairs\$|1"
  "mufu_rbf_gram_rowsum|regex:^mufu_rbf_gram_rowsum\$|1"
  "mufu_poisson_nll_templates|regex:^mufu_poisson_nll_templates\$|1"
  "int64_stft_frame_unfold|regex:^int64_stft_frame_unfold\$|1"
  "fft_radix2_filter_smem|regex:^fft_radix2_filter_smem\$|1"
  "cublas_tf32_qkv_projection|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "cublas_batched_hgemm_experts|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "short_bf16_silu_20mb|regex:^short_bf16_silu_20mb\$|1"
  "short_causal_mask_fill_27mb|regex:^short_causal_mask_fill_27mb\$|1"
  "sgemm_attention_scores_regtile|regex:^sgemm_attention_scores_regtile\$|1"
  "hgemm_naive_linear|regex:^hgemm_naive_linear\$|1"
  "kendall_rank_prefix|regex:^kendall_rank_prefix\$|1"
  "graph_indegree_hub_atomics|regex:^graph_indegree_hub_atomics\$|1"
  "rk4_oscillator_launches|regex:^rk4_stage\$|10"
  "particle_wall_push_launches|regex:^push_particles\$|10"
  "concat_features_pass|regex:^(embed_dense|context_features|concat_features_pass|project_rows)\$|4"
  "clone_hidden_pass|regex:^(attention_output|clone_hidden_pass|gated_residual_update)\$|3"
  "ell_spmv_rowmajor|regex:^ell_spmv_rowmajor\$|1"
  "smem_tile_transpose_nopad|regex:^smem_tile_transpose_nopad\$|1"
  "fir_window_spills|regex:^fir_window_spills\$|1"
  "pq_adc_scan_bigsmem|regex:^pq_adc_scan_bigsmem\$|1"
  "mc_option_blocks_tail|regex:^mc_option_blocks_tail\$|1"
  "tiny_rope_table_once|regex:^tiny_rope_table_once\$|1"
  "tiny_vocab_argmax_once|regex:^tiny_vocab_argmax_once\$|1"
  "healthy_int8_dequant_bf16|regex:^healthy_int8_dequant_bf16\$|1"
  "healthy_clenshaw_chebyshev|regex:^healthy_clenshaw_chebyshev\$|1"
)
KERNELS_BLIND_SET5=(
  "fp64_mie_potential_pairs|regex:^fp64_mie_potential_pairs\$|1"
  "fp64_gbm_paths_literal|regex:^fp64_gbm_paths_literal\$|1"
  "mufu_lorentz_spectrum|regex:^mufu_lorentz_spectrum\$|1"
  "int64_pixel_shuffle|regex:^int64_pixel_shuffle\$|1"
  "int64_kmer_minimizer_mod|regex:^int64_kmer_minimizer_mod\$|1"
  "barrier_odd_even_tile_sort|regex:^barrier_odd_even_tile_sort\$|1"
  "barrier_blelloch_scan_rows|regex:^barrier_blelloch_scan_rows\$|1"
  "cublas_sgemm_covariance|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "cublas_bf16_strided_batched_heads|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "short_fp16_residual_add_24mb|regex:^short_fp16_residual_add_24mb\$|1"
  "short_int8_quantize_15mb|regex:^short_int8_quantize_15mb\$|1"
  "sgemm_blocktile_1d_ffn|regex:^sgemm_blocktile_1d_ffn\$|1"
  "bf16_gemm_naive_lora|regex:^bf16_gemm_naive_lora\$|1"
  "imbalance_zipf_groupby|regex:^imbalance_zipf_groupby\$|1"
  "atomic_token_counts_hot|regex:^atomic_token_counts_hot\$|1"
  "life_step_launches|regex:^life_step\$|10"
  "jacobi_sweep_launches|regex:^jacobi_sweep\$|10"
  "contiguous_copy_pass|regex:^(conv_features|contiguous_copy_pass|pool_rows)\$|3"
  "bf16_cast_pass|regex:^(logits_f32|cast_bf16_pass|rowmax_bf16)\$|3"
  "uncoalesced_row_per_thread_dot|regex:^uncoalesced_row_per_thread_dot\$|1"
  "smem_aos_filter_state|regex:^smem_aos_filter_state\$|1"
  "tiny_lr_schedule_once|regex:^tiny_lr_schedule_once\$|1"
  "tiny_alibi_bias_once|regex:^tiny_alibi_bias_once\$|1"
  "mufu_studentt_mixture|regex:^mufu_studentt_mixture\$|1"
  "atomic_loss_scalar_sum|regex:^atomic_loss_scalar_sum\$|1"
  "tail_lorenz_ensemble|regex:^tail_lorenz_ensemble\$|1"
  "healthy_adamw_fused_update|regex:^healthy_adamw_fused_update\$|1"
)
KERNELS_BLIND_SET6=(
  "fp64_implied_vol_newton|regex:^fp64_implied_vol_newton\$|1"
  "fp64_srgb_to_lab_pow|regex:^fp64_srgb_to_lab_pow\$|1"
  "mufu_sinkhorn_kernel_rows|regex:^mufu_sinkhorn_kernel_rows\$|1"
  "mufu_planck_band_radiance|regex:^mufu_planck_band_radiance\$|1"
  "int64_reflect_pad_crop|regex:^int64_reflect_pad_crop\$|1"
  "int64_coo_unravel_index|regex:^int64_coo_unravel_index\$|1"
  "barrier_batched_lu_32x32|regex:^barrier_batched_lu_32x32\$|1"
  "barrier_smith_waterman_antidiag|regex:^barrier_smith_waterman_antidiag\$|1"
  "smem_tile_row_per_thread_blur|regex:^smem_tile_row_per_thread_blur\$|1"
  "cublas_tf32_gram_embeddings|regex:.|1"
  "cublas_fp16_gemmex_ffn_up|regex:.|1"
  "short_clip_grad_scale_20mb|regex:^short_clip_grad_scale_20mb\$|1"
  "short_u8_image_normalize_18mb|regex:^short_u8_image_normalize_18mb\$|1"
  "sgemm_conv1x1_regtile|regex:^sgemm_conv1x1_regtile\$|1"
  "bf16_gemm_smem_tiled_moe_expert|regex:^bf16_gemm_smem_tiled_moe_expert\$|1"
  "imbalance_cluster_core_cells|regex:^imbalance_cluster_core_cells\$|1"
  "atomic_embedding_grad_padding|regex:^atomic_embedding_grad_padding\$|1"
  "atomic_grad_norm_per_layer|regex:^atomic_grad_norm_per_layer\$|1"
  "bellman_ford_launches|regex:^bf_relax\$|10"
  "kalman_track_launches|regex:^kalman_step\$|10"
  "nchw_to_nhwc_permute_pass|regex:^(bn_relu_nchw|nchw_to_nhwc_pass|pixel_channel_mean_nhwc)\$|3"
  "repeat_kv_expand_pass|regex:^(rope_keys|repeat_kv_pass|decode_scores)\$|3"
  "uncoalesced_bitrev_permute_fft|regex:^uncoalesced_bitrev_permute_fft\$|1"
  "tail_photon_walk_waves|regex:^tail_photon_walk_waves\$|1"
  "tiny_t5_bucket_table_once|regex:^tiny_t5_bucket_table_once\$|1"
  "tiny_label_smoothing_targets_once|regex:^tiny_label_smoothing_targets_once\$|1"
  "healthy_ema_weights_update|regex:^healthy_ema_weights_update\$|1"
)
KERNELS_BLIND_SET7=(
  "fp64_arrhenius_rates|regex:^fp64_arrhenius_rates\$|1"
  "fp64_vonmises_wind_loglik|regex:^fp64_vonmises_wind_loglik\$|1"
  "mufu_focal_loss_logits|regex:^mufu_focal_loss_logits\$|1"
  "mufu_cauchy_kde_pairs|regex:^mufu_cauchy_kde_pairs\$|1"
  "int64_video_tubelet_patchify|regex:^int64_video_tubelet_patchify\$|1"
  "int64_torch_roll_2d|regex:^int64_torch_roll_2d\$|1"
  "barrier_pcr_tridiagonal_batch|regex:^barrier_pcr_tridiagonal_batch\$|1"
  "barrier_split_radix_sort_tiles|regex:^barrier_split_radix_sort_tiles\$|1"
  "smem_biquad_cascade_state|regex:^smem_biquad_cascade_state\$|1"
  "cublas_bf16_gemmex_lm_head|regex:.|1"
  "cublas_int8_gemmex_w8a8_linear|regex:.|1"
  "short_bias_add_rows_22mb|regex:^short_bias_add_rows_22mb\$|1"
  "short_half_dropout_apply_18mb|regex:^short_half_dropout_apply_18mb\$|1"
  "sgemm_smem_tiled_gcn_transform|regex:^sgemm_smem_tiled_gcn_transform\$|1"
  "hgemm_regtile_vit_patch_embed|regex:^hgemm_regtile_vit_patch_embed\$|1"
  "imbalance_ragged_doc_mean_pool|regex:^imbalance_ragged_doc_mean_pool\$|1"
  "atomic_confusion_matrix_counts|regex:^atomic_confusion_matrix_counts\$|1"
  "atomic_voxel_point_scatter|regex:^atomic_voxel_point_scatter\$|1"
  "pagerank_small_graph_launches|regex:^pagerank_pull\$|10"
  "sgd_logreg_minibatch_launches|regex:^sgd_step\$|10"
  "split_heads_transpose_pass|regex:^(qkv_bias|split_heads_pass|head_query_norms)\$|3"
  "channel_shuffle_pass|regex:^(grouped_pointwise|channel_shuffle_pass|depthwise_relu)\$|3"
  "uncoalesced_yolo_objectness_filter|regex:^uncoalesced_yolo_objectness_filter\$|1"
  "tail_mcmc_tempered_replicas|regex:^tail_mcmc_tempered_replicas\$|1"
  "tiny_timestep_embedding_once|regex:^tiny_timestep_embedding_once\$|1"
  "tiny_ssd_anchor_boxes_once|regex:^tiny_ssd_anchor_boxes_once\$|1"
  "healthy_sgd_nesterov_stream|regex:^healthy_sgd_nesterov_stream\$|1"
)
KERNELS_BLIND_SET8=(
  "fp64_weibull_survival|regex:^fp64_weibull_survival\$|1"
  "fp64_sinc_resample_taps|regex:^fp64_sinc_resample_taps\$|1"
  "mufu_gaussian_splat_weights|regex:^mufu_gaussian_splat_weights\$|1"
  "mufu_lognormal_mixture_density|regex:^mufu_lognormal_mixture_density\$|1"
  "int64_diag_embed_batched|regex:^int64_diag_embed_batched\$|1"
  "int64_upsample_nearest3d|regex:^int64_upsample_nearest3d\$|1"
  "barrier_argmax_tree_rows|regex:^barrier_argmax_tree_rows\$|1"
  "barrier_haar_wavelet_levels|regex:^barrier_haar_wavelet_levels\$|1"
  "smem_thread_private_histogram|regex:^smem_thread_private_histogram\$|1"
  "cublas_fp16_gemmex_attn_out_proj|regex:.|1"
  "cublas_bf16_gemmex_mlp_down_proj|regex:.|1"
  "short_relu_backward_mask_21mb|regex:^short_relu_backward_mask_21mb\$|1"
  "short_layerscale_channels_16mb|regex:^short_layerscale_channels_16mb\$|1"
  "sgemm_regtile_pointnet_mlp|regex:^sgemm_regtile_pointnet_mlp\$|1"
  "bf16_gemm_smem_tiled_cross_attn_kv|regex:^bf16_gemm_smem_tiled_cross_attn_kv\$|1"
  "imbalance_amr_refined_cells|regex:^imbalance_amr_refined_cells\$|1"
  "atomic_iou_best_gt_match|regex:^atomic_iou_best_gt_match\$|1"
  "atomic_moe_router_expert_load|regex:^atomic_moe_router_expert_load\$|1"
  "wave_string_step_launches|regex:^wave_step\$|10"
  "sandpile_topple_launches|regex:^sandpile_topple\$|10"
  "flip_augment_copy_pass|regex:^(normalize_pixels|flip_rows_pass|row_energy)\$|3"
  "interleave_complex_pass|regex:^(mix_down|interleave_complex_pass|iq_power)\$|3"
  "uncoalesced_nhwc_depth_channel_read|regex:^uncoalesced_nhwc_depth_channel_read\$|1"
  "tail_bootstrap_ci_blocks|regex:^tail_bootstrap_ci_blocks\$|1"
  "tiny_mel_filterbank_once|regex:^tiny_mel_filterbank_once\$|1"
  "healthy_lion_optimizer_update|regex:^healthy_lion_optimizer_update\$|1"
)
KERNELS=(
  "fp64_gelu_literals|regex:^fp64_gelu_literals\$|1"
  "fp64_exp_decay|regex:^fp64_exp_decay\$|1"
  "mufu_softplus_sigmoid|regex:^mufu_softplus_sigmoid\$|1"
  "int_im2col_divmod|regex:^int_im2col_divmod\$|1"
  "int_strided_broadcast_add|regex:^int_strided_broadcast_add\$|1"
  "scan_hillis_steele|regex:^scan_hillis_steele\$|1"
  "reduce_sync_every_level|regex:^reduce_sync_every_level\$|1"
  "cublas_tf32_gemm|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "cublas_bf16_gemm|regex:gemm|nvjet|xmma|cutlass|sm90_|1"
  "short_add_12mb|regex:^short_add_12mb\$|1"
  "short_axpy_24mb|regex:^short_axpy_24mb\$|1"
  "sgemm_naive|regex:^sgemm_naive\$|1"
  "sgemm_register_tiled|regex:^sgemm_register_tiled\$|1"
  "triangular_rows|regex:^triangular_rows\$|1"
  "row_atomic_scatter|regex:^row_atomic_scatter\$|1"
  "pipeline_scale_bias|regex:^(produce_activations|scale_bias_pass|consume_rowsum)\$|3"
  "many_tiny_launches|regex:^tiny_step\$|10"
  "tiny_once_normalize|regex:^tiny_once_normalize\$|1"
  "healthy_saxpy_1gb|regex:^healthy_saxpy_1gb\$|1"
  "healthy_fast_sigmoid|regex:^healthy_fast_sigmoid\$|1"
  "healthy_tiled_transpose|regex:^healthy_tiled_transpose\$|1"
)

[[ $SET == blind_set2 ]] && KERNELS=("${KERNELS_BLIND_SET2[@]}")
[[ $SET == blind_set3 ]] && KERNELS=("${KERNELS_BLIND_SET3[@]}")
[[ $SET == blind_set4 ]] && KERNELS=("${KERNELS_BLIND_SET4[@]}")
[[ $SET == blind_set5 ]] && KERNELS=("${KERNELS_BLIND_SET5[@]}")
[[ $SET == blind_set6 ]] && KERNELS=("${KERNELS_BLIND_SET6[@]}")
[[ $SET == blind_set7 ]] && KERNELS=("${KERNELS_BLIND_SET7[@]}")
[[ $SET == blind_set8 ]] && KERNELS=("${KERNELS_BLIND_SET8[@]}")
# ONLY="prog1 prog2 ...": capture just these programs of the set (a second call for what a budget skipped)
if [[ -n ${ONLY:-} ]]; then
  selected=()
  for k in "${KERNELS[@]}"; do [[ " $ONLY " == *" ${k%%|*} "* ]] && selected+=("$k"); done
  KERNELS=("${selected[@]}")
fi

{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  ncu --version | tail -1
  nvcc --version | tail -2
  uname -r
} > "$W/cap/env.txt" 2>&1
cat "$W/cap/env.txt"

echo "== build ($(elapsed) s)"
build_one() {
  local n=$1 d="$W/cap/$1" lib=""
  mkdir -p "$d"
  # the programs that call cuBLAS or cublasLt (not all of them are named cublas_*)
  grep -qE 'cublas(_v2|Lt)\.h|blind_common\.cuh' "$H/examples/$SET/$n.cu" && lib="-lcublas -lcublasLt"
  if timeout 120 nvcc -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas -v "$H/examples/$SET/$n.cu" \
      -o "$W/bin/$n" $lib > "$d/ptxas.txt" 2>&1; then
    cuobjdump -sass "$W/bin/$n" > "$d/sass.txt" 2>&1
  else
    echo "BUILD FAILED: $n"; tail -5 "$d/ptxas.txt"
  fi
}
export -f build_one
(( CALIBRATE )) && ( timeout 120 nvcc -O3 -gencode=arch=compute_90a,code=sm_90a "$H/src/measure/calibrate_bench.cu" -o "$W/bin/calibrate_bench" \
    > "$W/cap/calibrate/build.txt" 2>&1 || echo "BUILD FAILED: calibrate_bench" ) &
for k in "${KERNELS[@]}"; do echo "${k%%|*}"; done | xargs -P "$(nproc)" -I{} bash -c 'build_one {}'
wait

echo "== calibrate ($(elapsed) s)"
if [[ -x $W/bin/calibrate_bench ]]; then
  t1=$(date +%s%N)
  timeout 90 "$W/bin/calibrate_bench" > "$W/cap/calibrate/bench.csv" 2> "$W/cap/calibrate/bench_err.txt"
  echo "calibrate_bench exit=$? $((($(date +%s%N) - t1) / 1000000)) ms" | tee "$W/cap/calibrate/bench_time.txt"
  timeout 60 ncu --clock-control none -k regex:^calibrate_copy\$ \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size \
    --csv --print-units base "$W/bin/calibrate_bench" --ncu > "$W/cap/calibrate/ncu_copy_raw.csv" \
    2> "$W/cap/calibrate/ncu_copy_err.txt"
  echo "ncu copy exit=$?"
fi

echo "== ncu --set full ($(elapsed) s)"
export_one() {
  local d=$1 n; n=$(basename "$1"); local r="$d/$n.ncu-rep"
  [[ -f $r ]] || return 0
  ncu -i "$r" --csv --page raw --print-units base > "$d/raw_full.csv" 2> "$d/export_err.txt"
  ncu -i "$r" --csv --page details --print-units base > "$d/details_full.csv" 2>> "$d/export_err.txt"
  ncu -i "$r" --csv --page source --print-source sass > "$d/source_full.csv" 2>> "$d/export_err.txt"
  # instanced metrics (per-opcode instruction counts) for the CSV-only analysis
  ncu -i "$r" --csv --page raw --print-units base --print-metric-instances values > "$d/raw_instances.csv" \
    2>> "$d/export_err.txt"
}
for k in "${KERNELS[@]}"; do
  # the filter may itself hold '|': everything between the first and the last field
  n=${k%%|*}; count=${k##*|}; filter=${k#*|}; filter=${filter%|*}
  [[ -x "$W/bin/$n" ]] || continue
  if (($(elapsed) > BUDGET_S)); then echo "SKIPPED (budget): $n"; continue; fi
  t1=$(date +%s%N)
  timeout 45 ncu --set full --clock-control none -k "$filter" -c "$count" -f -o "$W/cap/$n/$n" "$W/bin/$n" \
    > "$W/cap/$n/ncu_log.txt" 2>&1
  echo "$n: ncu exit=$? $((($(date +%s%N) - t1) / 1000000)) ms" | tee "$W/cap/$n/ncu_time.txt"
  export_one "$W/cap/$n" &  # CPU only: the export overlaps the next profile
done

echo "== timing without ncu ($(elapsed) s)"
for k in "${KERNELS[@]}"; do
  n=${k%%|*}
  [[ -x "$W/bin/$n" ]] || continue
  if (($(elapsed) > TIMING_BUDGET_S)); then echo "SKIPPED (budget): timing $n"; continue; fi
  timeout 20 "$W/bin/$n" 20 > "$W/cap/$n/timing.txt" 2>&1
  echo "exit=$?" >> "$W/cap/$n/timing.txt"
  echo "$n: $(grep -E '^TIME|exit=|wrong' "$W/cap/$n/timing.txt" | tr '\n' ' ')"
done

echo "== targeted sections ($(elapsed) s)"
SECTIONS=(--section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis
  --section InstructionStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis)
targeted_kernels=(mufu_softplus_sigmoid triangular_rows)
(( TARGETED )) || targeted_kernels=()
for n in "${targeted_kernels[@]}"; do
  (($(elapsed) > TIMING_BUDGET_S)) && { echo "SKIPPED (budget): targeted $n"; continue; }
  d="$W/cap/targeted_$n"; mkdir -p "$d"
  t1=$(date +%s%N)
  timeout 30 ncu "${SECTIONS[@]}" --clock-control none -k "regex:^$n\$" -c 1 -f -o "$d/r" "$W/bin/$n" > "$d/ncu_log.txt" 2>&1
  echo "targeted $n: exit=$? $((($(date +%s%N) - t1) / 1000000)) ms" | tee "$d/ncu_time.txt"
  ncu -i "$d/r.ncu-rep" --csv --page raw --print-units base > "$d/raw_full.csv" 2>/dev/null
  rm -f "$d/r.ncu-rep"
done

echo "== wait for the exports ($(elapsed) s)"
wait
echo "== pack ($(elapsed) s)"
find "$W/cap" -name '*.ncu-rep' -delete
(cd "$W" && tar czf "$OUT/$TAR_NAME.tar.gz" cap)
ls -la "$OUT"
echo "done in $(elapsed) s"
