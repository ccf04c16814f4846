// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s
// RUN: fxdsl-opt %s -p convert-graph-to-gpu | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s -p 'convert-graph-to-gpu{verify-stages=false}' | filecheck %s
// RUN: not fxdsl-opt %s -p 'convert-graph-to-gpu{verify-stages=sometimes}' 2>&1 | filecheck %s --check-prefix=BAD
// BAD: error: convert-graph-to-gpu: option verify-stages expects true or false, got sometimes

// A group of 5 elementwise ops is ONE kernel: one launch, one gpu.func with all
// five ops inside a single grid-stride loop.
// CHECK-LABEL: func.func @fused5
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK:         "gpu.launch_func"({{.*}}, %x, %b, %[[OUT]]) <{kernel = @kernels::@fused5_0_relu,
// CHECK-NOT:     gpu.launch_func
// CHECK:         func.return %[[OUT]]

// The softmax group (select prologue + softmax) is one row kernel.
// CHECK-LABEL: func.func @softmax_group
// CHECK:         "gpu.launch_func"({{.*}}, %x, %mask, %{{.*}}) <{kernel = @kernels::@softmax_group_0_softmax,
// CHECK-NOT:     gpu.launch_func
// CHECK:         func.return

// Unfused exp -> one-op kernel; matmul -> library call on its output buffer.
// CHECK-LABEL: func.func @unfused
// CHECK:         "gpu.launch_func"({{.*}}, %x, %[[E:.*]]) <{kernel = @kernels::@unfused_0_exp,
// CHECK:         %[[LHS:.*]] = memref.reinterpret_cast %[[E]] to offset: [0], sizes: [1, 4, 8]
// CHECK:         linalg.generic {{.*}} library_call = "cublas_gemm_strided_batched"} ins(%[[LHS]],

// An identical kernel in another function is not emitted twice.
// CHECK-LABEL: func.func @fused5_again
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@fused5_0_relu,

// CHECK:       "gpu.module"() <{sym_name = "kernels"}> ({
// CHECK:         "gpu.func"() {{.*}} ({
// Four lanes per iteration (innermost dim 8 is a multiple of 4): one
// vector.load per contiguous operand, the five ops once per lane, one
// vector.store.
// CHECK:           scf.for
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        arith.remui
// CHECK-NEXT:        arith.divui
// CHECK-COUNT-3:     arith.addi
// CHECK-NEXT:        %[[X:.*]] = vector.load %{{.*}} : memref<4x8xf32>, vector<4xf32>
// CHECK-NEXT:        vector.extract %[[X]][0]
// CHECK-NEXT:        %[[B:.*]] = vector.load %{{.*}} : memref<8xf32>, vector<4xf32>
// CHECK-NEXT:        vector.extract %[[B]][0]
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        arith.mulf
// CHECK-NEXT:        math.tanh
// CHECK-NEXT:        arith.subf
// CHECK-NEXT:        arith.cmpf olt
// CHECK-NEXT:        arith.select
// CHECK-COUNT-3:     math.tanh
// CHECK-NOT:         vector.load
// CHECK:             vector.broadcast
// CHECK-COUNT-3:     vector.insert
// CHECK-NEXT:        vector.store
// CHECK-NEXT:      }
// CHECK:         }) {sym_name = "fused5_0_relu", gpu.kernel, workgroup_attributions = 0 : i64} : () -> ()
// CHECK-NEXT:    "gpu.func"()
// CHECK-COUNT-2:   "gpu.all_reduce"
// CHECK-NOT:       "gpu.all_reduce"
// CHECK:         }) {sym_name = "softmax_group_0_softmax", gpu.kernel, workgroup_attributions = 0 : i64} : () -> ()
// CHECK-NEXT:    "gpu.func"()
// CHECK:         }) {sym_name = "unfused_0_exp", gpu.kernel, workgroup_attributions = 0 : i64} : () -> ()
// CHECK-NOT:     fused5_again
// CHECK-NEXT:  }) : () -> ()

func.func @fused5(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %g = graph.fusion_group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %a = graph.add %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %m = graph.mul %a, %a : tensor<4x8xf32>
    %t = graph.tanh %m : tensor<4x8xf32>
    %s = graph.sub %t, %p : tensor<4x8xf32>
    %r = graph.relu %s : tensor<4x8xf32>
    graph.yield %r : tensor<4x8xf32>
  }
  func.return %g : tensor<4x8xf32>
}
func.func @softmax_group(%x: tensor<2x16xf32>, %mask: tensor<16xi1>) -> tensor<2x16xf32> {
  %g = graph.fusion_group (%x, %mask) : (tensor<2x16xf32>, tensor<16xi1>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<2x16xf32>, %k: tensor<16xi1>):
    %c = graph.full value -1.0e+09 : tensor<f32>
    %w = graph.select %k, %p, %c : (tensor<16xi1>, tensor<2x16xf32>, tensor<f32>) -> tensor<2x16xf32>
    %s = graph.softmax %w dim 1 : tensor<2x16xf32>
    graph.yield %s : tensor<2x16xf32>
  }
  func.return %g : tensor<2x16xf32>
}
func.func @unfused(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %e = graph.exp %x : tensor<4x8xf32>
  %r = graph.matmul %e, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

func.func @fused5_again(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %g = graph.fusion_group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %a = graph.add %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %m = graph.mul %a, %a : tensor<4x8xf32>
    %t = graph.tanh %m : tensor<4x8xf32>
    %s = graph.sub %t, %p : tensor<4x8xf32>
    %r = graph.relu %s : tensor<4x8xf32>
    graph.yield %r : tensor<4x8xf32>
  }
  func.return %g : tensor<4x8xf32>
}
