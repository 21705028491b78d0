# SPDX-License-Identifier: MIT
"""grove.integrations' tree_ravel against optree.integrations': the same flat array and leaves
back, and the same errors (type and message) for what unravel and ravel refuse."""

import re

import grove
import grove.integrations.numpy
import numpy as np
import optree
import optree.integrations.numpy
import pytest


def outcome(fn):
    try:
        return ('ok', fn())
    except ValueError as e:
        return ('ValueError', str(e))


def check(lib, mine, theirs, trees, make_bad):
    for tree in trees:
        fm, um = mine.tree_ravel(tree)
        ft, ut = theirs.tree_ravel(tree)
        assert np.array_equal(np.asarray(fm), np.asarray(ft)) and fm.dtype == ft.dtype
        back = grove.tree_leaves(um(fm))
        assert len(back) == len(optree.tree_leaves(ut(ft)))
        for a, b in zip(back, optree.tree_leaves(ut(ft))):
            assert np.array_equal(np.asarray(a), np.asarray(b)) and a.dtype == b.dtype
        for bad in make_bad(fm):
            rm, rt = outcome(lambda: um(bad)), outcome(lambda: ut(bad))
            assert rm[0] == rt[0] == 'ValueError', (bad, rm, rt)
            # the same message up to how each library prints a shape
            assert re.sub(r'torch\.Size\(\[(.*?)\]\)', r'(\1)', rm[1]).replace(',)', ')') == \
                re.sub(r'torch\.Size\(\[(.*?)\]\)', r'(\1)', rt[1]).replace(',)', ')'), (rm, rt)


def test_numpy_tree_ravel_as_optree():
    trees = [{'a': np.arange(3.0), 'b': (np.ones((2, 2), np.float32),)}, [np.int32(4)], []]
    check(np, grove.integrations.numpy, optree.integrations.numpy, trees,
          lambda f: [f.reshape(-1, 1), np.concatenate([f, f[:1]]) if f.size else np.ones(1)])


def test_torch_tree_ravel_as_optree():
    torch = pytest.importorskip('torch')
    import grove.integrations.torch
    import optree.integrations.torch
    trees = [{'a': torch.arange(3.0), 'b': (torch.ones((2, 2), dtype=torch.float32),)},
             [torch.tensor(4, dtype=torch.int32), torch.zeros(2, dtype=torch.float64)], []]
    check(torch, grove.integrations.torch, optree.integrations.torch, trees,
          lambda f: [1, f.reshape(-1, 1), torch.cat([f, torch.zeros(1, dtype=f.dtype)])])
    for bad in ([1, torch.ones(1)], {'x': 2.0}):
        rm = outcome(lambda: grove.integrations.torch.tree_ravel(bad))
        rt = outcome(lambda: optree.integrations.torch.tree_ravel(bad))
        assert rm == rt and rm[0] == 'ValueError'
