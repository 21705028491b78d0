# SPDX-License-Identifier: MIT
"""Dicts rebuilt by tree_unflatten / tree_map (copies of a per-key-set template
whose values, and for shuffled keys whose order, are written in place): every
rebuilt dict must be an ordinary, consistent dict in the original insertion
order, hold exactly the references it should, and be tracked by the cycle
collector exactly when CPython would track it."""

import collections
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


# ---------------------------------------------------------------------------
# canonicalize: the fast pass (lists, tuples, dicts of built-in scalar keys)
# and the general pass it hands over to
# ---------------------------------------------------------------------------

def ref_key_order(keys):
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=lambda k: (type(k).__module__ + '.' + type(k).__qualname__, k))


def ref_canon(t):
    if type(t) is dict:
        return {k: ref_canon(t[k]) for k in ref_key_order(t)}
    if type(t) is list:
        return [ref_canon(x) for x in t]
    if type(t) is tuple:
        return tuple(ref_canon(x) for x in t)
    return t


def same_shape_and_order(a, b):
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same_shape_and_order(a[k], b[k]) for k in a)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same_shape_and_order(x, y) for x, y in zip(a, b))
    return a is b


class Opaque:
    pass


@pytest.mark.parametrize('seed', range(4))
def test_canonicalize_fast_pass(seed):
    rnd = random.Random(seed)
    keys = [f'c{i:03d}' for i in range(120)]
    tree = [shuffled_dict(keys[:rnd.randrange(1, 120)], s) for s in range(30)]
    tree += [dict.fromkeys(keys[:50], 1.5), ({'b': [1, {'z': 2, 'y': (3,)}], 'a': None},),
             {1: 'x', 0: b'y', 2.5: True}, [], (), {}]
    if seed % 2:
        tree = tuple(tree)
    out, changed = grove.canonicalize(tree)
    assert changed
    assert same_shape_and_order(out, ref_canon(tree))
    # keys are the caller's objects
    for d_out, d_in in zip(out, tree):
        if type(d_in) is dict:
            ins = {k: k for k in d_in}
            assert all(k is ins[k] for k in d_out)
    # unchanged subtrees are the very same objects
    assert out[30] is tree[30] and out[-1] is tree[-1] and out[-3] is tree[-3]
    again, changed2 = grove.canonicalize(out)
    assert again is out and changed2 is False


def test_canonicalize_keeps_gc_state():
    t = [{'b': 1, 'a': 2}]
    assert gc.isenabled()
    grove.canonicalize(t)
    assert gc.isenabled()
    gc.disable()
    try:
        grove.canonicalize(t)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize('odd', [
    collections.OrderedDict([('b', 1), ('a', 2)]),
    collections.defaultdict(list, {'b': 1, 'a': 2}),
    collections.deque([{'b': 1, 'a': 2}]),
    ('tuple', 'key'),
    'opaque',
    'deep',
])
def test_canonicalize_hands_over_to_the_general_pass(odd):
    if odd == 'opaque':
        odd = Opaque()  # a class not classified yet, then classified (a leaf)
    if odd == 'deep':
        odd = {'b': 0, 'a': 1}
        for _ in range(600):
            odd = [odd]
    if odd == ('tuple', 'key'):
        odd = {('b', 1): 1, ('a', 2): 2}  # keys the host orders
    for _ in range(2):
        tree = [{'y': odd, 'x': [{'q': 1, 'p': 2}]}, {'n': 3}]
        out, changed = grove.canonicalize(tree)
        assert changed and list(out[0]) == ['x', 'y'] and list(out[0]['x'][0]) == ['p', 'q']
        assert out[1] is tree[1]


def test_canonicalize_reference_counts():
    keys = [f'r{j:02d}' for j in range(40)]
    tree = [shuffled_dict(keys, s, {k: object() for k in keys}) for s in range(5)]
    tree.append({'s': [tree[0]], 'a': (1,)})
    grove.canonicalize(tree)  # classifies `object` (the general pass)
    grove.canonicalize(tree)  # makes the templates (the fast pass)
    leaves = grove.tree_leaves(tree)
    before = [sys.getrefcount(x) for x in leaves + keys]
    for _ in range(20):
        out, _ = grove.canonicalize(tree)
        del out
    assert [sys.getrefcount(x) for x in leaves + keys] == before
