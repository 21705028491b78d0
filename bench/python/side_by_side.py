# SPDX-License-Identifier: MIT
"""grove vs optree, side by side in one process, on the Python workloads W1-W5
(docs/benchmarks.md: W1 seed, W2 wide, W3 params, W4 deep (500), W5 big).

    PYTHONPATH=build-py/python python bench/python/side_by_side.py [--quick]

Prints microseconds per call (best of several samples) and the ratio
optree/grove for tree_flatten, tree_leaves, tree_unflatten, tree_map (one and
two trees), tree_flatten_with_path, spec == and hash (spec2 is the structure
of a second, equal tree built separately). Not a test: numbers vary by
machine, and on a shared machine by its load."""

import random
import sys
import time

import grove
import optree


def xorshift_perm(n, seed):
    """The documented shuffle: Fisher-Yates driven by xorshift64 seeded with the index."""
    x = (seed * 0x9E3779B97F4A7C15 + 1) & (2**64 - 1) or 1
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        x ^= (x << 13) & (2**64 - 1)
        x ^= x >> 7
        x ^= (x << 17) & (2**64 - 1)
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def w1():
    return [{'b': 1, 'a': [2, 3]}, (4, 5), 6]


def w2():
    return {f'k{j:04d}': j for j in xorshift_perm(1000, 2)}


def w3():
    return {
        f'layer_{i:03d}': {'kernel': 1.0, 'bias': 2.0,
                           'norm': {'gamma': 3.0, 'beta': 4.0, 'mean': 5.0, 'var': 6.0}}
        for i in range(100)
    }


def w4():
    t = 0
    for _ in range(500):
        t = [t]
    return t


def w5():
    return [{f'f{j:02d}': i * 100 + j for j in xorshift_perm(100, i)} for i in range(10000)]


def best(f, n, samples=5):
    b = float('inf')
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        b = min(b, (time.perf_counter() - t0) / n)
    return b * 1e6


def main():
    quick = '--quick' in sys.argv
    rows = []
    for name, make, n in [('W1', w1, 20000), ('W2', w2, 300), ('W3', w3, 1000), ('W4', w4, 500),
                          ('W5', w5, 3)]:
        if quick:
            n = max(1, n // 10)
        tree = make()
        other = make()
        res = {}
        for lib in (optree, grove):
            leaves, spec = lib.tree_flatten(tree)
            spec2 = lib.tree_structure(other)
            res[lib.__name__] = {
                'tree_flatten': best(lambda: lib.tree_flatten(tree), n),
                'tree_leaves': best(lambda: lib.tree_leaves(tree), n),
                'tree_unflatten': best(lambda: lib.tree_unflatten(spec, leaves), n),
                'tree_map': best(lambda: lib.tree_map(lambda x: x, tree), n),
                'tree_map2': best(lambda: lib.tree_map(lambda x, y: x, tree, other), n),
                'flatten_with_path': best(lambda: lib.tree_flatten_with_path(tree), n),
                'spec ==': best(lambda: spec == spec2, n * 10),
                'hash': best(lambda: hash(spec), n * 10),
            }
        for op in res['grove']:
            o, g = res['optree'][op], res['grove'][op]
            rows.append((name, op, o, g, o / g))
    print(f'{"wl":4} {"operation":15} {"optree us":>12} {"grove us":>12} {"ratio":>8}')
    for r in rows:
        print(f'{r[0]:4} {r[1]:15} {r[2]:12.3f} {r[3]:12.3f} {r[4]:8.1f}x')


if __name__ == '__main__':
    random.seed(0)
    main()
