// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// Convolution, pooling and batch norm (NCHW / NCW). Window properties print
// in name order; the output size is torch's.

// CHECK-LABEL: func.func @conv
func.func @conv() {
  %x = "test.op"() : () -> (tensor<1x8x9x9xf32>)
  %w = "test.op"() : () -> (tensor<4x8x3x3xf32>)
  %b = "test.op"() : () -> (tensor<4xf32>)
  %dw = "test.op"() : () -> (tensor<8x1x3x3xf32>)
  %p = "test.op"() : () -> (tensor<16x8x3x3xf32>)
  %s = "test.op"() : () -> (tensor<1x8x16xf16>)
  %k = "test.op"() : () -> (tensor<4x8x3xf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<1x8x9x9xf32>
  // CHECK-NEXT: %[[W:.*]] = "test.op"() : () -> tensor<4x8x3x3xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<4xf32>
  // CHECK-NEXT: %[[DW:.*]] = "test.op"() : () -> tensor<8x1x3x3xf32>
  // CHECK-NEXT: %[[P:.*]] = "test.op"() : () -> tensor<16x8x3x3xf32>
  // CHECK-NEXT: %[[S:.*]] = "test.op"() : () -> tensor<1x8x16xf16>
  // CHECK-NEXT: %[[K:.*]] = "test.op"() : () -> tensor<4x8x3xf16>
  // CHECK-NEXT: %{{.*}} = graph.conv2d %[[X]], %[[W]], %[[B]] dilation [1, 1] groups 1 padding [1, 1] stride [2, 2] : (tensor<1x8x9x9xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  // CHECK-NEXT: %{{.*}} = graph.conv2d %[[X]], %[[DW]] dilation [2, 2] groups 8 padding [2, 2] stride [1, 1] : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32>
  // CHECK-NEXT: %{{.*}} = graph.conv2d %[[X]], %[[P]] dilation [1, 1] groups 1 padding [0, 0] stride [3, 3] : (tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x3x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.conv1d %[[S]], %[[K]] dilation [1] groups 1 padding [1] stride [2] : (tensor<1x8x16xf16>, tensor<4x8x3xf16>) -> tensor<1x4x8xf16>
  %0 = graph.conv2d %x, %w, %b dilation [1, 1] groups 1 padding [1, 1] stride [2, 2] : (tensor<1x8x9x9xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  // Depthwise (groups = channels), dilated, no bias.
  %1 = graph.conv2d %x, %dw dilation [2, 2] groups 8 padding [2, 2] stride [1, 1] : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32>
  // Stride = kernel: a patch embedding. Properties may come in any order.
  %2 = graph.conv2d %x, %p stride [3, 3] padding [0, 0] groups 1 dilation [1, 1] : (tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x3x3xf32>
  %3 = graph.conv1d %s, %k dilation [1] groups 1 padding [1] stride [2] : (tensor<1x8x16xf16>, tensor<4x8x3xf16>) -> tensor<1x4x8xf16>
  func.return
}

// CHECK-LABEL: func.func @pool
func.func @pool() {
  %x = "test.op"() : () -> (tensor<1x8x15x15xf32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<1x8x15x15xf32>
  // CHECK-NEXT: %{{.*}} = graph.max_pool2d %[[X]] dilation [1, 1] kernel [3, 3] padding [1, 1] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x8x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.max_pool2d %[[X]] ceil_mode dilation [1, 1] kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x8x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.avg_pool2d %[[X]] count_include_pad kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x7x7xf32>
  // CHECK-NEXT: %{{.*}} = graph.avg_pool2d %[[X]] ceil_mode kernel [3, 3] padding [1, 1] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x8x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.adaptive_avg_pool2d %[[X]] : (tensor<1x8x15x15xf32>) -> tensor<1x8x4x2xf32>
  // CHECK-NEXT: %{{.*}} = graph.avg_pool2d %[[X]] divisor_override 3 kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x7x7xf32>
  %0 = graph.max_pool2d %x dilation [1, 1] kernel [3, 3] padding [1, 1] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x8x8xf32>
  // ceil_mode keeps the last, partial window.
  %1 = graph.max_pool2d %x ceil_mode dilation [1, 1] kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x8x8xf32>
  %2 = graph.avg_pool2d %x count_include_pad kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x7x7xf32>
  %3 = graph.avg_pool2d %x ceil_mode kernel [3, 3] padding [1, 1] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x8x8xf32>
  // The result type gives the output size.
  %4 = graph.adaptive_avg_pool2d %x : (tensor<1x8x15x15xf32>) -> tensor<1x8x4x2xf32>
  // divisor_override divides every window (torch's avg_pool2d argument).
  %5 = graph.avg_pool2d %x divisor_override 3 kernel [2, 2] padding [0, 0] stride [2, 2] : (tensor<1x8x15x15xf32>) -> tensor<1x8x7x7xf32>
  func.return
}

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm() {
  %x = "test.op"() : () -> (tensor<2x8x4x4xbf16>)
  %c = "test.op"() : () -> (tensor<8xbf16>)
  %v = "test.op"() : () -> (tensor<2x8xf32>)
  %d = "test.op"() : () -> (tensor<8xf32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<2x8x4x4xbf16>
  // CHECK-NEXT: %[[C:.*]] = "test.op"() : () -> tensor<8xbf16>
  // CHECK-NEXT: %[[V:.*]] = "test.op"() : () -> tensor<2x8xf32>
  // CHECK-NEXT: %[[D:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %{{.*}} = graph.batch_norm %[[X]], %[[C]], %[[C]], %[[C]], %[[C]] eps 1.000000e-03 : (tensor<2x8x4x4xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<2x8x4x4xbf16>
  // CHECK-NEXT: %{{.*}} = graph.batch_norm %[[V]], %[[D]], %[[D]], %[[D]], %[[D]] eps 1.000000e-05 : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %0 = graph.batch_norm %x, %c, %c, %c, %c eps 1.0e-03 : (tensor<2x8x4x4xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<2x8x4x4xbf16>
  // BatchNorm1d over (N, C).
  %1 = graph.batch_norm %v, %d, %d, %d, %d eps 1.0e-05 : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  func.return
}

// 16-bit operands may keep a conv's sums in f32 (for a bias added later).
// CHECK-LABEL: func.func @conv_f32_sums
// CHECK: graph.conv2d %{{.*}}, %{{.*}} dilation [1, 1] groups 1 padding [1, 1] stride [1, 1] : (tensor<1x2x4x4xbf16>, tensor<3x2x3x3xbf16>) -> tensor<1x3x4x4xf32>
func.func @conv_f32_sums() {
  %x = "test.op"() : () -> (tensor<1x2x4x4xbf16>)
  %w = "test.op"() : () -> (tensor<3x2x3x3xbf16>)
  %y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [1, 1] stride [1, 1] : (tensor<1x2x4x4xbf16>, tensor<3x2x3x3xbf16>) -> tensor<1x3x4x4xf32>
  func.return
}
