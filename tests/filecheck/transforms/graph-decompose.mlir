// RUN: fxdsl-opt %s -p graph-decompose | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-decompose{attention-min-rows=4}' | filecheck %s --check-prefix=KEEP
// RUN: not fxdsl-opt %s -p 'graph-decompose{attention-min-rows=0}' 2>&1 | filecheck %s --check-prefix=BAD-ROWS

// BAD-ROWS: error: graph-decompose: attention-min-rows must be an integer >= 1, got 0

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

// A bf16 linear with a bias rounds once, as graph.linear does: the product
// stays f32, the bias is added in f32, the sum is cast back.
// CHECK-LABEL: func.func @linear_bias_bf16
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0]
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %x, %[[T]] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.cast %b : (tensor<16xbf16>) -> tensor<16xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[M]], %[[B]] : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.cast %[[A]] : (tensor<4x16xf32>) -> tensor<4x16xbf16>
// CHECK-NEXT:    func.return %[[C]]
func.func @linear_bias_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %b: tensor<16xbf16>) -> tensor<4x16xbf16> {
  %y = graph.linear %x, %w, %b : (tensor<4x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
}

// Without a bias the GEMM rounds its product once itself: no widening.
// CHECK-LABEL: func.func @linear_no_bias_bf16
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %w perm [1, 0]
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %x, %[[T]] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT:    func.return %[[M]]
func.func @linear_no_bias_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>) -> tensor<4x16xbf16> {
  %y = graph.linear %x, %w : (tensor<4x8xbf16>, tensor<16x8xbf16>) -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
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

// any / all over i1 -> max / min over i1.
// CHECK-LABEL: func.func @boolean_reductions
// CHECK-NEXT:    %[[A:.*]] = graph.max %m dims [1] keepdim : (tensor<4x8xi1>) -> tensor<4x1xi1>
// CHECK-NEXT:    %[[B:.*]] = graph.min %m dims [] : (tensor<4x8xi1>) -> tensor<i1>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @boolean_reductions(%m: tensor<4x8xi1>) -> (tensor<4x1xi1>, tensor<i1>) {
  %a = graph.any %m dims [1] keepdim : (tensor<4x8xi1>) -> tensor<4x1xi1>
  %b = graph.all %m dims [] : (tensor<4x8xi1>) -> tensor<i1>
  func.return %a, %b : tensor<4x1xi1>, tensor<i1>
}

// over an empty dim: false for any, true for all (torch's), not a max or min
// of nothing.
// CHECK-LABEL: func.func @boolean_reductions_of_nothing
// CHECK-NEXT:    %[[A:.*]] = graph.full value 0.000000e+00 : tensor<4x1xi1>
// CHECK-NEXT:    %[[B:.*]] = graph.full value 1.000000e+00 : tensor<i1>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @boolean_reductions_of_nothing(%m: tensor<4x0xi1>) -> (tensor<4x1xi1>, tensor<i1>) {
  %a = graph.any %m dims [1] keepdim : (tensor<4x0xi1>) -> tensor<4x1xi1>
  %b = graph.all %m dims [] : (tensor<4x0xi1>) -> tensor<i1>
  func.return %a, %b : tensor<4x1xi1>, tensor<i1>
}

// arange -> its values as a constant.
// CHECK-LABEL: func.func @arange
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[5, 2, -1]> : tensor<3xi32>
// CHECK-NEXT:    func.return %[[C]]
func.func @arange() -> tensor<3xi32> {
  %r = graph.arange start 5.0 step -3.0 : tensor<3xi32>
  func.return %r : tensor<3xi32>
}

// cumsum along dim 0 of 3x2 -> output i sums inputs j <= i: the index
// constants compare (3x1x1 outputs, 3x1 inputs), the select spreads x over
// a new dim 0, and the sum reduces the inputs' dim.
// CHECK-LABEL: func.func @cumsum
// CHECK-NEXT:    %[[I:.*]] = graph.constant dense<{{\[\[\[}}0]], {{\[\[}}1]], {{\[\[}}2]]]> : tensor<3x1x1xi64>
// CHECK-NEXT:    %[[J:.*]] = graph.constant dense<{{\[\[}}0], [1], [2]]> : tensor<3x1xi64>
// CHECK-NEXT:    %[[K:.*]] = graph.le %[[J]], %[[I]] : (tensor<3x1xi64>, tensor<3x1x1xi64>) -> tensor<3x3x1xi1>
// CHECK-NEXT:    %[[X:.*]] = graph.reshape %x : (tensor<3x2xi64>) -> tensor<1x3x2xi64>
// CHECK-NEXT:    %[[Z:.*]] = graph.full value 0.000000e+00 : tensor<i64>
// CHECK-NEXT:    %[[S:.*]] = graph.select %[[K]], %[[X]], %[[Z]] : (tensor<3x3x1xi1>, tensor<1x3x2xi64>, tensor<i64>) -> tensor<3x3x2xi64>
// CHECK-NEXT:    %[[R:.*]] = graph.sum %[[S]] dims [1] : (tensor<3x3x2xi64>) -> tensor<3x2xi64>
// CHECK-NEXT:    func.return %[[R]]
func.func @cumsum(%x: tensor<3x2xi64>) -> tensor<3x2xi64> {
  %r = graph.cumsum %x dim 0 : tensor<3x2xi64>
  func.return %r : tensor<3x2xi64>
}

