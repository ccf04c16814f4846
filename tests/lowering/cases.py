"""Graph programs the lowering tests compile: one function per case, grouped
in modules by theme. Each entry: name -> MLIR text of one `func.func`."""

from __future__ import annotations

import math

from fxdsl.ir import graph


def _float_only(base: type[graph.GraphOp]) -> list[str]:
    """The dialect's float-only elementwise ops of `base`: a new one is
    covered by every lowering test without an edit here."""
    return [
        op.name.removeprefix("graph.")
        for op in graph.GRAPH_OPS
        if issubclass(op, base) and getattr(op, "FLOAT_ONLY", False)
    ]


UNARY = ["neg", "abs", "relu", *_float_only(graph.UnaryOp)]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
FLOAT_BINARY = _float_only(graph.BinaryOp)
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
BITWISE = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right", "gcd"
]  # fmt: skip
FIBONACCI = {
    "i64": (4660046610375530309, 7540113804746346429),
    "i32": (1134903170, 1836311903),
}
"""The largest Fibonacci neighbours of each type: Euclid's worst case (each
remainder step only steps one back), which an unrolled gcd must finish."""
REDUCE = ["sum", "mean", "max", "min", "var"]
FLOATS = ["f32", "f16", "bf16"]
VIEW_ONLY = {"reshape"}
"""Cases that lower to views of their arguments, without a kernel."""


def _func(name: str, args: str, results: str, body: str, ret: str) -> str:
    return (
        f"  func.func @{name}({args}) -> ({results}) {{\n"
        f"    {body}\n    func.return {ret}\n  }}\n"
    )


def unary_cases() -> dict[str, str]:
    cases: dict[str, str] = {}
    for dtype in FLOATS:
        t = f"tensor<4x40x{dtype}>"
        for op in UNARY:
            cases[f"{op}_{dtype}"] = _func(
                f"{op}_{dtype}", f"%x: {t}", t, f"%y = graph.{op} %x : {t}", f"%y : {t}"
            )
        cases[f"gelu_tanh_{dtype}"] = _func(
            f"gelu_tanh_{dtype}", f"%x: {t}", t,
            f'%y = graph.gelu %x approximate "tanh" : {t}', f"%y : {t}",
        )  # fmt: skip
        cases[f"clamp_{dtype}"] = _func(
            f"clamp_{dtype}", f"%x: {t}", t,
            f"%y = graph.clamp %x min -0.5 max 0.25 : {t}", f"%y : {t}",
        )  # fmt: skip
    for dtype in ["i64", "i32"]:
        t = f"tensor<4x40x{dtype}>"
        cases[f"clamp_{dtype}"] = _func(
            f"clamp_{dtype}", f"%x: {t}", t, f"%y = graph.clamp %x max 1.0 : {t}",
            f"%y : {t}",
        )  # fmt: skip
        for op in ["neg", "abs", "relu"]:
            cases[f"{op}_{dtype}"] = _func(
                f"{op}_{dtype}", f"%x: {t}", t, f"%y = graph.{op} %x : {t}", f"%y : {t}"
            )
    return cases


