# SPDX-License-Identifier: MIT
"""mypy --strict and pyright (strict mode) over tests/typing/user.py and mistakes.py,
against grove's stubs (make test-typing).

user.py must type-check with no error under both; in mistakes.py each checker must report
an error on every line marked `# expect-error` and on no other line. Then user.py is run
with --run-with (the test venv's Python), so the typed module is also a working one.

usage: check.py --grove DIR [--run-with PYTHON]
  DIR: the directory holding the grove package (build-py/python: the stubs, py.typed and
  the built extension). mypy and pyright are this Python's (tests/typing/requirements.txt).
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
USER = HERE / 'user.py'
MISTAKES = HERE / 'mistakes.py'
MARK = '# expect-error'


def expected_lines():
    return {i for i, line in enumerate(MISTAKES.read_text().splitlines(), 1)
            if line.rstrip().endswith(MARK)}


def run(cmd, env=None):
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p, time.monotonic() - t


def mypy_errors(grove_dir, tmp):
    """{(file name, line)} of mypy's errors."""
    env = dict(os.environ, MYPYPATH=str(grove_dir))
    p, secs = run([sys.executable, '-m', 'mypy', '--strict', '--no-error-summary',
                   '--show-error-codes', '--cache-dir', str(tmp / 'mypy-cache'),
                   '--python-version', '%d.%d' % sys.version_info[:2], str(USER), str(MISTAKES)],
                  env=env)
    if p.returncode not in (0, 1):
        sys.exit(f'mypy failed to run:\n{p.stdout}{p.stderr}')
    errors = set()
    for line in p.stdout.splitlines():
        m = re.match(r'(.+?):(\d+): error: ', line)
        if m:
            errors.add((pathlib.Path(m.group(1)).name, int(m.group(2)), line))
    return errors, secs, p.stdout


def pyright_errors(grove_dir, tmp):
    config = tmp / 'pyrightconfig.json'
    config.write_text(json.dumps({  # (the files are given on the command line)
        'extraPaths': [str(grove_dir)],
        'typeCheckingMode': 'strict',
        'pythonVersion': '%d.%d' % sys.version_info[:2],
    }))
    exe = pathlib.Path(sys.executable).parent / 'pyright'
    p, secs = run([str(exe), '--outputjson', '-p', str(config), str(USER), str(MISTAKES)])
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        sys.exit(f'pyright failed to run:\n{p.stdout}{p.stderr}')
    errors = set()
    for d in report.get('generalDiagnostics', []):
        if d['severity'] == 'error':
            line = d['range']['start']['line'] + 1
            name = pathlib.Path(d['file']).name
            errors.add((name, line, f"{name}:{line}: {d['message'].splitlines()[0]}"))
    return errors, secs, report.get('version', '?')


def judge(checker, errors, want):
    """The failures: an error in user.py, a mistake not reported, an unmarked line reported."""
    bad = []
    got = {line for name, line, _ in errors if name == MISTAKES.name}
    for name, line, text in sorted(errors):
        if name == USER.name:
            bad.append(f'{checker}: user.py has an error: {text}')
    for line in sorted(want - got):
        bad.append(f'{checker}: mistakes.py:{line} is marked but not reported')
    for name, line, text in sorted(errors):
        if name == MISTAKES.name and line not in want:
            bad.append(f'{checker}: mistakes.py:{line} is reported but not marked: {text}')
    return bad, len(want & got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--grove', required=True, type=pathlib.Path)
    ap.add_argument('--run-with')
    args = ap.parse_args()
    grove_dir = args.grove.resolve()
    for f in ('__init__.pyi', 'keras.pyi', 'accessors.pyi', 'py.typed'):
        if not (grove_dir / 'grove' / f).is_file():
            sys.exit(f'no grove/{f} in {grove_dir}')
    want = expected_lines()
    failures, passed = [], 0
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        import mypy.version
        errors, secs, _ = mypy_errors(grove_dir, tmp)
        bad, hit = judge('mypy', errors, want)
        print(f'mypy {mypy.version.__version__} --strict: user.py '
              f'{"clean" if not any("user.py" in b for b in bad) else "NOT clean"}, '
              f'{hit}/{len(want)} mistakes reported ({secs:.1f} s)')
        failures += bad
        passed += not bad
        errors, secs, version = pyright_errors(grove_dir, tmp)
        bad, hit = judge('pyright', errors, want)
        print(f'pyright {version} (strict): user.py '
              f'{"clean" if not any("user.py" in b for b in bad) else "NOT clean"}, '
              f'{hit}/{len(want)} mistakes reported ({secs:.1f} s)')
        failures += bad
        passed += not bad
    if args.run_with:
        env = dict(os.environ, PYTHONPATH=str(grove_dir))
        p, secs = run([args.run_with, str(USER)], env=env)
        if p.returncode:
            failures.append(f'user.py failed when run:\n{p.stdout}{p.stderr}')
        else:
            passed += 1
            print(f'user.py runs ({secs:.1f} s)')
    for f in failures:
        print('FAIL:', f)
    checks = 3 if args.run_with else 2
    print(f'typing: {passed} passed, {checks - passed} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
