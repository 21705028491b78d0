# SPDX-License-Identifier: MIT
"""TreeSpec's structural functions written in Python: the treespec_* constructors, one_level,
transform, accessors, traverse / walk, prefix ordering (<, <=, >, >=), and the kinds as
optree's PyTreeKind. Specs are put together by building an object of markers and taking its
structure (grove's structures are interned, so the result is the same node flattening the
real object would give)."""

from __future__ import annotations

import collections
import operator
import warnings

from grove import _grove
from grove._grove import TreeSpec, _graft_seq, tree_structure
from grove._grove import _accessors as _c_accessors
from grove.accessors import (
    AutoEntry,
    MappingEntry,
    NamedTupleEntry,
    PyTreeAccessor,
    PyTreeEntry,
    PyTreeKind,
    SequenceEntry,
    StructSequenceEntry,
)

# grove's kind numbers (the extension's) -> optree's
_KINDS = (PyTreeKind.LEAF, PyTreeKind.NONE, PyTreeKind.LIST, PyTreeKind.TUPLE, PyTreeKind.DICT,
          PyTreeKind.ORDEREDDICT, PyTreeKind.DEFAULTDICT, PyTreeKind.DEQUE,
          PyTreeKind.NAMEDTUPLE, PyTreeKind.STRUCTSEQUENCE, PyTreeKind.CUSTOM)

_ENTRY_TYPES = {
    PyTreeKind.TUPLE: SequenceEntry, PyTreeKind.LIST: SequenceEntry,
    PyTreeKind.DEQUE: SequenceEntry, PyTreeKind.DICT: MappingEntry,
    PyTreeKind.ORDEREDDICT: MappingEntry, PyTreeKind.DEFAULTDICT: MappingEntry,
    PyTreeKind.NAMEDTUPLE: NamedTupleEntry, PyTreeKind.STRUCTSEQUENCE: StructSequenceEntry,
}


class _Mark:
    """A placeholder leaf while a structure is put together."""

    __slots__ = ()


_MARK = _Mark()


# kinds whose structure depends on the namespace (its registrations, its dict order)
_NAMESPACED = (PyTreeKind.CUSTOM, PyTreeKind.DICT, PyTreeKind.DEFAULTDICT)


def _is_mark(x):
    return type(x) is _Mark


def _kind(spec):
    return _KINDS[spec._info()[0]]


def _marks(n):
    return [_Mark() for _ in range(n)]


def _registration(spec):
    from grove import _REGISTRY
    cls = spec.type
    ns = spec.namespace
    return (_REGISTRY.get(ns, {}).get(cls) if ns else None) or _REGISTRY[''].get(cls)


def _check_children(children, none_is_leaf, namespace, collection=None):
    """The namespace the children agree on (optree's rules: the same none_is_leaf; at most one
    non-empty namespace besides the one given; for a collection, a namespace given is the
    one every child's non-empty namespace must be)."""
    given = namespace if collection is not None else ''
    for c in children:
        if not isinstance(c, TreeSpec):
            if collection is None:
                raise TypeError(f'Expected a(n) PyTreeSpec, got {c!r}.')
            raise ValueError(f'Expected a(n) {type(collection).__name__} of PyTreeSpec(s), '
                             f'got {collection!r}.')
        if c.none_is_leaf != none_is_leaf:
            if none_is_leaf:
                raise ValueError('Expected treespec(s) with `none_is_leaf=True`.')
            raise ValueError('Expected treespec(s) with `none_is_leaf=False`.')
        if c.namespace and given and c.namespace != given:
            raise ValueError(f'Expected treespec(s) with namespace {given!r}, got '
                             f'{c.namespace!r}.')
        if c.namespace:
            if namespace and c.namespace != namespace:
                raise ValueError(f'Expected treespecs with the same namespace, got '
                                 f'{namespace!r} vs. {c.namespace!r}.')
            namespace = c.namespace
    return namespace


