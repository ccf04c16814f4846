// RUN: fxdsl-opt %s -p graph-unflatten -t dot | filecheck %s

// -t dot after graph-unflatten: each module function is a cluster nested in
// the cluster of its first caller, right after the call node, labelled with
// the fqns it is called as; the other calls of a shared function point at
// its cluster with a dashed edge that does not constrain the layout.

// CHECK:      subgraph cluster_main {
// CHECK-NEXT:   label="@main";
// CHECK:        [[ENC_CALL:n[0-9]+]] [label="encoder (Encoder)\ncall @encoder\n4xf32", style="rounded,bold"];
// CHECK-NEXT:   subgraph cluster_encoder {
// CHECK-NEXT:     label="encoder (Encoder)\n@encoder";
// CHECK-NEXT:     style=rounded; color="#1a73e8";
// CHECK-NEXT:     [[ENC_X:n[0-9]+]] [label="%x\n4xf32", shape=invhouse
// CHECK:          [[NEG:n[0-9]+]] [label="graph.neg\n4xf32"];
// CHECK-NEXT:     [[L0:n[0-9]+]] [label="layers.0 (Layer)\ncall @encoder.layers.0\n4xf32", style="rounded,bold"];
// CHECK-NEXT:     subgraph cluster_encoder_layers_0 {
// CHECK-NEXT:       label="encoder.layers.0 (Layer)\n+ encoder.layers.1\n+ encoder.layers.2\n@encoder.layers.0";
// CHECK-NEXT:       style=rounded; color="#1a73e8";
// CHECK-NEXT:       [[LAYER_A:n[0-9]+]] [label="%a\n4xf32", shape=invhouse
// CHECK-NEXT:       [[LAYER_W:n[0-9]+]] [label="%w0\n4xf32\nw", shape=cylinder
// CHECK-NEXT:       [[MUL:n[0-9]+]] [label="graph.mul\n4xf32"];
// CHECK-NEXT:       [[LAYER_RET:n[0-9]+]] [label="return", shape=house
// CHECK-NEXT:     }
// The shared function is drawn once: later calls are plain call nodes.
// CHECK-NEXT:     [[L1:n[0-9]+]] [label="layers.1 (Layer)\ncall @encoder.layers.0\n4xf32", style="rounded,bold"];
// CHECK-NEXT:     [[L2:n[0-9]+]] [label="layers.2 (Layer)\ncall @encoder.layers.0\n4xf32", style="rounded,bold"];
// CHECK-NEXT:     [[ENC_RET:n[0-9]+]] [label="return", shape=house
// CHECK-NEXT:   }
// CHECK-NEXT:   [[TANH:n[0-9]+]] [label="graph.tanh\n4xf32"];
// CHECK-NEXT:   [[RET:n[0-9]+]] [label="return", shape=house
// CHECK-NEXT: }
// CHECK-NOT:  subgraph
// CHECK:      [[L0]] -> [[L1]] [label="4xf32"];
// CHECK:      [[ENC_CALL]] -> [[ENC_X]] [lhead=cluster_encoder, style=dashed, color="#1a73e8", arrowhead=empty];
// CHECK-NEXT: [[L0]] -> [[LAYER_A]] [lhead=cluster_encoder_layers_0, style=dashed, color="#1a73e8", arrowhead=empty];
// CHECK-NEXT: [[L1]] -> [[LAYER_A]] [lhead=cluster_encoder_layers_0, style=dashed, color="#1a73e8", arrowhead=empty, constraint=false];
// CHECK-NEXT: [[L2]] -> [[LAYER_A]] [lhead=cluster_encoder_layers_0, style=dashed, color="#1a73e8", arrowhead=empty, constraint=false];
// CHECK-NEXT: }

func.func @main(%x: tensor<4xf32>,
                %w0: tensor<4xf32> {graph.param = "encoder.layers.0.w"},
                %w1: tensor<4xf32> {graph.param = "encoder.layers.1.w"},
                %w2: tensor<4xf32> {graph.param = "encoder.layers.2.w"}) -> tensor<4xf32> {
  %a = graph.neg %x {scope = #graph.scope<("encoder", 0, "Encoder")>} : tensor<4xf32>
  %b = graph.mul %a, %w0 {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.0", 0, "Layer")>} : tensor<4xf32>
  %c = graph.mul %b, %w1 {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.1", 0, "Layer")>} : tensor<4xf32>
  %d = graph.mul %c, %w2 {scope = #graph.scope<("encoder", 0, "Encoder"), ("encoder.layers.2", 0, "Layer")>} : tensor<4xf32>
  %e = graph.tanh %d : tensor<4xf32>
  func.return %e : tensor<4xf32>
}
