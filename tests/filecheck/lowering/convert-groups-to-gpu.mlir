// RUN: fxdsl-opt %s -p convert-groups-to-gpu | filecheck %s

// Host: the bridge ops vanish, each group is one gpu.launch_func on buffers.
// CHECK:       builtin.module attributes {gpu.container_module} {
// CHECK-LABEL:   func.func @bias_add(%x: memref<4x6xf32>, %b: memref<6xf32>) -> memref<4x6xf32>
// CHECK-NEXT:      %[[OUT:.*]] = memref.alloc() : memref<4x6xf32>
// CHECK-NEXT:      %[[GRID:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      "gpu.launch_func"(%[[GRID]], %[[ONE]], %[[ONE]], %[[BLOCK]], %[[ONE]], %[[ONE]], %x, %b, %[[OUT]]) <{kernel = @kernels::@bias_add_0_add,
// CHECK-NEXT:      func.return %[[OUT]]

// CHECK-LABEL:   func.func @row_sum
// CHECK:           "gpu.launch_func"({{.*}}) <{kernel = @kernels::@row_sum_0_sum,

// Pointwise kernel: grid-stride loop over 24 elements, broadcast index math
// (the 6-vector is read at the inner index only). Innermost dims that are not
// a multiple of 4 are not vectorized (see convert-graph-to-gpu.mlir for the
// 4-lane form).
// CHECK:         "gpu.module"() <{sym_name = "kernels"}> ({
// CHECK-NEXT:      "gpu.func"() <{function_type = (memref<4x6xf32>, memref<6xf32>, memref<4x6xf32>) -> (), kernel}> ({
// CHECK-NEXT:      ^bb0(%[[X:.*]]: memref<4x6xf32>, %[[B:.*]]: memref<6xf32>, %[[Y:.*]]: memref<4x6xf32>):
// CHECK-NEXT:        %[[N:.*]] = arith.constant 24 : index
// CHECK-NEXT:        %[[C8:.*]] = arith.constant 6 : index
// CHECK-NEXT:        %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK-NEXT:        %[[BDIM:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}>
// CHECK-NEXT:        %[[BID:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}>
// CHECK-NEXT:        %[[GDIM:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim x>}>
// CHECK-NEXT:        %[[T0:.*]] = arith.muli %[[BID]], %[[BDIM]] : index
// CHECK-NEXT:        %[[FIRST:.*]] = arith.addi %[[T0]], %[[TID]] : index
// CHECK-NEXT:        %[[STRIDE:.*]] = arith.muli %[[GDIM]], %[[BDIM]] : index
// CHECK-NEXT:        scf.for %[[I:.*]] = %[[FIRST]] to %[[N]] step %[[STRIDE]] {
// CHECK-NEXT:          %[[J:.*]] = arith.remui %[[I]], %[[C8]] : index
// CHECK-NEXT:          %[[R:.*]] = arith.divui %[[I]], %[[C8]] : index
// CHECK-NEXT:          %[[XV:.*]] = memref.load %[[X]][%[[R]], %[[J]]] : memref<4x6xf32>
// CHECK-NEXT:          %[[BV:.*]] = memref.load %[[B]][%[[J]]] : memref<6xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[XV]], %[[BV]] : f32
// CHECK-NEXT:          memref.store %[[S]], %[[Y]][%[[R]], %[[J]]] : memref<4x6xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        "gpu.return"() : () -> ()
// CHECK-NEXT:      }) {sym_name = "bias_add_0_add", gpu.kernel, workgroup_attributions = 0 : i64} : () -> ()

// Row kernel: one block per row, f16 loads extended to an f32 accumulator,
// a block-wide gpu.all_reduce, thread 0 stores the f16 result.
// CHECK-NEXT:      "gpu.func"() <{function_type = (memref<4x6xf16>, memref<4x1xf16>) -> (), kernel}> ({
// CHECK-NEXT:      ^bb0(%[[X:.*]]: memref<4x6xf16>, %[[Y:.*]]: memref<4x1xf16>):
// CHECK-NEXT:        %[[ROWS:.*]] = arith.constant 4 : index
// CHECK-NEXT:        %[[COLS:.*]] = arith.constant 6 : index
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[TID:.*]] = "gpu.thread_id"
// CHECK-NEXT:        %[[BDIM:.*]] = "gpu.block_dim"
// CHECK-NEXT:        %[[BID:.*]] = "gpu.block_id"
// CHECK-NEXT:        %[[GDIM:.*]] = "gpu.grid_dim"
// CHECK-NEXT:        scf.for %[[ROW:.*]] = %[[BID]] to %[[ROWS]] step %[[GDIM]] {
// CHECK-NEXT:          %[[PART:.*]] = scf.for %[[J:.*]] = %[[TID]] to %[[COLS]] step %[[BDIM]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:            %[[H:.*]] = memref.load %[[X]][%[[ROW]], %[[J]]] : memref<4x6xf16>
// CHECK-NEXT:            %[[F:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT:            %[[NEXT:.*]] = arith.addf %[[ACC]], %[[F]] : f32
// CHECK-NEXT:            scf.yield %[[NEXT]] : f32
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[TOTAL:.*]] = "gpu.all_reduce"(%[[PART]]) <{uniform}> ({
// CHECK-NEXT:          ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT:            %[[LR:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:            "gpu.yield"(%[[LR]]) : (f32) -> ()
// CHECK-NEXT:          }) : (f32) -> f32
// CHECK-NEXT:          %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %[[C0]] : index
// CHECK-NEXT:          scf.if %[[FIRST]] {
// CHECK-NEXT:            %[[T:.*]] = arith.truncf %[[TOTAL]] : f32 to f16
// CHECK-NEXT:            memref.store %[[T]], %[[Y]][%[[ROW]], %[[C0]]] : memref<4x1xf16>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        "gpu.return"() : () -> ()
// CHECK-NEXT:      }) {sym_name = "row_sum_0_sum", gpu.kernel, workgroup_attributions = 0 : i64} : () -> ()

func.func @bias_add(%x: memref<4x6xf32>, %b: memref<6xf32>) -> memref<4x6xf32> {
  %0 = bufferization.to_tensor %x restrict : memref<4x6xf32> to tensor<4x6xf32>
  %1 = bufferization.to_tensor %b restrict : memref<6xf32> to tensor<6xf32>
  %2 = memref.alloc() : memref<4x6xf32>
  %a = graph.fusion_group (%0, %1) : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32> {
  ^bb0(%p: tensor<4x6xf32>, %q: tensor<6xf32>):
    %s = graph.add %p, %q : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
    graph.yield %s : tensor<4x6xf32>
  }
  bufferization.materialize_in_destination %a in restrict writable %2 : (tensor<4x6xf32>, memref<4x6xf32>) -> ()
  func.return %2 : memref<4x6xf32>
}
func.func @row_sum(%x: memref<4x6xf16>) -> memref<4x1xf16> {
  %0 = bufferization.to_tensor %x restrict : memref<4x6xf16> to tensor<4x6xf16>
  %1 = memref.alloc() : memref<4x1xf16>
  %r = graph.fusion_group (%0) : (tensor<4x6xf16>) -> tensor<4x1xf16> {
  ^bb0(%p: tensor<4x6xf16>):
    %s = graph.sum %p dims [1] keepdim : (tensor<4x6xf16>) -> tensor<4x1xf16>
    graph.yield %s : tensor<4x1xf16>
  }
  bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<4x1xf16>, memref<4x1xf16>) -> ()
  func.return %1 : memref<4x1xf16>
}
