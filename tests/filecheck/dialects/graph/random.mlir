// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// graph.random: Philox numbers of the result's shape from a [key, offset] seed.

// CHECK-LABEL: func.func @random
func.func @random(%seed: tensor<2xi64>) {
  // CHECK-NEXT: %{{.*}} = graph.random %{{.*}} distribution "uniform" : (tensor<2xi64>) -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.random %{{.*}} distribution "normal" : (tensor<2xi64>) -> tensor<3xbf16>
  // CHECK-NEXT: %{{.*}} = graph.random %{{.*}} distribution "bits" : (tensor<2xi64>) -> tensor<5xi64>
  %0 = graph.random %seed distribution "uniform" : (tensor<2xi64>) -> tensor<4x8xf32>
  %1 = graph.random %seed distribution "normal" : (tensor<2xi64>) -> tensor<3xbf16>
  %2 = graph.random %seed distribution "bits" : (tensor<2xi64>) -> tensor<5xi64>
  func.return
}
