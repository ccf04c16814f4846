// RUN: fxdsl-opt %s -p convert-graph-to-gpu -t cuda | filecheck %s
// RUN: not fxdsl-opt %s -t cuda 2>&1 | filecheck %s --check-prefix=NOGPU

// NOGPU: error: -t cuda: the module has no gpu.module; run convert-graph-to-gpu first

// CHECK:      #include <cuda_fp16.h>
// CHECK:      #include <cuda_bf16.h>
// Block reductions: warp shuffles + one shared slot per warp, no atomics.
// CHECK-NOT:  atomic
// CHECK:      fx_block_reduce_max_float(float v) {
// CHECK-NEXT:   __shared__ float partial[32];
// CHECK:        v = fx_warp_reduce_max_float(v);
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   if (lane == 0) partial[warp] = v;
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   v = lane < warps ? partial[lane] : -FX_INF;
// CHECK:      fx_block_reduce_add_float(float v) {

// CHECK-LABEL: extern "C" __global__ void scaled_f16_0_mul(const __half* __restrict__ arg0, const float* __restrict__ arg1, __half* __restrict__ arg2) {
// CHECK:         for (long long [[I:v[0-9]+]] = {{v[0-9]+}}; [[I]] < {{v[0-9]+}}; [[I]] += {{v[0-9]+}}) {
// CHECK-NEXT:      long long [[J:v[0-9]+]] = [[I]] % {{v[0-9]+}};
// CHECK-NEXT:      long long [[R:v[0-9]+]] = [[I]] / {{v[0-9]+}};
// CHECK-NEXT:      __half [[H:v[0-9]+]] = arg0[[[R]] * 6LL + [[J]]];
// CHECK-NEXT:      float [[F:v[0-9]+]] = (float)(__half2float([[H]]));
// CHECK-NEXT:      float [[S:v[0-9]+]] = arg1[[[J]]];
// The cast to f16 inside the group rounds (truncate, then compute in f32).
// CHECK-NEXT:      __half [[SH:v[0-9]+]] = __float2half_rn((float)([[S]]));
// CHECK-NEXT:      float [[SF:v[0-9]+]] = (float)(__half2float([[SH]]));
// CHECK-NEXT:      float [[P:v[0-9]+]] = [[F]] * [[SF]];
// CHECK-NEXT:      __half [[T:v[0-9]+]] = __float2half_rn((float)([[P]]));
// CHECK-NEXT:      arg2[[[R]] * 6LL + [[J]]] = [[T]];
// CHECK-NEXT:    }
func.func @scaled_f16(%x: tensor<4x6xf16>, %s: tensor<6xf32>) -> tensor<4x6xf16> {
  %g = graph.fusion_group (%x, %s) : (tensor<4x6xf16>, tensor<6xf32>) -> tensor<4x6xf16> {
  ^bb0(%p: tensor<4x6xf16>, %q: tensor<6xf32>):
    %c = graph.cast %q : (tensor<6xf32>) -> tensor<6xf16>
    %m = graph.mul %p, %c : (tensor<4x6xf16>, tensor<6xf16>) -> tensor<4x6xf16>
    graph.yield %m : tensor<4x6xf16>
  }
  func.return %g : tensor<4x6xf16>
}

// Innermost dim a multiple of 4: 4 lanes per iteration, float4 loads of the
// contiguous f32 operands, one scalar load of the broadcast scalar, one float4
// store.
// CHECK-LABEL: extern "C" __global__ void vectorized_0_add(const float* __restrict__ arg0, const float* __restrict__ arg1, const float* __restrict__ arg2, float* __restrict__ arg3) {
// CHECK:         for (long long [[I:v[0-9]+]] = {{v[0-9]+}}; [[I]] < {{v[0-9]+}}; [[I]] += {{v[0-9]+}}) {
// CHECK-NEXT:      long long [[E:v[0-9]+]] = [[I]] * {{v[0-9]+}};
// CHECK-NEXT:      long long [[J:v[0-9]+]] = [[E]] % {{v[0-9]+}};
// CHECK-NEXT:      long long [[R:v[0-9]+]] = [[E]] / {{v[0-9]+}};
// CHECK:           float4 [[X:v[0-9]+]] = *reinterpret_cast<const float4*>(&arg0[[[R]] * 8LL + [[J]]]);
// CHECK-NEXT:      float {{v[0-9]+}} = [[X]].x;
// CHECK-NEXT:      float4 [[B:v[0-9]+]] = *reinterpret_cast<const float4*>(&arg1[[[J]]]);
// CHECK:           float [[S:v[0-9]+]] = arg2[0];
// CHECK:           = [[X]].w;
// CHECK:           float4 [[O:v[0-9]+]] = make_float4(
// CHECK:           [[O3:v[0-9]+]].w =
// CHECK-NEXT:      *reinterpret_cast<float4*>(&arg3[[[R]] * 8LL + [[J]]]) = [[O3]];
// CHECK-NEXT:    }
func.func @vectorized(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %s: tensor<1xf32>) -> tensor<4x8xf32> {
  %g = graph.fusion_group (%x, %b, %s) : (tensor<4x8xf32>, tensor<8xf32>, tensor<1xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>, %r: tensor<1xf32>):
    %m = graph.mul %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %a = graph.add %m, %r : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xf32>
    graph.yield %a : tensor<4x8xf32>
  }
  func.return %g : tensor<4x8xf32>
}

// Strided view input: a column slice of a transposed buffer is indexed through
// its layout (offset + strides), not copied. Its elements are not contiguous,
// so they are loaded one by one; the contiguous output is stored as a float4.
// CHECK-LABEL: extern "C" __global__ void strided_0_softmax(const float* __restrict__ arg0, float* __restrict__ arg1) {
// CHECK:         float {{v[0-9]+}} = arg0[[[ROW:v[0-9]+]] + {{v[0-9]+}} * 6LL];
// CHECK:         fx_block_reduce_max_float(
// CHECK:         fx_block_reduce_add_float(
// CHECK:         *reinterpret_cast<float4*>(&arg1[[[ROW]] * 4LL + {{v[0-9]+}}]) =
func.func @strided(%x: tensor<4x6xf32>) -> tensor<6x4xf32> {
  %t = graph.transpose %x perm [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %s = graph.softmax %t dim 1 : tensor<6x4xf32>
  func.return %s : tensor<6x4xf32>
}
