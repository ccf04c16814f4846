// RUN: fxdsl-opt %s -p graph-decompose | filecheck %s

// linear with bias -> transpose (a view) + matmul + bias add; provenance kept.
// CHECK-LABEL: func.func @linear_bias
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0] {scope = #graph.scope<("fc", 0, "Linear")>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %x, %[[T]] {scope = #graph.scope<("fc", 0, "Linear")>} : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[M]], %b {scope = #graph.scope<("fc", 0, "Linear")>} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT:    func.return %[[A]]
func.func @linear_bias(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %y = graph.linear %x, %w, %b {scope = #graph.scope<("fc", 0, "Linear")>} : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  func.return %y : tensor<2x4x16xf32>
}

// Without a bias there is no add.
// CHECK-LABEL: func.func @linear_no_bias
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0]
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %x, %[[T]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @linear_no_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %y = graph.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// layer_norm, softmax and gelu are fusible as they are: left alone.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    graph.layer_norm
// CHECK-NEXT:    graph.softmax
// CHECK-NEXT:    graph.gelu
// CHECK-NEXT:    func.return
func.func @kept(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %n = graph.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %s = graph.softmax %n dim 1 : tensor<4x8xf32>
  %g = graph.gelu %s : tensor<4x8xf32>
  func.return %g : tensor<4x8xf32>
}
