# SPDX-License-Identifier: MIT
"""keras.tree with keras's default implementation (optree) and with grove
installed (grove.keras), side by side in one process, on W1, W3 and W5
(the workloads of docs/benchmarks.md, built by side_by_side.py).

    KERAS_BACKEND=numpy PYTHONPATH=build-py/python \\
        .venv/bin/python bench/python/keras_tree.py [--quick] [--workloads W1,W3]

Needs keras (tests/python/requirements-keras.txt). Prints microseconds per
call (the median of several samples) of keras.tree.flatten, map_structure
(identity), traverse (a function returning None, top-down and bottom-up),
assert_same_structure (against an equal tree built separately),
pack_sequence_as, and the ratio default/grove. Every call goes through
keras's own keras.tree functions (tree_api), only the implementation module
differs. Not a test: numbers vary by machine, and on a shared one by load."""

import os
import statistics
import sys
import time

os.environ.setdefault('KERAS_BACKEND', 'numpy')

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import side_by_side as sbs  # noqa: E402
from keras import tree as ktree  # noqa: E402
from keras.src.tree import tree_api  # noqa: E402

import grove.keras  # noqa: E402


def median_us(f, n, samples=7):
    ts = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        ts.append((time.perf_counter() - t0) / n)
    return statistics.median(ts) * 1e6


def ident(x):
    return x


def nothing(x):
    return None


def main():
    quick = '--quick' in sys.argv
    wanted = None
    if '--workloads' in sys.argv:
        wanted = set(sys.argv[sys.argv.index('--workloads') + 1].split(','))
    default = tree_api.tree_impl
    grove.keras.install()
    rows = []
    for name, make, n in [('W1', sbs.w1, 20000), ('W3', sbs.w3, 300), ('W5', sbs.w5, 1)]:
        if wanted and name not in wanted:
            continue
        if quick:
            n = max(1, n // 10)
        tree, other = make(), make()
        flat = ktree.flatten(tree)
        ops = {
            'flatten': (lambda: ktree.flatten(tree), n),
            'map_structure': (lambda: ktree.map_structure(ident, tree), n),
            'traverse (top-down)': (lambda: ktree.traverse(nothing, tree), max(1, n // 3)),
            'traverse (bottom-up)': (lambda: ktree.traverse(nothing, tree, top_down=False),
                                     max(1, n // 3)),
            'assert_same_structure': (lambda: ktree.assert_same_structure(tree, other), n),
            'pack_sequence_as': (lambda: ktree.pack_sequence_as(tree, flat), n),
        }
        for op, (f, reps) in ops.items():
            res = {}
            for label, impl in (('keras', default), ('grove', grove.keras)):
                tree_api.tree_impl = impl
                f()  # warm (caches, keysets)
                res[label] = median_us(f, reps, 3 if name == 'W5' else 7)
            tree_api.tree_impl = grove.keras
            rows.append((name, op, res['keras'], res['grove'], res['keras'] / res['grove']))
            print(f'{name:4} {op:22} {res["keras"]:14.2f} {res["grove"]:12.2f} '
                  f'{res["keras"] / res["grove"]:8.1f}x', flush=True)
    grove.keras.uninstall()


if __name__ == '__main__':
    print(f'{"wl":4} {"keras.tree.":22} {"default us":>14} {"grove us":>12} {"ratio":>9}')
    main()
