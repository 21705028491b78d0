# SPDX-License-Identifier: MIT
"""grove's core functions in pure Python: tree_flatten, tree_unflatten, tree_leaves,
tree_structure, tree_map, tree_flatten_with_path, and a structure class (_Spec) with the
TreeSpec methods they and grove's Python functions (tree_map_with_path) use.

Two uses. (1) The oracle: tests/python/test_grove_compile.py checks, on generated trees, that
these give what the extension's C functions give (leaves, containers, key order, paths, the
calls made to is_leaf and to registered classes' functions, exception types and messages).
(2) The stand-ins under torch.compile: grove._dynamo registers each function here with
torch.compiler.substitute_in_graph for the C function of the same name, so that Dynamo traces
this code where it meets the C function. Outside tracing nothing here runs.

So the code keeps to what Dynamo traces: no id(), no identity tests on containers, no C calls
of grove's, no caches. It walks recursively (a tree deeper than Python's recursion limit raises
RecursionError here, where the C walk has no limit; a cycle raises RecursionError in both).
A _Spec made here is not a grove.TreeSpec: under tracing it stands for one, and it refuses to
leave the compiled function (docs/python.md, "Under torch.compile").
"""

from __future__ import annotations

import collections

from grove import _INSERTION_ORDERED, _REGISTRY
from grove._grove import TreeSpec

_deque = collections.deque
_odict = collections.OrderedDict
_ddict = collections.defaultdict

# node kinds (the extension's numbering)
_LEAF, _NONE, _LIST, _TUPLE, _DICT, _ODICT, _DDICT, _DEQUE, _NT, _SS, _CUSTOM = range(11)
_KIND_WORD = {_LIST: 'list', _TUPLE: 'tuple', _DICT: 'dict', _ODICT: 'OrderedDict',
              _DDICT: 'defaultdict', _DEQUE: 'deque', _NT: 'namedtuple',
              _SS: 'PyStructSequence', _CUSTOM: 'custom node'}
_BASETYPE = 1 << 10  # Py_TPFLAGS_BASETYPE
_PATH_ENDS = 16  # a path in a message keeps this many entries at each end
_ENTRY_CHARS = 60  # and each entry's repr cut to this


# ---------------------------------------------------------------------------
# Classification (python/src/registry.c's)
# ---------------------------------------------------------------------------


def _is_namedtuple_class(t):
    if not issubclass(t, tuple):
        return False
    fields = getattr(t, '_fields', None)
    if type(fields) is not tuple:
        return False
    for f in fields:
        if type(f) is not str:
            return False
    return callable(getattr(t, '_make', None)) and callable(getattr(t, '_asdict', None))


def _is_structseq_class(t):
    if not issubclass(t, tuple) or t.__bases__ != (tuple,):
        return False
    for name in ('n_fields', 'n_sequence_fields', 'n_unnamed_fields'):
        if type(getattr(t, name, None)) is not int:
            return False
    return not (t.__flags__ & _BASETYPE)


def _registration(t, namespace):
    """The registration of class t in namespace (its own, else the global one's), or None."""
    if namespace:
        table = _REGISTRY.get(namespace)
        if table is not None:
            reg = table.get(t)
            if reg is not None:
                return reg
    return _REGISTRY[''].get(t)


def _classify(t, namespace):
    """(kind, registration) of objects of class t."""
    if t is list:
        return _LIST, None
    if t is tuple:
        return _TUPLE, None
    if t is dict:
        return _DICT, None
    if t is type(None):
        return _NONE, None
    reg = _registration(t, namespace)
    if reg is not None:
        return _CUSTOM, reg
    if t is _odict:
        return _ODICT, None
    if t is _ddict:
        return _DDICT, None
    if t is _deque:
        return _DEQUE, None
    if _is_namedtuple_class(t):
        return _NT, None
    if _is_structseq_class(t):
        return _SS, None
    return _LEAF, None


def _never():
    return False


# torch.compiler.is_compiling once grove._dynamo has registered the stand-ins (True only
# while Dynamo traces); the oracle runs with _never
_is_compiling = _never