// A masked attention -> q k^T * scale, the mask (a select to -inf for i1),
// softmax, the product with v, and zeros for rows without any key.
// CHECK-LABEL: func.func @masked_attention
// CHECK-NEXT:    %[[KT:.*]] = graph.transpose %k perm [0, 2, 1] {scope = #graph.scope<("attn", 0, "Attention")>} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.matmul %q, %[[KT]] {{.*}}: (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.full value 1.250000e-01 {{.*}}: tensor<f32>
// CHECK-NEXT:    %[[SC:.*]] = graph.mul %[[S]], %[[C]] {{.*}}: (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
// CHECK-NEXT:    %[[INF:.*]] = graph.full value -inf {{.*}}: tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = graph.select %m, %[[SC]], %[[INF]] {{.*}}: (tensor<4x6xi1>, tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.softmax %[[M]] dim 2
// CHECK-NEXT:    %[[O:.*]] = graph.matmul %[[P]], %v
// CHECK-NEXT:    %[[TOP:.*]] = graph.max %[[M]] dims [2] keepdim
// CHECK-NEXT:    %[[ANY:.*]] = graph.ne %[[TOP]], %[[INF]]
// CHECK-NEXT:    %[[Z:.*]] = graph.full value 0.000000e+00
// CHECK-NEXT:    %[[R:.*]] = graph.select %[[ANY]], %[[O]], %[[Z]] {{.*}}: (tensor<2x4x1xi1>, tensor<2x4x3xf32>, tensor<f32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @masked_attention(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>, %m: tensor<4x6xi1>) -> tensor<2x4x3xf32> {
  %o = graph.attention %q, %k, %v, %m scale 0.125 {scope = #graph.scope<("attn", 0, "Attention")>} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<4x6xi1>) -> tensor<2x4x3xf32>
  func.return %o : tensor<2x4x3xf32>
}

// 16-bit operands: the scores in f32 (a widened product), the numerators
// exp(s - max) rounded to bf16 for the product with v (f32 result), divided
// by their f32 sum, the result cast back: as graph.attention computes it.
// CHECK-LABEL: func.func @masked_attention_bf16
// CHECK-NEXT:    %[[KT:.*]] = graph.transpose %k perm [0, 2, 1]
// CHECK-NEXT:    %[[S:.*]] = graph.matmul %q, %[[KT]] : (tensor<2x4x8xbf16>, tensor<2x8x6xbf16>) -> tensor<2x4x6xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.full value 1.250000e-01 : tensor<f32>
// CHECK-NEXT:    %[[SC:.*]] = graph.mul %[[S]], %[[C]]
// CHECK-NEXT:    %[[INF:.*]] = graph.full value -inf : tensor<f32>
// CHECK-NEXT:    %[[MB:.*]] = graph.cast %m : (tensor<4x6xbf16>) -> tensor<4x6xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.add %[[SC]], %[[MB]] : (tensor<2x4x6xf32>, tensor<4x6xf32>) -> tensor<2x4x6xf32>
// CHECK-NEXT:    %[[TOP:.*]] = graph.max %[[M]] dims [2] keepdim
// CHECK-NEXT:    %[[D:.*]] = graph.sub %[[M]], %[[TOP]]
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[D]] : tensor<2x4x6xf32>
// CHECK-NEXT:    %[[SUM:.*]] = graph.sum %[[E]] dims [2] keepdim
// CHECK-NEXT:    %[[P:.*]] = graph.cast %[[E]] : (tensor<2x4x6xf32>) -> tensor<2x4x6xbf16>
// CHECK-NEXT:    %[[O:.*]] = graph.matmul %[[P]], %v : (tensor<2x4x6xbf16>, tensor<2x6x3xbf16>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.div %[[O]], %[[SUM]]
// CHECK-NEXT:    %[[ANY:.*]] = graph.ne %[[TOP]], %[[INF]]
// CHECK-NEXT:    %[[Z:.*]] = graph.full value 0.000000e+00 : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = graph.select %[[ANY]], %[[N]], %[[Z]]
// CHECK-NEXT:    %[[B:.*]] = graph.cast %[[R]] : (tensor<2x4x3xf32>) -> tensor<2x4x3xbf16>
// CHECK-NEXT:    func.return %[[B]]
func.func @masked_attention_bf16(%q: tensor<2x4x8xbf16>, %k: tensor<2x6x8xbf16>, %v: tensor<2x6x3xbf16>, %m: tensor<4x6xbf16>) -> tensor<2x4x3xbf16> {
  %o = graph.attention %q, %k, %v, %m scale 0.125 : (tensor<2x4x8xbf16>, tensor<2x6x8xbf16>, tensor<2x6x3xbf16>, tensor<4x6xbf16>) -> tensor<2x4x3xbf16>
  func.return %o : tensor<2x4x3xbf16>
}

// With at least attention-min-rows query rows (here 8 and 4 >= 4), a masked
// attention stays: the fused attention kernel reads its mask.
// KEEP-LABEL: func.func @masked_attention
// KEEP-NEXT:    graph.attention %q, %k, %v, %m scale 1.250000e-01
// KEEP-LABEL: func.func @additive_mask
// KEEP-NEXT:    graph.attention %q, %k, %v, %a scale 1.250000e-01

// An additive mask is added; an attention without a mask stays.
// CHECK-LABEL: func.func @additive_mask
// CHECK:         %[[SC:.*]] = graph.mul
// CHECK-NEXT:    graph.full value -inf
// CHECK-NEXT:    %{{.*}} = graph.add %[[SC]], %a : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
// CHECK:         graph.attention %q, %k, %v scale 1.250000e-01 : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
func.func @additive_mask(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x3xf32>, %a: tensor<6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %o = graph.attention %q, %k, %v, %a scale 0.125 : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>, tensor<6xf32>) -> tensor<4x3xf32>
  %p = graph.attention %q, %k, %v scale 0.125 : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
  func.return %o, %p : tensor<4x3xf32>, tensor<4x3xf32>
}
