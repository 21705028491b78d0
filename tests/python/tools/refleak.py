# SPDX-License-Identifier: MIT
"""Reference-leak check for a debug build of CPython (sys.gettotalrefcount):

    python3.11-dbg tests/python/tools/refleak.py   (with PYTHONPATH at a build
    of the extension for that interpreter, e.g. build-dbg/python)

Runs every operation (and its failures) many times after a warm-up and
reports, per operation, the change in allocated memory blocks
(sys.getallocatedblocks: a leaked object shows there) and in the total
reference count, and the reference counts of the objects the operations read
(a leaked reference to a long-lived object shows there). Blocks and probes
decide the exit status: with Debian's python3.11-dbg the total reference
count drifts by a constant per call of an extension function (about -1 even
for a function that returns False), so it is printed for information only."""

import collections
import gc
import sys
import time

sys.path.insert(0, __file__.rsplit('/', 2)[0])  # tests/python, for trees.py

import grove  # noqa: E402
import grove.keras as gk  # noqa: E402
from trees import NS, Box, Color, Point, Pod, register_all  # noqa: E402

register_all()


class KBag(list):
    """A class registered through grove.keras (keras's protocol)."""

    def tree_flatten(self):
        return self, None, [f'e{i}' for i in range(len(self))]

    @classmethod
    def tree_unflatten(cls, meta, kids):
        return cls(kids)


class MAP_TO_NONE:  # noqa: N801
    pass


gk.register_tree_node_class(KBag)

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
# dicts rebuilt from templates (shuffled str keys, int keys) and canonicalize's fast pass
DTREE = [{f'k{(i * 37) % 50}': [i, object()] for i in range(50)}, {3: 'c', 1: 'a', 2: 'b'},
         ({'y': 1.5, 'x': (None, b'z')},)]
DLEAVES, DSPEC = grove.tree_flatten(DTREE)
DSORTED = grove.canonicalize(DTREE)[0]
OPS.update({
    'unflatten_dicts': lambda: grove.tree_unflatten(DSPEC, DLEAVES),
    'map_dicts': lambda: grove.tree_map(lambda x: x, DTREE),
    'canon_fast': lambda: grove.canonicalize(DTREE),
    'canon_fast_same': lambda: grove.canonicalize(DSORTED),
    'canon_give_up': lambda: grove.canonicalize([DTREE, collections.OrderedDict(b=1)]),
})
KTREE = TREE + [KBag([1, [2]]), {'s': (1, None, 2)}]
KFLAT = gk.flatten(KTREE)
OPS.update({
    'k_is_nested': lambda: (gk.is_nested(KTREE), gk.is_nested(KBag()), gk.is_nested(None)),
    'k_flatten': lambda: gk.flatten(KTREE),
    'k_flatten_with_path': lambda: gk.flatten_with_path(KTREE),
    'k_map': lambda: gk.map_structure(lambda x: x, KTREE),
    'k_map_nil': lambda: gk.map_structure(lambda x: x, KTREE, none_is_leaf=False),
    'k_map2': lambda: gk.map_structure(lambda x, y: x, KTREE, KTREE),
    'k_map_up_to': lambda: gk.map_structure_up_to([0, 0], lambda x: x, [KTREE, KTREE]),
    'k_map_shape': lambda: gk.map_shape_structure(lambda x: x, KTREE),
    'k_pack': lambda: gk.pack_sequence_as(KTREE, KFLAT),
    'k_assert': lambda: gk.assert_same_structure(KTREE, KTREE),
    'k_paths': lambda: gk.assert_same_paths(KTREE, KTREE),
    'k_traverse': lambda: gk.traverse(lambda x: None, KTREE),
    'k_traverse_up': lambda: gk.traverse(lambda x: None, KTREE, top_down=False),
    'k_traverse_m2n': lambda: gk.traverse(lambda x: MAP_TO_NONE if type(x) is tuple else None,
                                          KTREE),
    'k_lists_to_tuples': lambda: gk.lists_to_tuples(KTREE),
    'k_err_assert': lambda: expect(ValueError, lambda: gk.assert_same_structure(
        [1, {'a': 1}], [1, {'b': 1}])),
    'k_err_assert_deeper': lambda: expect(ValueError, lambda: gk.assert_same_structure(
        [1, 2], [1, [2]])),
    'k_err_assert_custom': lambda: expect(ValueError, lambda: gk.assert_same_structure(
        KBag([1, 2]), KBag([1]))),
    'k_err_map2': lambda: expect(ValueError, lambda: gk.map_structure(
        lambda x, y: x, [1, 2], [1, [2]])),
    'k_err_up_to': lambda: expect(ValueError, lambda: gk.map_structure_up_to(
        [None], len, [[1]])),
    'k_err_pack': lambda: expect(ValueError, lambda: gk.pack_sequence_as(KTREE, [1])),
    'k_err_pack_iter': lambda: expect(TypeError, lambda: gk.pack_sequence_as(KTREE, 1)),
    'k_err_traverse': lambda: expect(ZeroDivisionError, lambda: gk.traverse(
        lambda x: 1 / 0 if x == 2 else None, KTREE)),
    'k_err_cycle': lambda: expect(RecursionError, lambda: gk.traverse(lambda x: None, CYCLE)),
    'k_err_none': lambda: expect(ValueError, lambda: gk.map_structure(len)),
})


PROBES = [TREE, LEAVES, SPEC, CYCLE, KTREE, KFLAT, KTREE[-2], KTREE[-1]['s'], DTREE, DLEAVES,
          DSPEC, DSORTED, DTREE[0]['k0'][1], 'k0', False, True, None]


def probe_counts():
    return [sys.getrefcount(p) for p in PROBES]


def main():
    worst = 0
    for name, op in OPS.items():
        for _ in range(200):
            op()
        gc.collect()
        probes = probe_counts()
        blocks, refs = sys.getallocatedblocks(), sys.gettotalrefcount()
        for _ in range(2000):
            op()
        gc.collect()
        db, dr = sys.getallocatedblocks() - blocks, sys.gettotalrefcount() - refs
        dp = [a - b for a, b in zip(probe_counts(), probes)]
        bad = max(abs(db), max(abs(d) for d in dp[:-3]))
        worst = max(worst, bad)
        print(f'{name:22} over 2000 calls: blocks {db:+d}, probe refs {sum(dp[:-3]):+d}, '
              f'total refs {dr:+d}')
    sys.exit(0 if worst < 50 else 1)


if __name__ == '__main__':
    main()
