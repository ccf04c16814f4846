// RUN: not fxdsl-opt %s -p convert-graph-to-gpu 2>&1 | filecheck %s

// A hand-written attention group that graph-fuse would not build: it also
// yields its q prologue, which the kernel (one output row per query) cannot
// store. An error, not a wrong result.
// CHECK: error: convert-groups-to-gpu: a fusion group with a graph.attention may hold only elementwise ops computing its query and elementwise ops of its result's shape computed from it
func.func @prologue_out(%q: tensor<2x5x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x4xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x8xf32>) {
  %a, %qs = graph.fusion_group (%q, %k, %v) : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x4xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x8xf32>) {
  ^bb0(%q1: tensor<2x5x8xf32>, %k1: tensor<2x5x8xf32>, %v1: tensor<2x5x4xf32>):
    %t = graph.tanh %q1 : tensor<2x5x8xf32>
    %o = graph.attention %t, %k1, %v1 scale 0.4 : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
    graph.yield %o, %t : tensor<2x5x4xf32>, tensor<2x5x8xf32>
  }
  func.return %a, %qs : tensor<2x5x4xf32>, tensor<2x5x8xf32>
}
