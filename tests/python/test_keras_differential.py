# SPDX-License-Identifier: MIT
"""Differential tests: keras.tree (keras 3.15.1) with its default
implementation (optree_impl) against keras.tree with grove installed, on
generated trees: all twelve functions, through keras's own tree_api (so its
fast paths are part of it). Results must be equal with equal types all the
way down (dict insertion order, defaultdict factories, deque maxlens,
Tracked* classes), leaves the same objects, exceptions of the same type, and
traverse must visit the same subtrees in the same order.

The number of trees per function is keras_trees.KERAS_EXAMPLES (5,000 under
the default "ci" profile); test_zz_counts checks every function saw them."""

import collections

import pytest

pytest.importorskip('keras', reason='keras is in tests/python/requirements-keras.txt')

import numpy as np  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402
from keras import tree as ktree  # noqa: E402
from keras.src.tree import optree_impl, tree_api  # noqa: E402
from keras.src.utils.tracking import TrackedDict  # noqa: E402

import grove.keras as gk  # noqa: E402
from keras_trees import (  # noqa: E402
    KERAS_EXAMPLES, TREES, Box, Point, _rebuild, children, deep_eq, prefix, register_box,
    variant)

register_box(optree_impl, gk)

MAP_TO_NONE = ktree.MAP_TO_NONE
COUNTS = collections.Counter()
examples = settings(max_examples=KERAS_EXAMPLES)


@pytest.fixture(scope='module', autouse=True)
def grove_installed():
    was = gk.installed()
    gk.install()
    assert tree_api.tree_impl is gk
    yield
    if not was:
        gk.uninstall()
        assert tree_api.tree_impl is optree_impl


def both(fn):
    """[(kind, value)] for fn() under keras's default implementation, then grove's."""
    out = []
    try:
        for impl in (optree_impl, gk):
            tree_api.tree_impl = impl
            try:
                out.append(('ok', fn()))
            except Exception as e:  # noqa: BLE001 -- the type is compared
                out.append(('err', e))
    finally:
        tree_api.tree_impl = gk
    return out


def same_objects(a, b):
    return type(a) is type(b) and len(a) == len(b) and all(x is y for x, y in zip(a, b))


def check(fn, eq=deep_eq):
    (ka, ra), (kb, rb) = both(fn)
    assert ka == kb, f'keras: {ka} {ra!r}\ngrove: {kb} {rb!r}'
    if ka == 'ok':
        assert eq(ra, rb), f'keras: {ra!r}\ngrove: {rb!r}'
    else:
        assert type(ra) is type(rb), f'keras: {ra!r}\ngrove: {rb!r}'
    return ka, ra, rb


def subtrees(t):
    """t and every subtree under it (containers we know how to open)."""
    out, stack = [], [t]
    while stack:
        x = stack.pop()
        out.append(x)
        kids = children(x)
        if kids is not None:
            stack.extend(kids)
    return out


# ---------------------------------------------------------------------------


@examples
@given(tree=TREES)
def test_is_nested(tree):
    COUNTS['is_nested'] += 1
    for x in subtrees(tree):
        check(lambda x=x: ktree.is_nested(x), eq=lambda a, b: a is b)


@examples
@given(tree=TREES)
def test_flatten(tree):
    COUNTS['flatten'] += 1
    check(lambda: ktree.flatten(tree), eq=same_objects)


@examples
@given(tree=TREES)
def test_flatten_with_path(tree):
    COUNTS['flatten_with_path'] += 1

    def eq(a, b):
        return (type(a) is type(b) and len(a) == len(b)
                and all(type(p) is type(q) and p[0] == q[0] and p[1] is q[1]
                        and [type(e) for e in p[0]] == [type(e) for e in q[0]]
                        for p, q in zip(a, b)))

    check(lambda: ktree.flatten_with_path(tree), eq=eq)


def _tag(x):
    return ('f', x)


def _raise_at_seven(x):
    if type(x) is int and x == 7:
        raise KeyError('seven')
    return ('f', x)


@examples
@given(tree=TREES, none_is_leaf=st.booleans(), func=st.sampled_from([_tag, _raise_at_seven]))
def test_map_structure_one(tree, none_is_leaf, func):
    COUNTS['map_structure'] += 1
    check(lambda: ktree.map_structure(func, tree, none_is_leaf=none_is_leaf))


@examples
@given(tree=TREES, rnd=st.randoms(use_true_random=False), none_is_leaf=st.booleans(),
       n=st.integers(1, 3), p=st.sampled_from([0.0, 0.03, 0.1, 0.3]))
def test_map_structure_many(tree, rnd, none_is_leaf, n, p):
    COUNTS['map_structure (several)'] += 1
    others = [variant(tree, rnd, p) for _ in range(n)]
    check(lambda: ktree.map_structure(lambda *xs: xs, tree, *others, none_is_leaf=none_is_leaf))


