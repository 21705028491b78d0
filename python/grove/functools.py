# SPDX-License-Identifier: MIT
"""functools.partial as a pytree node (optree.functools): its args and keywords are the
children, its function the metadata."""

from __future__ import annotations

import functools

from grove import tree_reduce as reduce  # functools.reduce over a tree's leaves, as optree's
from grove.accessors import GetAttrEntry

__all__ = ['partial', 'reduce']


class _Wrapped:
    """A functools.partial given as the function, kept whole (so that its own args are not
    merged into ours) and compared by what it wraps."""

    __slots__ = ('inner', 'func', 'args', 'keywords', '__weakref__')

    def __init__(self, inner):
        self.inner = inner

    def __call__(self, *args, **kwargs):
        return self.inner(*args, **kwargs)

    def __eq__(self, other):
        return isinstance(other, _Wrapped) and self.inner == other.inner

    def __hash__(self):
        return hash(self.inner)

    def __repr__(self):
        return repr(self.inner)


class partial(functools.partial):  # noqa: N801 (optree's name)
    """functools.partial whose args and keywords are pytree children."""

    __slots__ = ()
    TREE_PATH_ENTRY_TYPE = GetAttrEntry

    def __new__(cls, func, /, *args, **keywords):
        if isinstance(func, functools.partial):
            wrapped = _Wrapped(func)
            out = super().__new__(cls, wrapped, *args, **keywords)
            wrapped.func, wrapped.args, wrapped.keywords = func.func, func.args, func.keywords
            return out
        return super().__new__(cls, func, *args, **keywords)

    def __repr__(self):
        parts = [repr(self.func), *map(repr, self.args),
                 *(f'{k}={v!r}' for k, v in self.keywords.items())]
        return f'{type(self).__module__}.{type(self).__qualname__}({", ".join(parts)})'

    def __tree_flatten__(self):
        return (self.args, self.keywords), self.func, ('args', 'keywords')

    @classmethod
    def __tree_unflatten__(cls, metadata, children):
        args, keywords = children
        return cls(metadata, *args, **keywords)


def _register():
    from grove import GLOBAL_NAMESPACE, register_pytree_node_class
    register_pytree_node_class(partial, path_entry_type=GetAttrEntry, namespace=GLOBAL_NAMESPACE)


_register()
