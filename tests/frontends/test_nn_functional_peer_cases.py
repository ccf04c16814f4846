"""Cases in the manner of PyTorch's nn suites (`test/nn/test_embedding.py`,
the loss and normalization tests of `test/test_nn.py`,
`test/nn/test_normalization` and the loss table of
`torch/testing/_internal/common_nn.py`), run through
`torch.compile(fn, backend="fxdsl", options={"min_block_size": 1})` and
compared with eager.

Losses: cross_entropy with class indices and with class probabilities,
label_smoothing, ignore_index, class weights, reduction none/sum/mean and
K-dim inputs; nll_loss with ignore_index and weights; binary_cross_entropy
and binary_cross_entropy_with_logits with weight and pos_weight; kl_div
with log_target; mse, l1, smooth_l1 (beta incl. 0), huber, soft_margin,
multilabel_margin, multi_margin (p, margin, weight), margin_ranking,
hinge_embedding, cosine_embedding, triplet_margin(_with_distance),
poisson_nll, gaussian_nll, ctc_loss. Normalization: BatchNorm1d/2d/3d in
eval (with and without affine and running stats), GroupNorm, InstanceNorm
with and without running stats, LayerNorm without elementwise affine or
without bias, RMSNorm, LocalResponseNorm. Embedding: padding_idx, max_norm
in eval (it renormalizes the weight in place), embedding_bag in modes
sum/mean/max with per_sample_weights, offsets with empty bags and
include_last_offset.

Each row is a function and a factory for its arguments. The function runs
once in eager and twice compiled (the second call reuses the compiled
graph), each time on arguments made afresh from the same seed, all under
`torch.no_grad()`. Every output and every argument afterwards (a module's
parameters and buffers included) must match eager's: integers and
booleans exactly, float32 within atol=rtol=1e-5 unless a row says
otherwise, NaNs equal. Modules are made once from a fixed seed, in eval
mode unless the row says otherwise. The bodies are restated, not copied,
at small sizes (the CPU islands run on fxdsl's numpy reference
interpreter). A row whose graph went to torch whole still passes, with a
warning naming it (`pytest -rw` lists them): fxdsl did not run it.

What it found: every row but two matches eager, and no graph went to
torch whole (the backend logged nothing). The two strict `xfail` rows are
multilabel_margin_loss with targets padded by the -1 terminator: the loss
comes from torch's own decomposition of `multilabel_margin_loss_forward`
(torch 2.13), which Dynamo's tracing applies before any backend sees the
op, so `aot_eager` gets it wrong in the same way (pytorch#141017): the
slots after -1 still count, each as class 0. Unpadded targets pass
(`multilabel_margin_full_targets`). fxdsl's own importer used the same
decomposition for the op where it meets it whole (`torch.export`, the
default level) and gave the same wrong loss; it now never uses it
(`aten_decompositions.WRONG`) and refuses the op there
(`test_padded_multilabel_margin_is_refused_at_export`).

Not ported, and why:
- Backward passes, gradcheck/gradgradcheck and the `*_grad` and
  `_no_batch_dim` consistency tests: these rows run under `no_grad`.
- Training-mode batch norm's running-stat updates, momentum=None
  cumulative averaging and sync batch norm: training mode is a different
  program (the rows keep the eval programs the brief asks for); CUDA/cuDNN,
  half precision, channels-last memory-format and
  `torch.backends.cudnn` paths; sparse embedding gradients and
  `EmbeddingBag` with `sparse=True`; `from_pretrained` freezing checks.
- Tests whose point is an error eager raises too (bad offsets, out of
  range targets, mismatched shapes, negative `max_norm`), deprecation
  warnings of `size_average`/`reduce`, and the large-size stress tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fxdsl.testing.optional import need, torch_before
from fxdsl.testing.peer_cases import Case, case, compare_with_eager, warn_whole_graphs

torch = need("torch")

import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("fresh_dynamo"),
    pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss"),
]

SEED = 2025
OPTIONS = {"min_block_size": 1}
TOL = {"atol": 1e-5, "rtol": 1e-5}  # float32; integers and booleans exactly


def row(
    name: str,
    fn: Callable[..., Any],
    make: Callable[[], Any],
    *,
    atol: float = TOL["atol"],
    rtol: float = TOL["rtol"],
    xfail: str | None = None,
) -> Any:
    """The harness's `case` at this file's tolerance, a strict `xfail`
    where `xfail` says why."""
    return case(name, fn, make, atol=atol, rtol=rtol, xfail=xfail)


def rn(*shape: int) -> Any:
    return torch.randn(shape)


def ri(low: int, high: int, *shape: int) -> Any:
    return torch.randint(low, high, shape)


def built(factory: Callable[[], nn.Module], train: bool = False) -> nn.Module:
    """A module made once, from a fixed seed, leaving the global generator
    as it was; eval mode unless `train`."""
    with torch.random.fork_rng(), torch.no_grad():
        torch.manual_seed(SEED)
        m = factory()
        for p in m.parameters():  # non-trivial affine parameters
            p.add_(torch.rand_like(p) * 0.5)
        for name, b in m.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn_like(b) * 0.3)
            elif name.endswith("running_var"):
                b.copy_(torch.rand_like(b) + 0.5)
        return m.train(train)


def seeded(factory: Callable[[], nn.Module]) -> nn.Module:
    """A module made afresh from a fixed seed inside a factory, for a row
    whose forward changes the module (it travels as an argument)."""
    torch.manual_seed(SEED + 1)
    return factory().eval()


# --------------------------------------------------------------------------
# cross_entropy and nll_loss


def _ce_all(x: Any, t: Any) -> Any:
    return tuple(F.cross_entropy(x, t, reduction=r) for r in ("none", "sum", "mean"))


def _probs(*shape: int) -> Any:
    return torch.rand(shape).softmax(1)


def W5() -> Any:
    """Class weights of 5 classes."""
    return torch.rand(5) + 0.2


CROSS_ENTROPY = [
    row("ce_indices_reductions", _ce_all, lambda: (rn(6, 5), ri(0, 5, 6))),
    row("ce_indices_kdim", _ce_all, lambda: (rn(2, 5, 3, 4), ri(0, 5, 2, 3, 4))),
    row("ce_indices_no_batch", lambda x, t: F.cross_entropy(x, t), lambda: (rn(5), torch.tensor(3))),
    row("ce_indices_weight", lambda x, t, w: tuple(F.cross_entropy(x, t, weight=w, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(6, 5), ri(0, 5, 6), W5())),
    row("ce_indices_ignore_index", lambda x, t: tuple(F.cross_entropy(x, t, ignore_index=2, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(8, 5), torch.tensor([0, 2, 1, 2, 4, 3, 2, 0]))),
    row("ce_indices_ignore_negative_kdim_weight", lambda x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=-100), lambda: (rn(2, 5, 4), torch.tensor([[0, -100, 4, 1], [-100, 3, 3, 2]]), W5())),
    row("ce_indices_label_smoothing", lambda x, t: tuple(F.cross_entropy(x, t, label_smoothing=0.15, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(6, 5), ri(0, 5, 6))),
    row("ce_indices_label_smoothing_weight_ignore", lambda x, t, w: tuple(F.cross_entropy(x, t, weight=w, ignore_index=1, label_smoothing=0.3, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(2, 5, 3), torch.tensor([[1, 0, 4], [2, 1, 3]]), W5())),
    row("ce_indices_all_ignored_mean", lambda x, t: F.cross_entropy(x, t, ignore_index=1), lambda: (rn(3, 5), torch.tensor([1, 1, 1]))),
    row("ce_probs_reductions", _ce_all, lambda: (rn(6, 5), _probs(6, 5))),
    row("ce_probs_kdim", _ce_all, lambda: (rn(2, 5, 3, 2), _probs(2, 5, 3, 2))),
    row("ce_probs_weight_label_smoothing", lambda x, t, w: tuple(F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(4, 5), _probs(4, 5), W5())),
    row("nll_reductions_weight_ignore", lambda x, t, w: tuple(F.nll_loss(x, t, weight=w, ignore_index=3, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(7, 5).log_softmax(1), torch.tensor([3, 0, 1, 3, 4, 2, 0]), W5())),
    row("nll_kdim_ignore_negative", lambda x, t: tuple(F.nll_loss(x, t, ignore_index=-1, reduction=r) for r in ("none", "sum", "mean")), lambda: (rn(2, 5, 2, 3).log_softmax(1), torch.tensor([[[0, -1, 2], [4, 1, -1]], [[3, 3, 0], [-1, 2, 1]]]))),
    row("nll_no_batch", lambda x, t: F.nll_loss(x, t), lambda: (rn(5).log_softmax(0), torch.tensor(4))),
    row("cross_entropy_module_weight", built(lambda: nn.CrossEntropyLoss(weight=torch.rand(5) + 0.1, label_smoothing=0.1)), lambda: (rn(4, 5), ri(0, 5, 4))),
]  # fmt: skip


# --------------------------------------------------------------------------
# the other losses


def _red(loss: Callable[..., Any], **kw: Any) -> Callable[..., Any]:
    """`loss` under each reduction."""
    return lambda *a: tuple(
        loss(*a, reduction=r, **kw) for r in ("none", "sum", "mean")
    )


def _sig(*shape: int) -> Any:
    return torch.rand(shape) * 0.9 + 0.05


def _pm1(*shape: int) -> Any:
    return torch.randint(0, 2, shape).float() * 2 - 1


def _multilabel_target() -> Any:
    # class indices, ended by -1 (what follows -1 is ignored)
    return torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 0]])


def _ctc(log_probs: Any, targets: Any, il: Any, tl: Any) -> Any:
    return tuple(
        F.ctc_loss(log_probs, targets, il, tl, reduction=r)
        for r in ("none", "sum", "mean")
    )


def _ctc_args() -> tuple[Any, ...]:
    T, N, C, S = 6, 3, 4, 3
    lp = rn(T, N, C).log_softmax(2)
    return lp, ri(1, C, N, S), torch.tensor([6, 5, 4]), torch.tensor([3, 2, 1])


def _ctc_concat_args() -> tuple[Any, ...]:
    lp = rn(5, 2, 4).log_softmax(2)
    return lp, torch.tensor([1, 2, 2, 3, 1]), torch.tensor([5, 4]), torch.tensor([3, 2])


MULTILABEL = (
    (
        "torch's own decomposition of multilabel_margin_loss_forward (torch 2.13, "
        "which fxdsl inherits; aot_eager gives the same wrong value) keeps the "
        "target slots after the -1 terminator, gathering class 0 for each: "
        "x=[.1,.2,.4,.8], t=[3,0,-1,1] gives 2.05, eager 0.85 (pytorch#141017)"
    )
    if torch_before("2.14")
    else None
)  # torch 2.14's decomposition masks those slots

LOSSES = [
    row("bce", _red(F.binary_cross_entropy), lambda: (_sig(4, 3), torch.rand(4, 3))),
    row("bce_with_weight", lambda x, t, w: _red(F.binary_cross_entropy, weight=w)(x, t), lambda: (_sig(4, 3), torch.rand(4, 3), torch.rand(3))),
    row("bce_extreme_probs", lambda x, t: F.binary_cross_entropy(x, t, reduction="none"), lambda: (torch.tensor([0.0, 1.0, 1e-8, 1 - 1e-7, 0.5]), torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0]))),
    row("bce_logits", _red(F.binary_cross_entropy_with_logits), lambda: (rn(4, 3) * 4, torch.rand(4, 3))),
    row("bce_logits_weight_pos_weight", lambda x, t, w, pw: _red(F.binary_cross_entropy_with_logits, weight=w, pos_weight=pw)(x, t), lambda: (rn(4, 3) * 4, torch.rand(4, 3), torch.rand(4, 1), torch.rand(3) * 3)),
    row("bce_logits_large", lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"), lambda: (torch.tensor([-100.0, 100.0, -30.0, 30.0, 0.0]), torch.tensor([1.0, 0.0, 0.0, 1.0, 0.5]))),
    row("kl_div", lambda x, t: tuple(F.kl_div(x, t, reduction=r) for r in ("none", "sum", "mean", "batchmean")), lambda: (rn(4, 5).log_softmax(1), torch.rand(4, 5).softmax(1))),
    row("kl_div_log_target", lambda x, t: tuple(F.kl_div(x, t, reduction=r, log_target=True) for r in ("none", "sum", "batchmean")), lambda: (rn(4, 5).log_softmax(1), rn(4, 5).log_softmax(1))),
    row("kl_div_zero_target", lambda x, t: F.kl_div(x, t, reduction="sum"), lambda: (rn(2, 3).log_softmax(1), torch.tensor([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]))),
    row("mse", _red(F.mse_loss), lambda: (rn(3, 4), rn(3, 4))),
    row("l1", _red(F.l1_loss), lambda: (rn(3, 4), rn(3, 4))),
    row("smooth_l1_beta", _red(F.smooth_l1_loss, beta=0.5), lambda: (rn(3, 4), rn(3, 4))),
    row("smooth_l1_beta_zero", _red(F.smooth_l1_loss, beta=0.0), lambda: (rn(3, 4), rn(3, 4))),
    row("huber_delta", _red(F.huber_loss, delta=0.7), lambda: (rn(3, 4) * 2, rn(3, 4))),
    row("soft_margin", _red(F.soft_margin_loss), lambda: (rn(3, 4), _pm1(3, 4))),
    row("multilabel_margin_full_targets", _red(F.multilabel_margin_loss), lambda: (rn(3, 4), torch.tensor([[3, 0, 1, 2], [1, 1, 2, 0], [2, 3, 0, 1]]))),
    row("multilabel_margin_padded_targets", _red(F.multilabel_margin_loss), lambda: (rn(3, 4), _multilabel_target()), xfail=MULTILABEL),
    row("multilabel_margin_1d_padded", lambda x, t: F.multilabel_margin_loss(x, t), lambda: (rn(4), torch.tensor([2, 0, -1, 3])), xfail=MULTILABEL),
    row("multi_margin", _red(F.multi_margin_loss), lambda: (rn(5, 4), ri(0, 4, 5))),
    row("multi_margin_p2_margin", _red(F.multi_margin_loss, p=2, margin=0.5), lambda: (rn(5, 4), ri(0, 4, 5))),
    row("multi_margin_weight", lambda x, t, w: _red(F.multi_margin_loss, margin=1.5, weight=w)(x, t), lambda: (rn(5, 4), ri(0, 4, 5), torch.rand(4))),
    row("margin_ranking", _red(F.margin_ranking_loss, margin=0.3), lambda: (rn(6), rn(6), _pm1(6))),
    row("hinge_embedding", _red(F.hinge_embedding_loss, margin=0.8), lambda: (rn(3, 4), _pm1(3, 4))),
    row("cosine_embedding", _red(F.cosine_embedding_loss, margin=0.2), lambda: (rn(4, 5), rn(4, 5), _pm1(4))),
    row("cosine_embedding_1d", lambda a, b, y: F.cosine_embedding_loss(a, b, y), lambda: (rn(5), rn(5), torch.tensor(-1.0))),
    row("triplet_margin", _red(F.triplet_margin_loss, margin=0.5, p=2), lambda: (rn(4, 5), rn(4, 5), rn(4, 5))),
    row("triplet_margin_swap_p1", _red(F.triplet_margin_loss, margin=1.0, p=1, swap=True), lambda: (rn(4, 5), rn(4, 5), rn(4, 5))),
    row("triplet_margin_distance_cosine_swap", _red(F.triplet_margin_with_distance_loss, distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b), margin=0.4, swap=True), lambda: (rn(4, 5), rn(4, 5), rn(4, 5))),
    row("poisson_nll_full", _red(F.poisson_nll_loss, full=True), lambda: (rn(3, 4), torch.tensor([[0.0, 1.0, 2.0, 5.0]] * 3))),
    row("poisson_nll_not_log_input", _red(F.poisson_nll_loss, log_input=False, full=True), lambda: (torch.rand(3, 4) + 0.1, torch.rand(3, 4) * 3)),
    row("gaussian_nll", _red(F.gaussian_nll_loss), lambda: (rn(4, 3), rn(4, 3), torch.rand(4, 3) + 0.1)),
    row("gaussian_nll_full_var_one_col", _red(F.gaussian_nll_loss, full=True, eps=1e-3), lambda: (rn(4, 3), rn(4, 3), torch.rand(4, 1) * 0.01)),
    row("gaussian_nll_scalar_var_per_batch", lambda x, t, v: F.gaussian_nll_loss(x, t, v), lambda: (rn(4, 3), rn(4, 3), torch.rand(4) + 0.2)),
    row("ctc_padded_targets", _ctc, _ctc_args, atol=1e-4, rtol=1e-5),
    row("ctc_concatenated_targets", _ctc, _ctc_concat_args, atol=1e-4, rtol=1e-5),
    row("ctc_zero_infinity_impossible", lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, reduction="none", zero_infinity=True), lambda: (rn(3, 1, 4).log_softmax(2), torch.tensor([[1, 1, 1]]), torch.tensor([3]), torch.tensor([3]))),
]  # fmt: skip


# --------------------------------------------------------------------------
# normalization modules


NORMS = [
    row("batchnorm1d_eval_2d_input", built(lambda: nn.BatchNorm1d(4)), lambda: (rn(5, 4),)),
    row("batchnorm1d_eval_no_affine", built(lambda: nn.BatchNorm1d(4, affine=False)), lambda: (rn(3, 4, 5),)),
    row("batchnorm2d_eval", built(lambda: nn.BatchNorm2d(3, eps=1e-3)), lambda: (rn(2, 3, 4, 4),)),
    row("batchnorm2d_eval_no_affine", built(lambda: nn.BatchNorm2d(3, affine=False)), lambda: (rn(2, 3, 3, 2),)),
    row("batchnorm3d_eval", built(lambda: nn.BatchNorm3d(2)), lambda: (rn(2, 2, 3, 2, 2),)),
    # without running stats, eval still normalizes with the batch's statistics
    row("batchnorm2d_eval_no_running_stats", built(lambda: nn.BatchNorm2d(3, track_running_stats=False)), lambda: (rn(2, 3, 4, 4),)),
    row("batchnorm1d_eval_no_running_stats_no_affine", built(lambda: nn.BatchNorm1d(4, affine=False, track_running_stats=False)), lambda: (rn(6, 4),)),
    row("group_norm", built(lambda: nn.GroupNorm(2, 6)), lambda: (rn(2, 6, 3, 2),)),
    row("group_norm_one_group_no_affine", built(lambda: nn.GroupNorm(1, 4, affine=False)), lambda: (rn(3, 4, 5),)),
    row("group_norm_per_channel", built(lambda: nn.GroupNorm(4, 4, eps=1e-3)), lambda: (rn(2, 4, 2, 2, 2),)),
    row("instance_norm1d", built(lambda: nn.InstanceNorm1d(3)), lambda: (rn(2, 3, 7),)),
    row("instance_norm2d_affine", built(lambda: nn.InstanceNorm2d(3, affine=True)), lambda: (rn(2, 3, 4, 3),)),
    row("instance_norm2d_running_stats_eval", built(lambda: nn.InstanceNorm2d(3, track_running_stats=True)), lambda: (rn(2, 3, 4, 3),)),
    row("instance_norm1d_running_stats_affine_eval", built(lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True)), lambda: (rn(2, 3, 5),)),
    row("instance_norm1d_no_batch", built(lambda: nn.InstanceNorm1d(3)), lambda: (rn(3, 6),)),
    row("layer_norm", built(lambda: nn.LayerNorm([3, 4])), lambda: (rn(2, 3, 4),)),
    row("layer_norm_no_elementwise_affine", built(lambda: nn.LayerNorm(5, elementwise_affine=False)), lambda: (rn(3, 5),)),
    row("layer_norm_no_bias", built(lambda: nn.LayerNorm(5, bias=False, eps=1e-3)), lambda: (rn(2, 3, 5),)),
    row("rms_norm", built(lambda: nn.RMSNorm(5)), lambda: (rn(3, 5),)),
    row("rms_norm_2d_shape_eps", built(lambda: nn.RMSNorm([3, 4], eps=1e-3)), lambda: (rn(2, 3, 4),)),
    row("local_response_norm_3d", built(lambda: nn.LocalResponseNorm(3)), lambda: (rn(2, 5, 4),)),
    row("local_response_norm_4d", built(lambda: nn.LocalResponseNorm(2, alpha=1e-2, beta=0.5, k=2.0)), lambda: (rn(2, 6, 3, 3),)),
]  # fmt: skip


# --------------------------------------------------------------------------
# embedding and embedding_bag


def _emb_max_norm() -> tuple[Any, ...]:
    m = seeded(lambda: nn.Embedding(10, 4, max_norm=1.0))
    return m, torch.tensor([[1, 3, 3], [7, 0, 1]])


def _bag() -> tuple[Any, ...]:
    """A weight, 8 indices and offsets of 4 bags, the second one empty."""
    return rn(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 3, 6])


EMBEDDING = [
    row("embedding", built(lambda: nn.Embedding(10, 3)), lambda: (ri(0, 10, 2, 4),)),
    row("embedding_padding_idx", built(lambda: nn.Embedding(10, 3, padding_idx=0)), lambda: (torch.tensor([[0, 2, 0, 5], [4, 3, 0, 9]]),)),
    row("embedding_negative_padding_idx", lambda w, i: F.embedding(i, w, padding_idx=-2), lambda: (rn(6, 3), torch.tensor([4, 1, 5, 4]))),
    row("embedding_functional_0d_index", lambda w, i: F.embedding(i, w), lambda: (rn(6, 3), torch.tensor(2))),
    row("embedding_max_norm_eval", lambda m, i: m(i), _emb_max_norm),
    row("embedding_max_norm_p1_functional", lambda w, i: (F.embedding(i, w, max_norm=0.5, norm_type=1.0), w), lambda: (rn(8, 3), torch.tensor([2, 5, 2, 7]))),
    row("embedding_bag_sum", lambda w, i, o: F.embedding_bag(i, w, o, mode="sum"), _bag),
    row("embedding_bag_mean_empty_bags", lambda w, i, o: F.embedding_bag(i, w, o, mode="mean"), _bag),
    row("embedding_bag_max_empty_bags", lambda w, i, o: F.embedding_bag(i, w, o, mode="max"), _bag),
    row("embedding_bag_sum_per_sample_weights", lambda w, i, o, ps: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=ps), lambda: (*_bag(), torch.rand(8))),
    row("embedding_bag_include_last_offset", lambda w, i, o: tuple(F.embedding_bag(i, w, torch.cat([o, torch.tensor([8])]), mode=m, include_last_offset=True) for m in ("sum", "mean", "max")), _bag),
    row("embedding_bag_2d_input", lambda w, i: tuple(F.embedding_bag(i, w, mode=m) for m in ("sum", "mean", "max")), lambda: (rn(10, 3), ri(0, 10, 3, 4))),
    row("embedding_bag_padding_idx", lambda w, i, o: tuple(F.embedding_bag(i, w, o, mode=m, padding_idx=2) for m in ("sum", "mean", "max")), _bag),
    row("embedding_bag_module_mean", built(lambda: nn.EmbeddingBag(10, 3, mode="mean")), lambda: (torch.tensor([1, 2, 4, 5, 4]), torch.tensor([0, 2, 2]))),
    row("embedding_bag_max_norm", lambda w, i, o: (F.embedding_bag(i, w, o, max_norm=1.0, mode="sum"), w), _bag),
]  # fmt: skip

CASES = CROSS_ENTROPY + LOSSES + NORMS + EMBEDDING


# --------------------------------------------------------------------------
# the comparison


@pytest.mark.parametrize("c", CASES)
def test_matches_eager(c: Case) -> None:
    """All under `torch.no_grad()`; float32 within `TOL`, integers exactly."""
    messages = compare_with_eager(c, SEED, options=OPTIONS, grad=False)
    warn_whole_graphs(messages)


def test_case_names_are_unique() -> None:
    names = [p.id for p in CASES]
    assert len(names) == len(set(names))


def test_padded_multilabel_margin_is_refused_at_export() -> None:
    """Where fxdsl itself meets `multilabel_margin_loss` (torch.export), it
    refuses the op rather than use torch's wrong decomposition (2.05 here
    where eager gives 0.85)."""
    from fxdsl.frontends.torch_export import TorchImportError, from_torch

    class Loss(torch.nn.Module):
        def forward(self, x: Any, t: Any) -> Any:
            return F.multilabel_margin_loss(x, t)

    x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    t = torch.tensor([[3, 0, -1, 1]])
    with pytest.raises(TorchImportError, match="multilabel_margin_loss"):
        from_torch(Loss(), (x, t))