def binary_cases() -> dict[str, str]:
    """Binary and compare ops with numpy broadcasting (4x1x8 with 5x8)."""
    cases: dict[str, str] = {}
    for dtype in [*FLOATS, "i64", "i32"]:
        a, b, r = (f"tensor<{s}x{dtype}>" for s in ("4x1x8", "5x8", "4x5x8"))
        ops = BINARY + COMPARE + (FLOAT_BINARY if dtype in FLOATS else [])
        for op in ops:
            result = "tensor<4x5x8xi1>" if op in COMPARE else r
            cases[f"{op}_{dtype}"] = _func(
                f"{op}_{dtype}", f"%a: {a}, %b: {b}", result,
                f"%y = graph.{op} %a, %b : ({a}, {b}) -> {result}", f"%y : {result}",
            )  # fmt: skip
    for dtype in ["i64", "i32"]:  # what kernels compute integers in
        a, b, r = (f"tensor<{s}x{dtype}>" for s in ("4x1x8", "5x8", "4x5x8"))
        for op in BITWISE:
            cases[f"{op}_{dtype}"] = _func(
                f"{op}_{dtype}", f"%a: {a}, %b: {b}", r,
                f"%y = graph.{op} %a, %b : ({a}, {b}) -> {r}", f"%y : {r}",
            )  # fmt: skip
        cases[f"bitwise_not_{dtype}"] = _func(
            f"bitwise_not_{dtype}", f"%a: {a}", a,
            f"%y = graph.bitwise_not %a : {a}", f"%y : {a}",
        )  # fmt: skip
        # shifts by amounts outside [0, width), of negative values too (C
        # leaves both undefined; cuda-sim's UBSan would say so)
        amounts = "[-1, 0, 1, 31, 32, 40, 63, 64]"
        x, k = f"tensor<5x8x{dtype}>", f"tensor<8x{dtype}>"
        for op in ("shift_left", "shift_right"):
            body = "\n    ".join([
                f"%k = graph.constant dense<{amounts}> : {k}",
                f"%n = graph.neg %a : {x}",
                f"%y = graph.{op} %n, %k : ({x}, {k}) -> {x}",
            ])  # fmt: skip
            name = f"{op}_edges_{dtype}"
            cases[name] = _func(name, f"%a: {x}", x, body, f"%y : {x}")
        # gcd of zeros, signs, and the worst case for Euclid's step count
        small, big = FIBONACCI[dtype]
        body = "\n    ".join([
            f"%k = graph.constant dense<[0, -12, 7, {big}, 0, -18, 1, {small}]> : {k}",
            f"%m = graph.constant dense<[0, 18, -21, {small}, 5, 0, -1, {big}]> : {k}",
            f"%z = graph.sub %a, %a : {x}",
            f"%s = graph.add %z, %k : ({x}, {k}) -> {x}",
            f"%y = graph.gcd %s, %m : ({x}, {k}) -> {x}",
        ])  # fmt: skip
        cases[f"gcd_edges_{dtype}"] = _func(
            f"gcd_edges_{dtype}", f"%a: {x}", x, body, f"%y : {x}"
        )
        # integer pow with negative exponents (torch: 0, or +-1 for a base
        # of +-1); bases -3..4, so -1, 0 and 1 occur
        body = "\n    ".join([
            f"%k = graph.constant dense<[-1, -2, -3, 0, 1, 2, 3, -64]> : {k}",
            f"%four = graph.full value 4.0 : {x}",
            f"%b = graph.sub %a, %four : {x}",
            f"%y = graph.pow %b, %k : ({x}, {k}) -> {x}",
        ])  # fmt: skip
        cases[f"pow_negative_{dtype}"] = _func(
            f"pow_negative_{dtype}", f"%a: {x}", x, body, f"%y : {x}"
        )
    t, c = "tensor<4x8xf16>", "tensor<4x1xi1>"
    cases["select_f16"] = _func(
        "select_f16", f"%c: {c}, %a: {t}, %b: tensor<8xf16>", t,
        f"%y = graph.select %c, %a, %b : ({c}, {t}, tensor<8xf16>) -> {t}", f"%y : {t}",
    )  # fmt: skip
    a, b, r = "tensor<4x1x8xi1>", "tensor<5x8xi1>", "tensor<4x5x8xi1>"
    for op in ["logical_and", "logical_or"]:
        cases[op] = _func(
            op, f"%a: {a}, %b: {b}", r,
            f"%y = graph.{op} %a, %b : ({a}, {b}) -> {r}", f"%y : {r}",
        )  # fmt: skip
    cases["logical_not"] = _func(
        "logical_not", f"%a: {a}", a, f"%y = graph.logical_not %a : {a}", f"%y : {a}"
    )
    pairs = [("f32", "f16"), ("f16", "bf16"), ("f32", "i64"), ("i64", "f32"),
             ("i1", "f32"), ("f32", "i1"), ("i64", "i32"), ("i32", "i64")]  # fmt: skip
    for src, dst in pairs:
        s, d = f"tensor<16x{src}>", f"tensor<16x{dst}>"
        cases[f"cast_{src}_{dst}"] = _func(
            f"cast_{src}_{dst}", f"%x: {s}", d, f"%y = graph.cast %x : ({s}) -> {d}",
            f"%y : {d}",
        )  # fmt: skip
    for src, dst in [("f32", "i32"), ("i32", "f32")]:  # the kernel types' bitcasts
        s, d = f"tensor<16x{src}>", f"tensor<16x{dst}>"
        cases[f"bitcast_{src}_{dst}"] = _func(
            f"bitcast_{src}_{dst}", f"%x: {s}", d,
            f"%y = graph.bitcast %x : ({s}) -> {d}", f"%y : {d}",
        )  # fmt: skip
    return cases


