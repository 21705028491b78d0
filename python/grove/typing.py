# SPDX-License-Identifier: MIT
"""Typing names and the namedtuple / PyStructSequence tests (optree.typing)."""

from __future__ import annotations

import types
from collections.abc import Callable, Hashable, Iterable
from typing import Any, Dict, List, Optional, ParamSpec, Sequence, Tuple, TypeVar, Union

from grove._grove import TreeSpec
from grove.accessors import (
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

PyTreeSpec = TreeSpec
PyTreeDef = TreeSpec

T = TypeVar('T')
S = TypeVar('S')
U = TypeVar('U')
KT = TypeVar('KT')
VT = TypeVar('VT')
P = ParamSpec('P')
F = TypeVar('F', bound=Callable[..., Any])

Children = Iterable
MetaData = Optional[Hashable]
FlattenFunc = Callable[[Any], tuple]
UnflattenFunc = Callable[[Any, Iterable], Any]
PyStructSequence_UnnamedField = 'unnamed field'

_STRUCTSEQ_TYPES = (type(__import__('sys').float_info), type(__import__('time').gmtime()))


class CustomTreeNode:
    """The protocol of a class registered with its own methods: tree_flatten() ->
    (children, metadata[, entries]) and the classmethod tree_unflatten(metadata, children)."""

    def tree_flatten(self):
        raise NotImplementedError

    @classmethod
    def tree_unflatten(cls, metadata, children):
        raise NotImplementedError


class PyTree:
    """PyTree[T]: a tree whose leaves are T (for annotations: Union[T, tuple, list, dict, ...])."""

    def __class_getitem__(cls, item):
        if isinstance(item, tuple):
            raise TypeError(f'{cls.__name__}[...] takes one type, got {item!r}.')
        return Union[item, Tuple[Any, ...], List[Any], Dict[Any, Any]]

    def __new__(cls, *args, **kwargs):
        raise TypeError(f'Cannot instantiate special generic class {cls.__name__}.')


def PyTreeTypeVar(name, param):  # noqa: N802 (optree's name)
    """A TypeAlias of PyTree[param] named name."""
    if not isinstance(name, str):
        raise TypeError(f'The name must be a string, got {name!r}.')
    return PyTree[param]


class _StructSequenceMeta(type):
    def __subclasscheck__(cls, other):
        return is_structseq_class(other)

    def __instancecheck__(cls, obj):
        return is_structseq_instance(obj)


class StructSequence(tuple, metaclass=_StructSequenceMeta):
    """The class of PyStructSequence instances, for isinstance and annotations."""

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"type '{cls.__module__}.{cls.__qualname__}' is not an acceptable "
                        'base type')


def is_namedtuple_class(cls):
    """Whether cls is a namedtuple class (a tuple subclass with _fields and _make).

    Args:
        cls: any object.

    Returns:
        A bool.

    Example:
        >>> import collections; Point = collections.namedtuple('Point', 'x y')
        >>> grove.is_namedtuple_class(Point), grove.is_namedtuple_class(Point(1, 2))
        (True, False)
    """
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, '_fields', None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, '_make', None)))


def is_namedtuple_instance(obj):
    """Whether obj is an instance of a namedtuple class.

    Args:
        obj: any object.

    Returns:
        A bool.

    Example:
        >>> import collections; Point = collections.namedtuple('Point', 'x y')
        >>> grove.is_namedtuple_instance(Point(1, 2)), grove.is_namedtuple_instance((1, 2))
        (True, False)
    """
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    """Whether obj is a namedtuple class or an instance of one.

    Args:
        obj: any object.

    Returns:
        A bool.

    Example:
        >>> import collections; Point = collections.namedtuple('Point', 'x y')
        >>> grove.is_namedtuple(Point), grove.is_namedtuple(Point(1, 2))
        (True, True)
    """
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def namedtuple_fields(obj):
    """The field names of a namedtuple class or instance.

    Args:
        obj: a namedtuple class or instance.

    Returns:
        A tuple of str.

    Raises:
        TypeError: obj is neither.

    Example:
        >>> import collections
        >>> grove.namedtuple_fields(collections.namedtuple('Point', 'x y'))
        ('x', 'y')
    """
    cls = obj if isinstance(obj, type) else type(obj)
    if not is_namedtuple_class(cls):
        if isinstance(obj, type):
            raise TypeError(f'Expected a collections.namedtuple type, got {obj!r}.')
        raise TypeError(f'Expected an instance of collections.namedtuple type, got {obj!r}.')
    return cls._fields


