# SPDX-License-Identifier: MIT
"""A strict stand-in module `optree`: grove's public names and nothing else.

What a user gets from `import grove as optree`, as a module named `optree` so that code written
for optree (optree's own test suite, torch's `_cxx_pytree`) runs on grove unchanged. Only names
in grove's `__all__` are here; a name grove lacks raises AttributeError / ImportError, nothing
falls back to the real optree. `optree.X` for a submodule is `grove.X` (the finder below).

Three modules are not grove's: `optree._C`, `optree.ops` and `optree.registry` (this folder)
carry only the few internals that optree's test helpers import at start-up
(tests/optree_suite/README.md lists each name and why).
"""

import sys

import grove as _grove

__all__ = list(_grove.__all__)
globals().update({_name: getattr(_grove, _name) for _name in __all__})
# the submodules grove imports with itself (accessors, functools, integrations, typing, ...)
globals().update({_name: _mod for _name, _mod in vars(_grove).items()
                  if not _name.startswith('_') and isinstance(_mod, type(sys))
                  and _mod.__name__ == f'grove.{_name}'})
for _name, _mod in list(sys.modules.items()):
    if _name.startswith('grove.') and not _name.startswith('grove._'):
        sys.modules.setdefault('optree.' + _name[len('grove.'):], _mod)
__version__ = _grove._install.OPTREE_API_VERSION  # the optree API grove provides

_OWN = {'optree._C', 'optree.ops', 'optree.registry'}


sys.meta_path.insert(0, _grove._install.Submodules(exclude=_OWN))
