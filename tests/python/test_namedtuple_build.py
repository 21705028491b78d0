# SPDX-License-Identifier: MIT
"""Namedtuples rebuilt by tree_unflatten, tree_map, canonicalize and
grove.keras: a class whose __new__ is the one collections.namedtuple wrote
(no __init__ of its own, metaclass type) is made directly, as tuple.__new__
makes it, without calling the class; every other class is called. Either
way the result must be what calling the class gives, which is what optree
does: the same type, items, attributes and calls of the user's code."""

import collections
import gc
import sys
import typing

import grove
import optree
import pytest

P = collections.namedtuple('P', 'x y')
D = collections.namedtuple('D', 'a b c', defaults=(7, 8))


class TN(typing.NamedTuple):
    a: int
    b: int = 3


class Swapped(P):
    """A __new__ of its own: calling the class swaps the fields."""

    def __new__(cls, x, y):
        return super().__new__(cls, y, x)


class Plain(P):
    """A subclass with nothing of its own (it has a __dict__)."""


class Slotted(P):
    __slots__ = ()


CALLS = []


class Inits(P):
    def __init__(self, *args):
        CALLS.append(args)
        self.seen = args


class Meta(type):
    def __call__(cls, *args):
        CALLS.append(('meta', args))
        return super().__call__(*args)


MP = Meta('MP', (P,), {})


def eager_calls(cls, args):
    """What calling the class returns, and whether it ran user code."""
    del CALLS[:]
    want = cls(*args)
    return want, list(CALLS)


def same(got, want):
    assert type(got) is type(want)
    assert tuple(got) == tuple(want)
    assert getattr(got, '__dict__', None) == getattr(want, '__dict__', None)


CLASSES = [P, D, TN, Swapped, Plain, Slotted, Inits, MP]


@pytest.mark.parametrize('cls', CLASSES, ids=lambda c: c.__name__)
def test_unflatten_makes_what_calling_the_class_makes(cls):
    n = len(cls._fields)
    obj = cls(*range(n))
    tree = [obj, {'k': obj, 'j': (obj, None)}]
    leaves, spec = grove.tree_flatten(tree)
    oleaves, ospec = optree.tree_flatten(tree)
    assert leaves == oleaves
    new = [object() for _ in leaves]
    want, calls = eager_calls(cls, new[:n])
    del CALLS[:]
    got = spec.unflatten(new)
    got_calls = list(CALLS)
    del CALLS[:]
    ref = ospec.unflatten(new)
    assert got_calls == list(CALLS)  # as many calls of the user's code as optree makes
    same(got[0], want)
    for g, r in ((got[0], ref[0]), (got[1]['k'], ref[1]['k']), (got[1]['j'][0], ref[1]['j'][0])):
        same(g, r)
    if not calls:
        assert got_calls == []


@pytest.mark.parametrize('cls', CLASSES, ids=lambda c: c.__name__)
def test_tree_map_and_canonicalize_and_keras(cls):
    n = len(cls._fields)
    tree = {'b': cls(*range(n)), 'a': [cls(*range(10, 10 + n))]}
    f = lambda x: x * 2  # noqa: E731
    same(grove.tree_map(f, tree)['b'], optree.tree_map(f, tree)['b'])
    same(grove.tree_map(f, tree)['a'][0], optree.tree_map(f, tree)['a'][0])
    unsorted = {'z': cls(*([{'b': 1, 'a': 2}] * n))}
    canon, changed = grove.canonicalize(unsorted)
    assert changed
    same(canon['z'], cls(*([{'a': 2, 'b': 1}] * n)))
    assert all(list(d) == ['a', 'b'] for d in canon['z'])
    from grove import keras as gk

    same(gk.map_structure(f, tree)['b'], cls(*[f(x) for x in tree['b']]))


def test_a_class_changed_after_its_first_use_is_called():
    Q = collections.namedtuple('Q', 'x y')
    leaves, spec = grove.tree_flatten(Q(1, 2))
    assert spec.unflatten([5, 6]) == Q(5, 6)
    Q.__new__ = staticmethod(lambda cls, x, y: tuple.__new__(cls, (y, x)))
    got = spec.unflatten([5, 6])
    assert type(got) is Q and tuple(got) == (6, 5)
    Q.__init__ = lambda self, *a: CALLS.append(a)
    del CALLS[:]
    spec.unflatten([5, 6])
    assert CALLS == [(5, 6)]


def test_a_base_changed_after_first_use():
    Q = collections.namedtuple('Q', 'x y')

    class R(Q):
        pass

    leaves, spec = grove.tree_flatten(R(1, 2))
    assert spec.unflatten([5, 6]) == R(5, 6)
    Q.__new__ = staticmethod(lambda cls, x, y: tuple.__new__(cls, (y, x)))
    assert tuple(spec.unflatten([5, 6])) == (6, 5)


def test_wrong_number_of_fields_calls_the_class():
    """A namedtuple instance of another length (made with tuple.__new__):
    rebuilding it calls the class, which raises as with optree."""
    odd = tuple.__new__(P, (1, 2, 3))
    leaves, spec = grove.tree_flatten(odd)
    oleaves, ospec = optree.tree_flatten(odd)
    with pytest.raises(TypeError) as got:
        spec.unflatten(leaves)
    with pytest.raises(TypeError) as want:
        ospec.unflatten(oleaves)
    assert str(got.value) == str(want.value)


def test_a_lookalike_new_is_called():
    """A __new__ written elsewhere with tuple.__new__ in its globals is not
    collections.namedtuple's: the class is called."""
    ns = {'_tuple_new': tuple.__new__, '__builtins__': {}, '__name__': 'elsewhere'}
    fn = eval('lambda _cls, x, y: _tuple_new(_cls, (y, x))', ns)
    Q = type('Q', (P,), {'__new__': fn, '__slots__': ()})
    leaves, spec = grove.tree_flatten(Q(1, 2))
    got = spec.unflatten([5, 6])
    assert type(got) is Q and tuple(got) == (6, 5)


def test_references_and_gc():
    x, y = object(), object()
    leaves, spec = grove.tree_flatten([P(1, 2)] * 3)
    before = sys.getrefcount(x), sys.getrefcount(y)
    out = spec.unflatten([x, y] * 3)
    assert sys.getrefcount(x) == before[0] + 3
    assert gc.is_tracked(out[0])
    del out
    assert (sys.getrefcount(x), sys.getrefcount(y)) == before
    a = [P(1, 2)]
    leaves, spec = grove.tree_flatten(a)
    out = spec.unflatten([[], None])
    out[0][0].append(out)  # a cycle through the rebuilt namedtuple
    del out
    gc.collect()
