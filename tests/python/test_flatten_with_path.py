# SPDX-License-Identifier: MIT
"""tree_flatten_with_path (a C function: the flatten walk, then the structure's paths)
against optree 0.20.0's: generated trees with every node kind, is_leaf predicates (the
objects they are asked about, in order), none_is_leaf and namespaces; bad arguments and bad
trees raise what optree raises (the exception's type; grove's messages start with the path);
and grove's own bound, the output limit."""

import os

import grove
import optree
import pytest
from hypothesis import given, settings, strategies as st

from test_differential import TREES, same_objects
from trees import NS, Box, Pod, register_all, spec_repr

register_all()

EXAMPLES = {'ci': 1000, 'long': 20_000, 'quick': 300}.get(
    os.environ.get('GROVE_HYPOTHESIS_PROFILE', 'ci'), 1000)


def _preds():
    """is_leaf predicates, each deterministic on the node (so both libraries can be asked)."""
    return st.sampled_from([
        None,
        lambda x: type(x) is tuple,
        lambda x: isinstance(x, dict) and len(x) <= 1,
        lambda x: isinstance(x, (Box, Pod)),
        lambda x: x is None,
        lambda x: isinstance(x, list) and len(x) % 2 == 1,
    ])


def _recording(pred):
    """pred that also notes each object it is asked about; (the callable, the notes)."""
    seen = []

    def rec(x):
        seen.append(x)
        return pred(x) if pred is not None else False

    return rec, seen


def outcome(fn):
    try:
        return 'ok', fn()
    except Exception as e:  # noqa: BLE001 -- the type is what is compared
        return 'err', type(e)


@settings(max_examples=EXAMPLES)
@given(tree=TREES, pred=_preds(), none_is_leaf=st.booleans(), ns=st.sampled_from([NS, '']),
       positional=st.booleans())
def test_against_optree(tree, pred, none_is_leaf, ns, positional):
    kw = {'none_is_leaf': none_is_leaf, 'namespace': ns}
    gp_rec, g_seen = _recording(pred)
    op_rec, o_seen = _recording(pred)
    if positional:
        g = outcome(lambda: grove.tree_flatten_with_path(tree, gp_rec, **kw))
        o = outcome(lambda: optree.tree_flatten_with_path(tree, op_rec, **kw))
    else:
        g = outcome(lambda: grove.tree_flatten_with_path(tree, is_leaf=gp_rec, **kw))
        o = outcome(lambda: optree.tree_flatten_with_path(tree, is_leaf=op_rec, **kw))
    assert g[0] == o[0], (g, o)
    if g[0] == 'err':
        assert g[1] is o[1]
        return
    assert same_objects(g_seen, o_seen)  # is_leaf asked about the same objects, in order
    (gp, gl, gs), (op, ol, os_) = g[1], o[1]
    assert type(g[1]) is tuple and type(gp) is list and type(gl) is list
    assert gp == op and all(type(p) is tuple for p in gp)
    assert [[type(e) for e in p] for p in gp] == [[type(e) for e in p] for p in op]
    assert same_objects(gl, ol)
    assert spec_repr(gs) == spec_repr(os_) and gs.namespace == os_.namespace
    assert gs.none_is_leaf == os_.none_is_leaf
    # the same as grove's other functions give
    leaves, spec = grove.tree_flatten(tree, pred, **kw)
    assert gs == spec and same_objects(gl, leaves) and gp == spec.paths()
    assert gp == grove.tree_paths(tree, pred, **kw)


def test_examples():
    paths, leaves, spec = grove.tree_flatten_with_path({'b': (2, [3]), 'a': 1, 'c': None})
    assert paths == [('a',), ('b', 0), ('b', 1, 0)] and leaves == [1, 2, 3]
    assert spec == grove.tree_structure({'a': 0, 'b': (0, [0]), 'c': None})
    assert grove.tree_flatten_with_path(5) == ([()], [5], grove.tree_structure(5))
    assert grove.tree_flatten_with_path([]) == ([], [], grove.tree_structure([]))
    assert grove.tree_flatten_with_path(None)[:2] == ([], [])
    assert grove.tree_flatten_with_path(None, none_is_leaf=True)[:2] == ([()], [None])
    assert grove.tree_flatten_with_path([None, 1], None, none_is_leaf=True)[:2] == (
        [(0,), (1,)], [None, 1])
    assert grove.tree_flatten_with_path(tree=[1])[:2] == ([(0,)], [1])  # (tree by keyword)
    # a registered class's entries, in its namespace only
    box = Box([1, 2], 'm')
    assert grove.tree_flatten_with_path(box, namespace=NS)[0] == \
        optree.tree_flatten_with_path(box, namespace=NS)[0]
    assert grove.tree_flatten_with_path(box)[0] == [()]


class _Boom(Exception):
    pass


def _raise(x):
    raise _Boom


