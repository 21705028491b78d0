# SPDX-License-Identifier: MIT
"""tree_ravel for jax arrays (optree.integrations.jax)."""

import jax.numpy as jnp
import numpy as np

from grove.integrations._ravel import Raveler

__all__ = ['ArrayLikeTree', 'ArrayTree', 'tree_ravel']

ArrayTree = object
ArrayLikeTree = object

_JAX = Raveler(
    empty=lambda: jnp.zeros(0), dtype_of=jnp.result_type, promote=lambda ds: jnp.result_type(*ds), size=np.size, shape=np.shape, ravel=jnp.ravel,
    cast=lambda x, d: jnp.asarray(x).astype(d), concat=jnp.concatenate,
    split=lambda a, ends: jnp.split(a, ends[:-1]), reshape=lambda c, s: c.reshape(s))


def tree_ravel(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """(the leaves raveled into one 1-D jax array of their promoted dtype, the function that
    turns such an array back into the tree)."""
    return _JAX.tree_ravel(tree, is_leaf, none_is_leaf, namespace)


ravel_pytree = tree_ravel
