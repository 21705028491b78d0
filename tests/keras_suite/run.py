#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs keras 3.15.1's own keras/src/tree/tree_test.py with grove as the implementation under test.

    run.py --grove DIR [--work DIR] [--backend numpy|torch] [--reference]

Fetches keras's sdist from PyPI (pip download) at test time (checked against its sha256; the test
file is never committed), takes keras/src/tree/tree_test.py out of it into WORK and runs it with
pytest under keras_suite_plugin.py, which puts grove in place of the implementation module the
file imports (optree_impl, torchtree_impl on the torch backend) and counts the calls each side
answers. The keras package itself is this interpreter's (the same version, tests/python's
requirements). Prints the counts and the outcomes and exits 1 unless every test passed or was
skipped, at least EXPECTED[backend] passed, and grove answered calls (keras's own module none,
on a backend where grove does not hand calls to it). --reference runs the same file on keras's
own implementation instead.
"""

import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
VERSION = '3.15.1'
SDIST = f'keras-{VERSION}.tar.gz'
SHA256 = '92ae7c1dd7f61041953dc2d42253181ee099086f0b58ae36fcf98147a6f08a29'
MEMBER = f'keras-{VERSION}/keras/src/tree/tree_test.py'
# tests that pass with keras's own implementation on each backend (the other 10 of the 23 need
# TensorFlow, which is not installed: skipped); grove must pass the same
EXPECTED = {'numpy': 13, 'torch': 13}


def fetch(work):
    path = work / SDIST
    if not (path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == SHA256):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q', '--disable-pip-version-check',
                        '--no-deps', '--no-binary', ':all:', f'keras=={VERSION}', '-d', str(work)],
                       check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256:
        sys.exit(f'keras_suite: {path} has sha256 {digest}, expected {SHA256}')
    target = work / f'keras-{VERSION}-tree' / 'tree_test.py'
    target.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path) as tar:
        target.write_bytes(tar.extractfile(MEMBER).read())
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--grove', required=True, help='the directory grove is imported from')
    ap.add_argument('--work', default='build-peers')
    ap.add_argument('--backend', default='numpy', choices=sorted(EXPECTED))
    ap.add_argument('--reference', action='store_true')
    args = ap.parse_args()
    work = pathlib.Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    test_file = fetch(work)
    mode = 'reference' if args.reference else 'grove'
    report = work / f'keras-tree-test-{args.backend}-{mode}.json'
    report.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix='grove-keras-home-') as home:
        env = dict(os.environ, KERAS_BACKEND=args.backend, KERAS_HOME=home,
                   GROVE_KERAS_SUITE_MODE=mode, GROVE_KERAS_SUITE_REPORT=str(report),
                   PYTHONPATH=os.pathsep.join([str(pathlib.Path(args.grove).resolve()), str(HERE)]))
        subprocess.run([sys.executable, '-m', 'pytest', str(test_file), '-q', '-p', 'no:cacheprovider',
                        '-p', 'keras_suite_plugin', '--rootdir', str(test_file.parent)],
                       env=env, cwd=test_file.parent, check=False)
    if not report.exists():
        sys.exit('keras_suite: the run wrote no report (did pytest start?)')
    data = json.loads(report.read_text(encoding='utf-8'))
    info, calls, outcomes = data['info'], data['calls'], data['outcomes']
    counts = {k: sum(1 for v in outcomes.values() if v == k) for k in ('passed', 'failed', 'skipped')}
    if mode == 'grove':
        on = (f'on {info["implementation"]} in place of {info["keras_module"]} '
              f'(grove from {info["grove_file"]})')
    else:
        on = f'on keras\'s own {info["keras_module"]}'
    print(f'keras {VERSION} tree_test.py, {info["backend"]} backend, {on}:')
    print(f'  {counts["passed"]} passed, {counts["failed"]} failed, {counts["skipped"]} skipped; '
          f'calls to grove\'s module: {calls["grove"]}; calls reaching keras\'s own module: '
          f'{calls["keras"]}' + (' (handed over by grove, or made by keras\'s functions)'
                                 if mode == 'grove' and calls['keras'] else ''))
    bad = []
    if counts['failed'] or len(outcomes) != sum(counts.values()):
        bad.append('tests failed: ' + ', '.join(k for k, v in outcomes.items() if v != 'passed'
                                                and v != 'skipped'))
    if counts['passed'] < EXPECTED[args.backend]:
        bad.append(f'{counts["passed"]} passed, {EXPECTED[args.backend]} expected')
    if mode == 'grove' and calls['grove'] == 0:
        bad.append('grove answered no call: it was not the implementation under test')
    for b in bad:
        print('keras_suite: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