@pytest.mark.parametrize('call', [
    lambda m: m.tree_flatten_with_path(),
    lambda m: m.tree_flatten_with_path([1], None, False),
    lambda m: m.tree_flatten_with_path([1], bogus=1),
    lambda m: m.tree_flatten_with_path([1], is_leaf=5),
    lambda m: m.tree_flatten_with_path([1], namespace=1),
    lambda m: m.tree_flatten_with_path([1], _raise),
    lambda m: m.tree_flatten_with_path([1, (2,)], lambda x: _raise(x) if x == 2 else False),
], ids=['no tree', 'too many positional', 'unknown keyword', 'is_leaf not callable',
        'namespace not str', 'is_leaf raises', 'is_leaf raises below'])
def test_bad_arguments_raise_as_optree(call):
    g, o = outcome(lambda: call(grove)), outcome(lambda: call(optree))
    assert g[0] == o[0] == 'err' and g[1] is o[1], (g, o)


def test_bad_trees_raise_as_optree():
    cyc = [1]
    cyc.append(cyc)
    d = {'a': 1}
    d['b'] = [d]
    for tree in (cyc, d):
        g = outcome(lambda: grove.tree_flatten_with_path(tree))
        o = outcome(lambda: optree.tree_flatten_with_path(tree))
        assert g == o == ('err', RecursionError)

    class Bad:
        pass

    def bad_flatten(x):
        return 5

    for m in (grove, optree):
        m.register_pytree_node(Bad, bad_flatten, lambda meta, kids: Bad(), namespace='wpath')
    try:
        g = outcome(lambda: grove.tree_flatten_with_path([Bad()], namespace='wpath'))
        o = outcome(lambda: optree.tree_flatten_with_path([Bad()], namespace='wpath'))
        assert g[0] == o[0] == 'err' and g[1] is o[1], (g, o)
    finally:
        for m in (grove, optree):
            m.unregister_pytree_node(Bad, namespace='wpath')


def test_output_limit():
    """The paths are bounded as TreeSpec.paths() is: ValueError over the limit, nothing made."""
    tree = [[i, i] for i in range(50)]
    old = grove.set_output_limit(100)
    try:
        with pytest.raises(ValueError, match='output limit'):
            grove.tree_flatten_with_path(tree)
        assert grove.tree_flatten_with_path([1, 2])[0] == [(0,), (1,)]
    finally:
        grove.set_output_limit(old)
    assert len(grove.tree_flatten_with_path(tree)[0]) == 100


def test_results_are_fresh_and_collected():
    """Each call makes new lists; the lists are tracked by the collector (they can hold a
    cycle), the path tuples of atomic entries are not (as CPython untracks them)."""
    import gc
    a = grove.tree_flatten_with_path({'k': [1, 2]})
    b = grove.tree_flatten_with_path({'k': [1, 2]})
    assert a[0] == b[0] and a[0] is not b[0] and a[1] is not b[1]
    assert gc.is_tracked(a[0]) and gc.is_tracked(a[1])
    assert gc.is_tracked(grove.tree_flatten_with_path([])[0])
    assert not gc.is_tracked(a[0][0])
    assert gc.is_tracked(grove.tree_flatten_with_path({(1, 2): 1})[0][0])  # (a tuple entry)


def test_paths_of_a_structure_met_again():
    """paths() keeps the path tuples of small structures met last: each call still gives a
    new list, the limit still holds, and structures of other generations get their own."""
    tree = {'a': [1, 2], 'b': (3,), 'c': Box([4], 'm')}
    want = optree.tree_flatten_with_path(tree, namespace=NS)[0]
    p1 = grove.tree_flatten_with_path(tree, namespace=NS)[0]
    p1.append('junk')
    p1[0] = None
    p2 = grove.tree_flatten_with_path(tree, namespace=NS)[0]
    assert p2 == want and p2 is not p1
    spec = grove.tree_structure(tree, namespace=NS)
    assert spec.paths() == want and spec.paths() is not spec.paths()
    old = grove.set_output_limit(3)
    try:
        with pytest.raises(ValueError, match='output limit'):
            grove.tree_flatten_with_path(tree, namespace=NS)
        with pytest.raises(ValueError, match='output limit'):
            spec.paths()
    finally:
        grove.set_output_limit(old)
    # more structures than are kept, each met twice, across a new generation
    trees = [{f'k{i}': [i, {'x': i, f'y{i % 3}': (i,)}]} for i in range(100)]
    old = grove.set_memory_limit(32 << 20)
    try:
        for _ in range(2):
            for t in trees:
                assert grove.tree_flatten_with_path(t)[0] == optree.tree_flatten_with_path(t)[0]
        assert grove.memory_stats()['generations'] >= 1
        assert spec.paths() == want  # (a structure of the generation before)
    finally:
        grove.set_memory_limit(old)
    for t in trees:
        assert grove.tree_paths(t) == optree.tree_paths(t)
