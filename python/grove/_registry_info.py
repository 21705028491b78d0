# SPDX-License-Identifier: MIT
"""dict_insertion_ordered, the dict metadata tree_flatten_one_level gives, and the registry as
optree shows it (register_pytree_node.get, the built-in node types' entries). Imported by the
package after its registry exists."""

import collections
import collections.abc
import contextlib

from grove import (
    _INSERTION_ORDERED,
    _REGISTRY,
    _check_namespace,
    _check_ns_arg,
    _key_order,
    register_pytree_node,
)
from grove.accessors import AutoEntry, MappingEntry, PyTreeEntry, PyTreeKind, SequenceEntry

# ---- dict insertion order ----


@contextlib.contextmanager
def dict_insertion_ordered(mode, /, *, namespace):
    """Within the block, dicts and defaultdicts flattened in namespace (GLOBAL_NAMESPACE: in
    every namespace) keep their insertion order (leaves, structure, equality) instead of
    being sorted by key; mode False turns it off for the block. OrderedDict always keeps it.

    Args:
        mode: True to keep insertion order, False to sort.
        namespace: a non-empty str, or GLOBAL_NAMESPACE; required.

    Returns:
        A context manager.

    Raises:
        TypeError, ValueError: namespace is not a non-empty str or GLOBAL_NAMESPACE.

    Example:
        >>> with grove.dict_insertion_ordered(True, namespace='ex'):
        ...     grove.tree_leaves({'b': 1, 'a': 2}, namespace='ex')
        [1, 2]
        >>> grove.tree_leaves({'b': 1, 'a': 2}, namespace='ex')
        [2, 1]
    """
    ns = _check_namespace(namespace)
    was = ns in _INSERTION_ORDERED
    if mode:
        _INSERTION_ORDERED.add(ns)
    else:
        _INSERTION_ORDERED.discard(ns)
    try:
        yield
    finally:
        if was:
            _INSERTION_ORDERED.add(ns)
        else:
            _INSERTION_ORDERED.discard(ns)


def _is_dict_insertion_ordered(namespace='', inherit_global_namespace=True):
    ns = _check_ns_arg(namespace)
    return ns in _INSERTION_ORDERED or (inherit_global_namespace and '' in _INSERTION_ORDERED)


class _DictMetaData(list):
    """A dict's metadata from tree_flatten_one_level: the keys in traversal order (a list),
    and original_keys, the dict's insertion order (a dict of the keys to None), which the
    unflatten function restores."""

    def __init__(self, keys=(), /, original_keys=None, *, check_keys_consistency=True):
        super().__init__(keys)
        if original_keys is None:
            original = dict.fromkeys(self)
        else:
            original = dict.fromkeys(original_keys)
            if check_keys_consistency:
                if len(original) != len(self):
                    raise ValueError('`original_keys` must have the same length as `keys`.')
                if set(original) != set(self):
                    raise ValueError('`original_keys` must have the same keys as `keys`.')
        self.original_keys = original

    def __reduce__(self):
        return (type(self), (list(self), list(self.original_keys), ),
                {'original_keys': self.original_keys})

    def __setstate__(self, state):
        self.original_keys = state['original_keys']

    def __copy__(self):
        return type(self)(self, self.original_keys, check_keys_consistency=False)

    def __deepcopy__(self, memo):
        import copy
        return type(self)(copy.deepcopy(list(self), memo),
                          copy.deepcopy(list(self.original_keys), memo),
                          check_keys_consistency=False)


def _none_unflatten(_metadata, children):
    if any(True for _ in children):
        raise ValueError('Expected no children.')


def _dict_unflatten(metadata, children):
    values = dict(zip(metadata, children))
    order = getattr(metadata, 'original_keys', metadata)
    return {k: values[k] for k in order}


# ---- the registry as optree shows it ----

PyTreeNodeRegistryEntry = collections.namedtuple(
    'PyTreeNodeRegistryEntry',
    ['type', 'flatten_func', 'unflatten_func', 'path_entry_type', 'kind', 'namespace'])


def _builtin_entries():
    def seq(kind, ctor, entry):
        return (lambda x: (x, None), lambda _m, c: ctor(c), entry, kind)

    return {
        type(None): (lambda x: ((), None), _none_unflatten, PyTreeEntry, PyTreeKind.NONE),
        tuple: seq(PyTreeKind.TUPLE, tuple, SequenceEntry),
        list: seq(PyTreeKind.LIST, list, SequenceEntry),
        dict: (lambda d: (lambda md: ([d[k] for k in md], md, tuple(md)))(
            _DictMetaData(_key_sorted(d), d)), _dict_unflatten, MappingEntry, PyTreeKind.DICT),
        collections.OrderedDict: (lambda d: (list(d.values()), list(d), tuple(d)),
                                  lambda m, c: collections.OrderedDict(zip(m, c)), MappingEntry,
                                  PyTreeKind.ORDEREDDICT),
        collections.defaultdict: (
            lambda d: (lambda md: ([d[k] for k in md], (d.default_factory, md), tuple(md)))(
                _DictMetaData(_key_sorted(d), d)),
            lambda m, c: collections.defaultdict(m[0], _dict_unflatten(m[1], c)), MappingEntry,
            PyTreeKind.DEFAULTDICT),
        collections.deque: (lambda d: (list(d), d.maxlen),
                            lambda m, c: collections.deque(c, maxlen=m), SequenceEntry,
                            PyTreeKind.DEQUE),
    }


def _key_sorted(d):
    keys = list(d)
    return [keys[i] for i in _key_order(keys)]


def _registry_get(cls=None, /, *, namespace=''):
    """The registration of cls in namespace (or the global one), or None; without cls, a
    dict of every class's registration visible from namespace."""
    ns = _check_ns_arg(namespace)
    builtins = _builtin_entries()

    def entry(c, where):
        if where is None:
            f, u, p, k = builtins[c]
            return PyTreeNodeRegistryEntry(c, f, u, p, k, '')
        _, f, u, p = _REGISTRY[where][c]
        return PyTreeNodeRegistryEntry(c, f, u, p or AutoEntry, PyTreeKind.CUSTOM, where)

    if cls is None:
        out = {c: entry(c, None) for c in builtins}
        out.update({c: entry(c, '') for c in _REGISTRY['']})
        if ns:
            out.update({c: entry(c, ns) for c in _REGISTRY.get(ns, {})})
        return out
    if ns and cls in _REGISTRY.get(ns, {}):
        return entry(cls, ns)
    if cls in _REGISTRY['']:
        return entry(cls, '')
    if cls in builtins:
        return entry(cls, None)
    return None


register_pytree_node.get = _registry_get


def _registry_size(namespace=None):
    n = 7 + len(_REGISTRY[''])  # NoneType, tuple, list, dict, OrderedDict, defaultdict, deque
    if namespace:
        n += len(_REGISTRY.get(namespace, {}))
    return n


class _RegistryView(collections.abc.Mapping):
    """The global registry as optree's test helpers count it: built-ins, the namedtuple and
    PyStructSequence markers, then the global namespace's classes."""

    def _keys(self):
        return [*_builtin_entries(), collections.namedtuple, 'structseq', *_REGISTRY['']]

    def __getitem__(self, key):
        if key not in self._keys():
            raise KeyError(key)
        return _registry_get(key) if isinstance(key, type) else PyTreeNodeRegistryEntry(
            key, None, None, PyTreeEntry, PyTreeKind.CUSTOM, '')

    def __iter__(self):
        return iter(self._keys())

    def __len__(self):
        return len(self._keys())


def _global_registry_view():
    return _RegistryView()
