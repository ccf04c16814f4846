"""OpInfo ops whose training step (through `torch.compile(backend=
"fxdsl")`: float32's first 3 samples, bfloat16's first) leaves operators
to torch: dtype -> op -> why (the backend's own summary of what ran in
torch, for the worst sample).

Held by tests/frontends/test_opinfo_grad.py: an op that falls back and is
not listed fails it, and so does a listed op that now runs whole in fxdsl
(delete its entry). Wrong gradients and crashes are never listed.
Measured with `python -m fxdsl.testing.opinfo --levels grad --samples N
--dtype D`.
"""

EXPECTED: dict[str, dict[str, str]] = {
    "float32": {
        "chalf": "4 of 4 operators ran in torch: aten._to_copy.default x2 (whole graph), aten.view_as_real.default x1 (whole graph), aten.select.int x1 (whole graph); a whole graph: aten._to_copy.default (node %_to_cop",
        "combinations": "4 of 15 operators ran in torch: aten.masked_select.default x1 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten.unsqueeze.default ",
        "index_fill": "6 of 14 operators ran in torch: aten.unsqueeze.default x1 (in an island of 4 node(s), below min_block_size=5), aten.index_put.default x1 (in an island of 4 node(s), below min_block_size=5), aten.squee",
        "index_put": "4 of 6 operators ran in torch: aten.index_put.default x1 (in an island of 2 node(s), below min_block_size=5), aten.index.Tensor x1 (a size or number read from a tensor's values (nonzero, a boolean mas",
        "linalg.cholesky": "2 of 30 operators ran in torch: aten.linalg_cholesky_ex.default x1 (in an island of 1 node(s), below min_block_size=5), with_effects x1 (with_effects has no graph-dialect mapping)",
        "linalg.eig": "19 of 38 operators ran in torch: aten.mm.default x3 (aten.mm.default has no graph-dialect mapping), aten.unsqueeze.default x3 (in an island of 3 node(s), below min_block_size=5), aten.select.int x2 (i",
        "linalg.eigvals": "4 of 15 operators ran in torch: aten.linalg_eig.default x1 (aten.linalg_eig.default has no graph-dialect mapping), aten._linalg_solve_ex.default x1 (aten._linalg_solve_ex.default has no graph-dialect ",
        "linalg.inv": "2 of 9 operators ran in torch: aten.linalg_inv_ex.default x1 (in an island of 1 node(s), below min_block_size=5), with_effects x1 (with_effects has no graph-dialect mapping)",
        "linalg.lu_factor": "2 of 46 operators ran in torch: aten.linalg_lu_factor_ex.default x1 (in an island of 1 node(s), below min_block_size=5), with_effects x1 (with_effects has no graph-dialect mapping)",
        "linalg.solve": "2 of 11 operators ran in torch: aten._linalg_solve_ex.default x1 (in an island of 1 node(s), below min_block_size=5), with_effects x1 (with_effects has no graph-dialect mapping)",
        "linalg.tensorinv": "4 of 13 operators ran in torch: aten.view.default x2 (in an island of 3 node(s), below min_block_size=5), aten.linalg_inv_ex.default x1 (in an island of 3 node(s), below min_block_size=5), with_effect",
        "linalg.tensorsolve": "5 of 17 operators ran in torch: aten.view.default x3 (in an island of 4 node(s), below min_block_size=5), aten._linalg_solve_ex.default x1 (in an island of 4 node(s), below min_block_size=5), with_eff",
        "masked_select": "2 of 11 operators ran in torch: aten.masked_select.default x1 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten.sym_size.int x1 (a",
        "narrow": "9 of 9 operators ran in torch: <built-in function add> x2 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten._local_scalar_dense.de",
        "tensor_split": "7 of 42 operators ran in torch: aten.slice.Tensor x4 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten._local_scalar_dense.default",
    },
    "bfloat16": {
        "chalf": "4 of 4 operators ran in torch: aten._to_copy.default x2 (whole graph), aten.view_as_real.default x1 (whole graph), aten.select.int x1 (whole graph); a whole graph: aten._to_copy.default (node %_to_cop",
        "combinations": "4 of 15 operators ran in torch: aten.masked_select.default x1 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten.unsqueeze.default ",
        "masked_select": "2 of 11 operators ran in torch: aten.masked_select.default x1 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten.sym_size.int x1 (a",
        "tensor_split": "7 of 42 operators ran in torch: aten.slice.Tensor x4 (a size or number read from a tensor's values (nonzero, a boolean mask, .item()), which only torch computes with), aten._local_scalar_dense.default",
    },
}
