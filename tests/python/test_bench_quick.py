# SPDX-License-Identifier: MIT
"""bench/python/bench.py's quick mode, so the Python benchmark harness does not
rot: it runs with whatever engines this venv has (grove, optree, and jax, torch and keras
when installed, else skipped with a note; keras.tree on the torch backend and the keras
training step need torch and keras), checks every engine's leaves before timing, and
writes its JSON. No timing is asserted."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, 'bench', 'python', 'bench.py')


def load_bench():
    spec = importlib.util.spec_from_file_location('grove_bench', BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quick_run(tmp_path):
    out = tmp_path / 'r.json'
    p = subprocess.run([sys.executable, BENCH, '--quick', '--json-out', str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    data = json.loads(out.read_text())
    rows = data['results']
    engines = {r['engine'] for r in rows if r['section'] == 'pytree'}
    assert {'grove', 'optree'} <= engines
    for wl in ['W1', 'W2', 'W3', 'W4', 'W5', 'W5s', 'W6', 'W7']:
        ops = {r['op'] for r in rows if r['workload'] == wl and r['engine'] == 'grove'}
        assert 'tree_flatten' in ops, wl
    for r in rows:
        assert r['median_s'] > 0 and r['calls'] >= 1
    # the W7 peak-RSS children ran, one per engine
    assert {r['engine'] for r in data['rss']} == engines
    assert all('error' not in r for r in data['rss'])
    try:
        import keras  # noqa: F401
    except ImportError:
        assert any(n.startswith('keras') for n in data['meta']['notes'])
    else:
        assert any(r['section'] == 'keras' for r in rows)
    # keras.tree on the torch backend (a child process) and the training step (two more):
    # run where torch and keras are installed, else skipped with a note
    import importlib.util
    torch_keras = all(importlib.util.find_spec(m) for m in ('torch', 'keras'))
    notes = data['meta']['notes']
    if torch_keras:
        kt = [r for r in rows if r['section'] == 'keras_torch']
        assert {r['workload'] for r in kt} == {'W1', 'W2', 'W3', 'W5', 'W5s', 'W6'}
        assert {r['engine'] for r in kt} == {'keras_torch/torchtree_impl', 'keras_torch/grove'}
        # grove's own C answered where the trees are plain (W5s: sorted dicts in a list)
        assert all(r['keras_calls'] == 0 for r in kt
                   if r['workload'] == 'W5s' and r['engine'] == 'keras_torch/grove')
        step = data['meta']['train_step']
        assert step['losses_equal'] and step['sides']['grove']['impl'] == 'grove._keras_torch'
        assert step['sides']['keras']['impl'] == 'keras.src.tree.torchtree_impl'
        assert 'KERAS_BACKEND=torch, eager' in p.stdout and '| steady step |' in p.stdout
    else:
        assert any(n.startswith('keras_torch: skipped') for n in notes)
        assert any(n.startswith('step: skipped') for n in notes)
    # the Markdown report: the table and the goals
    assert '| workload | operation | grove |' in p.stdout
    assert '| goal | measured | status |' in p.stdout


def test_leaf_check_fails_loudly():
    bench = load_bench()

    class Reversed:
        @staticmethod
        def tree_flatten(t):
            import grove
            leaves, spec = grove.tree_flatten(t)
            return leaves[::-1], spec

        @staticmethod
        def tree_leaves(t):
            import grove
            return grove.tree_leaves(t)[::-1]

    bad = bench.Engine('reversed', 'reversed', Reversed, 'sorted', False)
    good = bench.load_engine('grove')
    tree = bench.w1(bench.QUICK_SCALE)
    bench.check_leaves('W1', [good], None, tree, 'W1')  # passes
    with pytest.raises(SystemExit, match='LEAVES DIFFER'):
        bench.check_leaves('W1', [good, bad], None, tree, 'W1')


def test_reference_rules():
    bench = load_bench()
    t = [{'b': 1, 'a': None}, bench.Moments(2, 3)]
    assert bench.ref_leaves(t, True, False) == [1, 2, 3]
    assert bench.ref_leaves(t, False, True) == [1, None, 2, 3]
    w6 = bench.w6(bench.QUICK_SCALE)
    assert bench.num_leaves(w6) == 50 * 6 + 5
    w7 = bench.w7({'w7': 200})
    assert len(w7) == 200 and len(w7[5]) == 6 and len({repr(x) for x in w7}) == 200


def test_torch_parts_skip_without_torch(monkeypatch):
    bench = load_bench()  # puts bench/python on sys.path
    import keras_torch
    import train_step
    real = keras_torch.importlib.util.find_spec
    monkeypatch.setattr(keras_torch.importlib.util, 'find_spec',
                        lambda name, *a: None if name == 'torch' else real(name, *a))
    assert (keras_torch.run(['W1'], None, True, 3, 1)
            == 'keras_torch: skipped (torch is not installed)')
    assert train_step.run(True) == 'step: skipped (torch is not installed)'
    assert bench.WORKLOADS  # the module loaded