def reduction_cases(rows: tuple[int, int] = (6, 7), inner: int = 300) -> dict[str, str]:
    """Reductions over `rows` x `inner`: 300 is more elements than threads in
    a block (a looping row kernel); 1280 is 320 float4 steps, a register-
    resident row (160 threads x 2 steps, see kernel_builder.resident_row)."""
    cases: dict[str, str] = {}
    r0, r1 = rows
    for dtype in FLOATS:
        t = f"tensor<{r0}x{r1}x{inner}x{dtype}>"
        for op in REDUCE:
            k = f"tensor<{r0}x{r1}x1x{dtype}>"
            cases[f"{op}_keepdim_{dtype}"] = _func(
                f"{op}_keepdim_{dtype}", f"%x: {t}", k,
                f"%y = graph.{op} %x dims [2] keepdim : ({t}) -> {k}", f"%y : {k}",
            )  # fmt: skip
            d = f"tensor<{r0}x{dtype}>"
            cases[f"{op}_last2_{dtype}"] = _func(
                f"{op}_last2_{dtype}", f"%x: {t}", d,
                f"%y = graph.{op} %x dims [1, 2] : ({t}) -> {d}", f"%y : {d}",
            )  # fmt: skip
        for op in ["softmax", "log_softmax"]:
            cases[f"{op}_{dtype}"] = _func(
                f"{op}_{dtype}", f"%x: {t}", t, f"%y = graph.{op} %x dim 2 : {t}",
                f"%y : {t}",
            )  # fmt: skip
        w = f"tensor<{inner}x{dtype}>"
        cases[f"layer_norm_{dtype}"] = _func(
            f"layer_norm_{dtype}", f"%x: {t}, %w: {w}, %b: {w}", t,
            f"%y = graph.layer_norm %x, %w, %b eps 1.0e-05 : ({t}, {w}, {w}) -> {t}",
            f"%y : {t}",
        )  # fmt: skip
    for dtype in ["i64", "i32"]:
        t, k = f"tensor<{r0}x{inner}x{dtype}>", f"tensor<{r0}x1x{dtype}>"
        for op in ["sum", "max", "min"]:
            cases[f"{op}_{dtype}"] = _func(
                f"{op}_{dtype}", f"%x: {t}", k,
                f"%y = graph.{op} %x dims [1] keepdim : ({t}) -> {k}", f"%y : {k}",
            )  # fmt: skip
    t = "tensor<5x9x3xf32>"
    for op in REDUCE:  # column reductions: not the trailing dims
        k = "tensor<1x9x3xf32>"
        cases[f"{op}_dim0"] = _func(
            f"{op}_dim0", f"%x: {t}", k,
            f"%y = graph.{op} %x dims [0] keepdim : ({t}) -> {k}", f"%y : {k}",
        )  # fmt: skip
    for op in ["softmax", "log_softmax"]:
        cases[f"{op}_dim1"] = _func(
            f"{op}_dim1", f"%x: {t}", t, f"%y = graph.{op} %x dim 1 : {t}", f"%y : {t}"
        )
    t = "tensor<5x9xf32>"
    cases["sum_all"] = _func(
        "sum_all", f"%x: {t}", "tensor<f32>",
        f"%y = graph.sum %x dims [] : ({t}) -> tensor<f32>", "%y : tensor<f32>",
    )  # fmt: skip
    return cases


