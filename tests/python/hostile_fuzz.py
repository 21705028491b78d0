# SPDX-License-Identifier: MIT
"""Hypothesis strategies of hostile objects, and main(n): every public function
of grove and grove.keras called on them (test_hostile_objects.py runs it in a
child process with time and address-space limits).

Hooks act on the tree being processed: a key's __hash__/__eq__/__lt__, a
metaclass's __hash__/__eq__/__instancecheck__/__getattr__, a registered
class's flatten function, an iterator's __next__ and the finalizers of cyclic
garbage (armed with gc.set_threshold(1) so that the next allocation runs them)
may raise, empty every list and dict of the tree and the leaves list, start a
generation (set_memory_limit), change the registry, or call grove again. Each
call must return or raise an Exception; a hang trips faulthandler's watchdog
(the child exits non-zero), a crash kills the child, memory is capped by the
parent's RLIMIT_AS. Where no hook acts, grove's leaves and structure equal
optree's.

main(n, mutants=k) runs the same calls on k trees grove.mutate makes, one after another,
from each generated tree (docs/python.md, "grove.mutate"), with the hooks unarmed while it
mutates: misbehaving registered nodes are kept whole (is_leaf) and moved, copied and swapped
with everything else; each mutant, where quiet, is also checked against optree."""

import collections
import faulthandler
import gc
import itertools
import sys

import grove
import grove.keras as gk
import optree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NS = 'hostile-fuzz'
ACTIONS = ['none', 'none', 'raise', 'clear', 'limit', 'reenter', 'gc', 'registry']


class World:
    """What the hooks act on: the mutable containers of the current tree."""
    containers = []
    armed = False
    limit = grove.memory_stats()['limit']


def act(action):
    if not World.armed or action == 'none':
        return
    if action == 'raise':
        raise ValueError('hostile hook')
    if action == 'clear':
        for c in World.containers:
            c.clear()
    elif action == 'limit':
        grove.set_memory_limit(World.limit)
    elif action == 'reenter':
        World.armed = False
        try:
            grove.tree_structure({'re': [1, (2,)], 'x': None})
            grove.canonicalize({'b': 1, 'a': 2})
        finally:
            World.armed = True
    elif action == 'gc':
        gc.collect()
    elif action == 'registry':
        grove.register_pytree_node(Extra, lambda e: ([], None), lambda m, c: Extra(), namespace=NS)
        grove.unregister_pytree_node(Extra, namespace=NS)


class Extra:
    pass


class HKey:
    """A dict key whose methods run actions."""

    def __init__(self, v, on_hash, on_eq, on_lt):
        self.v, self.on_hash, self.on_eq, self.on_lt = v, on_hash, on_eq, on_lt

    def __hash__(self):
        act(self.on_hash)
        return hash(self.v)

    def __eq__(self, other):
        act(self.on_eq)
        return isinstance(other, HKey) and self.v == other.v

    def __lt__(self, other):
        act(self.on_lt)
        if not isinstance(other, HKey):
            return NotImplemented
        return self.v < other.v

    def __repr__(self):
        return f'HKey({self.v})'


def hooked_class(action):
    """A new leaf class whose metaclass runs action in its hooks."""

    class Meta(type):
        def __hash__(cls):
            act(action)
            return id(cls) >> 4

        def __eq__(cls, other):
            act(action)
            return cls is other

        def __instancecheck__(cls, obj):
            act(action)
            return type(obj) is cls

        def __getattr__(cls, name):
            act(action)
            raise AttributeError(name)

    return Meta('Hooked', (), {})


class Node:
    """A registered class whose flatten function does what mode says."""

    def __init__(self, kids, mode, meta, action):
        self.kids, self.mode, self.meta, self.action = kids, mode, meta, action


def node_flatten(n):
    act(n.action)
    mode = n.mode
    if mode == 'raise':
        raise KeyError('flatten refused')
    if mode == 'notuple':
        return 7
    if mode == 'short':
        return (n.kids,)
    if mode == 'endless':
        return ([Node([], 'endless', None, 'none')], None)
    if mode == 'self':
        return ([n], None)
    if mode == 'entries':
        return (n.kids, n.meta, ('one',))
    if mode == 'gen':
        return ((k for k in n.kids), n.meta)
    return (n.kids, n.meta)


def node_unflatten(meta, kids):
    return Node(list(kids), 'ok', meta, 'none')


for _mod in (grove, optree):
    _mod.register_pytree_node(Node, node_flatten, node_unflatten, namespace=NS)
grove.register_pytree_node(Node, node_flatten, node_unflatten, namespace=gk.NAMESPACE)

Point = collections.namedtuple('Point', 'x y')
actions = st.sampled_from(ACTIONS)
scalars = st.one_of(st.integers(-5, 5), st.text(max_size=3), st.none(), st.floats(allow_nan=False),
                    st.booleans())
keys = st.one_of(st.text(max_size=3), st.integers(-3, 3),
                 st.builds(HKey, st.integers(0, 4), actions, actions, actions))