def _graft(top, children, none_is_leaf, namespace, keep=True, collection=None):
    """The structure of top (a one-level structure; None: collection's own type, an exact
    tuple or list) with its leaves replaced by children's structures."""
    given = namespace
    namespace = _check_children(children, none_is_leaf, namespace, collection)
    if not keep and namespace == given and (top is None or _kind(top) not in _NAMESPACED) and not any(
            c.namespace for c in children):
        namespace = ''  # (as optree: a namespace only where it changed something)
    subtrees = [c.unflatten([_MARK] * c.num_leaves) for c in children]
    obj = top.unflatten(subtrees) if top is not None else type(collection)(subtrees)
    # (a _Mark is a leaf in every namespace: no class of grove's is registered)
    return tree_structure(obj, none_is_leaf=none_is_leaf, namespace=namespace)


def treespec_from_collection(collection, /, *, none_is_leaf=False, namespace=''):
    """The structure of collection, one level deep, each of its items a TreeSpec.

    Args:
        collection: a node (tuple, list, dict, ..., a registered class) of TreeSpecs.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Raises:
        ValueError: an item is not a TreeSpec, or they differ in none_is_leaf.

    Example:
        >>> leaf = grove.treespec_leaf()
        >>> grove.treespec_from_collection((leaf, grove.treespec_list([leaf])))
        PyTreeSpec((*, [*]))
    """
    if type(collection) in (tuple, list):  # one level of a tuple or list: made directly
        spec = _graft_seq(collection, type(collection) is list, none_is_leaf, namespace)
        if spec is not None:
            return spec
    from grove import _check_ns_arg
    namespace = _check_ns_arg(namespace)
    if type(collection) in (tuple, list):
        return _graft(None, collection, none_is_leaf, namespace, keep=False,
                      collection=collection)
    top = tree_structure(collection, lambda x: x is not collection, none_is_leaf=none_is_leaf,
                         namespace=namespace)
    if top.is_leaf():
        warnings.warn('PyTreeSpec::MakeFromCollection() is called on a leaf.', UserWarning,
                      stacklevel=2)
        return treespec_leaf(none_is_leaf=none_is_leaf, namespace=namespace)
    children = top.flatten_up_to(collection)
    return _graft(top, children, none_is_leaf, namespace, keep=False, collection=collection)


def treespec_leaf(*, none_is_leaf=False, namespace=''):
    """The structure of a single leaf.

    Args:
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> grove.treespec_leaf()
        PyTreeSpec(*)
    """
    from grove import _check_ns_arg
    _check_ns_arg(namespace)
    return tree_structure(_Mark(), none_is_leaf=none_is_leaf)


def treespec_none(*, none_is_leaf=False, namespace=''):
    """The structure of None (a leaf when none_is_leaf).

    Args:
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> grove.treespec_none()
        PyTreeSpec(None)
    """
    from grove import _check_ns_arg
    _check_ns_arg(namespace)
    return tree_structure(None, none_is_leaf=none_is_leaf)


def treespec_tuple(iterable=(), /, *, none_is_leaf=False, namespace=''):
    """A tuple of the given structures.

    Args:
        iterable: TreeSpecs, the children.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> leaf = grove.treespec_leaf()
        >>> grove.treespec_tuple([leaf, leaf])
        PyTreeSpec((*, *))
    """
    spec = _graft_seq(iterable, False, none_is_leaf, namespace)  # (None: the cases below)
    if spec is not None:
        return spec
    return treespec_from_collection(tuple(iterable), none_is_leaf=none_is_leaf,
                                    namespace=namespace)


