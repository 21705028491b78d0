# SPDX-License-Identifier: MIT
"""grove against the Python pytree engines, side by side in one process.

    make bench-python                      # the full run (~10-15 minutes), its own venv
    PYTHONPATH=build-pybench/python .venv-bench/bin/python bench/python/bench.py \\
        [--quick] [--only W3,W5] [--ops unflatten,map] [--engines grove,optree]
        [--json-out FILE] [--no-rss]

Workloads (docs/benchmarks.md): W1 seed, W2 wide, W3 params, W4 deep (500), W5 big
(10,000 dicts of 100 shuffled keys), W5s (W5 sorted), W6 train state (numpy leaves,
namedtuples, an OrderedDict, None), W7 distinct (100,000 different structures, each
flattened once).

Engines: grove, optree, jax (jax.tree_util), torch (torch.utils._pytree), torch_cxx
(torch.utils._cxx_pytree, over optree), keras (keras.tree with its default
implementation, and with grove.keras installed), and floor: for tree_flatten/leaves,
tree_unflatten and tree_map, the least work any engine must do on that very tree
(bench/python/floor.c; its answers are checked against grove's first). An engine that is not installed is
skipped with a note. Every engine runs on the same tree objects.

Method: every (workload, operation) is timed for all engines in interleaved rounds
(the engine order rotates each round, which cancels drift on a shared machine); a
sample is `timeit` over enough calls to take --sample-ms (at least one call), with
the garbage collector off (as timeit does) and the previous call's result freed
inside the timing, alike for every engine. Reported: the median over the rounds of
microseconds per call, the spread (half the interquartile range), ns per leaf and the
ratio peer/grove. Before timing, each engine's leaves are checked (by identity,
in order) against a reference flattener for that engine's rule, and the run stops
with an error if any differs: grove, optree, jax and keras order a dict by sorted
key, torch's engines by insertion; keras and torch take None as a leaf.

keras_torch (bench/python/keras_torch.py): keras.tree on keras's torch backend, keras's
own torchtree_impl vs grove.keras installed, W1-W6, in a child process (KERAS_BACKEND=torch);
`--engines keras_torch` runs these rows alone. step (bench/python/train_step.py): one
compiled keras training step (a dict of 200 input tensors, jit_compile=True) with and without
grove, each in fresh processes; `--only step` runs it alone. Both need torch and keras (else
skipped with a note).

W7's peak RSS is measured per engine in a fresh interpreter that imports only that
engine, builds W7, flattens W1 once (so one-time set-up is not counted), then
flattens every structure of W7 once; reported: the peak RSS of the flatten phase (VmHWM, reset to the current RSS right before it through
/proc/self/clear_refs) minus the RSS right before it (VmRSS), plus the process's
ru_maxrss. No timing is asserted anywhere: numbers vary by machine and load.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # the modules beside this file, also when it is loaded by its path
    sys.path.insert(0, HERE)

# Engine, Moments, w1 and w6 are not used here: tests/python/test_bench_quick.py
# reaches them through this module.
import floor as floor_mod  # noqa: E402
from engines import Engine, Keras, load_engine  # noqa: E402,F401
from report import goals, render  # noqa: E402
from rss import rss_child, run_rss_child  # noqa: E402
from timing import Timer, summary  # noqa: E402
import keras_torch  # noqa: E402
import train_step  # noqa: E402
from workloads import (  # noqa: E402,F401
    FULL_SCALE, QUICK_SCALE, WORKLOADS, Moments, num_leaves, ref_leaves, w1, w6, w7)


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

CORE = ['grove', 'optree', 'jax', 'torch', 'torch_cxx']
EXTRA = ['keras', 'keras_torch', 'floor']  # keras.tree (numpy here, torch in a child); the floor


def check_leaves(name, engines, keras, tree, wl):
    """Every engine's leaves (tree_flatten and tree_leaves) are its rule's reference
    leaves, by identity and in order; raises SystemExit naming the first mismatch."""
    refs = {}
    problems = []
    for e in engines:
        key = (e.rule == 'sorted', e.none_is_leaf)
        if key not in refs:
            refs[key] = ref_leaves(tree, *key)
        ref = refs[key]
        for what, got in (('tree_flatten', e.flatten(tree)[0]),
                          ('tree_leaves', e.mod.tree_leaves(tree))):
            if len(got) != len(ref) or any(a is not b for a, b in zip(got, ref)):
                problems.append(f'{wl}: {e.name}.{what} gives {len(got)} leaves that differ from '
                                f'the {e.rule}-order reference ({len(ref)} leaves)')
    if keras:
        ref = ref_leaves(tree, True, True)
        for which in ('default', 'grove'):
            keras.use(which)
            got = keras.tree.flatten(tree)
            if len(got) != len(ref) or any(a is not b for a, b in zip(got, ref)):
                problems.append(f'{wl}: keras.tree.flatten ({which}) differs from the reference')
        keras.use('default')
    if problems:
        raise SystemExit('bench: LEAVES DIFFER, not timing:\n  ' + '\n  '.join(problems))


def fresh_generation():
    import grove
    grove.set_memory_limit(grove.memory_stats()['limit'])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--quick', action='store_true',
                    help='tiny sizes and counts (seconds): a smoke test, not a measurement')
    ap.add_argument('--only', help='workloads, comma-separated (W1..W7, W5s; step: the '
                    'compiled keras training step)')
    ap.add_argument('--ops', help='operations whose name contains one of these words, '
                    'comma-separated (e.g. unflatten,map); keras and canonicalize rows included')
    ap.add_argument('--engines', help='comma-separated: ' + ','.join(CORE + EXTRA))
    ap.add_argument('--json-out', default='bench-python-results.json')
    ap.add_argument('--no-rss', action='store_true', help='skip the W7 peak-RSS children')
    ap.add_argument('--rounds', type=int, help='samples per engine (default 7; quick 3)')
    ap.add_argument('--sample-ms', type=float, help='time per sample (default 40; quick 1)')
    ap.add_argument('--rss-child', help=argparse.SUPPRESS)
    ap.add_argument('--w7-count', type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    scale = dict(QUICK_SCALE if args.quick else FULL_SCALE)
    if args.w7_count:
        scale['w7'] = args.w7_count
    if args.rss_child:
        return rss_child(args.rss_child, scale)

    sys.setrecursionlimit(100000)  # torch's pytree recurses in Python (W4 is 500 deep)
    wanted_eng = args.engines.split(',') if args.engines else CORE + EXTRA
    for n in wanted_eng:
        if n not in CORE + EXTRA:
            ap.error(f'unknown engine {n}')
    main_rows = wanted_eng != ['keras_torch']  # only the torch-backend rows: no main table
    if 'grove' not in wanted_eng:
        wanted_eng.insert(0, 'grove')  # every ratio is against grove
    wanted_wl = args.only.split(',') if args.only else list(WORKLOADS) + ['step']
    for w in wanted_wl:
        if w not in WORKLOADS and w != 'step':
            ap.error(f'unknown workload {w}')
    words = args.ops.split(',') if args.ops else None

    def want_op(op):
        return words is None or any(w in op for w in words)

    rounds = args.rounds or (3 if args.quick else 7)
    timer = Timer((args.sample_ms or (1 if args.quick else 40)) / 1000, rounds)

    notes = []
    engines = []
    use_floor = 'floor' in wanted_eng
    if use_floor and floor_mod.grove_floor is None:
        notes.append('floor: grove_floor is not built here (make bench-python builds it), skipped')
        use_floor = False
    for n in wanted_eng:
        if n in EXTRA:
            continue
        e = load_engine(n)
        if isinstance(e, str):
            notes.append(f'{n}: not installed here, skipped ({e})')
        else:
            engines.append(e)
    keras = None
    if 'keras' in wanted_eng:
        try:
            keras = Keras()
        except Exception as e:  # noqa: BLE001
            notes.append(f'keras: not installed here, skipped ({type(e).__name__}: {e})')
        if keras and keras.dict_to_ordered_dict is None:
            notes.append('canonicalize: keras\'s torch-tree _dict_to_ordered_dict needs torch, '
                         f'skipped ({keras.torch_note})')
    for n in notes:
        print(f'bench: {n}', file=sys.stderr)
    import grove

    meta = {
        'date': datetime.date.today().isoformat(),
        'python': platform.python_version(),
        'machine': platform.machine(),
        'cpus': os.cpu_count(),
        'load_before': os.getloadavg(),
        'quick': args.quick,
        'scale': scale,
        'rounds': rounds,
        'sample_ms': timer.sample_s * 1000,
        'engines': {e.name: e.label for e in engines},
        'keras': keras.version if keras else None,
        'notes': notes,
    }
    results = []  # dicts: section, workload, op, engine, median_s, spread_s, calls, ns_per_leaf
    t_start = time.time()

    def record(section, wl, op, leaves, samples, number):
        for eng, s in samples.items():
            med, spread = summary(s)
            results.append({'section': section, 'workload': wl, 'op': op, 'engine': eng,
                            'median_s': med, 'spread_s': spread, 'calls': number[eng],
                            'samples': len(s), 'leaves': leaves,
                            'ns_per_leaf': med * 1e9 / max(leaves, 1)})

    for wl in wanted_wl if main_rows else []:
        if wl in ('W7', 'step'):
            continue
        build = WORKLOADS[wl][0]
        tree, other = build(scale), build(scale)
        leaves = num_leaves(tree)
        check_leaves(wl, engines, keras, tree, wl)
        print(f'bench: {wl} ({leaves} leaves) ...', file=sys.stderr, flush=True)
        opsets = {e.name: e.ops(tree, other) for e in engines}
        if use_floor:
            try:
                fl = floor_mod.Floor(tree)
                fl.check(grove)
                opsets['floor'] = fl.ops()
            except floor_mod.Unsupported as e:
                notes.append(f'floor: no plan for {wl} ({e})')
        for op in opsets['grove']:
            if not want_op(op):
                continue
            cases = {}
            for e in engines:
                c = opsets[e.name][op]
                if c is not None:
                    cases[e.name] = (c[0], c[1], None)
            c = opsets.get('floor', {}).get(op)
            if c is not None:
                cases['floor'] = (c[0], c[1], None)
            samples, number = timer.run(cases)
            record('pytree', wl, op, leaves, samples, number)
        del opsets
        fl = None
        if keras:
            kops = keras.ops(tree, other)
            for op, (stmt, ns) in kops.items():
                if not want_op(op):
                    continue
                cases = {}
                for which in ('default', 'grove'):
                    # the implementation is switched in `before` (outside the timing)
                    cases[f'keras/{which}'] = (stmt, ns, (lambda w=which: keras.use(w)))
                samples, number = timer.run(cases)
                record('keras', wl, op, leaves, samples, number)
            keras.use('default')
            if keras.dict_to_ordered_dict and want_op('canonicalize'):
                cases = {'grove.canonicalize': ('f(t)', {'f': grove.canonicalize, 't': tree}, None),
                         'keras torch _dict_to_ordered_dict':
                             ('f(t)', {'f': keras.dict_to_ordered_dict, 't': tree}, None)}
                samples, number = timer.run(cases)
                record('canonicalize', wl, 'canonicalize', leaves, samples, number)
                # only equal outputs are a comparison (keras's pass sorts the first dict on
                # each path and leaves the dicts inside it as they are)
                same = floor_mod.same(grove.canonicalize(tree)[0], keras.dict_to_ordered_dict(tree))
                for r in results[-2:]:
                    r['same_output'] = same
        del tree, other
        gc.collect()

    rss = []
    if 'W7' in wanted_wl and main_rows:
        print('bench: W7 ...', file=sys.stderr, flush=True)
        tree = w7(scale)
        leaves = sum(2 * (i % 97 + 1) for i in range(len(tree)))
        for i in range(0, len(tree), max(1, len(tree) // 50)):  # a sample of the structures
            check_leaves('W7', engines, keras, tree[i], f'W7[{i}]')
        gc.collect()
        for op in ('tree_flatten', 'tree_leaves'):
            if not want_op(op):
                continue
            cases = {}
            for e in engines:
                before = fresh_generation if e.name == 'grove' else None
                cases[e.name] = ('for x in W: f(x)', {'W': tree, 'f': getattr(e.mod, op)}, before)
            samples, number = timer.run(cases, rounds=min(rounds, 3 if not args.quick else 2))
            record('pytree', 'W7', op, leaves, samples, number)
        del tree
        gc.collect()
        if not args.no_rss:
            for e in engines:
                rss.append(run_rss_child(e.name, scale, args.quick))

    extra = []  # the torch-backend parts: their rows, and their Markdown after keras's table
    if 'keras_torch' in wanted_eng:
        kt = keras_torch.run(wanted_wl, words, args.quick, rounds, timer.sample_s * 1000)
        if isinstance(kt, str):
            notes.append(kt)
        elif kt:
            results.extend(kt['results'])
            meta['keras_torch'] = kt['meta']
            extra += keras_torch.render(kt)
    if 'step' in wanted_wl:
        ts = train_step.run(args.quick)
        if isinstance(ts, str):
            notes.append(ts)
        else:
            meta['train_step'] = ts
            extra += train_step.render(ts)

    meta['load_after'] = os.getloadavg()
    meta['seconds'] = round(time.time() - t_start, 1)
    report = render(meta, results, rss, engines, keras, extra)
    print(report)
    with open(args.json_out, 'w') as f:
        json.dump({'meta': meta, 'results': results, 'rss': rss,
                   'goals': goals(results, rss)}, f, indent=1)
    print(f'bench: wrote {args.json_out} ({meta["seconds"]} s)', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
