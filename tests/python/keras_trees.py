# SPDX-License-Identifier: MIT
"""Generated trees for the grove.keras differential tests: every kind keras's
tree functions know (list, tuple, dict, OrderedDict, defaultdict, deque,
namedtuples, struct_time, keras's TrackedList/Dict/OrderedDict/Set), leaves
of many kinds (None, numbers, strings, numpy arrays and scalars, sets,
unregistered subclasses of the containers), shapes, and near-miss variants
of a tree for the functions that take two. Imports keras (conftest.py sets
KERAS_BACKEND=numpy and KERAS_HOME first)."""

import collections
import os
import time

import numpy as np
from hypothesis import strategies as st
from keras.src.utils.tracking import TrackedDict, TrackedList, TrackedOrderedDict, TrackedSet

# generated trees per keras.tree function in the differential tests
KERAS_EXAMPLES = {'ci': 5_000, 'long': 50_000, 'quick': 300}.get(
    os.environ.get('GROVE_HYPOTHESIS_PROFILE', 'ci'), 5_000)

Point = collections.namedtuple('Point', ['x', 'y'])
Triple = collections.namedtuple('Triple', ['a', 'b', 'c'])
Empty = collections.namedtuple('Empty', [])


class ListSub(list):
    """An unregistered list subclass: a leaf (but lists_to_tuples converts it)."""


class DictSub(dict):
    """An unregistered dict subclass: a leaf."""


class Opaque:
    """A leaf object with identity equality."""

    def __repr__(self):
        return f'Opaque@{id(self):x}'


class Box:
    """A class registered through keras's protocol (tree_flatten with path
    entries, tree_unflatten); register_box registers it in implementations."""

    def __init__(self, kids, meta):
        self.kids = list(kids)
        self.meta = meta

    def tree_flatten(self):
        return self.kids, self.meta, [f'k{i}' for i in range(len(self.kids))]

    @classmethod
    def tree_unflatten(cls, meta, kids):
        return cls(kids, meta)

    def __eq__(self, other):
        return (type(other) is Box and self.meta == other.meta
                and deep_eq(self.kids, other.kids))

    __hash__ = None

    def __repr__(self):
        return f'Box({self.kids!r}, {self.meta!r})'


def register_box(*impls):
    for impl in impls:
        try:
            impl.register_tree_node_class(Box)
        except ValueError:  # registered already (the module imported twice)
            pass


def factory_none():
    return None


FACTORIES = [list, int, factory_none, None]

SCALARS = st.one_of(
    st.integers(-3, 1000),
    st.none(),
    st.text(max_size=3),
    st.booleans(),
    st.sampled_from([1.5, -0.0, b'x', 2**70, 'leaf text']),
)
OTHER_LEAVES = st.one_of(
    st.integers(0, 3).map(lambda n: np.arange(n)),
    st.sampled_from([np.int64(3), np.float32(1.5)]),
    st.frozensets(st.integers(0, 3), max_size=2),
    st.sets(st.integers(0, 3), max_size=2),
    st.lists(st.integers(0, 3), max_size=2).map(ListSub),
    st.dictionaries(st.text(max_size=1), st.integers(0, 3), max_size=2).map(DictSub),
    st.builds(Opaque),
)
LEAVES = st.one_of(SCALARS, SCALARS, SCALARS, OTHER_LEAVES)
# shapes: lists and tuples of ints (bools too) and None, the empty ones included
SHAPES = st.lists(st.one_of(st.integers(0, 9), st.none(), st.booleans()), max_size=3).flatmap(
    lambda v: st.sampled_from([v, tuple(v)]))
# dict keys: mixed types exercise optree's fallback orders (by type name, or insertion)
KEYS = st.one_of(
    st.text(max_size=2),
    st.integers(-3, 3),
    st.sampled_from([None, b'k', 2.5, -1.5, True, (1, 'a'), ('b', 2), (1, 2), (0,)]),
)
STR_KEYS = st.text(min_size=1, max_size=2)
HASHABLE = st.one_of(st.integers(0, 50), st.text(max_size=2),
                     st.tuples(st.integers(0, 5), st.integers(0, 5)))


def _extend(kids):
    small = st.lists(kids, max_size=4)
    return st.one_of(
        small,
        small.map(tuple),
        st.dictionaries(KEYS, kids, max_size=4),
        st.dictionaries(KEYS, kids, max_size=3).map(collections.OrderedDict),
        st.tuples(st.sampled_from(FACTORIES), st.dictionaries(KEYS, kids, max_size=3)).map(
            lambda p: collections.defaultdict(p[0], p[1])),
        st.tuples(small, st.sampled_from([None, 0, 2])).map(
            lambda p: collections.deque(p[0], maxlen=None if p[1] is None else len(p[0]) + p[1])),
        st.tuples(kids, kids).map(lambda p: Point(*p)),
        st.tuples(kids, kids, kids).map(lambda p: Triple(*p)),
        st.just(Empty()),
        st.lists(st.integers(0, 60), min_size=9, max_size=9).map(
            lambda v: time.struct_time(tuple(v))),
        small.map(TrackedList),
        st.dictionaries(STR_KEYS, kids, max_size=3).map(TrackedDict),
        st.dictionaries(STR_KEYS, kids, max_size=3).map(
            lambda d: TrackedOrderedDict(list(d.items()))),
        st.sets(HASHABLE, max_size=3).map(TrackedSet),
        SHAPES,
    )


TREES = st.recursive(LEAVES, _extend, max_leaves=12)


# ---------------------------------------------------------------------------
# Variants: the same tree with other leaves, and near misses
# ---------------------------------------------------------------------------