def treespec_list(iterable=(), /, *, none_is_leaf=False, namespace=''):
    """A list of the given structures.

    Args:
        iterable: TreeSpecs, the children.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> grove.treespec_list([grove.treespec_leaf(), grove.treespec_none()])
        PyTreeSpec([*, None])
    """
    spec = _graft_seq(iterable, True, none_is_leaf, namespace)  # (None: the cases below)
    if spec is not None:
        return spec
    return treespec_from_collection(list(iterable), none_is_leaf=none_is_leaf,
                                    namespace=namespace)


def treespec_dict(mapping=(), /, *, none_is_leaf=False, namespace='', **kwargs):
    """A dict of the given structures.

    Args:
        mapping: key -> TreeSpec (a mapping or pairs).
        **kwargs: more keys.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> leaf = grove.treespec_leaf()
        >>> grove.treespec_dict(b=leaf, a=leaf)
        PyTreeSpec({'a': *, 'b': *})
    """
    return treespec_from_collection(dict(mapping, **kwargs), none_is_leaf=none_is_leaf,
                                    namespace=namespace)


def treespec_ordereddict(mapping=(), /, *, none_is_leaf=False, namespace='', **kwargs):
    """An OrderedDict of the given structures.

    Args:
        mapping: key -> TreeSpec (a mapping or pairs), in order.
        **kwargs: more keys.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> leaf = grove.treespec_leaf()
        >>> grove.treespec_ordereddict(b=leaf, a=leaf)
        PyTreeSpec(OrderedDict({'b': *, 'a': *}))
    """
    return treespec_from_collection(collections.OrderedDict(mapping, **kwargs),
                                    none_is_leaf=none_is_leaf, namespace=namespace)


def treespec_defaultdict(default_factory=None, mapping=(), /, *, none_is_leaf=False,
                         namespace='', **kwargs):
    """A defaultdict (of default_factory) of the given structures.

    Args:
        default_factory: the defaultdict's factory.
        mapping: key -> TreeSpec (a mapping or pairs).
        **kwargs: more keys.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> grove.treespec_defaultdict(list, a=grove.treespec_leaf())
        PyTreeSpec(defaultdict(<class 'list'>, {'a': *}))
    """
    return treespec_from_collection(
        collections.defaultdict(default_factory, mapping, **kwargs), none_is_leaf=none_is_leaf,
        namespace=namespace)


def treespec_deque(iterable=(), /, maxlen=None, *, none_is_leaf=False, namespace=''):
    """A deque (of maxlen) of the given structures.

    Args:
        iterable: TreeSpecs, the children.
        maxlen: the deque's maxlen.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Example:
        >>> grove.treespec_deque([grove.treespec_leaf()], maxlen=3)
        PyTreeSpec(deque([*], maxlen=3))
    """
    return treespec_from_collection(collections.deque(iterable, maxlen=maxlen),
                                    none_is_leaf=none_is_leaf, namespace=namespace)


def treespec_namedtuple(namedtuple, /, *, none_is_leaf=False, namespace=''):
    """The structure of a namedtuple instance whose fields are TreeSpecs.

    Args:
        namedtuple: the instance.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Raises:
        ValueError: namedtuple is not a namedtuple instance.

    Example:
        >>> import collections
        >>> Point = collections.namedtuple('Point', 'x y')
        >>> leaf = grove.treespec_leaf()
        >>> grove.treespec_namedtuple(Point(leaf, leaf))
        PyTreeSpec(Point(x=*, y=*))
    """
    from grove.typing import is_namedtuple_instance
    if not is_namedtuple_instance(namedtuple):
        raise ValueError(f'Expected a namedtuple of PyTreeSpec(s), got {namedtuple!r}.')
    return treespec_from_collection(namedtuple, none_is_leaf=none_is_leaf, namespace=namespace)


