# SPDX-License-Identifier: MIT
"""TreeSpec.accessors() and tree_flatten_with_accessor (made in C, python/src/spec_access.c)
against optree 0.20.0 itself and against grove's Python reference (_specs._py_accessors):
the entries' classes, entries, types, kinds, reprs, codify() and what they fetch; custom
nodes' path_entry_type called as optree calls it, its errors, and hostile entry classes."""

import collections
import dataclasses
import sys
import time

import optree
import pytest

import grove
from grove import _specs

P = collections.namedtuple('P', 'x y')


class Box:
    def __init__(self, *v):
        self.v = v

    def __getitem__(self, i):
        return self.v[i]


class Attr:
    def __init__(self, a, b):
        self.a, self.b = a, b


for _m in (grove, optree):
    _m.register_pytree_node(Box, lambda b: (b.v, None, None), lambda _, c: Box(*c),
                            namespace='acc')
    _m.register_pytree_node(Attr, lambda o: ((o.a, o.b), None, ('a', 'b')),
                            lambda _, c: Attr(*c), path_entry_type=_m.GetAttrEntry,
                            namespace='acc')

TREES = [
    1, None, [], (), [None, [], {}], {'b': 2, 'a': 1}, [1, (2, None), {'y': [3], 'x': 4}],
    collections.OrderedDict(z=1, a=(2, 3)), collections.defaultdict(list, {'q': 1, 'p': [2]}),
    collections.deque([1, [2]], maxlen=3), {'k': P(1, [2])}, time.gmtime(0),
    {1: 'a', 'b': [None, 2]}, {(1, 2): 3, (0, 'x'): [4]},
    Box(1, [2, Box()], {'c': Box(None, 3)}), [Attr(1, {'d': Attr([2], (3,))})],
]


def described(m, tree, accessors):
    return [(repr(a), a.codify('t'), len(a), [type(e).__name__ for e in a],
             [(e.entry, e.type, int(e.kind)) for e in a], a(tree)) for a in accessors]


@pytest.mark.parametrize('tree', TREES, ids=range(len(TREES)))
@pytest.mark.parametrize('none_is_leaf', [False, True])
@pytest.mark.parametrize('ordered', [False, True])
def test_as_optree(tree, none_is_leaf, ordered):
    def run(m):
        with m.dict_insertion_ordered(ordered, namespace='acc'):
            spec = m.tree_structure(tree, none_is_leaf=none_is_leaf, namespace='acc')
            accs, leaves, spec2 = m.tree_flatten_with_accessor(
                tree, none_is_leaf=none_is_leaf, namespace='acc')
            assert spec == spec2 and [a(tree) for a in accs] == leaves
            return (described(m, tree, spec.accessors()), described(m, tree, accs),
                    described(m, tree, m.tree_accessors(tree, none_is_leaf=none_is_leaf,
                                                        namespace='acc')))

    assert run(grove) == run(optree)


@pytest.mark.parametrize('tree', TREES + [TREES], ids=range(len(TREES) + 1))
def test_as_the_python_reference(tree):
    for nil in (False, True):
        spec = grove.tree_structure(tree, none_is_leaf=nil, namespace='acc')
        c, py = spec.accessors(), _specs._py_accessors(spec)
        assert c == py and [repr(a) for a in c] == [repr(a) for a in py]
        assert [type(a) for a in c] == [grove.PyTreeAccessor] * len(c)
        assert [[type(e) for e in a] for a in c] == [[type(e) for e in a] for a in py]


def test_entries_are_shared_by_the_leaves_below_them():
    accs = grove.tree_structure({'a': [1, 2, 3]}).accessors()
    assert accs[0][0] is accs[1][0] is accs[2][0]
    assert [a[1].entry for a in accs] == [0, 1, 2]


def test_deep_tree_no_recursion():
    tree = 0
    for i in range(20000):
        tree = [tree] if i % 2 else {'k': tree}
    (acc,) = grove.tree_structure(tree).accessors()
    assert len(acc) == 20000 and acc(tree) == 0
    assert acc.codify('t').startswith("t[0]['k'][0]")


def test_dataclass_entries_as_optree():
    def run(m):
        @m.dataclasses.dataclass(namespace='acc')
        class D:
            x: int
            y: list = dataclasses.field(default_factory=list)
            z: int = dataclasses.field(default=0, metadata={'pytree_node': False})

        tree = {'d': D(1, [2, D(3)])}
        accs = m.tree_accessors(tree, namespace='acc')
        return [(a.codify('t'), [type(e).__name__ for e in a], a(tree)) for a in accs]

    assert run(grove) == run(optree)


class Boom(grove.PyTreeEntry):
    """A path entry class whose constructor fails on one entry."""

    def __init__(self, entry, type, kind):  # noqa: A002
        if entry == 1:
            raise RuntimeError('boom at 1')
        super().__init__(entry, type, kind)


def test_path_entry_type_errors_propagate():
    class B:
        def __init__(self, *v):
            self.v = v

    grove.register_pytree_node(B, lambda b: (b.v, None, None), lambda _, c: B(*c),
                               path_entry_type=Boom, namespace='boom')
    try:
        spec = grove.tree_structure([B(1, 2)], namespace='boom')
        with pytest.raises(RuntimeError, match='boom at 1'):
            spec.accessors()
        with pytest.raises(RuntimeError, match='boom at 1'):
            _specs._py_accessors(spec)
        assert [a.codify() for a in grove.tree_structure([B(1)], namespace='boom').accessors()] \
            == ['*[0][<flat index 0>]']
    finally:
        grove.unregister_pytree_node(B, namespace='boom')


def test_hostile_path_entry_type_unregisters_and_collects():
    """The entry class's constructor unregisters the class it is for and runs the
    collector: the walk holds what it uses (the registration, the node's class, the spec)."""
    import gc

    class H:
        def __init__(self, *v):
            self.v = v

    calls = []

    class Hostile(grove.PyTreeEntry):
        def __init__(self, entry, type, kind):  # noqa: A002
            calls.append(entry)
            if len(calls) == 1:
                grove.unregister_pytree_node(H, namespace='hostile')
            gc.collect()
            super().__init__(entry, type, kind)

    grove.register_pytree_node(H, lambda h: (h.v, None, ['p', 'q']), lambda _, c: H(*c),
                               path_entry_type=Hostile, namespace='hostile')
    spec = grove.tree_structure({'h': H(1, [2, 3])}, namespace='hostile')
    tree = {'h': H(1, [2, 3])}
    del tree
    accs = spec.accessors()
    del spec
    gc.collect()
    assert calls == ['p', 'q']
    assert [a.codify('t') for a in accs] == [
        "t['h'][<flat index 'p'>]", "t['h'][<flat index 'q'>][0]", "t['h'][<flat index 'q'>][1]"]
    assert [type(a[1]).__name__ for a in accs] == ['Hostile'] * 3
    assert sys.getrefcount(accs[0][1]) >= 2


def test_bad_arguments():
    spec = grove.tree_structure([1])
    with pytest.raises(TypeError):
        grove._grove._accessors(spec, ())
    with pytest.raises(TypeError):
        grove._grove._accessors([1], _specs._ACCESSOR_TABLE)
