// RUN: not fxdsl-opt %s --split-input-file | fxdsl-opt --split-input-file | filecheck %s
// RUN: not fxdsl-opt %s --split-input-file --print-op-generic | fxdsl-opt --split-input-file | filecheck %s
// RUN: fxdsl-opt %s --split-input-file --parsing-diagnostics | filecheck %s --check-prefix=BAD
// RUN: not fxdsl-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=FIRST

// #graph.signature round-trips: names are string literals (quotes and
// backslashes escaped), either side may be empty. graph.name is a plain
// discardable attribute on ops and arguments.

// CHECK: builtin.module attributes {graph.call_signatures = {enc = #graph.signature<("x", "m\22q") -> ("y", "aux")>, "enc@1" = #graph.signature<() -> ()>}}
// CHECK-NEXT: func.func @named(%{{.*}}: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
// CHECK-NEXT:   %{{.*}} = graph.exp %{{.*}} {graph.name = "y"} : tensor<4xf32>
module attributes {graph.call_signatures = {"enc" = #graph.signature<("x", "m\"q") -> ("y", "aux")>, "enc@1" = #graph.signature<() -> ()>}} {
  func.func @named(%x: tensor<4xf32> {graph.name = "x"}) -> tensor<4xf32> {
    %y = graph.exp %x {graph.name = "y"} : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// -----

// FIRST: signature.mlir:[[# @LINE + 3]]:43: error: Expected '->'
// BAD: signature.mlir:[[# @LINE + 2]]:43
// BAD: Expected '->'
"test.op"() {sig = #graph.signature<("x") ("y")>} : () -> ()

// -----

// BAD: signature.mlir:[[# @LINE + 2]]:38
// BAD: string literal expected
"test.op"() {sig = #graph.signature<(x) -> ("y")>} : () -> ()