def treespec_structseq(structseq, /, *, none_is_leaf=False, namespace=''):
    """The structure of a PyStructSequence instance whose fields are TreeSpecs.

    Args:
        structseq: the instance.
        none_is_leaf: whether None is a leaf in the structure.
        namespace: the registry namespace (a str).

    Returns:
        A TreeSpec.

    Raises:
        ValueError: structseq is not a PyStructSequence instance.

    Example:
        >>> import time
        >>> fields = (grove.treespec_leaf(),) * time.struct_time.n_sequence_fields
        >>> grove.treespec_structseq(time.struct_time(fields)).num_leaves
        9
    """
    from grove.typing import is_structseq_instance
    if not is_structseq_instance(structseq):
        raise ValueError(f'Expected a PyStructSequence of PyTreeSpec(s), got {structseq!r}.')
    return treespec_from_collection(structseq, none_is_leaf=none_is_leaf, namespace=namespace)


def treespec_frozendict(mapping=(), /, *, none_is_leaf=False, namespace='', **kwargs):
    """optree's frozendict structure (Python 3.15's frozendict): not on this Python."""
    raise NotImplementedError('frozendict is a node type on Python 3.15 and later only.')


# ---- the treespec_* functions of TreeSpec's methods ----


def treespec_paths(treespec, /):
    return treespec.paths()


def treespec_accessors(treespec, /):
    return treespec.accessors()


def treespec_entries(treespec, /):
    return treespec.entries()


def treespec_entry(treespec, index, /):
    return treespec.entry(index)


def treespec_children(treespec, /):
    return treespec.children()


def treespec_child(treespec, index, /):
    return treespec.child(index)


def treespec_one_level(treespec, /):
    return treespec.one_level()


def treespec_transform(treespec, /, f_node=None, f_leaf=None):
    return treespec.transform(f_node, f_leaf)


def treespec_is_leaf(treespec, /, *, strict=True):
    return treespec.is_leaf(strict=strict)


def treespec_is_strict_leaf(treespec, /):
    return treespec.is_leaf(strict=True)


def treespec_is_one_level(treespec, /):
    return treespec.is_one_level()


def treespec_is_prefix(treespec, other_treespec, /, *, strict=False):
    return treespec.is_prefix(other_treespec, strict=strict)


def treespec_is_suffix(treespec, other_treespec, /, *, strict=False):
    return treespec.is_suffix(other_treespec, strict=strict)


# each function's docstring: what it calls, and an example (the call, its result) on
# {'a': 1, 'b': (2, None)}'s structure
_EXAMPLES = {
    treespec_paths: ('grove.treespec_paths(spec)', "[('a',), ('b', 0)]"),
    treespec_accessors: ("[a.codify('t') for a in grove.treespec_accessors(spec)]",
                         '["t[\'a\']", "t[\'b\'][0]"]'),
    treespec_entries: ('grove.treespec_entries(spec)', "['a', 'b']"),
    treespec_entry: ('grove.treespec_entry(spec, 1)', "'b'"),
    treespec_children: ('grove.treespec_children(spec)', '[PyTreeSpec(*), PyTreeSpec((*, None))]'),
    treespec_child: ('grove.treespec_child(spec, 0)', 'PyTreeSpec(*)'),
    treespec_one_level: ('grove.treespec_one_level(spec)', "PyTreeSpec({'a': *, 'b': *})"),
    treespec_transform: ('grove.treespec_transform(spec, f_leaf=lambda x: grove.treespec_none())',
                         "PyTreeSpec({'a': None, 'b': (None, None)})"),
    treespec_is_leaf: ('grove.treespec_is_leaf(spec)', 'False'),
    treespec_is_strict_leaf: ('grove.treespec_is_strict_leaf(spec)', 'False'),
    treespec_is_one_level: ('grove.treespec_is_one_level(spec)', 'False'),
    treespec_is_prefix: ('grove.treespec_is_prefix(spec, spec)', 'True'),
    treespec_is_suffix: ('grove.treespec_is_suffix(spec, spec)', 'True'),
}
for _f, (_call, _out) in _EXAMPLES.items():
    _m = _f.__name__[len('treespec_'):]
    _m = 'is_leaf(strict=True)' if _m == 'is_strict_leaf' else _m
    _f.__doc__ = f"""treespec.{_m.split('(')[0]}(...) as a function (TreeSpec.{_m}).

    Args:
        treespec: the TreeSpec; the other arguments are the method's.

    Returns:
        What the method returns.

    Example:
        >>> spec = grove.tree_structure({{'a': 1, 'b': (2, None)}})
        >>> {_call}
        {_out}
    """
