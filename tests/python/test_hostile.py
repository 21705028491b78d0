# SPDX-License-Identifier: MIT
"""Hostile input: cycles, very deep and very wide trees, keys and flatten
functions that raise or lie, re-entrant use, leaks over many calls."""

import collections
import gc
import os

import grove
import pytest


# ASan's quarantine keeps freed memory resident: RSS says nothing there
UNDER_ASAN = 'asan' in os.environ.get('LD_PRELOAD', '')


def rss_bytes():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')


# ---------------------------------------------------------------- cycles


def test_cycles_raise_recursion_error():
    a = [1]
    a.append(a)
    for fn in (grove.tree_leaves, grove.tree_flatten, grove.tree_structure,
               lambda t: grove.tree_map(lambda x: x, t), grove.canonicalize):
        with pytest.raises(RecursionError):
            fn(a)
    d = {'x': [1, {}]}
    d['x'][1]['back'] = d
    with pytest.raises(RecursionError, match='cycle'):
        grove.tree_flatten(d)
    # a cycle far below the root, behind 1,000 levels
    head = []
    cur = head
    for _ in range(1000):
        nxt = []
        cur.append(nxt)
        cur = nxt
    cur.append(head)
    with pytest.raises(RecursionError, match='cycle'):
        grove.tree_leaves(head)
    cur.pop()  # break it so that it can be freed


class Loop:
    """A registered class whose flatten returns the object itself as child."""


def test_custom_node_cycle():
    grove.register_pytree_node(Loop, lambda o: ([o], None), lambda m, c: Loop(),
                               namespace='hostile')
    try:
        with pytest.raises(RecursionError):
            grove.tree_leaves(Loop(), namespace='hostile')
    finally:
        grove.unregister_pytree_node(Loop, namespace='hostile')


# ---------------------------------------------------------------- deep and wide


def test_one_million_deep():
    # at the default memory limit (docs/python.md says so)
    n = 1_000_000
    t = 0
    for _ in range(n):
        t = [t]
    leaves, spec = grove.tree_flatten(t)
    assert leaves == [0]
    assert spec.num_leaves == 1 and spec.num_nodes == n + 1
    assert grove.tree_leaves(t) == [0]
    m = grove.tree_map(lambda x: x + 1, t)
    assert grove.tree_leaves(m) == [1]
    assert grove.tree_structure(m) == spec and hash(grove.tree_structure(m)) == hash(spec)
    back = grove.tree_unflatten(spec, [7])
    assert grove.tree_leaves(back) == [7]
    assert spec.flatten_up_to(m) == [1]
    out, changed = grove.canonicalize(t)
    assert out is t and not changed
    d = {'k': 0}
    for _ in range(n):
        d = {'k': d}
    assert grove.tree_leaves(d) == [0]
    assert grove.tree_structure(d).num_nodes == n + 2


def test_ten_million_leaves():
    big = list(range(10_000_000))
    assert grove.tree_leaves(big)[5_000_000] == 5_000_000  # leaves intern nothing
    # a structure of 10M leaves needs ~80 MB: over a 64 MiB budget
    old = grove.set_memory_limit(64 << 20)
    try:
        with pytest.raises(MemoryError, match='memory limit'):
            grove.tree_flatten(big)
    finally:
        grove.set_memory_limit(old)
    old = grove.set_memory_limit(1 << 30)
    try:
        leaves, spec = grove.tree_flatten(big)
    finally:
        grove.set_memory_limit(old)
    assert len(leaves) == 10_000_000 and leaves[-1] == 9_999_999
    back = grove.tree_unflatten(spec, leaves)
    assert back == big
    del back, leaves, spec


# ---------------------------------------------------------------- keys


class Key:
    """A key whose comparisons can be made to raise."""

    fail_lt = None
    fail_eq = False
    fail_hash = False

    def __init__(self, v, h=None):
        self.v = v
        self.h = hash(v) if h is None else h

    def __hash__(self):
        if Key.fail_hash:
            raise ArithmeticError('hash refused')
        return self.h

    def __eq__(self, other):
        if Key.fail_eq:
            raise LookupError('eq refused')
        return isinstance(other, Key) and self.v == other.v

    def __lt__(self, other):
        if Key.fail_lt is not None:
            raise Key.fail_lt('lt refused')
        return self.v < other.v

    def __repr__(self):
        return f'Key({self.v})'


@pytest.fixture(autouse=True)
def _reset_key():
    yield
    Key.fail_lt, Key.fail_eq, Key.fail_hash = None, False, False


