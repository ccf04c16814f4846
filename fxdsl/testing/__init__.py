"""Testing helpers: random graph programs and numerics comparison.

from fxdsl.testing import graphs, random_graph, assert_same_numerics

@given(graphs(scoped=True))
def test_my_pass(module):
    after = clone_module(module)
    fxdsl.apply(after, "my-pass")
    assert_same_numerics(module, after)
"""

from fxdsl.testing.numerics import assert_same_numerics, clone_module
from fxdsl.testing.strategies import (
    GraphInfo,
    GraphOptions,
    graphs,
    random_graph,
    random_graph_with_info,
)

__all__ = [
    "GraphInfo",
    "GraphOptions",
    "assert_same_numerics",
    "clone_module",
    "graphs",
    "random_graph",
    "random_graph_with_info",
]