del _f, _call, _out, _m, _EXAMPLES


# ---- TreeSpec methods ----


def one_level(self, /):
    """The root node with its children replaced by leaves.

    Returns:
        A TreeSpec of one level, or None for a leaf.

    Example:
        >>> grove.tree_structure({'a': 1, 'b': (2, None)}).one_level()
        PyTreeSpec({'a': *, 'b': *})
    """
    if self.is_leaf():
        return None
    obj = self.unflatten(_marks(self.num_leaves))
    return tree_structure(obj, lambda x: x is not obj, none_is_leaf=self.none_is_leaf,
                          namespace=self.namespace)


def is_one_level(self, /):
    """Whether the root is a node whose children are all leaves.

    Returns:
        A bool.

    Example:
        >>> grove.tree_structure((1, 2)).is_one_level()
        True
        >>> grove.tree_structure((1, [2])).is_one_level()
        False
    """
    return not self.is_leaf() and all(c.is_leaf() for c in self.children())


def transform(self, /, f_node=None, f_leaf=None):
    """A new structure: every leaf replaced by f_leaf(leaf), every node's one-level
    structure by f_node(one_level) (which must keep its number of children).

    Args:
        f_node: TreeSpec -> TreeSpec for each node's one-level structure, or None.
        f_leaf: TreeSpec -> TreeSpec for each leaf, or None.

    Returns:
        The new TreeSpec.

    Raises:
        TypeError: a function returned something other than a TreeSpec.
        ValueError: f_node changed a node's number of children.

    Example:
        >>> spec = grove.tree_structure({'a': 1, 'b': (2, None)})
        >>> spec.transform(f_leaf=lambda leaf: grove.treespec_none())
        PyTreeSpec({'a': None, 'b': (None, None)})
    """
    def go(spec):
        if spec.is_leaf():
            return f_leaf(spec) if f_leaf is not None else spec
        children = [go(c) for c in spec.children()]
        top = one_level(spec)
        if f_node is not None:
            new = f_node(top)
            if not isinstance(new, TreeSpec):
                raise TypeError(f'Expected the PyTreeSpec transform function returns a '
                                f'PyTreeSpec, got {new!r} (input: {top}).')
            if new.num_leaves != len(children):
                raise ValueError(f'Expected the PyTreeSpec transform function returns a '
                                 f'PyTreeSpec with the same number of leaves as the input '
                                 f'({len(children)}), got {new} (input: {top}).')
            top = new
        return _graft(top, children, self.none_is_leaf, self.namespace)

    return go(self)


def accessors(self, /):
    """The accessor of every leaf, in leaf order.

    Returns:
        A list of PyTreeAccessor.

    Example:
        >>> [a.codify('t') for a in grove.tree_structure({'a': [1]}).accessors()]
        ["t['a'][0]"]
    """
    return _c_accessors(self, _ACCESSOR_TABLE)


def _py_accessors(self):
    """accessors() in Python (the reference for the C one, python/src/spec_access.c)."""
    out = []
    stack = [(self, ())]
    new_accessor = tuple.__new__
    while stack:
        spec, path = stack.pop()
        if spec.is_leaf():
            out.append(new_accessor(PyTreeAccessor, path))  # (its entries are valid ones)
            continue
        kind = _kind(spec)
        if kind == PyTreeKind.NONE:
            continue
        node_type = spec.type
        if kind == PyTreeKind.CUSTOM:
            reg = _registration(spec)
            entry_type = (reg[3] if reg is not None else None) or AutoEntry
            steps = [entry_type(e, node_type, kind) for e in spec.entries()]
        else:  # grove's own entry classes: made without their checks (valid by construction)
            steps = [_entry(_ENTRY_TYPES[kind], e, node_type, kind) for e in spec.entries()]
        children = spec.children()
        for r in range(len(steps) - 1, -1, -1):
            stack.append((children[r], path + (steps[r],)))
    return out


