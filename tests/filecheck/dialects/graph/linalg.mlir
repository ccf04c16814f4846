// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// The linear-algebra family: factorisations batched over leading dims, their
// unit flags, and the results' shapes.

// CHECK-LABEL: func.func @linalg
func.func @linalg() {
  %a = "test.op"() : () -> (tensor<2x4x4xf32>)
  %b = "test.op"() : () -> (tensor<4x3xf32>)
  %w = "test.op"() : () -> (tensor<3x5xf32>)
  %c = "test.op"() : () -> (tensor<3x4xf32>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<2x4x4xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<4x3xf32>
  // CHECK-NEXT: %[[W:.*]] = "test.op"() : () -> tensor<3x5xf32>
  // CHECK-NEXT: %[[C:.*]] = "test.op"() : () -> tensor<3x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.cholesky %[[A]] : tensor<2x4x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.triangular_solve %[[A]], %[[B]] unitriangular upper : (tensor<2x4x4xf32>, tensor<4x3xf32>) -> tensor<2x4x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.triangular_solve %[[A]], %[[C]] right : (tensor<2x4x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = graph.lu %[[W]] : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xi32>, tensor<3x3xf32>)
  // CHECK-NEXT: %{{.*}}, %{{.*}} = graph.qr %[[B]] complete : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>)
  // CHECK-NEXT: %{{.*}}, %{{.*}} = graph.geqrf %[[W]] : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>)
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = graph.svd %[[W]] full_matrices : (tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<5x5xf32>)
  // CHECK-NEXT: %{{.*}}, %{{.*}} = graph.eigh %[[A]] : (tensor<2x4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4x4xf32>)
  %0 = graph.cholesky %a : tensor<2x4x4xf32>
  %1 = graph.triangular_solve %a, %b unitriangular upper : (tensor<2x4x4xf32>, tensor<4x3xf32>) -> tensor<2x4x3xf32>
  %2 = graph.triangular_solve %a, %c right : (tensor<2x4x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %3, %4, %5 = graph.lu %w : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xi32>, tensor<3x3xf32>)
  %6, %7 = graph.qr %b complete : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>)
  %g, %tau = graph.geqrf %w : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>)
  %8, %9, %10 = graph.svd %w full_matrices : (tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<5x5xf32>)
  %11, %12 = graph.eigh %a : (tensor<2x4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4x4xf32>)
  func.return
}
