# SPDX-License-Identifier: MIT
"""What a TreeSpec writes out in full -- repr(), paths() and the functions
built on paths -- is linear in its size and refused, with ValueError naming
the output limit, before anything is built when it is larger than the limit
(grove.set_output_limit). The deep reproducers run in a child interpreter
with a time limit (a guard against hangs, not a speed check: bench/ measures
speed) and, outside ASan, a memory limit."""

import os
import subprocess
import sys
import textwrap

import grove
import grove.keras as gk
import optree
import pytest
from trees import spec_repr

UNDER_ASAN = 'asan' in os.environ.get('LD_PRELOAD', '')
HERE = os.path.dirname(os.path.abspath(__file__))


def bounded(code, timeout=120, memory=2 << 30):
    """Run code in a fresh interpreter, within timeout seconds and (outside
    ASan, whose shadow memory needs address space) memory bytes of address
    space; its stdout."""
    pre = 'import resource\n'
    if not UNDER_ASAN:
        pre += f'resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))\n'
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(p for p in (HERE, env.get('PYTHONPATH')) if p)
    r = subprocess.run([sys.executable, '-c', pre + textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=timeout, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_h5_repr_is_linear_in_depth():
    # a dict chain 2*10^5 deep (it took 65 s when repr was quadratic)
    out = bounded('''
        import grove
        n = 200_000
        t = 0
        for _ in range(n):
            t = {'a': t}
        text = repr(grove.tree_structure(t))
        assert text == 'PyTreeSpec(' + "{'a': " * n + '*' + '}' * n + ')'
        print('ok')
    ''')
    assert out.split() == ['ok']


def test_h6_paths_of_deep_chains_are_refused_before_they_are_built():
    # [0, [1, [2, ...]]] 2*10^5 deep: 2*10^5 leaves whose paths are 1..n long
    # (2*10^10 entries, hundreds of GB), refused by every function that lists them
    out = bounded('''
        import grove, grove.keras as gk
        n = 200_000
        t = None
        for i in reversed(range(n)):
            t = [i, t]
        spec = grove.tree_structure(t, none_is_leaf=True)
        size = (2 * n + 1) + n * (n + 1) // 2 + n  # nodes written out + path entries
        calls = [lambda: spec.paths(),
                 lambda: grove.tree_paths(t, none_is_leaf=True),
                 lambda: grove.tree_flatten_with_path(t, none_is_leaf=True),
                 lambda: grove.tree_map_with_path(lambda p, x: x, t, none_is_leaf=True),
                 lambda: gk.flatten_with_path(t),
                 lambda: gk.assert_same_paths(t, t)]
        for call in calls:
            try:
                call()
            except ValueError as e:
                assert str(e) == (f'grove: paths() of this TreeSpec would be {size} nodes and '
                                  'path entries, more than the output limit of 100000000 '
                                  '(grove.set_output_limit)'), str(e)
            else:
                raise AssertionError('not refused')
        # one leaf a million levels down: a path of 10^6 entries is within the limit
        grove.set_memory_limit(1 << 30)
        u = 0
        for _ in range(1_000_000):
            u = [u]
        assert grove.tree_paths(u) == [(0,) * 1_000_000]
        print('ok')
    ''')
    assert out.split() == ['ok']


def test_output_limit_is_settable():
    spec = grove.tree_structure({'a': [1, 2], 'b': (3,)})
    text = "PyTreeSpec({'a': [*, *], 'b': (*,)})"
    # paths: 12 written out (gv_expanded_size: nodes, keys and their bytes) + 5 entries
    old = grove.set_output_limit(len(text))
    try:
        assert old == 100_000_000
        assert repr(spec) == text and spec.paths() == [('a', 0), ('a', 1), ('b', 0)]
        assert grove.set_output_limit(len(text) - 1) == len(text)
        with pytest.raises(ValueError, match=rf'repr\(\) of this TreeSpec would be {len(text)} '
                           rf'characters, more than the output limit of {len(text) - 1} '):
            repr(spec)
        grove.set_output_limit(16)
        with pytest.raises(ValueError, match=r'paths\(\) of this TreeSpec would be 17 nodes and '
                           r'path entries, more than the output limit of 16 '):
            spec.paths()
        grove.set_output_limit(17)
        assert spec.paths() == [('a', 0), ('a', 1), ('b', 0)]
        # 0: no limit
        grove.set_output_limit(0)
        assert repr(spec) == text
        with pytest.raises(ValueError, match='>= 0'):
            grove.set_output_limit(-1)
        with pytest.raises(ValueError, match='>= 0'):
            grove.set_output_limit(-2 ** 70)
        with pytest.raises(OverflowError):
            grove.set_output_limit(2 ** 64)
        assert grove.set_output_limit(2 ** 64 - 1) == 0
        with pytest.raises(TypeError):
            grove.set_output_limit('1')
        assert grove.set_output_limit(0) == 2 ** 64 - 1
    finally:
        grove.set_output_limit(old)


def test_repr_and_paths_equal_optree():
    import collections

    from trees import NS, Box, Point, register_all, struct_time
    register_all()
    trees = [
        1, None, [], (), {}, (1,), [None, (None,)], {'b': [1, (2, 3)], 'a': {}},
        collections.OrderedDict([('z', 1), ('a', None)]), collections.OrderedDict(),
        collections.defaultdict(list, {'y': 1, 'x': [2]}), collections.deque([1, [2]], maxlen=5),
        collections.deque(), collections.deque(maxlen=3), Point(1, [2]), struct_time([1, 2]),
        Box([1, (2,)], {'m': 'é'}), {'é': 1, 'ü\u2603': (2,)}, {(1, 'a'): 1, (0,): 2},
    ]
    for tree in trees:
        for kw in ({}, {'none_is_leaf': True}, {'namespace': NS}):
            gs, os_ = grove.tree_structure(tree, **kw), optree.tree_structure(tree, **kw)
            assert spec_repr(gs) == spec_repr(os_)
            assert gs.paths() == os_.paths()
            assert gs.num_nodes == os_.num_nodes


def test_keras_paths_within_the_limit():
    tree = {'b': [1, (2,)], 'a': 3}
    assert gk.flatten_with_path(tree) == [(('a',), 3), (('b', 0), 1), (('b', 1, 0), 2)]
    assert gk.assert_same_paths(tree, {'a': 0, 'b': [0, [0]]}) is None
