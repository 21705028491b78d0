# SPDX-License-Identifier: MIT
"""Dataclasses that are pytree nodes (optree.dataclasses): `dataclass`, `field` and
`make_dataclass` as the standard library's, plus a `namespace`; fields whose
metadata['pytree_node'] is True (the default) are the children, the other init fields the
metadata. Instances are rebuilt with cls(**fields). The rest of `dataclasses` is re-exported."""

import dataclasses as _dc
import inspect
import types
import warnings
from dataclasses import *  # noqa: F401,F403 (re-exported, as optree)

from grove.accessors import DataclassEntry

__all__ = ['DataclassEntry', 'register_node', *_dc.__all__]

_FIELDS = '__optree_dataclass_fields__'


def field(*, default=_dc.MISSING, default_factory=_dc.MISSING, init=True, repr=True,  # noqa: A002
          hash=None, compare=True, metadata=None, kw_only=_dc.MISSING, pytree_node=None):  # noqa: A002
    """dataclasses.field, with pytree_node: whether the field is a child (default True; a
    non-init field must say False)."""
    metadata = dict(metadata or {})
    if pytree_node is None:
        pytree_node = metadata.get('pytree_node', True)
    metadata['pytree_node'] = pytree_node
    if not init and pytree_node:
        raise TypeError('`pytree_node=True` is not allowed for non-init fields. '
                        f'Please explicitly set `{__name__}.field(init=False, pytree_node=False)`.')
    return _dc.field(default=default, default_factory=default_factory, init=init, repr=repr,
                     hash=hash, compare=compare, metadata=metadata, kw_only=kw_only)


def _split_namespace(cls, namespace):
    from grove import GLOBAL_NAMESPACE
    if cls is GLOBAL_NAMESPACE or isinstance(cls, str):
        if namespace is not None:
            raise ValueError('Cannot specify `namespace` when the first argument is a string.')
        if cls == '':
            raise ValueError('The namespace cannot be an empty string.')
        return None, cls
    if namespace is None:
        raise ValueError('Must specify `namespace` when the first argument is a class.')
    return cls, namespace


def register_node(cls=None, /, *, namespace=None):
    """Register an existing dataclass as a pytree node (also a decorator)."""
    from grove import GLOBAL_NAMESPACE, register_pytree_node, unregister_pytree_node
    cls, namespace = _split_namespace(cls, namespace)
    if cls is None:
        return lambda c: register_node(c, namespace=namespace)
    if not inspect.isclass(cls):
        raise TypeError(f'Expected a class, got {cls!r}.')
    if not _dc.is_dataclass(cls):
        raise TypeError(f'{cls!r} is not a dataclass.')
    if _FIELDS in cls.__dict__:
        raise TypeError(f'Cannot register {cls.__name__} as a pytree node more than once with '
                        f'`{__name__}.register_node()`.')
    if namespace is not GLOBAL_NAMESPACE and not isinstance(namespace, str):
        raise TypeError(f'The namespace must be a string, got {namespace!r}.')
    if namespace == '':
        namespace = GLOBAL_NAMESPACE
    if not cls.__dataclass_params__.init:
        warnings.warn(f'Dataclass {cls.__name__!r} was defined with `init=False`. '
                      '`tree_unflatten()` may fail because '
                      f'`{__name__}.register_node()` reconstructs instances with '
                      '`cls(**kwargs)`.', UserWarning, stacklevel=2)
    init_vars = [name for name, f in cls.__dataclass_fields__.items()
                 if f._field_type is _dc._FIELD_INITVAR]
    if init_vars:
        raise TypeError(f'Dataclass {cls.__name__!r} has `InitVar` field(s) {init_vars!r}, '
                        'which the generated flatten/unflatten functions cannot round-trip.')
    children, meta = {}, {}
    for f in _dc.fields(cls):
        if f.metadata.get('pytree_node', True):
            if not f.init:
                raise TypeError(f'PyTree node field {f.name!r} must be included in '
                                '`__init__()`. Or you can explicitly set '
                                f'`{__name__}.field(init=False, pytree_node=False)`.')
            children[f.name] = f
        elif f.init:
            meta[f.name] = f
    names = tuple(children)

    def flatten(obj):
        return (tuple(getattr(obj, n) for n in names),
                tuple((n, getattr(obj, n)) for n in meta), names)

    def unflatten(metadata, values):
        kwargs = dict(zip(names, values))
        kwargs.update(metadata)
        return cls(**kwargs)

    register_pytree_node(cls, flatten, unflatten, path_entry_type=DataclassEntry,
                         namespace=namespace)
    try:
        setattr(cls, _FIELDS, (types.MappingProxyType(children), types.MappingProxyType(meta)))
    except BaseException:
        unregister_pytree_node(cls, namespace=namespace)
        raise
    return cls


def dataclass(cls=None, /, *, namespace, **kwargs):
    """dataclasses.dataclass, then register_node in namespace."""
    if cls is None:
        return lambda c: dataclass(c, namespace=namespace, **kwargs)
    if not inspect.isclass(cls):
        raise TypeError(f'Expected a class, got {cls!r}.')
    if _dc.is_dataclass(cls) and '__dataclass_fields__' in cls.__dict__:
        raise TypeError(f'@{__name__}.dataclass() cannot be applied to {cls.__name__} more '
                        'than once.')
    return register_node(_dc.dataclass(cls, **kwargs), namespace=namespace)


def make_dataclass(cls_name, fields, *, namespace, ns=None, **kwargs):
    """dataclasses.make_dataclass, then register_node in namespace (ns: the class body's
    namespace, as the standard library's `namespace` argument)."""
    fields = [f if isinstance(f, (str, tuple)) else f for f in fields]
    made = _dc.make_dataclass(cls_name, fields, namespace=ns, **kwargs)
    return register_node(made, namespace=namespace)
