# SPDX-License-Identifier: MIT
"""Differential tests: grove against optree 0.20.0 on generated pytrees.

Every generated tree (10,000 per test under the default "ci" profile) is run
through every function of the API in both libraries: leaves (by identity),
leaf order, TreeSpec repr, counts, types, paths, rebuilds, maps, prefix
checks, equality classes (== and hash), exception types. Deliberate
differences are stated where they apply: the TreeSpec class name in repr
(grove's spec_repr drops it), error messages (grove's start with the path),
and grove's lack of a recursion limit (trees here stay shallow)."""

import collections
import functools
import pickle

import grove
import optree
import pytest
from hypothesis import given, strategies as st

from trees import NS, Box, Color, Point, Pod, Triple, deep_eq, register_all, spec_repr, struct_time

register_all()

LEAVES = st.one_of(
    st.integers(-3, 1000),
    st.none(),
    st.text(max_size=3),
    st.sampled_from([1.5, -0.0, b'x', 2**70, 'long text leaf']),
)
# no bools and no integral floats among keys: 1, 1.0 and True are one key to
# Python, and optree compares such keys with == while grove interns them apart
KEYS = st.one_of(
    st.text(max_size=2),
    st.integers(-3, 3),
    st.sampled_from([None, b'k', b'', 2.5, -1.5, Color.RED, Color.GREEN, (1, 'a'), ('b', 2), (1, 2),
                     (0,), 2**70]),
)
METAS = st.sampled_from(['m', 'n', 0, (1, 2), None, [1], frozenset({3})])


def _extend(kids):
    small = st.lists(kids, max_size=4)
    return st.one_of(
        small,
        small.map(tuple),
        st.dictionaries(KEYS, kids, max_size=4),
        st.dictionaries(KEYS, kids, max_size=3).map(collections.OrderedDict),
        st.tuples(st.sampled_from([list, int, None]), st.dictionaries(KEYS, kids, max_size=3)).map(
            lambda p: collections.defaultdict(p[0], p[1])),
        st.tuples(small, st.sampled_from([None, 0, 2, 9])).map(
            lambda p: collections.deque(p[0], maxlen=None if p[1] is None else len(p[0]) + p[1])),
        st.tuples(kids, kids).map(lambda p: Point(*p)),
        st.tuples(kids, kids, kids).map(lambda p: Triple(*p)),
        st.lists(kids, min_size=9, max_size=9).map(struct_time),
        st.tuples(small, METAS).map(lambda p: Box(p[0], p[1])),
        st.tuples(kids, kids).map(lambda p: Pod(*p)),
    )


TREES = st.recursive(LEAVES, _extend, max_leaves=14)


def outcome(fn):
    try:
        return 'ok', fn()
    except Exception as e:  # noqa: BLE001 -- the type is what is compared
        return 'err', type(e)


def reversed_dicts(t):
    """t with every dict and defaultdict's insertion order reversed (same structure for ==)."""
    if type(t) is dict:
        return {k: reversed_dicts(v) for k, v in reversed(list(t.items()))}
    if type(t) is collections.defaultdict:
        return collections.defaultdict(t.default_factory,
                                       {k: reversed_dicts(v) for k, v in reversed(list(t.items()))})
    if type(t) is collections.OrderedDict:
        return collections.OrderedDict((k, reversed_dicts(v)) for k, v in t.items())
    if type(t) in (list, tuple):
        return type(t)(reversed_dicts(x) for x in t)
    if type(t) is collections.deque:
        return collections.deque((reversed_dicts(x) for x in t), maxlen=t.maxlen)
    if type(t) in (Point, Triple):
        return type(t)(*(reversed_dicts(x) for x in t))
    if type(t) is Box:
        return Box([reversed_dicts(x) for x in t.kids], t.meta)
    if type(t) is Pod:
        return Pod(reversed_dicts(t.a), reversed_dicts(t.b))
    return t


