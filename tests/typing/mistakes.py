# SPDX-License-Identifier: MIT
"""Deliberate mistakes: mypy --strict and pyright (strict) must report an error on every
line marked `# expect-error`, and on no other line (tests/typing/check.py). Not run."""

from __future__ import annotations

import grove
import grove.keras
from grove import PyTree, TreeSpec

tree: PyTree[int] = {'a': 1, 'b': (2, [3])}
spec = grove.tree_structure(tree)

# the result's type
x: str = grove.tree_flatten(tree)  # expect-error
names: list[str] = grove.tree_leaves(tree)  # expect-error
count: int = spec.fingerprint()  # expect-error
children: list[int] = spec.children()  # expect-error

# the arguments' types
grove.tree_map(1, tree)  # expect-error
grove.tree_unflatten([1, 2], [1, 2])  # expect-error
grove.tree_leaves(tree, namespace=1)  # expect-error
grove.tree_flatten(tree, is_leaf=5)  # expect-error
spec.is_leaf(strict='no')  # expect-error
TreeSpec.from_bytes('not bytes')  # expect-error
grove.set_memory_limit('1G')  # expect-error
bad: PyTree[int] = {'a': 'one'}  # expect-error

# names and arity
grove.tree_flaten(tree)  # expect-error
spec.num_leaves = 3  # expect-error
grove.tree_leaves()  # expect-error
grove.tree_structure(tree, none_is_leaf=True, nonesuch=1)  # expect-error
grove.keras.flatten(tree, tree)  # expect-error
grove.keras.map_structure(tree)  # expect-error
grove.keras.assert_same_structure([1])  # expect-error
