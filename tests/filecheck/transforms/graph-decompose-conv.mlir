// RUN: fxdsl-opt %s -p graph-decompose | filecheck %s
// RUN: fxdsl-opt %s -p graph-decompose,graph-fuse,cse,convert-graph-to-gpu | filecheck %s --check-prefix=GPU

// Batch norm: x * a + (bias - mean * a), a = weight * rsqrt(var + eps), the
// parameters reshaped to broadcast over the channel dim; provenance kept.
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %[[M:.*]] = graph.reshape %m {scope = #graph.scope<("bn", 0, "BatchNorm2d")>} : (tensor<4xf32>) -> tensor<4x1x1xf32>
// CHECK-NEXT:    %[[V:.*]] = graph.reshape %v {{.*}} -> tensor<4x1x1xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w {{.*}} -> tensor<4x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %b {{.*}} -> tensor<4x1x1xf32>
// CHECK-NEXT:    %[[EPS:.*]] = graph.full value 1.000000e-03 {{.*}} : tensor<f32>
// CHECK-NEXT:    %[[VE:.*]] = graph.add %[[V]], %[[EPS]]
// CHECK-NEXT:    %[[R:.*]] = graph.rsqrt %[[VE]]
// CHECK-NEXT:    %[[A:.*]] = graph.mul %[[W]], %[[R]]
// CHECK-NEXT:    %[[MA:.*]] = graph.mul %[[M]], %[[A]]
// CHECK-NEXT:    %[[SHIFT:.*]] = graph.sub %[[B]], %[[MA]]
// CHECK-NEXT:    %[[XA:.*]] = graph.mul %x, %[[A]] {{.*}} : (tensor<2x4x3x3xf32>, tensor<4x1x1xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.add %[[XA]], %[[SHIFT]]
// CHECK-NEXT:    func.return %[[Y]]
// GPU-LABEL: func.func @batch_norm
// GPU-COUNT-1: gpu.launch_func
// GPU-NOT:     gpu.launch_func
// GPU:         func.return
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %y = graph.batch_norm %x, %m, %v, %w, %b eps 1.0e-03 {scope = #graph.scope<("bn", 0, "BatchNorm2d")>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  func.return %y : tensor<2x4x3x3xf32>
}

// BatchNorm1d over (N, C): the parameters broadcast as they are.
// CHECK-LABEL: func.func @batch_norm_1d
// CHECK-NOT:     graph.reshape
// CHECK:         graph.mul %x, %{{.*}} : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
func.func @batch_norm_1d(%x: tensor<8x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %y = graph.batch_norm %x, %m, %v, %w, %b eps 1.0e-05 : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}

// A conv block (conv -> bias -> relu -> + residual): the bias is split off
// as an add; the columns (padding, 9 taps, their stack) are one kernel, the
// GEMM a library call, and bias, relu and residual ONE epilogue kernel.
// CHECK-LABEL: func.func @conv_block
// CHECK-COUNT-2: graph.concat {{.*}} dim {{[23]}}
// CHECK-COUNT-9: graph.slice
// CHECK:         %[[STACK:.*]] = graph.concat {{.*}} dim 3 : {{.*}} -> tensor<1x1x8x9x36xf32>
// CHECK-NEXT:    %[[COLS:.*]] = graph.cast %[[STACK]] : tensor<1x1x8x9x36xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.reshape %[[COLS]] : (tensor<1x1x8x9x36xf32>) -> tensor<72x36xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (tensor<16x8x3x3xf32>) -> tensor<16x72xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %[[W]], %[[C]] {graph.conv_gemm} : (tensor<16x72xf32>, tensor<72x36xf32>) -> tensor<16x36xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.reshape %[[P]] : (tensor<16x36xf32>) -> tensor<1x16x6x6xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %b : (tensor<16xf32>) -> tensor<16x1x1xf32>
// CHECK-NEXT:    %[[YB:.*]] = graph.add %[[Y]], %[[B]]
// CHECK-NEXT:    graph.relu %[[YB]]
// GPU-LABEL: func.func @conv_block
// GPU:         gpu.launch_func{{.*}}@conv_block_0_cast
// GPU:         library_call = "cublas_gemm_strided_batched"
// GPU-SAME:    attrs = {graph.conv_gemm}
// GPU:         gpu.launch_func{{.*}}@conv_block_1_add
// GPU-NOT:     gpu.launch_func
// GPU:         func.return
func.func @conv_block(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %r: tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %c = graph.conv2d %x, %w, %b dilation [1, 1] groups 1 padding [1, 1] stride [1, 1] : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  %a = graph.relu %c : tensor<1x16x6x6xf32>
  %y = graph.add %a, %r : tensor<1x16x6x6xf32>
  func.return %y : tensor<1x16x6x6xf32>
}

// ViT's patch embedding (stride = kernel): a reshape + transpose of the
// input into patches and ONE matmul, no taps.
// CHECK-LABEL: func.func @patches
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %x : (tensor<1x3x32x32xf32>) -> tensor<1x3x4x8x4x8xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[R]] perm [0, 1, 3, 5, 2, 4] : (tensor<1x3x4x8x4x8xf32>) -> tensor<1x3x8x8x4x4xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.reshape %[[T]] : (tensor<1x3x8x8x4x4xf32>) -> tensor<1x192x16xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (tensor<32x3x8x8xf32>) -> tensor<32x192xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %[[W]], %[[C]] {graph.conv_gemm} : (tensor<32x192xf32>, tensor<1x192x16xf32>) -> tensor<1x32x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.reshape %[[P]] : (tensor<1x32x16xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// GPU-LABEL:     func.func @patches
// GPU-COUNT-1:   library_call = "cublas_gemm_strided_batched"
// GPU-NOT:       library_call
// GPU:           func.return
func.func @patches(%x: tensor<1x3x32x32xf32>, %w: tensor<32x3x8x8xf32>) -> tensor<1x32x4x4xf32> {
  %y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [8, 8] : (tensor<1x3x32x32xf32>, tensor<32x3x8x8xf32>) -> tensor<1x32x4x4xf32>
  func.return %y : tensor<1x32x4x4xf32>
}

// Grouped conv on a batch of 2: columns ordered (G, C/G KK, N L), one GEMM
// batched over the groups, its (O, N, L) result transposed to NCHW.
// CHECK-LABEL: func.func @grouped_batched
// CHECK-COUNT-2: graph.slice %x
// CHECK:         %[[S:.*]] = graph.concat {{.*}} dim 3 : {{.*}} -> tensor<2x2x2x2x30xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[S]] perm [1, 2, 3, 0, 4]
// CHECK-NEXT:    %[[C:.*]] = graph.cast %[[T]]
// CHECK-NEXT:    %[[CR:.*]] = graph.reshape %[[C]] : (tensor<2x2x2x2x30xf32>) -> tensor<2x4x60xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (tensor<6x2x1x2xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %[[W]], %[[CR]] {graph.conv_gemm} : (tensor<2x3x4xf32>, tensor<2x4x60xf32>) -> tensor<2x3x60xf32>
// CHECK-NEXT:    %[[I:.*]] = graph.reshape %[[P]] : (tensor<2x3x60xf32>) -> tensor<6x2x30xf32>
// CHECK-NEXT:    %[[NCL:.*]] = graph.transpose %[[I]] perm [1, 0, 2] : (tensor<6x2x30xf32>) -> tensor<2x6x30xf32>
// CHECK-NEXT:    graph.reshape %[[NCL]] : (tensor<2x6x30xf32>) -> tensor<2x6x6x5xf32>
func.func @grouped_batched(%x: tensor<2x4x6x6xf32>, %w: tensor<6x2x1x2xf32>) -> tensor<2x6x6x5xf32> {
  %y = graph.conv2d %x, %w dilation [1, 1] groups 2 padding [0, 0] stride [1, 1] : (tensor<2x4x6x6xf32>, tensor<6x2x1x2xf32>) -> tensor<2x6x6x5xf32>
  func.return %y : tensor<2x6x6x5xf32>
}

// Depthwise: a sum over the taps of tap * weight[:, 0, kh, kw], no GEMM;
// one kernel with the padding.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT:     graph.matmul
// CHECK-COUNT-9: graph.mul %{{.*}}, %{{.*}} : (tensor<1x8x2x2xf32>, tensor<8x1x1xf32>) -> tensor<1x8x2x2xf32>
// CHECK-COUNT-8: graph.add
// CHECK-NEXT:    func.return
// GPU-LABEL:     func.func @depthwise
// GPU-COUNT-1:   gpu.launch_func
// GPU-NOT:       library_call
// GPU:           func.return
func.func @depthwise(%x: tensor<1x8x4x4xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x2x2xf32> {
  %y = graph.conv2d %x, %w dilation [1, 1] groups 8 padding [1, 1] stride [2, 2] : (tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x2x2xf32>
  func.return %y : tensor<1x8x2x2xf32>
}

// conv1d: a conv2d on a height-1 view; Whisper's stride-2 conv.
// CHECK-LABEL: func.func @conv1d
// CHECK-NEXT:    graph.reshape %x : (tensor<1x16x32xf32>) -> tensor<1x16x1x32xf32>
// CHECK-NEXT:    graph.reshape %w : (tensor<8x16x3xf32>) -> tensor<8x16x1x3xf32>
// CHECK:         graph.concat {{.*}} dim 3 : {{.*}} -> tensor<1x16x1x34xf32>
// CHECK-COUNT-3: graph.slice {{.*}} step [1, 1, 1, 2]
// CHECK:         graph.matmul {{.*}} : (tensor<8x48xf32>, tensor<48x16xf32>) -> tensor<8x16xf32>
// CHECK:         %[[B:.*]] = graph.reshape %b : (tensor<8xf32>) -> tensor<8x1xf32>
// CHECK-NEXT:    graph.add %{{.*}}, %[[B]] : (tensor<1x8x16xf32>, tensor<8x1xf32>) -> tensor<1x8x16xf32>
func.func @conv1d(%x: tensor<1x16x32xf32>, %w: tensor<8x16x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x16xf32> {
  %y = graph.conv1d %x, %w, %b dilation [1] groups 1 padding [1] stride [2] : (tensor<1x16x32xf32>, tensor<8x16x3xf32>, tensor<8xf32>) -> tensor<1x8x16xf32>
  func.return %y : tensor<1x8x16xf32>
}

// max_pool2d: -inf padding, a maximum over the strided taps; one kernel.
// CHECK-LABEL: func.func @max_pool
// CHECK:         graph.full value -inf : tensor<1x4x1x4xf32>
// CHECK:         graph.full value -inf : tensor<1x4x6x1xf32>
// CHECK-COUNT-9: graph.slice {{.*}} step [1, 1, 2, 2]
// CHECK-COUNT-8: graph.maximum
// CHECK-NEXT:    func.return
// GPU-LABEL:     func.func @max_pool
// GPU-COUNT-1:   gpu.launch_func
// GPU-NOT:       gpu.launch_func
// GPU:           func.return
func.func @max_pool(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32> {
  %y = graph.max_pool2d %x dilation [1, 1] kernel [3, 3] padding [1, 1] stride [2, 2] : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  func.return %y : tensor<1x4x2x2xf32>
}

// avg_pool2d: the sum of the taps over torch's divisor per output position
// (without count_include_pad: the input elements in the window).
// CHECK-LABEL: func.func @avg_pool
// CHECK-COUNT-4: graph.slice
// CHECK-COUNT-3: graph.add
// CHECK-NEXT:    %[[D:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 2.000000e+00], [2.000000e+00, 4.000000e+00, 4.000000e+00], [2.000000e+00, 4.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK-NEXT:    graph.div %{{.*}}, %[[D]] : (tensor<1x2x3x3xf32>, tensor<3x3xf32>) -> tensor<1x2x3x3xf32>
func.func @avg_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = graph.avg_pool2d %x kernel [2, 2] padding [1, 1] stride [2, 2] : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// Adaptive pooling whose sizes divide: a mean over reshaped windows.
// CHECK-LABEL: func.func @adaptive
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %x : (tensor<1x3x8x6xf32>) -> tensor<1x3x4x2x3x2xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[R]] perm [0, 1, 2, 4, 3, 5]
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %[[T]] : (tensor<1x3x4x3x2x2xf32>) -> tensor<1x3x4x3x4xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.mean %[[W]] dims [4] : (tensor<1x3x4x3x4xf32>) -> tensor<1x3x4x3xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @adaptive(%x: tensor<1x3x8x6xf32>) -> tensor<1x3x4x3xf32> {
  %y = graph.adaptive_avg_pool2d %x : (tensor<1x3x8x6xf32>) -> tensor<1x3x4x3xf32>
  func.return %y : tensor<1x3x4x3xf32>
}

// Overlapping adaptive windows: P_h @ x @ P_w^T with constant averaging
// matrices (not a convolution's GEMMs: no graph.conv_gemm).
// CHECK-LABEL: func.func @adaptive_uneven
// CHECK-NEXT:    %[[PW:.*]] = graph.constant {{.*}} : tensor<5x2xf32>
// CHECK-NEXT:    %[[PH:.*]] = graph.constant {{.*}} : tensor<3x7xf32>
// CHECK-NEXT:    %[[XW:.*]] = graph.matmul %x, %[[PW]] : (tensor<1x3x7x5xf32>, tensor<5x2xf32>) -> tensor<1x3x7x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.matmul %[[PH]], %[[XW]] : (tensor<3x7xf32>, tensor<1x3x7x2xf32>) -> tensor<1x3x3x2xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @adaptive_uneven(%x: tensor<1x3x7x5xf32>) -> tensor<1x3x3x2xf32> {
  %y = graph.adaptive_avg_pool2d %x : (tensor<1x3x7x5xf32>) -> tensor<1x3x3x2xf32>
  func.return %y : tensor<1x3x3x2xf32>
}
