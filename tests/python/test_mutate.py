# SPDX-License-Identifier: MIT
"""grove.mutate: determinism per seed, bounds, every mutation and node kind reachable, the
input untouched, results that grove (and optree, where it can) flattens and unflattens,
registered classes, the options, and the Atheris example (skipped without atheris)."""

import collections
import json
import math
import os
import struct
import subprocess
import sys
import time

import grove
import optree
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, '..', '..', 'examples', 'atheris_mutate.py')
NS = 'test-mutate'
P = collections.namedtuple('P', 'x y')


class Box:
    """A registered class (namespace NS) whose unflatten counts its calls."""
    made = 0

    def __init__(self, kids, meta):
        self.kids, self.meta = list(kids), meta

    def __repr__(self):
        return f'Box({self.kids!r}, {self.meta!r})'


def box_flatten(b):
    return b.kids, b.meta


def box_unflatten(meta, kids):
    Box.made += 1
    return Box(kids, meta)


for _mod in (grove, optree):
    _mod.register_pytree_node(Box, box_flatten, box_unflatten, namespace=NS)

RICH = {
    'ints': [0, 1, -7, 2**70], 'floats': (0.5, -0.0, math.inf), 'str': 'h\u00e9\U0001f600',
    'bytes': b'\x00ab', 'bools': [True, False], 'none': None, 1: 'one', 2.5: 'float key',
    'od': collections.OrderedDict([('z', 1), ('a', [2, 3])]),
    'dd': collections.defaultdict(list, {'k': (1,)}),
    'dq': collections.deque([1, [2]], maxlen=4), 'nt': P(1, {'q': 2}),
    'ss': time.struct_time((2026, 1, 2, 3, 4, 5, 6, 7, 0)),
    'box': Box([1, Box(['x'], 'inner')], 'meta'), 'obj': frozenset({1}),
}
DONOR = [Box([9.5, None], 'donor'), {'d': (b'x', 'y')}, collections.deque([3])]


def same(a, b, namespace=NS):
    """Equal trees: the same structure and leaves of the same type and value (floats by
    their bits, so NaN is NaN)."""
    la, sa = grove.tree_flatten(a, none_is_leaf=True, namespace=namespace)
    lb, sb = grove.tree_flatten(b, none_is_leaf=True, namespace=namespace)
    if sa != sb or len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if type(x) is not type(y):
            return False
        if type(x) is float:
            if struct.pack('<d', x) != struct.pack('<d', y):
                return False
        elif x is not y and x != y:
            return False
    return True


def depth(tree, namespace=NS, none_is_leaf=False):
    """The most containers on one path (a leaf or None alone: 0)."""
    spec = grove.tree_structure(tree, none_is_leaf=none_is_leaf, namespace=namespace)
    best = 0
    stack = [(spec, 0)]
    while stack:
        s, d = stack.pop()
        if s.kind in (grove.PyTreeKind.LEAF, grove.PyTreeKind.NONE):
            best = max(best, d)
            continue
        best = max(best, d + 1)
        stack.extend((c, d + 1) for c in s.children())
    return best


def objects(tree):
    """Every object of tree by identity: containers, Box instances and leaves."""
    out, stack = [], [tree]
    while stack:
        x = stack.pop()
        out.append(x)
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, collections.deque)):
            stack.extend(x)
        elif isinstance(x, Box):
            stack.extend(x.kids)
    return out


@pytest.fixture(autouse=True)
def _digits():
    """No int/str digit limit while here (mutated ints reach it), where Python has one."""
    if not hasattr(sys, 'set_int_max_str_digits'):
        yield
        return
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(old)


def test_names():
    assert 'mutate' in grove.__all__ and 'MUTATIONS' in grove.__all__
    assert len(set(grove.MUTATIONS)) == len(grove.MUTATIONS) == 20
    assert {'int', 'float', 'str', 'bytes', 'bool', 'none', 'leaf-kind', 'insert', 'delete',
            'duplicate', 'swap', 'move', 'container-kind', 'key-order', 'key-rename',
            'key-collide', 'deepen', 'flatten', 'cross-replace',
            'cross-insert'} == set(grove.MUTATIONS)


def test_deterministic_per_seed():
    for seed in range(400):
        a = grove.mutate(RICH, seed, DONOR, namespace=NS, return_kind=True)
        b = grove.mutate(RICH, seed, DONOR, namespace=NS, return_kind=True)
        assert a[1] == b[1] and same(a[0], b[0]), seed
    outs = [grove.mutate(RICH, s, namespace=NS) for s in range(50)]
    assert sum(not same(outs[0], o) for o in outs) >= 45  # seeds differ


