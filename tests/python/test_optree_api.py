# SPDX-License-Identifier: MIT
"""optree's API beyond the core (issue 22), each against optree 0.20.0 itself, and the bugs
issue 22 found, each reproduced."""

import collections
import subprocess
import sys
import warnings

import optree
import pytest

import grove

TREES = [
    1, None, [], (), {'b': 2, 'a': 1}, [1, (2, None), {'y': [3], 'x': 4}],
    collections.OrderedDict(z=1, a=(2, 3)), collections.defaultdict(list, {'q': 1, 'p': [2]}),
    collections.deque([1, [2]], maxlen=3), {'k': collections.namedtuple('P', 'x y')(1, [2])},
]


def test_names_are_optrees():
    assert set(optree.__all__) <= set(grove.__all__)
    assert grove.NONE_IS_LEAF is optree.NONE_IS_LEAF and grove.NONE_IS_NODE is optree.NONE_IS_NODE
    assert {k: int(v) for k, v in grove.PyTreeKind.__members__.items()} == {
        k: int(v) for k, v in optree.PyTreeKind.__members__.items()}


@pytest.mark.parametrize('tree', TREES)
@pytest.mark.parametrize('ordered', [False, True])
def test_as_optree(tree, ordered):
    def run(m):
        with m.dict_insertion_ordered(ordered, namespace='ns'):
            leaves, spec = m.tree_flatten(tree, namespace='ns')
            accessors = m.tree_accessors(tree, namespace='ns')
            return (repr(spec), leaves, int(spec.kind), [a.codify() for a in accessors],
                    [a(tree) for a in accessors], [repr(a) for a in accessors],
                    repr(spec.one_level()), spec.is_one_level(),
                    repr(spec.transform(None, lambda s: m.treespec_tuple([s, s]))),
                    repr(m.treespec_from_collection([spec, m.treespec_leaf()])),
                    m.tree_map_(lambda x: None, tree) is tree,
                    repr(m.tree_flatten_one_level(tree)[:3]) if spec.num_children else None,
                    spec <= m.tree_structure([tree], namespace='ns').child(0),
                    m.tree_partition(lambda x: isinstance(x, int) and x > 1, tree))
    assert run(grove) == run(optree)


def test_dict_insertion_ordered_structures_compare_and_pickle():
    import pickle
    with grove.dict_insertion_ordered(True, namespace=grove.GLOBAL_NAMESPACE):
        shuffled = grove.tree_structure({'b': 1, 'a': 2})
        in_order = grove.tree_structure({'a': 1, 'b': 2})
        assert grove.tree_leaves({'b': 1, 'a': 2}) == [1, 2]
    assert shuffled != in_order and in_order == grove.tree_structure({'b': 1, 'a': 2})
    assert pickle.loads(pickle.dumps(shuffled)) == shuffled
    assert shuffled.unflatten([5, 6]) == {'b': 5, 'a': 6}


# ---- the bugs issue 22 found ----


def test_compose_across_namespaces_refuses_as_optree():
    class Pos:
        def __init__(self, x):
            self.x = x

    grove.register_pytree_node(Pos, lambda p: ((p.x, p.x), None), lambda m, c: Pos(c[0]),
                               namespace='n1')
    grove.register_pytree_node(Pos, lambda p: ((p.x,), None), lambda m, c: Pos(c[0]),
                               namespace='n2')
    outer = grove.tree_structure([Pos(1)], namespace='n1')
    with pytest.raises(ValueError, match='same namespace'):
        outer.compose(grove.tree_structure(Pos(1), namespace='n2'))


def test_flatten_one_level_rebuilds_dicts_in_their_order():
    children, metadata, _, unflatten = grove.tree_flatten_one_level({'b': 2, 'a': 1})
    assert list(unflatten(metadata, children)) == ['b', 'a']
    out = optree.tree_flatten_one_level({'b': 2, 'a': 1})
    assert list(out.unflatten_func(out.metadata, out.children)) == ['b', 'a']


def test_tree_iter_is_lazy():
    seen = []

    def is_leaf(x):
        seen.append(x)
        return False

    it = grove.tree_iter([1, [2]], is_leaf=is_leaf)
    assert seen == []
    assert next(it) == 1 and seen == [[1, [2]], 1]
    assert list(it) == [2]


def test_is_leaf_that_shrinks_the_list_raises_index_error():
    for m in (grove, optree):
        tree = [1, 2, 3, 4]

        def is_leaf(x, tree=tree):
            if x == 2:
                tree.clear()
            return False

        with pytest.raises(IndexError, match='list index out of range'):
            m.tree_leaves(tree, is_leaf=is_leaf)


def test_registering_a_namedtuple_subclass_warns():
    class Sub(collections.namedtuple('Base', 'x y')):
        pass

    with pytest.warns(UserWarning, match='subclass of `collections.namedtuple`'):
        grove.register_pytree_node(Sub, lambda s: (s, None), lambda m, c: Sub(*c),
                                   namespace='issue22')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        grove.tree_leaves(Sub(1, 2), namespace='issue22')


def test_install_as_optree():
    code = ('import grove, sys; m = grove.install_as_optree(); import optree, optree.accessors;'
            'assert optree is m and optree.tree_leaves is grove.tree_leaves;'
            'assert optree.accessors is grove.accessors; print(optree.__version__)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == optree.__version__


def test_str_subclass_namespace_is_its_value():
    """A namespace given as a str subclass means its plain value, as in optree (which reads it as a
    C++ string); grove copies it to an exact str, so the subclass's __hash__ and __eq__ never run."""
    class Ns(str):
        def __hash__(self):
            raise AssertionError('__hash__ of the namespace ran')

        def __eq__(self, other):
            raise AssertionError('__eq__ of the namespace ran')

    class Box:
        def __init__(self, v):
            self.v = v

    for m in (grove, optree):
        m.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(c[0]),
                               namespace='str-subclass-ns')
        tree = [Box(1), {'a': Box((2, 3))}]
        leaves, spec = m.tree_flatten(tree, namespace=Ns('str-subclass-ns'))
        assert leaves == [1, 2, 3] and spec.namespace == 'str-subclass-ns'
        assert type(spec.namespace) is str
        assert m.tree_leaves(tree, namespace=Ns('other')) == [tree[0], tree[1]['a']]


def test_structseq_fields_of_classes_that_make_no_instances():
    """sys.flags and sys.version_info cannot be instantiated; their fields are optree's."""
    import os
    import time
    for obj in (sys.version_info, sys.flags, sys.float_info, time.gmtime(), os.stat('.')):
        for o in (obj, type(obj)):
            assert grove.structseq_fields(o) == optree.structseq_fields(o), o
