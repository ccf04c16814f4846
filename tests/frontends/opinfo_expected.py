"""OpInfo ops (float32 samples) that do not import yet: op -> level ->
reason.

Held by tests/frontends/test_opinfo.py against its run (1 sample(s)
per op): an op failing at a level not listed here fails the test, and so
does a listed one that passes (delete its entry). Written by
`python -m fxdsl.testing.opinfo --dtype float32 --json RESULTS --resume
--table THIS_FILE --table-samples 1`; the reason is the importer's
message.
"""

EXPECTED: dict[str, dict[str, str]] = {
    "argwhere": {
        "default": "aten.argwhere.default: dynamic shape (u0, 1): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as",
        "core": "aten.nonzero.default: dynamic shape (u0, 1): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
    },
    "chalf": {
        "default": "aten.chalf.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex32 is not supported (com",
        "core": "aten._to_copy.default: dtype torch.complex32 is not supported (complex: only torch.complex64, torch.complex128)",
    },
    "combinations": {
        "default": "aten.combinations.default: dynamic shape (u0, 1): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such ",
        "core": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such ",
    },
    "hash_tensor": {
        "default": "aten.hash_tensor.default has no graph-dialect mapping",
        "core": "aten.hash_tensor.default has no graph-dialect mapping",
    },
    "linalg.eig": {
        "default": "aten.linalg_eig.default has no graph-dialect mapping",
        "core": "aten.linalg_eig.default has no graph-dialect mapping",
    },
    "linalg.eigvals": {
        "default": "aten.linalg_eigvals.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_eig.default does not import: aten.linalg_ei",
        "core": "aten.linalg_eig.default has no graph-dialect mapping",
    },
    "linalg.ldl_factor": {
        "default": "aten.linalg_ldl_factor.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_ldl_factor_ex.default does not imp",
        "core": "the program has a TOKEN output (getitem_3); only programs that return user outputs and write their inputs or buffers import",
    },
    "linalg.ldl_factor_ex": {
        "default": "aten.linalg_ldl_factor_ex.default has no graph-dialect mapping",
        "core": "aten.linalg_ldl_factor_ex.default has no graph-dialect mapping",
    },
    "linalg.ldl_solve": {
        "default": "aten.linalg_ldl_solve.default has no graph-dialect mapping",
        "core": "aten.linalg_ldl_solve.default has no graph-dialect mapping",
    },
    "masked_select": {
        "default": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such ",
        "core": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such ",
    },
    "nn.functional.multilabel_margin_loss": {
        "default": "aten.multilabel_margin_loss.default has no graph-dialect mapping, and in torch's decomposition of it aten.multilabel_margin_loss_forward.default has no graph-dialect mapping (its decomposition in torch is wrong: aten_decompositions.WRONG)",
    },
    "nonzero": {
        "default": "aten.nonzero.default: dynamic shape (u0, 0): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
        "core": "aten.nonzero.default: dynamic shape (u0, 0): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
    },
    "special.airy_ai": {
        "default": "aten.special_airy_ai.default has no graph-dialect mapping",
        "core": "aten.special_airy_ai.default has no graph-dialect mapping",
    },
    "tensor_split": {
        "default": "aten.tensor_split.tensor_indices_or_sections: dynamic shape (u3, 5, 5): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler c",
        "core": "aten._local_scalar_dense.default: it reads a tensor's value as a Python number (`.item()`, a tensor of split points or sizes), which then sizes or steers the program: a sta",
    },
    "unique": {
        "default": "aten._unique2.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
        "core": "aten._unique2.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
    },
    "unique_consecutive": {
        "default": "aten.unique_consecutive.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (",
        "core": "aten.unique_consecutive.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (",
    },
}