def test_deterministic_across_processes():
    code = f'''
import sys, collections, hashlib, math
sys.path[:0] = {sys.path!r}
if hasattr(sys, 'set_int_max_str_digits'):
    sys.set_int_max_str_digits(0)
import grove
P = collections.namedtuple('P', 'x y')
t = {{'a': [1, 2.5, 'x', b'y', None, True], 'b': (P(1, [2]), collections.OrderedDict(z=1)),
      3: collections.deque([1], maxlen=5), 4.5: {{1: 2}}}}
h = hashlib.sha256()
for s in range(300):
    out, kind = grove.mutate(t, s, [7, {{'q': 'r'}}], return_kind=True)
    h.update(repr((kind, out)).encode('utf-8', 'surrogatepass'))
print(h.hexdigest())
'''
    outs = {subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(h)), check=True).stdout
            for h in (1, 2, 3)}
    assert len(outs) == 1, outs


def test_input_unchanged_and_never_shared():
    before = [(id(x), type(x)) for x in objects(RICH)]
    import copy
    twin = copy.deepcopy(RICH)
    mutable = {id(x) for x in objects(RICH)
               if isinstance(x, (list, dict, collections.deque, Box))}
    for seed in range(300):
        out = grove.mutate(RICH, seed, DONOR, namespace=NS)
        assert not mutable & {id(x) for x in objects(out)}, seed
    assert [(id(x), type(x)) for x in objects(RICH)] == before
    assert same(RICH, twin)


def test_every_mutation_reachable_alone_and_together():
    seen = collections.Counter()
    for seed in range(600):
        seen[grove.mutate(RICH, seed, DONOR, namespace=NS, return_kind=True)[1]] += 1
    assert set(seen) == set(grove.MUTATIONS), seen
    for kind in grove.MUTATIONS:
        got = {grove.mutate(RICH, s, DONOR, namespace=NS, kinds=[kind], return_kind=True)[1]
               for s in range(30)}
        assert got == {kind}, (kind, got)


def test_results_are_valid_trees_grove_and_optree_agree():
    t, unflattened = RICH, 0
    for seed in range(1500):
        t = grove.mutate(t, seed, DONOR, namespace=NS, max_nodes=60, max_depth=6)
        leaves, spec = grove.tree_flatten(t, namespace=NS)
        back = grove.tree_unflatten(spec, leaves)
        assert grove.tree_structure(back, namespace=NS) == spec
        assert all(a is b for a, b in zip(grove.tree_leaves(back, namespace=NS), leaves))
        try:  # differential: optree raises where keys do not sort? then grove must too
            oleaves, ospec = optree.tree_flatten(t, namespace=NS)
        except Exception as e:
            pytest.fail(f'optree fails on a mutant grove flattens ({seed}): {e!r}')
        assert len(oleaves) == len(leaves) and all(a is b for a, b in zip(oleaves, leaves)), seed
        assert ospec.paths() == spec.paths(), seed
        unflattened += 1
        if seed % 300 == 0:
            t = RICH  # start over now and then, so the trees stay varied
    assert unflattened == 1500


def test_every_node_kind_reachable_from_one_leaf():
    t = [1]
    types = collections.Counter()
    for seed in range(2500):
        t = grove.mutate(t, seed, DONOR + [RICH['ss']], namespace=NS, max_nodes=40,
                         max_depth=5)
        types.update(type(x).__name__ for x in objects(t))
        if seed % 500 == 499:
            t = [1]
    for name in ('int', 'float', 'str', 'bytes', 'bool', 'NoneType', 'list', 'tuple', 'dict',
                 'OrderedDict', 'defaultdict', 'deque', 'struct_time', 'Box', 'complex'):
        assert types[name], (name, types)
    assert any(n.startswith('Mutant') for n in types), types


@pytest.mark.parametrize('max_nodes,max_depth,max_leaf_size',
                         [(1, 0, 0), (2, 1, 1), (5, 2, 3), (12, 3, 8), (50, 8, 64)])
def test_bounds_always_held(max_nodes, max_depth, max_leaf_size):
    kw = dict(max_nodes=max_nodes, max_depth=max_depth, max_leaf_size=max_leaf_size,
              namespace=NS)
    t, count = [1], 0
    for seed in range(400):
        out, kind = grove.mutate(t, seed, DONOR, return_kind=True, **kw)
        spec = grove.tree_structure(out, namespace=NS)
        assert spec.num_nodes <= max_nodes and depth(out) <= max_depth, (seed, kind, out)
        for leaf in grove.tree_leaves(out, namespace=NS):
            if type(leaf) in (str, bytes) and len(leaf) > max_leaf_size:
                # only leaves the input already had may be longer (the donor's)
                assert any(leaf is x for x in objects(DONOR) + objects(t)), (seed, kind, leaf)
        t = out
        count += kind not in (None, 'shrink')
    assert count > 100


