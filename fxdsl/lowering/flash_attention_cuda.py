"""The CUDA C of the tensor-core attention kernel: flash attention for
bf16/f16 on `mma.sync.m16n8k16` with f32 accumulators. Which
groups get it, and how the IR carries it: `flash_attention_kernel`.

A block is `WARPS` warps and a tile of `BLOCK_M` = 16 * WARPS consecutive
query rows of one sequence (grid-stride over tiles, heaviest first, as the
scalar kernel); each warp owns 16 rows:

* the block stages its q tile in shared memory (in the v tile's memory,
  with the first k tile beside it), and each warp loads its 16 x d as mma
  A fragments once (registers for the whole key loop);
* per key tile of `BLOCK_N` keys (rows past the last key are zeros), the
  block's copies of the v tile fly (`cp.async`) while each warp computes
  its scores S = q k^T (B fragments from the N x K k tile), and the next
  k tile's while it multiplies by v: two tiles of shared memory, each load
  behind the other tile's math (FlashAttention-2's order). The scores go
  into base 2 (`scale * log2(e)`, `exp2`, as the scalar kernel); keys at or
  past a row's `limit` (the key count, and the causal cut) are -inf, the
  mask is read only below it; the online softmax per row: the running max
  and sum in f32 (a row's max across the quad of lanes that hold it by
  `__shfl_xor_sync`), subtract 0 rather than -inf while a row has seen no
  key;
* P = exp2(S - max) rounded to the input type becomes the A fragment of
  P V (`fx_frag_a_from_c_*`: the accumulator fragments reused in place, no
  shared memory), V's B fragments come from the K x N v tile;
* the output is o / l rounded once to the input type, zeros for a row
  with no visible key (l = 0), as the scalar kernel and torch 2.13's SDPA.

Masks: i1 (true: attend) or additive of any float type, read per (row,
key) where they broadcast from (a (B, 1, 1, S) padding mask is one element
per key), additive values in base 2 and at least -FLT_MAX as the scalar
kernel's `_base2`. GQA: where k and v have fewer heads (dim -3) than q,
q head h reads kv head h // (q heads / kv heads); `graph.attention` itself
requires equal batch dims today, so only direct users of
`flash_attention_source` reach that case.

Lane mappings, the mma and the conversions are `tensor_core.TENSOR_CORE_CUDA`
(which cuda-sim emulates from the PTX ISA); this module never restates them.

The CUDA printer prints this kernel, not the body, for a `gpu.func`
carrying `FLASH_ATTR` (`flash_attention_source`), so cuda-sim, `nvcc -ptx`
and NVRTC all run the tensor-core code.

Precision: products of 16-bit inputs are exact in f32 and summed in f32;
P is rounded to the input type before P V (as FlashAttention does), while
the row sum l adds the unrounded f32 probabilities; the output is rounded
once.

Fragments come from shared memory by `ldmatrix` (`fx_ldsm_frag_*`: four
8x8 matrices an instruction; `PAD` keeps its eight row addresses in
distinct banks). Rows that are not 16-byte chunks (a strided view) are
staged by plain loads, in the same order.

`pipelined=False` (`convert-groups-to-gpu{flash-pipeline=false}`) prints the
first version: k and v staged by plain 16-byte loads before any mma, scalar
fragment loads. It stays so that a GPU run times both side by side
(`fxdsl-bench` variant `fxdsl-flash-v1`); on the H200 (2026-11-28) it (then
with a bounds check per score) ran at
0.49x torch SDPA's speed (B=8, H=12, T=512, d=64, causal). `ptxas -v` for
sm_90 at d=64: 130 registers for this kernel, 127 for the first, no spills.
`WARPS`, `BLOCK_N` and `PAD` are first choices, not tuned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from math import prod

from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    FloatAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute

from fxdsl.ir.layout import Layout, layout_of_type
from fxdsl.lowering.base2 import FLT_MAX, LOG2_E

WARPS = 4
"""Warps per block; each owns 16 query rows (one mma M)."""
THREADS = 32 * WARPS
BLOCK_M = 16 * WARPS
"""Query rows per block."""
BLOCK_N = 64
"""Keys per shared-memory tile of k and v; at least `BLOCK_M` (the q tile
is staged in the k tile's memory)."""
assert BLOCK_N >= BLOCK_M
PAD = 8
"""Extra elements per shared-memory row (16 bytes): consecutive rows start
in different banks, and rows stay 16-byte aligned."""
HEAD_DIMS = (64, 128)
CHUNK = 8
"""16-bit elements per 16-byte global load of a q, k or v row."""
FLASH_ATTR = "fxdsl.flash_attention"
"""gpu.func attribute {scale, roles, causal?, pipelined?}: print this
function as the tensor-core kernel (module docstring)."""


def flash_attention_source(
    kernel: gpu.FuncOp, c_type: Callable[[Attribute], str]
) -> str:
    """The CUDA C of a `gpu.func` marked `FLASH_ATTR` (the printer's
    `c_type` names the element types), without its helpers
    (`TENSOR_CORE_CUDA`, `FLASH_HELPERS`)."""
    params = kernel.attributes[FLASH_ATTR]
    assert isinstance(params, DictionaryAttr)
    scale = params.data["scale"]
    assert isinstance(scale, FloatAttr)
    roles = params.data["roles"]
    assert isinstance(roles, DictionaryAttr)
    types = [arg.type for arg in kernel.body.block.args]
    return flash_source(
        kernel.sym_name.data,
        types,  # type: ignore[arg-type]
        {role: index.value.data for role, index in roles.data.items()},  # type: ignore[attr-defined]
        scale.value.data,
        "causal" in params.data,
        c_type,
        "pipelined" in params.data,
    )


def _offset(layout: Layout, names: Sequence[str]) -> str:
    """C expression of the element offset at index names (one per dim; a
    dim of size 1 or stride 0 does not move)."""
    terms = [str(layout.offset)] if layout.offset else []
    for name, size, stride in zip(names, layout.shape, layout.strides):
        if size != 1 and stride != 0 and name != "0":
            terms.append(f"(long long)({name}) * {stride}LL")
    return " + ".join(terms) or "0LL"


def _broadcast(layout: Layout, names: Sequence[str]) -> str:
    """C expression of the offset of the element at index `names` (one
    per dim of the full shape) of an operand that broadcasts to it
    (right-aligned; a size-1 dim reads index 0)."""
    own = names[len(names) - len(layout.shape) :]
    return _offset(
        layout, [n if size != 1 else "0" for n, size in zip(own, layout.shape)]
    )


def _chunked(layout: Layout) -> bool:
    """Can the operand's rows be read `CHUNK` elements (16 bytes) at a
    time: innermost stride 1, the offset and every other stride multiples
    of `CHUNK` (the runtime passes 16-byte aligned base pointers)."""
    if layout.strides[-1] != 1 and layout.shape[-1] != 1:
        return False
    others = zip(layout.shape[:-1], layout.strides[:-1])
    return layout.offset % CHUNK == 0 and all(
        stride % CHUNK == 0 for size, stride in others if size != 1
    )


def _stage(
    name: str,
    layout: Layout,
    first: str,
    count: int,
    bound: int,
    head: int,
    asynchronous: bool = False,
) -> str:
    """C statements copying rows `first .. first + count` of operand `name`
    (from `<name>_base`) into `<name>_tile`, zeros past row `bound`;
    `asynchronous`: as `cp.async` copies where the rows are 16-byte chunks
    (the caller commits and waits), plain stores otherwise."""
    ld, (row_stride, col_stride) = head + PAD, layout.strides[-2:]
    tile, base = f"{name}_tile + r * {ld} + c", f"{name}_base + t * {row_stride}LL"
    if _chunked(layout):
        chunks = head // CHUNK
        loop = f"""for (int e = threadIdx.x; e < {count * chunks}; e += {THREADS}) {{
  const int r = e / {chunks}, c = e % {chunks} * {CHUNK};
  const long long t = {first} + r;"""
        if asynchronous:  # a row past the end: zeros, from a valid address
            return f"""{loop}
  fx_cp_async16({tile}, t < {bound}LL ? {name} + {base} + c : {name}, t < {bound}LL);
}}"""
        return f"""{loop}
  *reinterpret_cast<fx_flash_chunk*>({tile}) = t < {bound}LL
      ? *reinterpret_cast<const fx_flash_chunk*>({name} + {base} + c)
      : fx_flash_chunk{{}};
}}"""
    return f"""for (int e = threadIdx.x; e < {count * head}; e += {THREADS}) {{
  const int r = e / {head}, c = e % {head};
  const long long t = {first} + r;
  *({tile}) = t < {bound}LL ? {name}[{base} + c * {col_stride}LL]
                            : fx_flash_from_float(0.0f, {name}_tile);
}}"""


def _stage_sum(
    layouts: Mapping[str, Layout], names: Sequence[str], rows: int, head: int
) -> str:
    """C statements computing the q tile as q + q_bias (each broadcast to
    the query's shape, index `names`), rounded to the input type."""
    q, bias = (_broadcast(layouts[r], names) for r in ("q", "q_bias"))
    return f"""for (int e = threadIdx.x; e < {BLOCK_M * head}; e += {THREADS}) {{
  const int r = e / {head}, c = e % {head};
  const long long t = first_row + r;
  q_tile[r * {head + PAD} + c] = fx_flash_from_float(
      t < {rows}LL ? fx_flash_float(q[{q}]) + fx_flash_float(q_bias[{bias}]) : 0.0f,
      q_tile);
}}"""


def _scores(head: int, ld: int, mma: str, ldmatrix: bool) -> str:
    """C statements: the warp's scores s = q k^T of the key tile in
    `k_tile` (q's A fragments in `qa`)."""
    if ldmatrix:  # two k steps of B per ldmatrix.x4
        step = f"""for (int kk = 0; kk < {head // 16}; kk += 2) {{
          unsigned b0[2], b1[2];
          fx_ldsm_frag_b_nk_x2(b0, b1, k_tile + nt * 8 * {ld} + kk * 16, {ld}, lane);
          fx_mma_m16n8k16_{mma}(s[nt], qa[kk], b0, s[nt]);
          fx_mma_m16n8k16_{mma}(s[nt], qa[kk + 1], b1, s[nt]);
        }}"""
    else:
        step = f"""for (int kk = 0; kk < {head // 16}; ++kk) {{
          unsigned b[2];
          fx_load_frag_b_nk(b, k_tile + nt * 8 * {ld} + kk * 16, {ld}, lane);
          fx_mma_m16n8k16_{mma}(s[nt], qa[kk], b, s[nt]);
        }}"""
    return f"""float s[{BLOCK_N // 8}][4];
      for (int nt = 0; nt < {BLOCK_N // 8}; ++nt) {{
        for (int i = 0; i < 4; ++i) s[nt][i] = 0.0f;
        {step}
      }}"""


def _values(head: int, ld: int, mma: str, ldmatrix: bool) -> str:
    """C statements: o += p v for the value tile in `v_tile` (p: the
    probabilities in `s`, as A fragments)."""
    if ldmatrix:  # two n blocks of B per ldmatrix.x4.trans
        step = f"""for (int dt = 0; dt < {head // 8}; dt += 2) {{
          unsigned b0[2], b1[2];
          fx_ldsm_frag_b_kn_x2(b0, b1, v_tile + kk * 16 * {ld} + dt * 8, {ld}, lane);
          fx_mma_m16n8k16_{mma}(o[dt], pa, b0, o[dt]);
          fx_mma_m16n8k16_{mma}(o[dt + 1], pa, b1, o[dt + 1]);
        }}"""
    else:
        step = f"""for (int dt = 0; dt < {head // 8}; ++dt) {{
          unsigned b[2];
          fx_load_frag_b_kn(b, v_tile + kk * 16 * {ld} + dt * 8, {ld}, lane);
          fx_mma_m16n8k16_{mma}(o[dt], pa, b, o[dt]);
        }}"""
    return f"""for (int kk = 0; kk < {BLOCK_N // 16}; ++kk) {{
        unsigned pa[4];
        fx_frag_a_from_c_{mma}(pa, s[2 * kk], s[2 * kk + 1]);
        {step}
      }}"""


def flash_source(
    name: str,
    types: Sequence[MemRefType[Attribute]],
    roles: Mapping[str, int],
    scale: float,
    causal: bool,
    c_type: Callable[[Attribute], str],
    pipelined: bool = True,
) -> str:
    """The kernel `name` on buffers of `types`; `roles` says which buffer is
    `q`, `k`, `v`, `out` and, where present, `mask`, `q_bias` (the query
    is q + q_bias, rounded) and `out_bias` (the output is the attention,
    rounded, + out_bias, rounded); the biases broadcast to q's and out's
    shape. Batch dims: q's, with k and v's dim -3 a divisor of q's (GQA).
    `pipelined` (the default): k and v tiles arrive by `cp.async` while
    the warps compute on the other one, fragments by `ldmatrix`; false: the
    first kernel (plain loads, both tiles staged before any mma), kept to
    time the two side by side (module docstring)."""
    layouts = {role: layout_of_type(types[i]) for role, i in roles.items()}
    q, k, v, out = (layouts[role] for role in ("q", "k", "v", "out"))
    element = types[roles["q"]].element_type
    assert isinstance(element, BFloat16Type | Float16Type)
    mma = "bf16" if isinstance(element, BFloat16Type) else "f16"
    *batch, rows, head = q.shape if "q_bias" not in roles else out.shape
    keys = k.shape[-2]
    group = batch[-1] // k.shape[-3] if batch else 1
    sequences = prod(batch)
    tiles_per_sequence = -(-rows // BLOCK_M)
    ld = head + PAD
    outer = [f"i{d}" for d in range(len(batch))]
    kv_outer = [*outer[:-1], f"(i{len(batch) - 1} / {group})"] if batch else []
    delinearize = []
    rest = "sequence"
    for d in reversed(range(len(batch))):
        if batch[d] != 1:  # a dim of size 1 is index 0, never read
            delinearize.append(f"const long long i{d} = {rest} % {batch[d]}LL;")
            rest = f"({rest} / {batch[d]}LL)"
    q_base = _offset(q, [*outer, "0", "0"]) if "q_bias" not in roles else "0LL"
    k_base = _offset(k, [*kv_outer, "0", "0"])
    v_base = _offset(v, [*kv_outer, "0", "0"])
    mask_block = ""
    if "mask" in roles:
        read = f"mask[{_broadcast(layouts['mask'], [*outer, 'row', 'j0 + key'])}]"
        if isinstance(types[roles["mask"]].element_type, IntegerType):
            term = f"if (!{read}) x = -FX_INF;"
        else:
            term = f"x += fx_flash_base2(fx_flash_float({read}));"
        mask_block = f"""if (key < seen[i >> 1]) {{  // read only where in range
            const long long row = first_row + warp * 16 + fx_frag_c_row(lane, i);
            {term}
          }}"""
    ctype = c_type(element)
    last_tile = f"fx_min({keys}LL, first_row + {BLOCK_M}LL)" if causal else f"{keys}LL"
    # the keys a row sees: below `limit` (the causal cut and the key count
    # in one bound, 0 for a padding row past the last), then the mask
    limit = f"fx_min({keys}LL, row + 1)" if causal else f"{keys}LL"
    if "q_bias" in roles:
        stage_q = _stage_sum(layouts, [*outer, "t", "c"], rows, head)
    else:
        stage_q = _stage("q", q, "first_row", BLOCK_M, rows, head, pipelined)
    stage_q = stage_q.replace("\n", "\n    ")

    def stage(role: str, first: str, indent: str) -> str:
        text = _stage(role, layouts[role], first, BLOCK_N, keys, head, pipelined)
        return text.replace("\n", "\n" + indent)

    stored = f"fx_flash_from_float(o[dt][i] * inverse[i >> 1], ({ctype}*)0)"
    if "out_bias" in roles:  # the attention's result is rounded, then added
        bias = f"out_bias[{_broadcast(layouts['out_bias'], [*outer, 't', 'c'])}]"
        stored = (
            f"fx_flash_from_float(fx_flash_float({stored}) + "
            f"fx_flash_float({bias}), ({ctype}*)0)"
        )
    o_at = _offset(out, [*outer, "t", "c"])
    decl = "\n    ".join(delinearize)
    params = ",\n    ".join(
        f"{'' if i == roles['out'] else 'const '}{c_type(t.element_type)}* "
        f"__restrict__ arg{i}"
        for i, t in enumerate(types)
    )
    pointers = "\n  ".join(
        f"{'' if role == 'out' else 'const '}{c_type(types[i].element_type)}* "
        f"const {role} = arg{i};"
        for role, i in roles.items()
    )
    scores, values = (part(head, ld, mma, pipelined) for part in (_scores, _values))
    load_q = "fx_ldsm_frag_a" if pipelined else "fx_load_frag_a"
    if pipelined:
        # k's first tile loads with q (q is staged where v goes); then per
        # key tile: v loads while the warps compute the scores on k, the
        # next k loads while they multiply by v
        q_tile = "v_tile"
        prologue = f"""{stage("k", "0LL", "    ")}
    fx_cp_async_commit();
    fx_cp_async_wait_all();"""
        load_kv = f"""__syncthreads();  // every warp has read q or the last v tile
      {stage("v", "j0", "      ")}
      fx_cp_async_commit();"""
        between = f"""fx_cp_async_wait_all();
      __syncthreads();  // v has landed; every warp has read the k tile
      if (j0 + {BLOCK_N}LL < key_end) {{
        {stage("k", f"(j0 + {BLOCK_N}LL)", "        ")}
        fx_cp_async_commit();
      }}"""
        after = "fx_cp_async_wait_all();  // the next k tile"
    else:
        q_tile, prologue, between, after = "k_tile", "", "", ""
        load_kv = f"""__syncthreads();  // every warp has read the last k/v tile (or q)
      {stage("k", "j0", "      ")}
      {stage("v", "j0", "      ")}
      __syncthreads();"""
    return f"""
extern "C" __global__ void __launch_bounds__({THREADS}) {name}(
    {params}) {{
  {pointers}
  alignas(16) __shared__ {ctype} k_tile[{BLOCK_N * ld}];
  alignas(16) __shared__ {ctype} v_tile[{BLOCK_N * ld}];
  // q is staged in a key tile's memory: its fragments live in registers
  // before that tile is next written (below 48 KB of static shared memory
  // at d = 128)
  {ctype}* const q_tile = {q_tile};
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float scale = {scale * LOG2_E!r}f;  // scores in base 2 (exp2f)
  for (long long tile = blockIdx.x; tile < {sequences * tiles_per_sequence}LL;
       tile += gridDim.x) {{
    // heaviest tiles first (a causal tile's cost grows with its rows)
    const long long sequence = tile % {sequences}LL;
    const long long first_row =
        ({tiles_per_sequence - 1}LL - tile / {sequences}LL) * {BLOCK_M}LL;
    {decl}
    const long long q_base = {q_base}, k_base = {k_base}, v_base = {v_base};
    const long long key_end = {last_tile};
    __syncthreads();  // every warp is done with the previous tile's k and v
    {stage_q}
    {prologue}
    __syncthreads();
    unsigned qa[{head // 16}][4];
    for (int kk = 0; kk < {head // 16}; ++kk)
      {load_q}(qa[kk], q_tile + warp * 16 * {ld} + kk * 16, {ld}, lane);
    long long limit[2];  // this lane's rows g and g + 8 see keys below limit
    for (int h = 0; h < 2; ++h) {{
      const long long row = first_row + warp * 16 + fx_frag_c_row(lane, 2 * h);
      limit[h] = row < {rows}LL ? {limit} : 0LL;
    }}
    float m[2] = {{-FX_INF, -FX_INF}}, l[2] = {{0.0f, 0.0f}};
    float o[{head // 8}][4];
    for (int dt = 0; dt < {head // 8}; ++dt)
      for (int i = 0; i < 4; ++i) o[dt][i] = 0.0f;
    for (long long j0 = 0; j0 < key_end; j0 += {BLOCK_N}) {{
      {load_kv}
      {scores}
      float top[2] = {{m[0], m[1]}};
      const int seen[2] = {{(int)(limit[0] - j0), (int)(limit[1] - j0)}};
      for (int nt = 0; nt < {BLOCK_N // 8}; ++nt)
        for (int i = 0; i < 4; ++i) {{
          const int key = nt * 8 + fx_frag_c_col(lane, i);  // from j0
          float x = key < seen[i >> 1] ? scale * s[nt][i] : -FX_INF;
          {mask_block}
          s[nt][i] = x;
          top[i >> 1] = fx_maximumf(top[i >> 1], x);
        }}
      float rescale[2];
      for (int h = 0; h < 2; ++h) {{  // h: the rows g and g + 8 of this lane
        for (int x = 1; x < 4; x <<= 1)
          top[h] = fx_maximumf(top[h], __shfl_xor_sync(0xffffffffu, top[h], x));
        // no visible key yet: subtract 0, not -inf (-inf - -inf is NaN)
        const float shift = top[h] == -FX_INF ? 0.0f : top[h];
        rescale[h] = exp2f(m[h] - shift);
        m[h] = top[h];
        l[h] *= rescale[h];
      }}
      for (int nt = 0; nt < {BLOCK_N // 8}; ++nt)
        for (int i = 0; i < 4; ++i) {{
          const float shift = m[i >> 1] == -FX_INF ? 0.0f : m[i >> 1];
          s[nt][i] = exp2f(s[nt][i] - shift);
          l[i >> 1] += s[nt][i];
        }}
      {between}
      for (int dt = 0; dt < {head // 8}; ++dt)
        for (int i = 0; i < 4; ++i) o[dt][i] *= rescale[i >> 1];
      {values}
      {after}
    }}
    float inverse[2];
    for (int h = 0; h < 2; ++h) {{  // the quad's partial sums of each row
      for (int x = 1; x < 4; x <<= 1) l[h] += __shfl_xor_sync(0xffffffffu, l[h], x);
      inverse[h] = l[h] > 0.0f ? 1.0f / l[h] : 0.0f;  // no key: zeros
    }}
    for (int dt = 0; dt < {head // 8}; ++dt)
      for (int i = 0; i < 4; ++i) {{
        const long long t = first_row + warp * 16 + fx_frag_c_row(lane, i);
        const int c = dt * 8 + fx_frag_c_col(lane, i);
        if (t < {rows}LL) out[{o_at}] = {stored};
      }}
  }}
}}
"""


FLASH_HELPERS = f"""
// ---- flash attention (fxdsl/lowering/flash_attention_cuda.py) ----
struct alignas(16) fx_flash_chunk {{  // 8 bf16/f16 values, one 16-byte move
  unsigned bits[4];
}};
__device__ inline float fx_flash_float(float x) {{ return x; }}
__device__ inline float fx_flash_float(__half x) {{ return __half2float(x); }}
__device__ inline float fx_flash_float(__nv_bfloat16 x) {{
  return __bfloat162float(x);
}}
__device__ inline __half fx_flash_from_float(float x, __half*) {{
  return __float2half_rn(x);
}}
__device__ inline __nv_bfloat16 fx_flash_from_float(float x, __nv_bfloat16*) {{
  return __float2bfloat16_rn(x);
}}
// an additive mask element in base-2 scores: at least -FLT_MAX when finite
__device__ inline float fx_flash_base2(float bias) {{
  const float scaled = bias * {LOG2_E!r}f;
  return bias == -FX_INF ? scaled : fx_maximumf(scaled, -{FLT_MAX!r}f);
}}
"""
"""Device code every flash-attention kernel needs besides
`tensor_core.TENSOR_CORE_CUDA` (once per translation unit)."""
