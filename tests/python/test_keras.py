# SPDX-License-Identifier: MIT
"""grove.keras's own tests, one rule at a time (no keras needed: the
module is called directly, with classes registered through its keras
protocol). test_keras_differential.py compares it with keras itself."""

import collections
import gc
import re
import time

import numpy as np
import pytest

import grove
import grove.keras as gk


class Bag(list):
    """A list subclass registered through the keras protocol (like keras's TrackedList)."""

    def tree_flatten(self):
        return self, None

    @classmethod
    def tree_unflatten(cls, meta, kids):
        return cls(kids)


class Table:
    """A mapping node with path entries and its key list as metadata (like TrackedDict)."""

    def __init__(self, items):
        self.items = dict(items)

    def tree_flatten(self):
        keys = sorted(self.items)
        return [self.items[k] for k in keys], keys, keys

    @classmethod
    def tree_unflatten(cls, keys, values):
        return cls(zip(keys, values))

    def __eq__(self, other):
        return type(other) is Table and list(self.items.items()) == list(other.items.items())

    def __repr__(self):
        return f'Table({self.items!r})'


class MAP_TO_NONE:  # noqa: N801 -- recognised by this very name
    """Any class of this name means "None here" in traverse (keras's marker)."""


Point = collections.namedtuple('Point', ['x', 'y'])
Other = collections.namedtuple('Other', ['x', 'y'])
assert gk.register_tree_node_class(Bag) is Bag
assert gk.register_tree_node_class(Table) is Table


def raises(exc, pattern, fn):
    with pytest.raises(exc) as info:
        fn()
    msg = str(info.value)
    assert re.search(pattern, msg), msg
    return msg


# ---------------------------------------------------------------------------
# Nodes, leaves, order
# ---------------------------------------------------------------------------


def test_is_nested_kinds():
    nodes = [[], (), {}, collections.OrderedDict(), collections.defaultdict(list),
             collections.deque(), Point(1, 2), time.gmtime(0), Bag(), Table({}), [None]]
    leaves = [None, 0, 1.5, 'ab', b'x', {1, 2}, frozenset(), np.ones(3), np.int64(2),
              object(), range(3), type('L', (list,), {})([1]), type('D', (dict,), {})(a=1)]
    assert all(gk.is_nested(x) for x in nodes)
    assert not any(gk.is_nested(x) for x in leaves)


def test_none_is_a_leaf_by_default():
    assert gk.flatten([None, {'a': None}, ()]) == [None, None]
    assert gk.flatten(None) == [None]
    assert gk.flatten_with_path(None) == [((), None)]
    assert gk.map_structure(lambda x: ('seen', x), [None]) == [('seen', None)]
    assert gk.pack_sequence_as(None, [5]) == 5


def test_dicts_by_sorted_key_rebuilt_in_insertion_order():
    d = {'b': 2, 'a': 1, 'c': 3}
    assert gk.flatten(d) == [1, 2, 3]
    assert gk.flatten(collections.OrderedDict(d)) == [2, 1, 3]
    assert gk.flatten(collections.defaultdict(int, d)) == [1, 2, 3]
    out = gk.map_structure(lambda x: x * 10, d)
    assert out == {'b': 20, 'a': 10, 'c': 30} and list(out) == ['b', 'a', 'c']
    packed = gk.pack_sequence_as({'b': 0, 'a': 0}, ['first', 'second'])
    assert list(packed.items()) == [('b', 'second'), ('a', 'first')]
    # keys that do not compare: by type name, then insertion order
    assert gk.flatten({1: 'int', 'b': 'str'}) == ['int', 'str']
    assert gk.flatten({'b': 'str', 1: 'int'}) == ['int', 'str']
    assert gk.flatten({(1, 'a'): 'first', (1, 2): 'second'}) == ['first', 'second']
    assert gk.flatten({(1, 2): 'second', (1, 'a'): 'first'}) == ['second', 'first']


