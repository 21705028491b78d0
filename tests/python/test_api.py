# SPDX-License-Identifier: MIT
"""The grove API on every container kind, with hand-checked expectations."""

import collections
import pickle
import time

import grove
import pytest

from trees import NS, Box, Color, Point, Pod, deep_eq, register_all

register_all()


def test_seed_example():
    leaves, spec = grove.tree_flatten({'b': 1, 'a': [2, 3]})
    assert leaves == [2, 3, 1]
    assert repr(spec) == "PyTreeSpec({'a': [*, *], 'b': *})"
    assert spec.num_leaves == 3 and spec.num_nodes == 5 and spec.num_children == 2
    assert spec.type is dict
    back = grove.tree_unflatten(spec, [20, 30, 10])
    assert back == {'b': 10, 'a': [20, 30]} and list(back) == ['b', 'a']  # insertion order kept


@pytest.mark.parametrize('tree,leaves,text', [
    ([], [], '[]'),
    ((), [], '()'),
    ({}, [], '{}'),
    ((1,), [1], '(*,)'),
    (collections.OrderedDict(), [], 'OrderedDict()'),
    (collections.OrderedDict([('b', 1), ('a', 2)]), [1, 2], "OrderedDict({'b': *, 'a': *})"),
    (collections.defaultdict(list, {'b': 1, 'a': 2}), [2, 1],
     "defaultdict(<class 'list'>, {'a': *, 'b': *})"),
    (collections.deque([1, 2], maxlen=5), [1, 2], 'deque([*, *], maxlen=5)'),
    (collections.deque(), [], 'deque()'),
    (collections.deque(maxlen=0), [], 'deque(maxlen=0)'),
    (Point(1, [2]), [1, 2], 'Point(x=*, y=[*])'),
    (None, [], 'None'),
    (5, [5], '*'),
    ([None, 1], [1], '[None, *]'),
])
def test_kinds(tree, leaves, text):
    got, spec = grove.tree_flatten(tree)
    assert got == leaves
    assert repr(spec) == f'PyTreeSpec({text})'
    assert deep_eq(grove.tree_unflatten(spec, got), tree)
    assert grove.tree_leaves(tree) == leaves
    assert grove.tree_structure(tree) == spec


def test_none_is_leaf_both_ways():
    tree = [None, {'a': None, 'b': 1}]
    assert grove.tree_leaves(tree) == [1]
    assert grove.tree_leaves(tree, none_is_leaf=True) == [None, None, 1]
    s1 = grove.tree_structure(tree)
    s2 = grove.tree_structure(tree, none_is_leaf=True)
    assert s1 != s2
    assert repr(s2) == "PyTreeSpec([*, {'a': *, 'b': *}], NoneIsLeaf)"
    assert grove.tree_map(lambda x: x is None, tree, none_is_leaf=True) == [True, {'a': True,
                                                                              'b': False}]
    assert grove.tree_map(lambda x: x + 1, tree) == [None, {'a': None, 'b': 2}]


def test_structseq():
    st = time.struct_time((2020, 1, 2, 3, 4, 5, 6, 7, 0))
    leaves, spec = grove.tree_flatten(st)
    assert leaves == list(st)
    assert spec.type is time.struct_time
    assert repr(spec).startswith('PyTreeSpec(time.struct_time(tm_year=*')
    back = grove.tree_unflatten(spec, leaves)
    assert type(back) is time.struct_time and back == st