def _deque_error():
    # Dynamo (torch 2.13) reads the maxlen of a deque passed into a compiled function as None
    # (it wraps the deque without it): a None here may be a lost maxlen, and a structure
    # without it would rebuild a different deque
    return TypeError('grove under torch.compile: a deque whose maxlen reads None cannot be '
                     'flattened while Dynamo traces (Dynamo loses the maxlen of a deque passed '
                     'in); flatten it outside the compiled function, or give it a maxlen there')


def _check_ns(namespace):
    if not isinstance(namespace, str):
        raise TypeError(f'The namespace must be a string, got {namespace!r}.')
    return namespace


def _insertion_ordered(namespace):
    return '' in _INSERTION_ORDERED or (namespace != '' and namespace in _INSERTION_ORDERED)


def _key_order(keys):
    """optree's key order (grove._key_order's): sorted if the keys compare, else by the
    key's class name and then the key, else insertion order."""
    try:
        return sorted(keys)
    except TypeError:
        pass
    try:
        return sorted(keys, key=_class_and_key)
    except TypeError:
        return list(keys)


def _class_and_key(k):
    t = type(k)
    return (f'{t.__module__}.{t.__qualname__}', k)


# ---------------------------------------------------------------------------
# The structure
# ---------------------------------------------------------------------------


class _Spec:
    """A structure node: kind, arity, what rebuilding needs; children specs."""

    __slots__ = ('kind_', 'type', 'data', 'keys', 'order', 'entries_', 'reg', 'kids',
                 'none_is_leaf', 'namespace', 'num_leaves', 'num_nodes')

    def __init__(self, kind, cls, data, keys, order, entries, reg, kids, none_is_leaf,
                 namespace):
        # kind: _LEAF .. _CUSTOM; cls: the node's class (None for a leaf); data: the custom
        # node's metadata, a deque's maxlen, a defaultdict's factory; keys: a dict's keys in
        # traversal order, order: in insertion order (the rebuilt dict's); entries: a custom
        # node's path entries (None: indices); reg: its registration; kids: child specs
        self.kind_ = kind
        self.type = cls
        self.data = data
        self.keys = keys
        self.order = order
        self.entries_ = entries
        self.reg = reg
        self.kids = kids
        self.none_is_leaf = none_is_leaf
        self.namespace = namespace
        leaves, nodes = (1, 1) if kind == _LEAF else (0, 1)
        for k in kids:
            leaves += k.num_leaves
            nodes += k.num_nodes
        self.num_leaves = leaves
        self.num_nodes = nodes

    # -- TreeSpec's attributes and methods --------------------------------

    @property
    def num_children(self):
        return len(self.kids)

    def __len__(self):
        return self.num_leaves

    def is_leaf(self, *, strict=True):
        if strict:
            return self.kind_ == _LEAF
        return self.kind_ == _LEAF or self.num_nodes == 1

    @property
    def kind(self):
        return _kinds()[self.kind_]

    def is_one_level(self):
        if self.kind_ == _LEAF:
            return False
        for k in self.kids:
            if k.kind_ != _LEAF:
                return False
        return True

    def children(self):
        return list(self.kids)

    def child(self, index):
        return self.kids[_index(index, len(self.kids), 'Child')]

    def entries(self):
        return list(_entries(self))

    def entry(self, index):
        return _entries(self)[_index(index, len(self.kids), 'Entry')]

    def _info(self):
        """(kind, arity, cls, extra) as TreeSpec._info() (grove's Python helpers read it)."""
        kind = self.kind_
        cls = extra = None
        if kind in (_DICT, _ODICT, _DDICT):
            extra = tuple(self.keys)
            if kind == _DDICT:
                cls = self.data
        elif kind == _DEQUE:
            extra = self.data
        elif kind == _CUSTOM:
            cls = self.type
            extra = (self.data, self.entries_)
        elif kind in (_NT, _SS):
            cls = self.type
        return (kind, len(self.kids), cls, extra)

    def accessors(self):
        out = []
        _accessors(self, (), out)
        return out

    def paths(self):
        out = []
        _paths(self, (), out)
        return out

    def unflatten(self, leaves):
        try:
            it = iter(leaves)
        except TypeError:
            raise TypeError('tree_unflatten: leaves must be iterable') from None
        vals = []
        n = self.num_leaves
        for x in it:
            if len(vals) == n:
                raise ValueError(f'Too many leaves for PyTreeSpec; expected: {n}.')
            vals.append(x)
        if len(vals) != n:
            raise ValueError(f'Too few leaves for PyTreeSpec; expected: {n}, got: {len(vals)}.')
        return _build(self, vals, [0])

    def flatten_up_to(self, tree):
        out = []
        _up_to(self, tree, out, [])
        return out

    def __eq__(self, other):
        if not isinstance(other, _Spec):
            if isinstance(other, TreeSpec):
                raise TypeError('grove under torch.compile: a structure made while Dynamo '
                                'traced cannot be compared with a grove.TreeSpec made outside; '
                                'make both inside the compiled function, or both outside')
            return NotImplemented
        return (self.none_is_leaf == other.none_is_leaf
                and _ns_of(self) == _ns_of(other) and _same(self, other))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # (grove.TreeSpec's hash is its interned node's: not made here)

    def __repr__(self):
        inner = [_repr(self)]
        if self.none_is_leaf:
            inner.append('NoneIsLeaf')
        if self.namespace and _has_custom(self):
            inner.append(f'namespace={self.namespace!r}')
        return f'PyTreeSpec({", ".join(inner)})'


