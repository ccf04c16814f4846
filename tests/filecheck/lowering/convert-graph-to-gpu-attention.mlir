// RUN: fxdsl-opt %s -p convert-graph-to-gpu | filecheck %s
// RUN: fxdsl-opt %s -p 'graph-fuse-attention{min-rows=1},graph-fuse,convert-graph-to-gpu' | filecheck %s --check-prefix=BIAS

// Attention over the heads of a fused qkv buffer (GPT-2's layout). q, k and
// v are strided views of the argument (no transpose kernels), and the
// kernel writes the output through a view of the merged-heads buffer the
// function returns (no copy kernel): one launch in all.
// CHECK-LABEL: func.func @heads
// CHECK:         %[[Q:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 2, 8, 8], strides: [384, 8, 48, 1]
// CHECK:         %[[K:.*]] = memref.reinterpret_cast %{{.*}} to offset: [16], sizes: [2, 2, 8, 8], strides: [384, 8, 48, 1]
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %{{.*}} to offset: [32], sizes: [2, 2, 8, 8], strides: [384, 8, 48, 1]
// CHECK:         %[[Y:.*]] = memref.alloc() : memref<2x8x16xf32>
// CHECK:         %[[O:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [2, 2, 8, 8], strides: [128, 8, 16, 1]
// CHECK:         "gpu.launch_func"({{.*}}, %[[Q]], %[[K]], %[[V]], %[[O]]) <{kernel = @kernels::@heads_0_attention
// CHECK-NOT:     gpu.launch_func
// CHECK:         func.return %[[Y]]

// An output view that transposes the last dim would scatter each thread's
// row: the kernel writes its own buffer and a copy kernel transposes.
// CHECK-LABEL: func.func @transposed_out
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@transposed_out_0_attention
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@transposed_out_1_transpose