def test_rebuilt_containers_keep_their_details():
    dd = collections.defaultdict(list, {'k': 1})
    dq = collections.deque([1, 2], maxlen=5)
    tree = [dd, dq, Point(1, 2), time.struct_time(tuple(range(9))), Bag([1]), Table({'z': 1})]
    out = gk.map_structure(lambda x: x + 1, tree)
    assert type(out[0]) is collections.defaultdict and out[0].default_factory is list
    assert out[0] == {'k': 2}
    assert type(out[1]) is collections.deque and out[1].maxlen == 5 and list(out[1]) == [2, 3]
    assert type(out[2]) is Point and out[2] == Point(2, 3)
    assert type(out[3]) is time.struct_time and tuple(out[3]) == tuple(range(1, 10))
    assert type(out[4]) is Bag and out[4] == [2]
    assert out[5] == Table({'z': 2})
    assert out[0] is not dd and out[1] is not dq  # new containers


def test_registered_classes_flatten_through_their_methods():
    t = Table({'y': [1, 2], 'x': 0})
    assert gk.flatten(t) == [0, 1, 2]
    assert gk.flatten_with_path(t) == [(('x',), 0), (('y', 0), 1), (('y', 1), 2)]
    assert gk.flatten_with_path(Bag([5, [6]])) == [((0,), 5), ((1, 0), 6)]
    # in keras's namespace only: the global namespace does not know them
    assert grove.tree_leaves(t) == [t]
    with pytest.raises(ValueError, match='already registered'):
        gk.register_tree_node_class(Table)
    with pytest.raises(TypeError):
        gk.register_tree_node_class(Table({}))
    with pytest.raises(TypeError, match='tree_flatten'):
        gk.register_tree_node_class(type('NoMethods', (), {}))


# ---------------------------------------------------------------------------
# map_structure, map_structure_up_to, map_shape_structure
# ---------------------------------------------------------------------------


def test_map_structure_several():
    a = {'b': [1, 2], 'a': 3}
    b = collections.OrderedDict([('a', 30), ('b', [10, 20])])
    out = gk.map_structure(lambda x, y: x + y, a, b)
    assert out == {'b': [11, 22], 'a': 33} and list(out) == ['b', 'a']
    # the first structure decides the types
    out = gk.map_structure(lambda x, y: y, b, a)
    assert type(out) is collections.OrderedDict and list(out) == ['a', 'b']
    # None pairs with any leaf when it is a leaf
    assert gk.map_structure(lambda x, y: (x, y), [None, 1], [5, None]) == [(None, 5), (1, None)]


def test_map_structure_none_is_leaf_false():
    calls = []

    def f(*xs):
        calls.append(xs)
        return 'x'

    out = gk.map_structure(f, [None, 1, {'a': None}], none_is_leaf=False)
    assert out == [None, 'x', {'a': None}] and calls == [(1,)]
    assert gk.map_structure(f, [None, 2], [None, 3], none_is_leaf=False) == [None, 'x']
    raises(ValueError, r'^at \(0,\): Expected None, got 5', lambda: gk.map_structure(
        f, [None, 1], [5, 1], none_is_leaf=False))
    raises(ValueError, r"^at \(0,\): .*don't have the same nested structure",
           lambda: gk.map_structure(f, [5, 1], [None, 1], none_is_leaf=False))


def test_map_structure_checks_before_calling_and_in_order():
    calls = []

    def f(*xs):
        calls.append(xs)
        return 0

    # a mismatched node anywhere is found before func is called at all
    raises(ValueError, r'^at \(2,\): list arity mismatch', lambda: gk.map_structure(
        f, [1, [2], [3]], [[1], [2], [3, 4]]))
    assert calls == []
    # a deeper subtree at a leaf is found when that leaf's turn comes
    raises(ValueError, r"^at \(1,\): .*don't have the same nested structure",
           lambda: gk.map_structure(f, [1, 2, 3], [1, [2], 3]))
    assert calls == [(1, 1)]


