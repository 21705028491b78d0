#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""keras 3.15.1's own keras/src/trainers/trainer_test.py on keras's torch backend, once with
keras's own tree implementation and once with grove.keras installed (before keras is imported).

    run_trainer.py --grove DIR [--work DIR] [-k EXPR]

Fetches keras's sdist with `pip download` at test time into WORK (never committed), takes
trainer_test.py out of it (the installed keras is the one tested: the file imports keras.src),
runs it with pytest in two processes (KERAS_BACKEND=torch, PYTHONPATH=DIR), and prints the
passed / failed / skipped counts of each run and the tree implementation keras used in each
(the grove run must report grove._keras_torch, the other keras.src.tree.torchtree_impl), and
for the grove run the keras.tree calls (outside tracing) grove's C functions answered and
those it passed to keras's own functions. Exits 1 unless both runs pass exactly the same
tests, grove's C answered at least one call and the keras run never imported grove.
`make test-peers` runs it.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

VERSION = '3.15.1'
MEMBER = f'keras-{VERSION}/keras/src/trainers/trainer_test.py'

# The pytest process: install grove (or not), run the file, write outcomes and the
# implementation keras's tree_api used at the end of the session.
BOOT = r'''
import json, sys
mode, test, out = sys.argv[1:4]
counts = {}
if mode == "grove":
    import grove.keras
    grove.keras.install()
    # Proof that grove answered: count the calls grove's C functions answered (kt._g_*, only
    # reached outside tracing) and the calls grove._keras_torch passed on to keras's own
    # functions (kt._impl, counted outside tracing only: under torch.compile the guard is the
    # constant True, so a traced call has no side effect from this count).
    import keras  # binds grove._keras_torch to torchtree_impl (KERAS_BACKEND=torch)
    import types
    import torch
    from grove import _keras_torch as kt
    _compiling = torch.compiler.is_compiling

    def _count(side, name, f, guard):
        key = side + ":" + name

        def g(*a, **k):
            if not (guard and _compiling()):
                counts[key] = counts.get(key, 0) + 1
            return f(*a, **k)
        return g

    for name in [n for n in vars(kt) if n.startswith("_g_")]:
        setattr(kt, name, _count("grove", name[3:], getattr(kt, name), False))
    kt._impl = types.SimpleNamespace(**{
        n: _count("keras", n, getattr(kt._impl, n), True) for n in kt.__all__})
import pytest

class Record:
    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            if report.nodeid not in self.outcomes or report.outcome != "passed":
                self.outcomes[report.nodeid] = report.outcome

    def pytest_sessionfinish(self, session):
        from keras.src.tree import tree_api
        impl = tree_api.tree_impl.__name__
        json.dump({"impl": impl, "outcomes": self.outcomes, "calls": counts,
                   "grove_imported": "grove" in sys.modules}, open(out, "w"))

rec = Record()
rc = pytest.main([test, "-q", "-p", "no:cacheprovider", *sys.argv[4:]], plugins=[rec])
sys.exit(0 if rc in (0, 1) else rc)
'''


def fetch(work):
    test = work / 'trainer_test.py'
    if test.exists():
        return test
    sdist = work / f'keras-{VERSION}.tar.gz'
    if not sdist.exists():
        subprocess.run([sys.executable, '-m', 'pip', 'download', '--no-deps', '--no-binary',
                        ':all:', f'keras=={VERSION}', '-d', str(work), '-q',
                        '--disable-pip-version-check'], check=True)
    with tarfile.open(sdist) as tf:
        data = tf.extractfile(MEMBER).read()
    test.write_bytes(data)
    return test


def run(mode, test, grove_dir, extra):
    with tempfile.TemporaryDirectory(prefix='grove-keras-home-') as home:
        out = pathlib.Path(home) / 'out.json'
        env = dict(os.environ, KERAS_BACKEND='torch', KERAS_HOME=home, PYTHONPATH=grove_dir)
        subprocess.run([sys.executable, '-c', BOOT, mode, str(test), str(out), *extra],
                       env=env, cwd=test.parent, check=True)
        return json.loads(out.read_text())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--grove', required=True)
    ap.add_argument('--work', default='build-peers/keras')
    ap.add_argument('-k', default=None)
    a = ap.parse_args()
    work = pathlib.Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    test = fetch(work)
    extra = ['-k', a.k] if a.k else []
    grove_dir = str(pathlib.Path(a.grove).resolve())
    res = {m: run(m, test, grove_dir, extra) for m in ('keras', 'grove')}
    for m, r in res.items():
        c = {}
        for o in r['outcomes'].values():
            c[o] = c.get(o, 0) + 1
        print(f'trainer_test.py, {m:5s}: tree_impl {r["impl"]}: '
              f'{c.get("passed", 0)} passed, {c.get("failed", 0)} failed, '
              f'{c.get("skipped", 0)} skipped')
    ok = True
    if res['keras']['impl'] != 'keras.src.tree.torchtree_impl':
        print('the keras run did not use keras.src.tree.torchtree_impl')
        ok = False
    if res['grove']['impl'] != 'grove._keras_torch':
        print('the grove run did not use grove._keras_torch')
        ok = False
    if res['keras']['grove_imported']:
        print('the keras run imported grove')
        ok = False
    calls = res['grove']['calls']
    for side in ('grove', 'keras'):
        by = {k.split(':', 1)[1]: v for k, v in sorted(calls.items()) if k.startswith(side + ':')}
        print(f'grove run, calls answered by {side}\'s functions (eager): {sum(by.values())} '
              + ', '.join(f'{k} {v}' for k, v in by.items()))
    if not any(k.startswith('grove:') for k in calls):
        print("the grove run never reached grove's C functions")
        ok = False
    ka, ga = res['keras']['outcomes'], res['grove']['outcomes']
    diff = sorted(t for t in set(ka) | set(ga) if ka.get(t) != ga.get(t))
    for t in diff:
        print(f'  differs: {t}: keras {ka.get(t)}, grove {ga.get(t)}')
    if diff:
        ok = False
    print('same outcomes both ways' if not diff else f'{len(diff)} tests differ')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
