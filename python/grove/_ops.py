# SPDX-License-Identifier: MIT
"""optree's tree functions that are compositions of the extension's: maps with paths or
accessors, in-place maps, partition, transpose and broadcast maps, sum / max / min, and
prefix_errors. The hot paths (flatten, unflatten, tree_map, flatten_up_to) stay in C."""

from __future__ import annotations

import collections
import difflib
import textwrap

from grove._grove import tree_flatten, tree_leaves, tree_map, tree_structure

__all__ = [
    'tree_flatten_with_accessor', 'tree_accessors', 'tree_map_', 'tree_map_with_path_',
    'tree_map_with_accessor', 'tree_map_with_accessor_', 'tree_replace_nones', 'tree_partition',
    'tree_transpose_map', 'tree_transpose_map_with_path', 'tree_transpose_map_with_accessor',
    'broadcast_prefix', 'tree_broadcast_common', 'broadcast_common', 'tree_broadcast_map',
    'tree_broadcast_map_with_path', 'tree_broadcast_map_with_accessor', 'tree_sum', 'tree_max',
    'tree_min', 'prefix_errors',
]

_MISSING = object()
_consume = collections.deque  # _consume(iterator, maxlen=0) runs it through, keeping nothing


def _flat(tree, rests, is_leaf, none_is_leaf, namespace):
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec, [leaves] + [spec.flatten_up_to(r) for r in rests]


def tree_flatten_with_accessor(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """Flatten a pytree into the accessors of its leaves, its leaves and its structure.

    Args:
        tree: the pytree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        (accessors, leaves, treespec): a PyTreeAccessor per leaf (calling it on the tree
        fetches the leaf), the leaves and the TreeSpec.

    Example:
        >>> accessors, leaves, spec = grove.tree_flatten_with_accessor({'a': [1]})
        >>> accessors[0].codify('t'), leaves
        ("t['a'][0]", [1])
    """
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec.accessors(), leaves, spec


def tree_accessors(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The accessor of every leaf, in leaf order.

    Args:
        tree: the pytree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A list of PyTreeAccessor.

    Example:
        >>> [a.codify('t') for a in grove.tree_accessors({'a': [1, 2]})]
        ["t['a'][0]", "t['a'][1]"]
    """
    return tree_structure(tree, is_leaf, none_is_leaf=none_is_leaf,
                          namespace=namespace).accessors()


def tree_map_(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """Call func on the leaves (and those of rests at the same places) for its side effects.

    Args:
        func: called as func(leaf, *subtrees_of_rests); its results are dropped.
        tree: the pytree.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        tree itself.

    Raises:
        ValueError: a tree in rests does not match tree's structure.

    Example:
        >>> seen = []
        >>> grove.tree_map_(seen.append, [3, (4,)])
        [3, (4,)]
        >>> seen
        [3, 4]
    """
    if rests:
        _, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    else:  # (the leaves alone: no structure to make)
        flat = [tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)]
    _consume(map(func, *flat), maxlen=0)
    return tree


def tree_map_with_path_(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """tree_map_ whose func also gets each leaf's path first: func(path, leaf, ...), for its
    side effects.

    Args:
        func: called as func(path, leaf, *subtrees_of_rests); its results are dropped.
        tree: the pytree.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        tree itself.

    Example:
        >>> seen = []
        >>> grove.tree_map_with_path_(lambda p, x: seen.append(p), {'a': 1, 'b': [2]})
        {'a': 1, 'b': [2]}
        >>> seen
        [('a',), ('b', 0)]
    """
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    for _ in map(func, spec.paths(), *flat):
        pass
    return tree


def tree_map_with_accessor(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                           namespace=''):
    """tree_map whose func also gets each leaf's accessor first: func(accessor, leaf, ...).

    Args:
        func: called as func(accessor, leaf, *subtrees_of_rests).
        tree: the pytree whose structure the result has.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A new tree of tree's structure holding func's results.

    Example:
        >>> grove.tree_map_with_accessor(lambda a, x: a.codify('t'), {'a': [1]})
        {'a': ["t['a'][0]"]}
    """
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    return spec.unflatten(map(func, spec.accessors(), *flat))


def tree_map_with_accessor_(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                            namespace=''):
    """tree_map_ whose func also gets each leaf's accessor first: func(accessor, leaf, ...),
    for its side effects.

    Args:
        func: called as func(accessor, leaf, *subtrees_of_rests); its results are dropped.
        tree: the pytree.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        tree itself.

    Example:
        >>> seen = []
        >>> _ = grove.tree_map_with_accessor_(lambda a, x: seen.append(a.codify('t')), [1, [2]])
        >>> seen
        ['t[0]', 't[1][0]']
    """
    spec, flat = _flat(tree, rests, is_leaf, none_is_leaf, namespace)
    for _ in map(func, spec.accessors(), *flat):
        pass
    return tree


def tree_replace_nones(sentinel, tree, /, namespace=''):
    """tree with every None in it replaced by sentinel.

    Args:
        sentinel: what replaces each None.
        tree: the pytree.
        namespace: the registry namespace of custom node types.

    Returns:
        A new tree.

    Example:
        >>> grove.tree_replace_nones(0, {'a': None, 'b': (1, None)})
        {'a': 0, 'b': (1, 0)}
    """
    if tree is None:
        return sentinel
    return tree_map(lambda x: sentinel if x is None else x, tree, none_is_leaf=True,
                    namespace=namespace)


def tree_partition(predicate, tree, /, is_leaf=None, *, fillvalue=None, none_is_leaf=False,
                   namespace=''):
    """Split tree's leaves by predicate into two trees of tree's structure.

    Args:
        predicate: called on each leaf.
        tree: the pytree.
        fillvalue: what stands in the place of a leaf that went to the other tree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        (the leaves for which predicate is true, the others), each with fillvalue elsewhere.

    Example:
        >>> grove.tree_partition(lambda x: x > 1, [1, (2, 3)], fillvalue=0)
        ([0, (2, 3)], [1, (0, 0)])
    """
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
    structure, transposed: a tree of that structure whose leaves are trees like tree.

    Args:
        func: called as func(leaf, *subtrees_of_rests); returns a tree.
        tree: the pytree.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        inner_treespec: the structure of func's results (default: the first one's).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A tree of the inner structure whose leaves are trees of tree's structure.

    Raises:
        ValueError: a result of func does not have the inner structure.

    Example:
        >>> grove.tree_transpose_map(lambda x: {'double': 2 * x, 'square': x * x}, [1, 2])
        {'double': [2, 4], 'square': [1, 4]}
    """
    return _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace,
                          lambda spec: ())


def tree_transpose_map_with_path(func, tree, /, *rests, inner_treespec=None, is_leaf=None,
                                 none_is_leaf=False, namespace=''):
    """tree_transpose_map whose func also gets each leaf's path first.

    Args:
        func: called as func(path, leaf, *subtrees_of_rests); returns a tree.
        tree: the pytree.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        inner_treespec: the structure of func's results (default: the first one's).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A tree of the inner structure whose leaves are trees of tree's structure.

    Example:
        >>> grove.tree_transpose_map_with_path(lambda p, x: {'at': str(p), 'x': x}, [1, 2])
        {'at': ['(0,)', '(1,)'], 'x': [1, 2]}
    """
    return _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace,
                          lambda spec: (spec.paths(),))


