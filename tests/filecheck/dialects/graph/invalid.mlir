// RUN: fxdsl-opt %s --verify-diagnostics --split-input-file | filecheck %s

// One chunk per verifier rule of the graph dialect, each checked for its exact
// message and location. Every CHECK names its own line, so a chunk that
// verifies (and prints no error) fails the test.

// graph.exp takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.exp: expects a float tensor, got tensor<4xi32>
%y = graph.exp %x : tensor<4xi32>

// -----

// graph.fmod (a float function of two operands) takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fmod: expects float tensors, got tensor<4xi32>
%y = graph.fmod %x, %x : tensor<4xi32>

// -----

// graph.log takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.log: expects a float tensor, got tensor<4xi32>
%y = graph.log %x : tensor<4xi32>

// -----

// graph.sqrt takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.sqrt: expects a float tensor, got tensor<4xi32>
%y = graph.sqrt %x : tensor<4xi32>

// -----

// graph.rsqrt takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.rsqrt: expects a float tensor, got tensor<4xi32>
%y = graph.rsqrt %x : tensor<4xi32>

// -----

// graph.tanh takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.tanh: expects a float tensor, got tensor<4xi32>
%y = graph.tanh %x : tensor<4xi32>

// -----

// graph.sigmoid takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.sigmoid: expects a float tensor, got tensor<4xi32>
%y = graph.sigmoid %x : tensor<4xi32>

// -----

// graph.silu takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.silu: expects a float tensor, got tensor<4xi32>
%y = graph.silu %x : tensor<4xi32>

// -----

// graph.erf takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.erf: expects a float tensor, got tensor<4xi32>
%y = graph.erf %x : tensor<4xi32>

// -----

// graph.sin takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.sin: expects a float tensor, got tensor<4xi32>
%y = graph.sin %x : tensor<4xi32>

// -----

// graph.cos takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.cos: expects a float tensor, got tensor<4xi32>
%y = graph.cos %x : tensor<4xi32>

// -----

// graph.reciprocal takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.reciprocal: expects a float tensor, got tensor<4xi32>
%y = graph.reciprocal %x : tensor<4xi32>

// -----

// graph.gelu takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gelu: expects a float tensor, got tensor<4xi32>
%y = graph.gelu %x : tensor<4xi32>

// -----

// graph.neg: declared result type differs from the inferred one.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.neg: result type tensor<4xf16> does not match inferred type tensor<4xf32> (operands: tensor<4xf32>)
%y = graph.neg %x : (tensor<4xf32>) -> tensor<4xf16>

// -----