def is_structseq_class(cls):
    """Whether cls is a PyStructSequence class (a final tuple subclass with n_fields,
    n_sequence_fields and n_unnamed_fields).

    Args:
        cls: any object.

    Returns:
        A bool.

    Example:
        >>> import time
        >>> grove.is_structseq_class(time.struct_time), grove.is_structseq_class(tuple)
        (True, False)
    """
    if not (isinstance(cls, type) and cls.__bases__ == (tuple,)):
        return False
    if not all(isinstance(getattr(cls, a, None), int)
               for a in ('n_fields', 'n_sequence_fields', 'n_unnamed_fields')):
        return False
    try:
        types.new_class('_probe', (cls,))
    except (AssertionError, TypeError):
        return True
    return False


def is_structseq_instance(obj):
    """Whether obj is a PyStructSequence instance.

    Args:
        obj: any object.

    Returns:
        A bool.

    Example:
        >>> import time
        >>> grove.is_structseq_instance(time.gmtime(0))
        True
    """
    return is_structseq_class(type(obj))


def is_structseq(obj):
    """Whether obj is a PyStructSequence class or instance.

    Args:
        obj: any object.

    Returns:
        A bool.

    Example:
        >>> import time
        >>> grove.is_structseq(time.struct_time), grove.is_structseq((1, 2))
        (True, False)
    """
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def structseq_fields(obj):
    """The names of a PyStructSequence's sequence fields ('unnamed field' for unnamed ones).

    Args:
        obj: a PyStructSequence class or instance.

    Returns:
        A tuple of str.

    Raises:
        TypeError: obj is neither.

    Example:
        >>> import sys
        >>> grove.structseq_fields(sys.float_info)[:3]
        ('max', 'max_exp', 'max_10_exp')
    """
    cls = obj if isinstance(obj, type) else type(obj)
    if not is_structseq_class(cls):
        if isinstance(obj, type):
            raise TypeError(f'Expected a PyStructSequence type, got {obj!r}.')
        raise TypeError(f'Expected an instance of PyStructSequence type, got {obj!r}.')
    names = [None] * cls.n_sequence_fields
    try:  # an instance whose field i holds i: each member descriptor reads its own index
        probe = cls(range(cls.n_fields)) if cls.n_fields else None
    except TypeError:  # a class that makes no instances (sys.flags, sys.version_info): the
        # named fields in order (CPython's __match_args__), the unnamed ones after them
        named = tuple(getattr(cls, '__match_args__', ()))[:cls.n_sequence_fields]
        return named + (PyStructSequence_UnnamedField,) * (cls.n_sequence_fields - len(named))
    if probe is not None:
        for name in dir(cls):
            member = getattr(cls, name, None)
            if type(member) is types.MemberDescriptorType:
                value = getattr(probe, name)
                if isinstance(value, int) and 0 <= value < cls.n_sequence_fields:
                    names[value] = name
    return tuple(n if n is not None else PyStructSequence_UnnamedField for n in names)


# optree's functions of this family carry their pure-Python implementation as
# `__python_implementation__` (torch._dynamo reads it at import and traces it in their place);
# grove's are pure Python, so each one is its own.
for _fn in (is_namedtuple, is_namedtuple_class, is_namedtuple_instance, namedtuple_fields,
            is_structseq, is_structseq_class, is_structseq_instance, structseq_fields):
    _fn.__python_implementation__ = _fn
del _fn

__all__ = [
    'PyTreeSpec', 'PyTreeDef', 'PyTreeKind', 'PyTree', 'PyTreeTypeVar', 'CustomTreeNode',
    'Children', 'MetaData', 'FlattenFunc', 'UnflattenFunc', 'PyTreeEntry', 'GetItemEntry',
    'GetAttrEntry', 'FlattenedEntry', 'AutoEntry', 'SequenceEntry', 'MappingEntry',
    'NamedTupleEntry', 'StructSequenceEntry', 'DataclassEntry', 'PyTreeAccessor',
    'is_namedtuple', 'is_namedtuple_class', 'is_namedtuple_instance', 'namedtuple_fields',
    'is_structseq', 'is_structseq_class', 'is_structseq_instance', 'structseq_fields', 'T', 'S',
    'U', 'KT', 'VT', 'P', 'F', 'Iterable', 'Sequence', 'Tuple', 'List', 'Dict',
    'StructSequence', 'NamedTuple', 'OrderedDict', 'DefaultDict', 'Deque',
]

from typing import NamedTuple, OrderedDict, DefaultDict, Deque  # noqa: E402 (optree re-exports)
