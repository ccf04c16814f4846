// RUN: fxdsl-run %s | filecheck %s
// RUN: fxdsl-run %s -p cse,dce --check | filecheck %s --check-prefix=CHECK-CMP
// RUN: fxdsl-run %s --entry @ints | filecheck %s --check-prefix=CHECK-INTS
// RUN: not fxdsl-run %s --entry nope 2>&1 | filecheck %s --check-prefix=CHECK-ERR

// Constant inputs, so the checksums are exact and known by hand:
// squares [1, 4, 9, 0.25]: sum 14.25, mean |x| 3.5625, weights [1, 4/3, 5/3, 2].

// CHECK:      @main: 2 results (random inputs, seed 0)
// CHECK-NEXT: result 0: tensor<4xf32> sum=1.425000000e+01 mean_abs=3.562500000e+00 wsum=2.183333333e+01
// CHECK-NEXT: result 1: tensor<4xi1> sum=2.000000000e+00 mean_abs=5.000000000e-01 wsum=3.000000000e+00

// CHECK-CMP:      check 0: max_abs_diff=0.000e+00 max_rel_diff=0.000e+00 (rtol=1e-05 atol=1e-06) ok
// CHECK-CMP-NEXT: check 1: max_abs_diff=0.000e+00 max_rel_diff=0.000e+00 (rtol=0 atol=0) ok

func.func @main() -> (tensor<4xf32>, tensor<4xi1>) {
  %c = graph.constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %a = graph.mul %c, %c : tensor<4xf32>
  %b = graph.mul %c, %c : tensor<4xf32>
  %one = graph.full value 1.0 : tensor<4xf32>
  %gt = graph.gt %b, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %a, %gt : tensor<4xf32>, tensor<4xi1>
}

// Integer division floors: [7, -7, 7, -7] // [2, 2, -2, -2] = [3, -4, -4, 3].
// CHECK-INTS:      @ints: 1 result (random inputs, seed 0)
// CHECK-INTS-NEXT: result 0: tensor<4xi32> sum=-2.000000000e+00 mean_abs=3.500000000e+00 wsum=-3.000000000e+00

func.func @ints() -> tensor<4xi32> {
  %a = graph.constant dense<[7, -7, 7, -7]> : tensor<4xi32>
  %b = graph.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %q = graph.div %a, %b : tensor<4xi32>
  func.return %q : tensor<4xi32>
}

// CHECK-ERR: fxdsl-run.mlir: error: no function @nope in the module (functions: @main, @ints)
