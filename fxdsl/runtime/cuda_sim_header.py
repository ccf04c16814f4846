"""The C++ side of `fxdsl.runtime.cuda_sim`: CUDA's built-ins on host threads.

`HEADER` is force-included before the printer's text; `DRIVER` follows it
(after the generated kernel table) and is the worker's `main`. See
`fxdsl.runtime.cuda_sim` for how they are used and why a worker process.
"""

HEADER = r"""// fxdsl cuda-sim: the CUDA built-ins of fxdsl's printer, on host threads
#define FX_CUDA_SIM 1  // kernels' own code may branch on it (tensor_core.py)
#include <math.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// all __shared__ arrays live in one section: poisoned (0xff bytes, NaN/-1)
// before every block, so a read of shared memory nobody wrote is garbage
#define __shared__ static __attribute__((section("fx_shared")))

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;

struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) {
  return float4{x, y, z, w};
}
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

inline float __int_as_float(int bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline int __float_as_int(float x) {
  int bits;
  std::memcpy(&bits, &x, 4);
  return bits;
}
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }

struct __half {
  unsigned short bits;
};
inline float __half2float(__half h) {
  _Float16 f;
  std::memcpy(&f, &h.bits, 2);
  return (float)f;
}
inline __half __float2half_rn(float x) {
  _Float16 f = (_Float16)x;  // round to nearest even
  __half h;
  std::memcpy(&h.bits, &f, 2);
  return h;
}
inline __half __float2half(float x) { return __float2half_rn(x); }

struct __nv_bfloat16 {
  unsigned short bits;
};
inline float __bfloat162float(__nv_bfloat16 b) {
  uint32_t u = (uint32_t)b.bits << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline __nv_bfloat16 __float2bfloat16_rn(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return {(unsigned short)((u >> 16) | 0x40)};
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return {(unsigned short)(u >> 16)};
}
inline __nv_bfloat16 __float2bfloat16(float x) { return __float2bfloat16_rn(x); }

extern "C" char __start_fx_shared[] __attribute__((weak));
extern "C" char __stop_fx_shared[] __attribute__((weak));

namespace fx_sim {

static double timeout_s = 10.0;

[[noreturn]] inline void fail(const std::string& message) {
  std::fprintf(stderr, "cuda-sim: block (%u,%u,%u) thread (%u,%u,%u): %s\n",
               blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
               threadIdx.z, message.c_str());
  std::fflush(stderr);
  _exit(70);
}

inline int linear_thread() {
  return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

// A barrier of `expected` threads. A thread of the group that has finished
// the kernel (`leave`) while others wait, or a wait longer than timeout_s, is
// a deadlock: reported and the worker exits (CUDA would hang or misbehave).
struct Barrier {
  std::mutex mutex;
  std::condition_variable cv;
  int expected = 0, arrived = 0, left = 0;
  long generation = 0;
  const char* waiting_at = "";

  void reset(int n) {
    expected = n;
    arrived = left = 0;
  }
  void wait(const char* what) {
    std::unique_lock<std::mutex> lock(mutex);
    if (left > 0)
      fail(std::string("deadlock: ") + what + " waits for " +
           std::to_string(left) + " thread(s) that already returned");
    long seen = generation;
    waiting_at = what;
    if (++arrived == expected) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    auto limit = std::chrono::duration<double>(timeout_s);
    if (!cv.wait_for(lock, limit, [&] { return generation != seen; }))
      fail(std::string("deadlock: ") + std::to_string(arrived) + " of " +
           std::to_string(expected) + " threads reached " + what +
           ", the others did not within " + std::to_string(timeout_s) + " s");
  }
  void leave() {
    std::unique_lock<std::mutex> lock(mutex);
    ++left;
    if (arrived > 0)
      fail(std::string("deadlock: returned while ") + std::to_string(arrived) +
           " thread(s) wait at " + waiting_at);
  }
};

struct MmaRegisters {  // one lane's operands of an mma.sync
  unsigned a[4], b[2];
  float c[4];
};

struct Launch {
  int threads = 0;
  Barrier block;
  std::vector<std::unique_ptr<Barrier>> warps;
  std::vector<unsigned char> slots;  // 16 bytes per thread, for shuffles
  std::vector<MmaRegisters> mma;     // one per thread, for mma.sync
};
static Launch* current = nullptr;

inline int warp_size(int warp) {
  int rest = current->threads - 32 * warp;
  return rest < 32 ? rest : 32;
}

inline bool in_shared(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  return __start_fx_shared && c >= __start_fx_shared && c + bytes <= __stop_fx_shared;
}

// cp.async.cg.shared.global [dst], [src], 16, src-size (src-size 0: zeros),
// cp.async.commit_group and cp.async.wait_group N, per thread. A copy reads
// global memory when issued (ASan checks it there) and writes shared memory
// only when a wait_group retires its group: a kernel that reads the tile
// before waiting reads the poison (0xff) or the previous tile, and a copy
// still pending when the thread leaves the block is an error.
struct AsyncCopy {
  unsigned char* dst;
  unsigned char bytes[16];
};
struct AsyncCopies {
  std::vector<AsyncCopy> open;  // issued, not yet committed
  std::vector<std::vector<AsyncCopy>> committed;
};
static thread_local AsyncCopies async_copies;

inline void cp_async16(void* dst, const void* src, bool valid) {
  if ((uintptr_t)dst % 16 || (valid && (uintptr_t)src % 16))
    fail("cp.async: an address not 16-byte aligned");
  if (!in_shared(dst, 16)) fail("cp.async: a destination outside shared memory");
  AsyncCopy copy{static_cast<unsigned char*>(dst), {}};
  if (valid) std::memcpy(copy.bytes, src, 16);
  async_copies.open.push_back(copy);
}
inline void cp_async_commit() {
  async_copies.committed.push_back(std::move(async_copies.open));
  async_copies.open.clear();
}
inline void cp_async_wait_group(size_t pending) {
  auto& groups = async_copies.committed;
  size_t done = groups.size() > pending ? groups.size() - pending : 0;
  for (size_t g = 0; g < done; ++g)
    for (const AsyncCopy& copy : groups[g]) std::memcpy(copy.dst, copy.bytes, 16);
  groups.erase(groups.begin(), groups.begin() + (long)done);
}
inline void cp_async_leave() {
  size_t pending = async_copies.open.size();
  for (const auto& group : async_copies.committed) pending += group.size();
  async_copies = AsyncCopies{};
  if (pending)
    fail("cp.async: " + std::to_string(pending) +
         " copy(ies) not waited for when the thread left the block");
}

using Entry = void (*)(void**);

inline void run(Entry entry, void** args, dim3 grid, dim3 block) {
  Launch launch;
  launch.threads = (int)(block.x * block.y * block.z);
  int warps = (launch.threads + 31) / 32;
  for (int w = 0; w < warps; ++w) launch.warps.emplace_back(new Barrier());
  launch.slots.assign(16 * (size_t)launch.threads, 0);
  launch.mma.assign((size_t)launch.threads, MmaRegisters{});
  current = &launch;
  blockDim = block;
  gridDim = grid;
  Barrier step;
  step.reset(launch.threads);
  auto body = [&](int t) {
    threadIdx = dim3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    Barrier& warp = *launch.warps[t / 32];
    for (unsigned z = 0; z < grid.z; ++z)
      for (unsigned y = 0; y < grid.y; ++y)
        for (unsigned x = 0; x < grid.x; ++x) {
          blockIdx = dim3{x, y, z};
          if (t == 0) {  // nobody is inside a block now
            size_t shared = __stop_fx_shared - __start_fx_shared;
            if (shared) std::memset(__start_fx_shared, 0xff, shared);
            launch.block.reset(launch.threads);
            for (int w = 0; w < warps; ++w) launch.warps[w]->reset(warp_size(w));
          }
          step.wait("the start of a block");
          entry(args);
          cp_async_leave();
          launch.block.leave();
          warp.leave();
          step.wait("the end of a block");
        }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < launch.threads; ++t) threads.emplace_back(body, t);
  for (auto& thread : threads) thread.join();
  current = nullptr;
}

template <typename... P, std::size_t... I>
void invoke(void (*kernel)(P...), void** args, std::index_sequence<I...>) {
  kernel(static_cast<P>(args[I])...);
}
template <typename... P>
void invoke(void (*kernel)(P...), void** args) {
  invoke(kernel, args, std::index_sequence_for<P...>{});
}
template <auto Kernel>
void call(void** args) {
  invoke(Kernel, args);
}

struct KernelEntry {
  const char* name;
  Entry entry;
};

}  // namespace fx_sim

inline void __syncthreads() { fx_sim::current->block.wait("__syncthreads()"); }

template <typename T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32) {
  static_assert(sizeof(T) <= 16, "shuffle of a type wider than 16 bytes");
  int t = fx_sim::linear_thread(), warp = t / 32, lane = t % 32;
  int size = fx_sim::warp_size(warp);
  unsigned lanes = size == 32 ? 0xffffffffu : ((1u << size) - 1u);
  if (mask != lanes || width != 32)
    fx_sim::fail("__shfl_xor_sync: mask " + std::to_string(mask) + " width " +
                 std::to_string(width) + " in a warp of " + std::to_string(size) +
                 " threads (only full warps are simulated)");
  int source = lane ^ lane_mask;
  if (source >= size) fx_sim::fail("__shfl_xor_sync: source lane out of the warp");
  unsigned char* slots = fx_sim::current->slots.data();
  std::memcpy(slots + 16 * t, &value, sizeof(T));
  fx_sim::Barrier& barrier = *fx_sim::current->warps[warp];
  barrier.wait("__shfl_xor_sync");
  T result;
  std::memcpy(&result, slots + 16 * (32 * warp + source), sizeof(T));
  barrier.wait("__shfl_xor_sync");  // every lane has read before the next write
  return result;
}

// ---- the tensor-core instructions of fxdsl/lowering/tensor_core.py ------
// Written from the PTX ISA ("Matrix Fragments for mma.m16n8k16 with floating
// point type", and cvt), not from the kernels' helpers, so that a helper
// with a wrong lane mapping gives wrong numbers here.
namespace fx_sim {

enum MmaType { MMA_F16, MMA_BF16 };

inline float half_to_float(unsigned bits, MmaType type) {
  unsigned short half = (unsigned short)(bits & 0xffffu);
  if (type == MMA_BF16) return __bfloat162float(__nv_bfloat16{half});
  return __half2float(__half{half});
}

// cvt.rn.{bf16x2,f16x2}.f32 d, a, b: a rounded into the upper half of d,
// b into the lower half, to nearest even
inline unsigned cvt_rn_x2(float a, float b, MmaType type) {
  auto round = [type](float x) -> unsigned {
    return type == MMA_BF16 ? __float2bfloat16_rn(x).bits : __float2half_rn(x).bits;
  };
  return (round(a) << 16) | round(b);
}

// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32: a warp
// collective. Every lane deposits its registers, the warp meets, each lane
// rebuilds A (16x16), B (16x8) and C (16x8) from all 32 lanes' registers
// and computes its own four elements of D, the warp meets again. Products
// of 16-bit floats are exact in f32; they are summed in f32 in k order (the
// hardware's order and internal rounding are its own: compare with a
// tolerance).
inline void mma_m16n8k16(float d[4], const unsigned a[4], const unsigned b[2],
                         const float c[4], MmaType type) {
  int thread = linear_thread(), warp = thread / 32, lane = thread % 32;
  if (warp_size(warp) != 32)
    fail("mma.sync in a warp of " + std::to_string(warp_size(warp)) +
         " threads (it needs all 32 lanes)");
  MmaRegisters* regs = current->mma.data() + 32 * warp;
  MmaRegisters& mine = regs[lane];
  for (int i = 0; i < 4; ++i) mine.a[i] = a[i], mine.c[i] = c[i];
  for (int i = 0; i < 2; ++i) mine.b[i] = b[i];
  Barrier& barrier = *current->warps[warp];
  barrier.wait("mma.sync");
  float A[16][16], B[16][8], C[16][8];
  bool seen_a[16][16] = {}, seen_b[16][8] = {}, seen_c[16][8] = {};
  for (int l = 0; l < 32; ++l) {
    int group = l >> 2, in_group = l % 4;
    for (int i = 0; i < 8; ++i) {  // a0..a7: register i / 2, low half first
      int row = (i < 2 || (4 <= i && i < 6)) ? group : group + 8;
      int col = in_group * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][col] = half_to_float(regs[l].a[i / 2] >> (16 * (i % 2)), type);
      seen_a[row][col] = true;
    }
    for (int i = 0; i < 4; ++i) {  // b0..b3
      int row = in_group * 2 + (i & 1) + (i >= 2 ? 8 : 0), col = group;
      B[row][col] = half_to_float(regs[l].b[i / 2] >> (16 * (i % 2)), type);
      seen_b[row][col] = true;
    }
    for (int i = 0; i < 4; ++i) {  // c0..c3
      int row = i < 2 ? group : group + 8, col = in_group * 2 + (i & 1);
      C[row][col] = regs[l].c[i];
      seen_c[row][col] = true;
    }
  }
  barrier.wait("mma.sync");  // every lane has read before the next deposit
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k)
      if (!seen_a[r][k] || (k < 8 && (!seen_b[r][k] || !seen_c[r][k])))
        fail("mma.sync: the fragment layout misses an element");
  int group = lane >> 2, in_group = lane % 4;
  for (int i = 0; i < 4; ++i) {
    int row = i < 2 ? group : group + 8, col = in_group * 2 + (i & 1);
    float sum = C[row][col];
    for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
    d[i] = sum;
  }
}

// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: a warp collective.
// Every lane deposits its row address (row l % 8 of matrix l / 8), the warp
// meets, each lane reads its halves of the four matrices from the
// addresses of the lanes that own those rows (PTX ISA, "Warp-level matrix
// load instruction: ldmatrix"), the warp meets again.
inline void ldmatrix_x4(unsigned r[4], const void* row, bool trans) {
  int thread = linear_thread(), warp = thread / 32, lane = thread % 32;
  if (warp_size(warp) != 32)
    fail("ldmatrix in a warp of " + std::to_string(warp_size(warp)) +
         " threads (it needs all 32 lanes)");
  if ((uintptr_t)row % 16) fail("ldmatrix: a row address not 16-byte aligned");
  if (!in_shared(row, 16)) fail("ldmatrix: a row address outside shared memory");
  unsigned char* slots = current->slots.data();
  std::memcpy(slots + 16 * thread, &row, sizeof row);
  Barrier& barrier = *current->warps[warp];
  barrier.wait("ldmatrix");
  int group = lane >> 2, in_group = lane % 4;
  for (int i = 0; i < 4; ++i) {
    unsigned halves[2];
    for (int h = 0; h < 2; ++h) {
      int matrix_row = trans ? 2 * in_group + h : group;
      int matrix_col = trans ? group : 2 * in_group + h;
      const unsigned char* base;
      std::memcpy(&base, slots + 16 * (32 * warp + 8 * i + matrix_row), sizeof base);
      unsigned short bits;
      std::memcpy(&bits, base + 2 * matrix_col, 2);
      halves[h] = bits;
    }
    r[i] = halves[0] | (halves[1] << 16);
  }
  barrier.wait("ldmatrix");  // every lane has read before the next deposit
}

}  // namespace fx_sim
"""