def boolean_reduction_cases(rows: int = 4, inner: int = 300) -> dict[str, str]:
    """any/all over i1 rows (graph-decompose: max / min over i1: `or` and
    `and`, `fxdsl.lowering.combiners`)."""
    cases: dict[str, str] = {}
    t, k = f"tensor<{rows}x{inner}xi1>", f"tensor<{rows}xi1>"
    for op in ["any", "all"]:
        cases[f"{op}_i1"] = _func(
            f"{op}_i1", f"%x: {t}", k,
            f"%y = graph.{op} %x dims [1] : ({t}) -> {k}", f"%y : {k}",
        )  # fmt: skip
    return cases


def movement_cases() -> dict[str, str]:
    x = "tensor<4x6xf32>"
    body = {
        "reshape": ("tensor<24xf32>", "graph.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>"),
        "transpose": ("tensor<6x4xf32>", "graph.transpose %x perm [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>"),
        "slice": ("tensor<4x2xf32>", "graph.slice %x start [0, 1] limit [4, 6] step [1, 3] : (tensor<4x6xf32>) -> tensor<4x2xf32>"),
        "broadcast_to": ("tensor<3x4x6xf32>", "graph.broadcast_to %x : (tensor<4x6xf32>) -> tensor<3x4x6xf32>"),
    }  # fmt: skip
    cases = {
        name: _func(name, f"%x: {x}", t, f"%y = {text}", f"%y : {t}")
        for name, (t, text) in body.items()
    }
    cases["concat"] = _func(
        "concat", f"%x: {x}, %z: tensor<4x2xf32>", "tensor<4x8xf32>",
        "%y = graph.concat %x, %z dim 1 : (tensor<4x6xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>",
        "%y : tensor<4x8xf32>",
    )  # fmt: skip
    cases["gather"] = _func(
        "gather", f"%x: {x}, %i: tensor<4x3xi64>", "tensor<4x3xf32>",
        "%y = graph.gather %x, %i dim 1 : (tensor<4x6xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>",
        "%y : tensor<4x3xf32>",
    )  # fmt: skip
    cases["embedding"] = _func(
        "embedding", "%i: tensor<2x5xi32>, %w: tensor<10x16xbf16>", "tensor<2x5x16xbf16>",
        "%y = graph.embedding %i, %w : (tensor<2x5xi32>, tensor<10x16xbf16>) -> tensor<2x5x16xbf16>",
        "%y : tensor<2x5x16xbf16>",
    )  # fmt: skip
    # more index entries than positions: some positions sum several slices
    for dtype, dim in (("f32", 1), ("bf16", 0), ("i64", 1)):
        x, s = (
            f"tensor<5x6x{dtype}>",
            ("tensor<5x9x" if dim else "tensor<9x6x") + f"{dtype}>",
        )
        for op in ("index_add", "index_copy"):
            name = f"{op}_{dtype}"
            cases[name] = _func(
                name, f"%x: {x}, %i: tensor<9xi64>, %s: {s}", x,
                f"%y = graph.{op} %x, %i, %s dim {dim} : ({x}, tensor<9xi64>, {s}) -> {x}",
                f"%y : {x}",
            )  # fmt: skip
        # with a stable argsort of the index: binary-searched entries (dim
        # 1: position 5 has none, position 1 three)
        index = "%i = graph.constant dense<[3, 1, 4, 1, 0, 2, 4, 1, 3]> : tensor<9xi64>"
        order = "%o = graph.constant dense<[4, 1, 3, 7, 5, 0, 8, 2, 6]> : tensor<9xi64>"
        name = f"index_add_sorted_{dtype}"
        cases[name] = _func(
            name, f"%x: {x}, %s: {s}", x,
            f"{index}\n    {order}\n"
            f"    %y = graph.index_add %x, %i, %s, %o dim {dim} "
            f": ({x}, tensor<9xi64>, {s}, tensor<9xi64>) -> {x}",
            f"%y : {x}",
        )  # fmt: skip
    cases["constant"] = _func(
        "constant", "%x: tensor<4xi64>", "tensor<4xi64>",
        "%c = graph.constant dense<[3, 1, 4, 1]> : tensor<4xi64>\n"
        "    %y = graph.add %x, %c : tensor<4xi64>",
        "%y : tensor<4xi64>",
    )  # fmt: skip
    for half in ("bf16", "f16"):
        # a 16-bit constant array: NVRTC refuses __float2bfloat16() in a
        # __device__ initializer (found on an H100: the GPT-2 backend's
        # kernels fell back to the emulator)
        cases[f"constant_{half}"] = _func(
            f"constant_{half}", f"%x: tensor<4x{half}>", f"tensor<4x{half}>",
            f"%c = graph.constant dense<[0.1, -2.5, 65504.0, 3.0e-05]> : tensor<4x{half}>\n"
            f"    %y = graph.add %x, %c : tensor<4x{half}>",
            f"%y : tensor<4x{half}>",
        )  # fmt: skip
    # inf and NaN in a float constant array: FX_INF in a __device__
    # initializer is dynamic initialization too (the array holds bits)
    cases["constant_special_f32"] = _func(
        "constant_special_f32", "%x: tensor<4xf32>", "tensor<4xf32>",
        "%c = graph.constant dense<[0xFF800000, 0x7FC00000, 1.5, 0x7F800000]> : tensor<4xf32>\n"
        "    %y = graph.add %x, %c : tensor<4xf32>",
        "%y : tensor<4xf32>",
    )  # fmt: skip
    return cases


