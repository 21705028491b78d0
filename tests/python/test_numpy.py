# SPDX-License-Identifier: MIT
"""numpy arrays as leaves and as custom metadata (no truth value for ==)."""

import grove
import numpy as np
import pytest


class Tagged:
    def __init__(self, value, tag):
        self.value, self.tag = value, tag


grove.register_pytree_node(Tagged, lambda t: ([t.value], t.tag), lambda m, c: Tagged(c[0], m),
                           namespace='np-test')


def test_arrays_are_leaves():
    params = {'layer': {'kernel': np.ones((2, 3)), 'bias': np.zeros(3)}, 'step': np.int64(3)}
    leaves, spec = grove.tree_flatten(params)
    assert [x.shape for x in leaves] == [(3,), (2, 3), ()]
    doubled = grove.tree_map(lambda x: x * 2, params)
    assert float(doubled['layer']['kernel'].sum()) == 12.0
    assert grove.tree_structure(doubled) == spec
    summed = grove.tree_map(lambda a, b: a + b, params, doubled)
    assert float(summed['layer']['kernel'][0, 0]) == 3.0


def test_array_metadata():
    a = Tagged(1, np.array([1, 2]))
    b = Tagged(2, np.array([3, 4]))
    sa = grove.tree_structure(a, namespace='np-test')
    sb = grove.tree_structure(b, namespace='np-test')
    assert sa == grove.tree_structure(a, namespace='np-test')  # the same object: one handle
    with pytest.raises(ValueError, match='truth value'):  # == of the arrays, as in optree
        sa != sb
    one = grove.tree_structure(Tagged(1, np.array([5])), namespace='np-test')
    assert one == grove.tree_structure(Tagged(2, np.array([5])), namespace='np-test')
    assert hash(sa) == hash(sb)  # metadata is never hashed
    back = sa.unflatten([5])
    assert back.value == 5 and back.tag is a.tag
