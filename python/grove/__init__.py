# SPDX-License-Identifier: MIT
"""grove for Python: optree's pytree API on grove's interned structures.

Switch from optree by changing one import::

    import grove as optree   # tree_flatten, tree_map, TreeSpec, ...

A TreeSpec is an interned grove node: ``==`` and ``hash()`` are O(1). Memory
lives in generations with a budget (``set_memory_limit``, ``memory_stats``).
Where grove differs from optree on purpose: no recursion depth limit for
containers (a 1,000,000-deep list flattens; registered classes nest at most
10,000 deep), a cycle raises RecursionError naming it, error
messages start with the path (``at (0, 'a'): ...``), the TreeSpec class is
``grove.TreeSpec`` (also ``PyTreeSpec``) and its repr says ``TreeSpec(...)``.
"""

from __future__ import annotations

import collections
import functools as _functools
import itertools
import operator
import typing
import warnings

from grove import _grove
from grove._grove import (
    TreeSpec,
    canonicalize,
    memory_stats,
    set_memory_limit,
    set_output_limit,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

from grove._version import __version__  # written by CMake from include/grove.h

PyTreeSpec = TreeSpec
PyTreeDef = TreeSpec

# optree 0.20.0's public names (all of them), then grove's own.
__all__ = [
    'MAX_RECURSION_DEPTH', 'NONE_IS_NODE', 'NONE_IS_LEAF', 'tree_flatten', 'tree_flatten_with_path',
    'tree_flatten_with_accessor', 'tree_unflatten', 'tree_iter', 'tree_leaves', 'tree_structure',
    'tree_paths', 'tree_accessors', 'tree_is_leaf', 'all_leaves', 'tree_map', 'tree_map_',
    'tree_map_with_path', 'tree_map_with_path_', 'tree_map_with_accessor',
    'tree_map_with_accessor_', 'tree_replace_nones', 'tree_partition', 'tree_transpose',
    'tree_transpose_map', 'tree_transpose_map_with_path', 'tree_transpose_map_with_accessor',
    'tree_broadcast_prefix', 'broadcast_prefix', 'tree_broadcast_common', 'broadcast_common',
    'tree_broadcast_map', 'tree_broadcast_map_with_path', 'tree_broadcast_map_with_accessor',
    'tree_reduce', 'tree_sum', 'tree_max', 'tree_min', 'tree_all', 'tree_any',
    'tree_flatten_one_level', 'prefix_errors', 'treespec_paths', 'treespec_accessors',
    'treespec_entries', 'treespec_entry', 'treespec_children', 'treespec_child',
    'treespec_one_level', 'treespec_transform', 'treespec_is_leaf', 'treespec_is_strict_leaf',
    'treespec_is_one_level', 'treespec_is_prefix', 'treespec_is_suffix', 'treespec_leaf',
    'treespec_none', 'treespec_tuple', 'treespec_list', 'treespec_dict', 'treespec_namedtuple',
    'treespec_ordereddict', 'treespec_defaultdict', 'treespec_deque', 'treespec_structseq',
    'treespec_frozendict', 'treespec_from_collection', 'PyTreeEntry', 'GetAttrEntry',
    'GetItemEntry', 'FlattenedEntry', 'AutoEntry', 'SequenceEntry', 'MappingEntry',
    'NamedTupleEntry', 'StructSequenceEntry', 'DataclassEntry', 'PyTreeAccessor',
    'register_pytree_node', 'register_pytree_node_class', 'unregister_pytree_node',
    'dict_insertion_ordered', 'PyTreeSpec', 'PyTreeDef', 'PyTreeKind', 'PyTree', 'PyTreeTypeVar',
    'CustomTreeNode', 'FlattenFunc', 'UnflattenFunc', 'is_namedtuple', 'is_namedtuple_class',
    'is_namedtuple_instance', 'namedtuple_fields', 'is_structseq', 'is_structseq_class',
    'is_structseq_instance', 'structseq_fields',
    # grove's own
    'TreeSpec', 'canonicalize', 'memory_stats', 'set_memory_limit', 'set_output_limit',
    'GLOBAL_NAMESPACE', 'install_as_optree', 'mutate', 'MUTATIONS',
]

NONE_IS_NODE = False  # the default: None is a node without children
NONE_IS_LEAF = True
MAX_RECURSION_DEPTH = 1000  # optree's limit; grove has none for containers (docs/python.md)

# Node kinds as the extension numbers them.
_LEAF, _NONE, _LIST, _TUPLE, _DICT, _ODICT, _DDICT, _DEQUE, _NT, _SS, _CUSTOM = range(11)


class _GlobalNamespace:
    """The global registry namespace (what an empty namespace string means)."""

    def __repr__(self) -> str:
        return '<GLOBAL NAMESPACE>'


GLOBAL_NAMESPACE = _GlobalNamespace()

# namespace -> {class: (class, flatten_func, unflatten_func, path_entry_type)}; '' is global.
_REGISTRY: dict[str, dict[type, tuple]] = {'': {}}

_MISSING = object()


# ---------------------------------------------------------------------------
# Helpers the extension calls
# ---------------------------------------------------------------------------


def _key_order(keys: list) -> list:
    """optree's key order: sorted if the keys compare, else by the key's class
    name and then the key, else insertion order. Indices in traversal order."""
    idx = list(range(len(keys)))
    try:
        return sorted(idx, key=keys.__getitem__)
    except TypeError:
        pass
    try:
        return sorted(
            idx,
            key=lambda i: (
                f'{type(keys[i]).__module__}.{type(keys[i]).__qualname__}',
                keys[i],
            ),
        )
    except TypeError:
        return idx


_IDENT_MAP = {ord('.'): '\u00b7', ord('<'): '\u2039', ord('>'): '\u203a'}


def _mangle(obj) -> str:
    """An identifier-safe base name for a class or factory: module·qualname."""
    if obj is None:
        return 'None\u00b7factory'
    mod = getattr(obj, '__module__', None)
    qn = getattr(obj, '__qualname__', None) or getattr(obj, '__name__', None)
    if not isinstance(mod, str) or not isinstance(qn, str):
        cls = type(obj)
        mod, qn = cls.__module__, cls.__qualname__ + '.instance'
    text = f'{mod}.{qn}'.translate(_IDENT_MAP)
    out = ''.join(c if (c.isalnum() and c.isascii()) or c == '_' or ord(c) >= 0x80 else '_'
                  for c in text)
    if not out or out[0].isdigit():
        out = '_' + out
    return out


# namespaces ('' for the global one) whose dicts keep insertion order (dict_insertion_ordered)
_INSERTION_ORDERED: set[str] = set()

_grove._setup(_REGISTRY, _key_order, _mangle, _INSERTION_ORDERED)


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------

_BUILTIN_NODE_TYPES = frozenset(
    {list, tuple, dict, collections.OrderedDict, collections.defaultdict, collections.deque,
     type(None)},
)


def _check_namespace(namespace) -> str:
    if namespace is GLOBAL_NAMESPACE:
        return ''
    if not isinstance(namespace, str):
        raise TypeError(f'The namespace must be a string, got {namespace!r}.')
    if namespace == '':
        raise ValueError('The namespace cannot be an empty string.')
    return namespace


def register_pytree_node(cls, flatten_func, unflatten_func, *, path_entry_type=None,
                         namespace):
    """Register the class cls as a node type in namespace.

    Args:
        cls: the class.
        flatten_func: flatten_func(obj) -> (children, metadata) or (children, metadata,
            entries); metadata is hashable and compared when structures are.
        unflatten_func: unflatten_func(metadata, children) -> a new obj.
        path_entry_type: the PyTreeEntry subclass of its children's path entries.
        namespace: a non-empty str, or GLOBAL_NAMESPACE; required.

    Returns:
        cls.

    Raises:
        TypeError: cls is not a class, namespace not a str, or path_entry_type not an entry.
        ValueError: cls is a built-in node type, or registered in namespace already.

    Example:
        >>> class Pair:
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        >>> _ = grove.register_pytree_node(
        ...     Pair, lambda p: ((p.a, p.b), None), lambda m, c: Pair(*c), namespace='ex')
        >>> grove.tree_leaves(Pair(1, (2, 3)), namespace='ex')
        [1, 2, 3]
        >>> len(grove.tree_leaves(Pair(1, 2)))  # in the global namespace, a leaf
        1
        >>> _ = grove.unregister_pytree_node(Pair, namespace='ex')
    """
    if not isinstance(cls, type):
        raise TypeError(f'Expected a class, got {cls!r}.')
    ns = _check_namespace(namespace)
    if cls in _BUILTIN_NODE_TYPES:
        raise ValueError(f'PyTree type {cls!r} is a built-in type and cannot be re-registered.')
    if path_entry_type is not None and not (isinstance(path_entry_type, type)
                                            and issubclass(path_entry_type, PyTreeEntry)):
        raise TypeError(f'Expected a subclass of PyTreeEntry, got {path_entry_type!r}.')
    if _is_namedtuple_class(cls):
        warnings.warn(f'PyTree type {cls!r} is a subclass of `collections.namedtuple`, '
                      'which is already registered in the global namespace. '
                      'Override it with custom flatten/unflatten functions.',
                      category=UserWarning, stacklevel=2)
    table = _REGISTRY.setdefault(ns, {})
    if cls in table:
        where = 'the global namespace' if ns == '' else f'namespace {ns!r}'
        raise ValueError(f'PyTree type {cls!r} is already registered in {where}.')
    table[cls] = (cls, flatten_func, unflatten_func, path_entry_type)
    _grove._registry_changed()
    return cls


def register_pytree_node_class(cls=None, *, path_entry_type=None, namespace=None):
    """Class decorator: register a class through its own methods, tree_flatten() and the
    classmethod tree_unflatten(metadata, children) (or __tree_flatten__ and
    __tree_unflatten__).

    Args:
        cls: the class; or the namespace (then it returns the decorator).
        path_entry_type: the PyTreeEntry subclass of its children's path entries.
        namespace: a non-empty str, or GLOBAL_NAMESPACE; required.

    Returns:
        cls, or a decorator when cls is not given.

    Raises:
        ValueError: no namespace, or cls registered in it already.
        TypeError: cls is not a class.

    Example:
        >>> @grove.register_pytree_node_class(namespace='ex')
        ... class Pair:
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        ...     def tree_flatten(self):
        ...         return (self.a, self.b), None
        ...     @classmethod
        ...     def tree_unflatten(cls, metadata, children):
        ...         return cls(*children)
        >>> grove.tree_map(lambda x: x * 10, Pair(1, 2), namespace='ex').b
        20
        >>> _ = grove.unregister_pytree_node(Pair, namespace='ex')
    """
    if cls is None or isinstance(cls, (str, _GlobalNamespace)):
        if cls is not None:
            if namespace is not None:
                raise ValueError('Cannot specify `namespace` when the first argument is a string.')
            namespace = cls
        if namespace is None:
            raise ValueError('Must specify `namespace` when the first argument is a class.')

        def decorator(c):
            return register_pytree_node_class(c, path_entry_type=path_entry_type,
                                              namespace=namespace)

        return decorator
    if namespace is None:
        raise ValueError('Must specify `namespace` when the first argument is a class.')
    if not isinstance(cls, type):
        raise TypeError(f'Expected a class, got {cls!r}.')
    if callable(getattr(cls, '__tree_flatten__', None)) and callable(
            getattr(cls, '__tree_unflatten__', None)):
        flatten, unflatten = operator.methodcaller('__tree_flatten__'), cls.__tree_unflatten__
    elif callable(getattr(cls, 'tree_flatten', None)) and callable(
            getattr(cls, 'tree_unflatten', None)):
        flatten, unflatten = operator.methodcaller('tree_flatten'), cls.tree_unflatten
    else:
        raise TypeError(f'{cls!r} must define both `__tree_flatten__` and `__tree_unflatten__` '
                        'methods for registration as a pytree node.')
    if path_entry_type is None:
        path_entry_type = getattr(cls, 'TREE_PATH_ENTRY_TYPE', None)
    return register_pytree_node(cls, flatten, unflatten, path_entry_type=path_entry_type,
                                namespace=namespace)


def unregister_pytree_node(cls, *, namespace):
    """Remove cls from namespace's registry; returns its registration."""
    if not isinstance(cls, type):
        raise TypeError(f'Expected a class, got {cls!r}.')
    ns = _check_namespace(namespace)
    if cls in _BUILTIN_NODE_TYPES:
        raise ValueError(f'PyTree type {cls!r} is a built-in type and cannot be unregistered.')
    table = _REGISTRY.get(ns, {})
    if cls not in table:
        where = 'the global namespace' if ns == '' else f'namespace {ns!r}'
        raise ValueError(f'PyTree type {cls!r} is not registered in {where}.')
    entry = table.pop(cls)
    _grove._registry_changed()
    return entry


# ---------------------------------------------------------------------------
# Functions built on the extension
# ---------------------------------------------------------------------------


def tree_is_leaf(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """Whether tree is a leaf: it flattens to itself.

    Args:
        tree: any object.
        is_leaf: a predicate making the subtrees it accepts leaves, or None.
        none_is_leaf: whether None is a leaf.
        namespace: the registry namespace of custom node types.

    Returns:
        A bool.

    Example:
        >>> grove.tree_is_leaf(1), grove.tree_is_leaf([1]), grove.tree_is_leaf(None)
        (True, False, False)
        >>> grove.tree_is_leaf(None, none_is_leaf=True)
        True
    """
    return _grove._is_leaf(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace) == _LEAF


def all_leaves(iterable, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """Whether every item of iterable is a leaf."""
    return all(
        _grove._is_leaf(x, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace) == _LEAF
        for x in iterable)


def tree_iter(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """An iterator over the leaves of tree, walked as it is consumed: is_leaf and the
    flatten functions run on next(), not at the call (as optree). Dicts are ordered as
    dict_insertion_ordered says at the call."""
    ordered = _is_dict_insertion_ordered(namespace)
    return _iter_leaves(tree, is_leaf, none_is_leaf, namespace, ordered)


_MAX_CUSTOM_DEPTH = 10_000  # registered classes nested on one path (the flatten walk's limit)


def _iter_leaves(tree, is_leaf, none_is_leaf, namespace, ordered):
    # depth-first with the containers on the current path (by identity): a container inside
    # itself, or registered classes nested deeper than the flatten walk allows, raise
    # RecursionError as the walk does
    on_path = set()
    stack = [(tree, False, 0)]
    while stack:
        node, leaving, ncust = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        kind = _grove._is_leaf(node, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
        if kind == _LEAF:
            yield node
            continue
        if kind == _NONE:
            continue
        if id(node) in on_path:
            raise RecursionError(f'the tree contains a cycle: a {type(node).__name__} is in '
                                 'itself')
        if kind == _CUSTOM:
            ncust += 1
            if ncust > _MAX_CUSTOM_DEPTH:
                raise RecursionError('Maximum recursion depth exceeded during flattening the '
                                     f'tree: {_MAX_CUSTOM_DEPTH} custom nodes nested')
        if kind in (_DICT, _DDICT):
            keys = list(node) if ordered else _key_sorted(node)
            children = [node[k] for k in keys]
        else:  # (is_leaf was asked about node above: not again)
            children = _flatten_one_level(node, None, none_is_leaf, namespace)[0]
        on_path.add(id(node))
        stack.append((node, True, ncust))
        stack.extend((c, False, ncust) for c in reversed(children))


def tree_paths(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The path of every leaf, in leaf order (tree_flatten_with_path's first result).

    Args:
        tree: the pytree.
        is_leaf: a predicate making the subtrees it accepts leaves, or None.
        none_is_leaf: whether None is a leaf.
        namespace: the registry namespace of custom node types.

    Returns:
        A list of tuples of entries.

    Raises:
        ValueError: the output would be over grove.set_output_limit's bound.

    Example:
        >>> grove.tree_paths({'a': [1, 2], 'b': None})
        [('a', 0), ('a', 1)]
    """
    return tree_structure(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace).paths()


def tree_map_with_path(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """tree_map whose func also gets each leaf's path first: func(path, leaf, *others).

    Args:
        func: called as func(path, leaf, *subtrees_of_rests) at every leaf of tree.
        tree: the pytree whose structure the result has.
        *rests: more pytrees, each with tree's structure or one it is a prefix of.
        is_leaf: a predicate making the subtrees it accepts leaves, or None.
        none_is_leaf: whether None is a leaf.
        namespace: the registry namespace of custom node types.

    Returns:
        A new tree of tree's structure holding func's results.

    Raises:
        ValueError: a tree in rests does not have tree's structure.
        Whatever func raises.

    Example:
        >>> grove.tree_map_with_path(lambda p, x: (p, x), {'a': 1, 'b': (2,)})
        {'a': (('a',), 1), 'b': ((('b', 0), 2),)}
    """
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, spec.paths(), *flat))


def tree_reduce(func, tree, initial=_MISSING, *, is_leaf=None, none_is_leaf=False, namespace=''):
    """functools.reduce of func over the leaves, left to right.

    Args:
        func: func(accumulated, leaf) -> the new accumulated value.
        tree: the pytree.
        initial: the first accumulated value (default: the first leaf).
        is_leaf: a predicate making the subtrees it accepts leaves, or None.
        none_is_leaf: whether None is a leaf.
        namespace: the registry namespace of custom node types.

    Returns:
        The last accumulated value.

    Raises:
        TypeError: the tree has no leaves and no initial is given.

    Example:
        >>> import operator
        >>> grove.tree_reduce(operator.add, [1, (2, 3)])
        6
        >>> grove.tree_reduce(operator.add, [1, (2, 3)], 10)
        16
    """
    leaves = tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    if initial is _MISSING:
        return _functools.reduce(func, leaves)
    return _functools.reduce(func, leaves, initial)


def tree_all(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """Whether every leaf of tree is true (all() over the leaves; True for no leaves).

    Args:
        tree: the pytree.
        is_leaf: a predicate making the subtrees it accepts leaves, or None.
        none_is_leaf: whether None is a leaf (then a None counts as false).
        namespace: the registry namespace of custom node types.

    Returns:
        A bool.

    Raises:
        TypeError: is_leaf is not callable, or namespace is not a str.

    Example:
        >>> grove.tree_all([1, (True, 'x')]), grove.tree_all([1, (0,)]), grove.tree_all([])
        (True, False, True)
    """
    return all(tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace))


def tree_any(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """Whether some leaf of tree is true (any() over the leaves; False for no leaves).

    Args:
        tree: the pytree.
        is_leaf: a predicate making the subtrees it accepts leaves, or None.
        none_is_leaf: whether None is a leaf.
        namespace: the registry namespace of custom node types.

    Returns:
        A bool.

    Raises:
        TypeError: is_leaf is not callable, or namespace is not a str.

    Example:
        >>> grove.tree_any([0, (None, '')]), grove.tree_any([0, (None, 'x')])
        (False, True)
    """
    return any(tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace))


def tree_transpose(outer_treespec, inner_treespec, tree, is_leaf=None):
    """Turn a tree of shape outer∘inner into one of shape inner∘outer.

    Args:
        outer_treespec: the outer structure (a TreeSpec).
        inner_treespec: the structure found at each of its leaves.
        tree: a pytree of the structure outer_treespec.compose(inner_treespec).
        is_leaf: a predicate making the subtrees it accepts leaves, or None.

    Returns:
        A tree of inner_treespec's structure whose leaves are trees of outer_treespec's.

    Raises:
        ValueError: the two structures differ in none_is_leaf or namespace, or one has no
            leaves.
        TypeError: tree's structure is not the composition.

    Example:
        >>> outer = grove.tree_structure([0, 0])
        >>> inner = grove.tree_structure({'x': 0, 'y': 0})
        >>> grove.tree_transpose(outer, inner, [{'x': 1, 'y': 2}, {'x': 3, 'y': 4}])
        {'x': [1, 3], 'y': [2, 4]}
    """
    if outer_treespec.none_is_leaf != inner_treespec.none_is_leaf:
        raise ValueError('Tree structures must have the same none_is_leaf value.')
    outer_size, inner_size = outer_treespec.num_leaves, inner_treespec.num_leaves
    if outer_size == 0 or inner_size == 0:
        raise ValueError('Tree structures must have at least one leaf.')
    if (outer_treespec.namespace and inner_treespec.namespace
            and outer_treespec.namespace != inner_treespec.namespace):
        raise ValueError('Tree structures must have the same namespace, '
                         f'got {outer_treespec.namespace!r} vs. {inner_treespec.namespace!r}.')
    leaves, treespec = tree_flatten(tree, is_leaf, none_is_leaf=outer_treespec.none_is_leaf,
                                    namespace=outer_treespec.namespace or inner_treespec.namespace)
    if treespec.num_leaves != outer_size * inner_size:
        expected = _compose(outer_treespec, inner_treespec)
        raise TypeError(f'Tree structure mismatch; expected: {expected}, got: {treespec}.')
    grouped = [leaves[o:o + inner_size] for o in range(0, outer_size * inner_size, inner_size)]
    subtrees = map(outer_treespec.unflatten, zip(*grouped))
    return inner_treespec.unflatten(subtrees)


def tree_broadcast_prefix(prefix_tree, full_tree, is_leaf=None, *, none_is_leaf=False,
                          namespace=''):
    """prefix_tree with each leaf repeated over the leaves of full_tree's subtree there."""

    def broadcast_leaves(x, subtree):
        sub = tree_structure(subtree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
        return sub.unflatten(itertools.repeat(x, sub.num_leaves))

    return tree_map(broadcast_leaves, prefix_tree, full_tree, is_leaf=is_leaf,
                    none_is_leaf=none_is_leaf, namespace=namespace)


class FlattenOneLevelOutput(typing.NamedTuple):
    """tree_flatten_one_level's result."""

    children: list
    metadata: typing.Any
    entries: tuple
    unflatten_func: typing.Callable


class FlattenOneLevelOutputEx(FlattenOneLevelOutput):
    """FlattenOneLevelOutput, plus the node's type, path_entry_type and kind (attributes)."""


def tree_flatten_one_level(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """(children, metadata, entries, unflatten_func) of tree's root node, as optree's
    FlattenOneLevelOutputEx named tuple."""
    if namespace is GLOBAL_NAMESPACE:  # (optree accepts it here)
        namespace = ''
    out = FlattenOneLevelOutputEx(*_flatten_one_level(tree, is_leaf, none_is_leaf, namespace))
    out.type = type(tree)
    out.kind = _specs._KINDS[_grove._is_leaf(tree, is_leaf, none_is_leaf=none_is_leaf,
                                             namespace=namespace)]
    if out.kind == PyTreeKind.CUSTOM:
        out.path_entry_type = _registry_get(out.type, namespace=namespace).path_entry_type
    else:
        out.path_entry_type = _specs._ENTRY_TYPES.get(out.kind, PyTreeEntry)
    return out


def _flatten_one_level(tree, is_leaf, none_is_leaf, namespace):
    if namespace is GLOBAL_NAMESPACE:  # (optree accepts it here)
        namespace = ''
    node_type = type(tree)
    kind = _grove._is_leaf(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    if kind == _LEAF:
        raise ValueError(f'Cannot flatten leaf-type: {node_type} (node: {tree!r}).')
    if kind == _CUSTOM:
        reg = _REGISTRY.get(namespace, {}).get(node_type) or _REGISTRY[''].get(node_type)
        returned = tuple(reg[1](tree))
        if len(returned) == 2:
            children, metadata, entries = (*returned, None)
        elif len(returned) == 3:
            children, metadata, entries = returned
        else:
            raise RuntimeError(f'PyTree custom flatten function for type {node_type} should '
                               f'return a 2- or 3-tuple, got {len(returned)}.')
        children = list(children)
        entries = tuple(range(len(children)) if entries is None else entries)
        if len(children) != len(entries):
            raise RuntimeError(
                f'PyTree custom flatten function for type {node_type} returned inconsistent '
                f'number of children ({len(children)}) and number of entries ({len(entries)}).')
        return children, metadata, entries, reg[2]
    spec = tree_structure(tree, lambda x: x is not tree, none_is_leaf=none_is_leaf,
                          namespace=namespace)
    children = spec.flatten_up_to(tree)
    k, _, cls, extra = spec._info()
    if kind == _NONE:
        return [], None, (), _none_unflatten
    if kind in (_LIST, _TUPLE):
        return children, None, tuple(range(len(children))), (
            lambda _m, c: list(c)) if kind == _LIST else (lambda _m, c: tuple(c))
    if kind == _ODICT:
        keys = list(extra)
        return children, keys, tuple(keys), lambda m, c: collections.OrderedDict(zip(m, c))
    if kind == _DICT:
        keys = _DictMetaData(extra, tree.keys())
        return children, keys, tuple(keys), _dict_unflatten
    if kind == _DDICT:
        keys = _DictMetaData(extra, tree.keys())
        return children, (cls, keys), tuple(keys), (
            lambda m, c: collections.defaultdict(m[0], _dict_unflatten(m[1], c)))
    if kind == _DEQUE:
        return children, extra, tuple(range(len(children))), (
            lambda m, c: collections.deque(c, maxlen=m))
    if kind == _NT:
        return children, node_type, tuple(range(len(children))), lambda m, c: m(*c)
    return children, node_type, tuple(range(len(children))), lambda m, c: m(tuple(c))


# ---------------------------------------------------------------------------
# TreeSpec methods written in Python (python/grove/_spec_methods.py; the hot ones are in C)
# ---------------------------------------------------------------------------

from grove._spec_methods import _compose, _entries, _is_prefix, _spec_paths  # noqa: E402,F401


# ---------------------------------------------------------------------------
# optree's API beyond the core (python/grove/_ops.py, _specs.py, accessors.py, typing.py)
# ---------------------------------------------------------------------------

from grove import _ops, _specs  # noqa: E402
from grove._ops import *  # noqa: E402,F401,F403
from grove._specs import (  # noqa: E402,F401
    treespec_defaultdict,
    treespec_deque,
    treespec_dict,
    treespec_from_collection,
    treespec_frozendict,
    treespec_leaf,
    treespec_list,
    treespec_namedtuple,
    treespec_none,
    treespec_ordereddict,
    treespec_structseq,
    treespec_tuple,
)
from grove.accessors import (  # noqa: E402,F401
    AutoEntry,
    DataclassEntry,
    FlattenedEntry,
    GetAttrEntry,
    GetItemEntry,
    MappingEntry,
    NamedTupleEntry,
    PyTreeAccessor,
    PyTreeEntry,
    PyTreeKind,
    SequenceEntry,
    StructSequenceEntry,
)
from grove.typing import (  # noqa: E402,F401
    CustomTreeNode,
    FlattenFunc,
    PyTree,
    PyTreeTypeVar,
    UnflattenFunc,
    is_namedtuple,
    is_namedtuple_class,
    is_namedtuple_instance,
    is_structseq,
    is_structseq_class,
    is_structseq_instance,
    namedtuple_fields,
    structseq_fields,
)

_specs.install()
_is_namedtuple_class = is_namedtuple_class
# optree's submodules, imported with the package as optree's are (grove.functools registers
# grove.functools.partial, as optree does; grove.integrations imports its libraries lazily)
import grove.accessors  # noqa: E402
import grove.dataclasses  # noqa: E402
import grove.functools  # noqa: E402
import grove.integrations  # noqa: E402
import grove.treespec  # noqa: E402
import grove.typing  # noqa: E402
import grove.utils  # noqa: E402,F401
from grove._install import install_as_optree  # noqa: E402,F401
from grove._mutate import MUTATIONS, mutate  # noqa: E402,F401 (docs/python.md, "grove.mutate")



def _check_ns_arg(namespace):
    if namespace is GLOBAL_NAMESPACE:
        return ''
    if not isinstance(namespace, str):
        raise TypeError(f'The namespace must be a string, got {namespace!r}.')
    return namespace


from grove._registry_info import (  # noqa: E402,F401
    PyTreeNodeRegistryEntry,
    _builtin_entries,
    _dict_unflatten,
    _DictMetaData,
    _global_registry_view,
    _is_dict_insertion_ordered,
    _key_sorted,
    _none_unflatten,
    _registry_get,
    _registry_size,
    dict_insertion_ordered,
)
from grove._specs import (  # noqa: E402,F401
    treespec_accessors,
    treespec_child,
    treespec_children,
    treespec_entries,
    treespec_entry,
    treespec_is_leaf,
    treespec_is_one_level,
    treespec_is_prefix,
    treespec_is_strict_leaf,
    treespec_is_suffix,
    treespec_one_level,
    treespec_paths,
    treespec_transform,
)

import grove.pytree  # noqa: E402,F401 (optree.pytree: needs every name above)
# Dynamo stand-ins for the C functions (python/grove/_reference.py), registered when
# torch._dynamo is imported, now or later (python/grove/_dynamo.py); grove never imports torch
import grove._dynamo  # noqa: E402,F401
