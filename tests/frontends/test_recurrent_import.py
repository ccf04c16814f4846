"""Recurrent nets through `from_torch` at the default level, where
`nn.LSTM`/`GRU`/`RNN` stay one ATen op (`aten.lstm.input`, ...) that torch
tags as drawing random numbers (its dropout between layers): in eval mode,
or with one layer or no dropout, it draws none, so it imports as torch's
decomposition (traced without oneDNN, whose LSTM layer op has no mapping)
and matches eager. Before, the import refused it as a random op."""

from __future__ import annotations

from typing import Any

import pytest

from fxdsl.testing.optional import need

torch = need("torch")

from fxdsl.frontends.aten_random import draws_random  # noqa: E402
from fxdsl.frontends.torch_export import from_torch  # noqa: E402

NETS = {
    "lstm": lambda: torch.nn.LSTM(5, 6, num_layers=2, dropout=0.3, batch_first=True),
    "lstm-bidirectional": lambda: torch.nn.LSTM(5, 6, bidirectional=True),
    "gru": lambda: torch.nn.GRU(5, 6, num_layers=2, dropout=0.3),
    "rnn-relu": lambda: torch.nn.RNN(5, 6, nonlinearity="relu"),
}


@pytest.mark.parametrize("decompose", [False, True], ids=["default", "core"])
@pytest.mark.parametrize("name", list(NETS))
def test_a_recurrent_net_in_eval_mode_imports(name: str, decompose: bool) -> None:
    torch.manual_seed(0)
    net = NETS[name]().eval()
    x = torch.randn(3, 4, 5)
    with torch.no_grad():
        want = net(x)
    got = from_torch(net, (x,), decompose=decompose).run(x)
    leaves = [want[0], *(want[1] if isinstance(want[1], tuple) else (want[1],))]
    assert len(got) == len(leaves)
    for g, w in zip(got, leaves, strict=True):
        torch.testing.assert_close(torch.as_tensor(g), w, rtol=1e-5, atol=1e-5)


def test_only_training_with_dropout_between_layers_draws() -> None:
    def draws(*flags: Any) -> bool:
        layers, dropout, train = flags
        args = (None, [], [], True, layers, dropout, train, False, True)
        return draws_random("aten.lstm.input", args, {})

    assert draws(2, 0.3, True)
    assert not draws(2, 0.3, False)  # eval
    assert not draws(1, 0.3, True)  # one layer: no dropout between layers
    assert not draws(2, 0.0, True)
    packed = (None, None, [], [], True, 2, 0.3, True, False)  # `.data`: batch sizes
    assert draws_random("aten.gru.data", packed, {})
