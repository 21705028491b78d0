#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs optree 0.20.0's own test suite against grove through the strict stand-in `optree`.

    run.py --grove DIR [--share F] [--seed S] [--jobs N] [--floor] [--reference] [--work DIR]

Fetches optree's sdist from PyPI (pip download) at test time (checked against its sha256; the suite is never
committed), unpacks its tests/ into WORK, makes a venv there whose only `optree` is the
stand-in (standin/optree: grove's public names and nothing else) and whose other packages are
this interpreter's (pytest, numpy, jax, ...), runs every test file in its own pytest process
(JOBS at a time), prints a per-file table and the pass count, and with --floor exits 1 when the
passes fall below the floor recorded in floor.json for this share.

--share F runs ceil(F * n) of each file's n tests, chosen by a seeded hash of the test ids
(suite_plugin.py); 1 runs all of them. --reference runs the same tests against the real optree
(installed in this interpreter) instead: optree's own pass count, for the table's last column.
WORK/failures.txt lists every test that did not pass, with the first line of its reason.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import site
import subprocess
import sys
import tarfile
import time

HERE = pathlib.Path(__file__).resolve().parent
VERSION = '0.20.0'
SDIST = f'optree-{VERSION}.tar.gz'
SHA256 = 'c7403eb0f2b2a060a97803a8f52904212df85ed6cff4b0eeed9cc6e38c2cf88d'


def fetch_sdist(work):
    """The sdist, by `pip download` from the index pip is configured with (no build isolation:
    pip prepares the sdist's metadata with this interpreter's setuptools), checked against
    SHA256; kept in WORK for the next run."""
    path = work / SDIST
    if not (path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == SHA256):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q', '--disable-pip-version-check',
                        '--no-deps', '--no-binary', ':all:', '--no-build-isolation',
                        f'optree=={VERSION}', '-d', str(work)], check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256:
        sys.exit(f'optree_suite: {path} has sha256 {digest}, expected {SHA256}')
    return path


