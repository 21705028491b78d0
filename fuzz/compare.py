# SPDX-License-Identifier: MIT
"""Plain libFuzzer against grove's mutator on cJSON's parser (docs/fuzzing.md).

    python3 fuzz/compare.py [--seconds 300] [--seeds 1,2,3] [--against grove|hybrid]
                            [--build build-fuzz] [--out DIR]
    python3 fuzz/compare.py --render OUT/results.json

Needs `make fuzz` first (fuzz_cjson and fuzz_cjson_grove, cJSON compiled from Debian's source
in build-fuzz/cjson-src) and clang-14, llvm-profdata-14, llvm-cov-14.

For each libFuzzer -seed, fuzz_cjson (libFuzzer's byte mutations) and fuzz_cjson_grove (grove's
structure-aware mutator, grove_fuzz.h; --against hybrid: fuzz_cjson_hybrid, which gives one
call in five to libFuzzer's byte mutations) start at the same moment, one process each, on the same
seed corpus (fuzz/corpus/json) with the same flags, for the same time, so both see the same
machine load. Measured:
  - cJSON branches covered at each checkpoint: the files each run's corpus held by then (their
    modification times; -reduce_inputs=0 keeps every file) plus the seeds, replayed through a
    coverage build of cJSON.c (clang -fprofile-instr-generate -fcoverage-mapping) -- the same
    yardstick for both, counting cJSON's own code only;
  - libFuzzer's own "cov:" (edges of every instrumented file: cJSON and the harness) at each
    checkpoint, from its status lines;
  - executions per second: libFuzzer's "Done N runs" over the run's time by the monotonic clock
    (libFuzzer's own seconds follow the wall clock, which may step; a difference is reported);
  - the share of inputs cJSON accepted (the harness counts them).
Prints a Markdown table (also written to OUT/table.md, and the numbers to OUT/results.json:
--render prints its table again); logs and corpora stay in OUT.
"""

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = ['-max_len=4096', '-reduce_inputs=0', '-timeout=5', '-rss_limit_mb=2048',
         '-print_final_stats=1']


def run_pair(build, out, seed, seconds, corpus, against):
    """Both variants at once; returns {name: {'lines': [(t, line)], 'start': wall}}."""
    procs, res, threads = {}, {}, []
    env = dict(os.environ, ASAN_OPTIONS='abort_on_error=1:detect_leaks=0',
               UBSAN_OPTIONS='halt_on_error=1')
    start_wall = time.time()
    start = time.monotonic()
    for name in ('plain', against):
        work = os.path.join(out, f'{name}-{seed}')
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        binary = os.path.join(build, 'fuzz', 'fuzz_cjson' + ('' if name == 'plain' else '_' + name))
        cmd = [binary, f'-seed={seed}', f'-max_total_time={seconds}'] + FLAGS + [
            f'-artifact_prefix={out}/{name}-{seed}-', work, corpus]  # crashes, slow units: in OUT
        procs[name] = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       env=env, text=True, errors='replace')
        res[name] = {'lines': [], 'start': start_wall, 'work': work}

        def reader(p=procs[name], r=res[name]):
            for line in p.stderr:
                r['lines'].append((time.monotonic() - start, line.rstrip('\n')))
        th = threading.Thread(target=reader)
        th.start()
        threads.append(th)
    loads = []
    while any(p.poll() is None for p in procs.values()):
        loads.append(os.getloadavg()[0])
        time.sleep(5)
    for th in threads:
        th.join()
    for name, r in res.items():
        with open(os.path.join(out, f'{name}-{seed}.log'), 'w') as f:
            f.writelines(f'{t:9.3f} {line}\n' for t, line in r['lines'])
        if procs[name].returncode != 0:
            sys.exit(f'compare.py: {name} seed {seed} exited {procs[name].returncode}')
    return res, loads


def libfuzzer_cov(lines, t):
    cov = None
    for when, line in lines:
        m = re.search(r'\bcov: (\d+)', line)
        if m and when <= t:
            cov = int(m.group(1))
    return cov