def test_map_structure_up_to():
    assert gk.map_structure_up_to([0, [0, 0]], str, [[1, 1], [2, 2]]) == ['[1, 1]', ['2', '2']]
    assert gk.map_structure_up_to(0, len, [[1, 1], [2, 2]]) == 2
    got = gk.map_structure_up_to(
        collections.OrderedDict([('b', 0), ('a', 0)]), lambda x, y: x + y, {'a': 1, 'b': 2},
        {'b': 20, 'a': 10})
    assert type(got) is collections.OrderedDict and list(got.items()) == [('b', 22), ('a', 11)]
    # keras's rule: a None in the shallow structure is an error
    raises(ValueError, r"^at \(1,\): .*don't have the same nested structure",
           lambda: gk.map_structure_up_to([0, None], len, [[1], [2]]))
    raises(ValueError, r'^at \(0,\): list arity mismatch; expected: 0, got: 1',
           lambda: gk.map_structure_up_to([[]], len, [[1]]))
    raises(ValueError, r'^at \(1,\): Expected an instance of list, got 2',
           lambda: gk.map_structure_up_to([0, [0]], len, [1, 2]))


def test_map_shape_structure():
    seen = []

    def f(x):
        seen.append(x)
        return 'S'

    tree = {'b': (5, None, True), 'a': [[], ()], 'c': [1.0, 2], 'd': collections.deque([1]),
            'e': Point(1, 2), 'f': (np.int64(3),)}
    out = gk.map_shape_structure(f, tree)
    assert out == {'b': 'S', 'a': ['S', 'S'], 'c': ['S', 'S'], 'd': collections.deque(['S']), 'e': 'S',
                   'f': ('S',)}
    assert list(out) == list(tree)
    assert seen == [[], (), (5, None, True), 1.0, 2, 1, Point(1, 2), np.int64(3)]
    assert gk.map_shape_structure(f, []) == 'S'
    assert gk.map_shape_structure(f, None) == 'S'
    assert gk.map_shape_structure(f, Bag([1, 2])) == 'S'  # a list subclass of ints


# ---------------------------------------------------------------------------
# traverse and lists_to_tuples
# ---------------------------------------------------------------------------


def test_traverse_visit_orders():
    t = [(1, 2), [3], {'a': 4}]
    seen = []
    out = gk.traverse(lambda x: seen.append(x), t)
    assert seen == [t, (1, 2), 1, 2, [3], 3, {'a': 4}, 4]
    assert out == t and out is not t
    seen.clear()
    gk.traverse(lambda x: seen.append(x), t, top_down=False)
    assert seen == [1, 2, (1, 2), 3, [3], 4, {'a': 4}, t]
    seen.clear()
    d = {'b': [1], 'a': collections.OrderedDict([('y', 2), ('x', 3)])}
    out = gk.traverse(lambda x: seen.append(x), d)
    assert seen == [d, d['a'], 2, 3, [1], 1]  # dict by sorted key, OrderedDict as inserted
    assert list(out) == ['b', 'a']  # rebuilt in insertion order


def test_traverse_replacements():
    t = [(1, [2]), [3, (4, 5)]]
    seen = []

    def tuples_to_x(x):
        seen.append(x)
        return 'X' if type(x) is tuple else None

    assert gk.traverse(tuples_to_x, t) == ['X', [3, 'X']]
    assert seen == [t, (1, [2]), [3, (4, 5)], 3, (4, 5)]  # a replaced subtree is not entered
    seen.clear()
    assert gk.traverse(tuples_to_x, t, top_down=False) == ['X', [3, 'X']]
    assert seen == [1, 2, [2], (1, [2]), 3, 4, 5, (4, 5), [3, 'X'], ['X', [3, 'X']]]

    # MAP_TO_NONE: the class (by its name), not an instance
    assert gk.traverse(lambda x: MAP_TO_NONE if type(x) is tuple else None, t) == [None, [3, None]]
    marker = MAP_TO_NONE()
    assert gk.traverse(lambda x: marker if x == 1 else None, [1, 2]) == [marker, 2]
    assert gk.traverse(lambda x: MAP_TO_NONE, [1, 2]) is None
    assert gk.traverse(lambda x: MAP_TO_NONE, [1, 2], top_down=False) is None
    # a returned structure replaces the subtree whole (never entered)
    assert gk.traverse(lambda x: [7, [8]] if x == [2] else None, [1, [2]]) == [1, [7, [8]]]


