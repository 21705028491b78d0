# SPDX-License-Identifier: MIT
"""tree_ravel for numpy arrays (optree.integrations.numpy)."""

import numpy as np

from grove.integrations._ravel import Raveler

__all__ = ['ArrayLikeTree', 'ArrayTree', 'tree_ravel']

ArrayTree = object
ArrayLikeTree = object

_NP = Raveler(
    empty=lambda: np.zeros(0), dtype_of=np.result_type, promote=lambda ds: np.result_type(*ds),
    size=np.size, shape=np.shape, ravel=np.ravel, cast=lambda x, d: np.asarray(x).astype(d),
    concat=np.concatenate, split=lambda a, ends: np.split(a, ends[:-1]),
    reshape=lambda c, s: c.reshape(s))


def tree_ravel(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """(the leaves raveled into one 1-D array of their promoted dtype, the function that
    turns such an array back into the tree)."""
    return _NP.tree_ravel(tree, is_leaf, none_is_leaf, namespace)


ravel_pytree = tree_ravel
