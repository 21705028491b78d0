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
import pickle
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
    """Register cls as a node: flatten_func(obj) -> (children, metadata[, entries]),
    unflatten_func(metadata, children) -> obj. namespace is required (a non-empty
    str, or GLOBAL_NAMESPACE)."""
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
    """Class decorator: register a class with tree_flatten/tree_unflatten
    (or __tree_flatten__/__tree_unflatten__) methods."""
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
    """Whether tree is a leaf (flattens to itself)."""
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


def tree_flatten_with_path(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """(paths, leaves, treespec)."""
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec.paths(), leaves, spec


def tree_paths(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The path of every leaf, in leaf order."""
    return tree_structure(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace).paths()


def tree_map_with_path(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    """tree_map whose func also gets each leaf's path first."""
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, spec.paths(), *flat))


def tree_reduce(func, tree, initial=_MISSING, *, is_leaf=None, none_is_leaf=False, namespace=''):
    """functools.reduce over the leaves."""
    leaves = tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    if initial is _MISSING:
        return _functools.reduce(func, leaves)
    return _functools.reduce(func, leaves, initial)


def tree_all(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """all() over the leaves."""
    return all(tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace))


def tree_any(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """any() over the leaves."""
    return any(tree_leaves(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace))


def tree_transpose(outer_treespec, inner_treespec, tree, is_leaf=None):
    """Turn a tree of shape outer∘inner into one of shape inner∘outer."""
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
# TreeSpec methods written in Python (the hot ones are in C)
# ---------------------------------------------------------------------------


def _entries(spec):
    kind, arity, cls, extra = spec._info()
    if kind in (_DICT, _ODICT, _DDICT):
        return list(extra)
    if kind == _CUSTOM and extra is not None and extra[1] is not None:
        return list(extra[1])
    return list(range(arity))


def _spec_paths(spec):
    """Paths of the leaves of spec, in Python (the reference for TreeSpec.paths, in C)."""
    out = []
    stack = [(spec, ())]
    while stack:
        s, path = stack.pop()
        if s.is_leaf():
            out.append(path)
            continue
        kids = s.children()
        ents = _entries(s)
        for e, c in reversed(list(zip(ents, kids))):
            stack.append((c, path + (e,)))
    return out


def _compose(outer, inner):
    """outer with every leaf replaced by inner (both of one namespace, or one of none)."""
    if outer.none_is_leaf != inner.none_is_leaf:
        raise ValueError('PyTreeSpecs must have the same none_is_leaf value.')
    if outer.namespace and inner.namespace and outer.namespace != inner.namespace:
        raise ValueError(f'PyTreeSpecs must have the same namespace, got {outer.namespace!r} '
                         f'vs. {inner.namespace!r}.')
    mark = object()
    sub = inner.unflatten([mark] * inner.num_leaves)
    tree = outer.unflatten([sub] * outer.num_leaves)
    return tree_structure(tree, lambda x: x is mark, none_is_leaf=outer.none_is_leaf,
                          namespace=outer.namespace or inner.namespace)


def _is_prefix(self, other, strict=False):
    """Whether self is a prefix of other: other matches self down to self's
    leaves, where other may hold any subtree (optree's rule: dict kinds are
    interchangeable with equal key sets, a deque's maxlen and a defaultdict's
    factory are not compared). strict: and other is not just self again."""
    if not isinstance(other, TreeSpec):
        raise TypeError(f'Expected a TreeSpec, got {other!r}.')
    if self.none_is_leaf != other.none_is_leaf:
        return False
    if self.namespace and other.namespace and self.namespace != other.namespace:
        return False
    dicts = (_DICT, _ODICT, _DDICT)
    all_leaves_match = True
    stack = [(self, other)]
    while stack:
        a, b = stack.pop()
        if a == b:  # O(1): the same structure (shared subtrees are met once per pair)
            continue
        if a.is_leaf():
            all_leaves_match = False
            continue
        ka, na, ca, ea = a._info()
        kb, nb, cb, eb = b._info()
        if na != nb:
            return False
        if ka in dicts:
            if kb not in dicts or set(ea) != set(eb):
                return False
            bkids = dict(zip(eb, b.children()))
            stack.extend((x, bkids[k]) for k, x in zip(ea, a.children()))
            continue
        if ka != kb:
            return False
        if ka in (_NT, _SS) and ca is not cb:
            return False
        if ka == _CUSTOM and (ca is not cb or ea[0] != eb[0]):
            return False
        stack.extend(zip(a.children(), b.children()))
    return not strict or not all_leaves_match


# ---- wire and pickle ----

_WIRE_MAGIC = b'grove-treespec-1'


def _to_bytes(self):
    """The structure as bytes: grove's wire encoding plus the Python objects it
    names (classes by module and qualname; handles' objects pickled)."""
    wire, handles, names = _grove._spec_refs(self)
    objs = {h: _grove._handle_object(self, h) for h in handles}
    classes = {}
    for name in names:
        if name == 'NoneType':
            continue
        obj = _grove._object_named(name)
        classes[name] = obj
    return pickle.dumps((_WIRE_MAGIC, wire, objs, classes, self.none_is_leaf, self.namespace),
                        protocol=pickle.HIGHEST_PROTOCOL)


def _from_bytes(data, *, max_size=100_000_000):
    """A TreeSpec from to_bytes() output (classes re-imported by name).

    The encoding writes a repeated subtree once, so a few bytes can describe a structure
    far too large to use; one larger than max_size nodes (and bytes of str keys) written
    out raises ValueError (None or 0: no bound). Every object decoded is checked for kind
    and type before use: what is not a structure as to_bytes writes one raises ValueError.
    Like any pickle, load only data you trust."""
    if max_size is not None and (type(max_size) is not int or max_size < 0):
        raise ValueError(f'max_size must be None or an int >= 0, got {max_size!r}')
    payload = pickle.loads(data)
    if (type(payload) is not tuple or len(payload) != 6 or type(payload[0]) is not bytes
            or payload[0] != _WIRE_MAGIC):
        raise ValueError('not a grove TreeSpec encoding')
    _, wire, objs, classes, none_is_leaf, namespace = payload
    for what, value, want in (('wire', wire, bytes), ('handle objects', objs, dict),
                              ('classes', classes, dict), ('none_is_leaf', none_is_leaf, bool),
                              ('namespace', namespace, str)):
        if type(value) is not want:
            raise ValueError(f'grove: malformed TreeSpec encoding: its {what} is a '
                             f'{type(value).__name__}, not a {want.__name__}')
    if any(type(h) is not int or h < 1 for h in objs):
        raise ValueError('grove: malformed TreeSpec encoding: a handle is not a positive int')
    for name, obj in classes.items():
        if type(name) is not str or name == 'NoneType':
            raise ValueError(f'grove: malformed TreeSpec encoding: a class name is {name!r}')
        if not (isinstance(obj, type) or callable(obj) or obj is None):
            raise ValueError(f'grove: malformed TreeSpec encoding: {name!r} names {obj!r}, '
                             'neither a class nor a default factory')
        if _grove._name_for(obj) != name:
            raise ValueError(f'cannot load a TreeSpec naming {obj!r}: in this process its '
                             f'name is {_grove._name_for(obj)!r}, not {name!r}')
    return _grove._spec_from_wire(wire, objs, classes, none_is_leaf, namespace, max_size or 0)


def _reduce(self):
    return (_from_bytes, (_to_bytes(self),))


TreeSpec.entries = lambda self: _entries(self)
TreeSpec.is_prefix = _is_prefix
TreeSpec.is_suffix = lambda self, other, strict=False: _is_prefix(other, self, strict)
TreeSpec.compose = _compose
TreeSpec.to_bytes = _to_bytes
TreeSpec.from_bytes = staticmethod(_from_bytes)
TreeSpec.__reduce__ = _reduce
TreeSpec.kind = property(lambda self: self._info()[0])


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