def same_objects(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def ref_key_order(keys):
    """optree's key order, written independently of grove's helper."""
    try:
        return sorted(keys)
    except TypeError:
        pass
    try:
        return sorted(keys, key=lambda k: (type(k).__module__ + '.' + type(k).__qualname__, k))
    except TypeError:
        return list(keys)


def ref_canonicalize(t):
    """(tree, changed) by the definition: dicts and defaultdicts in sorted-key
    insertion order, every other object reused when nothing under it changes."""
    if type(t) in (dict, collections.defaultdict, collections.OrderedDict):
        keys = list(t.keys())
        new_keys = keys if type(t) is collections.OrderedDict else ref_key_order(keys)
        vals = [ref_canonicalize(t[k]) for k in new_keys]
        changed = new_keys != keys or any(c for _, c in vals)
        if not changed:
            return t, False
        items = [(k, v) for k, (v, _) in zip(new_keys, vals)]
        if type(t) is dict:
            return dict(items), True
        if type(t) is collections.defaultdict:
            return collections.defaultdict(t.default_factory, items), True
        return collections.OrderedDict(items), True
    if type(t) in (list, tuple, collections.deque, Point, Triple) or type(t).__name__ == 'struct_time':
        vals = [ref_canonicalize(x) for x in t]
        if not any(c for _, c in vals):
            return t, False
        new = [v for v, _ in vals]
        if type(t) is list:
            return new, True
        if type(t) is tuple:
            return tuple(new), True
        if type(t) is collections.deque:
            return collections.deque(new, maxlen=t.maxlen), True
        if type(t) in (Point, Triple):
            return type(t)(*new), True
        return type(t)(new), True
    return t, False


def check_flatten_family(tree, kw):
    gl, gs = grove.tree_flatten(tree, **kw)
    ol, os_ = optree.tree_flatten(tree, **kw)
    assert same_objects(gl, ol), (gl, ol)
    assert same_objects(grove.tree_leaves(tree, **kw), ol)
    assert spec_repr(gs) == spec_repr(os_)
    assert spec_repr(grove.tree_structure(tree, **kw)) == spec_repr(os_)
    assert gs.num_leaves == os_.num_leaves
    assert gs.num_nodes == os_.num_nodes
    assert gs.num_children == os_.num_children
    assert gs.type is os_.type
    assert gs.is_leaf() == os_.is_leaf()
    assert gs.is_leaf(strict=False) == os_.is_leaf(strict=False)
    assert [spec_repr(c) for c in gs.children()] == [spec_repr(c) for c in os_.children()]
    assert gs.none_is_leaf == os_.none_is_leaf and gs.namespace == os_.namespace
    assert gs.paths() == os_.paths()
    assert gs.entries() == os_.entries()
    # rebuild: exact types, factories, maxlens, dict insertion order
    rebuilt = grove.tree_unflatten(gs, gl)
    assert deep_eq(rebuilt, optree.tree_unflatten(os_, ol))
    assert deep_eq(rebuilt, tree)
    assert deep_eq(gs.unflatten(gl), rebuilt)
    # paths
    gp, gl2, gs2 = grove.tree_flatten_with_path(tree, **kw)
    op, ol2, _ = optree.tree_flatten_with_path(tree, **kw)
    assert gp == op and same_objects(gl2, ol2) and gs2 == gs
    assert grove.tree_paths(tree, **kw) == optree.tree_paths(tree, **kw)
    return gl, gs, ol, os_


@given(tree=TREES, none_is_leaf=st.booleans(), ns=st.sampled_from([NS, NS, '']))
def test_flatten_unflatten_paths(tree, none_is_leaf, ns):
    kw = {'none_is_leaf': none_is_leaf, 'namespace': ns}
    gl, gs, ol, os_ = check_flatten_family(tree, kw)
    # pickling and wire round trips keep the equality class and the repr
    back = pickle.loads(pickle.dumps(gs))
    assert back == gs and hash(back) == hash(gs) and repr(back) == repr(gs)
    assert grove.TreeSpec.from_bytes(gs.to_bytes()) == gs
    # one level
    go = outcome(lambda: grove.tree_flatten_one_level(tree, **kw))
    oo = outcome(lambda: optree.tree_flatten_one_level(tree, **kw))
    assert go[0] == oo[0]
    if go[0] == 'ok':
        gc, gm, ge, _ = go[1]
        oc, om, oe, _ = oo[1]
        assert same_objects(gc, oc) and gm == om and tuple(ge) == tuple(oe)
    else:
        assert go[1] is oo[1]
    # leaf predicates
    assert grove.tree_is_leaf(tree, **kw) == optree.tree_is_leaf(tree, **kw)
    kids = list(tree) if type(tree) in (list, tuple) else [tree]
    assert grove.all_leaves(kids, **kw) == optree.all_leaves(kids, **kw)


@given(tree=TREES, none_is_leaf=st.booleans(), ns=st.sampled_from([NS, '']))
def test_map_reduce_and_friends(tree, none_is_leaf, ns):
    kw = {'none_is_leaf': none_is_leaf, 'namespace': ns}

    def f(x):
        return ('mapped', x)

    assert deep_eq(grove.tree_map(f, tree, **kw), optree.tree_map(f, tree, **kw))
    doubled = optree.tree_map(lambda x: [x, x], tree, **kw)

    def g(x, y):
        return (x, len(y))

    assert deep_eq(grove.tree_map(g, tree, doubled, **kw), optree.tree_map(g, tree, doubled, **kw))

    def h(p, x):
        return (p, x)

    assert deep_eq(grove.tree_map_with_path(h, tree, **kw),
                   optree.tree_map_with_path(h, tree, **kw))
    gl = grove.tree_leaves(tree, **kw)
    if gl:
        red = functools.partial(lambda a, b: (a, b))
        assert grove.tree_reduce(red, tree, **kw) == optree.tree_reduce(red, tree, **kw)
    assert grove.tree_reduce(lambda a, b: a + 1, tree, 0, **kw) == optree.tree_reduce(
        lambda a, b: a + 1, tree, 0, **kw)
    assert grove.tree_all(tree, **kw) == optree.tree_all(tree, **kw)
    assert grove.tree_any(tree, **kw) == optree.tree_any(tree, **kw)
    # broadcast and transpose
    rg = outcome(lambda: grove.tree_broadcast_prefix(tree, doubled, **kw))
    ro = outcome(lambda: optree.tree_broadcast_prefix(tree, doubled, **kw))
    assert rg[0] == ro[0] and (deep_eq(rg[1], ro[1]) if rg[0] == 'ok' else rg[1] is ro[1])
    outer_g = grove.tree_structure(tree, **kw)
    outer_o = optree.tree_structure(tree, **kw)
    inner_g = grove.tree_structure([0, 0], none_is_leaf=none_is_leaf, namespace=ns)
    inner_o = optree.tree_structure([0, 0], none_is_leaf=none_is_leaf, namespace=ns)
    rg = outcome(lambda: grove.tree_transpose(outer_g, inner_g, doubled))
    ro = outcome(lambda: optree.tree_transpose(outer_o, inner_o, doubled))
    assert rg[0] == ro[0] and (deep_eq(rg[1], ro[1]) if rg[0] == 'ok' else rg[1] is ro[1])
    # canonicalize against its definition
    ct, changed = grove.canonicalize(tree)
    rt, rchanged = ref_canonicalize(tree)
    assert changed == rchanged and deep_eq(ct, rt)
    if not changed:
        assert ct is tree
    assert same_objects(grove.tree_leaves(ct, none_is_leaf=True),
                        grove.tree_leaves(tree, none_is_leaf=True)) or changed


@given(data=st.data(), none_is_leaf=st.booleans(), ns=st.sampled_from([NS, '']))
def test_equality_classes_and_up_to(data, none_is_leaf, ns):
    kw = {'none_is_leaf': none_is_leaf, 'namespace': ns}
    tree = data.draw(TREES)
    kind = data.draw(st.sampled_from(['fresh', 'mapped', 'reversed', 'leafy']))
    if kind == 'fresh':
        other = data.draw(TREES)
    elif kind == 'mapped':
        other = optree.tree_map(lambda x: 0, tree, **kw)
    elif kind == 'reversed':
        other = reversed_dicts(tree)
    else:
        other = optree.tree_map(lambda x: [x], tree, **kw)
    gs, os_ = grove.tree_structure(tree, **kw), optree.tree_structure(tree, **kw)
    other_ns = data.draw(st.sampled_from([ns, '']))
    okw = {'none_is_leaf': data.draw(st.sampled_from([none_is_leaf, not none_is_leaf])),
           'namespace': other_ns}
    gt, ot = grove.tree_structure(other, **okw), optree.tree_structure(other, **okw)
    assert (gs == gt) == (os_ == ot)
    assert (gs != gt) == (os_ != ot)
    if gs == gt:
        assert hash(gs) == hash(gt)
    # prefix relations
    assert gs.is_prefix(gt) == os_.is_prefix(ot), (gs, gt)
    assert gs.is_prefix(gt, strict=True) == os_.is_prefix(ot, strict=True)
    # flatten_up_to and the several-tree map: same result or same exception type
    rg = outcome(lambda: gs.flatten_up_to(other))
    ro = outcome(lambda: os_.flatten_up_to(other))
    assert rg[0] == ro[0], (rg, ro)
    if rg[0] == 'ok':
        assert same_objects(rg[1], ro[1])
    else:
        assert rg[1] is ro[1]
    mg = outcome(lambda: grove.tree_map(lambda *xs: len(xs), tree, other, **kw))
    mo = outcome(lambda: optree.tree_map(lambda *xs: len(xs), tree, other, **kw))
    assert mg[0] == mo[0] and (deep_eq(mg[1], mo[1]) if mg[0] == 'ok' else mg[1] is mo[1])


def test_profile_reaches_ten_thousand():
    from hypothesis import settings
    assert settings().max_examples >= 10_000 or pytest.skip('a shorter profile was chosen')


def test_deliberate_differences():
    """Where grove differs from optree on purpose, and how."""
    # no recursion limit: optree refuses deep trees, grove flattens them
    deep = 0
    for _ in range(optree.MAX_RECURSION_DEPTH + 100):
        deep = [deep]
    with pytest.raises(RecursionError):
        optree.tree_leaves(deep)
    assert grove.tree_leaves(deep) == [0]
    # the same exception type, but grove's message starts with the path
    a, b = [1, {'x': [1, 2]}], [1, {'x': [1]}]
    with pytest.raises(ValueError) as og:
        optree.tree_map(lambda *xs: 0, a, b)
    with pytest.raises(ValueError) as gg:
        grove.tree_map(lambda *xs: 0, a, b)
    assert not str(og.value).startswith('at ')
    assert str(gg.value).startswith("at (1, 'x'): list arity mismatch")
    # the class name in repr
    assert repr(optree.tree_structure(a)).startswith('PyTreeSpec(')
    assert repr(grove.tree_structure(a)).startswith('PyTreeSpec(')
    assert spec_repr(optree.tree_structure(a)) == spec_repr(grove.tree_structure(a))
    # keys 1 and 1.0 in different dicts: equal to optree (== on keys), different to grove
    assert optree.tree_structure({1: 0}) == optree.tree_structure({1.0: 0})
    assert grove.tree_structure({1: 0}) != grove.tree_structure({1.0: 0})
