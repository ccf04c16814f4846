// RUN: fxdsl-opt %s -p graph-wrap-kernels | filecheck %s

// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT:    %[[A:.*]] = graph.fusion_group (%x, %b)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[S:.*]] = graph.add %[[X]], %[[B]]
// CHECK-NEXT:      graph.yield %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:.*]] = graph.fusion_group (%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[C:.*]] = graph.full value 2.000000e+00 : tensor<f32>
// CHECK-NEXT:      %[[P:.*]] = graph.mul %[[IN]], %[[C]]
// CHECK-NEXT:      graph.yield %[[P]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[M]]
func.func @elementwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %c = graph.full value 2.0 : tensor<f32>
  %a = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %m = graph.mul %a, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// A transposed matmul operand stays a view (cuBLAS transpose); a returned
// transpose needs a dense buffer: a copy kernel.
// CHECK-LABEL: func.func @views
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0]
// CHECK-NEXT:    %[[R:.*]] = graph.matmul %x, %[[T]]
// CHECK-NEXT:    %[[U:.*]] = graph.fusion_group (%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[V:.*]] = graph.transpose %[[IN]] perm [1, 0]
// CHECK-NEXT:      graph.yield %[[V]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]], %[[U]]
func.func @views(%x: tensor<4x8xf32>, %w: tensor<3x8xf32>) -> (tensor<4x3xf32>, tensor<8x4xf32>) {
  %t = graph.transpose %w perm [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
  %r = graph.matmul %x, %t : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %u = graph.transpose %x perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  func.return %r, %u : tensor<4x3xf32>, tensor<8x4xf32>
}

// CHECK-LABEL: func.func @linear
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0]
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %x, %[[T]]
// CHECK-NEXT:    %[[Y:.*]] = graph.fusion_group (%[[P]], %b)
// CHECK:           graph.add
// CHECK:         func.return %[[Y]]
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %y = graph.linear %x, %w, %b : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// Merging the dims of a transposed buffer has no strided view: a copy kernel.
// CHECK-LABEL: func.func @reshape_of_transpose
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %x perm [1, 0]
// CHECK-NEXT:    %[[R:.*]] = graph.fusion_group (%[[T]]) : (tensor<8x4xf32>) -> tensor<32xf32> {
// CHECK:           graph.reshape
// CHECK:         %[[E:.*]] = graph.fusion_group (%[[R]])
// CHECK:           graph.exp
// CHECK:         func.return %[[E]]
func.func @reshape_of_transpose(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %t = graph.transpose %x perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = graph.reshape %t : (tensor<8x4xf32>) -> tensor<32xf32>
  %e = graph.exp %r : tensor<32xf32>
  func.return %e : tensor<32xf32>
}

// CHECK-LABEL: func.func @constant_to_matmul
// CHECK-NEXT:    %[[C:.*]] = graph.fusion_group () : () -> tensor<2x2xf32> {
// CHECK-NEXT:      %[[V:.*]] = graph.constant dense<
// CHECK-NEXT:      graph.yield %[[V]]
// CHECK-NEXT:    }
// CHECK-NEXT:    graph.matmul %x, %[[C]]
func.func @constant_to_matmul(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = graph.matmul %x, %c : tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}

// Existing groups are left alone.
// CHECK-LABEL: func.func @grouped
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group (%x)
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %[[E:.*]] = graph.exp %a
// CHECK-NEXT:      graph.yield %[[E]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[G]]
func.func @grouped(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = graph.exp %a : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  func.return %g : tensor<4xf32>
}

// A returned split needs a copy; pieces of different shapes cannot share one
// kernel domain, so each used piece becomes a slice of its own (the unused
// first piece disappears).
// CHECK-LABEL: func.func @uneven_split
// CHECK-NOT:     graph.split
// CHECK:         %[[B:.*]] = graph.fusion_group (%x) : (tensor<5x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<5x2xf32>):
// CHECK-NEXT:      %[[S:.*]] = graph.slice %[[X]] limit [5, 2] start [2, 0] step [1, 1]
// CHECK-NEXT:      graph.yield %[[S]] : tensor<3x2xf32>
// CHECK:         func.return %[[B]]
func.func @uneven_split(%x: tensor<5x2xf32>) -> tensor<3x2xf32> {
  %a, %b = graph.split %x dim 0 sizes [2, 3] : (tensor<5x2xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>)
  func.return %b : tensor<3x2xf32>
}

// Both pieces returned: the first is a dense prefix of %x (a view, no copy),
// the second is strided and gets a copy of its own shape.
// CHECK-LABEL: func.func @uneven_split_both
// CHECK-NEXT:    %a = graph.slice %x limit [1, 2] start [0, 0]
// CHECK-NEXT:    %b = graph.fusion_group (%x) : (tensor<5x2xf32>) -> tensor<4x2xf32>
// CHECK:           graph.slice {{.*}} limit [5, 2] start [1, 0]
func.func @uneven_split_both(%x: tensor<5x2xf32>) -> (tensor<1x2xf32>, tensor<4x2xf32>) {
  %a, %b = graph.split %x dim 0 sizes [1, 4] : (tensor<5x2xf32>) -> (tensor<1x2xf32>, tensor<4x2xf32>)
  func.return %a, %b : tensor<1x2xf32>, tensor<4x2xf32>
}