def test_custom_nodes_metadata_and_namespaces():
    b = Box([1, [2, 3]], 'meta')
    # outside its namespace a Box is a leaf
    assert grove.tree_leaves(b) == [b]
    leaves, spec = grove.tree_flatten(b, namespace=NS)
    assert leaves == [1, 2, 3]
    assert repr(spec) == "PyTreeSpec(CustomTreeNode(Box['meta'], [*, [*, *]]), namespace='grove-test')"
    assert spec.namespace == NS
    assert grove.tree_unflatten(spec, [7, 8, 9]) == Box([7, [8, 9]], 'meta')
    assert grove.tree_paths(b, namespace=NS) == [('k0',), ('k1', 0), ('k1', 1)]
    # metadata compared with ==, unhashable metadata included
    assert grove.tree_structure(Box([1], [1, 2]), namespace=NS) == grove.tree_structure(
        Box([5], [1, 2]), namespace=NS)
    assert grove.tree_structure(Box([1], 'x'), namespace=NS) != grove.tree_structure(
        Box([1], 'y'), namespace=NS)
    # a globally registered class works in every namespace; the namespace is kept
    assert grove.tree_leaves(Pod(1, 2)) == [1, 2]
    assert grove.tree_structure(Pod(1, 2), namespace=NS).namespace == NS
    # a tree without registered classes drops the namespace (as optree)
    assert grove.tree_structure([1], namespace=NS).namespace == ''


def test_register_and_unregister():
    class Thing:
        def __init__(self, v):
            self.v = v

    with pytest.raises(ValueError):
        grove.register_pytree_node(Thing, lambda t: ([t.v], None), lambda m, c: Thing(c[0]),
                                   namespace='')
    with pytest.raises(TypeError):
        grove.register_pytree_node(Thing(1), None, None, namespace='x')
    grove.register_pytree_node(Thing, lambda t: ([t.v], None), lambda m, c: Thing(c[0]),
                               namespace='things')
    with pytest.raises(ValueError):
        grove.register_pytree_node(Thing, lambda t: ([t.v], None), lambda m, c: Thing(c[0]),
                                   namespace='things')
    assert grove.tree_leaves([Thing(4)], namespace='things') == [4]
    assert grove.tree_map(lambda x: x * 2, Thing(4), namespace='things').v == 8
    grove.unregister_pytree_node(Thing, namespace='things')
    t = Thing(4)
    assert grove.tree_leaves([t], namespace='things') == [t]
    with pytest.raises(ValueError):
        grove.unregister_pytree_node(Thing, namespace='things')
    with pytest.raises(ValueError):
        grove.register_pytree_node(list, None, None, namespace='x')


def test_register_pytree_node_class():
    @grove.register_pytree_node_class(namespace='cls-ns')
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def tree_flatten(self):
            return (self.a, self.b), 'pair', ('a', 'b')

        @classmethod
        def tree_unflatten(cls, meta, kids):
            return cls(*kids)

    paths, leaves, spec = grove.tree_flatten_with_path(Pair(1, [2]), namespace='cls-ns')
    assert paths == [('a',), ('b', 0)] and leaves == [1, 2]
    back = spec.unflatten([5, 6])
    assert type(back) is Pair and back.a == 5 and back.b == [6]


def test_is_leaf_predicate():
    tree = [1, [2, 3], {'a': (4, 5)}]
    assert grove.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple)) == [1, 2, 3, (4, 5)]
    assert grove.tree_map(lambda x: 0, tree, is_leaf=lambda x: type(x) is list and len(x) == 2) == [0, 0,
                                                                                   {'a': (0, 0)}]
    assert grove.tree_is_leaf([1], is_leaf=lambda x: True)
    assert not grove.tree_is_leaf([1])
    assert grove.all_leaves([1, 'a', None], none_is_leaf=True)
    assert not grove.all_leaves([1, [2]])