_set_entry, _set_type, _set_kind = (PyTreeEntry.entry.__set__, PyTreeEntry.type.__set__,
                                    PyTreeEntry.kind.__set__)


_ACCESSOR_TABLE = (
    PyTreeAccessor, AutoEntry, _KINDS,
    tuple(_ENTRY_TYPES.get(k) for k in _KINDS),
    (None, None, list, tuple, dict, collections.OrderedDict, collections.defaultdict,
     collections.deque, None, None, None),
    PyTreeEntry.entry, PyTreeEntry.type, PyTreeEntry.kind)


def _entry(cls, entry, node_type, kind):
    """cls(entry, node_type, kind) for one of grove's entry classes, whose __init__ only
    checks kind (never LEAF or NONE here) and sets the three slots."""
    e = object.__new__(cls)
    _set_entry(e, entry)
    _set_type(e, node_type)
    _set_kind(e, kind)
    return e


def _index(index, count, what):
    try:
        index = operator.index(index)
    except TypeError:
        index = int(index)  # (optree takes SupportsInt too)
    if not -count <= index < count:
        raise IndexError(f'PyTreeSpec::{what}() index out of range.')
    return index


def entry(self, index, /):
    """The entry (key, index or name) of the root's child number index.

    Args:
        index: an int; negative counts from the end.

    Returns:
        The entry.

    Raises:
        IndexError: index is out of range.

    Example:
        >>> grove.tree_structure({'a': 1, 'b': 2}).entry(1)
        'b'
    """
    entries = self.entries()
    return entries[_index(index, len(entries), 'Entry')]


def child(self, index, /):
    """The structure of the root's child number index.

    Args:
        index: an int; negative counts from the end.

    Returns:
        A TreeSpec.

    Raises:
        IndexError: index is out of range.

    Example:
        >>> grove.tree_structure({'a': 1, 'b': (2, None)}).child(-1)
        PyTreeSpec((*, None))
    """
    return _c_child(self, _index(index, self.num_children, 'Child') % max(self.num_children, 1))


def _counted(self, leaves):
    leaves = list(leaves)
    if len(leaves) < self.num_leaves:
        raise ValueError('Too few leaves for PyTreeSpec.')
    if len(leaves) > self.num_leaves:
        raise ValueError('Too many leaves for PyTreeSpec.')
    return iter(leaves)


def traverse(self, leaves, /, f_node=None, f_leaf=None):
    """Rebuild bottom-up from leaves, in traversal order: f_leaf on each leaf as it is met,
    f_node on each node object made of its children's results.

    Args:
        leaves: num_leaves leaves, in leaf order.
        f_node: called on each rebuilt node, or None (keep it).
        f_leaf: called on each leaf, or None (keep it).

    Returns:
        f_node's result at the root (the rebuilt tree without f_node).

    Raises:
        ValueError: the number of leaves is not num_leaves.

    Example:
        >>> spec = grove.tree_structure([1, (2, 3)])
        >>> spec.traverse([1, 2, 3], f_node=lambda node: sum(node), f_leaf=lambda x: x * 10)
        60
    """
    it = _counted(self, leaves)

    def go(spec):
        if spec.is_leaf():
            x = next(it)
            return f_leaf(x) if f_leaf is not None else x
        node = one_level(spec).unflatten([go(c) for c in spec.children()])
        return f_node(node) if f_node is not None else node

    return go(self)