def _rebuild(t, kids):
    """A container of t's type (same keys, factory, maxlen, metadata) over kids
    given in t's iteration order (dict kinds: values in key order of t)."""
    tp = type(t)
    if tp in (list, tuple):
        return tp(kids)
    if tp in (Point, Triple, Empty):
        return tp(*kids)
    if tp is time.struct_time:
        return tp(tuple(kids))
    if tp is collections.deque:
        return collections.deque(kids, maxlen=t.maxlen)
    if tp is dict:
        return dict(zip(t.keys(), kids))
    if tp is collections.OrderedDict:
        return collections.OrderedDict(zip(t.keys(), kids))
    if tp is collections.defaultdict:
        return collections.defaultdict(t.default_factory, zip(t.keys(), kids))
    if tp is TrackedList:
        return TrackedList(kids)
    if tp is TrackedDict:
        return TrackedDict(dict(zip(t.keys(), kids)))
    if tp is TrackedOrderedDict:
        return TrackedOrderedDict(list(zip(t.keys(), kids)))
    if tp is Box:
        return Box(kids, t.meta)
    raise TypeError(tp)


def children(t):
    """t's children if it is a container we rebuild, else None (a leaf or a TrackedSet)."""
    tp = type(t)
    if tp in (list, tuple, Point, Triple, Empty, time.struct_time, collections.deque, TrackedList):
        return list(t)
    if tp is Box:
        return list(t.kids)
    if tp in (dict, collections.OrderedDict, collections.defaultdict, TrackedDict,
              TrackedOrderedDict):
        return list(t.values())
    return None


def _count_nodes(t):
    kids = children(t)
    return 1 + (sum(_count_nodes(k) for k in kids) if kids is not None else 0)


MUTATIONS = [
    'leaf', 'node', 'swap', 'drop', 'add', 'rekey', 'reorder', 'odict', 'tracked', 'untracked',
    'none',
]


def _mutate(t, rnd):
    """t changed at its root by one random mutation (it may happen to change nothing)."""
    m = rnd.choice(MUTATIONS)
    tp = type(t)
    kids = children(t)
    if m == 'leaf':
        return rnd.choice([7, None, 'z'])
    if m == 'node':
        return rnd.choice([[7], (), {}, TrackedList([7]), Point(1, 2), [None]])
    if m == 'none':
        return None
    if kids is None:
        return t
    if m == 'swap' and tp in (list, tuple, collections.deque, Point, Triple):
        alts = {list: tuple, tuple: list, collections.deque: list, Point: tuple, Triple: tuple}
        return alts[tp](kids)
    if m == 'drop' and kids and tp in (list, tuple, collections.deque, TrackedList, Box):
        return _rebuild(t, kids[:-1])
    if m == 'rekey' and tp is Box:
        return Box(kids, 'other meta')
    if m == 'add' and tp in (list, tuple, collections.deque, TrackedList, Box):
        return _rebuild(t, kids + [0])
    if tp in (dict, collections.OrderedDict, collections.defaultdict, TrackedDict,
              TrackedOrderedDict):
        items = list(t.items())
        if m == 'drop' and items:
            items = items[:-1]
        elif m == 'add':
            items.append(('new key', 0))
        elif m == 'rekey' and items:
            items[0] = ('other key', items[0][1])
        elif m == 'reorder':
            items.reverse()
        elif m == 'odict':
            return rnd.choice([dict, collections.OrderedDict,
                               lambda i: collections.defaultdict(list, i)])(items)
        elif m == 'tracked':
            return rnd.choice([TrackedDict, TrackedOrderedDict])(dict(items))
        elif m == 'untracked':
            return dict(items)
        if tp is dict:
            return dict(items)
        if tp is collections.OrderedDict:
            return collections.OrderedDict(items)
        if tp is collections.defaultdict:
            return collections.defaultdict(t.default_factory, items)
        if tp is TrackedDict:
            return TrackedDict(dict(items))
        return TrackedOrderedDict(items)
    if m == 'tracked' and tp is list:
        return TrackedList(kids)
    if m == 'untracked' and tp is TrackedList:
        return list(kids)
    return t


def variant(t, rnd, p_mutate):
    """A copy of t with new leaves (ints), where each container or leaf is
    mutated with probability p_mutate."""
    if rnd.random() < p_mutate:
        return _mutate(t, rnd)
    kids = children(t)
    if kids is None:
        if type(t) is TrackedSet:
            return t
        return rnd.choice([t, 0, 1, None]) if rnd.random() < 0.5 else t
    return _rebuild(t, [variant(k, rnd, p_mutate) for k in kids])


def prefix(t, rnd):
    """A shallow structure of t: some subtrees cut to a leaf (0)."""
    kids = children(t)
    if kids is None or rnd.random() < 0.25:
        return rnd.choice([0, 0, 0, None])
    return _rebuild(t, [prefix(k, rnd) for k in kids])


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def same_leaf(x, y):
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if isinstance(x, np.ndarray):
        return x.dtype == y.dtype and x.shape == y.shape and bool(np.all(x == y))
    if isinstance(x, float) and x != x:
        return y != y
    try:
        return bool(x == y)
    except Exception:  # noqa: BLE001 -- uncomparable: not the same
        return False


def deep_eq(a, b):
    """Equal with equal types all the way down: exact container types, dict
    insertion order, defaultdict factories, deque maxlens; leaves by
    same_leaf. Iterative."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if list(x.keys()) != list(y.keys()):
                return False
            if isinstance(x, collections.defaultdict) and x.default_factory is not y.default_factory:
                return False
            stack.extend(zip(x.values(), y.values()))
        elif isinstance(x, collections.deque):
            if x.maxlen != y.maxlen or len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, (list, tuple)) and not isinstance(x, (ListSub,)):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif not same_leaf(x, y):
            return False
    return True
