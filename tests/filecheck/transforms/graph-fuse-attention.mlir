// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1}' | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1}' | fxdsl-opt -p 'graph-fuse-attention{min-rows=1}' | filecheck %s
// RUN: fxdsl-opt %s -p graph-fuse-attention | filecheck %s --check-prefix=DEFAULT
// RUN: not fxdsl-opt %s -p 'graph-fuse-attention{min-rows=0}' 2>&1 | filecheck %s --check-prefix=BAD-ROWS
// RUN: not fxdsl-opt %s -p 'graph-fuse-attention{min-rows=few}' 2>&1 | filecheck %s --check-prefix=BAD-TYPE

// The second RUN line checks idempotence. With the default min-rows
// (16384 query rows) these small chains all stay unfused.
// DEFAULT-NOT: graph.attention
// BAD-ROWS: error: graph-fuse-attention: min-rows must be an integer >= 1, got 0
// BAD-TYPE: error:
// BAD-TYPE-SAME: few

// GPT-2: q @ k^T, scaled, causal mask by select with -1e9, softmax, @ v.
// k is the input of the transpose; the mask constants are erased.
// CHECK-LABEL: func.func @gpt2
// CHECK-NEXT:    %[[O:.*]] = graph.attention %q, %k, %v causal scale 2.500000e-01 {scope = #graph.scope<("attn", 0, "Attention")>} : tensor<2x8x16xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @gpt2(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %kt = graph.transpose %k perm [0, 2, 1] : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  %s = graph.matmul %q, %kt : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  %c = graph.full value 0.25 : tensor<f32>
  %scaled = graph.mul %s, %c : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
  %pos = graph.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %row = graph.reshape %pos : (tensor<8xi64>) -> tensor<1x8xi64>
  %col = graph.reshape %pos : (tensor<8xi64>) -> tensor<8x1xi64>
  %mask = graph.le %row, %col : (tensor<1x8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %fill = graph.full value -1.0e+09 : tensor<f32>
  %masked = graph.select %mask, %scaled, %fill : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
  %p = graph.softmax %masked dim 2 : tensor<2x8x8xf32>
  %o = graph.matmul %p, %v {scope = #graph.scope<("attn", 0, "Attention")>} : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  func.return %o : tensor<2x8x16xf32>
}

// Division by sqrt(d), no mask, k^T given directly (a transpose is added),
// different key and value lengths from the query's.
// CHECK-LABEL: func.func @divided
// CHECK-NEXT:    %[[K:.*]] = graph.transpose %kt perm [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %[[O:.*]] = graph.attention %q, %[[K]], %v scale 5.000000e-01 : (tensor<3x4xf32>, tensor<6x4xf32>, tensor<6x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @divided(%q: tensor<3x4xf32>, %kt: tensor<4x6xf32>, %v: tensor<6x2xf32>) -> tensor<3x2xf32> {
  %s = graph.matmul %q, %kt : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %c = graph.full value 2.0 : tensor<f32>
  %d = graph.div %s, %c : (tensor<3x6xf32>, tensor<f32>) -> tensor<3x6xf32>
  %p = graph.softmax %d dim 1 : tensor<3x6xf32>
  %o = graph.matmul %p, %v : (tensor<3x6xf32>, tensor<6x2xf32>) -> tensor<3x2xf32>
  func.return %o : tensor<3x2xf32>
}

// An additive causal mask (0 / -1e30) before the scale: masked scores are
// -1e30 * 0.5.
// CHECK-LABEL: func.func @additive
// CHECK-NEXT:    %[[O:.*]] = graph.attention %q, %k, %v causal scale 5.000000e-01
// CHECK-NEXT:    func.return %[[O]]
func.func @additive(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kt = graph.transpose %k perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = graph.matmul %q, %kt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %bias = graph.constant dense<[[0.0, -1.0e+30, -1.0e+30, -1.0e+30], [0.0, 0.0, -1.0e+30, -1.0e+30], [0.0, 0.0, 0.0, -1.0e+30], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %masked = graph.add %s, %bias : tensor<4x4xf32>
  %c = graph.full value 0.5 : tensor<f32>
  %scaled = graph.mul %c, %masked : (tensor<f32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = graph.softmax %scaled dim 1 : tensor<4x4xf32>
  %o = graph.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}

// Not attention, left alone: a mask that is not causal (key < query: row 0
// has no key), a fill that does not zero the masked scores, probabilities
// used twice, softmax over another dim, a scale that broadcasts the scores
// to a batch.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     graph.attention
// CHECK:         func.return
func.func @kept(%q: tensor<4x8xf32>, %k: tensor<8x4xf32>, %v: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<2x4x8xf32>) {
  %pos = graph.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %row = graph.reshape %pos : (tensor<4xi64>) -> tensor<1x4xi64>
  %col = graph.reshape %pos : (tensor<4xi64>) -> tensor<4x1xi64>
  %strict = graph.lt %row, %col : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %causal = graph.le %row, %col : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %big = graph.full value -1.0e+09 : tensor<f32>
  %small = graph.full value -1.0 : tensor<f32>
  %s1 = graph.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %m1 = graph.select %strict, %s1, %big : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %p1 = graph.softmax %m1 dim 1 : tensor<4x4xf32>
  %o1 = graph.matmul %p1, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s2 = graph.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %m2 = graph.select %causal, %s2, %small : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %p2 = graph.softmax %m2 dim 1 : tensor<4x4xf32>
  %o2 = graph.matmul %p2, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s3 = graph.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %p3 = graph.softmax %s3 dim 1 : tensor<4x4xf32>
  %o3 = graph.matmul %p3, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s4 = graph.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %p4 = graph.softmax %s4 dim 0 : tensor<4x4xf32>
  %o4 = graph.matmul %p4, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s5 = graph.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %c5 = graph.full value 0.5 : tensor<2x1x1xf32>
  %m5 = graph.mul %s5, %c5 : (tensor<4x4xf32>, tensor<2x1x1xf32>) -> tensor<2x4x4xf32>
  %p5 = graph.softmax %m5 dim 2 : tensor<2x4x4xf32>
  %o5 = graph.matmul %p5, %v : (tensor<2x4x4xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  func.return %o1, %o2, %o3, %o4, %p3, %o5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<2x4x8xf32>
}

// An additive mask of -1e4 is added to the real scores, which may offset
// it: only masks at most -1e30 (torch's finfo.min, -inf) are accepted.
// CHECK-LABEL: func.func @weak_additive
// CHECK-NOT:     graph.attention
// CHECK:         func.return
func.func @weak_additive(%q: tensor<2x8xf32>, %kt: tensor<8x2xf32>, %v: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s = graph.matmul %q, %kt : (tensor<2x8xf32>, tensor<8x2xf32>) -> tensor<2x2xf32>
  %bias = graph.constant dense<[[0.0, -1.0e+04], [0.0, 0.0]]> : tensor<2x2xf32>
  %masked = graph.add %s, %bias : tensor<2x2xf32>
  %p = graph.softmax %masked dim 1 : tensor<2x2xf32>
  %o = graph.matmul %p, %v : (tensor<2x2xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %o : tensor<2x8xf32>
}
