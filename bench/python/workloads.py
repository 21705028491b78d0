# SPDX-License-Identifier: MIT
"""The workloads (docs/benchmarks.md), built as Python objects, and the reference
leaves every engine's flatten is checked against before timing."""

import collections


def xorshift_perm(n, seed):
    """The documented shuffle: Fisher-Yates driven by xorshift64, seeded from the
    dict's index (x = seed * 0x9E3779B97F4A7C15 + 1, never 0)."""
    x = (seed * 0x9E3779B97F4A7C15 + 1) & (2**64 - 1) or 1
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        x ^= (x << 13) & (2**64 - 1)
        x ^= x >> 7
        x ^= (x << 17) & (2**64 - 1)
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


Moments = collections.namedtuple('Moments', ['mu', 'nu'])


def w1(scale):
    return [{'b': 1, 'a': [2, 3]}, (4, 5), 6]


def w2(scale):
    return {f'k{j:04d}': j for j in xorshift_perm(1000, 2)}


def w3(scale):
    return {
        f'layer_{i:03d}': {'kernel': 1.0, 'bias': 2.0,
                           'norm': {'gamma': 3.0, 'beta': 4.0, 'mean': 5.0, 'var': 6.0}}
        for i in range(100)
    }


def w4(scale):
    t = 0
    for _ in range(500):
        t = [t]
    return t


def w5(scale):
    return [{f'f{j:02d}': i * 100 + j for j in xorshift_perm(100, i)}
            for i in range(scale['w5'])]


def w5s(scale):
    return [{f'f{j:02d}': i * 100 + j for j in range(100)} for i in range(scale['w5'])]


def w6(scale):
    """A train state: 50 layers of numpy leaves with two Moments namedtuples and a
    None mask each, and an OrderedDict of 5 metrics (insertion order unsorted)."""
    import numpy as np

    def x(k):
        return np.full(4, float(k), dtype=np.float32)

    layers = {
        f'layer_{i:02d}': {'kernel': x(i), 'bias': x(i + 0.5),
                           'opt': (Moments(mu=x(-i), nu=x(i * 2)), Moments(mu=x(-i), nu=x(i * 3))),
                           'mask': None}
        for i in range(50)
    }
    metrics = collections.OrderedDict(
        (name, x(j)) for j, name in enumerate(['loss', 'accuracy', 'lr', 'grad_norm', 'step']))
    return {'layers': layers, 'metrics': metrics}


def w7(scale):
    """W7: scale['w7'] structures that are all different: structure i is a list of
    i % 97 + 1 dicts {f'b{i}': j, f'a{i}': i} (keys made once per structure, inserted
    unsorted)."""
    out = []
    for i in range(scale['w7']):
        a, b = f'a{i}', f'b{i}'
        out.append([{b: j, a: i} for j in range(i % 97 + 1)])
    return out


WORKLOADS = {
    'W1': (w1, 'seed'),
    'W2': (w2, 'wide: 1000 keys'),
    'W3': (w3, 'params: 100 layers'),
    'W4': (w4, 'deep: 500 lists'),
    'W5': (w5, 'big: 10,000 dicts x 100 shuffled keys'),
    'W5s': (w5s, 'big, sorted keys'),
    'W6': (w6, 'train state, numpy leaves'),
    'W7': (w7, 'distinct: 100,000 structures'),
}

FULL_SCALE = {'w5': 10000, 'w7': 100000}
QUICK_SCALE = {'w5': 100, 'w7': 1000}

# ---------------------------------------------------------------------------
# Reference leaves (the check before timing)
# ---------------------------------------------------------------------------


def ref_leaves(tree, sort_dicts, none_is_leaf):
    """Leaves in order under a rule: dicts by sorted key (else insertion order),
    OrderedDicts by insertion, namedtuples by field, None a leaf or an empty node."""
    out = []
    stack = [tree]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is list or t is tuple or (isinstance(x, tuple) and hasattr(t, '_fields')):
            stack.extend(reversed(x))
        elif t is dict:
            keys = sorted(x) if sort_dicts else list(x)
            stack.extend(x[k] for k in reversed(keys))
        elif t is collections.OrderedDict:
            stack.extend(reversed(list(x.values())))
        elif x is None and not none_is_leaf:
            pass
        else:
            out.append(x)
    return out


def num_leaves(tree):
    return len(ref_leaves(tree, True, False))
