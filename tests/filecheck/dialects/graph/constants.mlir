// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// graph.constant (a dense literal) and graph.full (one scalar, any dtype).

// CHECK-LABEL: func.func @constant
func.func @constant() {
  // CHECK-NEXT: %{{.*}} = graph.constant dense<1.000000e+00> : tensor<4xf32>
  // CHECK-NEXT: %{{.*}} = graph.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK-NEXT: %{{.*}} = graph.constant dense<true> : tensor<3xi1>
  // CHECK-NEXT: %{{.*}} = graph.constant {scope = #graph.scope<("m", 0, "M")>} dense<5.000000e-01> : tensor<2xf16>
  %0 = graph.constant dense<1.0> : tensor<4xf32>
  %1 = graph.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %2 = graph.constant dense<true> : tensor<3xi1>
  %3 = graph.constant {scope = #graph.scope<("m", 0, "M")>} dense<0.5> : tensor<2xf16>
  func.return
}

// CHECK-LABEL: func.func @full
func.func @full() {
  // CHECK-NEXT: %{{.*}} = graph.full value -inf : tensor<64x64xf32>
  // CHECK-NEXT: %{{.*}} = graph.full value inf : tensor<2xbf16>
  // CHECK-NEXT: %{{.*}} = graph.full value nan : tensor<2xf32>
  // CHECK-NEXT: %{{.*}} = graph.full value 3.000000e+00 : tensor<3x2xi32>
  // CHECK-NEXT: %{{.*}} = graph.full value 0.000000e+00 : tensor<i1>
  // CHECK-NEXT: %{{.*}} = graph.full value -2.500000e-01 : tensor<1xf16>
  %0 = graph.full value -inf : tensor<64x64xf32>
  %1 = graph.full value inf : tensor<2xbf16>
  %2 = graph.full value nan : tensor<2xf32>
  %3 = graph.full value 3.0 : tensor<3x2xi32>
  %4 = graph.full value 0.0 : tensor<i1>
  %5 = graph.full value -0.25 : tensor<1xf16>
  func.return
}

// CHECK-LABEL: func.func @arange
func.func @arange() {
  // CHECK-NEXT: %{{.*}} = graph.arange start 0.000000e+00 step 1.000000e+00 : tensor<8xi64>
  // CHECK-NEXT: %{{.*}} = graph.arange start 3.000000e+00 step -2.000000e+00 : tensor<4xi32>
  // CHECK-NEXT: %{{.*}} = graph.arange start 1.000000e-01 step 2.500000e-01 : tensor<0xbf16>
  %0 = graph.arange start 0.0 step 1.0 : tensor<8xi64>
  // Properties may come in any order; they print sorted by name.
  %1 = graph.arange step -2.0 start 3.0 : tensor<4xi32>
  %2 = graph.arange start 0.1 step 0.25 : tensor<0xbf16>
  func.return
}