def _repr(spec):
    kind = spec.kind_
    if kind == _LEAF:
        return '*'
    if kind == _NONE:
        return 'None'
    kids = [_repr(k) for k in spec.kids]
    if kind == _LIST:
        return '[' + ', '.join(kids) + ']'
    if kind == _TUPLE:
        return '(' + kids[0] + ',)' if len(kids) == 1 else '(' + ', '.join(kids) + ')'
    if kind in (_DICT, _DDICT, _ODICT):
        body = ', '.join(f'{k!r}: {v}' for k, v in zip(spec.keys, kids))
        if kind == _DICT:
            return '{' + body + '}'
        if kind == _ODICT:
            return 'OrderedDict({' + body + '})' if kids else 'OrderedDict()'
        return f'defaultdict({spec.data!r}, {{{body}}})'
    if kind == _DEQUE:
        args = ['[' + ', '.join(kids) + ']'] if kids else []
        if spec.data is not None:
            args.append(f'maxlen={spec.data}')
        return 'deque(' + ', '.join(args) + ')'
    if kind == _NT:
        return spec.type.__name__ + '(' + ', '.join(
            f'{f}={v}' for f, v in zip(spec.type._fields, kids)) + ')'
    if kind == _SS:
        t = spec.type
        return f'{t.__module__}.{t.__qualname__}(' + ', '.join(
            f'{f}={v}' for f, v in zip(t.__match_args__, kids)) + ')'
    return f'CustomTreeNode({spec.type.__name__}[{spec.data!r}], [' + ', '.join(kids) + '])'


def _index(index, count, what):
    if type(index) is not int:
        index = int(index)  # (grove's: operator.index, else int)
    if not -count <= index < count:
        raise IndexError(f'PyTreeSpec::{what}() index out of range.')
    return index


def _kinds():
    from grove._specs import _KINDS
    return _KINDS


def _accessors(spec, path, out):
    from grove._specs import _ENTRY_TYPES
    from grove.accessors import AutoEntry, PyTreeAccessor
    kind = spec.kind_
    if kind == _LEAF:
        out.append(PyTreeAccessor(path))
        return
    if kind == _NONE:
        return
    pk = _kinds()[kind]
    if kind == _CUSTOM:
        entry_type = spec.reg[3] or AutoEntry
    else:
        entry_type = _ENTRY_TYPES[pk]
    for e, k in zip(_entries(spec), spec.kids):
        _accessors(k, path + (entry_type(e, spec.type, pk),), out)