// The kernel: a grid-stride loop over row tiles; the query row is loaded
// once (two float4s) and scaled; one scf.for over the keys, 4 per step,
// carries the running max, the running sum and the 8 output floats. A step
// reads 4 key rows and 4 value rows (float4s), masks the 3 keys past the
// first that may lie beyond the causal bound, and takes 5 exponentials (the
// rescale and one per key). The output row is two float4 stores.
// CHECK:       "gpu.func"()
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK-COUNT-2:     vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1]>>, vector<4xf32>
// CHECK:             arith.minsi
// CHECK:             scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-2:       vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1], offset: 16>>, vector<4xf32>
// CHECK-COUNT-2:       vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1], offset: 16>>, vector<4xf32>
// CHECK:               arith.select
// CHECK-COUNT-2:       vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1], offset: 16>>, vector<4xf32>
// CHECK:               arith.select
// CHECK-COUNT-2:       vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1], offset: 16>>, vector<4xf32>
// CHECK:               arith.select
// CHECK-COUNT-5:       math.exp2
// CHECK-NOT:           math.exp
// CHECK-COUNT-8:       vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1], offset: 32>>, vector<4xf32>
// CHECK:               scf.yield
// CHECK:             arith.divf
// CHECK-COUNT-2:     vector.store %{{.*}} : memref<2x2x8x8xf32, strided<[128, 8, 16, 1]>>, vector<4xf32>
// CHECK:         }) {sym_name = "heads_0_attention", gpu.kernel, workgroup_attributions = 0 : i64}
func.func @heads(%qkv: tensor<2x8x48xf32>) -> tensor<2x8x16xf32> {
  %q, %k, %v = graph.split %qkv dim 2 sizes [16, 16, 16] : (tensor<2x8x48xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>)
  %q4 = graph.reshape %q : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %k4 = graph.reshape %k : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %v4 = graph.reshape %v : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %qh = graph.transpose %q4 perm [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %kh = graph.transpose %k4 perm [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %vh = graph.transpose %v4 perm [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %o = graph.attention %qh, %kh, %vh scale 0.35 causal : tensor<2x2x8x8xf32>
  %ot = graph.transpose %o perm [0, 2, 1, 3] : (tensor<2x2x8x8xf32>) -> tensor<2x8x2x8xf32>
  %y = graph.reshape %ot : (tensor<2x8x2x8xf32>) -> tensor<2x8x16xf32>
  func.return %y : tensor<2x8x16xf32>
}

func.func @transposed_out(%q: tensor<2x8x8xf32>, %k: tensor<2x8x8xf32>, %v: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %o = graph.attention %q, %k, %v scale 0.35 : tensor<2x8x8xf32>
  %t = graph.transpose %o perm [0, 2, 1] : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  func.return %t : tensor<2x8x8xf32>
}

// The heads of a biased qkv projection (GPT-2's). graph-fuse-attention
// folds the bias: still one launch, which also reads q's bias (a stride-0
// view of %b: the same for every sequence and token) and v's bias (its
// first row, added to the output).
// BIAS-LABEL: func.func @biased
// BIAS:         %[[BQ:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 2, 8, 8], strides: [0, 8, 0, 1]
// BIAS:         %[[BV:.*]] = memref.reinterpret_cast %{{.*}} to offset: [32], sizes: [2, 2, 1, 8], strides: [0, 8, 0, 1]
// BIAS:         "gpu.launch_func"({{.*}}, %[[Q:.*]], %[[BQ]], %[[K:.*]], %[[V:.*]], %[[BV]], %[[O:.*]]) <{kernel = @kernels::@biased_0_attention
// BIAS-NOT:     gpu.launch_func
// The kernel adds q's bias as it loads q (float4s of both), and v's to the
// output row before the float4 stores.
// BIAS:       "gpu.func"() <{function_type = (memref<2x2x8x8xf32, strided<[384, 8, 48, 1]>>, memref<2x2x8x8xf32, strided<[0, 8, 0, 1]>>
// BIAS:           vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[384, 8, 48, 1]>>, vector<4xf32>
// BIAS-NEXT:      vector.extract
// BIAS-NEXT:      vector.load %{{.*}} : memref<2x2x8x8xf32, strided<[0, 8, 0, 1]>>, vector<4xf32>
// BIAS-NEXT:      vector.extract
// BIAS-NEXT:      arith.addf
// BIAS:           scf.for
// BIAS:           arith.divf
// BIAS:           vector.load %{{.*}} : memref<2x2x1x8xf32, strided<[0, 8, 0, 1], offset: 32>>, vector<4xf32>
// BIAS:           vector.store %{{.*}} : memref<2x2x8x8xf32, strided<[128, 8, 16, 1]>>, vector<4xf32>
// BIAS:         }) {sym_name = "biased_0_attention", gpu.kernel, workgroup_attributions = 0 : i64}
func.func @biased(%x: tensor<2x8x48xf32>, %b: tensor<48xf32>) -> tensor<2x8x16xf32> {
  %qkv = graph.add %x, %b : (tensor<2x8x48xf32>, tensor<48xf32>) -> tensor<2x8x48xf32>
  %q, %k, %v = graph.split %qkv dim 2 sizes [16, 16, 16] : (tensor<2x8x48xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>)
  %q4 = graph.reshape %q : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %k4 = graph.reshape %k : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %v4 = graph.reshape %v : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %qh = graph.transpose %q4 perm [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %kh = graph.transpose %k4 perm [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %vh = graph.transpose %v4 perm [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
  %o = graph.attention %qh, %kh, %vh scale 0.35 causal : tensor<2x2x8x8xf32>
  %ot = graph.transpose %o perm [0, 2, 1, 3] : (tensor<2x2x8x8xf32>) -> tensor<2x8x2x8xf32>
  %y = graph.reshape %ot : (tensor<2x8x2x8xf32>) -> tensor<2x8x16xf32>
  func.return %y : tensor<2x8x16xf32>
}
