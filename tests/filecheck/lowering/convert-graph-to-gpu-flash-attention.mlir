// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s
// RUN: fxdsl-opt %s -p convert-graph-to-gpu -t cuda | filecheck %s --check-prefix=CUDA
// RUN: fxdsl-opt %s -p 'convert-graph-to-gpu{flash-pipeline=false}' -t cuda | filecheck %s --check-prefix=FIRST
// RUN: fxdsl-opt %s -p 'graph-wrap-kernels,graph-bufferize,convert-groups-to-gpu{flash-pipeline=false}' -t cuda | filecheck %s --check-prefix=FIRST
// RUN: not fxdsl-opt %s -p 'convert-graph-to-gpu{flash-pipeline=7}' 2>&1 | filecheck %s --check-prefix=BAD

// A bf16 (or f16) attention of head dim 64 or 128 is the tensor-core flash
// kernel: `<function>_<n>_flash_attention`, 4 warps (128 threads) per tile
// of 64 query rows (2 sequences x 1 tile here). The gpu.func keeps the
// scalar kernel's IR as its body (what the IR emulator runs) and carries
// `fxdsl.flash_attention` (scale, causal, which kernel argument is q, k,
// v, out; `pipelined`), which makes `-t cuda` print the mma.sync kernel
// instead: k and v tiles by cp.async, fragments by ldmatrix; with
// flash-pipeline=false the first version (plain loads). An f32 attention,
// or another head dim, keeps the scalar kernel.
// CHECK-LABEL: func.func @bf16
// CHECK:         %[[GRID:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[BLOCK:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    "gpu.launch_func"(%[[GRID]], %[[ONE]], %[[ONE]], %[[BLOCK]], %[[ONE]], %[[ONE]], %q, %k, %v, %{{.*}}) <{kernel = @kernels::@bf16_0_flash_attention
// CHECK-LABEL: func.func @f32
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@f32_0_attention
// CHECK-LABEL: func.func @d32
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@d32_0_attention
// CHECK:       }) {sym_name = "bf16_0_flash_attention", gpu.kernel, workgroup_attributions = 0 : i64, fxdsl.flash_attention = {scale = 1.250000e-01 : f64, roles = {q = 0 : i64, k = 1 : i64, v = 2 : i64, out = 3 : i64}, causal, pipelined}}
// CHECK:       }) {sym_name = "f32_0_attention", gpu.kernel, workgroup_attributions = 0 : i64}

// CUDA:      // ---- fxdsl tensor-core primitives
// CUDA:      // ---- cp.async
// CUDA:      // ---- flash attention
// CUDA:      extern "C" __global__ void __launch_bounds__(128) bf16_0_flash_attention(
// CUDA-NEXT:     const __nv_bfloat16* __restrict__ arg0,
// CUDA-NEXT:     const __nv_bfloat16* __restrict__ arg1,
// CUDA-NEXT:     const __nv_bfloat16* __restrict__ arg2,
// CUDA-NEXT:     __nv_bfloat16* __restrict__ arg3) {
// CUDA-NEXT:   const __nv_bfloat16* const q = arg0;
// CUDA-NEXT:   const __nv_bfloat16* const k = arg1;
// CUDA-NEXT:   const __nv_bfloat16* const v = arg2;
// CUDA-NEXT:   __nv_bfloat16* const out = arg3;
// CUDA:          __nv_bfloat16* const q_tile = v_tile;
// CUDA:            fx_cp_async16(k_tile
// CUDA:            fx_cp_async_commit();
// CUDA:            fx_ldsm_frag_a(qa[kk], q_tile
// CUDA:              fx_cp_async16(v_tile
// CUDA:              fx_ldsm_frag_b_nk_x2(b0, b1, k_tile
// CUDA:              fx_mma_m16n8k16_bf16(s[nt], qa[kk], b0, s[nt]);
// CUDA:            fx_cp_async_wait_all();
// CUDA-NEXT:       __syncthreads();  // v has landed; every warp has read the k tile
// CUDA:            fx_frag_a_from_c_bf16(pa, s[2 * kk], s[2 * kk + 1]);
// CUDA:              fx_ldsm_frag_b_kn_x2(b0, b1, v_tile
// CUDA:              fx_mma_m16n8k16_bf16(o[dt], pa, b0, o[dt]);
// CUDA:      extern "C" __global__ void f32_0_attention(
// CUDA:      extern "C" __global__ void d32_0_attention(

// FIRST-NOT: ---- cp.async
// FIRST:      extern "C" __global__ void __launch_bounds__(128) bf16_0_flash_attention(
// FIRST:          __nv_bfloat16* const q_tile = k_tile;
// FIRST:            fx_load_frag_a(qa[kk], q_tile
// FIRST:              fx_load_frag_b_nk(b, k_tile
// FIRST:            fx_frag_a_from_c_bf16(pa, s[2 * kk], s[2 * kk + 1]);
// FIRST:              fx_load_frag_b_kn(b, v_tile
// FIRST-NOT:  fx_cp_async
// FIRST:      extern "C" __global__ void f32_0_attention(

// BAD: error:
// BAD-SAME: flash-pipeline
func.func @bf16(%q: tensor<1x2x40x64xbf16>, %k: tensor<1x2x40x64xbf16>, %v: tensor<1x2x40x64xbf16>) -> tensor<1x2x40x64xbf16> {
  %o = graph.attention %q, %k, %v causal scale 0.125 : tensor<1x2x40x64xbf16>
  func.return %o : tensor<1x2x40x64xbf16>
}
func.func @f32(%q: tensor<1x2x40x64xf32>, %k: tensor<1x2x40x64xf32>, %v: tensor<1x2x40x64xf32>) -> tensor<1x2x40x64xf32> {
  %o = graph.attention %q, %k, %v causal scale 0.125 : tensor<1x2x40x64xf32>
  func.return %o : tensor<1x2x40x64xf32>
}
func.func @d32(%q: tensor<1x2x8x32xbf16>, %k: tensor<1x2x8x32xbf16>, %v: tensor<1x2x8x32xbf16>) -> tensor<1x2x8x32xbf16> {
  %o = graph.attention %q, %k, %v scale 0.125 : tensor<1x2x8x32xbf16>
  func.return %o : tensor<1x2x8x32xbf16>
}