def attention_cases() -> dict[str, str]:
    """graph.attention kernels: causal or not, float4 or scalar rows (head
    dim 8 or 6), a partial tile (70 query rows: 64 + 6), fewer or more
    queries than keys, no batch dims, f16 and bf16; a fused group with a
    prologue on q and an epilogue on the result (float4 and scalar)."""
    cases: dict[str, str] = {}
    shapes = {
        # name: (q, k, v) shapes
        "attention": ((2, 5, 8), (2, 5, 8), (2, 5, 8)),
        "attention_d6": ((2, 5, 6), (2, 7, 6), (2, 7, 3)),
        "attention_tile": ((1, 70, 4), (1, 70, 4), (1, 70, 4)),
        "attention_short": ((1, 3, 4), (1, 9, 4), (1, 9, 4)),
        "attention_long": ((1, 9, 4), (1, 3, 4), (1, 3, 4)),
        "attention_2d": ((6, 8), (6, 8), (6, 8)),
    }
    for base, (q, k, v) in shapes.items():
        out = (*q[:-1], v[-1])
        for dtype in ["f32", "f16", "bf16"] if base == "attention" else ["f32"]:
            types = [f"tensor<{'x'.join(map(str, s))}x{dtype}>" for s in (q, k, v, out)]
            for causal in ("", " causal"):
                name = f"{base}{'_causal' if causal else ''}_{dtype}"
                signature = f"({types[0]}, {types[1]}, {types[2]}) -> {types[3]}"
                cases[name] = _func(
                    name, f"%q: {types[0]}, %k: {types[1]}, %v: {types[2]}", types[3],
                    f"%y = graph.attention %q, %k, %v scale 0.4{causal} : {signature}",
                    f"%y : {types[3]}",
                )  # fmt: skip
    t = "tensor<2x5x8xf32>"
    cases["attention_constant_key"] = _func(
        "attention_constant_key", f"%q: {t}, %v: {t}", t,
        f"%k = graph.full value 0.5 : {t}\n"
        f"    %y = graph.attention %q, %k, %v scale 0.4 causal : {t}",
        f"%y : {t}",
    )  # fmt: skip
    for name, dim in (("attention_prologue_epilogue", 8), ("attention_fused_d6", 6)):
        t, b, o = (
            f"tensor<2x5x{dim}xf32>",
            f"tensor<{dim}xf32>",
            f"tensor<2x1x{dim}xf32>",
        )
        group = "\n".join([
            f"%y = graph.fusion_group (%q, %bq, %k, %v, %bo) : ({t}, {b}, {t}, {t}, {o}) -> {t} {{",
            f"    ^bb0(%q1: {t}, %bq1: {b}, %k1: {t}, %v1: {t}, %bo1: {o}):",
            f"      %qb = graph.add %q1, %bq1 : ({t}, {b}) -> {t}",
            f"      %qs = graph.tanh %qb : {t}",
            f"      %a = graph.attention %qs, %k1, %v1 scale 0.4 causal : {t}",
            f"      %ab = graph.add %a, %bo1 : ({t}, {o}) -> {t}",
            f"      %r = graph.relu %ab : {t}",
            f"      graph.yield %r : {t}",
            "    }",
        ])  # fmt: skip
        cases[name] = _func(
            name, f"%q: {t}, %bq: {b}, %k: {t}, %v: {t}, %bo: {o}", t, group,
            f"%y : {t}",
        )  # fmt: skip
    return cases