DRIVER = r"""
// The worker: on stdin, one launch per request
//   <kernel> gx gy gz bx by bz <buffers> <args> <bytes of each buffer...>
//   <buffer index of each arg...>, then the buffers' bytes;
// on stdout "ok\n" and the buffers' bytes after the kernel ran.
int main(int argc, char** argv) {
  if (argc > 1) fx_sim::timeout_s = std::atof(argv[1]);
  char name[512];
  dim3 grid, block;
  int buffers, args;
  while (std::scanf("%511s %u %u %u %u %u %u %d %d", name, &grid.x, &grid.y,
                    &grid.z, &block.x, &block.y, &block.z, &buffers, &args) == 9) {
    std::vector<size_t> sizes(buffers);
    std::vector<int> which(args);
    for (auto& size : sizes) std::scanf("%zu", &size);
    for (auto& index : which) std::scanf("%d", &index);
    std::getchar();  // the newline before the bytes
    // one exact-size allocation each: ASan sees an access past its end
    std::vector<void*> memory(buffers);
    for (int b = 0; b < buffers; ++b) {
      if (posix_memalign(&memory[b], 16, sizes[b] ? sizes[b] : 1)) return 2;
      if (std::fread(memory[b], 1, sizes[b], stdin) != sizes[b]) return 2;
    }
    fx_sim::Entry entry = nullptr;
    for (const auto& kernel : fx_sim_kernels)  // the last is a sentinel
      if (kernel.entry && std::strcmp(kernel.name, name) == 0) entry = kernel.entry;
    if (entry == nullptr) fx_sim::fail(std::string("no kernel ") + name);
    std::vector<void*> pointers(args);
    for (int a = 0; a < args; ++a) pointers[a] = memory[which[a]];
    fx_sim::run(entry, pointers.data(), grid, block);
    std::fputs("ok\n", stdout);
    for (int b = 0; b < buffers; ++b) {
      std::fwrite(memory[b], 1, sizes[b], stdout);
      std::free(memory[b]);
    }
    std::fflush(stdout);
  }
  return 0;
}
"""
