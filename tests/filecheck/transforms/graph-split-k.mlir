// RUN: fxdsl-opt %s -p graph-split-k | filecheck %s
// RUN: fxdsl-opt %s -p graph-split-k | fxdsl-opt -p graph-split-k | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-split-k{splits=4}' | filecheck %s --check-prefix=FOUR
// RUN: fxdsl-opt %s -p 'graph-split-k{max-rows=32}' | filecheck %s --check-prefix=ROWS
// RUN: fxdsl-opt %s -p graph-split-k,graph-fuse | filecheck %s --check-prefix=FUSE
// RUN: not fxdsl-opt %s -p 'graph-split-k{splits=1}' 2>&1 | filecheck %s --check-prefix=ONE
// RUN: not fxdsl-opt %s -p 'graph-split-k{max-rows=0}' 2>&1 | filecheck %s --check-prefix=NO-ROWS
// RUN: not fxdsl-opt %s -p 'graph-split-k{splits=-2}' 2>&1 | filecheck %s --check-prefix=NEG

// The second RUN line checks idempotence: the batched product has a 3-D
// weight, which the pass leaves alone.

// GPT-2's c_attn at B=1, T=64: 36 output tiles of 64x64, so K=768 is split
// 8 ways (288 tiles), chunks of 96. x's batch dim counts as rows and comes
// back in a view of the partial products, before their sum.
// CHECK-LABEL: func.func @c_attn
// CHECK-NEXT:    %[[XR:.*]] = graph.reshape %x {scope = #graph.scope<("attn", 0, "A")>} : (tensor<1x64x768xf32>) -> tensor<64x8x96xf32>
// CHECK-NEXT:    %[[XT:.*]] = graph.transpose %[[XR]] perm [1, 0, 2] {{.*}}: (tensor<64x8x96xf32>) -> tensor<8x64x96xf32>
// CHECK-NEXT:    %[[WR:.*]] = graph.reshape %w {{.*}}: (tensor<768x2304xf32>) -> tensor<8x96x2304xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %[[XT]], %[[WR]] {{.*}}: (tensor<8x64x96xf32>, tensor<8x96x2304xf32>) -> tensor<8x64x2304xf32>
// CHECK-NEXT:    %[[PV:.*]] = graph.reshape %[[P]] {{.*}}: (tensor<8x64x2304xf32>) -> tensor<8x1x64x2304xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.sum %[[PV]] dims [0] {{.*}}: (tensor<8x1x64x2304xf32>) -> tensor<1x64x2304xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.add %[[S]], %b
// CHECK-NEXT:    func.return %[[Y]]
// FOUR-LABEL: func.func @c_attn
// FOUR:         graph.matmul {{.*}} -> tensor<4x64x2304xf32>
// ROWS-LABEL: func.func @c_attn
// ROWS-NEXT:    graph.matmul %x, %w
// FUSE-LABEL: func.func @c_attn
// FUSE:         %[[P:.*]] = graph.matmul
// FUSE-NEXT:    graph.fusion_group (%[[P]], %b)
// FUSE-NEXT:    ^bb0(%[[A:.*]]: tensor<8x64x2304xf32>, %{{.*}}: tensor<2304xf32>):
// FUSE-NEXT:      %[[V:.*]] = graph.reshape %[[A]]
// FUSE-NEXT:      graph.sum %[[V]] dims [0]
// FUSE-NEXT:      graph.add
// FUSE-NEXT:      graph.yield
func.func @c_attn(%x: tensor<1x64x768xf32>, %w: tensor<768x2304xf32>, %b: tensor<2304xf32>) -> tensor<1x64x2304xf32> {
  %m = graph.matmul %x, %w {scope = #graph.scope<("attn", 0, "A")>} : (tensor<1x64x768xf32>, tensor<768x2304xf32>) -> tensor<1x64x2304xf32>
  %y = graph.add %m, %b : (tensor<1x64x2304xf32>, tensor<2304xf32>) -> tensor<1x64x2304xf32>
  func.return %y : tensor<1x64x2304xf32>
}

// A 2-D x, 12 tiles: the most splits (16) that keep chunks of >= 32.
// CHECK-LABEL: func.func @c_proj
// CHECK-NEXT:    graph.reshape %x : (tensor<64x768xf32>) -> tensor<64x16x48xf32>
// CHECK-NEXT:    graph.transpose {{.*}} perm [1, 0, 2] : (tensor<64x16x48xf32>) -> tensor<16x64x48xf32>
// CHECK-NEXT:    graph.reshape %w : (tensor<768x768xf32>) -> tensor<16x48x768xf32>
// CHECK-NEXT:    graph.matmul {{.*}} -> tensor<16x64x768xf32>
// CHECK-NEXT:    graph.sum {{.*}} dims [0] : (tensor<16x64x768xf32>) -> tensor<64x768xf32>
func.func @c_proj(%x: tensor<64x768xf32>, %w: tensor<768x768xf32>) -> tensor<64x768xf32> {
  %m = graph.matmul %x, %w : (tensor<64x768xf32>, tensor<768x768xf32>) -> tensor<64x768xf32>
  func.return %m : tensor<64x768xf32>
}

// Left alone: too many rows, f16, a batched weight, and a K (60) that no
// split divides into chunks of >= 32. K=66 splits in 2 (chunks of 33).
// With splits=4 the user's S applies whatever the chunk (60 -> 15), and a K
// that 4 does not divide (66) is left alone.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    graph.matmul %big, %w : (tensor<512x768xf32>
// CHECK-NEXT:    graph.matmul %h, %hw : (tensor<64x768xf16>
// CHECK-NEXT:    graph.matmul %q, %k : (tensor<2x64x768xf32>, tensor<2x768x64xf32>)
// CHECK-NEXT:    graph.matmul %s, %sw : (tensor<64x60xf32>
// CHECK:         graph.matmul {{.*}} : (tensor<2x64x33xf32>, tensor<2x33x768xf32>) -> tensor<2x64x768xf32>
// FOUR-LABEL: func.func @kept
// FOUR:         graph.matmul {{.*}} : (tensor<4x64x15xf32>, tensor<4x15x768xf32>) -> tensor<4x64x768xf32>
// FOUR:         graph.matmul %t, %tw : (tensor<64x66xf32>
func.func @kept(%big: tensor<512x768xf32>, %w: tensor<768x768xf32>, %h: tensor<64x768xf16>, %hw: tensor<768x768xf16>, %q: tensor<2x64x768xf32>, %k: tensor<2x768x64xf32>, %s: tensor<64x60xf32>, %sw: tensor<60x768xf32>, %t: tensor<64x66xf32>, %tw: tensor<66x768xf32>) -> (tensor<512x768xf32>, tensor<64x768xf16>, tensor<2x64x64xf32>, tensor<64x768xf32>, tensor<64x768xf32>) {
  %a = graph.matmul %big, %w : (tensor<512x768xf32>, tensor<768x768xf32>) -> tensor<512x768xf32>
  %b = graph.matmul %h, %hw : (tensor<64x768xf16>, tensor<768x768xf16>) -> tensor<64x768xf16>
  %c = graph.matmul %q, %k : (tensor<2x64x768xf32>, tensor<2x768x64xf32>) -> tensor<2x64x64xf32>
  %d = graph.matmul %s, %sw : (tensor<64x60xf32>, tensor<60x768xf32>) -> tensor<64x768xf32>
  %e = graph.matmul %t, %tw : (tensor<64x66xf32>, tensor<66x768xf32>) -> tensor<64x768xf32>
  func.return %a, %b, %c, %d, %e : tensor<512x768xf32>, tensor<64x768xf16>, tensor<2x64x64xf32>, tensor<64x768xf32>, tensor<64x768xf32>
}

// ONE: error: graph-split-k: splits=1 splits nothing; use >= 2, or 0 to choose
// NO-ROWS: error: graph-split-k: max-rows must be an integer >= 1, got 0
// NEG: error: graph-split-k: splits must be an integer >= 0, got -2