metadata = st.one_of(st.none(), st.integers(), st.just([1.0]), st.just(-0.0), st.text(max_size=2),
                     st.builds(HKey, st.integers(0, 4), actions, actions, actions))


def leaf_of(args):
    kind, action = args
    if kind == 'hooked':
        return hooked_class(action)()
    return object()


leaves = st.one_of(scalars, st.tuples(st.sampled_from(['hooked', 'object']), actions).map(leaf_of))


def dict_of(pairs):
    d = {}
    for k, v in pairs:
        try:
            d[k] = v
        except Exception:
            pass
    return d


def extend(children):
    kids = st.lists(children, max_size=4)
    pairs = st.lists(st.tuples(keys, children), max_size=4)
    return st.one_of(
        kids,
        kids.map(tuple),
        pairs.map(dict_of),
        pairs.map(lambda p: collections.OrderedDict(dict_of(p))),
        pairs.map(lambda p: collections.defaultdict(list, dict_of(p))),
        kids.map(lambda k: collections.deque(k, maxlen=None if len(k) % 2 else 8)),
        st.tuples(children, children).map(lambda t: Point(*t)),
        st.builds(Node, kids, st.sampled_from(['ok'] * 6 + ['raise', 'notuple', 'short', 'endless',
                                                            'self', 'entries', 'gen']),
                  metadata, actions),
    )


trees = st.recursive(leaves, extend, max_leaves=12)


def containers_of(tree, out):
    stack = [tree]
    seen = set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (list, dict, collections.deque)):
            out.append(x)
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, collections.deque)):
            stack.extend(x)
        elif isinstance(x, Node):
            stack.append(x.kids)
    return out


class Fin:
    def __init__(self, action):
        self.me, self.action = self, action

    def __del__(self):
        act(self.action)


def arm_finalizers(action):
    """Cyclic garbage whose finalizers run action at the next allocations."""
    gc.disable()
    for _ in range(3):
        Fin(action)
    gc.set_threshold(1)
    gc.enable()


def ident(x):
    return x


def calls(tree, spec_box, leaves_box):
    """(name, thunk) for every public function, on tree."""
    kw = {'namespace': NS}
    it = lambda: iter(leaves_box[0])  # noqa: E731

    def spec():
        if spec_box[0] is None:
            spec_box[0] = grove.tree_structure(tree, **kw)
        return spec_box[0]

    return [
        ('tree_flatten', lambda: grove.tree_flatten(tree, **kw)),
        ('tree_leaves', lambda: grove.tree_leaves(tree, none_is_leaf=True, **kw)),
        ('tree_structure', lambda: grove.tree_structure(tree, **kw)),
        ('tree_unflatten', lambda: grove.tree_unflatten(spec(), leaves_box[0])),
        ('tree_unflatten_iter', lambda: grove.tree_unflatten(spec(), it())),
        ('tree_unflatten_endless', lambda: grove.tree_unflatten(spec(), itertools.count())),
        ('tree_map', lambda: grove.tree_map(ident, tree, **kw)),
        ('tree_map2', lambda: grove.tree_map(lambda a, b: a, tree, tree, **kw)),
        ('tree_map_is_leaf', lambda: grove.tree_map(ident, tree, is_leaf=lambda x: act('none'),
                                                    **kw)),
        ('canonicalize', lambda: grove.canonicalize(tree)),
        ('tree_paths', lambda: grove.tree_paths(tree, **kw)),
        ('tree_flatten_with_path', lambda: grove.tree_flatten_with_path(tree, **kw)),
        ('tree_map_with_path', lambda: grove.tree_map_with_path(lambda p, x: x, tree, **kw)),
        ('tree_is_leaf', lambda: grove.tree_is_leaf(tree, **kw)),
        ('all_leaves', lambda: grove.all_leaves([tree, 1], **kw)),
        ('tree_flatten_one_level', lambda: grove.tree_flatten_one_level(tree, **kw)),
        ('tree_broadcast_prefix', lambda: grove.tree_broadcast_prefix(tree, tree, **kw)),
        ('tree_reduce', lambda: grove.tree_reduce(lambda a, b: a, tree, 0, **kw)),
        ('tree_all', lambda: grove.tree_all(tree, **kw)),
        ('tree_any', lambda: grove.tree_any(tree, **kw)),
        ('tree_iter', lambda: list(grove.tree_iter(tree, **kw))),
        ('spec_eq_hash', lambda: (spec() == grove.tree_structure(tree, **kw), hash(spec()))),
        ('spec_repr', lambda: repr(spec())),
        ('spec_children', lambda: [c.num_leaves for c in spec().children()]),
        ('spec_paths', lambda: spec().paths()),
        ('spec_flatten_up_to', lambda: spec().flatten_up_to(tree)),
        ('spec_is_prefix', lambda: spec().is_prefix(spec())),
        ('spec_pickle', lambda: grove.TreeSpec.from_bytes(spec().to_bytes()) == spec()),
        ('keras_is_nested', lambda: gk.is_nested(tree)),
        ('keras_flatten', lambda: gk.flatten(tree)),
        ('keras_flatten_with_path', lambda: gk.flatten_with_path(tree)),
        ('keras_map_structure', lambda: gk.map_structure(ident, tree)),
        ('keras_map_structure2', lambda: gk.map_structure(lambda a, b: a, tree, tree)),
        ('keras_map_structure_up_to', lambda: gk.map_structure_up_to(tree, ident, tree)),
        ('keras_assert_same_structure', lambda: gk.assert_same_structure(tree, tree)),
        ('keras_assert_same_paths', lambda: gk.assert_same_paths(tree, tree)),
        ('keras_pack_sequence_as', lambda: gk.pack_sequence_as(tree, leaves_box[0])),
        ('keras_pack_sequence_as_iter', lambda: gk.pack_sequence_as(tree, it())),
        ('keras_pack_sequence_as_endless',
         lambda: gk.pack_sequence_as(tree, itertools.count())),
        ('keras_traverse', lambda: gk.traverse(lambda x: None, tree)),
        ('keras_traverse_up', lambda: gk.traverse(lambda x: None, tree, top_down=False)),
        ('keras_lists_to_tuples', lambda: gk.lists_to_tuples(tree)),
        ('keras_map_shape_structure', lambda: gk.map_shape_structure(ident, tree)),
        ('keras_canonicalize', lambda: gk.canonicalize(tree)),
    ]