def test_dict_keys_of_every_hashable_type():
    # mixed builtins: by type name (NoneType < bytes < float < int < str < tuple)
    t = {'a': 1, 2: 2, None: 3, b'x': 4, 1.5: 5, (1,): 6}
    assert grove.tree_leaves(t) == [3, 4, 5, 2, 1, 6]
    # enums do not compare: insertion order
    assert grove.tree_leaves({Color.GREEN: 1, Color.RED: 2}) == [1, 2]
    # tuples whose elements do not compare: insertion order
    assert grove.tree_leaves({(1, 'a'): 1, ('b', 2): 2}) == [1, 2]
    assert grove.tree_leaves({('b', 2): 1, (1, 'a'): 2}) == [1, 2]
    # comparable tuples sort
    assert grove.tree_leaves({(2, 'a'): 1, (1, 'b'): 2}) == [2, 1]
    # big ints, NaN and surrogate strings are keys too
    nan = float('nan')
    t = {2**80: 1, 3: 2, nan: 3, '\udc80': 4}
    leaves, spec = grove.tree_flatten(t)
    assert sorted(leaves) == [1, 2, 3, 4]
    back = grove.tree_unflatten(spec, leaves)
    assert list(back) == list(t)
    assert grove.tree_leaves({2**80: 'big', 3: 'small'}) == ['small', 'big']


def test_paths_and_entries():
    tree = [{'foo': 42, 'bar': (1, 2)}, collections.deque([3]), Point(4, 5)]
    paths, leaves, spec = grove.tree_flatten_with_path(tree)
    assert paths == [(0, 'bar', 0), (0, 'bar', 1), (0, 'foo'), (1, 0), (2, 0), (2, 1)]
    assert leaves == [1, 2, 42, 3, 4, 5]
    assert spec.paths() == paths
    assert spec.child(0).entries() == ['bar', 'foo']
    assert grove.tree_map_with_path(lambda p, x: len(p), tree) == [
        {'foo': 2, 'bar': (3, 3)}, collections.deque([2]), Point(2, 2)]


def test_treespec_methods():
    spec = grove.tree_structure({'x': [1, 2], 'y': (3,)})
    kids = spec.children()
    assert [repr(k) for k in kids] == ['PyTreeSpec([*, *])', 'PyTreeSpec((*,))']
    assert spec.child(1) == kids[1] and spec.child(-1) == kids[1]
    with pytest.raises(IndexError):
        spec.child(2)
    assert spec.flatten_up_to({'y': ([0],), 'x': ['a', {'b': 1}]}) == ['a', {'b': 1}, [0]]
    with pytest.raises(ValueError, match='dictionary key mismatch'):
        spec.flatten_up_to({'x': [1, 2]})
    with pytest.raises(ValueError, match=r"at \('x',\): list arity mismatch"):
        spec.flatten_up_to({'x': [1], 'y': (2,)})
    assert spec.is_prefix(grove.tree_structure({'x': [[1], 2], 'y': ({'z': 3},)}))
    assert not spec.is_prefix(grove.tree_structure({'x': [1], 'y': (2,)}))
    assert spec.is_prefix(spec) and not spec.is_prefix(spec, strict=True)
    assert not spec.is_leaf() and grove.tree_structure(1).is_leaf()
    assert grove.tree_structure(None).is_leaf(strict=False)
    assert len(spec.fingerprint()) == 16
    assert spec.fingerprint() == grove.tree_structure({'y': (0,), 'x': [0, 0]}).fingerprint()
    assert len(spec) == 3