def test_key_lt_raising_propagates_or_falls_back():
    assert grove.tree_leaves({Key(2): 'b', Key(1): 'a'}) == ['a', 'b']
    Key.fail_lt = ValueError
    with pytest.raises(ValueError, match='lt refused'):
        grove.tree_leaves({Key(4): 1, Key(3): 2})
    Key.fail_lt = TypeError  # optree's rule: incomparable keys keep insertion order
    assert grove.tree_leaves({Key(6): 1, Key(5): 2}) == [1, 2]


def test_key_hash_and_eq_run_only_where_a_dict_is_built():
    # keys that are no grove values are held by identity: flattening never
    # hashes or compares them (optree 0.20.0 crashes on the first call here);
    # a rebuilt dict hashes its keys (and compares equal hashes) as any dict
    d = {Key(10): 1, Key(11): 2}
    Key.fail_hash = True
    assert grove.tree_leaves(d) == [1, 2]
    assert grove.tree_structure(d).num_leaves == 2
    with pytest.raises(ArithmeticError, match='hash refused'):
        grove.tree_map(lambda x: x, d)
    Key.fail_hash = False
    e = {Key(20, h=7): 1, Key(21, h=7): 2}  # equal hashes: inserts compare
    Key.fail_eq = True
    assert grove.tree_leaves(e) == [1, 2]
    with pytest.raises(LookupError, match='eq refused'):
        grove.tree_map(lambda x: x, e)
    Key.fail_eq = False
    back = grove.tree_map(lambda x: x, e)
    assert list(back) == list(e) and all(a is b for a, b in zip(back, e))
    # nothing half-built: the same dicts work now
    assert grove.tree_leaves(d) == [1, 2]
    assert grove.tree_map(lambda x: x + 1, d) == {k: v + 1 for k, v in d.items()}


# ---------------------------------------------------------------- custom flatten


class Bad:
    def __init__(self, mode, kids=(1, 2)):
        self.mode = mode
        self.kids = list(kids)


def bad_flatten(b):
    if b.mode == 'raise':
        raise OSError('flatten refused')
    if b.mode == 'int':
        return 5
    if b.mode == 'short':
        return (b.kids,)
    if b.mode == 'long':
        return (b.kids, None, None, None)
    if b.mode == 'kids':
        return (5, None)
    if b.mode == 'entries':
        return (b.kids, None, ('only-one',))
    if b.mode == 'mutate':
        HOLDER.clear()  # drops the parent dict's values while they are walked
        gc.collect()
        return (b.kids, None)
    return (b.kids, None)


HOLDER = {}


@pytest.fixture(scope='module', autouse=True)
def _register_bad():
    grove.register_pytree_node(Bad, bad_flatten, lambda m, c: Bad('ok', c), namespace='bad')
    yield
    grove.unregister_pytree_node(Bad, namespace='bad')


@pytest.mark.parametrize('mode,exc', [('raise', OSError), ('int', TypeError),
                                      ('short', RuntimeError), ('long', RuntimeError),
                                      ('kids', TypeError), ('entries', RuntimeError)])
def test_bad_flatten_functions(mode, exc):
    with pytest.raises(exc):
        grove.tree_flatten([0, {'a': Bad(mode)}], namespace='bad')
    with pytest.raises(exc):
        grove.tree_leaves([Bad(mode)], namespace='bad')
    # and the cache is intact afterwards
    assert grove.tree_leaves([0, {'a': Bad('ok')}], namespace='bad') == [0, 1, 2]


def test_flatten_that_mutates_the_tree():
    HOLDER.clear()
    HOLDER.update({'a': [object() for _ in range(3)], 'b': Bad('mutate', [[4], 5]),
                   'c': [object(), [object()]]})
    leaves = grove.tree_leaves(HOLDER, namespace='bad')
    assert len(leaves) == 3 + 2 + 2  # the values it started with, kept alive by grove
    HOLDER.update({'b': Bad('mutate'), 'c': {'d': [1, 2]}})
    leaves, spec = grove.tree_flatten(HOLDER, namespace='bad')
    assert leaves == [1, 2, 1, 2]


