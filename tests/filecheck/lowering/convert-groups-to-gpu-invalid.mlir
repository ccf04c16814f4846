// RUN: not fxdsl-opt %s -p convert-groups-to-gpu 2>&1 | filecheck %s

// Groups must be bufferized first.
// CHECK: error: convert-groups-to-gpu: group input is not a bufferized buffer; run graph-bufferize first
func.func @not_bufferized(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = graph.fusion_group (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = graph.exp %a : tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  func.return %g : tensor<4xf32>
}
