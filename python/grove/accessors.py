# SPDX-License-Identifier: MIT
"""Path entries and accessors (optree.accessors): a leaf's path as objects that can fetch it.

A PyTreeEntry is one step (the child's entry, the node's class and kind) and is callable on
the node to get the child; a PyTreeAccessor is a tuple of entries, callable on the root.
`codify()` writes the step as Python source (`*['a'][0].x`).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    'PyTreeEntry',
    'GetItemEntry',
    'GetAttrEntry',
    'FlattenedEntry',
    'AutoEntry',
    'SequenceEntry',
    'MappingEntry',
    'NamedTupleEntry',
    'StructSequenceEntry',
    'DataclassEntry',
    'PyTreeAccessor',
]


class PyTreeKind(enum.IntEnum):
    """A node's kind, numbered as optree numbers them."""

    CUSTOM = 0
    LEAF = 1
    NONE = 2
    TUPLE = 3
    LIST = 4
    DICT = 5
    NAMEDTUPLE = 6
    ORDEREDDICT = 7
    DEFAULTDICT = 8
    DEQUE = 9
    STRUCTSEQUENCE = 10
    FROZENDICT = 11


PyTreeKind.NUM_KINDS = len(PyTreeKind)  # (not a member, as optree's)


class PyTreeEntry:
    """A step from a node to one of its children: entry (an index, key or name), the node's
    type and its kind. Equal when entry, type, kind and the way it fetches are."""

    __slots__ = ('entry', 'type', 'kind')

    def __init__(self, entry, type, kind):  # noqa: A002 (optree's argument names)
        if kind == PyTreeKind.LEAF:
            raise ValueError('Cannot create a leaf path entry.')
        if kind == PyTreeKind.NONE:
            raise ValueError('Cannot create a path entry for None.')
        object.__setattr__(self, 'entry', entry)
        object.__setattr__(self, 'type', type)
        object.__setattr__(self, 'kind', kind)

    def __setattr__(self, name, value):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")

    def __delattr__(self, name):
        raise dataclasses.FrozenInstanceError(f"cannot delete field '{name}'")

    def __call__(self, obj):
        try:
            return obj[self.entry]
        except TypeError as ex:
            raise TypeError(f'{self.__class__!r} cannot access through {obj!r} via entry '
                            f'{self.entry!r}') from ex

    def _identity(self):
        cls = type(self)
        return (self.entry, self.type, self.kind, cls.__call__, cls.codify)

    def __eq__(self, other):
        return isinstance(other, PyTreeEntry) and self._identity() == other._identity()

    def __hash__(self):
        return hash(self._identity())

    def __add__(self, other):
        if isinstance(other, PyTreeEntry):
            return PyTreeAccessor((self, other))
        if isinstance(other, PyTreeAccessor):
            return PyTreeAccessor((self, *other))
        return NotImplemented

    def __repr__(self):
        return f'{type(self).__name__}(entry={self.entry!r}, type={self.type!r})'

    def __reduce__(self):
        return (type(self), (self.entry, self.type, self.kind))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def codify(self, node=''):
        """The step as source text applied to node."""
        return f'{node}[<flat index {self.entry!r}>]'


class GetItemEntry(PyTreeEntry):
    """A child fetched by obj[entry]."""

    __slots__ = ()

    def __call__(self, obj):
        return obj[self.entry]

    def codify(self, node=''):
        return f'{node}[{self.entry!r}]'


class GetAttrEntry(PyTreeEntry):
    """A child fetched by attribute (entry: a name, dotted for a chain)."""

    __slots__ = ()

    @property
    def name(self):
        return self.entry

    def __call__(self, obj):
        for part in self.name.split('.'):
            obj = getattr(obj, part)
        return obj

    def codify(self, node=''):
        for part in self.name.split('.'):
            node = f'{node}.{part}' if part.isidentifier() else f'getattr({node}, {part!r})'
        return node


class FlattenedEntry(PyTreeEntry):
    """A child known only by its position among the flatten function's children."""

    __slots__ = ()


class SequenceEntry(GetItemEntry):
    """An item of a sequence, by index."""

    __slots__ = ()

    @property
    def index(self):
        return self.entry

    def __call__(self, obj):
        return obj[self.entry]

    def __repr__(self):
        return f'{type(self).__name__}(index={self.entry!r}, type={self.type!r})'


class MappingEntry(GetItemEntry):
    """A value of a mapping, by key."""

    __slots__ = ()

    @property
    def key(self):
        return self.entry

    def __call__(self, obj):
        return obj[self.entry]

    def __repr__(self):
        return f'{type(self).__name__}(key={self.entry!r}, type={self.type!r})'


