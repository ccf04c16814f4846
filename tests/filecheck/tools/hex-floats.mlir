// RUN: fxdsl-run %s | filecheck %s
// RUN: fxdsl-opt %s | filecheck %s --check-prefix=ROUND

// A hexadecimal element of a float dense literal is the float's bit pattern,
// as in MLIR: the printer writes -inf and NaN so, and they must parse back as
// -inf and NaN (xDSL 0.74 read 0xFF800000 as 4286578688.0).
// exp([-inf, 2.0]) = [0, e^2]: sum 7.389..., mean |x| 3.69...

// CHECK:      @main: 1 result (random inputs, seed 0)
// CHECK-NEXT: result 0: tensor<2xf32> sum=7.38905{{[0-9]+}}e+00 mean_abs=3.69452{{[0-9]+}}e+00

// ROUND: graph.constant dense<[0xff800000, 2.000000e+00]> : tensor<2xf32>
// ROUND: graph.constant dense<[0x7fc0, 0xff80]> : tensor<2xbf16>

func.func @main() -> tensor<2xf32> {
  %c = graph.constant dense<[0xFF800000, 2.0]> : tensor<2xf32>
  %e = graph.exp %c : tensor<2xf32>
  func.return %e : tensor<2xf32>
}

func.func @nan() -> tensor<2xbf16> {
  %c = graph.constant dense<[0x7FC0, 0xFF80]> : tensor<2xbf16>
  func.return %c : tensor<2xbf16>
}