def importer_cases() -> dict[str, str]:
    """Ops the torch.export importer needs that lower through graph-decompose
    (arange -> constant, ...), each feeding a kernel."""
    cases: dict[str, str] = {}
    t = "tensor<3x5xi64>"
    cases["arange_add"] = _func(
        "arange_add", f"%x: {t}", t,
        "%r = graph.arange start 4.0 step -3.0 : tensor<5xi64>\n"
        f"    %y = graph.add %x, %r : ({t}, tensor<5xi64>) -> {t}", f"%y : {t}",
    )  # fmt: skip
    for dtype, shape, dim in (
        ("f32", "3x40", 1),
        ("i64", "2x70x3", 1),
        ("f16", "20x3", 0),
    ):
        t = f"tensor<{shape}x{dtype}>"
        name = f"cumsum_dim{dim}_{dtype}"
        cases[name] = _func(
            name, f"%x: {t}", t, f"%y = graph.cumsum %x dim {dim} : {t}", f"%y : {t}"
        )
    x = "tensor<4x6x5x3xf32>"
    for name, (dims, index_types, result) in {
        "index_adjacent": ([1, 2], ["tensor<2x1xi64>", "tensor<7xi32>"], "4x2x7x3"),
        "index_separated": ([0, 2], ["tensor<2x1xi64>", "tensor<7xi32>"], "2x7x6x3"),
        "index_one": ([1], ["tensor<9xi64>"], "4x9x5x3"),
    }.items():
        names = [f"%i{n}" for n in range(len(dims))]
        args = ", ".join(f"{n}: {t}" for n, t in zip(names, index_types))
        r = f"tensor<{result}xf32>"
        cases[name] = _func(
            name, f"%x: {x}, {args}", r,
            f"%y = graph.index %x, {', '.join(names)} dims {dims} : "
            f"({x}, {', '.join(index_types)}) -> {r}", f"%y : {r}",
        )  # fmt: skip
    q, k, v = "tensor<2x9x8xf32>", "tensor<2x11x8xf32>", "tensor<2x11x4xf32>"
    for name, (mask, causal) in {
        "attention_bool_mask": ("tensor<9x11xi1>", ""),
        "attention_additive_mask": ("tensor<2x1x11xf32>", " causal"),
        # a bf16 or f16 model's mask beside the f32 q, k, v of torch's SDPA
        "attention_bf16_mask": ("tensor<2x1x11xbf16>", " causal"),
        "attention_f16_mask": ("tensor<2x1x11xf16>", " causal"),
    }.items():
        o = "tensor<2x9x4xf32>"
        cases[name] = _func(
            name, f"%q: {q}, %k: {k}, %v: {v}, %m: {mask}", o,
            f"%y = graph.attention %q, %k, %v, %m{causal} scale 0.3 : "
            f"({q}, {k}, {v}, {mask}) -> {o}", f"%y : {o}",
        )  # fmt: skip
    return cases


