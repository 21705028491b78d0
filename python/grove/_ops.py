# SPDX-License-Identifier: MIT
"""optree's tree functions that are compositions of the extension's: maps with paths or
accessors, in-place maps, partition, transpose and broadcast maps, sum / max / min, and
prefix_errors. The hot paths (flatten, unflatten, tree_map, flatten_up_to) stay in C."""

from __future__ import annotations

import functools
import itertools

from grove._grove import tree_flatten, tree_map, tree_structure

__all__ = [
    'tree_flatten_with_accessor', 'tree_accessors', 'tree_map_', 'tree_map_with_path_',
    'tree_map_with_accessor', 'tree_map_with_accessor_', 'tree_replace_nones', 'tree_partition',
    'tree_transpose_map', 'tree_transpose_map_with_path', 'tree_transpose_map_with_accessor',
    'broadcast_prefix', 'tree_broadcast_common', 'broadcast_common', 'tree_broadcast_map',
    'tree_broadcast_map_with_path', 'tree_broadcast_map_with_accessor', 'tree_sum', 'tree_max',
    'tree_min', 'prefix_errors',
]

_MISSING = object()


def _flat(tree, rests, is_leaf, none_is_leaf, namespace):
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec, [leaves] + [spec.flatten_up_to(r) for r in rests]


def tree_flatten_with_accessor(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """(accessors, leaves, treespec): every leaf with the accessor that fetches it."""
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec.accessors(), leaves, spec


def tree_accessors(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The accessor of every leaf, in leaf order."""
    return tree_structure(tree, is_leaf, none_is_leaf=none_is_leaf,
                          namespace=namespace).accessors()


def tree_map_(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """Call func on the leaves (and those of rests at the same places) for its side effects;
    returns tree itself."""
    _, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    for _ in map(func, *flat):
        pass
    return tree


def tree_map_with_path_(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """tree_map_ whose func also gets each leaf's path first; returns tree."""
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    for _ in map(func, spec.paths(), *flat):
        pass
    return tree


def tree_map_with_accessor(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                           namespace=''):
    """tree_map whose func also gets each leaf's accessor first."""
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    return spec.unflatten(map(func, spec.accessors(), *flat))


def tree_map_with_accessor_(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                            namespace=''):
    """tree_map_ whose func also gets each leaf's accessor first; returns tree."""
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    for _ in map(func, spec.accessors(), *flat):
        pass
    return tree


def tree_replace_nones(sentinel, tree, /, namespace=''):
    """tree with every None replaced by sentinel."""
    if tree is None:
        return sentinel
    return tree_map(lambda x: sentinel if x is None else x, tree, none_is_leaf=True,
                    namespace=namespace)


def tree_partition(predicate, tree, /, is_leaf=None, *, fillvalue=None, none_is_leaf=False,
                   namespace=''):
    """Two trees of tree's structure: the leaves for which predicate holds (fillvalue at the
    others), and the others (fillvalue where it holds)."""
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    marks = list(map(predicate, leaves))
    left = [x if m else fillvalue for x, m in zip(leaves, marks)]
    right = [fillvalue if m else x for x, m in zip(leaves, marks)]
    return spec.unflatten(left), spec.unflatten(right)


def _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace, firsts):
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    if spec.num_leaves == 0:
        raise ValueError(f'The outer structure must have at least one leaf. Got: {spec}.')
    outputs = [func(*args) for args in zip(*firsts(spec), *flat)]
    if inner_treespec is None:
        inner_treespec = tree_structure(outputs[0], is_leaf, none_is_leaf=none_is_leaf,
                                        namespace=namespace)
        if inner_treespec.num_leaves == 0:
            raise ValueError(f'The inner structure must have at least one leaf. '
                             f'Got: {inner_treespec}.')
    grouped = [inner_treespec.flatten_up_to(o) for o in outputs]
    return inner_treespec.unflatten(spec.unflatten(column) for column in zip(*grouped))


def tree_transpose_map(func, tree, /, *rests, inner_treespec=None, is_leaf=None,
                       none_is_leaf=False, namespace=''):
    """tree_map whose func returns a tree of inner_treespec's (or the first output's)
    structure, transposed: a tree of that structure whose leaves are trees like tree."""
    return _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace,
                          lambda spec: ())


def tree_transpose_map_with_path(func, tree, /, *rests, inner_treespec=None, is_leaf=None,
                                 none_is_leaf=False, namespace=''):
    """tree_transpose_map whose func also gets each leaf's path first."""
    return _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace,
                          lambda spec: (spec.paths(),))


def tree_transpose_map_with_accessor(func, tree, /, *rests, inner_treespec=None, is_leaf=None,
                                     none_is_leaf=False, namespace=''):
    """tree_transpose_map whose func also gets each leaf's accessor first."""
    return _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace,
                          lambda spec: (spec.accessors(),))


def broadcast_prefix(prefix_tree, full_tree, /, is_leaf=None, *, none_is_leaf=False,
                     namespace=''):
    """The leaves of prefix_tree broadcast over full_tree: one per leaf of full_tree."""
    from grove import tree_broadcast_prefix
    broadcast = tree_broadcast_prefix(prefix_tree, full_tree, is_leaf, none_is_leaf=none_is_leaf,
                                      namespace=namespace)
    return tree_structure(full_tree, is_leaf, none_is_leaf=none_is_leaf,
                          namespace=namespace).flatten_up_to(broadcast)


