# SPDX-License-Identifier: MIT
"""tree_ravel for torch tensors (optree.integrations.torch)."""

import functools

import torch

from grove.integrations._ravel import Raveler

__all__ = ['TensorTree', 'tree_ravel']

TensorTree = object


_TORCH = Raveler(
    empty=lambda: torch.zeros(0), dtype_of=lambda x: x.dtype,
    promote=lambda ds: functools.reduce(torch.promote_types, ds),
    size=lambda x: x.numel(), shape=lambda x: x.shape, ravel=torch.ravel,
    cast=lambda x, d: x.to(d), concat=torch.cat,
    split=lambda a, ends: torch.split(a, [e - s for s, e in zip([0, *ends[:-1]], ends)]),
    reshape=lambda c, s: c.reshape(s), noun='tensor', is_array=torch.is_tensor,
    leaves_error='All leaves must be tensors.')


def tree_ravel(tree, /, is_leaf=None, *, none_is_leaf=False, namespace=''):
    """(the leaves raveled into one 1-D tensor of their promoted dtype, the function that turns
    such a tensor back into the tree)."""
    return _TORCH.tree_ravel(tree, is_leaf, none_is_leaf, namespace)