def test_over_the_bounds_is_cut_to_them():
    deep = []
    for _ in range(50_000):  # deeper than any recursion would go
        deep = [deep, 1]
    out, kind = grove.mutate(deep, 7, max_depth=10, return_kind=True)
    assert kind == 'shrink' and depth(out) == 10
    wide = list(range(5000))
    out, kind = grove.mutate(wide, 7, max_nodes=100, return_kind=True)
    assert kind == 'shrink' and out == list(range(99))
    cyclic = [1]
    cyclic.append(cyclic)
    out, kind = grove.mutate(cyclic, 3, max_depth=4, return_kind=True)
    assert kind == 'shrink' and depth(out) == 4
    chain = Box([], 0)
    for i in range(10_000):  # the flatten walk's limit of registered classes on one path
        chain = Box([chain], i)
    out, kind = grove.mutate(chain, 1, namespace=NS, return_kind=True)
    assert kind == 'shrink' and depth(out) == 32
    out, kind = grove.mutate(deep, 7, max_depth=100_000, max_nodes=200_000, return_kind=True)
    assert kind in grove.MUTATIONS and 0 <= depth(out) <= 100_000


def test_registered_classes_go_through_their_functions():
    tree = [Box([1, 2], 'm'), Box([Box(['x'], 'in')], 'out')]
    Box.made = 0
    kinds = set()
    for seed in range(200):
        out, kind = grove.mutate(tree, seed, namespace=NS, return_kind=True)
        kinds.add(kind)
        boxes = [x for x in objects(out) if isinstance(x, Box)]
        assert not {id(b) for b in boxes} & {id(b) for b in objects(tree)}
        for b in boxes:
            assert b.meta in ('m', 'in', 'out')
    assert Box.made > 200 and 'swap' in kinds and 'container-kind' in kinds
    # not registered in the namespace given: a Box is a leaf, kept or replaced whole
    for seed in range(100):
        out = grove.mutate(tree, seed)
        for x in objects(out):
            if isinstance(x, Box):
                assert any(x is b for b in objects(tree))


def test_none_is_leaf_and_is_leaf():
    got = {grove.mutate([None], s, kinds=['leaf-kind'], none_is_leaf=True,
                        return_kind=True)[1] for s in range(20)}
    assert got == {'leaf-kind'}
    assert grove.mutate([None], 1, kinds=['leaf-kind'], return_kind=True) == ([None], None)
    assert {grove.mutate([None], s, kinds=['none'], return_kind=True)[1]
            for s in range(5)} == {'none'}
    tree = [(1, 2), [3, (4,)]]
    for s in range(100):
        out = grove.mutate(tree, s, kinds=['int', 'swap', 'insert', 'delete'],
                           is_leaf=lambda x: type(x) is tuple)
        for x in objects(out):
            if type(x) is tuple:
                assert x in ((1, 2), (4,))


def test_json_option():
    doc = json.loads('{"a": [1, 2.5, "x", null, true], "b": {"c": {"d": []}}}')
    t = doc
    for seed in range(1500):
        t = grove.mutate(t, seed, json=True, max_nodes=40, max_depth=6)
        text = json.dumps(t, allow_nan=False)
        assert same(json.loads(text), t), (seed, t)
        if seed % 500 == 499:
            t = doc


def test_no_mutation_applies():
    assert grove.mutate(1, 5, kinds=['float'], return_kind=True) == (1, None)
    assert grove.mutate({'a': 1}, 5, kinds=['cross-insert'], return_kind=True) == ({'a': 1},
                                                                                    None)


def test_bad_arguments():
    for seed in ('1', 1.0, None, True):
        with pytest.raises(TypeError, match='seed'):
            grove.mutate([1], seed)
    for kw, exc in [({'max_nodes': 0}, ValueError), ({'max_nodes': '3'}, TypeError),
                    ({'max_depth': -1}, ValueError), ({'max_leaf_size': 2.0}, TypeError),
                    ({'kinds': ['nope']}, ValueError), ({'kinds': 'int'}, TypeError),
                    ({'kinds': []}, ValueError), ({'namespace': 3}, TypeError),
                    ({'is_leaf': 3}, TypeError)]:
        with pytest.raises(exc):
            grove.mutate([1], 0, **kw)
    assert grove.mutate([1], 0, namespace=grove.GLOBAL_NAMESPACE) is not None

    class Bad:
        pass

    grove.register_pytree_node(Bad, lambda b: 1 / 0, lambda m, c: Bad(), namespace=NS)
    try:
        with pytest.raises(ZeroDivisionError):  # a flatten function's own error
            grove.mutate([Bad()], 0, namespace=NS)
    finally:
        grove.unregister_pytree_node(Bad, namespace=NS)


@pytest.mark.skipif('asan' in os.environ.get('LD_PRELOAD', ''),
                    reason='libFuzzer inside an interpreter with the ASan runtime preloaded')
def test_atheris_example(tmp_path):
    pytest.importorskip('atheris')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.run([sys.executable, EXAMPLE, '-runs=400', '-seed=1', str(tmp_path)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    assert 'Done 400 runs' in p.stderr and 'Custom' in p.stderr, p.stderr[-3000:]
    assert os.listdir(tmp_path)  # a corpus of trees