def tree_transpose_map_with_accessor(func, tree, /, *rests, inner_treespec=None, is_leaf=None,
                                     none_is_leaf=False, namespace=''):
    """tree_transpose_map whose func also gets each leaf's accessor first.

    Args:
        func: called as func(accessor, leaf, *subtrees_of_rests); returns a tree.
        tree: the pytree.
        *rests: more pytrees with tree's structure (or one it is a prefix of).
        inner_treespec: the structure of func's results (default: the first one's).
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A tree of the inner structure whose leaves are trees of tree's structure.

    Example:
        >>> grove.tree_transpose_map_with_accessor(lambda a, x: {'at': a.codify('t'), 'x': x},
        ...                                        [1, 2])
        {'at': ['t[0]', 't[1]'], 'x': [1, 2]}
    """
    return _transpose_map(func, tree, rests, inner_treespec, is_leaf, none_is_leaf, namespace,
                          lambda spec: (spec.accessors(),))


def broadcast_prefix(prefix_tree, full_tree, /, is_leaf=None, *, none_is_leaf=False,
                     namespace=''):
    """The leaves of prefix_tree broadcast over full_tree: one per leaf of full_tree.

    Args:
        prefix_tree: a pytree whose structure is a prefix of full_tree's.
        full_tree: the pytree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A list: each leaf of prefix_tree repeated once per leaf of full_tree under it.

    Raises:
        ValueError: prefix_tree is not a prefix of full_tree.

    Example:
        >>> grove.broadcast_prefix([1, 2], [[0, 0], (0,)])
        [1, 1, 2]
    """
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
    from grove import tree_broadcast_prefix
    if _is_prefix(a, b):
        return tree_broadcast_prefix(tree, other_tree, is_leaf, none_is_leaf=none_is_leaf,
                                     namespace=namespace), other_tree
    if _is_prefix(b, a):
        return tree, tree_broadcast_prefix(other_tree, tree, is_leaf, none_is_leaf=none_is_leaf,
                                           namespace=namespace)
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
    the other tree has at its place).

    Args:
        tree: a pytree.
        other_tree: another, such that at each place one of them is a prefix of the other.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        (tree, other_tree), both of the common structure.

    Raises:
        ValueError: the trees have no common structure.

    Example:
        >>> grove.tree_broadcast_common([1, [2, 3]], [[4, 5], 6])
        ([[1, 1], [2, 3]], [[4, 5], [6, 6]])
    """
    return _common(tree, other_tree, is_leaf, none_is_leaf, namespace)


def broadcast_common(tree, other_tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The leaves of tree_broadcast_common's two trees.

    Args:
        tree: a pytree.
        other_tree: another, such that at each place one of them is a prefix of the other.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        (leaves of tree, leaves of other_tree), both broadcast to the common structure.

    Raises:
        ValueError: the trees have no common structure.

    Example:
        >>> grove.broadcast_common([1, [2, 3]], [[4, 5], 6])
        ([1, 1, 2, 3], [4, 5, 6, 6])
    """
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
    """tree_map over the trees broadcast to their common structure.

    Args:
        func: called with one leaf of each broadcast tree.
        tree: a pytree.
        *rests: more pytrees, broadcast with tree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A tree of the common structure holding func's results.

    Raises:
        ValueError: the trees have no common structure.

    Example:
        >>> grove.tree_broadcast_map(lambda x, y: x + y, [1, [2, 3]], [[4, 5], 6])
        [[5, 6], [8, 9]]
    """
    trees = _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace)
    return tree_map(func, *trees, is_leaf=is_leaf, none_is_leaf=none_is_leaf,
                    namespace=namespace)


