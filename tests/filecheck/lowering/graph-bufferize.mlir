// RUN: fxdsl-opt %s -p graph-bufferize | filecheck %s

// Groups stay on tensors, bridged to buffers; outputs are returned allocations.
// CHECK-LABEL: func.func @group(%x: memref<4x8xf32>, %b: memref<8xf32>) -> memref<4x8xf32>
// CHECK-NEXT:    %[[X:.*]] = bufferization.to_tensor %x restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:    %[[B:.*]] = bufferization.to_tensor %b restrict : memref<8xf32> to tensor<8xf32>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%[[X]], %[[B]])
// CHECK:         bufferization.materialize_in_destination %[[G]] in restrict writable %[[OUT]]
// CHECK-NEXT:    func.return %[[OUT]] : memref<4x8xf32>
func.func @group(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = graph.fusion_group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %s = graph.add %p, %q : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    graph.yield %s : tensor<4x8xf32>
  }
  func.return %a : tensor<4x8xf32>
}

// reshape, transpose and slice are strided views of the argument, no copies.
// CHECK-LABEL: func.func @views(%x: memref<2x3x8xf32>) -> memref<4x3xf32>
// CHECK-NEXT:    %[[R:.*]] = memref.reinterpret_cast %x to offset: [0], sizes: [6, 8], strides: [8, 1] : memref<2x3x8xf32> to memref<6x8xf32>
// CHECK-NEXT:    %[[T:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [8, 6], strides: [1, 8] : memref<6x8xf32> to memref<8x6xf32, strided<[1, 8]>>
// CHECK-NEXT:    %[[S:.*]] = memref.reinterpret_cast %[[T]] to offset: [2], sizes: [4, 3], strides: [1, 16] : {{.*}} to memref<4x3xf32, strided<[1, 16], offset: 2>>
// CHECK-NEXT:    %[[IN:.*]] = builtin.unrealized_conversion_cast %[[S]] : memref<4x3xf32, strided<[1, 16], offset: 2>> to tensor<4x3xf32>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<4x3xf32>
// CHECK-NEXT:    graph.fusion_group (%[[IN]])
func.func @views(%x: tensor<2x3x8xf32>) -> tensor<4x3xf32> {
  %r = graph.reshape %x : (tensor<2x3x8xf32>) -> tensor<6x8xf32>
  %t = graph.transpose %r perm [1, 0] : (tensor<6x8xf32>) -> tensor<8x6xf32>
  %s = graph.slice %t start [2, 0] limit [6, 6] step [1, 2] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  %g = graph.fusion_group (%s) : (tensor<4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%p: tensor<4x3xf32>):
    %e = graph.exp %p : tensor<4x3xf32>
    graph.yield %e : tensor<4x3xf32>
  }
  func.return %g : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @split
// CHECK-NEXT:    memref.reinterpret_cast %x to offset: [0], sizes: [4, 3], strides: [6, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1]>>
// CHECK-NEXT:    memref.reinterpret_cast %x to offset: [3], sizes: [4, 3], strides: [6, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
func.func @split(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %a, %b = graph.split %x dim 1 sizes [3, 3] : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
  %g = graph.fusion_group (%a, %b) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%p: tensor<4x3xf32>, %q: tensor<4x3xf32>):
    %e = graph.mul %p, %q : tensor<4x3xf32>
    graph.yield %e : tensor<4x3xf32>
  }
  func.return %g : tensor<4x3xf32>
}

