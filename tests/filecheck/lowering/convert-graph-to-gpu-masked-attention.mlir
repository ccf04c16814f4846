// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s

// A padded causal attention (the mask HF builds for a padded batch, folded
// to one element per key) is one attention kernel that reads the mask as
// a buffer. Each of the 4 keys of a loop step loads its mask element (an
// i1 at [batch, 0, 0, key]: the mask broadcasts over heads and rows) and
// selects -inf for a masked key. A step whose keys are all masked so far
// has a running max of -inf: the exponents then subtract 0 (a select on
// `max == -inf`), not -inf, which would be NaN. A row without any key
// (l = 0) stores zeros.
// CHECK-LABEL: func.func @padded
// CHECK:         "gpu.launch_func"({{.*}}, %q, %k, %v, %m, %{{.*}}) <{kernel = @kernels::@padded_0_attention
// CHECK-NOT:     gpu.launch_func
// CHECK:       "gpu.func"()
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-4:   memref.load %{{.*}}[%{{.*}}, %[[ZERO:.*]], %[[ZERO]], %{{.*}}] : memref<2x1x1x8xi1>
// CHECK-COUNT-3:   arith.maximumf
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf
// CHECK-NEXT:      %[[EMPTY:.*]] = arith.cmpf oeq, %[[MAX]], %[[NEG_INF:.*]] : f32
// CHECK-NEXT:      %[[SHIFT:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[MAX]] : f32
// CHECK-NEXT:      arith.subf %{{.*}}, %[[SHIFT]] : f32
// CHECK-COUNT-5:   math.exp2
// CHECK:           scf.yield
// CHECK:         %[[INV:.*]] = arith.divf
// CHECK-NEXT:    %[[KEPT:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    arith.select %[[KEPT]], %[[INV]], %{{.*}} : f32
// CHECK:         }) {sym_name = "padded_0_attention", gpu.kernel, workgroup_attributions = 0 : i64}
func.func @padded(%q: tensor<2x2x8x8xf32>, %k: tensor<2x2x8x8xf32>, %v: tensor<2x2x8x8xf32>, %m: tensor<2x1x1x8xi1>) -> tensor<2x2x8x8xf32> {
  %o = graph.attention %q, %k, %v, %m causal scale 0.35 : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x1x1x8xi1>) -> tensor<2x2x8x8xf32>
  func.return %o : tensor<2x2x8x8xf32>
}
