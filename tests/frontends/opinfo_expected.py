"""OpInfo ops that do not import yet: op -> level -> reason.

Held by tests/frontends/test_opinfo.py against its run (1 sample(s)
per op): an op failing at a level not listed here fails the test, and so
does a listed one that passes (delete its entry). Written by
`python -m fxdsl.testing.opinfo --json RESULTS --resume --table THIS_FILE
--table-samples 1`; the reason is the importer's message.
"""

EXPECTED: dict[str, dict[str, str]] = {
    "H": {
        "default": "aten.matrix_H.default has no graph-dialect mapping",
    },
    "__rmod__": {
        "default": "aten.remainder.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.remainder.default has no ",
        "core": "aten.remainder.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.remainder.default has no ",
    },
    "_batch_norm_with_update": {
        "default": "aten._batch_norm_with_update.default: dtype torch.uint8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "the program has a USER_INPUT_MUTATION output (getitem_4); only inference programs without buffer mutations import",
    },
    "_native_batch_norm_legit": {
        "default": "aten._native_batch_norm_legit.default: torch's decomposition of it writes a value in place that it reads again (aten.copy_.default)",
        "core": "the program has a USER_INPUT_MUTATION output (getitem_3); only inference programs without buffer mutations import",
    },
    "_segment_reduce.lengths": {
        "default": "aten.segment_reduce.default has no graph-dialect mapping",
        "core": "aten.segment_reduce.default has no graph-dialect mapping",
    },
    "_segment_reduce.offsets": {
        "default": "aten.segment_reduce.default has no graph-dialect mapping",
        "core": "aten.segment_reduce.default has no graph-dialect mapping",
    },
    "_unsafe_masked_index": {
        "default": "aten._unsafe_masked_index.default: 'immutable_list' object does not support mutation. If you are attempting to modify the kwargs or args of a torch.fx.Node object,",
    },
    "_unsafe_masked_index_put_accumulate": {
        "default": "aten._unsafe_masked_index_put_accumulate.default: 'immutable_list' object does not support mutation. If you are attempting to modify the kwargs or args of a",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "_upsample_bilinear2d_aa": {
        "default": "aten._upsample_bilinear2d_aa.vec has no graph-dialect mapping, and in torch's decomposition of it aten._upsample_bilinear2d_aa.default",
        "core": "aten._upsample_bilinear2d_aa.default has no graph-dialect mapping",
    },
    "acos": {
        "default": "aten.acos.default has no graph-dialect mapping, and in torch's decomposition of it prims.acos.default does not import: prims.acos.default has no graph-dialect mapping",
        "core": "aten.acos.default has no graph-dialect mapping, and in torch's decomposition of it prims.acos.default does not import: prims.acos.default has no graph-dialect mapping",
    },
    "acosh": {
        "default": "aten.acosh.default has no graph-dialect mapping, and in torch's decomposition of it prims.acosh.default does not import: prims.acosh.default has no graph-dialect mapp",
        "core": "aten.acosh.default has no graph-dialect mapping, and in torch's decomposition of it prims.acosh.default does not import: prims.acosh.default has no graph-dialect mapp",
    },
    "addbmm": {
        "default": "aten.addbmm.default has no graph-dialect mapping",
        "core": "aten.addbmm.default has no graph-dialect mapping",
    },
    "angle": {
        "default": "aten.angle.default has no graph-dialect mapping",
        "core": "aten.angle.default has no graph-dialect mapping",
    },
    "argsort": {
        "default": "aten.argsort.default has no graph-dialect mapping, and in torch's decomposition of it aten.sort.default does not import: aten.sort.default has no graph-dialect ma",
        "core": "aten.sort.default has no graph-dialect mapping",
    },
    "argwhere": {
        "default": "aten.argwhere.default: dynamic shape (u0, 1): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten.nonzero.default: dynamic shape (u0, 1): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "as_strided.partial_views": {
        "default": "aten.as_strided.default has no graph-dialect mapping",
        "core": "aten.as_strided.default has no graph-dialect mapping",
    },
    "as_strided_scatter": {
        "default": "aten.as_strided_scatter.default has no graph-dialect mapping, and in torch's decomposition of it prims.as_strided_scatter.default does not i",
        "core": "aten.as_strided_scatter.default has no graph-dialect mapping, and in torch's decomposition of it prims.as_strided_scatter.default does not i",
    },
    "asin": {
        "default": "aten.asin.default has no graph-dialect mapping, and in torch's decomposition of it prims.asin.default does not import: prims.asin.default has no graph-dialect mapping",
        "core": "aten.asin.default has no graph-dialect mapping, and in torch's decomposition of it prims.asin.default does not import: prims.asin.default has no graph-dialect mapping",
    },
    "asinh": {
        "default": "aten.asinh.default has no graph-dialect mapping, and in torch's decomposition of it prims.asinh.default does not import: prims.asinh.default has no graph-dialect mapp",
        "core": "aten.asinh.default has no graph-dialect mapping, and in torch's decomposition of it prims.asinh.default does not import: prims.asinh.default has no graph-dialect mapp",
    },
    "atan": {
        "default": "aten.atan.default has no graph-dialect mapping, and in torch's decomposition of it prims.atan.default does not import: prims.atan.default has no graph-dialect mapping",
        "core": "aten.atan.default has no graph-dialect mapping, and in torch's decomposition of it prims.atan.default does not import: prims.atan.default has no graph-dialect mapping",
    },
    "atan2": {
        "default": "aten.atan2.default has no graph-dialect mapping, and in torch's decomposition of it prims.atan2.default does not import: prims.atan2.default has no graph-dialect mapp",
        "core": "aten.atan2.default has no graph-dialect mapping, and in torch's decomposition of it prims.atan2.default does not import: prims.atan2.default has no graph-dialect mapp",
    },
    "atanh": {
        "default": "aten.atanh.default has no graph-dialect mapping, and in torch's decomposition of it prims.atanh.default does not import: prims.atanh.default has no graph-dialect mapp",
        "core": "aten.atanh.default has no graph-dialect mapping, and in torch's decomposition of it prims.atanh.default does not import: prims.atanh.default has no graph-dialect mapp",
    },
    "atleast_1d": {
        "default": "aten.atleast_1d.default has no graph-dialect mapping",
    },
    "atleast_2d": {
        "default": "aten.atleast_2d.default has no graph-dialect mapping",
    },
    "atleast_3d": {
        "default": "aten.atleast_3d.default has no graph-dialect mapping",
    },
    "bernoulli": {
        "default": "aten.bernoulli.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "bucketize": {
        "default": "aten.bucketize.Tensor has no graph-dialect mapping, and torch's decomposition of it does not trace here (GuardOnDataDependentSymNode: Could not extract special",
        "core": "aten.bucketize.Tensor has no graph-dialect mapping, and torch's decomposition of it does not trace here (GuardOnDataDependentSymNode: Could not extract special",
    },
    "byte": {
        "default": "aten.to.dtype: dtype torch.uint8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.uint8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "cartesian_prod": {
        "default": "aten.cartesian_prod.default has no graph-dialect mapping",
    },
    "cauchy": {
        "default": "aten.cauchy_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (cauchy); only inference programs without buffer mutations import",
    },
    "cdist": {
        "default": "aten.cdist.default has no graph-dialect mapping, and in torch's decomposition of it aten._cdist_forward.default does not import: aten._cdist_forward.default has no gr",
        "core": "aten._cdist_forward.default has no graph-dialect mapping",
    },
    "cdouble": {
        "default": "aten.to.dtype: dtype torch.complex128 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.complex128 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "cfloat": {
        "default": "aten.to.dtype: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "char": {
        "default": "aten.to.dtype: dtype torch.int8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.int8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "cholesky": {
        "default": "aten.cholesky.default has no graph-dialect mapping",
        "core": "aten.cholesky.default has no graph-dialect mapping",
    },
    "cholesky_inverse": {
        "default": "aten.cholesky_inverse.default has no graph-dialect mapping",
        "core": "aten.cholesky_inverse.default has no graph-dialect mapping",
    },
    "cholesky_solve": {
        "default": "aten.cholesky_solve.default has no graph-dialect mapping",
        "core": "aten.cholesky_solve.default has no graph-dialect mapping",
    },
    "combinations": {
        "default": "aten.combinations.default: dynamic shape (u0, 1): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "complex": {
        "default": "aten.complex.default has no graph-dialect mapping, and in torch's decomposition of it aten.view_as_complex.default does not import: aten.view_as_complex.default",
        "core": "aten.complex.default has no graph-dialect mapping, and in torch's decomposition of it aten.view_as_complex.default does not import: aten.view_as_complex.default",
    },
    "copysign": {
        "default": "aten.copysign.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.signbit.default does not import: prims.signbit.default has no graph-d",
        "core": "aten.copysign.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.signbit.default does not import: prims.signbit.default has no graph-d",
    },
    "cosh": {
        "default": "aten.cosh.default has no graph-dialect mapping, and in torch's decomposition of it prims.cosh.default does not import: prims.cosh.default has no graph-dialect mapping",
        "core": "aten.cosh.default has no graph-dialect mapping, and in torch's decomposition of it prims.cosh.default does not import: prims.cosh.default has no graph-dialect mapping",
    },
    "cummax": {
        "default": "aten.cummax.default has no graph-dialect mapping",
        "core": "aten.cummax.default has no graph-dialect mapping",
    },
    "cummin": {
        "default": "aten.cummin.default has no graph-dialect mapping",
        "core": "aten.cummin.default has no graph-dialect mapping",
    },
    "cumprod": {
        "default": "aten.cumprod.default has no graph-dialect mapping, and in torch's decomposition of it prims.prod.default does not import: prims.prod.default has no graph-dialect ",
        "core": "aten.cumprod.default has no graph-dialect mapping, and in torch's decomposition of it prims.prod.default does not import: prims.prod.default has no graph-dialect ",
    },
    "diagonal_scatter": {
        "default": "aten.diagonal_scatter.default has no graph-dialect mapping, and torch's decomposition of it does not trace here (RuntimeError: Found a custom (n",
        "core": "aten.diagonal_scatter.default has no graph-dialect mapping, and torch's decomposition of it does not trace here (RuntimeError: Found a custom (n",
    },
    "diff": {
        "default": "aten.diff.default has no graph-dialect mapping, and in torch's decomposition of it aten.copy_.default does not import: aten.copy_.default has no graph-dialect mapping",
    },
    "digamma": {
        "default": "aten.digamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.digamma.default does not import: prims.digamma.default has no graph-di",
        "core": "aten.digamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.digamma.default does not import: prims.digamma.default has no graph-di",
    },
    "div.floor_rounding": {
        "default": "aten.div.Tensor_mode: rounding_mode='floor' on f32 has no graph form (only integer floor division)",
        "core": "aten.div.Tensor_mode: rounding_mode='floor' on f32 has no graph form (only integer floor division)",
    },
    "div.trunc_rounding": {
        "default": "aten.div.Tensor_mode: rounding_mode='trunc' on f32 has no graph form (only integer floor division)",
        "core": "aten.div.Tensor_mode: rounding_mode='trunc' on f32 has no graph form (only integer floor division)",
    },
    "double": {
        "default": "aten.to.dtype: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "dsplit": {
        "default": "aten.dsplit.array has no graph-dialect mapping",
    },
    "erfc": {
        "default": "aten.erfc.default has no graph-dialect mapping, and in torch's decomposition of it prims.erfc.default does not import: prims.erfc.default has no graph-dialect mapping",
        "core": "aten.erfc.default has no graph-dialect mapping, and in torch's decomposition of it prims.erfc.default does not import: prims.erfc.default has no graph-dialect mapping",
    },
    "erfinv": {
        "default": "aten.erfinv.default has no graph-dialect mapping, and in torch's decomposition of it prims.erf_inv.default does not import: prims.erf_inv.default has no graph-diale",
        "core": "aten.erfinv.default has no graph-dialect mapping, and in torch's decomposition of it prims.erf_inv.default does not import: prims.erf_inv.default has no graph-diale",
    },
    "exp2": {
        "default": "aten.exp2.default has no graph-dialect mapping, and in torch's decomposition of it prims.exp2.default does not import: prims.exp2.default has no graph-dialect mapping",
        "core": "aten.exp2.default has no graph-dialect mapping, and in torch's decomposition of it prims.exp2.default does not import: prims.exp2.default has no graph-dialect mapping",
    },
    "exponential": {
        "default": "aten.exponential_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (exponential); only inference programs without buffer mutations import",
    },
    "fft.fft": {
        "default": "aten.fft_fft.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no graph-di",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.fft2": {
        "default": "aten.fft_fft2.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not suppo",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.fftn": {
        "default": "aten.fft_fftn.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not suppo",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.hfft": {
        "default": "aten.fft_hfft.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not suppo",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.hfft2": {
        "default": "aten.fft_hfft2.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not su",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.hfftn": {
        "default": "aten.fft_hfftn.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not su",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.ifft": {
        "default": "aten.fft_ifft.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no graph",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.ifft2": {
        "default": "aten.fft_ifft2.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not su",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.ifftn": {
        "default": "aten.fft_ifftn.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not su",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.ihfft": {
        "default": "aten.fft_ihfft.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no gr",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.ihfft2": {
        "default": "aten.fft_ihfft2.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.ihfftn": {
        "default": "aten.fft_ihfftn.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.irfft": {
        "default": "aten.fft_irfft.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not su",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.irfft2": {
        "default": "aten.fft_irfft2.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.irfftn": {
        "default": "aten.fft_irfftn.default has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.complex64 is not",
        "core": "aten._to_copy.default: dtype torch.complex64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "fft.rfft": {
        "default": "aten.fft_rfft.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no graph",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.rfft2": {
        "default": "aten.fft_rfft2.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no gr",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "fft.rfftn": {
        "default": "aten.fft_rfftn.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no gr",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "float_power": {
        "default": "aten.float_power.Tensor_Tensor has no graph-dialect mapping, and in torch's decomposition of it aten._to_copy.default does not import: dtype torch.f",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "floor_divide": {
        "default": "aten.floor_divide.default: rounding_mode='floor' on f32 has no graph form (only integer floor division)",
        "core": "aten.div.Tensor_mode: rounding_mode='floor' on f32 has no graph form (only integer floor division)",
    },
    "fmax": {
        "default": "aten.fmax.default has no graph-dialect mapping, and in torch's decomposition of it prims.fmax.default does not import: prims.fmax.default has no graph-dialect mapping",
        "core": "aten.fmax.default has no graph-dialect mapping, and in torch's decomposition of it prims.fmax.default does not import: prims.fmax.default has no graph-dialect mapping",
    },
    "fmin": {
        "default": "aten.fmin.default has no graph-dialect mapping, and in torch's decomposition of it prims.fmin.default does not import: prims.fmin.default has no graph-dialect mapping",
        "core": "aten.fmin.default has no graph-dialect mapping, and in torch's decomposition of it prims.fmin.default does not import: prims.fmin.default has no graph-dialect mapping",
    },
    "fmod": {
        "default": "aten.fmod.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.fmod.default does not import: prims.fmod.default has no graph-dialect mapping",
        "core": "aten.fmod.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.fmod.default does not import: prims.fmod.default has no graph-dialect mapping",
    },
    "frexp": {
        "default": "aten.frexp.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.frexp.default does not import: prims.frexp.default has no graph-dialect mappin",
        "core": "aten.frexp.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.frexp.default does not import: prims.frexp.default has no graph-dialect mappin",
    },
    "geometric": {
        "default": "aten.geometric_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (geometric); only inference programs without buffer mutations import",
    },
    "geqrf": {
        "default": "aten.geqrf.default has no graph-dialect mapping",
        "core": "aten.geqrf.default has no graph-dialect mapping",
    },
    "grid_sampler_3d": {
        "default": "aten.grid_sampler_3d.default has no graph-dialect mapping",
        "core": "aten.grid_sampler_3d.default has no graph-dialect mapping",
    },
    "hash_tensor": {
        "default": "aten.hash_tensor.default has no graph-dialect mapping",
        "core": "aten.hash_tensor.default has no graph-dialect mapping",
    },
    "histc": {
        "default": "aten.histc.default has no graph-dialect mapping",
        "core": "aten.histc.default has no graph-dialect mapping",
    },
    "histogram": {
        "default": "aten.histogram.bin_ct has no graph-dialect mapping",
        "core": "aten.histogram.bin_ct has no graph-dialect mapping",
    },
    "histogramdd": {
        "default": "aten.histogramdd.default has no graph-dialect mapping, and in torch's decomposition of it aten._histogramdd_bin_edges.default does not import: aten._histo",
        "core": "aten._histogramdd_bin_edges.default has no graph-dialect mapping",
    },
    "hsplit": {
        "default": "aten.hsplit.int has no graph-dialect mapping",
    },
    "hypot": {
        "default": "aten.hypot.default has no graph-dialect mapping, and in torch's decomposition of it prims.hypot.default does not import: prims.hypot.default has no graph-dialect mapp",
        "core": "aten.hypot.default has no graph-dialect mapping, and in torch's decomposition of it prims.hypot.default does not import: prims.hypot.default has no graph-dialect mapp",
    },
    "i0": {
        "default": "aten.i0.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i0.default does not import: prims.bessel_i0.default has no graph-dialect mappi",
        "core": "aten.i0.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i0.default does not import: prims.bessel_i0.default has no graph-dialect mappi",
    },
    "igamma": {
        "default": "aten.igamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.igamma.default does not import: prims.igamma.default has no graph-dialect",
        "core": "aten.igamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.igamma.default does not import: prims.igamma.default has no graph-dialect",
    },
    "igammac": {
        "default": "aten.igammac.default has no graph-dialect mapping, and in torch's decomposition of it prims.igammac.default does not import: prims.igammac.default has no graph-di",
        "core": "aten.igammac.default has no graph-dialect mapping, and in torch's decomposition of it prims.igammac.default does not import: prims.igammac.default has no graph-di",
    },
    "index_add": {
        "default": "aten.index_add.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.default has no ",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "index_copy": {
        "default": "aten.index_copy.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.default has ",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "index_fill": {
        "default": "aten.index_fill.int_Scalar: aten.index_copy.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.default h",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "index_put": {
        "default": "aten.index_put.default has no graph-dialect mapping",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "index_reduce.amax": {
        "default": "aten.index_reduce.default has no graph-dialect mapping",
        "core": "aten.index_reduce.default has no graph-dialect mapping",
    },
    "index_reduce.amin": {
        "default": "aten.index_reduce.default has no graph-dialect mapping",
        "core": "aten.index_reduce.default has no graph-dialect mapping",
    },
    "index_reduce.mean": {
        "default": "aten.index_reduce.default has no graph-dialect mapping",
        "core": "aten.index_reduce.default has no graph-dialect mapping",
    },
    "index_reduce.prod": {
        "default": "aten.index_reduce.default has no graph-dialect mapping",
        "core": "aten.index_reduce.default has no graph-dialect mapping",
    },
    "isclose": {
        "default": "aten.isclose.default: aten.bitwise_and_.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.bitwise_and.default does not import: prims.bitwise_and.default has",
    },
    "kthvalue": {
        "default": "aten.kthvalue.default has no graph-dialect mapping",
        "core": "aten.kthvalue.default has no graph-dialect mapping",
    },
    "lgamma": {
        "default": "aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dialect",
        "core": "aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dialect",
    },
    "linalg.cholesky": {
        "default": "aten.linalg_cholesky.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_cholesky_ex.default does not import: ate",
        "core": "the program has a TOKEN output (getitem_2); only inference programs without buffer mutations import",
    },
    "linalg.cholesky_ex": {
        "default": "aten.linalg_cholesky_ex.default has no graph-dialect mapping",
        "core": "aten.linalg_cholesky_ex.default has no graph-dialect mapping",
    },
    "linalg.cond": {
        "default": "aten.linalg_cond.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default does not import: aten._linalg_svd.defau",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "linalg.det": {
        "default": "aten.linalg_det.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_det.default does not import: aten._linalg_det.default ",
        "core": "aten._linalg_det.default has no graph-dialect mapping",
    },
    "linalg.diagonal": {
        "default": "aten.linalg_diagonal.default has no graph-dialect mapping",
    },
    "linalg.eig": {
        "default": "aten.linalg_eig.default has no graph-dialect mapping",
        "core": "aten.linalg_eig.default has no graph-dialect mapping",
    },
    "linalg.eigh": {
        "default": "aten.linalg_eigh.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_eigh.default does not import: aten._linalg_eigh.def",
        "core": "aten._linalg_eigh.default has no graph-dialect mapping",
    },
    "linalg.eigvals": {
        "default": "aten.linalg_eigvals.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_eig.default does not import: aten.linalg_ei",
        "core": "aten.linalg_eig.default has no graph-dialect mapping",
    },
    "linalg.eigvalsh": {
        "default": "aten.linalg_eigvalsh.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_eigh.default does not import: aten._lin",
        "core": "aten._linalg_eigh.default has no graph-dialect mapping",
    },
    "linalg.householder_product": {
        "default": "aten.linalg_householder_product.default has no graph-dialect mapping",
        "core": "aten.linalg_householder_product.default has no graph-dialect mapping",
    },
    "linalg.inv": {
        "default": "aten.linalg_inv.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_inv_ex.default does not import: aten.linalg_inv_ex.defa",
        "core": "the program has a TOKEN output (getitem_2); only inference programs without buffer mutations import",
    },
    "linalg.inv_ex": {
        "default": "aten.linalg_inv_ex.default has no graph-dialect mapping",
        "core": "aten.linalg_inv_ex.default has no graph-dialect mapping",
    },
    "linalg.ldl_factor": {
        "default": "aten.linalg_ldl_factor.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_ldl_factor_ex.default does not imp",
        "core": "the program has a TOKEN output (getitem_3); only inference programs without buffer mutations import",
    },
    "linalg.ldl_factor_ex": {
        "default": "aten.linalg_ldl_factor_ex.default has no graph-dialect mapping",
        "core": "aten.linalg_ldl_factor_ex.default has no graph-dialect mapping",
    },
    "linalg.ldl_solve": {
        "default": "aten.linalg_ldl_solve.default has no graph-dialect mapping",
        "core": "aten.linalg_ldl_solve.default has no graph-dialect mapping",
    },
    "linalg.lu": {
        "default": "aten.linalg_lu.default has no graph-dialect mapping",
        "core": "aten.linalg_lu.default has no graph-dialect mapping",
    },
    "linalg.lu_factor": {
        "default": "aten.linalg_lu_factor.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_lu_factor_ex.default does not import:",
        "core": "the program has a TOKEN output (getitem_3); only inference programs without buffer mutations import",
    },
    "linalg.lu_factor_ex": {
        "default": "aten.linalg_lu_factor_ex.default has no graph-dialect mapping",
        "core": "aten.linalg_lu_factor_ex.default has no graph-dialect mapping",
    },
    "linalg.lu_solve": {
        "default": "aten.linalg_lu_solve.default has no graph-dialect mapping",
        "core": "aten.linalg_lu_solve.default has no graph-dialect mapping",
    },
    "linalg.matrix_power": {
        "default": "aten.linalg_matrix_power.default has no graph-dialect mapping, and in torch's decomposition of it aten.copy_.default does not import: aten",
    },
    "linalg.matrix_rank": {
        "default": "aten.linalg_matrix_rank.atol_rtol_tensor has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default ",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "linalg.matrix_rank.hermitian": {
        "default": "aten.linalg_matrix_rank.atol_rtol_tensor has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_eigh.default",
        "core": "aten._linalg_eigh.default has no graph-dialect mapping",
    },
    "linalg.pinv": {
        "default": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
        "core": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
    },
    "linalg.pinv.hermitian": {
        "default": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
        "core": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
    },
    "linalg.pinv.singular": {
        "default": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
        "core": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
    },
    "linalg.qr": {
        "default": "aten.linalg_qr.default has no graph-dialect mapping",
        "core": "aten.linalg_qr.default has no graph-dialect mapping",
    },
    "linalg.slogdet": {
        "default": "aten.linalg_slogdet.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_slogdet.default does not import: aten._lin",
        "core": "aten._linalg_slogdet.default has no graph-dialect mapping",
    },
    "linalg.solve": {
        "default": "aten.linalg_solve.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_solve_ex.default does not import: aten._linalg_s",
        "core": "the program has a TOKEN output (getitem_4); only inference programs without buffer mutations import",
    },
    "linalg.solve_ex": {
        "default": "aten.linalg_solve_ex.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_solve_ex.default does not import: aten.",
        "core": "aten._linalg_solve_ex.default has no graph-dialect mapping",
    },
    "linalg.solve_triangular": {
        "default": "aten.linalg_solve_triangular.default has no graph-dialect mapping",
        "core": "aten.linalg_solve_triangular.default has no graph-dialect mapping",
    },
    "linalg.svd": {
        "default": "aten.linalg_svd.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default does not import: aten._linalg_svd.default ",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "linalg.svdvals": {
        "default": "aten.linalg_svdvals.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default does not import: aten._linalg_",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "linalg.tensorinv": {
        "default": "aten.linalg_tensorinv.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_inv_ex.default does not import: aten.",
        "core": "the program has a TOKEN output (getitem_2); only inference programs without buffer mutations import",
    },
    "linalg.tensorsolve": {
        "default": "aten.linalg_tensorsolve.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_solve_ex.default does not impo",
        "core": "the program has a TOKEN output (getitem_4); only inference programs without buffer mutations import",
    },
    "linalg.vander": {
        "default": "aten.linalg_vander.default: aten.cumprod.default has no graph-dialect mapping, and in torch's decomposition of it prims.prod.default does not import: prims.prod.default has no gr",
        "core": "aten.cumprod.default has no graph-dialect mapping, and in torch's decomposition of it prims.prod.default does not import: prims.prod.default has no graph-dialect ",
    },
    "log10": {
        "default": "aten.log10.default has no graph-dialect mapping, and in torch's decomposition of it prims.log10.default does not import: prims.log10.default has no graph-dialect mapp",
        "core": "aten.log10.default has no graph-dialect mapping, and in torch's decomposition of it prims.log10.default does not import: prims.log10.default has no graph-dialect mapp",
    },
    "log2": {
        "default": "aten.log2.default has no graph-dialect mapping, and in torch's decomposition of it prims.log2.default does not import: prims.log2.default has no graph-dialect mapping",
        "core": "aten.log2.default has no graph-dialect mapping, and in torch's decomposition of it prims.log2.default does not import: prims.log2.default has no graph-dialect mapping",
    },
    "log_normal": {
        "default": "aten.log_normal_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (log_normal); only inference programs without buffer mutations import",
    },
    "log_softmax.with_dtype": {
        "default": "aten.log_softmax.int: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "logaddexp2": {
        "default": "aten.logaddexp2.default: aten.exp2.default has no graph-dialect mapping, and in torch's decomposition of it prims.exp2.default does not import: prims.exp2.default has no graph-diale",
        "core": "aten.exp2.default has no graph-dialect mapping, and in torch's decomposition of it prims.exp2.default does not import: prims.exp2.default has no graph-dialect mapping",
    },
    "logcumsumexp": {
        "default": "aten.logcumsumexp.default has no graph-dialect mapping",
        "core": "aten.logcumsumexp.default has no graph-dialect mapping",
    },
    "logdet": {
        "default": "aten.logdet.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_slogdet.default does not import: aten._linalg_slogdet.default has ",
        "core": "aten._linalg_slogdet.default has no graph-dialect mapping",
    },
    "logical_xor": {
        "default": "aten.logical_xor.default: aten.bitwise_xor.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.bitwise_xor.default does not import: prims.bitwise_xor.defa",
        "core": "aten.logical_xor.default: aten.bitwise_xor.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.bitwise_xor.default does not import: prims.bitwise_xor.defa",
    },
    "logspace.tensor_overload": {
        "default": "aten.logspace.Tensor_Tensor has no graph-dialect mapping, and in torch's decomposition of it aten.linspace.Tensor_Tensor does not import: dtype torch.floa",
    },
    "lu": {
        "default": "aten._lu_with_info.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_lu_factor_ex.default does not import: aten.lin",
        "core": "aten.linalg_lu_factor_ex.default has no graph-dialect mapping",
    },
    "lu_solve": {
        "default": "aten.lu_solve.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_lu_solve.default does not import: aten.linalg_lu_solve.defaul",
        "core": "aten.linalg_lu_solve.default has no graph-dialect mapping",
    },
    "lu_unpack": {
        "default": "aten.lu_unpack.default has no graph-dialect mapping",
        "core": "aten.lu_unpack.default has no graph-dialect mapping",
    },
    "masked.cumprod": {
        "default": "aten.cumprod.default has no graph-dialect mapping, and in torch's decomposition of it prims.prod.default does not import: prims.prod.default has no graph-dialect ",
        "core": "aten.cumprod.default has no graph-dialect mapping, and in torch's decomposition of it prims.prod.default does not import: prims.prod.default has no graph-dialect ",
    },
    "masked.median": {
        "default": "aten.nanmedian.dim has no graph-dialect mapping",
        "core": "aten.nanmedian.dim has no graph-dialect mapping",
    },
    "masked_scatter": {
        "default": "aten.masked_scatter.default has no graph-dialect mapping",
        "core": "aten.masked_scatter.default has no graph-dialect mapping",
    },
    "masked_select": {
        "default": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten.masked_select.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "matrix_exp": {
        "default": "aten.matrix_exp.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_matrix_exp.default does not import: aten.linalg_matrix_",
        "core": "aten.linalg_matrix_exp.default has no graph-dialect mapping",
    },
    "max_pool2d_with_indices_backward": {
        "default": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
        "core": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
    },
    "median": {
        "default": "aten.median.default has no graph-dialect mapping",
        "core": "aten.median.default has no graph-dialect mapping",
    },
    "mode": {
        "default": "aten.mode.default has no graph-dialect mapping",
        "core": "aten.mode.default has no graph-dialect mapping",
    },
    "movedim": {
        "default": "aten.movedim.intlist has no graph-dialect mapping",
    },
    "msort": {
        "default": "aten.msort.default has no graph-dialect mapping, and in torch's decomposition of it aten.sort.default does not import: aten.sort.default has no graph-dialect mapping",
        "core": "aten.sort.default has no graph-dialect mapping",
    },
    "multinomial": {
        "default": "aten.multinomial.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.multinomial.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "mvlgamma.mvlgamma_p_1": {
        "default": "aten.mvlgamma.default: aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dia",
        "core": "aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dialect",
    },
    "mvlgamma.mvlgamma_p_3": {
        "default": "aten.mvlgamma.default: aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dia",
        "core": "aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dialect",
    },
    "mvlgamma.mvlgamma_p_5": {
        "default": "aten.mvlgamma.default: aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dia",
        "core": "aten.lgamma.default has no graph-dialect mapping, and in torch's decomposition of it prims.lgamma.default does not import: prims.lgamma.default has no graph-dialect",
    },
    "nanmean": {
        "default": "aten.nanmean.default has no graph-dialect mapping, and in torch's decomposition of it aten.logical_not_.default does not import: torch's decomposition of aten.log",
    },
    "nanmedian": {
        "default": "aten.nanmedian.default has no graph-dialect mapping",
        "core": "aten.nanmedian.default has no graph-dialect mapping",
    },
    "nanquantile": {
        "default": "aten.nanquantile.scalar has no graph-dialect mapping, and in torch's decomposition of it aten.sort.default does not import: aten.sort.default has no graph-",
        "core": "aten.sort.default has no graph-dialect mapping",
    },
    "narrow": {
        "default": "aten.narrow.default has no graph-dialect mapping",
    },
    "native_batch_norm": {
        "default": "aten.native_batch_norm.default: batch_norm in training mode (export in eval)",
        "core": "the program has a USER_INPUT_MUTATION output (getitem_3); only inference programs without buffer mutations import",
    },
    "native_group_norm": {
        "default": "aten.native_group_norm.default has no graph-dialect mapping, and in torch's decomposition of it aten.as_strided.default does not import: aten.",
        "core": "aten.native_group_norm.default has no graph-dialect mapping, and in torch's decomposition of it aten.as_strided.default does not import: aten.",
    },
    "nextafter": {
        "default": "aten.nextafter.default has no graph-dialect mapping, and in torch's decomposition of it prims.nextafter.default does not import: prims.nextafter.default has n",
        "core": "aten.nextafter.default has no graph-dialect mapping, and in torch's decomposition of it prims.nextafter.default does not import: prims.nextafter.default has n",
    },
    "nn.functional.adaptive_avg_pool3d": {
        "default": "aten.adaptive_avg_pool3d.default has no graph-dialect mapping, and in torch's decomposition of it aten._adaptive_avg_pool3d.default does n",
        "core": "aten._adaptive_avg_pool3d.default has no graph-dialect mapping",
    },
    "nn.functional.adaptive_max_pool1d": {
        "default": "aten.adaptive_max_pool1d.default has no graph-dialect mapping, and in torch's decomposition of it aten.adaptive_max_pool2d.default does no",
        "core": "aten.adaptive_max_pool2d.default has no graph-dialect mapping, and torch's decomposition of it does not trace here (NotImplementedError: a",
    },
    "nn.functional.adaptive_max_pool2d": {
        "default": "aten.adaptive_max_pool2d.default has no graph-dialect mapping, and torch's decomposition of it does not trace here (NotImplementedError: a",
        "core": "aten.adaptive_max_pool2d.default has no graph-dialect mapping, and torch's decomposition of it does not trace here (NotImplementedError: a",
    },
    "nn.functional.adaptive_max_pool3d": {
        "default": "aten.adaptive_max_pool3d.default: aten.remainder.Scalar has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.rema",
        "core": "aten.adaptive_max_pool3d.default: aten.remainder.Scalar has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.rema",
    },
    "nn.functional.avg_pool2d": {
        "default": "aten.avg_pool2d.default: avg_pool2d with divisor_override",
        "core": "aten.avg_pool2d.default: avg_pool2d with divisor_override",
    },
    "nn.functional.avg_pool3d": {
        "default": "aten.avg_pool3d.default has no graph-dialect mapping",
        "core": "aten.avg_pool3d.default has no graph-dialect mapping",
    },
    "nn.functional.batch_norm": {
        "default": "aten.batch_norm.default: batch_norm in training mode (export in eval)",
        "core": "the program has a USER_INPUT_MUTATION output (getitem_3); only inference programs without buffer mutations import",
    },
    "nn.functional.bilinear": {
        "default": "aten.bilinear.default has no graph-dialect mapping, and in torch's decomposition of it aten._trilinear.default does not import: aten._trilinear.default has no g",
        "core": "aten._trilinear.default has no graph-dialect mapping",
    },
    "nn.functional.conv3d": {
        "default": "aten.conv3d.padding has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: 3-D convolution (only 1-D and 2-D)",
        "core": "aten.convolution.default: 3-D convolution (only 1-D and 2-D)",
    },
    "nn.functional.conv_transpose1d": {
        "default": "aten.conv_transpose1d.default has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: transpo",
        "core": "aten.convolution.default: transposed convolution has no graph form",
    },
    "nn.functional.conv_transpose2d": {
        "default": "aten.conv_transpose2d.input has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: transposed ",
        "core": "aten.convolution.default: transposed convolution has no graph form",
    },
    "nn.functional.conv_transpose3d": {
        "default": "aten.conv_transpose3d.input has no graph-dialect mapping, and in torch's decomposition of it aten.convolution.default does not import: transposed ",
        "core": "aten.convolution.default: transposed convolution has no graph form",
    },
    "nn.functional.cosine_embedding_loss": {
        "default": "aten.cosine_embedding_loss.default has no graph-dialect mapping, and in torch's decomposition of it aten.clamp_min_.default does not i",
    },
    "nn.functional.cosine_similarity": {
        "default": "aten.cosine_similarity.default has no graph-dialect mapping, and in torch's decomposition of it aten.clamp_min_.Tensor does not import: torch'",
    },
    "nn.functional.embedding_bag": {
        "default": "aten.embedding_bag.padding_idx has no graph-dialect mapping, and in torch's decomposition of it aten._embedding_bag_forward_only.default does not ",
        "core": "aten._embedding_bag_forward_only.default has no graph-dialect mapping",
    },
    "nn.functional.feature_alpha_dropout.with_train": {
        "default": "aten.feature_alpha_dropout.default has no graph-dialect mapping",
    },
    "nn.functional.feature_alpha_dropout.without_train": {
        "default": "aten.feature_alpha_dropout.default has no graph-dialect mapping",
    },
    "nn.functional.fractional_max_pool2d": {
        "default": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "nn.functional.fractional_max_pool3d": {
        "default": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "nn.functional.group_norm": {
        "default": "aten.group_norm.default: aten.native_group_norm.default has no graph-dialect mapping, and in torch's decomposition of it aten.as_strided.default does not import: aten.as_strided.def",
        "core": "aten.native_group_norm.default has no graph-dialect mapping, and in torch's decomposition of it aten.as_strided.default does not import: aten.",
    },
    "nn.functional.hinge_embedding_loss": {
        "default": "aten.hinge_embedding_loss.default has no graph-dialect mapping, and in torch's decomposition of it aten.clamp_min_.default does not impo",
    },
    "nn.functional.instance_norm": {
        "default": "aten.instance_norm.default has no graph-dialect mapping, and in torch's decomposition of it aten.native_batch_norm.default does not import: batch_norm",
        "core": "the program has a USER_INPUT_MUTATION output (alias_1); only inference programs without buffer mutations import",
    },
    "nn.functional.linear_cross_entropy.chunked": {
        "default": "torch_nn._linear_cross_entropy_batch_chunked.default has no graph-dialect mapping",
        "core": "torch_nn._linear_cross_entropy_batch_chunked.default has no graph-dialect mapping",
    },
    "nn.functional.linear_cross_entropy.chunked_none": {
        "default": "torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default has no gra",
        "core": "torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default has no gra",
    },
    "nn.functional.margin_ranking_loss": {
        "default": "aten.margin_ranking_loss.default has no graph-dialect mapping, and in torch's decomposition of it aten.clamp_min_.default does not import:",
    },
    "nn.functional.max_pool1d": {
        "default": "aten.max_pool1d_with_indices.default has no graph-dialect mapping, and in torch's decomposition of it aten.max_pool2d_with_indices",
        "core": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
    },
    "nn.functional.max_pool2d": {
        "default": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
        "core": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
    },
    "nn.functional.max_pool3d": {
        "default": "aten.max_pool3d_with_indices.default: aten.remainder.Scalar has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: pr",
        "core": "aten.max_pool3d_with_indices.default: aten.remainder.Scalar has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: pr",
    },
    "nn.functional.max_unpool1d": {
        "default": "aten.max_unpool2d.default: aten._unsafe_index_put.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.d",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "nn.functional.max_unpool1d.grad": {
        "default": "aten.max_unpool2d.default: aten._unsafe_index_put.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.d",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "nn.functional.max_unpool2d": {
        "default": "aten.max_unpool2d.default: aten._unsafe_index_put.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.d",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "nn.functional.max_unpool2d.grad": {
        "default": "aten.max_unpool2d.default: aten._unsafe_index_put.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.d",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "nn.functional.max_unpool3d": {
        "default": "aten.max_unpool3d.default: aten._unsafe_index_put.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.d",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "nn.functional.max_unpool3d.grad": {
        "default": "aten.max_unpool3d.default: aten._unsafe_index_put.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.d",
        "core": "aten.index_put.default has no graph-dialect mapping",
    },
    "nn.functional.pad.circular": {
        "default": "aten.pad.default: torch's decomposition of aten.pad.default writes a value in place that it reads again (aten.copy_.default)",
    },
    "nn.functional.pdist": {
        "default": "aten.pdist.default has no graph-dialect mapping, and in torch's decomposition of it aten._pdist_forward.default does not import: aten._pdist_forward.default has no gr",
        "core": "aten._pdist_forward.default has no graph-dialect mapping",
    },
    "nn.functional.rrelu": {
        "default": "aten.rrelu.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rrelu_with_noise_functional.default draws random numbers, which fxdsl does not generate (the torch.compile backend le",
    },
    "nn.functional.softmin.with_dtype": {
        "default": "aten.softmax.int: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "nonzero": {
        "default": "aten.nonzero.default: dynamic shape (u0, 0): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten.nonzero.default: dynamic shape (u0, 0): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "nonzero_static": {
        "default": "aten.nonzero_static.default has no graph-dialect mapping",
        "core": "aten.nonzero_static.default has no graph-dialect mapping",
    },
    "norm.nuc": {
        "default": "aten.linalg_matrix_norm.str_ord has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default does not import: a",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "normal": {
        "default": "aten.normal.Tensor_Tensor draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.normal.Tensor_Tensor draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "normal.in_place": {
        "default": "aten.normal_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (normal_functional); only inference programs without buffer mutations import",
    },
    "normal.number_mean": {
        "default": "aten.normal.float_float draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.normal.float_float draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "ormqr": {
        "default": "aten.ormqr.default has no graph-dialect mapping",
        "core": "aten.ormqr.default has no graph-dialect mapping",
    },
    "pca_lowrank": {
        "default": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "pinverse": {
        "default": "aten.pinverse.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_pinv.atol_rtol_tensor does not import: aten.linalg_pinv.atol_",
        "core": "aten.linalg_pinv.atol_rtol_tensor has no graph-dialect mapping",
    },
    "polar": {
        "default": "aten.polar.default: aten.complex.default has no graph-dialect mapping, and in torch's decomposition of it aten.view_as_complex.default does not import: aten.view_as_complex.default has n",
        "core": "aten.polar.default: aten.complex.default has no graph-dialect mapping, and in torch's decomposition of it aten.view_as_complex.default does not import: aten.view_as_complex.default has n",
    },
    "polygamma.polygamma_n_0": {
        "default": "aten.polygamma.default has no graph-dialect mapping",
        "core": "aten.polygamma.default has no graph-dialect mapping",
    },
    "polygamma.polygamma_n_1": {
        "default": "aten.polygamma.default has no graph-dialect mapping",
        "core": "aten.polygamma.default has no graph-dialect mapping",
    },
    "polygamma.polygamma_n_2": {
        "default": "aten.polygamma.default has no graph-dialect mapping",
        "core": "aten.polygamma.default has no graph-dialect mapping",
    },
    "polygamma.polygamma_n_3": {
        "default": "aten.polygamma.default has no graph-dialect mapping",
        "core": "aten.polygamma.default has no graph-dialect mapping",
    },
    "polygamma.polygamma_n_4": {
        "default": "aten.polygamma.default has no graph-dialect mapping",
        "core": "aten.polygamma.default has no graph-dialect mapping",
    },
    "positive": {
        "default": "aten.positive.default has no graph-dialect mapping",
    },
    "put": {
        "default": "aten.put.default has no graph-dialect mapping",
        "core": "aten.put.default has no graph-dialect mapping",
    },
    "qr": {
        "default": "aten.qr.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_qr.default does not import: aten.linalg_qr.default has no graph-dialect mapping",
        "core": "aten.linalg_qr.default has no graph-dialect mapping",
    },
    "quantile": {
        "default": "aten.quantile.scalar has no graph-dialect mapping, and in torch's decomposition of it aten.sort.default does not import: aten.sort.default has no graph-dialect m",
        "core": "aten.sort.default has no graph-dialect mapping",
    },
    "rand_like": {
        "default": "aten.randn_like.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randn_like.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "randint": {
        "default": "aten.randint.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randint.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "randint_like": {
        "default": "aten.randint_like.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randint_like.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "randn": {
        "default": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "randn_like": {
        "default": "aten.randn_like.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randn_like.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "ravel": {
        "default": "aten.ravel.default has no graph-dialect mapping",
    },
    "real": {
        "default": "aten.real.default has no graph-dialect mapping",
    },
    "remainder": {
        "default": "aten.remainder.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.remainder.default has no ",
        "core": "aten.remainder.Tensor has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.remainder.default has no ",
    },
    "reshape_as": {
        "default": "aten.reshape_as.default has no graph-dialect mapping",
    },
    "resize_": {
        "default": "aten.resize_.default has no graph-dialect mapping",
        "core": "aten.as_strided.default has no graph-dialect mapping",
    },
    "resize_as_": {
        "default": "aten.resize_as_.default has no graph-dialect mapping",
        "core": "aten.resize.default has no graph-dialect mapping",
    },
    "resolve_conj": {
        "default": "aten.resolve_conj.default has no graph-dialect mapping",
    },
    "resolve_neg": {
        "default": "aten.resolve_neg.default has no graph-dialect mapping",
    },
    "scatter": {
        "default": "aten.scatter.src has no graph-dialect mapping",
        "core": "aten.scatter.src has no graph-dialect mapping",
    },
    "scatter_add": {
        "default": "aten.scatter_add.default has no graph-dialect mapping",
        "core": "aten.scatter_add.default has no graph-dialect mapping",
    },
    "scatter_reduce.amax": {
        "default": "aten.scatter_reduce.two has no graph-dialect mapping",
        "core": "aten.scatter_reduce.two has no graph-dialect mapping",
    },
    "scatter_reduce.amin": {
        "default": "aten.scatter_reduce.two has no graph-dialect mapping",
        "core": "aten.scatter_reduce.two has no graph-dialect mapping",
    },
    "scatter_reduce.mean": {
        "default": "aten.scatter_reduce.two has no graph-dialect mapping",
        "core": "aten.scatter_reduce.two has no graph-dialect mapping",
    },
    "scatter_reduce.prod": {
        "default": "aten.scatter_reduce.two has no graph-dialect mapping",
        "core": "aten.scatter_reduce.two has no graph-dialect mapping",
    },
    "scatter_reduce.sum": {
        "default": "aten.scatter_reduce.two has no graph-dialect mapping",
        "core": "aten.scatter_reduce.two has no graph-dialect mapping",
    },
    "searchsorted": {
        "default": "aten.searchsorted.Tensor has no graph-dialect mapping",
        "core": "aten.searchsorted.Tensor has no graph-dialect mapping",
    },
    "short": {
        "default": "aten.to.dtype: dtype torch.int16 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.int16 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "signbit": {
        "default": "aten.signbit.default has no graph-dialect mapping, and in torch's decomposition of it prims.signbit.default does not import: prims.signbit.default has no graph-di",
        "core": "aten.signbit.default has no graph-dialect mapping, and in torch's decomposition of it prims.signbit.default does not import: prims.signbit.default has no graph-di",
    },
    "sinh": {
        "default": "aten.sinh.default has no graph-dialect mapping, and in torch's decomposition of it prims.sinh.default does not import: prims.sinh.default has no graph-dialect mapping",
        "core": "aten.sinh.default has no graph-dialect mapping, and in torch's decomposition of it prims.sinh.default does not import: prims.sinh.default has no graph-dialect mapping",
    },
    "softmax.with_dtype": {
        "default": "aten.softmax.int: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "sort": {
        "default": "aten.sort.default has no graph-dialect mapping",
        "core": "aten.sort.default has no graph-dialect mapping",
    },
    "special.airy_ai": {
        "default": "aten.special_airy_ai.default has no graph-dialect mapping",
        "core": "aten.special_airy_ai.default has no graph-dialect mapping",
    },
    "special.bessel_j0": {
        "default": "aten.special_bessel_j0.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_j0.default does not import: prims",
        "core": "aten.special_bessel_j0.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_j0.default does not import: prims",
    },
    "special.bessel_j1": {
        "default": "aten.special_bessel_j1.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_j1.default does not import: prims",
        "core": "aten.special_bessel_j1.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_j1.default does not import: prims",
    },
    "special.bessel_y0": {
        "default": "aten.special_bessel_y0.default has no graph-dialect mapping",
        "core": "aten.special_bessel_y0.default has no graph-dialect mapping",
    },
    "special.bessel_y1": {
        "default": "aten.special_bessel_y1.default has no graph-dialect mapping",
        "core": "aten.special_bessel_y1.default has no graph-dialect mapping",
    },
    "special.chebyshev_polynomial_t": {
        "default": "aten.special_chebyshev_polynomial_t.default has no graph-dialect mapping",
        "core": "aten.special_chebyshev_polynomial_t.default has no graph-dialect mapping",
    },
    "special.chebyshev_polynomial_u": {
        "default": "aten.special_chebyshev_polynomial_u.default has no graph-dialect mapping",
        "core": "aten.special_chebyshev_polynomial_u.default has no graph-dialect mapping",
    },
    "special.chebyshev_polynomial_v": {
        "default": "aten.special_chebyshev_polynomial_v.default has no graph-dialect mapping",
        "core": "aten.special_chebyshev_polynomial_v.default has no graph-dialect mapping",
    },
    "special.chebyshev_polynomial_w": {
        "default": "aten.special_chebyshev_polynomial_w.default has no graph-dialect mapping",
        "core": "aten.special_chebyshev_polynomial_w.default has no graph-dialect mapping",
    },
    "special.erfcx": {
        "default": "aten.special_erfcx.default has no graph-dialect mapping, and in torch's decomposition of it prims.erfcx.default does not import: prims.erfcx.default h",
        "core": "aten.special_erfcx.default has no graph-dialect mapping, and in torch's decomposition of it prims.erfcx.default does not import: prims.erfcx.default h",
    },
    "special.hermite_polynomial_h": {
        "default": "aten.special_hermite_polynomial_h.default has no graph-dialect mapping",
        "core": "aten.special_hermite_polynomial_h.default has no graph-dialect mapping",
    },
    "special.hermite_polynomial_he": {
        "default": "aten.special_hermite_polynomial_he.default has no graph-dialect mapping",
        "core": "aten.special_hermite_polynomial_he.default has no graph-dialect mapping",
    },
    "special.i0e": {
        "default": "aten.special_i0e.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i0e.default does not import: prims.bessel_i0e.defau",
        "core": "aten.special_i0e.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i0e.default does not import: prims.bessel_i0e.defau",
    },
    "special.i1": {
        "default": "aten.special_i1.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i1.default does not import: prims.bessel_i1.default ha",
        "core": "aten.special_i1.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i1.default does not import: prims.bessel_i1.default ha",
    },
    "special.i1e": {
        "default": "aten.special_i1e.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i1e.default does not import: prims.bessel_i1e.defau",
        "core": "aten.special_i1e.default has no graph-dialect mapping, and in torch's decomposition of it prims.bessel_i1e.default does not import: prims.bessel_i1e.defau",
    },
    "special.laguerre_polynomial_l": {
        "default": "aten.special_laguerre_polynomial_l.default has no graph-dialect mapping",
        "core": "aten.special_laguerre_polynomial_l.default has no graph-dialect mapping",
    },
    "special.legendre_polynomial_p": {
        "default": "aten.special_legendre_polynomial_p.default has no graph-dialect mapping",
        "core": "aten.special_legendre_polynomial_p.default has no graph-dialect mapping",
    },
    "special.log_ndtr": {
        "default": "aten.special_log_ndtr.default: aten.special_erfcx.default has no graph-dialect mapping, and in torch's decomposition of it prims.erfcx.default does not import: prims.erfcx.def",
        "core": "aten.special_erfcx.default has no graph-dialect mapping, and in torch's decomposition of it prims.erfcx.default does not import: prims.erfcx.default h",
    },
    "special.modified_bessel_i0": {
        "default": "aten.special_modified_bessel_i0.default has no graph-dialect mapping",
        "core": "aten.special_modified_bessel_i0.default has no graph-dialect mapping",
    },
    "special.modified_bessel_i1": {
        "default": "aten.special_modified_bessel_i1.default has no graph-dialect mapping",
        "core": "aten.special_modified_bessel_i1.default has no graph-dialect mapping",
    },
    "special.modified_bessel_k0": {
        "default": "aten.special_modified_bessel_k0.default has no graph-dialect mapping",
        "core": "aten.special_modified_bessel_k0.default has no graph-dialect mapping",
    },
    "special.modified_bessel_k1": {
        "default": "aten.special_modified_bessel_k1.default has no graph-dialect mapping",
        "core": "aten.special_modified_bessel_k1.default has no graph-dialect mapping",
    },
    "special.ndtri": {
        "default": "aten.special_ndtri.default has no graph-dialect mapping, and in torch's decomposition of it prims.ndtri.default does not import: prims.ndtri.default h",
        "core": "aten.special_ndtri.default has no graph-dialect mapping, and in torch's decomposition of it prims.ndtri.default does not import: prims.ndtri.default h",
    },
    "special.polygamma.special_polygamma_n_0": {
        "default": "aten.special_polygamma.default has no graph-dialect mapping, and in torch's decomposition of it aten.polygamma.default does not import: aten.p",
        "core": "aten.polygamma.default has no graph-dialect mapping",
    },
    "special.scaled_modified_bessel_k0": {
        "default": "aten.special_scaled_modified_bessel_k0.default has no graph-dialect mapping",
        "core": "aten.special_scaled_modified_bessel_k0.default has no graph-dialect mapping",
    },
    "special.scaled_modified_bessel_k1": {
        "default": "aten.special_scaled_modified_bessel_k1.default has no graph-dialect mapping",
        "core": "aten.special_scaled_modified_bessel_k1.default has no graph-dialect mapping",
    },
    "special.shifted_chebyshev_polynomial_t": {
        "default": "aten.special_shifted_chebyshev_polynomial_t.default has no graph-dialect mapping",
        "core": "aten.special_shifted_chebyshev_polynomial_t.default has no graph-dialect mapping",
    },
    "special.shifted_chebyshev_polynomial_u": {
        "default": "aten.special_shifted_chebyshev_polynomial_u.default has no graph-dialect mapping",
        "core": "aten.special_shifted_chebyshev_polynomial_u.default has no graph-dialect mapping",
    },
    "special.shifted_chebyshev_polynomial_v": {
        "default": "aten.special_shifted_chebyshev_polynomial_v.default has no graph-dialect mapping",
        "core": "aten.special_shifted_chebyshev_polynomial_v.default has no graph-dialect mapping",
    },
    "special.shifted_chebyshev_polynomial_w": {
        "default": "aten.special_shifted_chebyshev_polynomial_w.default has no graph-dialect mapping",
        "core": "aten.special_shifted_chebyshev_polynomial_w.default has no graph-dialect mapping",
    },
    "special.spherical_bessel_j0": {
        "default": "aten.special_spherical_bessel_j0.default has no graph-dialect mapping, and in torch's decomposition of it prims.spherical_",
        "core": "aten.special_spherical_bessel_j0.default has no graph-dialect mapping, and in torch's decomposition of it prims.spherical_",
    },
    "special.zeta": {
        "default": "aten.special_zeta.default has no graph-dialect mapping, and in torch's decomposition of it prims.zeta.default does not import: prims.zeta.default has no",
        "core": "aten.special_zeta.default has no graph-dialect mapping, and in torch's decomposition of it prims.zeta.default does not import: prims.zeta.default has no",
    },
    "stft": {
        "default": "aten.stft.default has no graph-dialect mapping, and in torch's decomposition of it aten.as_strided.default does not import: aten.as_strided.default has no graph-dialect",
        "core": "aten.unfold.default has no graph-dialect mapping, and in torch's decomposition of it aten.as_strided.default does not import: aten.as_strided.default has no graph-d",
    },
    "svd": {
        "default": "aten.svd.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default does not import: aten._linalg_svd.default has no graph-dialect ",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "svd_lowrank": {
        "default": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "take_along_dim": {
        "default": "aten.take_along_dim.default: aten.remainder.Scalar has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.remainder.defa",
        "core": "aten.remainder.Scalar has no graph-dialect mapping, and in torch's decomposition of it prims.remainder.default does not import: prims.remainder.default has no ",
    },
    "tan": {
        "default": "aten.tan.default has no graph-dialect mapping, and in torch's decomposition of it prims.tan.default does not import: prims.tan.default has no graph-dialect mapping",
        "core": "aten.tan.default has no graph-dialect mapping, and in torch's decomposition of it prims.tan.default does not import: prims.tan.default has no graph-dialect mapping",
    },
    "tensor_split": {
        "default": "aten.tensor_split.tensor_indices_or_sections: dynamic shape (u3, 5, 5): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten._local_scalar_dense.default has no graph-dialect mapping",
    },
    "to": {
        "default": "aten.to.device: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "topk": {
        "default": "aten.topk.default has no graph-dialect mapping",
        "core": "aten.topk.default has no graph-dialect mapping",
    },
    "triangular_solve": {
        "default": "aten.triangular_solve.default has no graph-dialect mapping",
        "core": "aten.triangular_solve.default has no graph-dialect mapping",
    },
    "uniform": {
        "default": "aten.uniform_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (uniform); only inference programs without buffer mutations import",
    },
    "unique": {
        "default": "aten._unique2.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten._unique2.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "unique_consecutive": {
        "default": "aten.unique_consecutive.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten.unique_consecutive.default: dynamic shape (u0,): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "unsafe_chunk": {
        "default": "aten.unsafe_chunk.default has no graph-dialect mapping",
    },
    "view_as": {
        "default": "aten.view_as.default has no graph-dialect mapping",
    },
    "view_as_complex": {
        "default": "aten.view_as_complex.default has no graph-dialect mapping",
        "core": "aten.view_as_complex.default has no graph-dialect mapping",
    },
    "vsplit": {
        "default": "aten.vsplit.int has no graph-dialect mapping",
    },
    "zero_": {
        "default": "aten.zero_.default: torch's decomposition of aten.zero_.default writes a value in place that it reads again (aten.copy_.default)",
    },
}