@examples
@given(tree=TREES, rnd=st.randoms(use_true_random=False), n=st.integers(1, 2),
       p=st.sampled_from([0.0, 0.05, 0.2]), shallow_from=st.sampled_from(['prefix', 'variant']))
def test_map_structure_up_to(tree, rnd, n, p, shallow_from):
    COUNTS['map_structure_up_to'] += 1
    shallow = prefix(tree, rnd) if shallow_from == 'prefix' else variant(tree, rnd, p)
    structures = [tree] + [variant(tree, rnd, p) for _ in range(n - 1)]
    check(lambda: ktree.map_structure_up_to(shallow, lambda *xs: xs, *structures))


@examples
@given(tree=TREES, rnd=st.randoms(use_true_random=False),
       p=st.sampled_from([0.0, 0.02, 0.1, 0.3]), swap=st.booleans())
def test_assert_same_structure(tree, rnd, p, swap):
    COUNTS['assert_same_structure'] += 1
    other = variant(tree, rnd, p)
    a, b = (other, tree) if swap else (tree, other)
    check(lambda: ktree.assert_same_structure(a, b), eq=lambda x, y: x is None and y is None)


@examples
@given(tree=TREES, rnd=st.randoms(use_true_random=False),
       p=st.sampled_from([0.0, 0.05, 0.2]), swap=st.booleans())
def test_assert_same_paths(tree, rnd, p, swap):
    COUNTS['assert_same_paths'] += 1
    other = variant(tree, rnd, p)
    a, b = (other, tree) if swap else (tree, other)
    check(lambda: ktree.assert_same_paths(a, b), eq=lambda x, y: x is None and y is None)


FLATS = ['list', 'tuple', 'iter', 'array', 'fewer', 'more', 'int', 'none', 'str']


@examples
@given(tree=TREES, how=st.sampled_from(FLATS))
def test_pack_sequence_as(tree, how):
    COUNTS['pack_sequence_as'] += 1
    n = len(ktree.flatten(tree))
    objs = [object() for _ in range(n)]
    flat = {
        'list': lambda: objs,
        'tuple': lambda: tuple(range(n)),
        'iter': lambda: iter(range(n)),
        'array': lambda: np.arange(n),
        'fewer': lambda: list(range(n - 1)) if n else [],
        'more': lambda: list(range(n + 1)),
        'int': lambda: 5,
        'none': lambda: None,
        'str': lambda: 'abcdefghijklmnopqrstuvwxyz'[:n],
    }[how]
    check(lambda: ktree.pack_sequence_as(tree, flat()))


class Visitor:
    """Records what func was called with; returns per its rule."""

    def __init__(self, rule):
        self.rule = rule
        self.seen = []

    def __call__(self, x):
        self.seen.append(x)
        return self.rule(x)


RULES = {
    'none': lambda x: None,
    'tuple -> X': lambda x: 'X' if type(x) is tuple else None,
    'list -> MAP_TO_NONE': lambda x: MAP_TO_NONE if isinstance(x, list) else None,
    'dict -> [1, x]': lambda x: [1, x] if type(x) is dict else None,
    'int + 1': lambda x: x + 1 if type(x) is int else None,
    'MAP_TO_NONE() kept': lambda x: MAP_TO_NONE() if x is None else None,
    '7 raises': lambda x: (_ for _ in ()).throw(KeyError(7)) if type(x) is int and x == 7 else None,
}


def _traverse_eq(a, b):
    # a MAP_TO_NONE() instance is a leaf value: compare its type only
    if type(a) is MAP_TO_NONE and type(b) is MAP_TO_NONE:
        return True
    return deep_eq(a, b)


@examples
@given(tree=TREES, top_down=st.booleans(), rule=st.sampled_from(sorted(RULES)))
def test_traverse(tree, top_down, rule):
    COUNTS['traverse'] += 1
    visitors = []

    def run():
        v = Visitor(RULES[rule])
        visitors.append(v)
        return ktree.traverse(v, tree, top_down=top_down)

    def eq(a, b):
        return deep_eq(_strip(a), _strip(b))

    check(run, eq=eq)
    ref, mine = visitors
    assert len(ref.seen) == len(mine.seen)
    for x, y in zip(ref.seen, mine.seen):
        assert deep_eq(_strip(x), _strip(y)), (x, y)
        if top_down:  # top-down, func sees the original subtrees
            assert x is y


def _strip(t):
    """t with MAP_TO_NONE() instances replaced by a marker (they differ by identity)."""
    if type(t) is MAP_TO_NONE:
        return 'MAP_TO_NONE()'
    kids = children(t)
    if kids is None:
        return t
    return _rebuild(t, [_strip(k) for k in kids])