def _ns_of(spec):
    """The namespace a structure compares with: its own when it holds a registered class."""
    return spec.namespace if _has_custom(spec) else ''


def _has_custom(spec):
    if spec.kind_ == _CUSTOM:
        return True
    for k in spec.kids:
        if _has_custom(k):
            return True
    return False


def _same_key(a, b):
    return type(a) is type(b) and a == b


def _same(a, b):
    if a.kind_ != b.kind_ or a.type is not b.type or len(a.kids) != len(b.kids):
        return False
    if a.kind_ in (_DICT, _DDICT, _ODICT):
        if len(a.keys) != len(b.keys):
            return False
        for x, y in zip(a.keys, b.keys):
            if not _same_key(x, y):
                return False
        if a.kind_ == _DDICT and a.data is not b.data:
            return False
    elif a.kind_ == _DEQUE:
        if a.data != b.data:
            return False
    elif a.kind_ == _CUSTOM:
        if not (type(a.data) is type(b.data) and a.data == b.data):
            return False
        if a.entries_ != b.entries_:
            return False
    for x, y in zip(a.kids, b.kids):
        if not _same(x, y):
            return False
    return True


def _entries(spec):
    if spec.kind_ in (_DICT, _DDICT, _ODICT):
        return tuple(spec.keys)
    if spec.entries_ is not None:
        return spec.entries_
    return tuple(range(len(spec.kids)))


def _paths(spec, prefix, out):
    if spec.kind_ == _LEAF:
        out.append(prefix)
        return
    for e, k in zip(_entries(spec), spec.kids):
        _paths(k, prefix + (e,), out)


def _leaf_spec(none_is_leaf, namespace):
    return _Spec(_LEAF, None, None, None, None, None, None, (), none_is_leaf, namespace)


# ---------------------------------------------------------------------------
# Flatten
# ---------------------------------------------------------------------------


def _custom_children(node, reg):
    """(children, metadata, entries or None) from a registered class's flatten function."""
    t = tuple(reg[1](node))
    if len(t) != 2 and len(t) != 3:
        raise RuntimeError(f'PyTree custom flatten function for type {type(node)!r} should '
                           f'return a 2- or 3-tuple, got {len(t)}.')
    kids = tuple(t[0])
    entries = None
    if len(t) == 3 and t[2] is not None:
        entries = tuple(t[2])
        if len(entries) != len(kids):
            raise RuntimeError(
                f'PyTree custom flatten function for type {type(node)!r} returned inconsistent '
                f'number of children ({len(kids)}) and number of entries ({len(entries)}).')
    return kids, t[1], entries


def _flatten(node, leaves, is_leaf, none_is_leaf, namespace, ordered):
    """node's structure; its leaves appended to leaves (preorder, as the C walk)."""
    if is_leaf is not None and is_leaf(node):
        leaves.append(node)
        return _leaf_spec(none_is_leaf, namespace)
    t = type(node)
    if t is type(None) and none_is_leaf:
        leaves.append(node)
        return _leaf_spec(none_is_leaf, namespace)
    kind, reg = _classify(t, namespace)
    if kind == _LEAF:
        leaves.append(node)
        return _leaf_spec(none_is_leaf, namespace)
    data = keys = order = entries = None
    cls = t
    if kind == _NONE:
        kids = ()
    elif kind in (_LIST, _TUPLE, _NT, _SS):
        kids = tuple(node)
    elif kind == _DEQUE:
        kids = tuple(node)
        data = node.maxlen
        if data is None and _is_compiling():
            raise _deque_error()
    elif kind == _CUSTOM:
        kids, data, entries = _custom_children(node, reg)
    else:  # dict, OrderedDict, defaultdict
        # the dict's own storage order, as the C walk reads it (for an OrderedDict reordered
        # by move_to_end it is not the OrderedDict's order; Dynamo sees only the latter)
        order = tuple(dict.__iter__(node))
        if kind == _ODICT or ordered:
            keys = order
        else:
            keys = tuple(_key_order(order))
        kids = tuple(node[k] for k in keys)
        if kind == _DDICT:
            data = node.default_factory
    specs = tuple(_flatten(k, leaves, is_leaf, none_is_leaf, namespace, ordered) for k in kids)
    return _Spec(kind, cls, data, keys, order, entries, reg, specs, none_is_leaf, namespace)


