# SPDX-License-Identifier: MIT
"""treespec_tuple / treespec_list / treespec_from_collection of a tuple or list of TreeSpecs
(made in C from the items' structures, python/src/spec_graft.c, or in Python where that
declines), each against optree 0.20.0 itself: structures, namespaces, accessors, leaves
and errors for bad input."""

import collections
import time

import optree
import pytest

import grove
from grove import _specs

P = collections.namedtuple('P', 'x y')


class Box:
    def __init__(self, v):
        self.v = v


for _m in (grove, optree):
    for _ns in ('graft', 'other'):
        _m.register_pytree_node(Box, lambda b: ((b.v,), None, ('v',)), lambda _, c: Box(c[0]),
                                namespace=_ns)

TREES = [
    1, None, [], (), {'b': 2, 'a': 1}, [1, (2, None), {'y': [3], 'x': 4}],
    collections.OrderedDict(z=1, a=(2, 3)), collections.defaultdict(list, {'q': 1, 'p': [2]}),
    collections.deque([1, [2]], maxlen=3), {'k': P(1, [2])}, time.gmtime(0),
    [[[[(1,)]]]],
]


def described(m, spec):
    """What a structure is, as plain data comparable across grove and optree."""
    n = spec.num_leaves
    return (repr(spec), spec.namespace, spec.none_is_leaf, n, spec.num_nodes, int(spec.kind),
            [repr(a) for a in spec.accessors()], [a.codify() for a in spec.accessors()],
            m.tree_leaves(spec.unflatten(list(range(n))), none_is_leaf=spec.none_is_leaf,
                          namespace=spec.namespace),
            [repr(c) for c in spec.children()])


