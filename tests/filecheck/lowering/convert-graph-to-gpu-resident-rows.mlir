// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s

// A softmax row of 1280 floats is 320 float4 steps: 160 threads take 2 steps
// each and hold them in registers. Each thread loads its two float4s once;
// the max, the sum of exponentials and the store all reuse the extracted
// lanes, and the store reuses the sum's 8 exponentials (no loop over the
// row: the row loop is the only scf.for).
// CHECK-LABEL: func.func @softmax
// CHECK:         %[[THREADS:.*]] = arith.constant 160 : index
// CHECK:         "gpu.launch_func"({{.*}}, %[[THREADS]], {{.*}}, %x, %{{.*}}) <{kernel = @kernels::@softmax_0_softmax
// CHECK:       "gpu.func"()
// CHECK:         scf.for
// CHECK-NOT:       scf.for
// CHECK:           vector.load %{{.*}}[%[[R:.*]], %[[J0:.*]]] :
// CHECK:           vector.load %{{.*}}[%[[R]], %[[J1:.*]]] :
// CHECK-NOT:       vector.load
// CHECK:           "gpu.all_reduce"
// CHECK-COUNT-8:   math.exp
// CHECK:           "gpu.all_reduce"
// CHECK-NOT:       {{vector.extract|math.exp}}
// CHECK:           vector.store %{{.*}}, %{{.*}}[%[[R]], %[[J0]]] :
// CHECK-NOT:       {{vector.extract|math.exp}}
// CHECK:           vector.store %{{.*}}, %{{.*}}[%[[R]], %[[J1]]] :
// CHECK-NOT:       vector.load
// CHECK-NOT:       scf.for
// CHECK:         }) {sym_name = "softmax_0_softmax", gpu.kernel, workgroup_attributions = 0 : i64}
func.func @softmax(%x: tensor<2x1280xf32>) -> tensor<2x1280xf32> {
  %y = graph.softmax %x dim 1 : tensor<2x1280xf32>
  func.return %y : tensor<2x1280xf32>
}