def test_reentrant_flatten():
    class Nest:
        def __init__(self, v):
            self.v = v

    def nest_flatten(n):
        inner = grove.tree_leaves({'z': n.v, 'y': [n.v]})  # grove inside grove
        return inner, len(inner)

    grove.register_pytree_node(Nest, nest_flatten, lambda m, c: Nest(c[0]), namespace='re')
    try:
        leaves, spec = grove.tree_flatten({'b': Nest(1), 'a': [Nest(2)]}, namespace='re')
        assert leaves == [2, 2, 1, 1]
        assert grove.tree_unflatten(spec, leaves)['b'].v == 1
    finally:
        grove.unregister_pytree_node(Nest, namespace='re')


# ---------------------------------------------------------------- leaks


def test_million_calls_keep_memory_flat():
    tree = [{'b': 1, 'a': [2, 3]}, (4, 5), 6, collections.OrderedDict(x=7)]
    leaves, spec = grove.tree_flatten(tree)
    for _ in range(20_000):  # warm up caches and allocator pools
        grove.tree_flatten(tree)
        grove.tree_unflatten(spec, leaves)
    gc.collect()
    objs0, rss0 = len(gc.get_objects()), rss_bytes()
    for i in range(1_000_000):
        ls, sp = grove.tree_flatten(tree)
        if i % 4 == 0:
            grove.tree_unflatten(sp, ls)
        elif i % 4 == 1:
            grove.tree_map(lambda x: x, tree)
        elif i % 4 == 2:
            hash(sp)
            sp == spec  # noqa: B015
        else:
            grove.tree_leaves(tree)
    gc.collect()
    objs1, rss1 = len(gc.get_objects()), rss_bytes()
    assert objs1 - objs0 < 100
    assert UNDER_ASAN or rss1 - rss0 < 16 << 20, (rss0, rss1)


def test_failing_calls_do_not_leak():
    spec = grove.tree_structure([1, 2])
    a = [1]
    a.append(a)
    for _ in range(2_000):
        for fn in (lambda: spec.unflatten([1]), lambda: spec.flatten_up_to([1]),
                   lambda: grove.tree_map(lambda x, y: x, [1, 2], [1]),
                   lambda: grove.tree_leaves(a),
                   lambda: grove.tree_leaves([Bad('raise')], namespace='bad')):
            try:
                fn()
            except (ValueError, RecursionError, OSError):
                pass
    gc.collect()
    objs0, rss0 = len(gc.get_objects()), rss_bytes()
    for _ in range(50_000):
        for fn in (lambda: spec.unflatten([1]), lambda: spec.flatten_up_to([1]),
                   lambda: grove.tree_map(lambda x, y: x, [1, 2], [1]),
                   lambda: grove.tree_leaves(a),
                   lambda: grove.tree_leaves([Bad('raise')], namespace='bad')):
            try:
                fn()
            except (ValueError, RecursionError, OSError):
                pass
    gc.collect()
    assert len(gc.get_objects()) - objs0 < 100
    assert UNDER_ASAN or rss_bytes() - rss0 < 16 << 20
    a.pop()


class Clearer:
    def __init__(self, kids):
        self.kids = list(kids)


def test_unflatten_function_that_empties_the_leaves():
    leaves = []

    def unflatten(meta, kids):
        leaves.clear()  # drops the list's references to every leaf
        gc.collect()
        return Clearer(kids)

    grove.register_pytree_node(Clearer, lambda c: (c.kids, None), unflatten, namespace='clr')
    try:
        spec = grove.tree_structure([[0, 0], Clearer([0]), {'a': [0, 0]}], namespace='clr')
        for _ in range(50):
            leaves[:] = [object() for _ in range(5)]
            keep = list(leaves)
            out = grove.tree_unflatten(spec, leaves)
            assert out[0][0] is keep[0] and out[2]['a'][1] is keep[4]
            assert out[1].kids[0] is keep[2]
    finally:
        grove.unregister_pytree_node(Clearer, namespace='clr')


def test_is_leaf_that_empties_the_parent():
    for _ in range(20):
        tree = [[object(), [object()]], {'a': [object()]}, [object(), object()]]
        first = tree[0]

        def is_leaf(x, tree=tree, first=first):
            if x is first:
                tree.clear()  # the walk holds what it visits; the list shrank under it
                gc.collect()
            return False

        del first
        with pytest.raises(IndexError, match='list index out of range'):  # (as optree)
            grove.tree_leaves(tree, is_leaf=is_leaf)
        d = {'a': [object()], 'b': [object(), {'c': object()}]}

        def drop(x, d=d):
            if isinstance(x, list) and len(x) == 2:
                d.clear()
                gc.collect()
            return False

        assert len(grove.tree_leaves(d, is_leaf=drop)) == 3  # the values it started with
