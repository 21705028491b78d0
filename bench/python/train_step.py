# SPDX-License-Identifier: MIT
"""One compiled keras training step on the torch backend, without and with grove.keras.

    python bench/python/train_step.py [--quick] [--steps N] [--warmup N] [--inputs N]
        [--repeats N] [--backend inductor|aot_eager|eager|off] [--json-out FILE]

bench.py runs it (`--only step` alone). Each side runs in a fresh interpreter
(KERAS_BACKEND=torch; for grove, grove.keras.install() before keras is imported) with
a fresh, empty TorchInductor cache directory, so neither side reuses the other's
compiled code. The model: a dict of --inputs (200) float32 inputs of shape (batch,
4), keyed x000, x001, ... (created, and so inserted, in sorted order), concatenated,
Dense(32, relu), Dense(1); SGD, mean squared error, `jit_compile=True` (keras's torch
trainer wraps its train step in `torch.compile`, default backend inductor). The
same seed, weights and batch (torch CPU tensors, batch 32) both ways; torch uses one
thread (`torch.set_num_threads(1)`: the 2-core machine is shared).

Measured per side: the first `model.train_on_batch` (Dynamo's trace and Inductor's
compile, plus one step), then --warmup (5) steps, then the median (and half the
interquartile range) of --steps (100) further steps, each timed alone; Dynamo's graph
break count (the sum of torch._dynamo.utils.counters['graph_break']) and unique graphs
at the end; every loss; and, with grove, the keras.tree calls of one more step that
grove's C functions answered and that went to keras's own functions. The sides run
keras then grove (with --repeats 2: keras, grove, grove, keras), and the run fails if
any loss differs between them. The first step takes minutes of CPU (Dynamo traces
keras's whole train step over 200 inputs, then Inductor compiles C++). --quick: 4
inputs, 2 steps, jit_compile=False (--backend off): a smoke test of the harness, as
even a tiny model's compile takes about a minute of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.abspath(__file__)


def child(mode, n_inputs, steps, warmup, out, backend):
    os.environ['KERAS_BACKEND'] = 'torch'
    if mode == 'grove':
        import grove.keras
        grove.keras.install()
    import functools
    import time

    import numpy as np
    import torch

    torch.set_num_threads(1)
    if backend not in ('inductor', 'off'):  # keras calls torch.compile(fn): another backend
        torch.compile = functools.partial(torch.compile, backend=backend)
    import keras
    from keras.src.tree import tree_api

    impl = tree_api.tree_impl.__name__
    keras.utils.set_random_seed(0)
    names = [f'x{i:03d}' for i in range(n_inputs)]
    inputs = {k: keras.Input((4,), name=k) for k in names}
    h = keras.layers.Concatenate()([inputs[k] for k in names])
    h = keras.layers.Dense(32, activation='relu')(h)
    model = keras.Model(inputs, keras.layers.Dense(1)(h))
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss='mse', jit_compile=backend != 'off')
    rng = np.random.default_rng(0)
    x = {k: torch.from_numpy(rng.standard_normal((32, 4)).astype(np.float32)) for k in names}
    y = torch.from_numpy(rng.standard_normal((32, 1)).astype(np.float32))

    losses = []
    t = time.perf_counter()
    losses.append(float(model.train_on_batch(x, y)))
    first = time.perf_counter() - t
    for _ in range(warmup):
        losses.append(float(model.train_on_batch(x, y)))
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        loss = model.train_on_batch(x, y)
        times.append(time.perf_counter() - t)
        losses.append(float(loss))
    from torch._dynamo.utils import counters
    res = {
        'mode': mode, 'impl': impl, 'first_s': first, 'step_s': times, 'losses': losses,
        'graph_breaks': sum(counters['graph_break'].values()),
        'break_reasons': sorted({r.split('\n')[0] for r in counters['graph_break']}),
        'unique_graphs': counters['stats'].get('unique_graphs', 0),
        'keras': keras.__version__, 'torch': torch.__version__, 'backend': backend,
    }
    if mode == 'grove':  # one more step, counted: the calls grove's C answered, and keras's
        # (not the calls Dynamo traces: swapping these globals makes it trace the step again)
        from grove import _keras_torch as kt
        calls = {'grove': 0, 'keras': 0}
        compiling = torch.compiler.is_compiling

        def counted(side, f):
            def g(*a, **k):
                if not compiling():
                    calls[side] += 1
                return f(*a, **k)
            return g
        saved = dict(vars(kt))
        for n in [n for n in saved if n.startswith('_g_')]:
            setattr(kt, n, counted('grove', saved[n]))
        kt._impl = type(kt)('counted')
        for n in kt.__all__:
            setattr(kt._impl, n, counted('keras', getattr(saved['_impl'], n)))
        model.train_on_batch(x, y)
        for n in [n for n in saved if n.startswith('_g_')] + ['_impl']:
            setattr(kt, n, saved[n])
        res['tree_calls_per_step'] = calls
    with open(out, 'w') as f:
        json.dump(res, f)


def run_side(mode, args):
    """One fresh process for mode ('keras' or 'grove'); its result dict."""
    with tempfile.TemporaryDirectory(prefix='grove-train-step-') as tmp:
        out = os.path.join(tmp, 'out.json')
        env = dict(os.environ, KERAS_BACKEND='torch', KERAS_HOME=tmp,
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, 'inductor'))
        p = subprocess.run([sys.executable, HERE, '--child', mode, '--inputs', str(args.inputs),
                            '--steps', str(args.steps), '--warmup', str(args.warmup),
                            '--backend', args.backend, '--json-out', out],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f'train step ({mode}) failed:\n{p.stderr[-3000:]}')
        with open(out) as f:
            return json.load(f)


def spread(s):
    if len(s) >= 4:
        q = statistics.quantiles(s, n=4)
        return (q[2] - q[0]) / 2
    return (max(s) - min(s)) / 2


def measure(args):
    """Both sides, alternating; the summary dict (raises if the losses differ)."""
    order = (['keras', 'grove', 'grove', 'keras'] * args.repeats)[:2 * args.repeats]
    runs = []
    for mode in order:
        print(f'bench: train step, {mode} ...', file=sys.stderr, flush=True)
        runs.append(run_side(mode, args))
    ref = runs[0]['losses']
    for r in runs:
        if r['losses'] != ref:
            raise SystemExit(f'bench: train step: LOSSES DIFFER ({r["mode"]}): '
                             f'{r["losses"][:5]} vs {ref[:5]}')
    sides = {}
    for mode in ('keras', 'grove'):
        rs = [r for r in runs if r['mode'] == mode]
        steps = [t for r in rs for t in r['step_s']]
        sides[mode] = {
            'impl': rs[0]['impl'],
            'first_s': [r['first_s'] for r in rs],
            'step_median_s': statistics.median(steps), 'step_spread_s': spread(steps),
            'step_medians_s': [statistics.median(r['step_s']) for r in rs],
            'graph_breaks': [r['graph_breaks'] for r in rs],
            'unique_graphs': [r['unique_graphs'] for r in rs],
            'break_reasons': rs[0]['break_reasons'],
        }
    return {'inputs': args.inputs, 'steps': args.steps, 'warmup': args.warmup,
            'repeats': args.repeats, 'order': order, 'backend': args.backend,
            'tree_calls_per_step': next((r['tree_calls_per_step'] for r in runs
                                         if 'tree_calls_per_step' in r), None),
            'losses_equal': True, 'loss_first': ref[0], 'loss_last': ref[-1], 'n_losses': len(ref),
            'keras': runs[0]['keras'], 'torch': runs[0]['torch'], 'sides': sides}


def run(quick, a=None):
    """The summary dict, or a str saying why the step was skipped (bench.py calls this)."""
    from keras_torch import missing
    why = missing()
    if why:
        return f'step: skipped ({why})'
    a = a or argparse.Namespace(inputs=None, steps=None, warmup=None, repeats=None, backend=None)
    a.inputs = a.inputs or (4 if quick else 200)
    a.steps = a.steps or (2 if quick else 100)
    a.warmup = a.warmup if a.warmup is not None else (1 if quick else 5)
    a.repeats = a.repeats or 1
    a.backend = a.backend or ('off' if quick else 'inductor')
    return measure(a)


def fmt_s(s):
    return f'{s * 1e3:,.2f} ms' if s < 1 else f'{s:,.2f} s'


def render(res):
    """Markdown lines for the report."""
    k, g = res['sides']['keras'], res['sides']['grove']
    c = res['tree_calls_per_step'] or {}

    def pct(side):
        return 100 * side['step_spread_s'] / side['step_median_s']
    lines = [
        '',
        f'One compiled training step (keras {res["keras"]}, torch {res["torch"]}, '
        f'KERAS_BACKEND=torch, ' + ('`jit_compile=False`' if res['backend'] == 'off' else
                                     f'`jit_compile=True`, torch.compile backend {res["backend"]}')
        + f'): a '
        f'model whose inputs are a dict of {res["inputs"]} tensors, `train_on_batch`, each side '
        f'in fresh processes (order {", ".join(res["order"])}) with an empty Inductor cache; '
        f'steady step: median of {res["steps"]} steps per process after {res["warmup"]} '
        f'warm-up steps (± half the interquartile range). Losses equal both ways '
        f'({res["n_losses"]} per process). With grove, one step made {c.get("grove", "?")} '
        f'keras.tree calls that grove\'s C answered and {c.get("keras", "?")} that went to '
        'keras\'s torchtree_impl (calls made by compiled code are Dynamo\'s: it traces '
        'keras\'s own functions both ways, and they are not counted).',
        '',
        '| | keras\'s torchtree_impl | grove.keras installed | keras / grove |',
        '|---|---|---|---|',
        f'| first step{" (compile)" if res["backend"] != "off" else ""} | '
        f'{", ".join(fmt_s(s) for s in k["first_s"])} | '
        f'{", ".join(fmt_s(s) for s in g["first_s"])} | '
        f'**{statistics.median(k["first_s"]) / statistics.median(g["first_s"]):.2f}×** |',
        f'| steady step | {fmt_s(k["step_median_s"])} ±{pct(k):.0f}% | '
        f'{fmt_s(g["step_median_s"])} ±{pct(g):.0f}% | '
        f'**{k["step_median_s"] / g["step_median_s"]:.2f}×** |',
        f'| graph breaks / unique graphs | {k["graph_breaks"][0]} / {k["unique_graphs"][0]} | '
        f'{g["graph_breaks"][0]} / {g["unique_graphs"][0]} | |',
    ]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--inputs', type=int)
    ap.add_argument('--backend', help='torch.compile backend (default inductor, as keras; '
                    'off: jit_compile=False, the default with --quick)')
    ap.add_argument('--steps', type=int)
    ap.add_argument('--warmup', type=int)
    ap.add_argument('--repeats', type=int)
    ap.add_argument('--json-out')
    ap.add_argument('--child', help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return child(a.child, a.inputs, a.steps, a.warmup, a.json_out, a.backend)
    res = run(a.quick, a)
    if isinstance(res, str):
        print(res, file=sys.stderr)
        return 0
    print('\n'.join(render(res)))
    if a.json_out:
        with open(a.json_out, 'w') as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