def raised(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 (the exception is the result compared)
        return type(e), str(e)
    return None


def children_of(m, trees, none_is_leaf=False, namespace=''):
    return [m.tree_structure(t, none_is_leaf=none_is_leaf, namespace=namespace) for t in trees]


MAKERS = {
    'tuple': lambda m, k, **kw: m.treespec_tuple(k, **kw),
    'list': lambda m, k, **kw: m.treespec_list(k, **kw),
    'tuple_of_tuple': lambda m, k, **kw: m.treespec_tuple(tuple(k), **kw),
    'list_of_generator': lambda m, k, **kw: m.treespec_list(iter(k), **kw),
    'from_collection_tuple': lambda m, k, **kw: m.treespec_from_collection(tuple(k), **kw),
    'from_collection_list': lambda m, k, **kw: m.treespec_from_collection(list(k), **kw),
}


@pytest.mark.parametrize('maker', MAKERS)
@pytest.mark.parametrize('none_is_leaf', [False, True])
@pytest.mark.parametrize('namespace', ['', 'graft'])
def test_as_optree(maker, none_is_leaf, namespace):
    make = MAKERS[maker]

    def run(m):
        out = []
        for trees in ([], [1], TREES, [TREES], TREES[::-1], [Box([1, {'b': 2, 'a': None}])],
                      [Box(1), 2, [Box(None)]]):
            kids = children_of(m, trees, none_is_leaf, namespace)
            spec = make(m, kids, none_is_leaf=none_is_leaf, namespace=namespace)
            out.append(described(m, spec))
            out.append(described(m, make(m, kids, none_is_leaf=none_is_leaf)))
            out.append(spec == m.tree_structure(type(spec.unflatten(range(spec.num_leaves)))(
                [k.unflatten(range(k.num_leaves)) for k in kids]), none_is_leaf=none_is_leaf,
                namespace=namespace))
        return out

    assert run(grove) == run(optree)


def test_children_of_a_spec_and_the_python_path_agree():
    """The C graft's result is the structure the Python graft (the slow path) builds."""
    for ns in ('', 'graft'):
        for nil in (False, True):
            for tree in TREES + [TREES, [Box(TREES)]]:
                spec = grove.tree_structure([tree, tree], none_is_leaf=nil, namespace=ns)
                kids = spec.children()
                fast = grove.treespec_tuple(kids, none_is_leaf=nil, namespace=ns)
                slow = _specs._graft(None, kids, nil, ns, keep=False, collection=tuple(kids))
                assert fast == slow and repr(fast) == repr(slow)
                assert fast.namespace == slow.namespace and hash(fast) == hash(slow)
                assert fast == grove.tree_structure((tree, tree), none_is_leaf=nil, namespace=ns)
                lst = grove.treespec_list(kids, none_is_leaf=nil, namespace=ns)
                assert lst == grove.tree_structure([tree, tree], none_is_leaf=nil, namespace=ns)


def test_mixed_namespaces_and_generations_as_optree():
    def run(m, new_gen=False):
        plain = m.tree_structure([1, {'b': 2, 'a': 3}])
        if new_gen:  # (a new generation: the items' structures are in two arenas)
            grove.set_memory_limit(grove.set_memory_limit(64 << 20))
        boxed = m.tree_structure(Box([1]), namespace='graft')
        out = []
        for kids in ([plain, boxed], [boxed, plain], [plain, plain, boxed, plain]):
            for ns in ('', 'graft'):
                out.append(described(m, m.treespec_tuple(kids, namespace=ns)))
                out.append(described(m, m.treespec_list(kids, namespace=ns)))
        out.append(described(m, m.treespec_tuple([plain, m.tree_structure(2)])))
        return out

    assert run(grove) == run(optree)
    assert run(grove, new_gen=True) == run(optree)


BAD = [
    ('none_is_leaf differs', lambda m: [m.tree_structure([None]),
                                        m.tree_structure(1, none_is_leaf=True)], {}),
    ('none_is_leaf asked', lambda m: [m.tree_structure([None])], {'none_is_leaf': True}),
    ('none_is_leaf not asked', lambda m: [m.tree_structure(1, none_is_leaf=True)], {}),
    ('none_is_leaf an int', lambda m: [m.tree_structure(1, none_is_leaf=True)],
     {'none_is_leaf': 1}),
    ('none_is_leaf a 0', lambda m: [m.tree_structure(1)], {'none_is_leaf': 0}),
    ('namespaces differ', lambda m: [m.tree_structure(Box(1), namespace='graft')],
     {'namespace': 'other'}),
    ('namespace given differs', lambda m: [m.tree_structure(1),
                                           m.tree_structure(Box(1), namespace='graft')],
     {'namespace': 'other'}),
    ('items namespaces differ', lambda m: [m.tree_structure(Box(1), namespace='other'),
                                           m.tree_structure(1),
                                           m.tree_structure(Box(1), namespace='graft')], {}),
    ('items namespaces and none_is_leaf differ',
     lambda m: [m.tree_structure(Box(1), namespace='other'),
                m.tree_structure(Box(1), namespace='graft', none_is_leaf=True)], {}),
    ('namespace a str subclass', lambda m: [m.tree_structure(Box(1), namespace='graft')],
     {'namespace': type('S', (str,), {})('graft')}),
    ('an item not a spec', lambda m: [m.tree_structure(1), 1], {}),
    ('an item None', lambda m: [None], {}),
    ('an item a tree', lambda m: [[m.tree_structure(1)]], {}),
]


@pytest.mark.parametrize('maker', MAKERS)
@pytest.mark.parametrize('case', BAD, ids=[b[0] for b in BAD])
def test_bad_input_as_optree(maker, case):
    _, kids, kw = case
    make = MAKERS[maker]

    def run(m):
        r = raised(lambda: make(m, kids(m), **kw))
        if r is None:
            return described(m, make(m, kids(m), **kw))
        return r

    assert run(grove) == run(optree)


def test_namespace_not_a_str():
    """A TypeError, as optree's (whose message is its binding's signature)."""
    for name in ('treespec_tuple', 'treespec_list', 'treespec_from_collection'):
        for m in (grove, optree):
            with pytest.raises(TypeError):
                getattr(m, name)([m.tree_structure(1)], namespace=3)


def test_not_an_iterable_as_optree():
    for name in ('treespec_tuple', 'treespec_list'):
        assert raised(lambda: getattr(grove, name)(3)) == raised(lambda: getattr(optree, name)(3))


def test_a_list_changed_by_the_callers_is_read_once():
    """The items are read before anything is made: the result is the list's items then."""
    kids = [grove.tree_structure({'a': 1}), grove.tree_structure([1, 2])]
    spec = grove.treespec_list(kids)
    kids.clear()
    assert repr(spec) == "PyTreeSpec([{'a': *}, [*, *]])" and spec.num_leaves == 3