def test_traverse_bottom_up_sees_rebuilt_nodes():
    seen = []

    def f(x):
        seen.append(x)
        if type(x) is int:
            return x * 10
        return None

    t = Table({'b': 2, 'a': [1]})
    out = gk.traverse(f, t, top_down=False)
    assert out == Table({'a': [10], 'b': 20})
    assert seen[:3] == [1, [10], 2] and seen[-1] == Table({'a': [10], 'b': 20})  # children already mapped


def test_traverse_leaves_keep_identity_and_errors_propagate():
    leaf = object()
    assert gk.traverse(lambda x: None, leaf) is leaf
    assert gk.traverse(lambda x: None, [leaf])[0] is leaf

    def boom(x):
        if x == 3:
            raise KeyError('three')

    with pytest.raises(KeyError, match='three'):
        gk.traverse(boom, [1, [2, 3]])
    with pytest.raises(TypeError, match='callable'):
        gk.traverse('not a function', [1])
    with pytest.raises(TypeError, match='callable'):
        gk.traverse('not a function', [1], top_down=False)


def test_traverse_survives_the_tree_changing_under_it():
    inner = [1, 2, 3]
    t = [inner, [4]]

    def clear_when_seen(x):
        if x is t:
            inner.clear()
            t.append('late')
        return None

    out = gk.traverse(clear_when_seen, t)
    # the children are read after func saw the node: t has 'late', inner is empty
    assert out == [[], [4], 'late']

    t = [[1, 2], [3]]

    def clear_parent(x):
        if x == [1, 2]:
            t.clear()  # t's children were taken before its first child was visited
        return None

    assert gk.traverse(clear_parent, t) == [[1, 2], [3]] and t == []

    def clear_rebuilt(x):
        if type(x) is list and x and x[0] == 'a':
            x.clear()  # bottom-up, x is the rebuilt node: the result itself
        return None

    assert gk.traverse(clear_rebuilt, [['a', 'b']], top_down=False) == [[]]


def test_lists_to_tuples():
    assert gk.lists_to_tuples([1, [2, [3]]]) == (1, (2, (3,)))
    assert gk.lists_to_tuples([]) == ()
    assert gk.lists_to_tuples(7) == 7
    dq = gk.lists_to_tuples(collections.deque([[1]], maxlen=3))
    assert type(dq) is collections.deque and dq.maxlen == 3 and list(dq) == [(1,)]
    out = gk.lists_to_tuples({'b': [1], 'a': Point([2], 3)})
    assert out == {'b': (1,), 'a': Point((2,), 3)} and list(out) == ['b', 'a']
    sub = type('ListLeaf', (list,), {})([1, [2]])  # an unregistered subclass: a leaf, still a list
    assert gk.lists_to_tuples([sub]) == ((1, [2]),)
    assert gk.lists_to_tuples(Bag([1, [2]])) == (1, (2,))


# ---------------------------------------------------------------------------
# assert_same_structure, assert_same_paths
# ---------------------------------------------------------------------------


def test_assert_same_structure_matches():
    ok = [
        (1, 'x'), (None, 5), ([1, [2]], [3, [4]]),
        ({'a': 1, 'b': 2}, collections.OrderedDict([('b', 0), ('a', 0)])),
        (collections.defaultdict(list, a=1), {'a': 2}),
        (collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2)),
        (collections.deque([1], maxlen=2), collections.deque([3])),
        (Point(1, [2]), Point(3, [4])), (Table({'k': 1}), Table({'k': 9})),
        (np.ones(3), 'anything'),
    ]
    for a, b in ok:
        assert gk.assert_same_structure(a, b) is None