def _start(is_leaf, none_is_leaf, namespace):
    ns = _check_ns(namespace)
    if is_leaf is not None and not callable(is_leaf):
        raise TypeError(f'is_leaf must be callable or None, got {is_leaf!r}')
    return ns, bool(none_is_leaf), _insertion_ordered(ns)


def tree_flatten(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    ns, nil, ordered = _start(is_leaf, none_is_leaf, namespace)
    leaves = []
    spec = _flatten(tree, leaves, is_leaf, nil, ns, ordered)
    return leaves, spec


def tree_leaves(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    return tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)[0]


def tree_structure(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    return tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)[1]


def _is_leaf(tree, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """The kind of tree's root (the extension's _is_leaf: tree_is_leaf, all_leaves)."""
    ns, nil, _ = _start(is_leaf, none_is_leaf, namespace)
    if is_leaf is not None and is_leaf(tree):
        return _LEAF
    if tree is None:
        return _LEAF if nil else _NONE
    return _classify(type(tree), ns)[0]


# ---------------------------------------------------------------------------
# Unflatten
# ---------------------------------------------------------------------------


def _build(spec, vals, pos):
    """The object of spec from vals[pos[0]:...] (pos advanced): children first, as the C
    builder calls the classes' functions."""
    kind = spec.kind_
    if kind == _LEAF:
        v = vals[pos[0]]
        pos[0] += 1
        return v
    kids = [_build(k, vals, pos) for k in spec.kids]
    if kind == _LIST:
        return kids
    if kind == _TUPLE:
        return tuple(kids)
    if kind == _NONE:
        return None
    if kind in (_DICT, _DDICT, _ODICT):
        by_key = {}
        for k, v in zip(spec.keys, kids):
            by_key[k] = v
        if kind == _DDICT:
            d = _ddict(spec.data)
        elif kind == _ODICT:
            d = _odict()
        else:
            d = {}
        for k in spec.order:
            d[k] = by_key[k]
        return d
    if kind == _DEQUE:
        return _deque(kids, maxlen=spec.data)
    if kind == _NT:
        return spec.type(*kids)
    if kind == _SS:
        return spec.type(tuple(kids))
    return spec.reg[2](spec.data, tuple(kids))


def tree_unflatten(treespec, leaves):
    if isinstance(treespec, TreeSpec):  # (only while tracing: eager calls the C function)
        raise TypeError('grove under torch.compile: a TreeSpec made outside the compiled '
                        'function cannot be read while Dynamo traces (its methods are C); '
                        'make it inside (tree_structure), or unflatten outside')
    if not isinstance(treespec, _Spec):
        raise TypeError(f'Expected a TreeSpec, got {treespec!r}.')
    return treespec.unflatten(leaves)


# ---------------------------------------------------------------------------
# flatten_up_to and tree_map
# ---------------------------------------------------------------------------


def _entry_repr(e):
    r = repr(e)
    if len(r) > _ENTRY_CHARS:
        r = r[:_ENTRY_CHARS - 3] + '...'
    return r


def _err(path, msg):
    """ValueError(msg) prefixed with the path, as the C walk's messages are."""
    if not path:
        return ValueError(msg)
    if len(path) > 2 * _PATH_ENDS + 1:
        parts = [_entry_repr(e) for e in path[:_PATH_ENDS]] + ['...'] + [
            _entry_repr(e) for e in path[len(path) - _PATH_ENDS:]]
    else:
        parts = [_entry_repr(e) for e in path]
    where = '(' + parts[0] + ',)' if len(parts) == 1 else '(' + ', '.join(parts) + ')'
    return ValueError(f'at {where}: {msg}')


def _match(spec, o, path):
    """o's children matching structure node spec (traversal order), or a ValueError."""
    kind = spec.kind_
    tp = type(o)
    arity = len(spec.kids)
    if kind == _NONE:
        if o is not None:
            raise _err(path, f'Expected None, got {o!r}.')
        return ()
    if kind in (_LIST, _TUPLE, _DEQUE):
        want = list if kind == _LIST else tuple if kind == _TUPLE else _deque
        word = _KIND_WORD[kind]
        if tp is not want:
            raise _err(path, f'Expected an instance of {word}, got {o!r}.')
        kids = tuple(o)
        if len(kids) != arity:
            raise _err(path, f'{word} arity mismatch; expected: {arity}, got: {len(kids)}; '
                       f'{word}: {o!r}.')
        return kids
    if kind in (_DICT, _ODICT, _DDICT):
        if tp is not dict and tp is not _odict and tp is not _ddict:
            raise _err(path, 'Expected an instance of dict, collections.OrderedDict, or '
                       f'collections.defaultdict, got {o!r}.')
        ok = len(o) == arity
        kids = []
        if ok:
            for k in spec.keys:
                if k not in o:
                    ok = False
                    break
                kids.append(o[k])
        if not ok:
            raise _err(path, f'dictionary key mismatch; expected key(s): {spec.order!r}, got '
                       f'key(s): {list(o)!r}; {_KIND_WORD[kind]}: {o!r}.')
        return tuple(kids)
    if kind in (_NT, _SS):
        word = _KIND_WORD[kind]
        if tp is not spec.type:
            if isinstance(o, tuple) and len(o) != arity and tp is not tuple:
                raise _err(path, f'{word} arity mismatch; expected: {arity}, got: {len(o)}; '
                           f'tuple: {o!r}.')
            raise _err(path, f'{word} type mismatch; expected type: {spec.type!r}, got type: '
                       f'{tp!r}; tuple: {o!r}.')
        if len(o) != arity:
            raise _err(path, f'{word} arity mismatch; expected: {arity}, got: {len(o)}; '
                       f'tuple: {o!r}.')
        return tuple(o)
    # a registered class: its flatten function (the one the structure was made with)
    if tp is not spec.type:
        raise _err(path, f'Custom node type mismatch; expected type: {spec.type!r}, got type: '
                   f'{tp!r}; value: {o!r}.')
    t = tuple(spec.reg[1](o))
    if len(t) != 2 and len(t) != 3:
        raise RuntimeError(f'PyTree custom flatten function for type {spec.type!r} should '
                           f'return a 2- or 3-tuple, got {len(t)}.')
    if not spec.data == t[1]:
        raise _err(path, f'Mismatch custom node data; expected: {spec.data!r}, got: '
                   f'{t[1]!r}; value: {o!r}.')
    kids = tuple(t[0])
    if len(kids) != arity:
        raise _err(path, f'Custom type arity mismatch; expected: {arity}, got: {len(kids)}; '
                   f'value: {o!r}.')
    return kids


def _up_to(spec, o, out, path):
    if spec.kind_ == _LEAF:
        out.append(o)
        return
    kids = _match(spec, o, path)
    entries = _entries(spec) if spec.kind_ == _CUSTOM or spec.kind_ in (
        _DICT, _DDICT, _ODICT) else None
    for i, (ks, kid) in enumerate(zip(spec.kids, kids)):
        path.append(entries[i] if entries is not None else i)
        _up_to(ks, kid, out, path)
        path.pop()


def tree_map(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    flat = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(*xs) for xs in zip(leaves, *flat)])


def tree_flatten_with_path(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    # (the C function: the flatten walk, then the structure's paths())
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    return spec.paths(), leaves, spec


# grove's functions written in Python over these (the same code as grove's own: they call
# tree_flatten and the structure's methods, which here are the ones above)


def tree_map_with_path(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace=''):
    leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf, namespace=namespace)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, spec.paths(), *flat))
