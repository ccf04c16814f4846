// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1}' | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1}' | fxdsl-opt -p 'graph-fuse-attention{min-rows=1}' | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1 fold-bias=false}' | filecheck %s --check-prefix=UNFOLDED
// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1},graph-fuse' | filecheck %s --check-prefix=FUSE
// RUN: not fxdsl-opt %s -p 'graph-fuse-attention{fold-bias=maybe}' 2>&1 | filecheck %s --check-prefix=BAD

// BAD: error:
// BAD-SAME: maybe

// GPT-2's heads: q, k and v are views of one bias add. The add goes: q's
// bias is added to q's view of %x (the prologue), k's is dropped, v's
// first row is added to the output (the epilogue).
// CHECK-LABEL: func.func @qkv
// CHECK-NEXT:    %[[BF:.*]] = graph.broadcast_to %b : (tensor<24xf32>) -> tensor<2x4x24xf32>
// CHECK-NEXT:    %q0, %k0, %v0 = graph.split %x dim 2
// CHECK-NEXT:    %q1 = graph.reshape %q0
// CHECK-NEXT:    %q = graph.transpose %q1 perm [0, 2, 1, 3]
// CHECK-NEXT:    %[[B0:.*]], %{{.*}}, %[[B2:.*]] = graph.split %[[BF]] dim 2
// CHECK-NEXT:    %[[B0R:.*]] = graph.reshape %[[B0]]
// CHECK-NEXT:    %[[BQ:.*]] = graph.transpose %[[B0R]] perm [0, 2, 1, 3]
// CHECK-NEXT:    %[[Q:.*]] = graph.add %q, %[[BQ]] : tensor<2x2x4x4xf32>
// CHECK-NEXT:    %k1 = graph.reshape %k0
// CHECK-NEXT:    %k = graph.transpose %k1
// CHECK-NEXT:    %v1 = graph.reshape %v0
// CHECK-NEXT:    %v = graph.transpose %v1
// CHECK-NEXT:    %[[B2R:.*]] = graph.reshape %[[B2]]
// CHECK-NEXT:    %[[BV:.*]] = graph.transpose %[[B2R]] perm [0, 2, 1, 3]
// CHECK-NEXT:    %[[BV1:.*]] = graph.slice %[[BV]] limit [2, 2, 1, 4] start [0, 0, 0, 0] step [1, 1, 1, 1] : (tensor<2x2x4x4xf32>) -> tensor<2x2x1x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.attention %[[Q]], %k, %v causal scale 5.000000e-01 : tensor<2x2x4x4xf32>
// CHECK-NEXT:    %[[O:.*]] = graph.add %[[A]], %[[BV1]] : (tensor<2x2x4x4xf32>, tensor<2x2x1x4xf32>) -> tensor<2x2x4x4xf32>
// CHECK-NEXT:    func.return %[[O]]
// UNFOLDED-LABEL: func.func @qkv
// UNFOLDED-NEXT:    %a = graph.add %x, %b
// UNFOLDED:         graph.attention %q, %k, %v causal
// graph-fuse puts the q add, the attention and the output add in one group
// (one kernel); the views stay outside, read as strided buffers.
// FUSE-LABEL: func.func @qkv
// FUSE:         graph.fusion_group
// FUSE-NEXT:    ^{{.*}}(%[[QX:.*]]: tensor<2x2x4x4xf32>, %[[QB:.*]]: tensor<2x2x4x4xf32>, %[[K:.*]]: tensor<2x2x4x4xf32>, %[[V:.*]]: tensor<2x2x4x4xf32>, %[[VB:.*]]: tensor<2x2x1x4xf32>):
// FUSE-NEXT:      %[[Q:.*]] = graph.add %[[QX]], %[[QB]]
// FUSE-NEXT:      %[[A:.*]] = graph.attention %[[Q]], %[[K]], %[[V]] causal
// FUSE-NEXT:      %[[O:.*]] = graph.add %[[A]], %[[VB]]
// FUSE-NEXT:      graph.yield %[[O]]
func.func @qkv(%x: tensor<2x4x24xf32>, %b: tensor<24xf32>) -> tensor<2x2x4x4xf32> {
  %a = graph.add %x, %b : (tensor<2x4x24xf32>, tensor<24xf32>) -> tensor<2x4x24xf32>
  %q0, %k0, %v0 = graph.split %a dim 2 sizes [8, 8, 8] : (tensor<2x4x24xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>)
  %q1 = graph.reshape %q0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %q = graph.transpose %q1 perm [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %k1 = graph.reshape %k0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %k = graph.transpose %k1 perm [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %v1 = graph.reshape %v0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %v = graph.transpose %v1 perm [0, 2, 1, 3] : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %o = graph.attention %q, %k, %v causal scale 0.5 : tensor<2x2x4x4xf32>
  func.return %o : tensor<2x2x4x4xf32>
}

// A bias per token (it differs between key rows): k's cannot be dropped,
// so the add stays (a kernel of its own).
// CHECK-LABEL: func.func @per_token
// CHECK-NEXT:    %a = graph.add %x, %b
// CHECK:         graph.attention %q, %k, %v scale
// CHECK-NEXT:    func.return
func.func @per_token(%x: tensor<4x12xf32>, %b: tensor<4x1xf32>) -> tensor<4x4xf32> {
  %a = graph.add %x, %b : (tensor<4x12xf32>, tensor<4x1xf32>) -> tensor<4x12xf32>
  %q, %k, %v = graph.split %a dim 1 sizes [4, 4, 4] : (tensor<4x12xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
  %o = graph.attention %q, %k, %v scale 0.5 : tensor<4x4xf32>
  func.return %o : tensor<4x4xf32>
}

// The same bias on q only: it folds (q needs no row-constant bias).
// CHECK-LABEL: func.func @query_only
// CHECK-NEXT:    %[[BF:.*]] = graph.broadcast_to %b : (tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %q, %rest = graph.split %x dim 1
// CHECK-NEXT:    %[[BQ:.*]], %{{.*}} = graph.split %[[BF]] dim 1
// CHECK-NEXT:    %[[Q:.*]] = graph.add %q, %[[BQ]]
// CHECK-NEXT:    graph.attention %[[Q]], %k, %v scale
func.func @query_only(%x: tensor<4x8xf32>, %b: tensor<4x1xf32>, %k: tensor<4x4xf32>, %v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = graph.add %x, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %q, %rest = graph.split %a dim 1 sizes [4, 4] : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %o = graph.attention %q, %k, %v scale 0.5 : tensor<4x4xf32>
  func.return %o : tensor<4x4xf32>
}

// The biased qkv is also returned: the add stays.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %a = graph.add %x, %b
// CHECK:         graph.attention %q, %k, %v scale
func.func @shared(%x: tensor<4x12xf32>, %b: tensor<12xf32>) -> (tensor<4x4xf32>, tensor<4x12xf32>) {
  %a = graph.add %x, %b : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32>
  %q, %k, %v = graph.split %a dim 1 sizes [4, 4, 4] : (tensor<4x12xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
  %o = graph.attention %q, %k, %v scale 0.5 : tensor<4x4xf32>
  func.return %o, %a : tensor<4x4xf32>, tensor<4x12xf32>
}

// q = x + b straight away: already the prologue's form, nothing to fold.
// CHECK-LABEL: func.func @direct
// CHECK-NEXT:    %q = graph.add %x, %b
// CHECK-NEXT:    graph.attention %q, %k, %v scale
func.func @direct(%x: tensor<4x4xf32>, %b: tensor<4xf32>, %k: tensor<4x4xf32>, %v: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %q = graph.add %x, %b : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %o = graph.attention %q, %k, %v scale 0.5 : tensor<4x4xf32>
  func.return %o : tensor<4x4xf32>
}

// A bf16 projection rounds once: its product is widened, the bias added in
// f32, the sum cast back. The fold narrows the product (one rounding of
// x @ W) and folds the bias as for @qkv: no epilogue kernel between the
// GEMM and the attention.
// CHECK-LABEL: func.func @qkv_widened
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %x, %w : (tensor<2x4x8xbf16>, tensor<8x24xbf16>) -> tensor<2x4x24xbf16>
// CHECK-NEXT:    %[[BF:.*]] = graph.broadcast_to %b : (tensor<24xbf16>) -> tensor<2x4x24xbf16>
// CHECK-NEXT:    %q0, %k0, %v0 = graph.split %[[P]] dim 2
// CHECK:         %[[Q:.*]] = graph.add %q, %{{.*}} : tensor<2x2x4x4xbf16>
// CHECK:         %[[A:.*]] = graph.attention %[[Q]], %k, %v causal scale 5.000000e-01 : tensor<2x2x4x4xbf16>
// CHECK-NEXT:    %[[O:.*]] = graph.add %[[A]], %{{.*}} : (tensor<2x2x4x4xbf16>, tensor<2x2x1x4xbf16>) -> tensor<2x2x4x4xbf16>
// CHECK-NEXT:    func.return %[[O]]
// UNFOLDED-LABEL: func.func @qkv_widened
// UNFOLDED-NEXT:    graph.matmul %x, %w : (tensor<2x4x8xbf16>, tensor<8x24xbf16>) -> tensor<2x4x24xf32>
func.func @qkv_widened(%x: tensor<2x4x8xbf16>, %w: tensor<8x24xbf16>, %b: tensor<24xbf16>) -> tensor<2x2x4x4xbf16> {
  %p = graph.matmul %x, %w : (tensor<2x4x8xbf16>, tensor<8x24xbf16>) -> tensor<2x4x24xf32>
  %bw = graph.cast %b : (tensor<24xbf16>) -> tensor<24xf32>
  %s = graph.add %p, %bw : (tensor<2x4x24xf32>, tensor<24xf32>) -> tensor<2x4x24xf32>
  %a = graph.cast %s : (tensor<2x4x24xf32>) -> tensor<2x4x24xbf16>
  %q0, %k0, %v0 = graph.split %a dim 2 sizes [8, 8, 8] : (tensor<2x4x24xbf16>) -> (tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>)
  %q1 = graph.reshape %q0 : (tensor<2x4x8xbf16>) -> tensor<2x4x2x4xbf16>
  %q = graph.transpose %q1 perm [0, 2, 1, 3] : (tensor<2x4x2x4xbf16>) -> tensor<2x2x4x4xbf16>
  %k1 = graph.reshape %k0 : (tensor<2x4x8xbf16>) -> tensor<2x4x2x4xbf16>
  %k = graph.transpose %k1 perm [0, 2, 1, 3] : (tensor<2x4x2x4xbf16>) -> tensor<2x2x4x4xbf16>
  %v1 = graph.reshape %v0 : (tensor<2x4x8xbf16>) -> tensor<2x4x2x4xbf16>
  %v = graph.transpose %v1 perm [0, 2, 1, 3] : (tensor<2x4x2x4xbf16>) -> tensor<2x2x4x4xbf16>
  %o = graph.attention %q, %k, %v causal scale 0.5 : tensor<2x2x4x4xbf16>
  func.return %o : tensor<2x2x4x4xbf16>
}