MISMATCHES = [
    ([1, [2]], [1, 2], r'^at \(1,\): Expected an instance of list, got 2\.'),
    ([1, 2], [1, [2]], r"^at \(1,\): Structures don't have the same nested structure"),
    ((), [], r'^Expected an instance of tuple, got \[\]'),
    (collections.deque(), [], r'^Expected an instance of collections\.deque'),
    ((1, 2), (1,), r'^tuple arity mismatch; expected: 2, got: 1'),
    ([[1, 2]], [[1]], r'^at \(0,\): list arity mismatch; expected: 2, got: 1'),
    ({'a': 1}, {'b': 1},
     r"^dictionary key mismatch; expected key\(s\): \['a'\], got key\(s\): \['b'\], "
     r"missing key\(s\): \['a'\], extra key\(s\): \['b'\]"),
    ({'a': {'x': 1}}, {'a': [1]}, r"^at \('a',\): Expected an instance of dict"),
    (Point(1, 2), Other(1, 2), r'^namedtuple type mismatch; expected type: .*Point.*Other'),
    (Point(1, 2), (1, 2), r'^Expected an instance of collections\.namedtuple'),
    (Table({'a': 1}), Table({'b': 1}), r"^Mismatch custom node data; expected: \['a'\]"),
    (Table({'a': 1}), {'a': 1}, r'^Custom node type mismatch; expected type: .*Table'),
    (Bag([1, 2]), Bag([1]), r'^Custom type arity mismatch; expected: 2, got: 1'),
    ([Bag([1])], [[1]], r'^at \(0,\): Custom node type mismatch'),
    ({'a': 1}, 1, r'^Expected an instance of dict, collections\.OrderedDict, or '),
    (1, [1], r"^Structures don't have the same nested structure"),
]


@pytest.mark.parametrize('a,b,pattern', MISMATCHES)
def test_assert_same_structure_messages(a, b, pattern):
    raises(ValueError, pattern, lambda: gk.assert_same_structure(a, b))


def test_assert_same_structure_reports_mismatched_nodes_first():
    # b is deeper at (0,) but mismatched at (1,): the mismatched node is the error
    raises(ValueError, r'^at \(1,\): Expected an instance of list',
           lambda: gk.assert_same_structure([1, [2]], [[1], 3]))


class Fails:
    """A registered class whose flatten raises."""

    def tree_flatten(self):
        raise LookupError('flatten failed')

    @classmethod
    def tree_unflatten(cls, meta, kids):
        return cls()


class Picky:
    """A registered class whose flatten raises for some instances."""

    def __init__(self, v):
        self.v = v

    def tree_flatten(self):
        if self.v == 'bad':
            raise ArithmeticError('bad instance')
        return [self.v], None

    @classmethod
    def tree_unflatten(cls, meta, kids):
        return cls(*kids)


gk.register_tree_node_class(Fails)
gk.register_tree_node_class(Picky)


def test_assert_same_structure_error_order():
    # a is flattened whole before b is looked at: a's own error comes first ...
    with pytest.raises(LookupError):
        gk.assert_same_structure([1, [Fails()]], [[1], [2]])
    # ... then b's first mismatched node, even after a place where b is deeper
    raises(ValueError, r'^at \(1, 0\): Expected an instance of list',
           lambda: gk.assert_same_structure([1, [[2]]], [[1], [2]]))
    # ... and b's own flatten error is b's first problem, after a's errors
    with pytest.raises(ArithmeticError):
        gk.assert_same_structure([Picky('ok'), [1]], [Picky('bad'), 2])
    with pytest.raises(LookupError):
        gk.assert_same_structure([Picky('ok'), Fails()], [Picky('bad'), 2])


def test_assert_same_paths():
    for a, b in [([1, 2], (3, 4)), ([1, 2], collections.deque([1, 2])), ({0: 1}, [1]),
                 ([], {}), (None, 1), (Point(1, 2), [1, 2]), (Table({'k': 1}), {'k': 2})]:
        assert gk.assert_same_paths(a, b) is None
    msg = raises(ValueError, r"don't have the same paths", lambda: gk.assert_same_paths(1, [1]))
    assert '{()}' in msg and '{(0,)}' in msg
    msg = raises(ValueError, r"don't have the same paths",
                 lambda: gk.assert_same_paths({'a': 1, 'b': 2}, {'a': 1}))
    assert "('b',)" in msg


# ---------------------------------------------------------------------------
# pack_sequence_as, flatten_with_path, argument errors
# ---------------------------------------------------------------------------