def tree_broadcast_map_with_path(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                                 namespace=''):
    """tree_broadcast_map whose func also gets each leaf's path first.

    Args:
        func: called as func(path, *leaves) on the broadcast trees.
        tree: a pytree.
        *rests: more pytrees, broadcast with tree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A tree of the common structure holding func's results.

    Example:
        >>> grove.tree_broadcast_map_with_path(lambda p, x, y: x + y, [1, [2, 3]], [[4, 5], 6])
        [[5, 6], [8, 9]]
    """
    from grove import tree_map_with_path
    trees = _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace)
    return tree_map_with_path(func, *trees, is_leaf=is_leaf, none_is_leaf=none_is_leaf,
                              namespace=namespace)


def tree_broadcast_map_with_accessor(func, tree, /, *rests, is_leaf=None, none_is_leaf=False,
                                     namespace=''):
    """tree_broadcast_map whose func also gets each leaf's accessor first.

    Args:
        func: called as func(accessor, *leaves) on the broadcast trees.
        tree: a pytree.
        *rests: more pytrees, broadcast with tree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A tree of the common structure holding func's results.

    Example:
        >>> grove.tree_broadcast_map_with_accessor(lambda a, x, y: a.codify('t'), [1, [2]],
        ...                                        [[4, 5], 6])
        [['t[0][0]', 't[0][1]'], ['t[1][0]']]
    """
    trees = _broadcast_all(tree, rests, is_leaf, none_is_leaf, namespace)
    return tree_map_with_accessor(func, *trees, is_leaf=is_leaf, none_is_leaf=none_is_leaf,
                                  namespace=namespace)


def _leaves(tree, is_leaf, none_is_leaf, namespace):
    from grove._grove import tree_leaves
    return tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)


def tree_sum(tree, /, start=0, *, is_leaf=None, none_is_leaf=False, namespace=''):
    """The leaves added to start, left to right (any type with +, strings too).

    Args:
        tree: the pytree.
        start: the value the leaves are added to.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        start + leaf_0 + leaf_1 + ...

    Example:
        >>> grove.tree_sum([1, (2, 3)]), grove.tree_sum(['a', ('b',)], start='')
        (6, 'ab')
    """
    total = start
    for leaf in _leaves(tree, is_leaf, none_is_leaf, namespace):
        total = total + leaf
    return total


def tree_max(tree, /, *, default=_MISSING, key=None, is_leaf=None, none_is_leaf=False,
             namespace=''):
    """max() of the leaves.

    Args:
        tree: the pytree.
        default: the result when there are no leaves.
        key: as max()'s.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        The largest leaf.

    Raises:
        ValueError: there are no leaves and no default.

    Example:
        >>> grove.tree_max([1, (5, 3)]), grove.tree_max([], default=0)
        (5, 0)
    """
    leaves = _leaves(tree, is_leaf, none_is_leaf, namespace)
    if default is _MISSING:
        return max(leaves, key=key)
    return max(leaves, default=default, key=key)