def walk(self, leaves, /, f_node=None, f_leaf=None):
    """Like traverse, but f_node gets (node type, node data, children's results).

    Args:
        leaves: num_leaves leaves, in leaf order.
        f_node: f_node(type, metadata, children) for each node, or None (rebuild it).
        f_leaf: called on each leaf, or None (keep it).

    Returns:
        f_node's result at the root (the rebuilt tree without f_node).

    Example:
        >>> spec = grove.tree_structure([1, (2, 3)])
        >>> spec.walk([1, 2, 3], f_node=lambda t, m, kids: (t.__name__, kids))
        ('list', (1, ('tuple', (2, 3))))
    """
    it = _counted(self, leaves)

    def go(spec):
        if spec.is_leaf():
            x = next(it)
            return f_leaf(x) if f_leaf is not None else x
        kids = tuple(go(c) for c in spec.children())
        if f_node is None:
            return one_level(spec).unflatten(kids)
        return f_node(spec.type, _node_data(spec), kids)

    return go(self)


def _node_data(spec):
    kind, _, cls, extra = spec._info()
    pk = _KINDS[kind]
    if pk in (PyTreeKind.DICT, PyTreeKind.ORDEREDDICT):
        return list(extra)
    if pk == PyTreeKind.DEFAULTDICT:
        return (cls, list(extra))
    if pk == PyTreeKind.DEQUE:
        return extra
    if pk in (PyTreeKind.NAMEDTUPLE, PyTreeKind.STRUCTSEQUENCE):
        return spec.type
    if pk == PyTreeKind.CUSTOM and extra is not None:
        return extra[0]
    return None


def broadcast_to_common_suffix(self, other, /):
    """The structure both self and other broadcast to (each leaf of one standing for the
    subtree the other has there).

    Args:
        other: a TreeSpec.

    Returns:
        The common TreeSpec.

    Raises:
        ValueError: the structures have no common suffix.

    Example:
        >>> a = grove.tree_structure({'a': 1, 'b': (2, None)})
        >>> a.broadcast_to_common_suffix(grove.tree_structure({'a': (1, 2), 'b': 0}))
        PyTreeSpec({'a': (*, *), 'b': (*, None)})
    """
    from grove._ops import _common
    if not isinstance(other, TreeSpec):
        raise TypeError(f'Expected a PyTreeSpec, got {other!r}.')
    if self.none_is_leaf != other.none_is_leaf:
        raise ValueError('PyTreeSpecs must have the same none_is_leaf value.')
    if self.namespace and other.namespace and self.namespace != other.namespace:
        raise ValueError(f'PyTreeSpecs must have the same namespace, got {self.namespace!r} '
                         f'vs. {other.namespace!r}.')
    ns = self.namespace or other.namespace
    a = self.unflatten(_marks(self.num_leaves))
    b = other.unflatten(_marks(other.num_leaves))
    common, _ = _common(a, b, _is_mark, self.none_is_leaf, ns)
    return tree_structure(common, _is_mark, none_is_leaf=self.none_is_leaf, namespace=ns)


def _order(a, b):
    if not isinstance(b, TreeSpec):
        return NotImplemented
    return a.is_prefix(b, strict=False)


def install():
    """Puts the methods on TreeSpec."""
    TreeSpec.one_level = one_level
    TreeSpec.is_one_level = is_one_level
    TreeSpec.transform = transform
    TreeSpec.accessors = accessors
    TreeSpec.entry = entry
    global _c_child
    _c_child = TreeSpec.child
    TreeSpec.child = child
    TreeSpec.traverse = traverse
    TreeSpec.walk = walk
    TreeSpec.broadcast_to_common_suffix = broadcast_to_common_suffix
    # (len() and the order comparisons <, <=, >, >= are the C type's own: a dunder set here
    # would route every == through a Python-level slot lookup)
    TreeSpec.kind = property(_kind)


_ = _grove
_c_child = None