def test_equality_hash_and_generations():
    a = grove.tree_structure({'b': [1, 2], 'a': {'c': 3, 'd': 4}})
    b = grove.tree_structure({'a': {'d': 0, 'c': 0}, 'b': [0, 0]})  # other insertion orders
    assert a == b and hash(a) == hash(b)
    assert list(grove.tree_unflatten(b, [1, 2, 3, 4])) == ['a', 'b']
    od1 = grove.tree_structure(collections.OrderedDict([('a', 1), ('b', 2)]))
    od2 = grove.tree_structure(collections.OrderedDict([('b', 1), ('a', 2)]))
    assert od1 != od2
    # a new generation: equality and hash across generations by fingerprint
    old = grove.set_memory_limit(32 << 20)
    try:
        c = grove.tree_structure({'a': {'c': 3, 'd': 4}, 'b': [1, 2]})
        assert grove.memory_stats()['generations'] >= 2
        assert c == a and hash(c) == hash(a)
        assert c != grove.tree_structure({'a': {'c': 3}, 'b': [1, 2]})
        # a spec of the old generation still rebuilds
        assert grove.tree_unflatten(a, [1, 2, 3, 4]) == {'b': [3, 4], 'a': {'c': 1, 'd': 2}}
        assert grove.tree_transpose(grove.tree_structure([0, 0]), grove.tree_structure((0, 0)),
                                    [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    finally:
        grove.set_memory_limit(old)


def test_pickle_and_bytes_round_trip():
    tree = [Point(1, {'b': 2, 'a': collections.deque([3], maxlen=2)}),
            collections.defaultdict(int, {Color.RED: 1, 'x': 2}), Box([4], {'m': 1}),
            collections.OrderedDict([('z', None)])]
    spec = grove.tree_structure(tree, namespace=NS)
    for back in (pickle.loads(pickle.dumps(spec)), grove.TreeSpec.from_bytes(spec.to_bytes())):
        assert back == spec and hash(back) == hash(spec) and repr(back) == repr(spec)
        assert back.namespace == NS
        leaves = grove.tree_leaves(tree, namespace=NS)
        assert deep_eq(back.unflatten(leaves), tree)


def _dag_encoding(k):
    """to_bytes() of [[*, *], [*, *]]... k levels deep: each level one list of the level below twice."""
    spec = grove.tree_structure([1, 1])
    for _ in range(k - 1):
        spec = grove.tree_structure([spec.unflatten([0] * spec.num_leaves)] * 2)
    return spec.to_bytes()


def test_from_bytes_refuses_a_structure_too_large_written_out():
    small = grove.TreeSpec.from_bytes(_dag_encoding(10))
    assert small.num_leaves == 2 ** 10 and small == grove.tree_structure(small.unflatten(range(2 ** 10)))
    with pytest.raises(ValueError, match='max_size=1000'):
        grove.TreeSpec.from_bytes(_dag_encoding(10), max_size=1000)
    # the same shape, 63 levels: 2^63 leaves in a few hundred bytes
    magic, wire, objs, classes, nil, ns = pickle.loads(_dag_encoding(2))
    head, star, lst = wire[:4], wire[5:6], wire[6:10]
    assert head == b'GRV\x01' and wire[4] == 3 and wire[10:] == lst
    bomb = pickle.dumps((magic, head + bytes([64]) + star + lst * 63, objs, classes, nil, ns))
    with pytest.raises(ValueError, match='more than max_size=100000000'):
        grove.TreeSpec.from_bytes(bomb)
    assert grove.TreeSpec.from_bytes(bomb, max_size=None).num_leaves == 2 ** 63


def test_canonicalize():
    sorted_tree = [{'a': 1, 'b': {'c': 2, 'd': [3]}}, (4, {'e': 5})]
    out, changed = grove.canonicalize(sorted_tree)
    assert out is sorted_tree and changed is False
    untouched = {'x': 1}
    tree = [{'b': 1, 'a': 2}, untouched, (untouched, [3])]
    out, changed = grove.canonicalize(tree)
    assert changed is True
    assert list(out[0]) == ['a', 'b'] and out[0] == {'a': 2, 'b': 1}
    assert out[1] is untouched and out[2] is tree[2]  # unchanged subtrees reused
    od = collections.OrderedDict([('b', 1), ('a', 2)])
    out, changed = grove.canonicalize(od)
    assert out is od and not changed  # an OrderedDict keeps its order
    dd = collections.defaultdict(list, {'b': 1, 'a': 2})
    out, changed = grove.canonicalize(dd)
    assert changed and type(out) is collections.defaultdict and out.default_factory is list
    assert list(out) == ['a', 'b']


def test_flatten_one_level():
    children, meta, entries, unflatten = grove.tree_flatten_one_level({'b': 1, 'a': [2]})
    assert children == [[2], 1] and meta == ['a', 'b'] and tuple(entries) == ('a', 'b')
    assert unflatten(meta, children) == {'a': [2], 'b': 1}
    with pytest.raises(ValueError, match='Cannot flatten leaf-type'):
        grove.tree_flatten_one_level(1)


def test_reduce_all_any_broadcast():
    assert grove.tree_reduce(lambda a, b: a + b, [1, (2, {'x': 3})]) == 6
    assert grove.tree_reduce(lambda a, b: a + b, [], 10) == 10
    assert grove.tree_all([1, (True, {'x': 3})]) and not grove.tree_all([1, 0])
    assert grove.tree_any([0, (0, {'x': 3})]) and not grove.tree_any([])
    assert grove.tree_broadcast_prefix([1, 2], [[3, 4], {'a': 5}]) == [[1, 1], {'a': 2}]


def test_errors_name_the_path_and_keep_types():
    spec = grove.tree_structure([1, {'a': [2, 3]}])
    with pytest.raises(ValueError, match=r"^at \(1, 'a'\): list arity mismatch"):
        grove.tree_map(lambda x, y: x, [1, {'a': [2, 3]}], [1, {'a': [2]}])
    with pytest.raises(ValueError, match='Too few leaves'):
        spec.unflatten([1])
    with pytest.raises(ValueError, match='Too many leaves'):
        spec.unflatten([1, 2, 3, 4])
    with pytest.raises(TypeError):
        grove.tree_unflatten('not a spec', [])
    with pytest.raises(TypeError):
        grove.tree_flatten([1], namespace=3)
    with pytest.raises(TypeError):
        grove.tree_flatten([1], is_leaf=3)

    def boom(x):
        raise KeyError('from the user')

    with pytest.raises(KeyError, match='from the user'):
        grove.tree_map(boom, [1])
    with pytest.raises(KeyError, match='from the user'):
        grove.tree_leaves([1], is_leaf=boom)


def test_flatten_up_to_dicts_by_position_or_by_key():
    """flatten_up_to reads a dict by position when its keys are the structure's own key objects
    in the structure's order, else by lookup: the same subtrees either way, as optree's."""
    import collections
    import optree
    od = collections.OrderedDict([('b', 1), ('a', [2]), ('c', 3)])
    moved = collections.OrderedDict(od)
    moved.move_to_end('b')  # the OrderedDict's order, not its dict's, changes
    tree = {'y': od, 'x': {'q': 4, 'p': 5}}
    for mod in (grove, optree):
        spec = mod.tree_structure(tree)
        same = spec.flatten_up_to(tree)
        assert same == [5, 4, 1, 2, 3] and all(a is b for a, b in zip(same, mod.tree_leaves(tree)))
        rebuilt = spec.unflatten(range(spec.num_leaves))
        assert spec.flatten_up_to(rebuilt) == [0, 1, 2, 3, 4]
        reordered = {'x': {'p': 'P', 'q': 'Q'}, 'y': moved}
        assert spec.flatten_up_to(reordered) == ['P', 'Q', 1, 2, 3]
        copied = {''.join(['y']): collections.OrderedDict((''.join(k), v) for k, v in od.items()),
                  'x': {'q': 4, 'p': 5}}
        assert spec.flatten_up_to(copied) == same


def test_flatten_up_to_keys_equal_but_not_the_same_objects():
    """Keys built apart (str and int objects of their own, equal keys of other types, other
    orders, a non-ASCII key): the subtrees optree finds, leaves by identity."""
    import optree
    big = 10**30
    tree = {'k\u00e9y': [1, 2], big: 3, 'a': {7: 4, 'z': 5}}

    def variants():
        yield {''.join(['k\u00e9', 'y']): ['A', 'B'], 10**30: 'C', ''.join('a'): {7: 'D', 'z': 'E'}}
        yield {'a': {'z': 'E', 7: 'D'}, 10**30: 'C', 'k\u00e9y': ['A', 'B']}  # another order
        yield {'k\u00e9y': ['A', 'B'], float(big): 'C', 'a': {7.0: 'D', 'z': 'E'}}  # equal, not int
        yield {'k\u00e9y': ['A', 'B'], big + 1: 'C', 'a': {7: 'D', 'z': 'E'}}  # a key differs
        yield {'key': ['A', 'B'], big: 'C', 'a': {7: 'D', 'z': 'E'}}  # same length, other text

    for other in variants():
        results = []
        for mod in (grove, optree):
            try:
                results.append(('ok', mod.tree_structure(tree).flatten_up_to(other)))
            except ValueError:
                results.append(('ValueError', None))
        (kg, rg), (ko, ro) = results
        assert kg == ko, (other, results)
        if kg == 'ok':
            assert len(rg) == len(ro) and all(a is b for a, b in zip(rg, ro)), (rg, ro)


def test_flatten_up_to_chains_of_single_children():
    """A chain of one-child lists/tuples followed link by link: a link of another type, length or
    a leaf in the chain's place is found where optree finds it."""
    import optree

    def chain(n, at=None, link=lambda x: [x]):
        x = 'leaf'
        for d in range(n):
            x = link(x) if d != at else (x,)
        return x

    for mod in (grove, optree):
        spec = mod.tree_structure(chain(100))
        assert spec.flatten_up_to(chain(100)) == ['leaf']
        deeper = chain(101)
        assert spec.flatten_up_to(deeper) == [['leaf']]
        with pytest.raises(ValueError, match='Expected an instance of list'):
            spec.flatten_up_to(chain(100, at=40))
        with pytest.raises(ValueError, match='list arity mismatch'):
            spec.flatten_up_to([chain(99), 1])
        with pytest.raises(ValueError, match='Expected an instance of list'):
            spec.flatten_up_to(chain(60))
    tspec = grove.tree_structure(chain(50, link=lambda x: (x,)))
    assert tspec.flatten_up_to(chain(50, link=lambda x: (x,))) == ['leaf']
    mixed = 'leaf'
    for d in range(50):
        mixed = [mixed] if d == 39 else (mixed,)  # a list 10 links down
    with pytest.raises(ValueError, match=r'^at \(0, 0, 0, 0, 0, 0, 0, 0, 0, 0\): Expected an '
                                         'instance of tuple'):
        tspec.flatten_up_to(mixed)


def test_unflatten_chains_of_single_children():
    """Runs of one-child lists and tuples (made around their bottom's value in one step) come
    back as optree builds them: link types in order, subtrees and leaves at the bottom."""
    import optree

    def chain(links, bottom):
        x = bottom
        for link in reversed(links):
            x = [x] if link == 'l' else (x,)
        return x

    bottoms = [0, None, [], (), {'b': [1, (2,)], 'a': ([3],)}, [[4], [5]]]
    for links in ['l', 'll', 't' * 30, 'lt' * 5, 'l' * 40 + 't' * 3 + 'l', 'ttlll']:
        for bottom in bottoms:
            tree = [chain(links, bottom), chain(links[::-1], bottom)]
            for mod in (grove, optree):
                leaves, spec = mod.tree_flatten(tree)
                new = [object() for _ in leaves]
                got = spec.unflatten(new)
                assert mod.tree_structure(got) == spec
                assert all(a is b for a, b in zip(mod.tree_leaves(got), new))
                assert repr(got) == repr(optree.tree_unflatten(optree.tree_structure(tree), new))
            if leaves:
                with pytest.raises(ValueError, match='Too few leaves'):
                    grove.tree_structure(tree).unflatten(leaves[:-1])
            with pytest.raises(ValueError, match='Too many leaves'):
                grove.tree_structure(tree).unflatten(leaves + [1])


def test_structures_of_alternating_namedtuples_and_custom_nodes():
    """Namedtuple classes and custom nodes of one class with other metadata, alternating in one
    tree: each node keeps its own class and metadata (as in a structure made of it alone)."""
    import collections
    import optree
    A = collections.namedtuple('A', 'x y')
    B = collections.namedtuple('B', 'x y')  # the same fields, another class
    A2 = collections.namedtuple('A', 'x y')  # the same name, another class

    class Box:
        def __init__(self, tag, v):
            self.tag, self.v = tag, v

    ns = 'test_alternating'
    for mod in (grove, optree):
        mod.register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, c: Box(tag, c[0]),
                                 namespace=ns)
    parts = [A(1, 2), B(3, 4), A(5, 6), A2(7, 8), Box('p', 9), Box('q', 10), Box('p', 11)]
    for mod in (grove, optree):
        spec = mod.tree_structure(parts, namespace=ns)
        alone = [mod.tree_structure(p, namespace=ns) for p in parts]
        assert spec.children() == alone
        back = spec.unflatten(range(spec.num_leaves))
        assert [type(p) for p in back] == [type(p) for p in parts]
        assert [b.tag for b in back[4:]] == ['p', 'q', 'p']
    assert repr(grove.tree_structure(parts, namespace=ns)).count('Box') == 3


def test_structures_of_repeated_small_records():
    """Small dicts, OrderedDicts, defaultdicts (two factories) and namedtuples over the same keys
    and children, repeated and interleaved: each keeps its own kind, factory, key order and
    children (its structure equal to the one made of it alone, and to optree's verdicts)."""
    import collections
    import optree
    P = collections.namedtuple('P', 'a b')
    recs = []
    for i in range(40):
        kids = ([i], (i,), None, i)[i % 4]
        recs += [{'a': kids, 'b': 1}, {'b': 1, 'a': kids},
                 collections.OrderedDict([('a', kids), ('b', 1)]),
                 collections.OrderedDict([('b', 1), ('a', kids)]),
                 collections.defaultdict(list, a=kids, b=1),
                 collections.defaultdict(dict, a=kids, b=1), P(kids, 1)]
    for mod in (grove, optree):
        spec = mod.tree_structure(recs)
        alone = [mod.tree_structure(r) for r in recs]
        assert spec.children() == alone
        for i, a in enumerate(alone):
            for j in (i + 1, i + 7):
                if j < len(alone):
                    assert (a == alone[j]) == (optree.tree_structure(recs[i]) ==
                                                optree.tree_structure(recs[j])), (recs[i], recs[j])
        back = spec.unflatten(mod.tree_leaves(recs))
        assert [type(r) for r in back] == [type(r) for r in recs]
        assert [list(r.keys()) if isinstance(r, dict) else r._fields for r in back] == \
            [list(r.keys()) if isinstance(r, dict) else r._fields for r in recs]
        assert [r.default_factory for r in back if isinstance(r, collections.defaultdict)] == \
            [r.default_factory for r in recs if isinstance(r, collections.defaultdict)]


def test_structure_order_len_and_truth_as_optree():
    """<, <=, >, >= (prefix order), len() and bool() of structures, and their TypeError for a
    structure against another type, as optree's."""
    import collections
    import optree
    trees = [1, None, [1, 2], [[1], 2], [[1, [2]], (3,)], {'a': 1, 'b': [2]}, {'b': 1, 'a': 2},
             collections.OrderedDict(a=1, b=2), (), [()], [None, 1]]
    for mod in (grove, optree):
        specs = [mod.tree_structure(t) for t in trees]
        got = [(a < b, a <= b, a > b, a >= b, a == b, a != b) for a in specs for b in specs]
        got += [(len(a), bool(a)) for a in specs]
        if mod is grove:
            mine = got
        else:
            assert mine == got
        for op in ('<', '<=', '>', '>='):
            with pytest.raises(TypeError):
                eval(f'specs[0] {op} 1')
