# SPDX-License-Identifier: MIT
"""TreeSpec's methods written in Python (the hot ones are in C, python/src/treespec.c):
entries, is_prefix, is_suffix, compose, to_bytes, from_bytes and pickling. grove's
__init__ imports this module once, which sets them on the class."""

from __future__ import annotations

import pickle

from grove import _CUSTOM, _DDICT, _DICT, _NT, _ODICT, _SS, _grove
from grove._grove import TreeSpec, tree_structure

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


def _compose(self, inner):
    """This structure with every leaf replaced by inner.

    Args:
        inner: the TreeSpec put at every leaf (of this namespace, or of none).

    Returns:
        The composed TreeSpec, with num_leaves * inner.num_leaves leaves.

    Raises:
        ValueError: the two differ in none_is_leaf or in namespace.

    Example:
        >>> grove.tree_structure([0, 0]).compose(grove.tree_structure((0, 0)))
        PyTreeSpec([(*, *), (*, *)])
    """
    outer = self
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
    """Whether this structure is a prefix of other: other matches it down to its leaves,
    where other may hold any subtree (optree's rule: dict kinds are interchangeable with
    equal key sets, a deque's maxlen and a defaultdict's factory are not compared).

    Args:
        other: a TreeSpec.
        strict: if true, other must also differ from this structure.

    Returns:
        A bool.

    Raises:
        TypeError: other is not a TreeSpec.

    Example:
        >>> grove.tree_structure([0, 0]).is_prefix(grove.tree_structure([(1, 2), 3]))
        True
        >>> spec = grove.tree_structure([0, 0])
        >>> spec.is_prefix(spec), spec.is_prefix(spec, strict=True)
        (True, False)
    """
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
    """The structure as bytes: grove's wire encoding plus the Python objects it names
    (classes by module and qualname; handles' objects pickled). TreeSpec.from_bytes
    reads it back; pickle uses it too.

    Returns:
        bytes.

    Raises:
        pickle.PicklingError (or what pickling an object of the structure raises).

    Example:
        >>> spec = grove.tree_structure({'a': 1, 'b': (2, None)})
        >>> grove.TreeSpec.from_bytes(spec.to_bytes()) == spec
        True
    """
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
    Like any pickle, load only data you trust.

    Args:
        data: bytes from TreeSpec.to_bytes().
        max_size: the bound on the structure's size written out (None or 0: none).

    Returns:
        The TreeSpec, equal to the one encoded.

    Raises:
        ValueError: data is not a TreeSpec encoding, is malformed, or is over max_size.
        pickle.UnpicklingError: data is not a pickle at all.

    Example:
        >>> import pickle
        >>> spec = grove.tree_structure([1, (2, 3)])
        >>> grove.TreeSpec.from_bytes(spec.to_bytes()) == spec
        True
        >>> grove.TreeSpec.from_bytes(pickle.dumps(1))
        Traceback (most recent call last):
        ...
        ValueError: not a grove TreeSpec encoding
    """
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




def _spec_entries(self):
    """The entries of the root's children: dict keys, sequence indices, or a custom
    node's entries.

    Returns:
        A list of num_children entries.

    Example:
        >>> grove.tree_structure({'a': 1, 'b': (2, [3])}).entries()
        ['a', 'b']
        >>> grove.tree_structure([5, 6]).entries()
        [0, 1]
    """
    return _entries(self)


def _is_suffix(self, other, strict=False):
    """Whether other is a prefix of this structure (other.is_prefix(self, strict)).

    Args:
        other: a TreeSpec.
        strict: if true, other must also differ from this structure.

    Returns:
        A bool.

    Raises:
        TypeError: other is not a TreeSpec.

    Example:
        >>> grove.tree_structure([(1, 2), 3]).is_suffix(grove.tree_structure([0, 0]))
        True
    """
    return _is_prefix(other, self, strict)


for _f, _name in ((_spec_entries, 'entries'), (_is_prefix, 'is_prefix'), (_is_suffix, 'is_suffix'),
                  (_compose, 'compose'), (_to_bytes, 'to_bytes'), (_from_bytes, 'from_bytes')):
    _f.__name__, _f.__qualname__ = _name, f'TreeSpec.{_name}'
TreeSpec.entries = _spec_entries
TreeSpec.is_prefix = _is_prefix
TreeSpec.is_suffix = _is_suffix
TreeSpec.compose = _compose
TreeSpec.to_bytes = _to_bytes
TreeSpec.from_bytes = staticmethod(_from_bytes)
TreeSpec.__reduce__ = _reduce
TreeSpec.kind = property(lambda self: self._info()[0])
