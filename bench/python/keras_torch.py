# SPDX-License-Identifier: MIT
"""keras.tree on keras's torch backend: keras's own torch implementation
(keras/src/tree/torchtree_impl.py, what keras picks with KERAS_BACKEND=torch) against
grove.keras installed (which there answers through grove._keras_torch), eager.

keras fixes its backend once per process, so bench.py runs this file as a child
(KERAS_BACKEND=torch) and merges its rows (section 'keras_torch') into its report;
`bench.py --engines keras_torch` runs these rows alone. By itself:

    python bench/python/keras_torch.py [--quick] [--only W1,W3] [--ops flatten] [--json-out F]

grove.keras.install() runs before keras is imported (as a user does); tree_api.tree_impl
is then grove._keras_torch, bound to keras's torchtree_impl module, and the timing
switches tree_api.tree_impl between the two (outside the timing), through keras's own
keras.tree functions, on the same tree objects. Before timing, every operation's result
is computed both ways and must be the same (types, key order, leaves by identity), else
the run stops. grove._keras_torch answers with its C functions only where the result is
provably torchtree_impl's (exact lists, tuples and dicts whose keys are already sorted,
with the exceptions its docstring lists) and otherwise calls keras's own function: each
row says which path grove took, from the calls that reached keras's functions during
one counted call made before timing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from engines import first, ident, nothing  # noqa: E402
from floor import same  # noqa: E402

DEFAULT, GROVE = 'keras_torch/torchtree_impl', 'keras_torch/grove'
WORKLOADS = ['W1', 'W2', 'W3', 'W4', 'W5', 'W5s', 'W6']
# keras's torch implementation takes seconds per call on the big trees: W5 and W5s are built
# with 1,000 dicts (100,000 leaves, a tenth of the main table's), and an operation one of
# whose calls takes more than SLOW_S is timed in 3 rounds (one call each). --quick leaves out
# W4 (500 deep: keras's traverse takes seconds there whatever the scale).
W5_DICTS = 1000
SLOW_S = 0.5
QUICK_SKIP = ('W4',)


def ops(k, t, o):
    """operation -> (statement, namespace): keras.tree's functions (module k)."""
    flat = k.flatten(t)
    base = {'t': t, 'o': o, 'flat': flat, 'g': ident, 'g2': first, 'nothing': nothing}
    table = {
        'flatten': ('f(t)', {'f': k.flatten}),
        'map_structure': ('f(g, t)', {'f': k.map_structure}),
        'map_structure (two)': ('f(g2, t, o)', {'f': k.map_structure}),
        'map_structure_up_to': ('f(o, g2, t, o)', {'f': k.map_structure_up_to}),
        'pack_sequence_as': ('f(t, flat)', {'f': k.pack_sequence_as}),
        'traverse (top-down)': ('f(nothing, t)', {'f': k.traverse}),
        'traverse (bottom-up)': ('f(nothing, t, top_down=False)', {'f': k.traverse}),
        'assert_same_structure': ('f(t, o)', {'f': k.assert_same_structure}),
        'lists_to_tuples': ('f(t)', {'f': k.lists_to_tuples}),
    }
    return {name: (stmt, {**base, **extra}) for name, (stmt, extra) in table.items()}


# ---------------------------------------------------------------------------
# The child (KERAS_BACKEND=torch)
# ---------------------------------------------------------------------------

def child(args):
    os.environ['KERAS_BACKEND'] = 'torch'
    sys.setrecursionlimit(100000)  # keras's torch implementation recurses (W4 is 500 deep)
    import types

    import grove.keras
    grove.keras.install()
    import keras
    import torch
    from keras import tree as ktree
    from keras.src.tree import tree_api

    from timing import Timer, summary
    from workloads import FULL_SCALE, QUICK_SCALE, WORKLOADS as BUILD, num_leaves

    gk = tree_api.tree_impl
    default = gk._impl
    if gk.__name__ != 'grove._keras_torch' or default.__name__ != 'keras.src.tree.torchtree_impl':
        raise SystemExit(f'bench: keras_torch: keras uses {gk.__name__} / {default.__name__}')
    if not gk.fast:
        print(f'bench: keras_torch: grove._keras_torch does not know keras {keras.__version__}: '
              'every call is keras\'s own', file=sys.stderr)

    def use(which):
        tree_api.tree_impl = gk if which == 'grove' else default

    counts = {}

    def counted(name, f):
        def g(*a, **kw):
            counts[name] = counts.get(name, 0) + 1
            return f(*a, **kw)
        return g

    def keras_calls(stmt, ns):
        """Calls grove._keras_torch passed on to keras's functions in one call of stmt."""
        counts.clear()
        gk._impl = types.SimpleNamespace(**{n: counted(n, getattr(default, n))
                                            for n in gk.__all__})
        try:
            use('grove')
            eval(stmt, ns)
        finally:
            gk._impl = default
        return sum(counts.values())

    scale = dict(QUICK_SCALE if args.quick else FULL_SCALE)
    scale['w5'] = min(scale['w5'], W5_DICTS)
    timer = Timer(args.sample_ms / 1000, args.rounds)
    words = args.ops.split(',') if args.ops else None
    results = []
    for wl in args.only.split(','):
        build = BUILD[wl][0]
        tree, other = build(scale), build(scale)
        leaves = num_leaves(tree)
        print(f'bench: keras_torch {wl} ({leaves} leaves) ...', file=sys.stderr, flush=True)
        for op, (stmt, ns) in ops(ktree, tree, other).items():
            if words is not None and not any(w in op for w in words):
                continue
            got, slow = {}, False
            for which in ('default', 'grove'):
                use(which)
                t = time.perf_counter()
                got[which] = eval(stmt, ns)
                slow = slow or time.perf_counter() - t > SLOW_S
            if not same(got['default'], got['grove']):
                raise SystemExit(f'bench: keras_torch: RESULTS DIFFER, not timing: {wl} {op}')
            del got
            n_keras = keras_calls(stmt, ns)
            cases = {DEFAULT: (stmt, ns, lambda: use('default')),
                     GROVE: (stmt, ns, lambda: use('grove'))}
            samples, number = timer.run(cases, rounds=min(args.rounds, 3) if slow else None)
            for eng, s in samples.items():
                med, spread = summary(s)
                results.append({'section': 'keras_torch', 'workload': wl, 'op': op,
                                'engine': eng, 'median_s': med, 'spread_s': spread,
                                'calls': number[eng], 'samples': len(s), 'leaves': leaves,
                                'ns_per_leaf': med * 1e9 / max(leaves, 1),
                                'keras_calls': n_keras if eng == GROVE else None})
        use('default')
        del tree, other
    meta = {'keras': keras.__version__, 'torch': torch.__version__, 'fast': gk.fast,
            'rounds': args.rounds, 'sample_ms': args.sample_ms}
    with open(args.json_out, 'w') as f:
        json.dump({'meta': meta, 'results': results}, f)