def tree_min(tree, /, *, default=_MISSING, key=None, is_leaf=None, none_is_leaf=False,
             namespace=''):
    """min() of the leaves.

    Args:
        tree: the pytree.
        default: the result when there are no leaves.
        key: as min()'s.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        The smallest leaf.

    Raises:
        ValueError: there are no leaves and no default.

    Example:
        >>> grove.tree_min([1, (5, 3)])
        1
    """
    leaves = _leaves(tree, is_leaf, none_is_leaf, namespace)
    if default is _MISSING:
        return min(leaves, key=key)
    return min(leaves, default=default, key=key)


def prefix_errors(prefix_tree, full_tree, /, is_leaf=None, *, none_is_leaf=False,
                  namespace=''):
    """Where prefix_tree is not a prefix of full_tree: a list of functions, each taking a
    name and returning the ValueError that describes one place (the first disagreement on
    each path: the node types, a dict's keys, the number of children, the metadata).

    Args:
        prefix_tree: the pytree that should be a prefix.
        full_tree: the pytree.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.

    Returns:
        A list of functions name -> ValueError (empty when prefix_tree is a prefix).

    Example:
        >>> grove.prefix_errors([1, 2], [1, (2, 3)])
        []
        >>> len(grove.prefix_errors([1, 2], [1, 2, 3]))
        1
    """
    from grove import PyTreeAccessor, tree_flatten_one_level, tree_is_leaf
    from grove.utils import total_order_sorted
    kw = {'none_is_leaf': none_is_leaf, 'namespace': namespace}
    dicts = (dict, collections.OrderedDict, collections.defaultdict)
    errors = []
    stack = [(PyTreeAccessor(), prefix_tree, full_tree)]
    while stack:
        where, p, f = stack.pop()
        if tree_is_leaf(p, is_leaf, **kw):
            continue
        pt, ft = type(p), type(f)
        both_dicts = pt in dicts and ft in dicts
        head = _Where(where)
        if pt is not ft and not both_dicts:
            errors.append(head.error('different types', f'has a subtree of type\n    {pt}\n'
                                     'but at the same key path the full pytree has a subtree '
                                     f'of different type\n    {ft}.'))
            continue
        pout = tree_flatten_one_level(p, **kw)
        fkids, fmeta = tree_flatten_one_level(f, **kw)[:2]
        pkids, pmeta = pout.children, pout.metadata
        if both_dicts:
            pkeys = pmeta[1] if pt is collections.defaultdict else pmeta
            fkeys = fmeta[1] if ft is collections.defaultdict else fmeta
            if set(pkeys) != set(fkeys):
                diff = ''
                missing, extra = set(pkeys) - set(fkeys), set(fkeys) - set(pkeys)
                if missing:
                    diff += f'\nmissing key(s):\n    {total_order_sorted(missing)}'
                if extra:
                    diff += f'\nextra key(s):\n    {total_order_sorted(extra)}'
                errors.append(head.error(
                    'different pytree keys',
                    f'has a subtree of type\n    {pt}\nwith {len(pkeys)} key(s)\n    {pkeys}\n'
                    f'but at the same key path the full pytree has a subtree of type\n    {ft}\n'
                    f'but with {len(fkeys)} key(s)\n    {fkeys}{diff}'))
                continue
            fkids = [f[k] for k in pkeys]
        if len(pkids) != len(fkids):
            errors.append(head.error(
                'different numbers of pytree children',
                f'has a subtree of type\n    {pt}\nwith {len(pkids)} children, but at the same '
                'key path the full pytree has a subtree of the same type but with '
                f'{len(fkids)} children.'))
            continue
        if not both_dicts and pt is not collections.deque and pmeta != fmeta:
            prepr, frepr = repr(pmeta), repr(fmeta)
            diff = textwrap.indent('\n'.join(difflib.ndiff(prepr.splitlines(),
                                                             frepr.splitlines())), '    ')
            errors.append(head.error(
                'different pytree metadata',
                f'has a subtree of type\n    {pt}\nwith metadata\n    {prepr}\nbut at the same '
                'key path the full pytree has a subtree of the same type but with metadata\n'
                f'    {frepr}\nso the diff in the metadata at these pytree nodes is\n{diff}'))
            continue
        steps = [pout.path_entry_type(e, pt, pout.kind) for e in pout.entries]
        stack.extend((where + s, a, b) for s, a, b in reversed(list(zip(steps, pkids, fkids))))
    return errors


class _Where:
    """A place in the prefix tree, for prefix_errors' messages."""

    def __init__(self, accessor):
        self.accessor = accessor

    def error(self, what, rest):
        def make(name):
            place = self.accessor.codify(name) if self.accessor else f'{name} tree root'
            return ValueError(f'pytree structure error: {what} at key path\n    {place}\n'
                              f'At that key path, the prefix pytree {name} {rest}')
        return make
