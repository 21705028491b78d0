# SPDX-License-Identifier: MIT
"""Reference-leak check for a debug build of CPython (sys.gettotalrefcount):

    python3.11-dbg tests/python/tools/refleak.py   (with PYTHONPATH at a build
    of the extension for that interpreter, e.g. build-dbg/python)

Runs every operation (and its failures) many times after a warm-up and
reports the total reference count delta per operation; 0 is expected."""

import collections
import gc
import sys
import time

sys.path.insert(0, __file__.rsplit('/', 2)[0])  # tests/python, for trees.py

import grove  # noqa: E402
from trees import NS, Box, Color, Point, Pod, register_all  # noqa: E402

register_all()

TREE = [{'b': 1, 'a': [2, 3], Color.RED: None, (1, 'x'): 4.5}, (4, Point(5, 6)),
        collections.OrderedDict(z=7), collections.defaultdict(list, {'q': 8}),
        collections.deque([9], maxlen=3), Box([10, {'w': 11}], 'm'), Pod(12, [13]),
        time.struct_time((1, 2, 3, 4, 5, 6, 7, 8, 0)), None]
LEAVES, SPEC = grove.tree_flatten(TREE, namespace=NS)
CYCLE = [1]
CYCLE.append(CYCLE)


def expect(exc, fn):
    try:
        fn()
    except exc:
        return
    raise AssertionError(f'{fn} did not raise {exc}')


OPS = {
    'tree_flatten': lambda: grove.tree_flatten(TREE, namespace=NS),
    'tree_leaves': lambda: grove.tree_leaves(TREE, none_is_leaf=True, namespace=NS),
    'tree_structure': lambda: grove.tree_structure(TREE, namespace=NS),
    'tree_unflatten': lambda: grove.tree_unflatten(SPEC, LEAVES),
    'tree_map': lambda: grove.tree_map(lambda x: x, TREE, namespace=NS),
    'tree_map2': lambda: grove.tree_map(lambda x, y: x, TREE, TREE, namespace=NS),
    'is_leaf': lambda: grove.tree_leaves(TREE, is_leaf=lambda x: isinstance(x, tuple),
                                         namespace=NS),
    'flatten_up_to': lambda: SPEC.flatten_up_to(TREE),
    'paths': lambda: grove.tree_flatten_with_path(TREE, namespace=NS),
    'eq_hash': lambda: (hash(grove.tree_structure(TREE, namespace=NS)),
                        SPEC == grove.tree_structure(TREE, namespace=NS)),
    'repr_children': lambda: (repr(SPEC), SPEC.children(), SPEC.num_nodes, SPEC.type),
    'canonicalize': lambda: grove.canonicalize([{'b': 1, 'a': 2}, TREE]),
    'bytes': lambda: grove.TreeSpec.from_bytes(SPEC.to_bytes()),
    'memory_stats': grove.memory_stats,
    'err_unflatten': lambda: expect(ValueError, lambda: SPEC.unflatten([1])),
    'err_up_to': lambda: expect(ValueError, lambda: SPEC.flatten_up_to([1])),
    'err_map': lambda: expect(ValueError, lambda: grove.tree_map(lambda x, y: x, [1, 2], [1])),
    'err_cycle': lambda: expect(RecursionError, lambda: grove.tree_leaves(CYCLE)),
    'err_func': lambda: expect(ZeroDivisionError, lambda: grove.tree_map(lambda x: 1 / 0, [1])),
}


def main():
    worst = 0
    for name, op in OPS.items():
        for _ in range(200):
            op()
        gc.collect()
        before = sys.gettotalrefcount()
        for _ in range(2000):
            op()
        gc.collect()
        delta = sys.gettotalrefcount() - before
        worst = max(worst, abs(delta))
        print(f'{name:16} refcount delta over 2000 calls: {delta}')
    sys.exit(0 if worst < 50 else 1)


if __name__ == '__main__':
    main()
