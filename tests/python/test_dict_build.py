# SPDX-License-Identifier: MIT
"""Dicts rebuilt by tree_unflatten / tree_map (copies of a per-key-set template
whose values, and for shuffled keys whose order, are written in place): every
rebuilt dict must be an ordinary, consistent dict in the original insertion
order, hold exactly the references it should, and be tracked by the cycle
collector exactly when CPython would track it."""

import gc
import random
import sys

import grove
import pytest


def shuffled_dict(keys, seed, values=None):
    order = list(keys)
    random.Random(seed).shuffle(order)
    return {k: (values[k] if values else i) for i, k in enumerate(order)}


def check_like(got, want):
    """got equals want, in the same insertion order, and behaves as a dict."""
    assert type(got) is dict
    assert list(got.items()) == list(want.items())
    for k, v in want.items():  # every key is found through the hash table
        assert got[k] is v and k in got
    assert len(got) == len(want)
    missing = object()
    assert got.get(missing) is None


SIZES = [0, 1, 2, 5, 8, 9, 50, 100, 170, 171, 1000, 70_000]


@pytest.mark.parametrize('n', SIZES)
@pytest.mark.parametrize('keykind', ['str', 'int', 'mixed'])
def test_shuffled_and_sorted_dicts_come_back_in_their_order(n, keykind):
    if keykind == 'str':
        keys = [f'k{i:06d}' for i in range(n)]
    elif keykind == 'int':
        keys = list(range(n))
    else:
        keys = [f'k{i}' if i % 2 else i for i in range(n)]
    for seed in range(3 if n <= 1000 else 1):
        tree = [shuffled_dict(keys, seed), dict.fromkeys(sorted(keys, key=str), 7)]
        paths, leaves, spec = grove.tree_flatten_with_path(tree)
        new = [object() for _ in leaves]
        back = grove.tree_unflatten(spec, new)
        assert [list(d) for d in back] == [list(d) for d in tree]  # insertion orders
        for (i, k), v in zip(paths, new):  # each value under its key
            assert back[i][k] is v
        for got, orig in zip(back, tree):
            check_like(got, {k: got[k] for k in orig})
        mapped = grove.tree_map(lambda x: x, tree)
        assert [list(d.items()) for d in mapped] == [list(d.items()) for d in tree]


def test_rebuilt_dicts_can_be_changed():
    keys = [f'f{j:02d}' for j in range(100)]
    leaves, spec = grove.tree_flatten(shuffled_dict(keys, 4))
    d = grove.tree_unflatten(spec, list(range(100)))
    order = list(d)
    d['new'] = 1  # insert
    del d[order[0]]  # delete
    d[order[1]] = 'x'  # replace
    for i in range(1000):  # resize
        d[i] = i
    for i in range(0, 1000, 2):
        del d[i]
    assert list(d)[:2] == [order[1], order[2]] and d[order[1]] == 'x'
    assert order[0] not in d and d['new'] == 1 and len(d) == 99 + 1 + 500
    e = d.copy()
    assert e == d and list(e) == list(d)
    d.clear()
    assert not d and len(e) == 600


def test_reference_counts_balance():
    keys = [f'rc{j:03d}' for j in range(100)]
    tree = [shuffled_dict(keys, s) for s in range(20)] + [dict.fromkeys(keys[:3], 0)]
    leaves, spec = grove.tree_flatten(tree)
    vals = [object() for _ in leaves]
    grove.tree_unflatten(spec, vals)  # warm: the templates exist from here on
    key_rc = [sys.getrefcount(k) for k in keys]
    val_rc = [sys.getrefcount(v) for v in vals]
    none_rc = sys.getrefcount(None)
    for _ in range(50):
        out = grove.tree_unflatten(spec, vals)
        assert sys.getrefcount(vals[0]) == val_rc[0] + 1
        del out
        out = grove.tree_map(lambda x: x, tree)
        del out
    assert [sys.getrefcount(k) for k in keys] == key_rc
    assert [sys.getrefcount(v) for v in vals] == val_rc
    assert abs(sys.getrefcount(None) - none_rc) < 10  # (None is shared by the interpreter)


class Node:
    pass


def test_gc_tracking_as_cpython_does():
    keys = ['b', 'a', 'c']
    leaves, spec = grove.tree_flatten({k: 0 for k in keys})
    # atomic values: untracked, as {'b': 1, ...} built by CPython
    assert not gc.is_tracked({'b': 1, 'a': 2, 'c': 3})
    assert not gc.is_tracked(grove.tree_unflatten(spec, [1, 2.0, 'x']))
    assert not gc.is_tracked(grove.tree_unflatten(spec, [1, (2, 3), None]))  # untracked tuple
    # a value the collector follows: tracked
    assert gc.is_tracked(grove.tree_unflatten(spec, [1, Node(), 3]))
    assert gc.is_tracked(grove.tree_unflatten(spec, [1, 2, {'z': []}]))
    big = grove.tree_flatten(shuffled_dict([f'g{i}' for i in range(200)], 1))[1]
    assert not gc.is_tracked(grove.tree_unflatten(big, list(range(200))))
    assert gc.is_tracked(grove.tree_unflatten(big, [Node()] + list(range(199))))


def test_cycles_through_rebuilt_dicts_are_collected():
    import weakref

    leaves, spec = grove.tree_flatten({'x': 0, 'a': 1, 'm': 2})
    gc.collect()
    for _ in range(3):
        n = Node()
        d = grove.tree_unflatten(spec, [1, n, 2])
        n.back = d  # n -> d -> n
        ref = weakref.ref(n)
        del n, d
        gc.collect()
        assert ref() is None


def test_templates_do_not_hold_leaves():
    import weakref

    leaves, spec = grove.tree_flatten(shuffled_dict([f'h{i}' for i in range(30)], 2))
    vals = [Node() for _ in leaves]
    refs = [weakref.ref(v) for v in vals]
    out = grove.tree_unflatten(spec, vals)
    del out, vals
    assert all(r() is None for r in refs)
