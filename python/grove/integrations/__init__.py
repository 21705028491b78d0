# SPDX-License-Identifier: MIT
"""Array-library integrations (optree.integrations): `tree_ravel` for numpy, jax and torch,
each a submodule imported on first use (ImportError when its library is missing)."""

import importlib

SUBMODULES = frozenset({'attrs', 'jax', 'numpy', 'torch'})


def __dir__():
    return sorted(SUBMODULES | {'SUBMODULES'})


def __getattr__(name):
    if name in SUBMODULES:
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
