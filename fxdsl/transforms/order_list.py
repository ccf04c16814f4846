"""A total order of nodes that can move nodes next to another in O(moved).

`OrderList` gives every node an integer label; `label[x] < label[y]` iff `x`
comes before `y`. Labels are spaced `SPACING` apart when appended and kept in
a doubly linked list, so a move puts nodes between a node and its neighbour by
splitting the gap between their labels, without renumbering anything else. A
gap too small for the nodes moved in makes the list renumber every label
(`SPACING` apart again): each split shares the gap evenly, so that needs about
`log2(SPACING)` nested moves into one gap.

`DependencyGraph` keeps its online topological order in one of these: a
contraction moves only the nodes on the cheaper side of the merged node
(dynamic topological order with an order-maintenance list, as in Haeupler
et al. 2012, "Incremental cycle detection, topological ordering, and strong
component maintenance").
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

Node = TypeVar("Node", bound=Hashable)

SPACING = 1 << 64
"""Distance between the labels of consecutive nodes after a renumbering."""
_HEAD = -1
"""The label before every label (labels are >= 0)."""


class OrderList(Generic[Node]):
    """Nodes in a total order, with integer labels (see the module docstring)."""

    def __init__(self, spacing: int = SPACING) -> None:
        self.spacing = spacing
        self.label: dict[Node, int] = {}
        """Node -> label; compare labels to compare positions."""
        self._at: dict[int, Node] = {}
        self._above: dict[int, int] = {}  # label -> next label (absent at the end)
        self._below: dict[int, int] = {}  # label -> previous label (_HEAD first)
        self._last = _HEAD

    def append(self, node: Node) -> None:
        """Put the new `node` after every other node."""
        self._link(self._last, [node], self._last + 2 * self.spacing)

    def remove(self, node: Node) -> None:
        """Take `node` out of the order."""
        self._unlink(self.label.pop(node))

    def replace(self, old: Node, new: Node) -> None:
        """`new` (already placed) takes `old`'s place; `old` leaves the order."""
        self._unlink(self.label.pop(new))
        slot = self.label.pop(old)
        self.label[new], self._at[slot] = slot, new

    def permute(self, nodes: Sequence[Node]) -> None:
        """Give `nodes` their own labels again, sorted, in the order listed
        (Pearce-Kelly's reorder over the slots of the nodes it moves)."""
        slots = sorted(self.label[n] for n in nodes)
        for node, slot in zip(nodes, slots):
            self.label[node], self._at[slot] = slot, node

    def move_before(self, anchor: Node, nodes: Sequence[Node]) -> None:
        """Put `nodes` (in that order, `anchor` not among them) right before
        `anchor`."""
        self._move(anchor, nodes, after=False)

    def move_after(self, anchor: Node, nodes: Sequence[Node]) -> None:
        """Put `nodes` (in that order, `anchor` not among them) right after
        `anchor`."""
        self._move(anchor, nodes, after=True)

    def insert(self, anchor: Node, node: Node, after: bool) -> None:
        """Put the new `node` right after (or before) `anchor`."""
        self._place(anchor, [node], after)

    # ---------------------------------------------------------------- helpers

    def _move(self, anchor: Node, nodes: Sequence[Node], after: bool) -> None:
        if not nodes:
            return
        for node in nodes:
            self._unlink(self.label.pop(node))
        self._place(anchor, nodes, after)

    def _place(self, anchor: Node, nodes: Sequence[Node], after: bool) -> None:
        if not self._room(anchor, len(nodes), after):
            self._renumber()
        slot = self.label[anchor]
        below = slot if after else self._below[slot]
        end = below + self.spacing * (len(nodes) + 1)
        self._link(below, nodes, self._above.get(below, end))

    def _room(self, anchor: Node, count: int, after: bool) -> bool:
        slot = self.label[anchor]
        if after:
            above = self._above.get(slot)
            return above is None or above - slot > count
        return slot - self._below[slot] > count

    def _link(self, below: int, nodes: Sequence[Node], above: int) -> None:
        """Label `nodes` evenly between the labels `below` and `above` (the
        next one, or past the end) and link them in between."""
        step = (above - below) // (len(nodes) + 1)
        last = self._above.get(below)
        for node in nodes:
            slot = below + step
            self.label[node], self._at[slot] = slot, node
            self._above[below], self._below[slot] = slot, below
            below = slot
        if last is None:
            self._last = below
        else:
            self._above[below], self._below[last] = last, below

    def _unlink(self, slot: int) -> None:
        del self._at[slot]
        below = self._below.pop(slot)
        above = self._above.pop(slot, None)
        if above is None:
            self._above.pop(below, None)
            self._last = below
        else:
            self._above[below], self._below[above] = above, below

    def _renumber(self) -> None:
        order: list[Node] = []
        slot = self._above.get(_HEAD)
        while slot is not None:
            order.append(self._at[slot])
            slot = self._above.get(slot)
        self._at.clear()
        self._above.clear()
        self._below.clear()
        self._last = _HEAD
        self._link(_HEAD, order, _HEAD + self.spacing * (len(order) + 1))