# ---------------------------------------------------------------------------
# The parent (bench.py)
# ---------------------------------------------------------------------------

def missing():
    """Why the torch-backend rows cannot run here, or None."""
    for mod in ('torch', 'keras'):
        if importlib.util.find_spec(mod) is None:
            return f'{mod} is not installed'
    return None


def run(workloads, words, quick, rounds, sample_ms):
    """The child's {'meta', 'results'}, or a str saying why it was skipped."""
    why = missing()
    if why:
        return f'keras_torch: skipped ({why})'
    wls = [w for w in workloads if w in WORKLOADS and not (quick and w in QUICK_SKIP)]
    if not wls:
        return None
    with tempfile.TemporaryDirectory(prefix='grove-keras-torch-') as tmp:
        out = os.path.join(tmp, 'out.json')
        cmd = [sys.executable, os.path.abspath(__file__), '--child', '--only', ','.join(wls),
               '--rounds', str(rounds), '--sample-ms', str(sample_ms), '--json-out', out]
        if quick:
            cmd.append('--quick')
        if words:
            cmd += ['--ops', ','.join(words)]
        env = dict(os.environ, KERAS_BACKEND='torch', KERAS_HOME=tmp)
        env.setdefault('JAX_PLATFORMS', 'cpu')
        t = time.time()
        p = subprocess.run(cmd, env=env)
        if p.returncode != 0:
            raise SystemExit(f'bench: keras_torch child failed (exit {p.returncode})')
        with open(out) as f:
            res = json.load(f)
    res['meta']['seconds'] = round(time.time() - t, 1)
    return res


def render(res):
    """Markdown lines: the torch-backend table."""
    from report import fmt_ratio, fmt_time
    m = res['meta']
    ix = {(r['workload'], r['op'], r['engine']): r for r in res['results']}
    lines = [
        '',
        f'keras.tree (keras {m["keras"]}, torch {m["torch"]}, KERAS_BACKEND=torch, eager): '
        'keras\'s own torch implementation (torchtree_impl) vs grove.keras installed '
        '(grove._keras_torch), through keras\'s own functions, in a child process; median of '
        f'{m["rounds"]} interleaved samples ± half the interquartile range. grove\'s path: '
        '"C" where grove._keras_torch answered with its C function (exact lists, tuples and '
        'dicts already in sorted key order), "keras (n)" where it passed the call on to '
        'torchtree_impl (n calls of keras\'s functions, counted in one call before timing). '
        f'W5 and W5s have {W5_DICTS:,} dicts here; an operation whose call takes over '
        f'{SLOW_S} s has 3 samples.',
        '',
        '| workload | keras.tree. | torchtree_impl | grove | torchtree_impl / grove '
        '| grove\'s path |',
        '|---|---|---|---|---|---|',
    ]
    for r in res['results']:
        if r['engine'] != GROVE:
            continue
        d = ix[(r['workload'], r['op'], DEFAULT)]
        pd = 100 * d['spread_s'] / d['median_s'] if d['median_s'] else 0
        pg = 100 * r['spread_s'] / r['median_s'] if r['median_s'] else 0
        path = 'C' if not r['keras_calls'] else f'keras ({r["keras_calls"]})'
        if r['samples'] < m['rounds']:
            path += f', {r["samples"]} samples'
        lines.append(f'| {r["workload"]} ({r["leaves"]}) | {r["op"]} | '
                     f'{fmt_time(d["median_s"])} ±{pd:.0f}% | {fmt_time(r["median_s"])} '
                     f'±{pg:.0f}% | **{fmt_ratio(d["median_s"] / r["median_s"])}** | {path} |')
    return lines


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--only', default=','.join(WORKLOADS))
    ap.add_argument('--ops')
    ap.add_argument('--rounds', type=int)
    ap.add_argument('--sample-ms', type=float)
    ap.add_argument('--json-out')
    ap.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.rounds = a.rounds or (3 if a.quick else 7)
    a.sample_ms = a.sample_ms or (1 if a.quick else 40)
    if a.child:
        return child(a)
    res = run(a.only.split(','), a.ops.split(',') if a.ops else None, a.quick, a.rounds,
              a.sample_ms)
    if isinstance(res, str) or res is None:
        print(res or 'nothing to run', file=sys.stderr)
        return 0
    print('\n'.join(render(res)))
    if a.json_out:
        with open(a.json_out, 'w') as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
