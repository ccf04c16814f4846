// RUN: fxdsl-opt %s -p graph-wrap-kernels,graph-bufferize | filecheck %s
// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s --check-prefix=GPU

// A donated cache (bufferization.writable) read only by its index_copy:
// the result is materialized into the argument's buffer, no allocation.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT:     memref.alloc
// CHECK:         bufferization.materialize_in_destination %{{.*}} in restrict writable %cache
// CHECK-NEXT:    func.return %cache
// The kernel is a scatter over the new rows (2x1x4 = 8 elements).
// GPU-LABEL: func.func @in_place
// GPU-NOT:     memref.alloc
// GPU:         "gpu.launch_func"({{.*}}, %cache, %pos, %new, %cache)
// GPU-NEXT:    func.return %cache
// GPU:         scf.for %{{.*}} = %{{.*}} to %[[N:.*]] step
// GPU:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x4xf32>
func.func @in_place(%cache: tensor<2x8x4xf32> {bufferization.writable = true}, %pos: tensor<1xi64>, %new: tensor<2x1x4xf32>) -> tensor<2x8x4xf32> {
  %r = graph.index_copy %cache, %pos, %new dim 1 : (tensor<2x8x4xf32>, tensor<1xi64>, tensor<2x1x4xf32>) -> tensor<2x8x4xf32>
  func.return %r : tensor<2x8x4xf32>
}

// Not donated: a fresh buffer the kernel fills whole.
// CHECK-LABEL: func.func @functional
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<2x8x4xf32>
// CHECK:         bufferization.materialize_in_destination %{{.*}} in restrict writable %[[OUT]]
// CHECK-NEXT:    func.return %[[OUT]]
func.func @functional(%cache: tensor<2x8x4xf32>, %pos: tensor<1xi64>, %new: tensor<2x1x4xf32>) -> tensor<2x8x4xf32> {
  %r = graph.index_copy %cache, %pos, %new dim 1 : (tensor<2x8x4xf32>, tensor<1xi64>, tensor<2x1x4xf32>) -> tensor<2x8x4xf32>
  func.return %r : tensor<2x8x4xf32>
}
