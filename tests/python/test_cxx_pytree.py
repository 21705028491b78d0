# SPDX-License-Identifier: MIT
"""torch.utils._cxx_pytree (built on optree) on grove, through grove.install_as_optree(),
against the same calls on the real optree: the same script in two fresh interpreters, one
with grove installed as optree first, must print the same."""

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip('torch')

SCRIPT = textwrap.dedent('''
    import collections, sys, time, warnings
    import torch
    import torch.utils._cxx_pytree as cx
    import optree
    print('optree is grove:', getattr(optree, '__grove__', False), file=sys.stderr)

    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y
        def __repr__(self):
            return f'Point({self.x!r}, {self.y!r})'
        def __eq__(self, other):
            return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    cx.register_pytree_node(Point, lambda p: ((p.x, p.y), None),
                            lambda c, _: Point(*c), serialized_type_name='test.Point')
    NT = collections.namedtuple('NT', 'a b')
    trees = [
        1, None, [], (), {}, [1, 2, 3], (1, [2, None]), {'b': 1, 'a': 2, 'c': [3, 4]},
        collections.OrderedDict(z=1, y=(2, 3)), collections.defaultdict(list, {'q': [1], 'p': 2}),
        collections.deque([1, [2]], maxlen=4), NT(1, {'k': 2}), time.gmtime(0)[:3],
        torch.return_types.max((torch.tensor(1.0), torch.tensor(0))),
        {'p': Point(1, [2, 3]), 'n': None, 't': torch.arange(3)},
        [Point(Point(1, 2), None), {'x': (None, {'y': [None]})}],
    ]
    for tree in trees:
        leaves, spec = cx.tree_flatten(tree)
        print(repr(leaves), spec, spec.num_leaves, spec.num_nodes)
        print(cx.treespec_pprint(spec))
        print(cx.tree_unflatten(leaves, spec) == tree or repr(cx.tree_unflatten(leaves, spec)))
        print(cx.tree_leaves(tree) == leaves, list(cx.tree_iter(tree)) == leaves)
        print(cx.tree_structure(tree) == spec, cx.tree_is_leaf(tree))
        print(cx.tree_map(lambda x: ('mapped', x) if isinstance(x, int) else x, tree))
        print(cx.tree_map_only(int, lambda x: x + 1, tree))
        seen = []
        cx.tree_map_(seen.append, tree)
        print(len(seen), cx.tree_all(bool, tree), cx.tree_any(bool, tree))
        print(isinstance(spec, cx.TreeSpec), spec.is_leaf())
        try:
            print(cx.treespec_dumps(spec))
        except Exception as e:  # (the same refusal on both)
            print(type(e).__name__, e)
    print(cx.treespec_leaf(), cx.treespec_tuple([cx.treespec_leaf()] * 2),
          cx.treespec_dict({'b': cx.treespec_leaf(), 'a': cx.treespec_tuple()}))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        print(isinstance(cx.treespec_leaf(), cx.LeafSpec), isinstance(spec, cx.LeafSpec))
    print(cx.tree_flatten({'b': {'y': 1, 'x': 2}, 'a': 3})[0])
''')


def run(install, script=SCRIPT):
    prefix = 'import grove; grove.install_as_optree()\n' if install else ''
    env = dict(os.environ)
    p = subprocess.run([sys.executable, '-c', prefix + script], capture_output=True, text=True,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert f'optree is grove: {install}' in p.stderr
    return p.stdout


def test_cxx_pytree_on_grove_prints_what_it_prints_on_optree():
    on_optree = run(install=False)
    on_grove = run(install=True)
    assert on_grove.splitlines() == on_optree.splitlines()
    assert len(on_grove.splitlines()) > 150


# torch._dynamo (imported by torch.compile and by torch's own TestCase) imports optree._C and
# substitutes optree._C.flatten / flatten_with_path / is_dict_insertion_ordered and the
# `__python_implementation__` of optree's is_namedtuple family: with grove installed as optree,
# `import torch._dynamo` failed ("No module named 'optree._C'").
DYNAMO_SCRIPT = textwrap.dedent('''
    import collections, sys, time
    import torch
    import torch.utils._cxx_pytree as cx
    import torch._dynamo
    import optree, optree._C
    print('optree is grove:', getattr(optree, '__grove__', False), file=sys.stderr)

    NT = collections.namedtuple('NT', 'a b')
    trees = [1, None, [1, {'b': None, 'a': (2, 3)}], NT(1, [2]), time.gmtime(0),
             collections.OrderedDict(z=1, y=(2, 3))]
    for ns in ('', 'torch'):
        print(ns, optree._C.is_dict_insertion_ordered(ns),
              optree._C.is_dict_insertion_ordered(ns, False))
        for tree in trees:
            for none_is_leaf in (False, True):
                print(optree._C.flatten(tree, None, none_is_leaf, ns))
                print(optree._C.flatten_with_path(tree, None, none_is_leaf, ns))
            print(optree._C.flatten(tree, lambda x: isinstance(x, tuple), namespace=ns))
    for name in ('is_namedtuple', 'is_namedtuple_class', 'is_namedtuple_instance',
                 'is_structseq', 'is_structseq_class', 'is_structseq_instance'):
        fn = getattr(optree, name).__python_implementation__
        print(name, [fn(x) for x in (NT, NT(1, 2), time.struct_time, time.gmtime(0), (1,))])
    print(optree.namedtuple_fields.__python_implementation__(NT),
          optree.structseq_fields.__python_implementation__(time.gmtime(0)))

    @torch.compile(backend='eager')
    def f(x):
        t = cx.tree_map(lambda v: v * 3, {'b': x, 'a': (x + 1, [x])})
        return t, cx.tree_leaves(t)

    print(f(torch.ones(2)))
''')


def test_torch_dynamo_on_grove_prints_what_it_prints_on_optree():
    on_optree = run(install=False, script=DYNAMO_SCRIPT)
    on_grove = run(install=True, script=DYNAMO_SCRIPT)
    assert on_grove.splitlines() == on_optree.splitlines()
    assert len(on_grove.splitlines()) > 60