@examples
@given(tree=TREES)
def test_lists_to_tuples(tree):
    COUNTS['lists_to_tuples'] += 1
    check(lambda: ktree.lists_to_tuples(tree))


@examples
@given(tree=TREES, raising=st.booleans())
def test_map_shape_structure(tree, raising):
    COUNTS['map_shape_structure'] += 1
    seen = []

    def f(x):
        seen.append(x)
        return _raise_at_seven(x) if raising else ('F', x)

    check(lambda: ktree.map_shape_structure(f, tree))
    half = len(seen) // 2
    assert len(seen) == 2 * half
    assert all(x is y for x, y in zip(seen[:half], seen[half:]))


@examples
@given(tree=TREES, rnd=st.randoms(use_true_random=False))
def test_register_tree_node_class(tree, rnd):
    """A class registered through keras.tree goes to the implementation in
    use; with each, trees holding its instances behave the same."""
    COUNTS['register_tree_node_class'] += 1
    kids = children(tree) or [tree]
    box = Box(kids, rnd.choice(['m', 'n', (1, 2)]))
    wrapped = [box, {'k': Box([box], 'outer')}]
    check(lambda: ktree.flatten_with_path(wrapped), eq=lambda a, b: [p for p, _ in a] == [
        p for p, _ in b] and all(x is y for (_, x), (_, y) in zip(a, b)))
    check(lambda: ktree.map_structure(_tag, wrapped))
    other = variant(wrapped, rnd, 0.1)
    check(lambda: ktree.assert_same_structure(wrapped, other), eq=lambda x, y: True)
    check(lambda: ktree.traverse(lambda x: None, wrapped, top_down=False))


def test_register_twice_and_return_value():
    fresh = type('Fresh', (), {'tree_flatten': lambda self: ((), None),
                               'tree_unflatten': classmethod(lambda cls, m, c: cls())})
    kind, ra, rb = check(lambda: tree_api.register_tree_node_class(fresh), eq=lambda a, b: a is b)
    assert kind == 'ok' and ra is fresh  # registered in both implementations now
    kind, ra, rb = check(lambda: tree_api.register_tree_node_class(fresh))
    assert kind == 'err' and type(ra) is ValueError  # twice: a ValueError from both


ORDER_CASES = [
    # a's TrackedDict cannot sort its keys (TypeError), b mismatches earlier: a's error first
    (lambda: collections.deque([Point(0, 0), TrackedDict({'': 0, 0: None})]),
     lambda: collections.deque([(0, 0), {'': 0, 0: None}])),
    # b mismatches at (1, 0) after being deeper at (0,): the mismatch first
    (lambda: [1, [[2]]], lambda: [[1], [2]]),
    # b's TrackedDict cannot sort, after a mismatch-free start
    (lambda: [TrackedDict({'a': 1}), [1]], lambda: [TrackedDict({'a': 1}), 2]),
    (lambda: [Point(1, 2), TrackedDict({1: 1, 'a': 2})],
     lambda: [Point(1, [2]), TrackedDict({1: 1, 'a': 2})]),
]


@pytest.mark.parametrize('make_a,make_b', ORDER_CASES)
def test_error_order(make_a, make_b):
    """Which error wins when there are several (optree: a's flatten, b's first mismatch,
    then b being deeper at a leaf), for the functions of two trees."""
    a, b = make_a(), make_b()
    check(lambda: ktree.assert_same_structure(a, b))
    check(lambda: ktree.assert_same_structure(b, a))
    check(lambda: ktree.map_structure(lambda *xs: xs, a, b))
    check(lambda: ktree.map_structure_up_to(a, lambda *xs: xs, b))


def test_optree_global_registrations_are_forwarded():
    """optree's own global registrations (its functools.partial) are nodes for keras's
    default implementation; install() gives them to grove's keras namespace."""
    import optree.functools

    part = optree.functools.partial(max, [1, 2], key={'k': (3,)})
    check(lambda: ktree.flatten(part), eq=same_objects)
    check(lambda: ktree.map_structure(_tag, part),
          eq=lambda a, b: type(a) is type(b) and deep_eq(list(a.args), list(b.args))
          and deep_eq(a.keywords, b.keywords))


def test_zz_counts():
    """Every function ran on KERAS_EXAMPLES generated trees (or more)."""
    names = ['is_nested', 'flatten', 'flatten_with_path', 'map_structure',
             'map_structure (several)', 'map_structure_up_to', 'assert_same_structure',
             'assert_same_paths', 'pack_sequence_as', 'traverse', 'lists_to_tuples',
             'map_shape_structure', 'register_tree_node_class']
    ran = [n for n in names if COUNTS[n]]
    if len(ran) < len(names):
        pytest.skip('not every test of this module ran')
    low = {n: COUNTS[n] for n in names if COUNTS[n] < KERAS_EXAMPLES}
    assert not low, low