def split_k_cases() -> dict[str, str]:
    """`graph-split-k`'s output as `graph-fuse` groups it: a batched product
    of K chunks, then a group that sums the partials (a serial reduction
    over the leading dim) with the epilogue: pointwise (float4, through the
    view that restores x's batch dims), in a row kernel with a layer norm,
    and scalar (an innermost dim of 6)."""
    cases: dict[str, str] = {}
    for name, (x, k, n, s) in {
        "split_k_gelu": ((2, 4), 64, 40, 4),
        "split_k_layer_norm": ((2, 4), 64, 40, 4),
        "split_k_scalar": ((5,), 12, 6, 3),
    }.items():
        rows, chunk = math.prod(x), k // s
        t = lambda *dims: f"tensor<{'x'.join(map(str, dims))}xf32>"
        xt, wt, out, pt = t(*x, k), t(k, n), t(*x, n), t(s, rows, n)
        vector = t(n)
        body = [
            f"%xr = graph.reshape %x : ({xt}) -> {t(rows, s, chunk)}",
            f"%xs = graph.transpose %xr perm [1, 0, 2] : ({t(rows, s, chunk)}) -> {t(s, rows, chunk)}",
            f"%wr = graph.reshape %w : ({wt}) -> {t(s, chunk, n)}",
            f"%p = graph.matmul %xs, %wr : ({t(s, rows, chunk)}, {t(s, chunk, n)}) -> {pt}",
        ]  # fmt: skip
        partials = "%p1"
        group = []
        if len(x) > 1:
            group.append(f"%v = graph.reshape %p1 : ({pt}) -> {t(s, *x, n)}")
            partials = "%v"
        group += [
            f"%sum = graph.sum {partials} dims [0] : ({t(s, *x, n)}) -> {out}",
            f"%a = graph.add %sum, %b1 : ({out}, {vector}) -> {out}",
        ]
        if name == "split_k_layer_norm":
            group += [
                f"%r = graph.add %a, %res1 : {out}",
                f"%y1 = graph.layer_norm %r, %g1, %b1 eps 1.0e-05 : ({out}, {vector}, {vector}) -> {out}",
                f"graph.yield %r, %y1 : {out}, {out}",
            ]  # fmt: skip
            inputs, types = "%p, %b, %res, %g", f"{pt}, {vector}, {out}, {vector}"
            block = f"%p1: {pt}, %b1: {vector}, %res1: {out}, %g1: {vector}"
            results, args = (
                f"{out}, {out}",
                f"%x: {xt}, %w: {wt}, %b: {vector}, %res: {out}, %g: {vector}",
            )
            ret = f"%y#0, %y#1 : {out}, {out}"
            head = f"%y:2 = graph.fusion_group ({inputs}) : ({types}) -> ({results}) {{"
        else:
            group += [
                f'%e = graph.gelu %a approximate "tanh" : {out}',
                f"graph.yield %e : {out}",
            ]
            inputs, types = "%p, %b", f"{pt}, {vector}"
            block = f"%p1: {pt}, %b1: {vector}"
            results, args = out, f"%x: {xt}, %w: {wt}, %b: {vector}"
            ret = f"%y : {out}"
            head = f"%y = graph.fusion_group ({inputs}) : ({types}) -> {out} {{"
        text = "\n    ".join(
            [*body, head, f"^bb0({block}):", *("  " + line for line in group), "}"]
        )
        cases[name] = _func(name, args, results, text, ret)
    return cases


def module(cases: dict[str, str]) -> str:
    return "builtin.module {\n" + "".join(cases.values()) + "}\n"


THEMES = {
    "unary": unary_cases,
    "binary": binary_cases,
    "reduction": reduction_cases,
    "boolean_reduction": boolean_reduction_cases,
    "movement": movement_cases,
    "attention": attention_cases,
    "importer": importer_cases,
    "split_k": split_k_cases,
}