def run_all(tree, finalizer_action, leaves_extra):
    spec_box, leaves_box = [None], [None]
    try:
        leaves_box[0] = grove.tree_leaves(tree, namespace=NS) + leaves_extra
    except Exception:
        leaves_box[0] = list(leaves_extra)
    for name, thunk in calls(tree, spec_box, leaves_box):
        World.containers = containers_of(tree, [leaves_box[0]])
        faulthandler.dump_traceback_later(30, exit=True)
        World.armed = True
        if finalizer_action != 'none':
            arm_finalizers(finalizer_action)
        try:
            thunk()
        except Exception:  # a clean exception: fine
            pass
        finally:
            World.armed = False
            gc.set_threshold(700)
            faulthandler.cancel_dump_traceback_later()


def is_quiet(tree):
    """No hook acts and every custom node behaves: optree's answer is the reference."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, HKey):
            return False
        if type(type(x)).__name__ == 'Meta':
            return False
        if isinstance(x, Node):
            if x.mode != 'ok' or x.action != 'none' or isinstance(x.meta, HKey):
                return False
            stack.extend(x.kids)
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, collections.deque)):
            stack.extend(x)
    return True


def check_against_optree(tree):
    try:
        gl, gs = grove.tree_flatten(tree, namespace=NS)
    except Exception as e:
        gl = type(e)
    try:
        ol, os_ = optree.tree_flatten(tree, namespace=NS)
    except Exception as e:
        ol = type(e)
    if isinstance(gl, type) or isinstance(ol, type):
        assert isinstance(gl, type) and isinstance(ol, type), (tree, gl, ol)
        return
    assert len(gl) == len(ol) and all(a is b for a, b in zip(gl, ol)), (tree, gl, ol)
    assert gs.paths() == os_.paths(), tree
    back = grove.tree_unflatten(gs, gl)
    assert grove.tree_leaves(back, namespace=NS) == gl


def opaque(x):
    """Registered nodes whose flatten misbehaves or acts: leaves to grove.mutate, so that
    they reach the mutants as they are (a rebuilt node would behave)."""
    return isinstance(x, Node) and (x.mode != 'ok' or x.action != 'none')


def mutants(tree, seed, k):
    """k trees grove.mutate makes from tree, each from the one before (small bounds: a
    mutant is run through every call, under hooks that may collect garbage at each step)."""
    out = []
    for j in range(k):
        try:
            tree = grove.mutate(tree, seed + j, tree, namespace=NS, is_leaf=opaque,
                                max_nodes=40, max_depth=6, max_leaf_size=16)
        except Exception:  # a key's or a class's hook raising even unarmed: fine
            break
        out.append(tree)
    return out


def main(n, mutants_per_tree=0):
    sys.setrecursionlimit(10_000)
    sys.unraisablehook = lambda u: None  # (finalizers that raise, on purpose)
    profile = settings(max_examples=n, derandomize=True, deadline=None, database=None,
                       suppress_health_check=list(HealthCheck))

    @profile
    @given(tree=trees, fin=actions, extra=st.lists(st.integers(), max_size=3))
    def fuzz(tree, fin, extra):
        quiet = is_quiet(tree)
        if quiet:
            check_against_optree(tree)
        run_all(tree, fin, extra)

    @profile
    @given(tree=trees, fin=actions, extra=st.lists(st.integers(), max_size=3),
           seed=st.integers(0, 2**32))
    def fuzz_mutants(tree, fin, extra, seed):
        for m in mutants(tree, seed, mutants_per_tree):
            if is_quiet(m):
                check_against_optree(m)
            run_all(m, fin, extra)

    if mutants_per_tree:
        fuzz_mutants()
    else:
        fuzz()
    print('ok', flush=True)


if __name__ == '__main__':
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100,
         int(sys.argv[2]) if len(sys.argv) > 2 else 0)