def build_cov(build, out):
    src = os.path.join(build, 'cjson-src')
    if not os.path.exists(os.path.join(src, 'cJSON.c')):
        sys.exit('compare.py: no cJSON source in build-fuzz/cjson-src (run make fuzz)')
    binary = os.path.join(out, 'cjson-cov')
    objs = []
    for c, cov in ((os.path.join(src, 'cJSON.c'), True),
                   (os.path.join(ROOT, 'fuzz', 'fuzz_cjson.c'), False),
                   (os.path.join(ROOT, 'fuzz', 'replay.c'), False)):
        o = os.path.join(out, os.path.basename(c) + '.o')
        flags = ['-fprofile-instr-generate', '-fcoverage-mapping'] if cov else []
        subprocess.run(['clang-14', '-O1', '-w', '-I', os.path.join(src, 'include'), '-c', c,
                        '-o', o] + flags, check=True)
        objs.append(o)
    subprocess.run(['clang-14', '-fprofile-instr-generate', '-o', binary] + objs + ['-lm'],
                   check=True)
    return binary


def cjson_cov(binary, out, files, tag):
    raw, data = os.path.join(out, f'{tag}.profraw'), os.path.join(out, f'{tag}.profdata')
    subprocess.run([binary], input='\n'.join(files) + '\n', text=True, check=True,
                   env=dict(os.environ, LLVM_PROFILE_FILE=raw), stderr=subprocess.DEVNULL)
    subprocess.run(['llvm-profdata-14', 'merge', '-sparse', raw, '-o', data], check=True)
    js = json.loads(subprocess.run(['llvm-cov-14', 'export', '-summary-only',
                                    f'-instr-profile={data}', binary],
                                   capture_output=True, text=True, check=True).stdout)
    for f in js['data'][0]['files']:
        if f['filename'].endswith('cJSON.c'):
            s = f['summary']
            return s['branches']['covered'], s['branches']['count'], s['lines']['covered']
    sys.exit('compare.py: no cJSON.c in the coverage report')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seconds', type=int, default=300)
    ap.add_argument('--seeds', default='1,2,3')
    ap.add_argument('--against', default='grove', choices=('grove', 'hybrid'))
    ap.add_argument('--build', default=os.path.join(ROOT, 'build-fuzz'))
    ap.add_argument('--out', default=None)
    ap.add_argument('--render', metavar='RESULTS_JSON',
                    help='print the table of an earlier run (its OUT/results.json) and stop')
    args = ap.parse_args()
    if args.render:
        with open(args.render) as f:
            render(json.load(f), os.path.dirname(os.path.abspath(args.render)))
        return
    out = os.path.abspath(args.out or os.path.join(args.build, 'compare'))
    os.makedirs(out, exist_ok=True)
    corpus = os.path.join(ROOT, 'fuzz', 'corpus', 'json')
    seeds_files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus))
    checkpoints = [t for t in (30, 60, 120, 300, 600, 1200) if t <= args.seconds]
    if args.seconds not in checkpoints:
        checkpoints.append(args.seconds)
    binary = build_cov(args.build, out)
    rows, all_loads = [], []
    for seed in [int(s) for s in args.seeds.split(',')]:
        print(f'compare.py: seed {seed}: both for {args.seconds} s ...', file=sys.stderr)
        res, loads = run_pair(args.build, out, seed, args.seconds, corpus, args.against)
        all_loads += loads
        for name in ('plain', args.against):
            r = res[name]
            text = '\n'.join(line for _, line in r['lines'])
            done = re.search(r'Done (\d+) runs in (\d+) second', text)
            acc = re.search(r'cjson: (\d+) inputs, (\d+) accepted', text)
            # Running time by the monotonic clock: libFuzzer's own seconds follow the wall
            # clock, which may step (docs/fuzzing.md: a seed-3 pair once ran 259 s, not 301).
            ran = next((t for t, line in r['lines'] if 'Done ' in line), 0.0)
            if abs(ran - int(done.group(2))) > 5:
                print(f'compare.py: {name} seed {seed}: ran {ran:.0f} s, libFuzzer says '
                      f'{done.group(2)} s (the wall clock stepped)', file=sys.stderr)
            files = [(os.path.getmtime(os.path.join(r['work'], f)), os.path.join(r['work'], f))
                     for f in os.listdir(r['work'])]
            row = {'name': name, 'seed': seed, 'cov': [], 'lf': [],
                   'execs': int(done.group(1)) / max(1.0, ran),
                   'accepted': int(acc.group(2)) / max(1, int(acc.group(1))),
                   'corpus': len(files)}
            for t in checkpoints:
                chosen = seeds_files + [p for m, p in files if m <= r['start'] + t]
                cov = cjson_cov(binary, out, chosen, f'{name}-{seed}-{t}')
                row['cov'].append(cov[0])
                row['total'] = cov[1]
                row['lf'].append(libfuzzer_cov(r['lines'], t))
            rows.append(row)
    seed_cov = cjson_cov(binary, out, seeds_files, 'seeds')
    results = {'when': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
               'machine': platform.machine(), 'cores': os.cpu_count(), 'loads': all_loads,
               'seconds': args.seconds, 'flags': FLAGS, 'seeds_files': len(seeds_files),
               'seed_cov': seed_cov, 'checkpoints': checkpoints, 'against': args.against,
               'rows': rows}
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1)
    render(results, out)


