// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// The six kernel element types (f32, f16, bf16, i64, i32, i1) through ops that accept
// them, and ranks 0 to 4.

// CHECK-LABEL: func.func @element_types
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf16>, %[[C:.*]]: tensor<2xbf16>, %[[D:.*]]: tensor<2xi64>, %[[E:.*]]: tensor<2xi32>, %[[F:.*]]: tensor<2xi1>)
func.func @element_types(%a: tensor<2xf32>, %b: tensor<2xf16>, %c: tensor<2xbf16>, %d: tensor<2xi64>, %e: tensor<2xi32>, %f: tensor<2xi1>) {
  // CHECK-NEXT: graph.add %[[A]], %[[A]] : tensor<2xf32>
  // CHECK-NEXT: graph.add %[[B]], %[[B]] : tensor<2xf16>
  // CHECK-NEXT: graph.add %[[C]], %[[C]] : tensor<2xbf16>
  // CHECK-NEXT: graph.add %[[D]], %[[D]] : tensor<2xi64>
  // CHECK-NEXT: graph.add %[[E]], %[[E]] : tensor<2xi32>
  // CHECK-NEXT: graph.eq %[[F]], %[[F]] : tensor<2xi1>
  // CHECK-NEXT: graph.select %[[F]], %[[D]], %[[D]] : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // CHECK-NEXT: graph.exp %[[B]] : tensor<2xf16>
  // CHECK-NEXT: graph.exp %[[C]] : tensor<2xbf16>
  // CHECK-NEXT: graph.cast %[[F]] : (tensor<2xi1>) -> tensor<2xbf16>
  // CHECK-NEXT: graph.cast %[[E]] : (tensor<2xi32>) -> tensor<2xf32>
  // CHECK-NEXT: graph.sum %[[F]] dims [0] : (tensor<2xi1>) -> tensor<i1>
  // CHECK-NEXT: graph.neg %[[E]] : tensor<2xi32>
  %0 = graph.add %a, %a : tensor<2xf32>
  %1 = graph.add %b, %b : tensor<2xf16>
  %2 = graph.add %c, %c : tensor<2xbf16>
  %3 = graph.add %d, %d : tensor<2xi64>
  %4 = graph.add %e, %e : tensor<2xi32>
  // Comparisons of i1 give i1, so the short signature applies.
  %5 = graph.eq %f, %f : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %6 = graph.select %f, %d, %d : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %7 = graph.exp %b : tensor<2xf16>
  %8 = graph.exp %c : tensor<2xbf16>
  %9 = graph.cast %f : (tensor<2xi1>) -> tensor<2xbf16>
  %10 = graph.cast %e : (tensor<2xi32>) -> tensor<2xf32>
  %11 = graph.sum %f dims [0] : (tensor<2xi1>) -> tensor<i1>
  %12 = graph.neg %e : tensor<2xi32>
  func.return
}

// CHECK-LABEL: func.func @ranks
func.func @ranks(%s: tensor<f32>, %v: tensor<3xf32>, %t: tensor<2x3x4x5xf32>) {
  // CHECK-NEXT: graph.mul %{{.*}}, %{{.*}} : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK-NEXT: graph.mul %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  // CHECK-NEXT: graph.neg %{{.*}} : tensor<f32>
  %0 = graph.mul %s, %v : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = graph.mul %s, %t : (tensor<f32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %2 = graph.neg %s : tensor<f32>
  func.return
}

// The types only the reference interpreter computes in (f64, i16, i8, ui8)
// round-trip as the others do.
// CHECK-LABEL: func.func @reference_only_types
// CHECK-NEXT: graph.exp %{{.*}} : tensor<2xf64>
// CHECK-NEXT: graph.add %{{.*}}, %{{.*}} : tensor<2xi16>
// CHECK-NEXT: graph.cast %{{.*}} : (tensor<2xi8>) -> tensor<2xui8>
// CHECK-NEXT: graph.cast %{{.*}} : (tensor<2xui8>) -> tensor<2xf64>
func.func @reference_only_types(%a: tensor<2xf64>, %b: tensor<2xi16>, %c: tensor<2xi8>) {
  %0 = graph.exp %a : tensor<2xf64>
  %1 = graph.add %b, %b : tensor<2xi16>
  %2 = graph.cast %c : (tensor<2xi8>) -> tensor<2xui8>
  %3 = graph.cast %2 : (tensor<2xui8>) -> tensor<2xf64>
  func.return
}
