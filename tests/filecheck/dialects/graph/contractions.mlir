// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// matmul (numpy rules: batch broadcasting, 1-D operands) and linear.

// CHECK-LABEL: func.func @matmul
func.func @matmul() {
  %a = "test.op"() : () -> (tensor<4x8xf32>)
  %b = "test.op"() : () -> (tensor<8x3xf32>)
  %ba = "test.op"() : () -> (tensor<2x1x4x8xf32>)
  %bb = "test.op"() : () -> (tensor<5x8x3xf32>)
  %v = "test.op"() : () -> (tensor<8xf32>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<8x3xf32>
  // CHECK-NEXT: %[[BA:.*]] = "test.op"() : () -> tensor<2x1x4x8xf32>
  // CHECK-NEXT: %[[BB:.*]] = "test.op"() : () -> tensor<5x8x3xf32>
  // CHECK-NEXT: %[[V:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %{{.*}} = graph.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.matmul %[[BA]], %[[BB]] : (tensor<2x1x4x8xf32>, tensor<5x8x3xf32>) -> tensor<2x5x4x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.matmul %[[A]], %[[V]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %{{.*}} = graph.matmul %[[V]], %[[B]] : (tensor<8xf32>, tensor<8x3xf32>) -> tensor<3xf32>
  // CHECK-NEXT: %{{.*}} = graph.matmul %[[V]], %[[V]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %0 = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = graph.matmul %ba, %bb : (tensor<2x1x4x8xf32>, tensor<5x8x3xf32>) -> tensor<2x5x4x3xf32>
  %2 = graph.matmul %a, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %3 = graph.matmul %v, %b : (tensor<8xf32>, tensor<8x3xf32>) -> tensor<3xf32>
  %4 = graph.matmul %v, %v : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  func.return
}

// 16-bit operands may store their product in f32 (rounded once later).
// CHECK-LABEL: func.func @matmul_f32_product
// CHECK:      graph.matmul %{{.*}}, %{{.*}} : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf32>
// CHECK-NEXT: graph.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf32>
func.func @matmul_f32_product() {
  %a = "test.op"() : () -> (tensor<4x8xbf16>)
  %b = "test.op"() : () -> (tensor<8x3xbf16>)
  %c = "test.op"() : () -> (tensor<4x8xf16>)
  %d = "test.op"() : () -> (tensor<8x3xf16>)
  %0 = graph.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x3xbf16>) -> tensor<4x3xf32>
  %1 = graph.matmul %c, %d : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf32>
  func.return
}

// CHECK-LABEL: func.func @linear
func.func @linear() {
  %x = "test.op"() : () -> (tensor<2x4x8xf16>)
  %w = "test.op"() : () -> (tensor<3x8xf16>)
  %b = "test.op"() : () -> (tensor<3xf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x4x8xf16>
  // CHECK-NEXT: %[[W:.*]] = "test.op"() : () -> tensor<3x8xf16>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<3xf16>
  // CHECK-NEXT: %{{.*}} = graph.linear %[[X]], %[[W]], %[[B]] : (tensor<2x4x8xf16>, tensor<3x8xf16>, tensor<3xf16>) -> tensor<2x4x3xf16>
  // CHECK-NEXT: %{{.*}} = graph.linear %[[X]], %[[W]] : (tensor<2x4x8xf16>, tensor<3x8xf16>) -> tensor<2x4x3xf16>
  %0 = graph.linear %x, %w, %b : (tensor<2x4x8xf16>, tensor<3x8xf16>, tensor<3xf16>) -> tensor<2x4x3xf16>
  // The bias is optional.
  %1 = graph.linear %x, %w : (tensor<2x4x8xf16>, tensor<3x8xf16>) -> tensor<2x4x3xf16>
  func.return
}

// CHECK-LABEL: func.func @attention_mask
func.func @attention_mask() {
  %q = "test.op"() : () -> (tensor<2x4x8xf32>)
  %k = "test.op"() : () -> (tensor<2x6x8xf32>)
  %b = "test.op"() : () -> (tensor<4x6xi1>)
  %a = "test.op"() : () -> (tensor<2x1x6xf32>)
  %s = "test.op"() : () -> (tensor<8x8xf32>)
  // CHECK:      %[[Q:.*]] = "test.op"() : () -> tensor<2x4x8xf32>
  // CHECK-NEXT: %[[K:.*]] = "test.op"() : () -> tensor<2x6x8xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<4x6xi1>
  // CHECK-NEXT: %[[A:.*]] = "test.op"() : () -> tensor<2x1x6xf32>
  // CHECK-NEXT: %[[S:.*]] = "test.op"() : () -> tensor<8x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.attention %[[Q]], %[[K]], %[[K]], %[[B]] scale 1.250000e-01 : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<4x6xi1>) -> tensor<2x4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.attention %[[Q]], %[[K]], %[[K]], %[[A]] causal scale 1.250000e-01 : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x1x6xf32>) -> tensor<2x4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.attention %[[S]], %[[S]], %[[S]], %[[S]] scale 1.250000e-01 : tensor<8x8xf32>
  // A boolean mask (true: attend), broadcast over the batch.
  %0 = graph.attention %q, %k, %k, %b scale 0.125 : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<4x6xi1>) -> tensor<2x4x8xf32>
  // An additive mask, with causal too (both apply).
  %1 = graph.attention %q, %k, %k, %a causal scale 0.125 : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x1x6xf32>) -> tensor<2x4x8xf32>
  // Four operands of one type print in the short form.
  %2 = graph.attention %s, %s, %s, %s scale 0.125 : tensor<8x8xf32>
  func.return
}