def _common(tree, other_tree, is_leaf, none_is_leaf, namespace):
    """The structure both trees broadcast to, and each broadcast to it."""
    from grove import _is_prefix
    a = tree_structure(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    b = tree_structure(other_tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    mark = object()

    def widen(x, y):
        """The wider of two subtrees at one place, or a leaf marker if either is a leaf."""
        return y

    from grove import tree_broadcast_prefix
    if _is_prefix(a, b):
        return tree_broadcast_prefix(tree, other_tree, is_leaf, none_is_leaf=none_is_leaf,
                                     namespace=namespace), other_tree
    if _is_prefix(b, a):
        return tree, tree_broadcast_prefix(other_tree, tree, is_leaf, none_is_leaf=none_is_leaf,
                                           namespace=namespace)
    del widen, mark
    # neither is a prefix of the other: broadcast node by node
    one_a = a.one_level() if not a.is_leaf() else None
    one_b = b.one_level() if not b.is_leaf() else None
    if one_a is None or one_b is None or one_a != one_b:
        raise ValueError(f'Tree structures are not compatible for broadcasting: {a} and {b}.')
    left = one_a.flatten_up_to(tree)
    right = one_b.flatten_up_to(other_tree)
    pairs = [_common(x, y, is_leaf, none_is_leaf, namespace) for x, y in zip(left, right)]
    return one_a.unflatten(p[0] for p in pairs), one_b.unflatten(p[1] for p in pairs)


def tree_broadcast_common(tree, other_tree, /, is_leaf=None, *, none_is_leaf=False,
                          namespace=''):
    """Both trees broadcast to their common structure (each leaf repeated over the subtree
    the other tree has at its place)."""
    return _common(tree, other_tree, is_leaf, none_is_leaf, namespace)


def broadcast_common(tree, other_tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The leaves of tree_broadcast_common's two trees."""
    x, y = _common(tree, other_tree, is_leaf, none_is_leaf, namespace)
    spec = tree_structure(x, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec.flatten_up_to(x), spec.flatten_up_to(y)


def _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace):
    trees = [tree, *rests]
    if not rests:
        return trees
    common = trees[0]
    for other in trees[1:]:
        common, _ = _common(common, other, is_leaf, none_is_leaf, namespace)
    return [_common(t, common, is_leaf, none_is_leaf, namespace)[0] for t in trees]


def tree_broadcast_map(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """tree_map over the trees broadcast to their common structure."""
    trees = _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace)
    return tree_map(func, *trees, is_leaf=is_leaf, none_is_leaf=none_is_leaf,
                    namespace=namespace)


def tree_broadcast_map_with_path(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                                 namespace=''):
    """tree_broadcast_map whose func also gets each leaf's path first."""
    from grove import tree_map_with_path
    trees = _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace)
    return tree_map_with_path(func, *trees, is_leaf=is_leaf, none_is_leaf=none_is_leaf,
                              namespace=namespace)


def tree_broadcast_map_with_accessor(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                                     namespace=''):
    """tree_broadcast_map whose func also gets each leaf's accessor first."""
    trees = _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace)
    return tree_map_with_accessor(func, *trees, is_leaf=is_leaf, none_is_leaf=none_is_leaf,
                                  namespace=namespace)


def _leaves(tree, is_leaf, none_is_leaf, namespace):
    from grove._grove import tree_leaves
    return tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)


def tree_sum(tree, /, start=0, *, is_leaf=None, none_is_leaf=False, namespace=''):
    """sum() of the leaves, from start."""
    return sum(_leaves(tree, is_leaf, none_is_leaf, namespace), start)


def tree_max(tree, /, *, default=_MISSING, key=None, is_leaf=None, none_is_leaf=False,
             namespace=''):
    """max() of the leaves (default when there are none)."""
    leaves = _leaves(tree, is_leaf, none_is_leaf, namespace)
    if default is _MISSING:
        return max(leaves, key=key)
    return max(leaves, default=default, key=key)


def tree_min(tree, /, *, default=_MISSING, key=None, is_leaf=None, none_is_leaf=False,
             namespace=''):
    """min() of the leaves (default when there are none)."""
    leaves = _leaves(tree, is_leaf, none_is_leaf, namespace)
    if default is _MISSING:
        return min(leaves, key=key)
    return min(leaves, default=default, key=key)


def prefix_errors(prefix_tree, full_tree, /, is_leaf=None, *, none_is_leaf=False,
                  namespace=''):
    """Where prefix_tree is not a prefix of full_tree: a list of functions, each taking a
    name and returning the ValueError that describes one place."""
    errors = []
    stack = [((), prefix_tree, full_tree)]
    while stack:
        path, p, f = stack.pop()
        ps = tree_structure(p, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
        if ps.is_leaf():
            continue
        fs = tree_structure(f, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
        one_p = ps.one_level()
        one_f = fs.one_level() if not fs.is_leaf() else None
        if one_f is None or one_p.type is not one_f.type:
            errors.append(functools.partial(_mismatch, path, f'pytree structure type '
                                            f'{one_p.type!r} vs {fs.type!r}'))
            continue
        if one_p.num_children != one_f.num_children or one_p != one_f:
            if set(one_p.entries()) != set(one_f.entries()) or one_p.kind != one_f.kind:
                errors.append(functools.partial(_mismatch, path, f'pytree structure '
                                                f'{one_p} vs {one_f}'))
                continue
        entries = one_p.entries()
        pk = dict(zip(entries, one_p.flatten_up_to(p)))
        fk = dict(zip(one_f.entries(), one_f.flatten_up_to(f)))
        for e in reversed(entries):
            stack.append((path + (e,), pk[e], fk[e]))
    return errors


def _mismatch(path, what, name):
    where = ''.join(f'[{e!r}]' for e in path)
    return ValueError(f'pytree structure error: different {what} at key path\n'
                      f'    {name}{where}')


_ = itertools  # (kept for callers that import it from here)