class NamedTupleEntry(SequenceEntry):
    """A field of a namedtuple."""

    __slots__ = ()

    @property
    def fields(self):
        return self.type._fields

    @property
    def field(self):
        return self.fields[self.entry]

    def __repr__(self):
        return f'{type(self).__name__}(field={self.field!r}, type={self.type!r})'

    def codify(self, node=''):
        return f'{node}.{self.field}'


_UNNAMED = 'unnamed field'


class StructSequenceEntry(SequenceEntry):
    """A field of a PyStructSequence (its unnamed fields by index)."""

    __slots__ = ()

    @property
    def fields(self):
        from grove.typing import structseq_fields
        return structseq_fields(self.type)

    @property
    def field(self):
        return self.fields[self.entry]

    @property
    def is_unnamed(self):
        return self.field == _UNNAMED

    def __repr__(self):
        if self.is_unnamed:
            return f'{type(self).__name__}(entry={self.entry!r}, type={self.type!r})'
        return f'{type(self).__name__}(field={self.field!r}, type={self.type!r})'

    def codify(self, node=''):
        if self.is_unnamed:
            return f'{node}[{self.entry!r}]'
        return f'{node}.{self.field}'


class DataclassEntry(GetAttrEntry):
    """A field of a dataclass: entry is its name, or its position among the children."""

    __slots__ = ()

    @property
    def fields(self):
        return tuple(f.name for f in dataclasses.fields(self.type))

    @property
    def init_fields(self):
        return tuple(f.name for f in dataclasses.fields(self.type) if f.init)

    @property
    def children_fields(self):
        from grove.dataclasses import _FIELDS
        own = self.type.__dict__.get(_FIELDS)
        return self.fields if own is None else tuple(own[0])

    @property
    def field(self):
        return self.children_fields[self.entry] if isinstance(self.entry, int) else self.entry

    @property
    def name(self):
        return self.field

    def __repr__(self):
        return f'{type(self).__name__}(field={self.field!r}, type={self.type!r})'


class AutoEntry(PyTreeEntry):
    """A registered class's entry type chosen from the class: AutoEntry(entry, cls, kind)
    makes a StructSequenceEntry, NamedTupleEntry, DataclassEntry, MappingEntry, SequenceEntry
    or FlattenedEntry."""

    __slots__ = ()

    def __new__(cls, entry, type, kind):  # noqa: A002
        if cls is not AutoEntry:
            return super().__new__(cls)
        if kind != PyTreeKind.CUSTOM:
            raise ValueError(f'Cannot create an automatic path entry for PyTreeKind {kind!r}.')
        from grove.typing import is_namedtuple_class, is_structseq_class
        if is_structseq_class(type):
            chosen = StructSequenceEntry
        elif is_namedtuple_class(type):
            chosen = NamedTupleEntry
        elif dataclasses.is_dataclass(type):
            chosen = DataclassEntry
        elif issubclass(type, Mapping):
            chosen = MappingEntry
        elif issubclass(type, Sequence):
            chosen = SequenceEntry
        else:
            chosen = FlattenedEntry
        return chosen(entry, type, kind)


class PyTreeAccessor(tuple):
    """A leaf's path as entries: calling it on the root fetches the leaf."""

    __slots__ = ()

    def __new__(cls, path=()):
        if not isinstance(path, (list, tuple)):
            path = tuple(path)
        if not all(isinstance(p, PyTreeEntry) for p in path):
            raise TypeError(f'Expected a path of PyTreeEntry, got {path!r}.')
        return super().__new__(cls, path)

    @property
    def path(self):
        return tuple(e.entry for e in self)

    def __call__(self, obj):
        for step in self:
            obj = step(obj)
        return obj

    def __getitem__(self, index):
        got = super().__getitem__(index)
        return type(self)(got) if isinstance(index, slice) else got

    def __add__(self, other):
        if isinstance(other, PyTreeEntry):
            return type(self)((*self, other))
        if isinstance(other, PyTreeAccessor):
            return type(self)((*self, *other))
        return NotImplemented

    def __mul__(self, count):
        return type(self)(super().__mul__(count))

    def __rmul__(self, count):
        return type(self)(super().__rmul__(count))

    def __eq__(self, other):
        return isinstance(other, PyTreeAccessor) and tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return tuple.__hash__(self)

    def __repr__(self):
        return f'{type(self).__name__}({self.codify()}, {tuple.__repr__(self)})'

    def codify(self, root='*'):
        """The path as source text from root."""
        text = root
        for step in self:
            text = step.codify(text)
        return text
