// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// Elementwise unary, binary, comparison and select ops: custom form, type
// inference and a round trip through the generic form.

// CHECK-LABEL: func.func @unary
func.func @unary() {
  %x = "test.op"() : () -> (tensor<4x8xf32>)
  %i = "test.op"() : () -> (tensor<4x8xi32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK:      %[[I:.*]] = "test.op"() : () -> tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.neg %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.neg %[[I]] : tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.abs %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.abs %[[I]] : tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.exp %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.log %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.sqrt %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.rsqrt %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.tanh %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.sigmoid %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.relu %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.relu %[[I]] : tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.silu %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.erf %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.sin %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.cos %[[X]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.reciprocal %[[X]] : tensor<4x8xf32>
  %0 = graph.neg %x : tensor<4x8xf32>
  %1 = graph.neg %i : tensor<4x8xi32>
  %2 = graph.abs %x : tensor<4x8xf32>
  %3 = graph.abs %i : tensor<4x8xi32>
  %4 = graph.exp %x : tensor<4x8xf32>
  %5 = graph.log %x : tensor<4x8xf32>
  %6 = graph.sqrt %x : tensor<4x8xf32>
  %7 = graph.rsqrt %x : tensor<4x8xf32>
  %8 = graph.tanh %x : tensor<4x8xf32>
  %9 = graph.sigmoid %x : tensor<4x8xf32>
  %10 = graph.relu %x : tensor<4x8xf32>
  %11 = graph.relu %i : tensor<4x8xi32>
  %12 = graph.silu %x : tensor<4x8xf32>
  %13 = graph.erf %x : tensor<4x8xf32>
  %14 = graph.sin %x : tensor<4x8xf32>
  %15 = graph.cos %x : tensor<4x8xf32>
  // The function-type signature is accepted and printed in the short form.
  %16 = graph.reciprocal %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return
}

// CHECK-LABEL: func.func @gelu
func.func @gelu() {
  %x = "test.op"() : () -> (tensor<8xbf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<8xbf16>
  // CHECK-NEXT: %{{.*}} = graph.gelu %[[X]] : tensor<8xbf16>
  // CHECK-NEXT: %{{.*}} = graph.gelu %[[X]] approximate "tanh" : tensor<8xbf16>
  // CHECK-NEXT: %{{.*}} = graph.gelu %[[X]] approximate "none" : tensor<8xbf16>
  %0 = graph.gelu %x : tensor<8xbf16>
  %1 = graph.gelu %x approximate "tanh" : tensor<8xbf16>
  %2 = graph.gelu %x approximate "none" : tensor<8xbf16>
  func.return
}

// CHECK-LABEL: func.func @cast
func.func @cast() {
  %x = "test.op"() : () -> (tensor<2x3xf32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x3xf32>
  // CHECK-NEXT: %[[H:.*]] = graph.cast %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xf16>
  // CHECK-NEXT: %[[I:.*]] = graph.cast %[[H]] : (tensor<2x3xf16>) -> tensor<2x3xi64>
  // CHECK-NEXT: %{{.*}} = graph.cast %[[I]] : (tensor<2x3xi64>) -> tensor<2x3xi1>
  // CHECK-NEXT: %{{.*}} = graph.cast %[[X]] : tensor<2x3xf32>
  %h = graph.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %i = graph.cast %h : (tensor<2x3xf16>) -> tensor<2x3xi64>
  %b = graph.cast %i : (tensor<2x3xi64>) -> tensor<2x3xi1>
  %same = graph.cast %x : tensor<2x3xf32>
  func.return
}

// CHECK-LABEL: func.func @bitcast
func.func @bitcast() {
  %x = "test.op"() : () -> (tensor<2x3xf32>)
  %h = "test.op"() : () -> (tensor<4xbf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x3xf32>
  // CHECK-NEXT: %[[H:.*]] = "test.op"() : () -> tensor<4xbf16>
  // CHECK-NEXT: %[[I:.*]] = graph.bitcast %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %{{.*}} = graph.bitcast %[[I]] : (tensor<2x3xi32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.bitcast %[[H]] : (tensor<4xbf16>) -> tensor<4xi16>
  %i = graph.bitcast %x : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %back = graph.bitcast %i : (tensor<2x3xi32>) -> tensor<2x3xf32>
  %bits = graph.bitcast %h : (tensor<4xbf16>) -> tensor<4xi16>
  func.return
}

// CHECK-LABEL: func.func @binary
func.func @binary() {
  %a = "test.op"() : () -> (tensor<4x8xf32>)
  %b = "test.op"() : () -> (tensor<8xf32>)
  %c = "test.op"() : () -> (tensor<4x1xf32>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %[[C:.*]] = "test.op"() : () -> tensor<4x1xf32>
  // CHECK-NEXT: %{{.*}} = graph.add %[[A]], %[[A]] : tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.sub %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.mul %[[B]], %[[C]] : (tensor<8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.div %[[C]], %[[A]] : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.pow %[[A]], %[[C]] : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.maximum %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.minimum %[[C]], %[[C]] : tensor<4x1xf32>
  %0 = graph.add %a, %a : tensor<4x8xf32>
  %1 = graph.sub %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = graph.mul %b, %c : (tensor<8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %3 = graph.div %c, %a : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.pow %a, %c : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %5 = graph.maximum %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = graph.minimum %c, %c : tensor<4x1xf32>
  func.return
}

// Float functions of one and two operands (lowered to one `math` op each).
// CHECK-LABEL: func.func @float_math
func.func @float_math() {
  %x = "test.op"() : () -> (tensor<4x8xf16>)
  %b = "test.op"() : () -> (tensor<8xf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf16>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8xf16>
  // CHECK-NEXT: %{{.*}} = graph.tan %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.acos %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.asin %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.atan %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.sinh %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.cosh %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.asinh %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.acosh %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.atanh %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.exp2 %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.log2 %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.log10 %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.atan2 %[[X]], %[[B]] : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.copysign %[[X]], %[[B]] : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.fmod %[[X]], %[[B]] : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.remainder %[[X]], %[[B]] : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %0 = graph.tan %x : tensor<4x8xf16>
  %1 = graph.acos %x : tensor<4x8xf16>
  %2 = graph.asin %x : tensor<4x8xf16>
  %3 = graph.atan %x : tensor<4x8xf16>
  %4 = graph.sinh %x : tensor<4x8xf16>
  %5 = graph.cosh %x : tensor<4x8xf16>
  %6 = graph.asinh %x : tensor<4x8xf16>
  %7 = graph.acosh %x : tensor<4x8xf16>
  %8 = graph.atanh %x : tensor<4x8xf16>
  %9 = graph.exp2 %x : tensor<4x8xf16>
  %10 = graph.log2 %x : tensor<4x8xf16>
  %11 = graph.log10 %x : tensor<4x8xf16>
  %12 = graph.atan2 %x, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %13 = graph.copysign %x, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %14 = graph.fmod %x, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %15 = graph.remainder %x, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  func.return
}

// CHECK-LABEL: func.func @integer_binary
func.func @integer_binary() {
  %a = "test.op"() : () -> (tensor<3xi64>)
  // CHECK: graph.div %{{.*}}, %{{.*}} : tensor<3xi64>
  %0 = graph.div %a, %a : tensor<3xi64>
  func.return
}

// CHECK-LABEL: func.func @compare
func.func @compare() {
  %a = "test.op"() : () -> (tensor<4x8xf32>)
  %b = "test.op"() : () -> (tensor<8xf32>)
  %n = "test.op"() : () -> (tensor<5xi32>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %[[N:.*]] = "test.op"() : () -> tensor<5xi32>
  // CHECK-NEXT: %{{.*}} = graph.eq %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.ne %[[A]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.lt %[[B]], %[[A]] : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.le %[[N]], %[[N]] : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
  // CHECK-NEXT: %{{.*}} = graph.gt %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.ge %[[B]], %[[B]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %0 = graph.eq %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %1 = graph.ne %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %2 = graph.lt %b, %a : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %3 = graph.le %n, %n : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
  %4 = graph.gt %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %5 = graph.ge %b, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  func.return
}

// CHECK-LABEL: func.func @select
func.func @select() {
  %c = "test.op"() : () -> (tensor<4x1xi1>)
  %a = "test.op"() : () -> (tensor<4x8xf32>)
  %b = "test.op"() : () -> (tensor<8xf32>)
  // CHECK:      %[[C:.*]] = "test.op"() : () -> tensor<4x1xi1>
  // CHECK-NEXT: %[[A:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %{{.*}} = graph.select %[[C]], %[[A]], %[[B]] : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = graph.select %c, %a, %b : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return
}

// CHECK-LABEL: func.func @logical
func.func @logical() {
  %a = "test.op"() : () -> (tensor<4x1xi1>)
  %b = "test.op"() : () -> (tensor<8xi1>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<4x1xi1>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8xi1>
  // CHECK-NEXT: %[[AND:.*]] = graph.logical_and %[[A]], %[[B]] : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.logical_or %[[AND]], %[[B]] : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  // CHECK-NEXT: %{{.*}} = graph.logical_not %[[B]] : tensor<8xi1>
  %0 = graph.logical_and %a, %b : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  %1 = graph.logical_or %0, %b : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
  %2 = graph.logical_not %b : tensor<8xi1>
  func.return
}

// CHECK-LABEL: func.func @bitwise
func.func @bitwise() {
  %a = "test.op"() : () -> (tensor<4x1xi32>)
  %b = "test.op"() : () -> (tensor<8xi32>)
  %u = "test.op"() : () -> (tensor<8xui8>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<4x1xi32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8xi32>
  // CHECK-NEXT: %[[U:.*]] = "test.op"() : () -> tensor<8xui8>
  // CHECK-NEXT: %[[AND:.*]] = graph.bitwise_and %[[A]], %[[B]] : (tensor<4x1xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.bitwise_or %[[AND]], %[[B]] : (tensor<4x8xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.bitwise_xor %[[B]], %[[B]] : tensor<8xi32>
  // CHECK-NEXT: %{{.*}} = graph.bitwise_not %[[U]] : tensor<8xui8>
  // CHECK-NEXT: %{{.*}} = graph.shift_left %[[A]], %[[B]] : (tensor<4x1xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %{{.*}} = graph.shift_right %[[U]], %[[U]] : tensor<8xui8>
  // CHECK-NEXT: %{{.*}} = graph.gcd %[[A]], %[[B]] : (tensor<4x1xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  %0 = graph.bitwise_and %a, %b : (tensor<4x1xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  %1 = graph.bitwise_or %0, %b : (tensor<4x8xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  %2 = graph.bitwise_xor %b, %b : tensor<8xi32>
  %3 = graph.bitwise_not %u : tensor<8xui8>
  %4 = graph.shift_left %a, %b : (tensor<4x1xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  %5 = graph.shift_right %u, %u : tensor<8xui8>
  %6 = graph.gcd %a, %b : (tensor<4x1xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  func.return
}

// CHECK-LABEL: func.func @clamp_and_hard_activations
func.func @clamp_and_hard_activations() {
  %x = "test.op"() : () -> (tensor<4x8xf16>)
  %i = "test.op"() : () -> (tensor<8xi64>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf16>
  // CHECK-NEXT: %[[I:.*]] = "test.op"() : () -> tensor<8xi64>
  // CHECK-NEXT: %{{.*}} = graph.clamp %[[X]] max 6.000000e+00 min 0.000000e+00 : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.clamp %[[X]] min -inf : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.clamp %[[I]] max 3.000000e+00 : tensor<8xi64>
  // CHECK-NEXT: %{{.*}} = graph.hardswish %[[X]] : tensor<4x8xf16>
  // CHECK-NEXT: %{{.*}} = graph.hardsigmoid %[[X]] : tensor<4x8xf16>
  %0 = graph.clamp %x min 0.0 max 6.0 : tensor<4x8xf16>
  %1 = graph.clamp %x min -inf : tensor<4x8xf16>
  %2 = graph.clamp %i max 3.0 : tensor<8xi64>
  %3 = graph.hardswish %x : tensor<4x8xf16>
  %4 = graph.hardsigmoid %x : tensor<4x8xf16>
  func.return
}