def test_pack_sequence_as():
    assert gk.pack_sequence_as(10, [1]) == 1
    assert gk.pack_sequence_as([0, [0]], (i for i in 'ab')) == ['a', ['b']]
    assert gk.pack_sequence_as([0, 0], 'xy') == ['x', 'y']
    assert gk.pack_sequence_as([0, 0], {'k': 1, 'j': 2}) == ['k', 'j']
    got = gk.pack_sequence_as([0, 0], np.array([4, 5]))
    assert got == [4, 5] and type(got[0]) is np.int64
    assert gk.pack_sequence_as([0, [0]], [[1], 2]) == [[1], [2]]  # items are not re-flattened
    raises(TypeError, r'iterable', lambda: gk.pack_sequence_as([0, 0], 5))
    raises(TypeError, r'iterable', lambda: gk.pack_sequence_as(0, None))
    raises(ValueError, r'Too few leaves.*expected: 2, got: 1', lambda: gk.pack_sequence_as(
        [0, 0], [1]))
    raises(ValueError, r'Too many leaves.*expected: 1', lambda: gk.pack_sequence_as(0, [1, 2]))
    raises(ValueError, r'leaves.*expected: 1, got: 0', lambda: gk.pack_sequence_as(0, []))


def test_argument_errors():
    raises(ValueError, r'at least one structure', lambda: gk.map_structure(len))
    raises(ValueError, r'at least one structure', lambda: gk.map_structure_up_to([0], len))
    raises(TypeError, r'callable', lambda: gk.map_structure('bad', [1, 2]))
    raises(TypeError, r'callable', lambda: gk.map_shape_structure('bad', [[1.5]]))
    assert gk.map_structure('never called', []) == []
    raises(TypeError, r'none_is_leaf|keyword', lambda: gk.map_structure(len, [1], bad=1))


def test_user_exceptions_propagate_unchanged():
    for fn in (gk.flatten, gk.is_nested, gk.lists_to_tuples,
               lambda t: gk.traverse(lambda x: None, t),
               lambda t: gk.assert_same_structure(t, t),
               lambda t: gk.map_structure(len, t)):
        try:
            fn([Fails()])
        except LookupError as e:
            assert str(e) == 'flatten failed'
        else:
            assert fn is gk.is_nested  # is_nested does not flatten


# ---------------------------------------------------------------------------
# Hostile input: depth, cycles, re-entrancy
# ---------------------------------------------------------------------------


def test_deep_trees_do_not_recurse():
    deep = 0
    for _ in range(200_000):
        deep = [deep]
    other = gk.map_structure(lambda x: x + 1, deep)
    gk.assert_same_structure(deep, other)
    assert gk.flatten(other) == [1]
    out = gk.traverse(lambda x: None, deep, top_down=False)
    for _ in range(10):
        out = out[0]
    assert type(out) is list
    tup = gk.lists_to_tuples(deep)
    for _ in range(200_000):
        tup = tup[0]
    assert tup == 0
    del deep, other, out
    gc.collect()


def test_cycles_raise():
    loop = [1]
    loop.append(loop)
    with pytest.raises(RecursionError):
        gk.traverse(lambda x: None, loop)
    with pytest.raises(RecursionError):
        gk.lists_to_tuples(loop)
    with pytest.raises(RecursionError):
        gk.assert_same_structure(loop, loop)
    with pytest.raises(RecursionError):
        gk.flatten(loop)


def test_reentrant_calls():
    def f(x):
        if type(x) is list:
            gk.assert_same_structure(x, x)
            return gk.lists_to_tuples(x) if len(x) == 1 else None
        return None

    assert gk.traverse(f, [[1], [2, [3]]]) == [(1,), [2, (3,)]]


def test_canonicalize_is_groves():
    assert gk.canonicalize is grove.canonicalize
    d = {'b': 1, 'a': {'d': 2, 'c': 3}}
    out, changed = gk.canonicalize(d)
    assert changed and list(out) == ['a', 'b'] and list(out['a']) == ['c', 'd']
    same = {'a': 1}
    assert gk.canonicalize(same) == (same, False) and gk.canonicalize(same)[0] is same