// graph.abs: complex<f32> is not a graph element type.
%x = "test.op"() : () -> (tensor<4xcomplex<f32>>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.abs: operand type tensor<4xcomplex<f32>> is not a supported tensor
%y = graph.abs %x : tensor<4xcomplex<f32>>

// -----

// graph.relu: the shape is kept.
%x = "test.op"() : () -> (tensor<4x2xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.relu: result type tensor<8xi32> does not match inferred type tensor<4x2xi32> (operands: tensor<4x2xi32>)
%y = graph.relu %x : (tensor<4x2xi32>) -> tensor<8xi32>

// -----

// graph.relu: operands must be tensors.
%x = "test.op"() : () -> (memref<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.relu: operand 'input' at position 0 does not verify: memref<4xf32> should be of base attribute tensor
%y = "graph.relu"(%x) : (memref<4xf32>) -> tensor<4xf32>

// -----

// graph.gelu: approximate is "none" or "tanh".
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gelu: approximate must be "none" or "tanh", got "fast" (operands: tensor<4xf32>)
%y = graph.gelu %x approximate "fast" : tensor<4xf32>

// -----

// graph.cast: the target element type must be a graph element type.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.cast: unsupported target element type ui16 (operands: tensor<4xf32>)
%y = graph.cast %x : (tensor<4xf32>) -> tensor<4xui16>

// -----

// graph.cast: the shape is kept.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.cast: result type tensor<2xf16> does not match inferred type tensor<4xf16> (operands: tensor<4xf32>)
%y = graph.cast %x : (tensor<4xf32>) -> tensor<2xf16>

// -----

// graph.bitcast: the element widths must agree.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.bitcast: element widths differ: tensor<4xf32> has 32 bits, tensor<4xbf16> 16
%y = graph.bitcast %x : (tensor<4xf32>) -> tensor<4xbf16>

// -----

// graph.bitcast: i1 has no bits to reinterpret.
%x = "test.op"() : () -> (tensor<4xi8>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.bitcast: expects element types other than i1, got tensor<4xi8> to tensor<4xi1>
%y = graph.bitcast %x : (tensor<4xi8>) -> tensor<4xi1>

// -----

// graph.add: shapes must broadcast.
%a = "test.op"() : () -> (tensor<4x8xf32>)
%b = "test.op"() : () -> (tensor<3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.add: shapes (4, 8), (3,) do not broadcast (operands: tensor<4x8xf32>, tensor<3xf32>)
%c = graph.add %a, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>

// -----

// graph.sub: operands share one element type.
%a = "test.op"() : () -> (tensor<4xf32>)
%b = "test.op"() : () -> (tensor<4xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.sub: element types differ: lhs tensor<4xf32>, rhs tensor<4xf16>
%c = graph.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>

// -----

// graph.mul: the result has the broadcast shape.
%a = "test.op"() : () -> (tensor<4x1xf32>)
%b = "test.op"() : () -> (tensor<8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.mul: result type tensor<4x1xf32> does not match inferred type tensor<4x8xf32> (operands: tensor<4x1xf32>, tensor<8xf32>)
%c = graph.mul %a, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>

// -----

// graph.div: operands share one element type.
%a = "test.op"() : () -> (tensor<4xi64>)
%b = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.div: element types differ: lhs tensor<4xi64>, rhs tensor<4xi32>
%c = graph.div %a, %b : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi64>

// -----

// graph.pow: shapes must broadcast.
%a = "test.op"() : () -> (tensor<2x3xf32>)
%b = "test.op"() : () -> (tensor<3x2xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.pow: shapes (2, 3), (3, 2) do not broadcast (operands: tensor<2x3xf32>, tensor<3x2xf32>)
%c = graph.pow %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>

// -----

// graph.maximum: the result keeps the operand element type.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.maximum: result type tensor<4xi1> does not match inferred type tensor<4xf32> (operands: tensor<4xf32>, tensor<4xf32>)
%c = graph.maximum %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>

// -----

// graph.minimum: i128 is not a graph element type.
%a = "test.op"() : () -> (tensor<4xi128>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.minimum: operand type tensor<4xi128> is not a supported tensor
%c = graph.minimum %a, %a : tensor<4xi128>

// -----

// graph.eq: comparisons give i1.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.eq: result type tensor<4xf32> does not match inferred type tensor<4xi1> (operands: tensor<4xf32>, tensor<4xf32>)
%c = graph.eq %a, %a : tensor<4xf32>

// -----

// graph.ne: comparisons give i1.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.ne: result type tensor<4xf32> does not match inferred type tensor<4xi1> (operands: tensor<4xf32>, tensor<4xf32>)
%c = graph.ne %a, %a : tensor<4xf32>

// -----

// graph.lt: comparisons give i1.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.lt: result type tensor<4xf32> does not match inferred type tensor<4xi1> (operands: tensor<4xf32>, tensor<4xf32>)
%c = graph.lt %a, %a : tensor<4xf32>

// -----

// graph.le: comparisons give i1.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.le: result type tensor<4xf32> does not match inferred type tensor<4xi1> (operands: tensor<4xf32>, tensor<4xf32>)
%c = graph.le %a, %a : tensor<4xf32>

// -----

// graph.gt: shapes must broadcast.
%a = "test.op"() : () -> (tensor<4xf32>)
%b = "test.op"() : () -> (tensor<5xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gt: shapes (4,), (5,) do not broadcast (operands: tensor<4xf32>, tensor<5xf32>)
%c = graph.gt %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<5xi1>

// -----

// graph.ge: operands share one element type.
%a = "test.op"() : () -> (tensor<4xi32>)
%b = "test.op"() : () -> (tensor<4xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.ge: element types differ: lhs tensor<4xi32>, rhs tensor<4xi64>
%c = graph.ge %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi1>

// -----

// graph.select: the condition is i1.
%c = "test.op"() : () -> (tensor<4xf32>)
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.select: condition must be i1, got tensor<4xf32>
%r = graph.select %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// -----

// graph.select: both branches share one element type.
%c = "test.op"() : () -> (tensor<4xi1>)
%a = "test.op"() : () -> (tensor<4xf32>)
%b = "test.op"() : () -> (tensor<4xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.select: element types differ: lhs tensor<4xf32>, rhs tensor<4xf16> (operands: tensor<4xi1>, tensor<4xf32>, tensor<4xf16>)
%r = graph.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>

// -----

// graph.select: all three operands broadcast together.
%c = "test.op"() : () -> (tensor<3xi1>)
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.select: shapes (3,), (4,), (4,) do not broadcast (operands: tensor<3xi1>, tensor<4xf32>, tensor<4xf32>)
%r = graph.select %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// -----

// graph.sum: dims must be in range.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.sum: dim 2 out of range for rank 2 (operands: tensor<4x8xf32>)
%s = graph.sum %x dims [2] : (tensor<4x8xf32>) -> tensor<4xf32>

// -----

// graph.sum: dims must not repeat.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.sum: dims [1, 1] repeat a dim (operands: tensor<4x8xf32>)
%s = graph.sum %x dims [1, 1] : (tensor<4x8xf32>) -> tensor<4xf32>

// -----

// graph.mean takes floats only.
%x = "test.op"() : () -> (tensor<4x8xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.mean: expects a float tensor, got tensor<4x8xi64>
%s = graph.mean %x dims [1] : (tensor<4x8xi64>) -> tensor<4xi64>

// -----

// graph.max: keepdim keeps reduced dims as size 1.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.max: result type tensor<4xf32> does not match inferred type tensor<4x1xf32> (operands: tensor<4x8xf32>)
%s = graph.max %x dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4xf32>

// -----

// graph.min: negative dims are rejected.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.min: dim -1 out of range for rank 2 (operands: tensor<4x8xf32>)
%s = graph.min %x dims [-1] : (tensor<4x8xf32>) -> tensor<4xf32>

// -----

// graph.var takes floats only.
%x = "test.op"() : () -> (tensor<4x8xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.var: expects a float tensor, got tensor<4x8xi32>
%s = graph.var %x dims [1] : (tensor<4x8xi32>) -> tensor<4xi32>

// -----

// graph.softmax: dim must be in range.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.softmax: dim 2 out of range for rank 2 (operands: tensor<4x8xf32>)
%y = graph.softmax %x dim 2 : tensor<4x8xf32>

// -----

// graph.log_softmax takes floats only.
%x = "test.op"() : () -> (tensor<4x8xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.log_softmax: expects a float tensor, got tensor<4x8xi32>
%y = graph.log_softmax %x dim 1 : tensor<4x8xi32>

// -----

// graph.layer_norm: weight gives the trailing dims of the input.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.layer_norm: weight shape (4,) is not a trailing part of (4, 8) (operands: tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
%y = graph.layer_norm %x, %w, %w eps 1.0e-05 : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>

// -----

// graph.layer_norm: bias has the weight's shape.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<8xf32>)
%b = "test.op"() : () -> (tensor<1xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.layer_norm: bias shape (1,) != weight shape (8,) (operands: tensor<4x8xf32>, tensor<8xf32>, tensor<1xf32>)
%y = graph.layer_norm %x, %w, %b eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<1xf32>) -> tensor<4x8xf32>

// -----

// graph.layer_norm: one float type for all operands.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<8xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.layer_norm: input, weight and bias must share one float type (operands: tensor<4x8xf32>, tensor<8xf16>, tensor<8xf16>)
%y = graph.layer_norm %x, %w, %w eps 1.0e-05 : (tensor<4x8xf32>, tensor<8xf16>, tensor<8xf16>) -> tensor<4x8xf32>

// -----

// graph.matmul: contracting dims must agree; the message names both types.
%a = "test.op"() : () -> (tensor<4x8xf32>)
%b = "test.op"() : () -> (tensor<7x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.matmul: contracting dims differ: lhs tensor<4x8xf32> has 8, rhs tensor<7x3xf32> has 7
%c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>

// -----

// graph.matmul: batch dims must broadcast.
%a = "test.op"() : () -> (tensor<2x4x8xf32>)
%b = "test.op"() : () -> (tensor<3x8x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.matmul: shapes (2,), (3,) do not broadcast (operands: tensor<2x4x8xf32>, tensor<3x8x3xf32>)
%c = graph.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x3xf32>) -> tensor<2x4x3xf32>

// -----

// graph.matmul: rank-0 operands are rejected.
%a = "test.op"() : () -> (tensor<f32>)
%b = "test.op"() : () -> (tensor<8x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.matmul: operands must have rank >= 1: lhs tensor<f32>, rhs tensor<8x3xf32>
%c = graph.matmul %a, %b : (tensor<f32>, tensor<8x3xf32>) -> tensor<3xf32>

// -----

// graph.matmul: operands share one element type.
%a = "test.op"() : () -> (tensor<4x8xf32>)
%b = "test.op"() : () -> (tensor<8x3xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.matmul: element types differ: lhs tensor<4x8xf32>, rhs tensor<8x3xf16>
%c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf16>) -> tensor<4x3xf32>

// -----

// graph.matmul: only 16-bit operands may widen their product, and only to f32.
%a = "test.op"() : () -> (tensor<4x8xbf16>)
%b = "test.op"() : () -> (tensor<8x3xbf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.matmul: result element type f16 must be the operands' (bf16), or f32 for bf16/f16 operands (operands: tensor<4x8xbf16>, tensor<8x3xbf16>)
%c = graph.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf16>

// -----

%a = "test.op"() : () -> (tensor<4x8xf32>)
%b = "test.op"() : () -> (tensor<8x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.matmul: result element type f64 must be the operands' (f32), or f32 for bf16/f16 operands (operands: tensor<4x8xf32>, tensor<8x3xf32>)
%c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf64>

// -----

// graph.linear: input features equal weight in-features.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<3x5xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.linear: input features 8 != weight in-features 5 (operands: tensor<4x8xf32>, tensor<3x5xf32>)
%y = graph.linear %x, %w : (tensor<4x8xf32>, tensor<3x5xf32>) -> tensor<4x3xf32>

// -----

// graph.linear: weight is 2-D.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.linear: weight must be 2-D (out, in), got rank 1 (operands: tensor<4x8xf32>, tensor<8xf32>)
%y = graph.linear %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>

// -----

// graph.linear: bias has shape (out,).
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<3x8xf32>)
%b = "test.op"() : () -> (tensor<8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.linear: bias must have shape (3,), got (8,) (operands: tensor<4x8xf32>, tensor<3x8xf32>, tensor<8xf32>)
%y = graph.linear %x, %w, %b : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> tensor<4x3xf32>

// -----

// graph.linear: one element type.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%w = "test.op"() : () -> (tensor<3x8xbf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.linear: input, weight and bias must share one element type (operands: tensor<4x8xf32>, tensor<3x8xbf16>)
%y = graph.linear %x, %w : (tensor<4x8xf32>, tensor<3x8xbf16>) -> tensor<4x3xf32>

// -----

// graph.reshape keeps the element count.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.reshape: element count differs: (4, 8) has 32, (30,) has 30 (operands: tensor<4x8xf32>)
%y = graph.reshape %x : (tensor<4x8xf32>) -> tensor<30xf32>

// -----

// graph.reshape keeps the element type.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.reshape: element type changes: tensor<4x8xf32> -> tensor<32xf16>
%y = graph.reshape %x : (tensor<4x8xf32>) -> tensor<32xf16>

// -----

// graph.transpose: perm is a permutation of the dims.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.transpose: perm [0, 0] is not a permutation of rank 2 (operands: tensor<4x8xf32>)
%y = graph.transpose %x perm [0, 0] : (tensor<4x8xf32>) -> tensor<4x4xf32>

// -----

// graph.transpose: perm has one entry per dim.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.transpose: perm [1, 0, 2] is not a permutation of rank 2 (operands: tensor<4x8xf32>)
%y = graph.transpose %x perm [1, 0, 2] : (tensor<4x8xf32>) -> tensor<8x4xf32>

// -----

// graph.transpose: the result is the permuted shape.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.transpose: result type tensor<4x8xf32> does not match inferred type tensor<8x4xf32> (operands: tensor<4x8xf32>)
%y = graph.transpose %x perm [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>

// -----

// graph.broadcast_to: numpy broadcast rules.
%x = "test.op"() : () -> (tensor<3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.broadcast_to: cannot broadcast (3,) to (4, 8) (operands: tensor<3xf32>)
%y = graph.broadcast_to %x : (tensor<3xf32>) -> tensor<4x8xf32>

// -----

// graph.broadcast_to: the rank cannot shrink.
%x = "test.op"() : () -> (tensor<1x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.broadcast_to: cannot broadcast (1, 8) to (8,) (operands: tensor<1x8xf32>)
%y = graph.broadcast_to %x : (tensor<1x8xf32>) -> tensor<8xf32>

// -----

// graph.slice: limit within the dim size.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.slice: dim 1: need 0 <= start <= limit <= 8 and step >= 1, got start 0, limit 9, step 1 (operands: tensor<4x8xf32>)
%y = graph.slice %x start [0, 0] limit [4, 9] step [1, 1] : (tensor<4x8xf32>) -> tensor<4x9xf32>

// -----

// graph.slice: start <= limit.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.slice: dim 0: need 0 <= start <= limit <= 4 and step >= 1, got start 3, limit 1, step 1 (operands: tensor<4x8xf32>)
%y = graph.slice %x start [3, 0] limit [1, 8] step [1, 1] : (tensor<4x8xf32>) -> tensor<0x8xf32>

// -----

// graph.slice: step >= 1.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.slice: dim 1: need 0 <= start <= limit <= 8 and step >= 1, got start 0, limit 8, step 0 (operands: tensor<4x8xf32>)
%y = graph.slice %x start [0, 0] limit [4, 8] step [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>

// -----

// graph.slice: one start/limit/step entry per dim.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.slice: start/limit/step need 2 entries each, got 1/1/1 (operands: tensor<4x8xf32>)
%y = graph.slice %x start [0] limit [4] step [1] : (tensor<4x8xf32>) -> tensor<4x8xf32>

// -----

// graph.slice: the result has the sliced shape.
%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.slice: result type tensor<4x8xf32> does not match inferred type tensor<2x4xf32> (operands: tensor<4x8xf32>)
%y = graph.slice %x start [0, 0] limit [4, 8] step [2, 2] : (tensor<4x8xf32>) -> tensor<4x8xf32>

// -----

// graph.concat: inputs agree outside the concat dim.
%a = "test.op"() : () -> (tensor<2x8xf32>)
%b = "test.op"() : () -> (tensor<3x7xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.concat: inputs (2, 8), (3, 7) differ outside concat dim 0 (operands: tensor<2x8xf32>, tensor<3x7xf32>)
%y = graph.concat %a, %b dim 0 : (tensor<2x8xf32>, tensor<3x7xf32>) -> tensor<5x8xf32>

// -----

// graph.concat: inputs have one rank.
%a = "test.op"() : () -> (tensor<2x8xf32>)
%b = "test.op"() : () -> (tensor<8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.concat: inputs (2, 8), (8,) differ outside concat dim 0 (operands: tensor<2x8xf32>, tensor<8xf32>)
%y = graph.concat %a, %b dim 0 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>

// -----

// graph.concat: dim in range.
%a = "test.op"() : () -> (tensor<2x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.concat: dim 2 out of range for rank 2 (operands: tensor<2x8xf32>, tensor<2x8xf32>)
%y = graph.concat %a, %a dim 2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>

// -----

// graph.concat: one element type.
%a = "test.op"() : () -> (tensor<2x8xf32>)
%b = "test.op"() : () -> (tensor<2x8xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.concat: inputs must share one element type (operands: tensor<2x8xf32>, tensor<2x8xf16>)
%y = graph.concat %a, %b dim 0 : (tensor<2x8xf32>, tensor<2x8xf16>) -> tensor<4x8xf32>

// -----

// graph.concat: needs at least one input.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.concat: needs at least one input
%y = "graph.concat"() <{dim = 0 : i64}> : () -> tensor<2xf32>

// -----

// graph.split: sizes sum to the dim size.
%x = "test.op"() : () -> (tensor<5x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.split: sizes [2, 2] must be >= 0 and sum to dim 0 size 5 (operands: tensor<5x8xf32>)
%a, %b = graph.split %x dim 0 sizes [2, 2] : (tensor<5x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>)

// -----

// graph.split: sizes are not negative.
%x = "test.op"() : () -> (tensor<5x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.split: sizes [6, -1] must be >= 0 and sum to dim 0 size 5 (operands: tensor<5x8xf32>)
%a, %b = graph.split %x dim 0 sizes [6, -1] : (tensor<5x8xf32>) -> (tensor<6x8xf32>, tensor<1x8xf32>)

// -----

// graph.split: dim in range.
%x = "test.op"() : () -> (tensor<5x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.split: dim 3 out of range for rank 2 (operands: tensor<5x8xf32>)
%a = graph.split %x dim 3 sizes [5] : (tensor<5x8xf32>) -> tensor<5x8xf32>

// -----

// graph.split: one result per size.
%x = "test.op"() : () -> (tensor<5x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.split: result type tensor<2x8xf32> does not match inferred type tensor<2x8xf32>, tensor<3x8xf32> (operands: tensor<5x8xf32>)
%a = graph.split %x dim 0 sizes [2, 3] : (tensor<5x8xf32>) -> tensor<2x8xf32>

// -----

// graph.gather: the index is i64 or i32.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%i = "test.op"() : () -> (tensor<4x2xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gather: index must be i64 or i32, got tensor<4x2xf32> (operands: tensor<4x8xf32>, tensor<4x2xf32>)
%y = graph.gather %x, %i dim 1 : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>

// -----

// graph.gather: the index has the input's rank.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gather: index rank 1 != input rank 2 (operands: tensor<4x8xf32>, tensor<2xi64>)
%y = graph.gather %x, %i dim 0 : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2xf32>

// -----

// graph.gather: index dims other than dim fit in the input.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%i = "test.op"() : () -> (tensor<5x2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gather: index dim 0 size 5 exceeds input size 4 (operands: tensor<4x8xf32>, tensor<5x2xi64>)
%y = graph.gather %x, %i dim 1 : (tensor<4x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>

// -----

// graph.gather: dim in range.
%x = "test.op"() : () -> (tensor<4x8xf32>)
%i = "test.op"() : () -> (tensor<4x2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gather: dim 2 out of range for rank 2 (operands: tensor<4x8xf32>, tensor<4x2xi64>)
%y = graph.gather %x, %i dim 2 : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>

// -----

// graph.embedding: the weight is 2-D.
%ids = "test.op"() : () -> (tensor<1x4xi64>)
%w = "test.op"() : () -> (tensor<10x4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.embedding: weight must be 2-D (num, dim), got rank 3 (operands: tensor<1x4xi64>, tensor<10x4x8xf32>)
%y = graph.embedding %ids, %w : (tensor<1x4xi64>, tensor<10x4x8xf32>) -> tensor<1x4x8xf32>

// -----

// graph.embedding: indices are i64 or i32.
%ids = "test.op"() : () -> (tensor<1x4xf32>)
%w = "test.op"() : () -> (tensor<10x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.embedding: indices must be i64 or i32, got tensor<1x4xf32> (operands: tensor<1x4xf32>, tensor<10x8xf32>)
%y = graph.embedding %ids, %w : (tensor<1x4xf32>, tensor<10x8xf32>) -> tensor<1x4x8xf32>

// -----

// graph.embedding: the result is indices shape + embedding dim.
%ids = "test.op"() : () -> (tensor<1x4xi64>)
%w = "test.op"() : () -> (tensor<10x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.embedding: result type tensor<4x8xf32> does not match inferred type tensor<1x4x8xf32> (operands: tensor<1x4xi64>, tensor<10x8xf32>)
%y = graph.embedding %ids, %w : (tensor<1x4xi64>, tensor<10x8xf32>) -> tensor<4x8xf32>

// -----

// graph.constant: the result type is the value's type (generic form).
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.constant: result type tensor<3xf32> does not match inferred type tensor<4xf32>
%c = "graph.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<3xf32>

// -----

// graph.constant: ui16 is not a graph element type.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.constant: unsupported element type tensor<4xui16>
%c = graph.constant dense<1> : tensor<4xui16>

// -----

// graph.full: ui16 is not a graph element type.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.full: unsupported element type tensor<4xui16>
%c = graph.full value 1.0 : tensor<4xui16>

// -----

// graph.add: two operands (generic form).
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.add: Expected 2 operands, but got 1
%c = "graph.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>

// -----

// graph.full: the value property is required (generic form).
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: property 'value' expected in operation 'graph.full'
%c = "graph.full"() : () -> tensor<4xf32>

// -----

// graph.fusion_group: block arguments have the input types.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fusion_group: block argument types (tensor<4xf16>) differ from input types (tensor<4xf32>)
%r = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf16>):
  %n = graph.neg %a : tensor<4xf16>
  graph.yield %n : tensor<4xf16>
}

// -----

// graph.fusion_group: one block argument per input.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fusion_group: block argument types (tensor<4xf32>) differ from input types (tensor<4xf32>, tensor<4xf32>)
%r = graph.fusion_group (%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>):
  graph.yield %a : tensor<4xf32>
}

// -----

// graph.fusion_group: yielded types are the result types.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fusion_group: yielded types (tensor<f32>) differ from result types (tensor<4xf32>)
%r = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>):
  %s = graph.sum %a dims [0] : (tensor<4xf32>) -> tensor<f32>
  graph.yield %s : tensor<f32>
}

// -----

// graph.fusion_group: one yielded value per result.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fusion_group: yielded types (tensor<4xf32>, tensor<4xf32>) differ from result types (tensor<4xf32>)
%r = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>):
  graph.yield %a, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// graph.fusion_group: isolated from above.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fusion_group: Operation using value defined out of its IsolatedFromAbove parent: NegOp(%n = graph.neg %x : tensor<4xf32>)
%r = graph.fusion_group () : () -> tensor<4xf32> {
  %n = graph.neg %x : tensor<4xf32>
  graph.yield %n : tensor<4xf32>
}

// -----

// graph.fusion_group: the body ends with graph.yield.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: 'graph.fusion_group' terminates with operation test.termop instead of graph.yield
%r = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
^bb0(%a: tensor<4xf32>):
  "test.termop"(%a) : (tensor<4xf32>) -> ()
}

// -----

// graph.yield: only inside graph.fusion_group.
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: 'graph.yield' expects parent op 'graph.fusion_group'
graph.yield %x : tensor<4xf32>

// -----

// graph.yield: not even inside another region op.
%x = "test.op"() : () -> (tensor<4xf32>)
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
// CHECK: invalid.mlir:[[# @LINE + 1]]:3: error: 'graph.yield' expects parent op 'graph.fusion_group'
  graph.yield %a : tensor<4xf32>
}

// -----

// graph.yield: only tensors flow out of a group.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.fusion_group: yielded types (i32) differ from result types (tensor<4xf32>)
%r = graph.fusion_group () : () -> tensor<4xf32> {
  %i = "test.op"() : () -> i32
  graph.yield %i : i32
}

// -----

// graph.bitwise_and: integer operands only.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.bitwise_and: expects integer tensors, got tensor<4xf32>
%r = graph.bitwise_and %a, %a : tensor<4xf32>

// -----

// graph.shift_left: operands of one type.
%a = "test.op"() : () -> (tensor<4xi32>)
%b = "test.op"() : () -> (tensor<4xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.shift_left: element types differ: lhs tensor<4xi32>, rhs tensor<4xi64>
%r = graph.shift_left %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>

// -----

// graph.logical_and: i1 operands only.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.logical_and: expects i1 tensors, got tensor<4xf32>
%r = graph.logical_and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

// -----

// graph.logical_or: i1 operands only, and they broadcast.
%a = "test.op"() : () -> (tensor<4xi1>)
%b = "test.op"() : () -> (tensor<3xi1>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.logical_or: shapes (4,), (3,) do not broadcast (operands: tensor<4xi1>, tensor<3xi1>)
%r = graph.logical_or %a, %b : (tensor<4xi1>, tensor<3xi1>) -> tensor<4xi1>

// -----

// graph.logical_not: i1 only (torch's bitwise_not on integers is another op).
%a = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.logical_not: expects i1 tensors, got tensor<4xi32>
%r = graph.logical_not %a : tensor<4xi32>

// -----

// graph.gcd: integers only.
%a = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.gcd: expects integer tensors, got tensor<4xf32>
%r = graph.gcd %a, %a : tensor<4xf32>

// -----

// graph.any: i1 input only.
%a = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.any: expects i1 tensors, got tensor<4x8xf32>
%r = graph.any %a dims [1] : (tensor<4x8xf32>) -> tensor<4xf32>

// -----

// graph.all: the result keeps the i1 type and the reduced shape.
%a = "test.op"() : () -> (tensor<4x8xi1>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.all: result type tensor<4x8xi1> does not match inferred type tensor<4xi1> (operands: tensor<4x8xi1>)
%r = graph.all %a dims [1] : (tensor<4x8xi1>) -> tensor<4x8xi1>

// -----

// graph.clamp: at least one bound (torch.clamp requires one).
%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.clamp: needs a min or a max bound (operands: tensor<4xf32>)
%y = graph.clamp %x : tensor<4xf32>

// -----

// graph.clamp: no type promotion, so an integer tensor takes integral bounds.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.clamp: bound 0.5 is not an integer, for tensor<4xi32>
%y = graph.clamp %x min 0.5 : tensor<4xi32>

// -----

// graph.clamp: not on booleans.
%x = "test.op"() : () -> (tensor<4xi1>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.clamp: expects a float or integer tensor, got tensor<4xi1>
%y = graph.clamp %x max 1.0 : tensor<4xi1>

// -----

// graph.hardswish takes floats only.
%x = "test.op"() : () -> (tensor<4xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.hardswish: expects a float tensor, got tensor<4xi32>
%y = graph.hardswish %x : tensor<4xi32>

// -----

// graph.hardsigmoid takes floats only.
%x = "test.op"() : () -> (tensor<4xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.hardsigmoid: expects a float tensor, got tensor<4xi64>
%y = graph.hardsigmoid %x : tensor<4xi64>

// -----

// graph.arange: a rank-1 result.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.arange: result must have rank 1, got tensor<2x4xi64>
%r = graph.arange start 0.0 step 1.0 : tensor<2x4xi64>

// -----

// graph.arange: a nonzero step.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.arange: start and step must be finite, step nonzero: got 0.0, 0.0
%r = graph.arange start 0.0 step 0.0 : tensor<4xf32>

// -----

// graph.arange: integer results take integral start and step.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.arange: start 0.0 and step 0.5 must be integers for tensor<4xi32>
%r = graph.arange start 0.0 step 0.5 : tensor<4xi32>

// -----

// graph.arange: no boolean ranges.
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.arange: result must be a float or integer tensor, got tensor<2xi1>
%r = graph.arange start 0.0 step 1.0 : tensor<2xi1>

// -----

// graph.cumsum: not on booleans (torch promotes them; the importer casts).
%x = "test.op"() : () -> (tensor<4xi1>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.cumsum: expects a float or integer tensor, got tensor<4xi1>
%y = graph.cumsum %x dim 0 : tensor<4xi1>

// -----

// graph.cumsum: dim in range.
%x = "test.op"() : () -> (tensor<4x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.cumsum: dim 2 out of range for rank 2 (operands: tensor<4x3xf32>)
%y = graph.cumsum %x dim 2 : tensor<4x3xf32>

// -----

// graph.index: one index tensor per indexed dim.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index: 1 index tensors for dims [0, 1] (operands: tensor<4x6xf32>, tensor<2xi64>)
%y = graph.index %x, %i dims [0, 1] : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<2xf32>

// -----

// graph.index: integer indices only.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index: indices must be i64 or i32, got tensor<2xf32>
%y = graph.index %x, %i dims [0] : (tensor<4x6xf32>, tensor<2xf32>) -> tensor<2x6xf32>

// -----

// graph.index_copy: the source is the input with dim of the index's size.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
%s = "test.op"() : () -> (tensor<4x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index_copy: source shape [4, 3] must be the input's with dim 1 of the index's size: [4, 2] (operands: tensor<4x6xf32>, tensor<2xi64>, tensor<4x3xf32>)
%y = graph.index_copy %x, %i, %s dim 1 : (tensor<4x6xf32>, tensor<2xi64>, tensor<4x3xf32>) -> tensor<4x6xf32>

// -----

// graph.index_copy: a 1-D integer index.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2x1xi64>)
%s = "test.op"() : () -> (tensor<2x6xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index_copy: index must be 1-D, got rank 2 (operands: tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>)
%y = graph.index_copy %x, %i, %s dim 0 : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>

// -----

// graph.index_add: the source is the input with dim of the index's size.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<3xi64>)
%s = "test.op"() : () -> (tensor<2x6xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index_add: source shape [2, 6] must be the input's with dim 0 of the index's size: [3, 6] (operands: tensor<4x6xf32>, tensor<3xi64>, tensor<2x6xf32>)
%y = graph.index_add %x, %i, %s dim 0 : (tensor<4x6xf32>, tensor<3xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>

// -----

// graph.index_add: an integer index.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xf32>)
%s = "test.op"() : () -> (tensor<2x6xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index_add: index must be i64 or i32, got tensor<2xf32> (operands: tensor<4x6xf32>, tensor<2xf32>, tensor<2x6xf32>)
%y = graph.index_add %x, %i, %s dim 0 : (tensor<4x6xf32>, tensor<2xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>

// -----

// graph.index_add: the order is the index's argsort, i64 of its shape.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
%s = "test.op"() : () -> (tensor<2x6xf32>)
%o = "test.op"() : () -> (tensor<3xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index_add: order must be i64 of the index's shape [2], got tensor<3xi64> (operands: tensor<4x6xf32>, tensor<2xi64>, tensor<2x6xf32>, tensor<3xi64>)
%y = graph.index_add %x, %i, %s, %o dim 0 : (tensor<4x6xf32>, tensor<2xi64>, tensor<2x6xf32>, tensor<3xi64>) -> tensor<4x6xf32>

// -----

// graph.index_copy: source and input share the element type.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
%s = "test.op"() : () -> (tensor<2x6xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index_copy: source tensor<2x6xf16> and input tensor<4x6xf32> differ in element type (operands: tensor<4x6xf32>, tensor<2xi64>, tensor<2x6xf16>)
%y = graph.index_copy %x, %i, %s dim 0 : (tensor<4x6xf32>, tensor<2xi64>, tensor<2x6xf16>) -> tensor<4x6xf32>

// -----

// graph.index: index tensors broadcast together.
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
%j = "test.op"() : () -> (tensor<3xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index: shapes (2,), (3,) do not broadcast (operands: tensor<4x6xf32>, tensor<2xi64>, tensor<3xi64>)
%y = graph.index %x, %i, %j dims [0, 1] : (tensor<4x6xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<2xf32>

// -----

// graph.index: dims increasing (operands follow the dims in order).
%x = "test.op"() : () -> (tensor<4x6xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index: dims [1, 0] must be increasing (operands: tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>)
%y = graph.index %x, %i, %i dims [1, 0] : (tensor<4x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xf32>

// -----

// graph.index: the result shape follows the indexing rule.
%x = "test.op"() : () -> (tensor<4x6x5xf32>)
%i = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.index: result type tensor<4x2x5xf32> does not match inferred type tensor<2x6xf32> (operands: tensor<4x6x5xf32>, tensor<2xi64>, tensor<2xi64>)
%y = graph.index %x, %i, %i dims [0, 2] : (tensor<4x6x5xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x2x5xf32>

// -----

// graph.attention: the mask is i1 or of a float type.
%q = "test.op"() : () -> (tensor<4x8xf32>)
%m = "test.op"() : () -> (tensor<4x4xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.attention: mask must be i1 or a float type, got tensor<4x4xi64>
%o = graph.attention %q, %q, %q, %m scale 1.0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xi64>) -> tensor<4x8xf32>

// -----

// graph.attention: the mask broadcasts to the scores, (..., T, S).
%q = "test.op"() : () -> (tensor<2x4x8xf32>)
%k = "test.op"() : () -> (tensor<2x6x8xf32>)
%m = "test.op"() : () -> (tensor<4x4xi1>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.attention: mask tensor<4x4xi1> does not broadcast to the scores' shape (2, 4, 6)
%o = graph.attention %q, %k, %k, %m scale 1.0 : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<4x4xi1>) -> tensor<2x4x8xf32>

// -----

// graph.conv2d: the weight's channels times groups are the input's.
%x = "test.op"() : () -> (tensor<1x6x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x2x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: weight (4, 2, 3, 3) takes 2 channels per group, the input has 6 channels in 2 groups (operands: tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 2 padding [0, 0] stride [1, 1] : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>

// -----

// graph.conv2d: groups divide both channel counts.
%x = "test.op"() : () -> (tensor<1x6x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x6x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: groups 0 must be >= 1 and divide the input channels 6 and the output channels 4 (operands: tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 0 padding [0, 0] stride [1, 1] : (tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x6x6xf32>

// -----

// graph.conv2d: the bias has one entry per output channel.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x3x3x3xf32>)
%b = "test.op"() : () -> (tensor<3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: bias must have shape (4,), got (3,) (operands: tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
%y = graph.conv2d %x, %w, %b dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>

// -----

// graph.conv2d: input, weight and bias share one float type.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x3x3x3xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: input, weight and bias must share one element type (operands: tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>

// -----

// graph.conv2d: one stride entry per spatial dim.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x3x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: stride needs 2 entries (one per spatial dim), got [1] (operands: tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>

// -----

// graph.conv1d: the input is (N, C, W).
%x = "test.op"() : () -> (tensor<3x8xf32>)
%w = "test.op"() : () -> (tensor<4x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv1d: input must have rank 3 (N, C, ...), got (3, 8) (operands: tensor<3x8xf32>, tensor<4x3x3xf32>)
%y = graph.conv1d %x, %w dilation [1] groups 1 padding [0] stride [1] : (tensor<3x8xf32>, tensor<4x3x3xf32>) -> tensor<4x6xf32>

// -----

// graph.conv1d: the (dilated) kernel fits the padded input.
%x = "test.op"() : () -> (tensor<1x3x4xf32>)
%w = "test.op"() : () -> (tensor<4x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv1d: output size (0,) is too small: input (4,), kernel [3], stride [1], padding [0], dilation [2] (operands: tensor<1x3x4xf32>, tensor<4x3x3xf32>)
%y = graph.conv1d %x, %w dilation [2] groups 1 padding [0] stride [1] : (tensor<1x3x4xf32>, tensor<4x3x3xf32>) -> tensor<1x4x1xf32>

// -----

// graph.conv2d: the declared result has torch's output size.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x3x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: result type tensor<1x4x8x8xf32> does not match inferred type tensor<1x4x4x4xf32> (operands: tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [1, 1] stride [2, 2] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>

// -----

// graph.max_pool2d: padding at most half the kernel.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.max_pool2d: padding [2, 2] must be at most half the kernel [3, 3] (operands: tensor<1x3x8x8xf32>)
%y = graph.max_pool2d %x dilation [1, 1] kernel [3, 3] padding [2, 2] stride [1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>

// -----

// graph.max_pool2d: kernel and stride are >= 1.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.max_pool2d: kernel and stride must be >= 1, got [2, 2] and [0, 2] (operands: tensor<1x3x8x8xf32>)
%y = graph.max_pool2d %x dilation [1, 1] kernel [2, 2] padding [0, 0] stride [0, 2] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>

// -----

// graph.max_pool2d: float tensors only.
%x = "test.op"() : () -> (tensor<1x3x8x8xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.max_pool2d: expects a float tensor, got tensor<1x3x8x8xi32>
%y = graph.max_pool2d %x dilation [1, 1] kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x3x8x8xi32>) -> tensor<1x3x4x4xi32>

// -----

// graph.avg_pool2d: the input is (N, C, H, W).
%x = "test.op"() : () -> (tensor<3x8x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.avg_pool2d: input must have rank 4 (N, C, ...), got (3, 8, 8) (operands: tensor<3x8x8xf32>)
%y = graph.avg_pool2d %x kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<3x8x8xf32>) -> tensor<3x4x4xf32>

// -----

// graph.avg_pool2d: ceil_mode drops a window that would start in the right padding.
%x = "test.op"() : () -> (tensor<1x1x5x5xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.avg_pool2d: result type tensor<1x1x4x4xf32> does not match inferred type tensor<1x1x3x3xf32> (operands: tensor<1x1x5x5xf32>)
%y = graph.avg_pool2d %x ceil_mode kernel [2, 2] padding [1, 1] stride [2, 2] : (tensor<1x1x5x5xf32>) -> tensor<1x1x4x4xf32>

// -----

// graph.avg_pool2d: divisor_override divides, so it is nonzero (a negative
// one is torch's too).
%x = "test.op"() : () -> (tensor<1x1x4x4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.avg_pool2d: divisor_override must be nonzero, got 0 (operands: tensor<1x1x4x4xf32>)
%y = graph.avg_pool2d %x divisor_override 0 kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>

// -----

// graph.adaptive_avg_pool2d: the result keeps N and C.
%x = "test.op"() : () -> (tensor<1x8x7x7xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.adaptive_avg_pool2d: result (1, 4, 2, 2) must keep N and C of (1, 8, 7, 7) and have an output size >= 1 (from a non-empty input) (operands: tensor<1x8x7x7xf32>)
%y = graph.adaptive_avg_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x4x2x2xf32>

// -----

// graph.batch_norm: statistics, weight and bias have one entry per channel.
%x = "test.op"() : () -> (tensor<2x8x4x4xf32>)
%c = "test.op"() : () -> (tensor<8xf32>)
%d = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.batch_norm: per-channel operands must have shape (8,), got (4,) (operands: tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>)
%y = graph.batch_norm %x, %c, %d, %c, %c eps 1.0e-05 : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>

// -----

// graph.batch_norm: one float type for every operand.
%x = "test.op"() : () -> (tensor<2x8xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.batch_norm: input, statistics, weight and bias must share one float type (operands: tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>)
%y = graph.batch_norm %x, %x, %x, %x, %x eps 1.0e-05 : tensor<2x8xi32>

// -----

// graph.conv2d: float tensors only.
%x = "test.op"() : () -> (tensor<1x3x8x8xi32>)
%w = "test.op"() : () -> (tensor<4x3x3x3xi32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: expects float tensors, got tensor<1x3x8x8xi32> (operands: tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>

// -----

// graph.conv2d: the weight is (out, in / groups, kh, kw).
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x27xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: weight must have rank 4 (out, in / groups, ...), got (4, 27) (operands: tensor<1x3x8x8xf32>, tensor<4x27xf32>)
%y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x27xf32>) -> tensor<1x4x6x6xf32>

// -----

// graph.conv2d: dilation >= 1 and padding >= 0.
%x = "test.op"() : () -> (tensor<1x3x8x8xf32>)
%w = "test.op"() : () -> (tensor<4x3x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: dilation must be >= 1 and padding >= 0, got [0, 1] and [1, 1] (operands: tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
%y = graph.conv2d %x, %w dilation [0, 1] groups 1 padding [1, 1] stride [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>

// -----

// graph.adaptive_avg_pool2d: the input and result are (N, C, H, W).
%x = "test.op"() : () -> (tensor<8x7x7xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.adaptive_avg_pool2d: input and result must have rank 4 (N, C, H, W), got (8, 7, 7) and (8, 2, 2) (operands: tensor<8x7x7xf32>)
%y = graph.adaptive_avg_pool2d %x : (tensor<8x7x7xf32>) -> tensor<8x2x2xf32>

// -----

// graph.adaptive_avg_pool2d: the element type stays.
%x = "test.op"() : () -> (tensor<1x8x7x7xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.adaptive_avg_pool2d: element type changes: tensor<1x8x7x7xf32> -> tensor<1x8x2x2xf16>
%y = graph.adaptive_avg_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x2x2xf16>

// -----

// graph.batch_norm: the input has a channel dim (N, C, ...).
%x = "test.op"() : () -> (tensor<8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.batch_norm: input must have rank >= 2 (N, C, ...), got (8,)
%y = graph.batch_norm %x, %x, %x, %x, %x eps 1.0e-05 : tensor<8xf32>

// -----

// Every graph op: shapes are static (no `?` dims), operands and results alike.
%x = "test.op"() : () -> (tensor<4x?xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.relu: dynamic dimension in tensor<4x?xf32>: graph ops take static shapes only
%y = graph.relu %x : tensor<4x?xf32>

// -----

%x = "test.op"() : () -> (tensor<4x8xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.reshape: dynamic dimension in tensor<?xf32>: graph ops take static shapes only (operands: tensor<4x8xf32>)
%y = graph.reshape %x : (tensor<4x8xf32>) -> tensor<?xf32>

// -----

// The linear-algebra ops take f32 matrices only.
%x = "test.op"() : () -> (tensor<4x4xf16>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.cholesky: expects f32 matrices, got tensor<4x4xf16>
%y = graph.cholesky %x : tensor<4x4xf16>

// -----

%x = "test.op"() : () -> (tensor<4xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.qr: expects rank >= 2 (matrices), got tensor<4xf32>
%q, %r = graph.qr %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)

// -----

// cholesky, triangular_solve and eigh need square matrices.
%x = "test.op"() : () -> (tensor<4x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.eigh: expects square matrices, got tensor<4x3xf32>
%w, %v = graph.eigh %x : (tensor<4x3xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)

// -----

%a = "test.op"() : () -> (tensor<4x4xf32>)
%b = "test.op"() : () -> (tensor<3x2xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.triangular_solve: b tensor<3x2xf32> has 3 rows, a tensor<4x4xf32> is 4x4
%x = graph.triangular_solve %a, %b : (tensor<4x4xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>

// -----

// A declared result type must be the inferred one (lu's pivots are i32).
%a = "test.op"() : () -> (tensor<3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.lu: result type tensor<3x3xf32>, tensor<3xi64>, tensor<3x3xf32> does not match inferred type tensor<3x3xf32>, tensor<3xi32>, tensor<3x3xf32> (operands: tensor<3x3xf32>)
%lu, %p, %m = graph.lu %a : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi64>, tensor<3x3xf32>)

// -----

// graph.random: the seed is [key, offset], two i64.
%s = "test.op"() : () -> (tensor<3xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.random: seed must be tensor<2xi64> ([key, offset]), got tensor<3xi64>
%r = graph.random %s distribution "uniform" : (tensor<3xi64>) -> tensor<4xf32>

// -----

%s = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.random: distribution must be one of uniform, normal, bits, got "gamma" (operands: tensor<2xi64>)
%r = graph.random %s distribution "gamma" : (tensor<2xi64>) -> tensor<4xf32>

// -----

%s = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.random: "uniform" gives a float tensor, got tensor<4xi64> (operands: tensor<2xi64>)
%r = graph.random %s distribution "uniform" : (tensor<2xi64>) -> tensor<4xi64>

// -----

%s = "test.op"() : () -> (tensor<2xi64>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.random: "bits" gives an i64 tensor, got tensor<4xf32> (operands: tensor<2xi64>)
%r = graph.random %s distribution "bits" : (tensor<2xi64>) -> tensor<4xf32>

// -----

// graph.conv2d: only 16-bit operands may keep their sums in f32.
%x = "test.op"() : () -> (tensor<1x2x4x4xf32>)
%w = "test.op"() : () -> (tensor<3x2x3x3xf32>)
// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: graph.conv2d: result element type f64 must be the input's (f32), or f32 for bf16/f16 operands
%y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf64>
