# SPDX-License-Identifier: MIT
"""grove.install_as_optree(): grove under the name `optree`, for code that imports optree
(torch.utils._cxx_pytree, libraries written against optree) and cannot be edited."""

import importlib
import importlib.abc
import importlib.util
import sys
import types

# The optree release whose public API grove provides (the module's __version__ as optree).
OPTREE_API_VERSION = '0.20.0'


class Submodules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """optree.X.Y imports as grove.X.Y (the same module object); but the names in exclude."""

    def __init__(self, exclude=()):
        self.exclude = frozenset(exclude)

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith('optree.') or fullname in self.exclude:
            return None
        try:
            found = importlib.util.find_spec('grove.' + fullname[len('optree.'):])
        except ModuleNotFoundError:
            return None
        return None if found is None else importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module('grove.' + spec.name[len('optree.'):])
        spec.loader_state = (module.__spec__, module.__loader__)
        return module

    def exec_module(self, module):
        # (the import system set our spec on grove's module: give it back its own)
        module.__spec__, module.__loader__ = module.__spec__.loader_state


_FINDER = Submodules()


def optree_module():
    """A module named optree holding grove's public names and submodules, and _C (c_module)."""
    import grove
    module = types.ModuleType('optree', 'grove under the name optree (grove.install_as_optree)')
    for name in grove.__all__:
        setattr(module, name, getattr(grove, name))
    for name, value in vars(grove).items():
        if (not name.startswith('_') and isinstance(value, types.ModuleType)
                and value.__name__ == f'grove.{name}'):
            setattr(module, name, value)
    module.__all__ = list(grove.__all__)
    module.__version__ = OPTREE_API_VERSION
    module._C = c_module()
    return module


def c_module():
    """A module named optree._C holding the few functions of optree's extension module that
    torch reads (torch._dynamo.polyfills.pytree, imported by torch._dynamo, substitutes them
    when it traces), each with optree._C's signature, on grove."""
    import grove
    module = types.ModuleType('optree._C', "optree._C's functions that torch reads, on grove")

    def flatten(tree, /, leaf_predicate=None, none_is_leaf=False, namespace=''):
        return grove.tree_flatten(tree, leaf_predicate, none_is_leaf=none_is_leaf,
                                  namespace=namespace)

    def flatten_with_path(tree, /, leaf_predicate=None, none_is_leaf=False, namespace=''):
        return grove.tree_flatten_with_path(tree, leaf_predicate, none_is_leaf=none_is_leaf,
                                            namespace=namespace)

    for fn in (flatten, flatten_with_path):
        fn.__module__, fn.__qualname__ = module.__name__, fn.__name__
        setattr(module, fn.__name__, fn)
    module.is_dict_insertion_ordered = grove._is_dict_insertion_ordered
    return module


def install_as_optree():
    """Make `import optree` (and optree.X submodules) give grove. Call it before the code that
    imports optree; a real optree already imported raises RuntimeError. Returns the module."""
    current = sys.modules.get('optree')
    if current is not None:
        if getattr(current, '__grove__', False):
            return current
        raise RuntimeError('optree is already imported; call grove.install_as_optree() first')
    module = optree_module()
    module.__grove__ = True
    sys.modules['optree'] = module
    sys.modules['optree._C'] = module._C
    for name, value in list(sys.modules.items()):
        if name.startswith('grove.') and not name.startswith('grove._'):
            sys.modules.setdefault('optree.' + name[len('grove.'):], value)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    return module
