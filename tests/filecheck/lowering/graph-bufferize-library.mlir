// RUN: fxdsl-opt %s -p graph-wrap-kernels,graph-bufferize | filecheck %s
// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s --check-prefix=GPU

// A linear-algebra op is a host library step (cuSOLVER through CuPy): no
// kernel wraps it, a strided operand is copied to a dense buffer first, and
// the op stays on tensors bridged to buffers as a group is, each result
// materialized into its own allocation.

// CHECK-LABEL: func.func @lu_of_a_transpose
// CHECK:         %[[COPY:.*]] = memref.alloc() : memref<3x3xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.fusion_group
// CHECK:         %[[IN:.*]] = bufferization.to_tensor %[[COPY]] restrict : memref<3x3xf32> to tensor<3x3xf32>
// CHECK-NEXT:    %[[LU:.*]] = memref.alloc() : memref<3x3xf32>
// CHECK-NEXT:    %[[PIV:.*]] = memref.alloc() : memref<3xi32>
// CHECK-NEXT:    %[[P:.*]] = memref.alloc() : memref<3x3xf32>
// CHECK-NEXT:    %[[R:.*]], %[[R1:.*]], %[[R2:.*]] = graph.lu %[[IN]] : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3x3xf32>)
// CHECK-NEXT:    bufferization.materialize_in_destination %[[R]] in restrict writable %[[LU]]
// CHECK-NEXT:    bufferization.materialize_in_destination %[[R1]] in restrict writable %[[PIV]]
// CHECK-NEXT:    bufferization.materialize_in_destination %[[R2]] in restrict writable %[[P]]
// CHECK-NEXT:    func.return %[[LU]], %[[PIV]] : memref<3x3xf32>, memref<3xi32>

// GPU-LABEL: func.func @lu_of_a_transpose
// GPU:         "gpu.launch_func"
// GPU:         graph.lu
// GPU-NOT:     "gpu.launch_func"
// GPU:         func.return
func.func @lu_of_a_transpose(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>) {
  %t = graph.transpose %a perm [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %lu, %p, %pm = graph.lu %t : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3x3xf32>)
  func.return %lu, %p : tensor<3x3xf32>, tensor<3xi32>
}
