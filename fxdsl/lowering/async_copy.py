"""Asynchronous global-to-shared copies (`cp.async`, sm_80 and later) as
CUDA C device code, for kernels that load the next tile while they compute
on the current one.

`ASYNC_COPY_CUDA` is pasted once into a kernel's translation unit. It
defines

* `fx_cp_async16(shared, global, valid)`: copy 16 bytes (both addresses
  16-byte aligned) without holding a register for them; `valid` false
  writes 16 zero bytes and reads nothing (`cp.async.cg` with src-size 0,
  how a tile's rows past the end are zero-filled);
* `fx_cp_async_commit()`: close the group of copies this thread issued
  since the last commit;
* `fx_cp_async_wait_all()`: wait until every committed group of this
  thread has landed. Other threads' copies are seen only after a
  `__syncthreads()` that follows their wait.

Under cuda-sim (`FX_CUDA_SIM`) these are the header's `fx_sim::cp_async*`,
which write shared memory only when the wait retires the group, so a kernel
that reads a tile before waiting for it reads poison and fails its test.
"""

ASYNC_COPY_CUDA = r"""
// ---- cp.async (fxdsl/lowering/async_copy.py) ----
#ifdef FX_CUDA_SIM
__device__ inline void fx_cp_async16(void* shared, const void* global, bool valid) {
  fx_sim::cp_async16(shared, global, valid);
}
__device__ inline void fx_cp_async_commit() { fx_sim::cp_async_commit(); }
__device__ inline void fx_cp_async_wait_all() { fx_sim::cp_async_wait_group(0); }
#else
__device__ inline void fx_cp_async16(void* shared, const void* global, bool valid) {
  asm volatile(
      "{ .reg .u64 s; .reg .u32 a; cvta.to.shared.u64 s, %0; cvt.u32.u64 a, s; "
      "cp.async.cg.shared.global [a], [%1], 16, %2; }"
      :
      : "l"(shared), "l"(global), "r"(valid ? 16 : 0)
      : "memory");
}
__device__ inline void fx_cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ inline void fx_cp_async_wait_all() {
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}
#endif
"""
