# SPDX-License-Identifier: MIT
"""The treespec_* constructors without their prefix (optree.treespec):
grove.treespec.list([...]) is grove.treespec_list([...])."""

from grove._specs import (
    treespec_defaultdict as defaultdict,
    treespec_deque as deque,
    treespec_dict as dict,  # noqa: A001 (optree's names)
    treespec_from_collection as from_collection,
    treespec_frozendict as frozendict,
    treespec_leaf as leaf,
    treespec_list as list,  # noqa: A001
    treespec_namedtuple as namedtuple,
    treespec_none as none,
    treespec_ordereddict as ordereddict,
    treespec_structseq as structseq,
    treespec_tuple as tuple,  # noqa: A001
)

__all__ = ['leaf', 'none', 'tuple', 'list', 'dict', 'namedtuple', 'ordereddict', 'defaultdict',
           'deque', 'structseq', 'frozendict', 'from_collection']
