# SPDX-License-Identifier: MIT
"""A small typed module using grove as a user would: mypy --strict and pyright (strict)
must accept it without an error, and the types they infer are asserted (assert_type).
It also runs: tests/typing/check.py executes it with the test venv's Python."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple, assert_type

import grove
import grove.keras
from grove import PyTree, TreeSpec


class Point(NamedTuple):
    x: float
    y: float


Params = PyTree[float]


def scale(params: Params, factor: float) -> Params:
    def times(v: float) -> float:
        return v * factor

    return grove.tree_map(times, params)


def total(params: Params) -> float:
    leaves = grove.tree_leaves(params)
    assert_type(leaves, list[float])
    return sum(leaves)


def rebuild(params: Params) -> Params:
    leaves, spec = grove.tree_flatten(params)
    assert_type(leaves, list[float])
    assert_type(spec, TreeSpec)
    return grove.tree_unflatten(spec, [v + 1.0 for v in leaves])


def describe(spec: TreeSpec) -> dict[str, Any]:
    return {
        'leaves': spec.num_leaves,
        'nodes': spec.num_nodes,
        'paths': spec.paths(),
        'children': [c.num_leaves for c in spec.children()],
        'leaf': spec.is_leaf(strict=False),
        'fingerprint': spec.fingerprint().hex(),
        'kind': spec.kind.name,
        'type': spec.type.__name__ if spec.type is not None else None,
    }


def main() -> None:
    params: Params = {'w': [1.0, 2.0], 'b': (0.5, None), 'p': Point(3.0, 4.0)}
    assert total(params) == 10.5
    assert total(scale(params, 2.0)) == 21.0
    assert total(rebuild(params)) == 15.5

    spec = grove.tree_structure(params)
    assert spec == grove.tree_structure(rebuild(params))
    assert describe(spec)['leaves'] == 5

    paths, leaves, spec2 = grove.tree_flatten_with_path(params)
    assert_type(paths, list[tuple[Any, ...]])
    assert spec2 == spec and len(paths) == len(leaves)

    def with_path(path: tuple[Any, ...], v: float) -> str:
        return f'{path}={v}'

    labelled = grove.tree_map_with_path(with_path, params)
    assert grove.tree_leaves(labelled)[0] == "('b', 0)=0.5"
    assert grove.tree_all([True, (1, 2)]) and not grove.tree_any([0, (None, False)])

    ints: PyTree[int] = [1, [2, 3], {'k': 4}]
    assert grove.tree_reduce(lambda a, b: a + b, ints) == 10
    assert grove.tree_sum(ints) == 10
    assert grove.tree_max(ints) == 4

    one = grove.tree_flatten_one_level(ints)
    assert_type(one.children, list[PyTree[int]])
    assert one.children[0] == 1 and one.entries == (0, 1, 2)

    od: PyTree[int] = OrderedDict(b=1, a=2)
    assert grove.tree_leaves(od) == [1, 2]

    outer = grove.tree_structure([0, 0])
    inner = grove.tree_structure((0, 0, 0))
    assert grove.tree_transpose(outer, inner, [(1, 2, 3), (4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])

    assert grove.treespec_tuple([grove.treespec_leaf(), grove.treespec_none()]).num_nodes == 3
    assert spec.is_prefix(spec) and not spec.is_prefix(spec, strict=True)
    assert TreeSpec.from_bytes(spec.to_bytes()) == spec
    canonical, changed = grove.canonicalize({'b': 1, 'a': 2})
    assert changed and canonical == {'a': 2, 'b': 1}

    flat = grove.keras.flatten({'b': [1, 2], 'a': None})
    assert_type(flat, list[Any])
    assert flat == [None, 1, 2]
    def add(a: int, b: int) -> int:
        return a + b

    assert grove.keras.map_structure(add, [1, 2], [10, 20]) == [11, 22]
    grove.keras.assert_same_structure([1, 2], [3, 4])
    assert grove.keras.is_nested([1]) and not grove.keras.installed()

    stats = grove.memory_stats()
    assert stats['limit'] > 0


if __name__ == '__main__':
    main()
    print('user.py: ok')
