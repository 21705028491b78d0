# SPDX-License-Identifier: MIT
"""optree.pytree: the tree_* functions without their prefix (grove.pytree.flatten is
grove.tree_flatten), and reexport(namespace=...), a module of them whose namespace defaults to
the given one (with its own dataclasses and functools)."""

import functools as _functools
import inspect as _inspect
import sys as _sys
import types as _types

import grove as _grove
from grove import PyTreeEntry, PyTreeKind, PyTreeSpec
from grove._install import OPTREE_API_VERSION

_OPS = [name[len('tree_'):] for name in _grove.__all__ if name.startswith('tree_')]
__all__ = ['reexport', 'PyTreeSpec', 'PyTreeKind', 'PyTreeEntry', *_OPS, 'register_node',
           'register_node_class', 'unregister_node', 'dict_insertion_ordered']
__version__ = OPTREE_API_VERSION

globals().update({name: getattr(_grove, f'tree_{name}') for name in _OPS})
register_node = _grove.register_pytree_node
register_node_class = _grove.register_pytree_node_class
unregister_node = _grove.unregister_pytree_node
dict_insertion_ordered = _grove.dict_insertion_ordered


class ReexportedModule(_types.ModuleType):
    """A module of another module's public names whose functions take namespace=NS by
    default (functions are wrapped on first use)."""

    def __init__(self, name, *, namespace, original, names=None, extra=None):
        super().__init__(name, f'{original.__name__} re-exported with namespace {namespace!r}.')
        names = set(names if names is not None else original.__all__) - {'reexport'}
        self._ns, self._original, self._names = namespace, original, names
        self.__all__ = sorted(names)
        self._dir = set(names) | set(extra or {})
        for key, value in (extra or {}).items():
            setattr(self, key, value)

    def __dir__(self):
        return sorted(self._dir)

    def __getattr__(self, name):
        if name.startswith('_') or name not in self._names:
            raise AttributeError(f'module {self.__name__!r} has no attribute {name!r}')
        value = getattr(self._original, name)
        if _inspect.isfunction(value) or _inspect.isbuiltin(value):
            value = self._wrap(value)
        setattr(self, name, value)
        return value

    def _wrap(self, func):
        try:
            takes_ns = 'namespace' in _inspect.signature(func).parameters
        except (TypeError, ValueError):  # (the extension's functions: all but unflatten take it)
            takes_ns = func.__name__ != 'tree_unflatten'
        ns = self._ns

        @_functools.wraps(func)
        def wrapped(*args, **kwargs):
            if takes_ns:
                kwargs.setdefault('namespace', ns)
            return func(*args, **kwargs)

        if callable(getattr(func, 'get', None)):
            wrapped.get = self._wrap(func.get)
        return wrapped


def reexport(*, namespace, module=None):
    """A module `module` (default: the caller's module's name + '.pytree') of this module's
    functions with namespace defaulting to `namespace`, plus its dataclasses and functools;
    put in sys.modules."""
    if namespace is not _grove.GLOBAL_NAMESPACE and not isinstance(namespace, str):
        raise TypeError(f'The namespace must be a string, got {namespace!r}.')
    ns = '' if namespace is _grove.GLOBAL_NAMESPACE else namespace
    if module is None:
        module = f"{_sys._getframe(1).f_globals.get('__name__', '__main__')}.pytree"
    if not isinstance(module, str) or not all(p.isidentifier() for p in module.split('.')):
        raise ValueError(f'invalid module name: {module!r}')
    if module in _sys.modules:
        raise ValueError(f'module {module!r} already exists')
    dataclasses = ReexportedModule(f'{module}.dataclasses', namespace=ns,
                                   original=_grove.dataclasses)
    functools = ReexportedModule(f'{module}.functools', namespace=ns,
                                 original=_grove.functools)
    mod = ReexportedModule(module, namespace=ns, original=_sys.modules[__name__],
                           extra={'dataclasses': dataclasses, 'functools': functools,
                                  '__version__': __version__})
    for m in (mod, dataclasses, functools):
        _sys.modules[m.__name__] = m
    return mod
