"""OpInfo ops that do not import yet: op -> level -> reason.

Held by tests/frontends/test_opinfo.py against its run (1 sample(s)
per op): an op failing at a level not listed here fails the test, and so
does a listed one that passes (delete its entry). Written by
`python -m fxdsl.testing.opinfo --json RESULTS --resume --table THIS_FILE
--table-samples 1`; the reason is the importer's message.
"""

EXPECTED: dict[str, dict[str, str]] = {
    "_batch_norm_with_update": {
        "default": "aten._batch_norm_with_update.default: torch's decomposition of aten._batch_norm_with_update.default writes a value in place that it reads again (aten.copy_.default)",
        "core": "the program has a USER_INPUT_MUTATION output (getitem_4); only inference programs without buffer mutations import",
    },
    "_upsample_bilinear2d_aa": {
        "default": "aten._upsample_bilinear2d_aa.vec has no graph-dialect mapping, and in torch's decomposition of it aten._upsample_bilinear2d_aa.default",
        "core": "aten._upsample_bilinear2d_aa.default has no graph-dialect mapping",
    },
    "argwhere": {
        "default": "aten.argwhere.default: dynamic shape (u0, 1): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten.nonzero.default: dynamic shape (u0, 1): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
    },
    "bernoulli": {
        "default": "aten.bernoulli.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "byte": {
        "default": "aten.to.dtype: dtype torch.uint8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.uint8 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "cauchy": {
        "default": "aten.cauchy_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (cauchy); only inference programs without buffer mutations import",
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
    "double": {
        "default": "aten.to.dtype: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "erfinv": {
        "default": "aten.erfinv.default has no graph-dialect mapping, and in torch's decomposition of it prims.erf_inv.default does not import: prims.erf_inv.default has no graph-diale",
        "core": "aten.erfinv.default has no graph-dialect mapping, and in torch's decomposition of it prims.erf_inv.default does not import: prims.erf_inv.default has no graph-diale",
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
    "histogramdd": {
        "default": "aten.histogramdd.default has no graph-dialect mapping, and in torch's decomposition of it aten._histogramdd_bin_edges.default does not import: aten._histo",
        "core": "aten._histogramdd_bin_edges.default has no graph-dialect mapping",
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
    "index_copy": {
        "default": "aten.index_copy.default has no graph-dialect mapping, and in torch's decomposition of it aten.index_put.default does not import: aten.index_put.default has ",
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
    "log_normal": {
        "default": "aten.log_normal_.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "the program has a USER_INPUT_MUTATION output (log_normal); only inference programs without buffer mutations import",
    },
    "log_softmax.with_dtype": {
        "default": "aten.log_softmax.int: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "logdet": {
        "default": "aten.logdet.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_slogdet.default does not import: aten._linalg_slogdet.default has ",
        "core": "aten._linalg_slogdet.default has no graph-dialect mapping",
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
    "multinomial": {
        "default": "aten.multinomial.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.multinomial.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
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
    "nn.functional.avg_pool2d": {
        "default": "aten.avg_pool2d.default: avg_pool2d with divisor_override",
        "core": "aten.avg_pool2d.default: avg_pool2d with divisor_override",
    },
    "nn.functional.avg_pool3d": {
        "default": "aten.avg_pool3d.default has no graph-dialect mapping",
        "core": "aten.avg_pool3d.default has no graph-dialect mapping",
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
    "nn.functional.embedding_bag": {
        "default": "aten.embedding_bag.padding_idx has no graph-dialect mapping, and in torch's decomposition of it aten._embedding_bag_forward_only.default does not ",
        "core": "aten._embedding_bag_forward_only.default has no graph-dialect mapping",
    },
    "nn.functional.fractional_max_pool2d": {
        "default": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "nn.functional.fractional_max_pool3d": {
        "default": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.rand.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "nn.functional.max_pool1d": {
        "default": "aten.max_pool1d_with_indices.default has no graph-dialect mapping, and in torch's decomposition of it aten.max_pool2d_with_indices",
        "core": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
    },
    "nn.functional.max_pool2d": {
        "default": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
        "core": "aten.max_pool2d_with_indices.default: max_pool2d's indices have no graph form",
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
        "default": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
        "core": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
    },
    "polygamma.polygamma_n_1": {
        "default": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
        "core": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
    },
    "polygamma.polygamma_n_2": {
        "default": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
        "core": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
    },
    "polygamma.polygamma_n_3": {
        "default": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
        "core": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
    },
    "polygamma.polygamma_n_4": {
        "default": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
        "core": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
    },
    "qr": {
        "default": "aten.qr.default has no graph-dialect mapping, and in torch's decomposition of it aten.linalg_qr.default does not import: aten.linalg_qr.default has no graph-dialect mapping",
        "core": "aten.linalg_qr.default has no graph-dialect mapping",
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
    "short": {
        "default": "aten.to.dtype: dtype torch.int16 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.int16 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
    },
    "softmax.with_dtype": {
        "default": "aten.softmax.int: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
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
        "default": "aten.special_polygamma.default has no graph-dialect mapping, and in torch's decomposition of it aten.polygamma.default does not import: polyga",
        "core": "aten.polygamma.default: polygamma of order 1 (only 0, digamma)",
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
        "default": "aten.stft.default has no graph-dialect mapping, and in torch's decomposition of it aten._fft_r2c.default does not import: aten._fft_r2c.default has no graph-dialect map",
        "core": "aten._fft_r2c.default has no graph-dialect mapping",
    },
    "svd": {
        "default": "aten.svd.default has no graph-dialect mapping, and in torch's decomposition of it aten._linalg_svd.default does not import: aten._linalg_svd.default has no graph-dialect ",
        "core": "aten._linalg_svd.default has no graph-dialect mapping",
    },
    "svd_lowrank": {
        "default": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
        "core": "aten.randn.default draws random numbers, which fxdsl does not generate (the torch.compile backend leaves such nodes to torch)",
    },
    "tensor_split": {
        "default": "aten.tensor_split.tensor_indices_or_sections: dynamic shape (u3, 5, 5): fxdsl imports static shapes only; export without dynamic_shapes (or with static ones)",
        "core": "aten._local_scalar_dense.default has no graph-dialect mapping",
    },
    "to": {
        "default": "aten.to.device: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
        "core": "aten._to_copy.default: dtype torch.float64 is not supported (only torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)",
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
    "view_as_complex": {
        "default": "aten.view_as_complex.default has no graph-dialect mapping",
        "core": "aten.view_as_complex.default has no graph-dialect mapping",
    },
}
