"""OpInfo ops (int64 samples) that do not import yet: op -> level ->
reason.

Held by tests/frontends/test_opinfo.py against its run (1 sample(s)
per op): an op failing at a level not listed here fails the test, and so
does a listed one that passes (delete its entry). Written by
`python -m fxdsl.testing.opinfo --dtype int64 --json RESULTS --resume
--table THIS_FILE --table-samples 1`; the reason is the importer's
message.
"""

EXPECTED: dict[str, dict[str, str]] = {
    "argwhere": {
        "default": "aten.argwhere.default: dynamic shape (u0, 1): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as",
        "core": "aten.nonzero.default: dynamic shape (u0, 1): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
    },
    "bincount": {
        "default": "aten.bincount.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
        "core": "aten.bincount.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such sizes as P",
    },
    "chalf": {
        "default": "aten.chalf.default: dtype torch.complex32 is not supported (complex: only torch.complex64, torch.complex128)",
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
    "masked_select": {
        "default": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such ",
        "core": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; a size that depends on a tensor's values, which a static-shape compiler cannot take (pass such ",
    },
    "nn.functional.avg_pool1d": {
        "default": "aten.avg_pool1d.default has no graph-dialect mapping, and in torch's decomposition of it aten.avg_pool2d.default does not import: graph.avg_pool2d: expects ",
        "core": "aten.avg_pool2d.default: graph.avg_pool2d: expects a float tensor, got tensor<2x3x1x9xi64>",
    },
    "nn.functional.avg_pool2d": {
        "default": "aten.avg_pool2d.default: graph.avg_pool2d: expects a float tensor, got tensor<1x3x9x9xi64>",
        "core": "aten.avg_pool2d.default: graph.avg_pool2d: expects a float tensor, got tensor<1x3x9x9xi64>",
    },
    "nn.functional.avg_pool3d": {
        "default": "aten.avg_pool3d.default: graph.avg_pool2d: expects a float tensor, got tensor<2x9x4x4xi64>",
        "core": "aten.avg_pool3d.default: graph.avg_pool2d: expects a float tensor, got tensor<2x9x4x4xi64>",
    },
    "nn.functional.conv1d": {
        "default": "aten.conv1d.default: graph.conv1d: expects float tensors, got tensor<1x3x4xi64> (operands: tensor<1x3x4xi64>, tensor<3x3x3xi64>, tensor<3xi64>)",
        "core": "aten.convolution.default: graph.conv1d: expects float tensors, got tensor<1x3x4xi64> (operands: tensor<1x3x4xi64>, tensor<3x3x3xi64>, tensor<3xi64>)",
    },
    "nn.functional.conv2d": {
        "default": "aten.conv2d.default: graph.conv2d: expects float tensors, got tensor<1x3x4x4xi64> (operands: tensor<1x3x4x4xi64>, tensor<3x3x3x3xi64>, tensor<3xi64>)",
        "core": "aten.convolution.default: graph.conv2d: expects float tensors, got tensor<1x3x4x4xi64> (operands: tensor<1x3x4x4xi64>, tensor<3x3x3x3xi64>, tensor<3xi64>)",
    },
    "nn.functional.conv3d": {
        "default": "aten.conv3d.padding: graph.conv2d: expects float tensors, got tensor<4x1x4x4xi64> (operands: tensor<4x1x4x4xi64>, tensor<1x1x1x1xi64>, tensor<1xi64>)",
        "core": "aten.convolution.default: graph.conv2d: expects float tensors, got tensor<4x1x4x4xi64> (operands: tensor<4x1x4x4xi64>, tensor<1x1x1x1xi64>, tensor<1xi64>)",
    },
    "nn.functional.conv_transpose1d": {
        "default": "aten.conv_transpose1d.default has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: graph.c",
        "core": "aten.convolution.default: graph.conv1d: expects float tensors, got tensor<1x3x4xi64> (operands: tensor<1x3x4xi64>, tensor<3x3x2xi64>)",
    },
    "nn.functional.conv_transpose2d": {
        "default": "aten.conv_transpose2d.input has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: graph.conv2",
        "core": "aten.convolution.default: graph.conv2d: expects float tensors, got tensor<1x3x4x4xi64> (operands: tensor<1x3x4x4xi64>, tensor<3x3x2x2xi64>)",
    },
    "nn.functional.conv_transpose3d": {
        "default": "aten.conv_transpose3d.input has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: graph.conv2",
        "core": "aten.convolution.default: graph.conv2d: expects float tensors, got tensor<5x6x4x4xi64> (operands: tensor<5x6x4x4xi64>, tensor<3x6x2x2xi64>)",
    },
    "nn.functional.local_response_norm": {
        "default": "aten.avg_pool2d.default: graph.avg_pool2d: expects a float tensor, got tensor<1x1x7x3xi64>",
        "core": "aten.avg_pool2d.default: graph.avg_pool2d: expects a float tensor, got tensor<1x1x7x3xi64>",
    },
    "nn.functional.max_pool2d": {
        "default": "aten.max_pool2d_with_indices.default: graph.max_pool2d: expects a float tensor, got tensor<1x2x3x6xi64>",
        "core": "aten.max_pool2d_with_indices.default: graph.max_pool2d: expects a float tensor, got tensor<1x2x3x6xi64>",
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