def render(res, out):
    """The Markdown table of a results.json (also written to OUT/table.md)."""
    checkpoints, rows, loads = res['checkpoints'], res['rows'], res['loads']

    def fmt_t(t):
        return f'{t // 60} min' if t % 60 == 0 else f'{t} s'
    head = ' / '.join(fmt_t(t) for t in checkpoints)
    lines = [
        f'Run {res["when"]} on {res["machine"]}, {res["cores"]} cores shared with other work; '
        f'load average (1 min) while running: min {min(loads):.1f}, mean '
        f'{statistics.mean(loads):.1f}, max {max(loads):.1f}.',
        f'Each run: {res["seconds"]} s, libFuzzer flags `{" ".join(res["flags"])}`, seeds '
        f'fuzz/corpus/json ({res["seeds_files"]} files; they alone cover {res["seed_cov"][0]} '
        f'of {res["seed_cov"][1]} cJSON branches).',
        '',
        f'| mutator | -seed | cJSON branches covered at {head} | libFuzzer cov at {head} | '
        'exec/s | accepted by cJSON | corpus files |',
        '|---|---|---|---|---|---|---|',
    ]
    for r in rows:
        lines.append(f'| {r["name"]} | {r["seed"]} | {" / ".join(map(str, r["cov"]))} | '
                     f'{" / ".join(str(x) for x in r["lf"])} | {r["execs"]:.0f} | '
                     f'{100 * r["accepted"]:.1f}% | {r["corpus"]} |')
    for name in ('plain', res['against']):
        rs = [r for r in rows if r['name'] == name]
        cov = [statistics.mean(r['cov'][i] for r in rs) for i in range(len(checkpoints))]
        lf = [statistics.mean(r['lf'][i] or 0 for r in rs) for i in range(len(checkpoints))]
        lines.append(f'| **{name}, mean** | | {" / ".join(f"{c:.0f}" for c in cov)} | '
                     f'{" / ".join(f"{c:.0f}" for c in lf)} | '
                     f'{statistics.mean(r["execs"] for r in rs):.0f} | '
                     f'{100 * statistics.mean(r["accepted"] for r in rs):.1f}% | '
                     f'{statistics.mean(r["corpus"] for r in rs):.0f} |')
    lines.append(f'\n(cJSON.c has {rows[0]["total"]} branches in all.)')
    table = '\n'.join(lines)
    with open(os.path.join(out, 'table.md'), 'w') as f:
        f.write(table + '\n')
    print(table)


if __name__ == '__main__':
    main()
