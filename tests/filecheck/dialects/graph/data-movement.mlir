// RUN: fxdsl-opt %s | fxdsl-opt | filecheck %s
// RUN: fxdsl-opt %s --print-op-generic | fxdsl-opt | filecheck %s

// reshape, transpose, broadcast_to, slice, concat, split, gather, embedding.

// CHECK-LABEL: func.func @shapes
func.func @shapes() {
  %x = "test.op"() : () -> (tensor<4x8xf32>)
  %v = "test.op"() : () -> (tensor<8xf32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %[[V:.*]] = "test.op"() : () -> tensor<8xf32>
  // CHECK-NEXT: %{{.*}} = graph.reshape %[[X]] : (tensor<4x8xf32>) -> tensor<32xf32>
  // CHECK-NEXT: %{{.*}} = graph.reshape %[[X]] : (tensor<4x8xf32>) -> tensor<2x1x16xf32>
  // CHECK-NEXT: %{{.*}} = graph.transpose %[[X]] perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // CHECK-NEXT: %{{.*}} = graph.broadcast_to %[[V]] : (tensor<8xf32>) -> tensor<3x4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.broadcast_to %[[X]] : tensor<4x8xf32>
  %0 = graph.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
  %1 = graph.reshape %x : (tensor<4x8xf32>) -> tensor<2x1x16xf32>
  %2 = graph.transpose %x perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %3 = graph.broadcast_to %v : (tensor<8xf32>) -> tensor<3x4x8xf32>
  %4 = graph.broadcast_to %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return
}

// CHECK-LABEL: func.func @transpose3d
func.func @transpose3d() {
  %x = "test.op"() : () -> (tensor<2x3x5xi32>)
  // CHECK: graph.transpose %{{.*}} perm [2, 0, 1] : (tensor<2x3x5xi32>) -> tensor<5x2x3xi32>
  %0 = graph.transpose %x perm [2, 0, 1] : (tensor<2x3x5xi32>) -> tensor<5x2x3xi32>
  func.return
}

// CHECK-LABEL: func.func @slice
func.func @slice() {
  %x = "test.op"() : () -> (tensor<4x8xf32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.slice %[[X]] limit [4, 8] start [0, 2] step [1, 2] : (tensor<4x8xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.slice %[[X]] limit [2, 8] start [2, 8] step [1, 1] : (tensor<4x8xf32>) -> tensor<0x0xf32>
  %0 = graph.slice %x start [0, 2] limit [4, 8] step [1, 2] : (tensor<4x8xf32>) -> tensor<4x3xf32>
  // Empty slices are legal.
  %1 = graph.slice %x start [2, 8] limit [2, 8] step [1, 1] : (tensor<4x8xf32>) -> tensor<0x0xf32>
  func.return
}

// CHECK-LABEL: func.func @concat_split
func.func @concat_split() {
  %a = "test.op"() : () -> (tensor<2x8xf32>)
  %b = "test.op"() : () -> (tensor<3x8xf32>)
  // CHECK:      %[[A:.*]] = "test.op"() : () -> tensor<2x8xf32>
  // CHECK-NEXT: %[[B:.*]] = "test.op"() : () -> tensor<3x8xf32>
  // CHECK-NEXT: %[[C:.*]] = graph.concat %[[A]], %[[B]], %[[A]] dim 0 : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<2x8xf32>) -> tensor<7x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.concat %[[A]] dim 1 : tensor<2x8xf32>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = graph.split %[[C]] dim 0 sizes [2, 0, 5] : (tensor<7x8xf32>) -> (tensor<2x8xf32>, tensor<0x8xf32>, tensor<5x8xf32>)
  // CHECK-NEXT: %{{.*}} = graph.split %[[B]] dim 1 sizes [8] : tensor<3x8xf32>
  %c = graph.concat %a, %b, %a dim 0 : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<2x8xf32>) -> tensor<7x8xf32>
  %d = graph.concat %a dim 1 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %p, %q, %r = graph.split %c dim 0 sizes [2, 0, 5] : (tensor<7x8xf32>) -> (tensor<2x8xf32>, tensor<0x8xf32>, tensor<5x8xf32>)
  %s = graph.split %b dim 1 sizes [8] : (tensor<3x8xf32>) -> tensor<3x8xf32>
  func.return
}

// CHECK-LABEL: func.func @gather_embedding
func.func @gather_embedding() {
  %x = "test.op"() : () -> (tensor<4x8xf32>)
  %idx = "test.op"() : () -> (tensor<4x2xi64>)
  %idx32 = "test.op"() : () -> (tensor<3x8xi32>)
  %ids = "test.op"() : () -> (tensor<1x16xi64>)
  %wte = "test.op"() : () -> (tensor<100x32xbf16>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x8xf32>
  // CHECK-NEXT: %[[IDX:.*]] = "test.op"() : () -> tensor<4x2xi64>
  // CHECK-NEXT: %[[IDX32:.*]] = "test.op"() : () -> tensor<3x8xi32>
  // CHECK-NEXT: %[[IDS:.*]] = "test.op"() : () -> tensor<1x16xi64>
  // CHECK-NEXT: %[[WTE:.*]] = "test.op"() : () -> tensor<100x32xbf16>
  // CHECK-NEXT: %{{.*}} = graph.gather %[[X]], %[[IDX]] dim 1 : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  // CHECK-NEXT: %{{.*}} = graph.gather %[[X]], %[[IDX32]] dim 0 : (tensor<4x8xf32>, tensor<3x8xi32>) -> tensor<3x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.embedding %[[IDS]], %[[WTE]] : (tensor<1x16xi64>, tensor<100x32xbf16>) -> tensor<1x16x32xbf16>
  %0 = graph.gather %x, %idx dim 1 : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %1 = graph.gather %x, %idx32 dim 0 : (tensor<4x8xf32>, tensor<3x8xi32>) -> tensor<3x8xf32>
  %2 = graph.embedding %ids, %wte : (tensor<1x16xi64>, tensor<100x32xbf16>) -> tensor<1x16x32xbf16>
  func.return
}

// CHECK-LABEL: func.func @index
func.func @index() {
  %x = "test.op"() : () -> (tensor<4x6x5x3xf32>)
  %i = "test.op"() : () -> (tensor<2x1xi64>)
  %j = "test.op"() : () -> (tensor<7xi32>)
  // CHECK:      %[[X:.*]] = "test.op"() : () -> tensor<4x6x5x3xf32>
  // CHECK-NEXT: %[[I:.*]] = "test.op"() : () -> tensor<2x1xi64>
  // CHECK-NEXT: %[[J:.*]] = "test.op"() : () -> tensor<7xi32>
  // CHECK-NEXT: %{{.*}} = graph.index %[[X]], %[[I]] dims [1] : (tensor<4x6x5x3xf32>, tensor<2x1xi64>) -> tensor<4x2x1x5x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.index %[[X]], %[[I]], %[[J]] dims [1, 2] : (tensor<4x6x5x3xf32>, tensor<2x1xi64>, tensor<7xi32>) -> tensor<4x2x7x3xf32>
  // CHECK-NEXT: %{{.*}} = graph.index %[[X]], %[[I]], %[[J]] dims [0, 2] : (tensor<4x6x5x3xf32>, tensor<2x1xi64>, tensor<7xi32>) -> tensor<2x7x6x3xf32>
  // Adjacent indexed dims: their broadcast shape (2x7) replaces them in place.
  %0 = graph.index %x, %i dims [1] : (tensor<4x6x5x3xf32>, tensor<2x1xi64>) -> tensor<4x2x1x5x3xf32>
  %1 = graph.index %x, %i, %j dims [1, 2] : (tensor<4x6x5x3xf32>, tensor<2x1xi64>, tensor<7xi32>) -> tensor<4x2x7x3xf32>
  // Separated indexed dims: their broadcast shape comes first.
  %2 = graph.index %x, %i, %j dims [0, 2] : (tensor<4x6x5x3xf32>, tensor<2x1xi64>, tensor<7xi32>) -> tensor<2x7x6x3xf32>
  func.return
}

// CHECK-LABEL: func.func @index_copy
func.func @index_copy() {
  %cache = "test.op"() : () -> (tensor<1x2x16x8xf32>)
  %pos = "test.op"() : () -> (tensor<1xi64>)
  %new = "test.op"() : () -> (tensor<1x2x1x8xf32>)
  // CHECK:      %[[C:.*]] = "test.op"() : () -> tensor<1x2x16x8xf32>
  // CHECK-NEXT: %[[P:.*]] = "test.op"() : () -> tensor<1xi64>
  // CHECK-NEXT: %[[N:.*]] = "test.op"() : () -> tensor<1x2x1x8xf32>
  // CHECK-NEXT: %{{.*}} = graph.index_copy %[[C]], %[[P]], %[[N]] dim 2 : (tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x16x8xf32>
  %0 = graph.index_copy %cache, %pos, %new dim 2 : (tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>) -> tensor<1x2x16x8xf32>
  func.return
}

// CHECK-LABEL: func.func @index_add
func.func @index_add() {
  %table = "test.op"() : () -> (tensor<50x8xbf16>)
  %ids = "test.op"() : () -> (tensor<6xi32>)
  %rows = "test.op"() : () -> (tensor<6x8xbf16>)
  // CHECK:      %[[T:.*]] = "test.op"() : () -> tensor<50x8xbf16>
  // CHECK-NEXT: %[[I:.*]] = "test.op"() : () -> tensor<6xi32>
  // CHECK-NEXT: %[[R:.*]] = "test.op"() : () -> tensor<6x8xbf16>
  // CHECK-NEXT: %{{.*}} = graph.index_add %[[T]], %[[I]], %[[R]] dim 0 : (tensor<50x8xbf16>, tensor<6xi32>, tensor<6x8xbf16>) -> tensor<50x8xbf16>
  %0 = graph.index_add %table, %ids, %rows dim 0 : (tensor<50x8xbf16>, tensor<6xi32>, tensor<6x8xbf16>) -> tensor<50x8xbf16>
  // with the index's stable argsort
  %order = "test.op"() : () -> (tensor<6xi64>)
  // CHECK:      %[[O:.*]] = "test.op"() : () -> tensor<6xi64>
  // CHECK-NEXT: %{{.*}} = graph.index_add %[[T]], %[[I]], %[[R]], %[[O]] dim 0 : (tensor<50x8xbf16>, tensor<6xi32>, tensor<6x8xbf16>, tensor<6xi64>) -> tensor<50x8xbf16>
  %1 = graph.index_add %table, %ids, %rows, %order dim 0 : (tensor<50x8xbf16>, tensor<6xi32>, tensor<6x8xbf16>, tensor<6xi64>) -> tensor<50x8xbf16>
  func.return
}
