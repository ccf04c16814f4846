// RUN: not fxdsl-opt %s -p 'cse{x' 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: not fxdsl-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not fxdsl-opt %s -t no-such-target 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not fxdsl-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not fxdsl-opt %s -o %t.dir/missing/out.mlir 2>&1 | filecheck %s --check-prefix=OUTDIR
// RUN: fxdsl-opt %s -p cse,dce -o %t && filecheck %s --check-prefix=OUT < %t

// Bad options and files are one `error:` line and exit code 1 (`not` checks
// the code is non-zero); `-o` writes the output only when the run succeeds.

// SPEC-NOT: Traceback
// SPEC: fxdsl-opt-options.mlir: error: Error parsing pass pipeline specification
// PASS: fxdsl-opt-options.mlir: error: Unrecognized passes: ['no-such-pass']
// TARGET: error: argument -t/--target: invalid choice: 'no-such-target'
// MISSING: error: no such file: {{.*}}fxdsl-opt-options.mlir.missing
// OUTDIR: error: cannot write {{.*}}missing/out.mlir: No such file or directory

// OUT-LABEL: func.func @f
// OUT-NEXT:    %[[Y:.*]] = graph.neg %{{.*}} : tensor<4xf32>
// OUT-NEXT:    func.return %[[Y]], %[[Y]] : tensor<4xf32>, tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.neg %x : tensor<4xf32>
  %b = graph.neg %x : tensor<4xf32>
  %dead = graph.exp %x : tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}