// matmul: 3-D (batch, rows, cols) views; the 2-D operand broadcasts with batch
// stride 0 and is read transposed (strides [1, 8]).
// CHECK-LABEL: func.func @batched_matmul
// CHECK-NEXT:    %[[T:.*]] = memref.reinterpret_cast %w to offset: [0], sizes: [8, 3], strides: [1, 8]
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<2x4x3xf16>
// CHECK-NEXT:    %[[A:.*]] = memref.reinterpret_cast %a to offset: [0], sizes: [2, 4, 8], strides: [32, 8, 1] : memref<2x4x8xf16> to memref<2x4x8xf16>
// CHECK-NEXT:    %[[W:.*]] = memref.reinterpret_cast %[[T]] to offset: [0], sizes: [2, 8, 3], strides: [0, 1, 8] : {{.*}} to memref<2x8x3xf16, strided<[0, 1, 8]>>
// CHECK-NEXT:    %[[C:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [2, 4, 3], strides: [12, 3, 1]
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT:    linalg.fill ins(%[[Z]] : f16) outs(%[[C]] : memref<2x4x3xf16>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], library_call = "cublas_gemm_strided_batched"} ins(%[[A]], %[[W]] : {{.*}}) outs(%[[C]] : memref<2x4x3xf16>)
// CHECK:         func.return %[[OUT]]
func.func @batched_matmul(%a: tensor<2x4x8xf16>, %w: tensor<3x8xf16>) -> tensor<2x4x3xf16> {
  %t = graph.transpose %w perm [1, 0] : (tensor<3x8xf16>) -> tensor<8x3xf16>
  %r = graph.matmul %a, %t : (tensor<2x4x8xf16>, tensor<8x3xf16>) -> tensor<2x4x3xf16>
  func.return %r : tensor<2x4x3xf16>
}
// Calls (graph-dedup's outlined functions) pass and return whole buffers.
// CHECK-LABEL: func.func private @callee(%x: memref<4xf32>) -> memref<4xf32>
// CHECK-LABEL: func.func @caller(%x: memref<2x2xf32>) -> memref<4xf32>
// CHECK-NEXT:    %[[FLAT:.*]] = memref.reinterpret_cast %x to offset: [0], sizes: [4], strides: [1] : memref<2x2xf32> to memref<4xf32>
// CHECK-NEXT:    %[[R:.*]] = func.call @callee(%[[FLAT]]) : (memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT:    func.return %[[R]] : memref<4xf32>
func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>):
    %e = graph.exp %p : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  func.return %g : tensor<4xf32>
}
func.func @caller(%x: tensor<2x2xf32>) -> tensor<4xf32> {
  %r = graph.reshape %x : (tensor<2x2xf32>) -> tensor<4xf32>
  %y = func.call @callee(%r) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// Attention heads merged back: the product is written straight into the
// merged buffer (head h at column 4h of each row: batch stride 4, row
// stride 8); the transpose and the copy group are gone.
// CHECK-LABEL: func.func @merged_heads(
// CHECK-NEXT:    %[[D:.*]] = memref.alloc() : memref<1x3x8xf32>
// CHECK:         %[[C:.*]] = memref.reinterpret_cast %[[D]] to offset: [0], sizes: [2, 3, 4], strides: [4, 8, 1]
// CHECK:         linalg.generic {{.*}} library_call = "cublas_gemm_strided_batched"} ins({{.*}}) outs(%[[C]] :
// CHECK-NOT:     graph.fusion_group
// CHECK:         func.return %[[D]] : memref<1x3x8xf32>
func.func @merged_heads(%p: tensor<1x2x3x3xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x3x8xf32> {
  %y = graph.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %t = graph.transpose %y perm [0, 2, 1, 3] : (tensor<1x2x3x4xf32>) -> tensor<1x3x2x4xf32>
  %m = graph.fusion_group (%t) : (tensor<1x3x2x4xf32>) -> tensor<1x3x8xf32> {
  ^bb0(%a: tensor<1x3x2x4xf32>):
    %r = graph.reshape %a : (tensor<1x3x2x4xf32>) -> tensor<1x3x8xf32>
    graph.yield %r : tensor<1x3x8xf32>
  }
  func.return %m : tensor<1x3x8xf32>
}

// Not written through: bf16 products (converted whole), a product with a
// second use, two batch dims without one stride (sequences x heads).
// CHECK-LABEL: func.func @merged_heads_bf16(
// CHECK:         graph.fusion_group
// CHECK-LABEL: func.func @product_used_twice(
// CHECK:         graph.fusion_group
// CHECK-LABEL: func.func @two_sequences(
// CHECK:         graph.fusion_group
func.func @merged_heads_bf16(%p: tensor<1x2x3x3xbf16>, %v: tensor<1x2x3x4xbf16>) -> tensor<1x3x8xbf16> {
  %y = graph.matmul %p, %v : (tensor<1x2x3x3xbf16>, tensor<1x2x3x4xbf16>) -> tensor<1x2x3x4xbf16>
  %t = graph.transpose %y perm [0, 2, 1, 3] : (tensor<1x2x3x4xbf16>) -> tensor<1x3x2x4xbf16>
  %m = graph.fusion_group (%t) : (tensor<1x3x2x4xbf16>) -> tensor<1x3x8xbf16> {
  ^bb0(%a: tensor<1x3x2x4xbf16>):
    %r = graph.reshape %a : (tensor<1x3x2x4xbf16>) -> tensor<1x3x8xbf16>
    graph.yield %r : tensor<1x3x8xbf16>
  }
  func.return %m : tensor<1x3x8xbf16>
}
func.func @product_used_twice(%p: tensor<1x2x3x3xf32>, %v: tensor<1x2x3x4xf32>) -> (tensor<1x3x8xf32>, tensor<1x2x3x4xf32>) {
  %y = graph.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %t = graph.transpose %y perm [0, 2, 1, 3] : (tensor<1x2x3x4xf32>) -> tensor<1x3x2x4xf32>
  %m = graph.fusion_group (%t) : (tensor<1x3x2x4xf32>) -> tensor<1x3x8xf32> {
  ^bb0(%a: tensor<1x3x2x4xf32>):
    %r = graph.reshape %a : (tensor<1x3x2x4xf32>) -> tensor<1x3x8xf32>
    graph.yield %r : tensor<1x3x8xf32>
  }
  func.return %m, %y : tensor<1x3x8xf32>, tensor<1x2x3x4xf32>
}
func.func @two_sequences(%p: tensor<2x2x3x3xf32>, %v: tensor<2x2x3x4xf32>) -> tensor<2x3x8xf32> {
  %y = graph.matmul %p, %v : (tensor<2x2x3x3xf32>, tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32>
  %t = graph.transpose %y perm [0, 2, 1, 3] : (tensor<2x2x3x4xf32>) -> tensor<2x3x2x4xf32>
  %m = graph.fusion_group (%t) : (tensor<2x3x2x4xf32>) -> tensor<2x3x8xf32> {
  ^bb0(%a: tensor<2x3x2x4xf32>):
    %r = graph.reshape %a : (tensor<2x3x2x4xf32>) -> tensor<2x3x8xf32>
    graph.yield %r : tensor<2x3x8xf32>
  }
  func.return %m : tensor<2x3x8xf32>
}