def unpack_tests(sdist, work):
    """optree-VERSION/tests only, into WORK (fresh each run)."""
    root = work / f'optree-{VERSION}'
    prefix = f'optree-{VERSION}/tests/'
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        for member in members:
            target = root / member.name[len(f'optree-{VERSION}/'):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
    return root / 'tests'


def make_venv(work, paths, name):
    """A venv without packages of its own whose sys.path is `paths` (a .pth file), so that
    subprocesses the tests start with sys.executable see the same modules."""
    venv = work / name
    python = venv / 'bin' / 'python'
    if not python.exists():
        subprocess.run([sys.executable, '-m', 'venv', '--without-pip', str(venv)], check=True)
    purelib = subprocess.run([str(python), '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
                             check=True, capture_output=True, text=True).stdout.strip()
    pth = pathlib.Path(purelib) / 'grove_optree_suite.pth'
    pth.write_text(''.join(f'{p}\n' for p in paths), encoding='utf-8')
    return python


def run_file(python, tests, test_file, out, args):
    env = dict(os.environ, GROVE_SUITE_SHARE=str(args.share), GROVE_SUITE_SEED=str(args.seed),
               GROVE_SUITE_OUT=str(out), GROVE_SUITE_TIMEOUT=str(args.timeout))
    env.pop('PYTHONPATH', None)
    if out.exists():
        out.unlink()
    start = time.monotonic()
    proc = subprocess.run([str(python), '-m', 'pytest', '-q', '-p', 'suite_plugin', '-p',
                           'no:cacheprovider', '-o', 'addopts=', '--rootdir', str(tests),
                           str(tests / test_file)], cwd=tests, env=env, capture_output=True,
                          text=True)
    records = []
    if out.exists():
        records = [json.loads(line) for line in out.read_text(encoding='utf-8').splitlines()]
    crashed = proc.returncode not in (0, 1, 2, 5)
    return test_file, records, crashed, proc, time.monotonic() - start


def summarize(records):
    counts = {'passed': 0, 'failed': 0, 'error': 0, 'skipped': 0, 'xfailed': 0, 'xpassed': 0,
              'collect-error': 0}
    for record in records:
        counts[record['outcome']] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--grove', type=pathlib.Path, required=True,
                        help='the folder holding the built package grove/')
    parser.add_argument('--share', type=float, default=1.0)
    parser.add_argument('--seed', default='22')
    parser.add_argument('--jobs', type=int, default=2)
    parser.add_argument('--timeout', type=int, default=120)
    parser.add_argument('--work', type=pathlib.Path, default=pathlib.Path('build-peers'))
    parser.add_argument('--floor', action='store_true', help='fail under floor.json\'s floor')
    parser.add_argument('--reference', action='store_true', help='run against the real optree')
    parser.add_argument('files', nargs='*', help='only these test files (paths under tests/)')
    args = parser.parse_args()

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    tests = unpack_tests(fetch_sdist(work), work)
    here_site = site.getsitepackages()
    if args.reference:
        python = make_venv(work, [HERE, *here_site], 'venv-reference')
    else:
        python = make_venv(work, [HERE / 'standin', args.grove.resolve(), HERE, *here_site],
                           'venv-grove')
    files = args.files or sorted(str(p.relative_to(tests)) for p in tests.rglob('test_*.py'))
    label = 'reference' if args.reference else 'grove'
    outdir = work / f'results-{label}-{args.share:g}'
    outdir.mkdir(exist_ok=True)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_file, python, tests, f, outdir / (f.replace('/', '_') + '.jsonl'),
                               args) for f in files]
        for future in concurrent.futures.as_completed(futures):
            name, records, crashed, proc, seconds = future.result()
            results[name] = (records, crashed, proc, seconds)
            print(f'  {name}: {summarize(records)["passed"]} passed in {seconds:.0f} s'
                  + (f' -- CRASHED (exit {proc.returncode})' if crashed else ''), flush=True)

    floors = json.loads((HERE / 'floor.json').read_text(encoding='utf-8'))
    key = f'{args.share:g}'
    reference = floors.get('reference', {}).get(key, {})
    header = f'| file | run | passed | failed | errors | skipped | optree passes |'
    print(f'\noptree {VERSION} suite on {label}, share {key}, seed {args.seed}:\n')
    print(header)
    print('|---|---:|---:|---:|---:|---:|---:|')
    total = summarize([])
    failures = []
    for name in files:
        records, crashed, proc, _ = results[name]
        c = summarize(records)
        for k in total:
            total[k] += c[k]
        ran = sum(c.values())
        note = ' (crashed)' if crashed else ''
        print(f'| {name}{note} | {ran} | {c["passed"]} | {c["failed"]} | '
              f'{c["error"] + c["collect-error"]} | {c["skipped"]} | {reference.get(name, "?")} |')
        failures += [f'{r["outcome"]:13} {r["id"]}: {r["reason"]}' for r in records
                     if r['outcome'] not in ('passed', 'skipped', 'xfailed')]
        if crashed:
            failures.append(f'crashed       {name}: exit {proc.returncode}: '
                            f'{proc.stdout[-2000:]}{proc.stderr[-2000:]}')
    ref_total = sum(reference.get(name, 0) for name in files) if reference else None
    print(f'| **total** | {sum(total.values())} | **{total["passed"]}** | {total["failed"]} | '
          f'{total["error"] + total["collect-error"]} | {total["skipped"]} | {ref_total or "?"} |')
    (work / f'failures-{label}-{key}.txt').write_text('\n'.join(failures) + '\n', encoding='utf-8')
    if ref_total:
        print(f'\n{total["passed"]} passed: {100 * total["passed"] / ref_total:.1f}% of the '
              f'{ref_total} optree itself passes')
    if args.floor and not args.reference:
        floor = floors['floor'].get(key)
        if floor is None:
            print(f'optree_suite: floor.json has no floor for share {key}')
            return 1
        print(f'floor: {floor}')
        if total['passed'] < floor:
            print(f'optree_suite: {total["passed"]} passed, under the floor of {floor}')
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
