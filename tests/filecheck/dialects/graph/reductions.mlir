// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// Reductions (dims, keepdim, correction), softmax/log_softmax and layer_norm.

// CHECK-LABEL: func.func @reduce
func.func @reduce() {
  %x = "test.op"() : () -> (tensor<2x4x8xf32>)
  %n = "test.op"() : () -> (tensor<2x4xi64>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x4x8xf32>
  // CHECK-NEXT: %[[N:.*]] = "test.op"() : () -> tensor<2x4xi64>
  // CHECK-NEXT: %{{.*}} = graph.sum %[[X]] dims [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.sum %[[X]] dims [0, 2] keepdim : (tensor<2x4x8xf32>) -> tensor<1x4x1xf32>
  // CHECK-NEXT: %{{.*}} = graph.sum %[[X]] dims [] : (tensor<2x4x8xf32>) -> tensor<f32>
  // CHECK-NEXT: %{{.*}} = graph.sum %[[N]] dims [1] : (tensor<2x4xi64>) -> tensor<2xi64>
  // CHECK-NEXT: %{{.*}} = graph.mean %[[X]] dims [1] keepdim : (tensor<2x4x8xf32>) -> tensor<2x1x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.max %[[X]] dims [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.max %[[N]] dims [0] : (tensor<2x4xi64>) -> tensor<4xi64>
  // CHECK-NEXT: %{{.*}} = graph.min %[[X]] dims [] keepdim : (tensor<2x4x8xf32>) -> tensor<1x1x1xf32>
  // CHECK-NEXT: %{{.*}} = graph.var %[[X]] dims [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.var %[[X]] correction 0 dims [2] keepdim : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %0 = graph.sum %x dims [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %1 = graph.sum %x dims [0, 2] keepdim : (tensor<2x4x8xf32>) -> tensor<1x4x1xf32>
  // Empty dims reduce every dim.
  %2 = graph.sum %x dims [] : (tensor<2x4x8xf32>) -> tensor<f32>
  %3 = graph.sum %n dims [1] : (tensor<2x4xi64>) -> tensor<2xi64>
  %4 = graph.mean %x dims [1] keepdim : (tensor<2x4x8xf32>) -> tensor<2x1x8xf32>
  %5 = graph.max %x dims [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  %6 = graph.max %n dims [0] : (tensor<2x4xi64>) -> tensor<4xi64>
  %7 = graph.min %x dims [] keepdim : (tensor<2x4x8xf32>) -> tensor<1x1x1xf32>
  %8 = graph.var %x dims [2] : (tensor<2x4x8xf32>) -> tensor<2x4xf32>
  // Properties may come in any order; they print sorted by name.
  %9 = graph.var %x dims [2] keepdim correction 0 : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  func.return
}

// CHECK-LABEL: func.func @softmax
func.func @softmax() {
  %x = "test.op"() : () -> (tensor<4x8xf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.softmax %[[X]] dim 1 : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.log_softmax %[[X]] dim 0 : tensor<4x8xf16>
  %0 = graph.softmax %x dim 1 : tensor<4x8xf16>
  %1 = graph.log_softmax %x dim 0 : tensor<4x8xf16>
  func.return
}

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm() {
  %x = "test.op"() : () -> (tensor<2x4x8xf32>)
  %w = "test.op"() : () -> (tensor<8xf32>)
  %w2 = "test.op"() : () -> (tensor<4x8xf32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x4x8xf32>
  // CHECK-NEXT: %[[W:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %[[W2:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.layer_norm %[[X]], %[[W]], %[[W]] eps 1.000000e-05 : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.layer_norm %[[X]], %[[W2]], %[[W2]] eps 1.000000e-03 : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %0 = graph.layer_norm %x, %w, %w eps 1.0e-05 : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // Normalising over the two trailing dims.
  %1 = graph.layer_norm %x, %w2, %w2 eps 0.001 : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  func.return
}

// CHECK-LABEL: func.func @boolean_reductions
func.func @boolean_reductions() {
  %m = "test.op"() : () -> (tensor<2x4x8xi1>)
  // CHECK:      %[[M:.*]] = "test.op"() : () -> tensor<2x4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.any %[[M]] dims [2] : (tensor<2x4x8xi1>) -> tensor<2x4xi1>
  // CHECK-NEXT: %{{.*}} = graph.all %[[M]] dims [] keepdim : (tensor<2x4x8xi1>) -> tensor<1x1x1xi1>
  %0 = graph.any %m dims [2] : (tensor<2x4x8xi1>) -> tensor<2x4xi1>
  %1 = graph.all %m dims [] keepdim : (tensor<2x4x8xi1>) -> tensor<1x1x1xi1>
  func.return
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum() {
  %x = "test.op"() : () -> (tensor<2x4x8xf32>)
  %n = "test.op"() : () -> (tensor<5xi32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x4x8xf32>
  // CHECK-NEXT: %[[N:.*]] = "test.op"() : () -> tensor<5xi32>
  // CHECK-NEXT: %{{.*}} = graph.cumsum %[[X]] dim 1 : tensor<2x4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.cumsum %[[N]] dim 0 : tensor<5xi32>
  %0 = graph.cumsum %x dim 1 : tensor<2x4x8xf32>
  %1 = graph.cumsum %n dim 0 : tensor<5xi32>
  func.return
}
