# SPDX-License-Identifier: MIT
"""An import hook that runs a function right after one module is executed: grove.keras's (keras's
tree_api: the swap to grove) and grove._dynamo's (torch._dynamo: grove's and grove._keras_torch's
stand-ins)."""

import importlib.abc
import sys


class _Loader(importlib.abc.Loader):
    """The module's own loader, then then(module)."""

    def __init__(self, inner, then):
        self.inner, self.then = inner, then

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        self.then(module)

    def __getattr__(self, name):  # get_source, is_package, ... of the real loader
        return getattr(self.inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Answers only for the module fullname: its usual spec, its loader wrapped to run
    then(module) once the module has run."""

    def __init__(self, fullname, then):
        self.fullname, self.then = fullname, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.fullname:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, 'exec_module'):
                    spec.loader = _Loader(spec.loader, self.then)
                return spec
        return None
