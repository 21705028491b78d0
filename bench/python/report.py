# SPDX-License-Identifier: MIT
"""The Markdown report and the goals, from the results' rows (no timing here)."""


def fmt_time(s):
    us = s * 1e6
    if us >= 100000:
        return f'{us / 1000:,.1f} ms'
    if us >= 100:
        return f'{us:,.0f} µs'
    if us >= 1:
        return f'{us:.2f} µs'
    return f'{us * 1000:.1f} ns'


def fmt_ratio(r):
    if r is None:
        return '—'
    if r >= 100:
        return f'{r:,.0f}×'
    if r >= 10:
        return f'{r:.1f}×'
    return f'{r:.2f}×'


def fmt_nsleaf(s, leaves):
    v = s * 1e9 / max(leaves, 1)
    return f'{v:.3g}'


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def index(results):
    ix = {}
    for r in results:
        ix[(r['section'], r['workload'], r['op'], r['engine'])] = r
    return ix


def ratio(ix, section, wl, op, peer, base):
    a, b = ix.get((section, wl, op, peer)), ix.get((section, wl, op, base))
    if not a or not b or b['median_s'] <= 0:
        return None
    return a['median_s'] / b['median_s']


GOALS = [
    # (label, section, workloads, op, peer, base, minimum ratio)
    ('tree_flatten ≥ 2× optree on W1', 'pytree', ['W1'], 'tree_flatten', 'optree', 'grove', 2),
    ('tree_flatten ≥ 5× optree on W3', 'pytree', ['W3'], 'tree_flatten', 'optree', 'grove', 5),
    ('tree_flatten ≥ 10× optree on W5', 'pytree', ['W5'], 'tree_flatten', 'optree', 'grove', 10),
    ('tree_flatten ahead of jax on all', 'pytree', ['W1', 'W2', 'W3', 'W4', 'W5', 'W5s', 'W6',
                                                    'W7'], 'tree_flatten', 'jax', 'grove', 1),
    ('tree_leaves ≥ 3× optree on W1', 'pytree', ['W1'], 'tree_leaves', 'optree', 'grove', 3),
    ('tree_leaves ≥ 10× optree on W5', 'pytree', ['W5'], 'tree_leaves', 'optree', 'grove', 10),
    ('tree_unflatten ≥ 2× optree on W3, W5', 'pytree', ['W3', 'W5'], 'tree_unflatten', 'optree',
     'grove', 2),
    ('tree_map ≥ 3× optree on W3, W5', 'pytree', ['W3', 'W5'], 'tree_map', 'optree', 'grove', 3),
    ('tree_map (two trees) ≥ 3× optree on W3, W5', 'pytree', ['W3', 'W5'], 'tree_map (two trees)',
     'optree', 'grove', 3),
    ('spec == ≥ 100× optree on W3, W5', 'pytree', ['W3', 'W5'], 'spec ==', 'optree', 'grove', 100),
    ('hash(spec) ≥ 100× optree on W3, W5', 'pytree', ['W3', 'W5'], 'hash(spec)', 'optree', 'grove',
     100),
    ('keras flatten ≥ 5× on W3', 'keras', ['W3'], 'flatten', 'keras/default', 'keras/grove', 5),
    ('keras map_structure ≥ 5× on W3', 'keras', ['W3'], 'map_structure', 'keras/default',
     'keras/grove', 5),
    ('keras traverse (top-down) ≥ 20× on W3', 'keras', ['W3'], 'traverse (top-down)',
     'keras/default', 'keras/grove', 20),
    ('keras traverse (bottom-up) ≥ 20× on W3', 'keras', ['W3'], 'traverse (bottom-up)',
     'keras/default', 'keras/grove', 20),
    ('keras assert_same_structure ≥ 20× on W3', 'keras', ['W3'], 'assert_same_structure',
     'keras/default', 'keras/grove', 20),
    ('canonicalize ≥ 20× keras torch _dict_to_ordered_dict on W5', 'canonicalize', ['W5'],
     'canonicalize', 'keras torch _dict_to_ordered_dict', 'grove.canonicalize', 20),
    ('W7 tree_flatten time ≤ optree\'s', 'pytree', ['W7'], 'tree_flatten', 'optree', 'grove', 1),
]


PEERS = ('optree', 'jax', 'torch', 'torch_cxx')


def _cells_below(results, need, wls=None, ops=None, peers=PEERS):
    """The (workload, op, peer, ratio) pytree cells where peer / grove < need."""
    ix = index(results)
    low = []
    for r in results:
        if r['section'] != 'pytree' or r['engine'] not in peers:
            continue
        if (wls and r['workload'] not in wls) or (ops and r['op'] not in ops):
            continue
        v = ratio(ix, 'pytree', r['workload'], r['op'], r['engine'], 'grove')
        if v is not None and v < need:
            low.append((r['workload'], r['op'], r['engine'], v))
    return low


def _cells_goal(label, results, need, **kw):
    low = _cells_below(results, need, **kw)
    ran = any(r['section'] == 'pytree' and r['engine'] in PEERS for r in results)
    shown = {f'{w} {op} vs {p}': v for w, op, p, v in low}
    return {'goal': label, 'ratios': shown or {'every cell': None if not ran else need},
            'status': 'not run' if not ran else ('met' if not low else 'NOT met')}


def round3_goals(results):
    """Issue 24's goals: every cell, W1, flatten_up_to, keras, the floor, canonicalize."""
    ix = index(results)
    out = [
        _cells_goal('every pytree cell ≥ 1.5× every peer (cells below listed)', results, 1.5),
        _cells_goal('every W1 cell ≥ 3× every peer (cells below listed)', results, 3,
                    wls=['W1']),
        _cells_goal('flatten_up_to ≥ 2× optree everywhere (cells below listed)', results, 2,
                    ops=['flatten_up_to'], peers=('optree',)),
    ]
    low, ran = {}, False
    for r in results:
        if r['section'] == 'keras' and r['engine'] == 'keras/grove' and r['op'] in (
                'map_structure', 'map_structure (two)', 'pack_sequence_as', 'map_structure_up_to'):
            ran = True
            v = ratio(ix, 'keras', r['workload'], r['op'], 'keras/default', 'keras/grove')
            if v is not None and v < 5:
                low[f'{r["workload"]} {r["op"]}'] = v
    out.append({'goal': 'keras map_structure / pack_sequence_as / map_structure_up_to ≥ 5× '
                        'keras\'s default on every workload (cells below listed)',
                'ratios': low or {'every cell': 5 if ran else None},
                'status': 'not run' if not ran else ('met' if not low else 'NOT met')})
    far, ran = {}, False
    for r in results:
        if r['section'] == 'pytree' and r['engine'] == 'floor' and r['workload'] in ('W5', 'W6'):
            ran = True
            v = ratio(ix, 'pytree', r['workload'], r['op'], 'grove', 'floor')
            if v is not None and v > 2:
                far[f'{r["workload"]} {r["op"]} grove/floor'] = v
    out.append({'goal': 'within 2× of the floor on W5 and W6 (grove / floor above 2 listed)',
                'ratios': far or {'every cell': 2 if ran else None},
                'status': 'not run' if not ran else ('met' if not far else 'NOT met')})
    behind, ran = {}, False
    for r in results:
        if r['section'] == 'canonicalize' and r['engine'] == 'grove.canonicalize' and \
                r.get('same_output'):
            ran = True
            v = ratio(ix, 'canonicalize', r['workload'], 'canonicalize',
                      'keras torch _dict_to_ordered_dict', 'grove.canonicalize')
            if v is not None and v < 1:
                behind[r['workload']] = v
    out.append({'goal': 'canonicalize ahead of keras\'s torch pass where the outputs are equal',
                'ratios': behind or {'every such workload': 1 if ran else None},
                'status': 'not run' if not ran else ('met' if not behind else 'NOT met')})
    return out


def goals(results, rss):
    ix = index(results)
    out = []
    for label, section, wls, op, peer, base, need in GOALS:
        vals = {w: ratio(ix, section, w, op, peer, base) for w in wls}
        got = [v for v in vals.values() if v is not None]
        status = 'not run' if not got else ('met' if all(v >= need for v in got) else 'NOT met')
        out.append({'goal': label, 'ratios': vals, 'status': status})
    out.extend(round3_goals(results))
    c = ix.get(('canonicalize', 'W5s', 'canonicalize', 'grove.canonicalize'))
    if c:
        out.append({'goal': 'canonicalize < 1 µs on W5s (already sorted)',
                    'ratios': {'W5s': c['median_s'] * 1e6}, 'unit': 'µs',
                    'status': 'met' if c['median_s'] < 1e-6 else 'NOT met'})
    d = {r['engine']: r.get('delta_kib') for r in rss}
    if d.get('grove') is not None and d.get('optree') is not None:
        out.append({'goal': 'W7 peak RSS ≤ optree\'s', 'ratios': {'grove KiB': d['grove'],
                                                                  'optree KiB': d['optree']},
                    'status': 'met' if d['grove'] <= d['optree'] else 'NOT met'})
    return out


def render(meta, results, rss, engines, keras, extra=()):
    ix = index(results)
    lines = []
    add = lines.append
    add(f'# grove vs Python pytree engines ({meta["date"]}, Python {meta["python"]}, '
        f'{meta["cpus"]} CPUs, load {meta["load_before"][0]:.2f} → '
        f'{meta["load_after"][0]:.2f}{", QUICK: not a measurement" if meta["quick"] else ""})')
    add('')
    add('Engines: ' + ', '.join(e.label for e in engines) +
        (f', keras {meta["keras"]} (keras.tree: default implementation and grove.keras)'
         if keras else ''))
    for n in meta['notes']:
        add(f'- note: {n}')
    add('')
    add(f'Median of {meta["rounds"]} interleaved samples (±: half the interquartile range), '
        'time per call, (ns per leaf), ratio peer / grove (> 1: grove is faster).')
    add('')
    names = [e.name for e in engines]
    if any(r['engine'] == 'floor' for r in results):
        names.append('floor')
        add('floor: the least work any engine must do for that operation on that very tree '
            '(bench/python/floor.c; for tree_flatten it is the leaves: the structure is known '
            'in advance); its ratio is grove / floor (how far grove is from it).')
        add('')
    add('| workload | operation | ' + ' | '.join(names) + ' |')
    add('|---|---|' + '---|' * len(names))
    wls = []
    for r in results:
        if r['section'] == 'pytree' and r['workload'] not in wls:
            wls.append(r['workload'])
    for wl in wls:
        ops = []
        for r in results:
            if r['section'] == 'pytree' and r['workload'] == wl and r['op'] not in ops:
                ops.append(r['op'])
        for op in ops:
            cells = []
            for n in names:
                r = ix.get(('pytree', wl, op, n))
                if not r:
                    cells.append('n/a')
                    continue
                pct = 100 * r['spread_s'] / r['median_s'] if r['median_s'] else 0
                cell = f'{fmt_time(r["median_s"])} ±{pct:.0f}% ({fmt_nsleaf(r["median_s"], r["leaves"])})'
                if n == 'floor':
                    cell += f' grove/floor **{fmt_ratio(ratio(ix, "pytree", wl, op, "grove", n))}**'
                elif n != 'grove':
                    cell += f' **{fmt_ratio(ratio(ix, "pytree", wl, op, n, "grove"))}**'
                cells.append(cell)
            leaves = ix[('pytree', wl, op, 'grove')]['leaves'] if ('pytree', wl, op,
                                                                    'grove') in ix else ''
            add(f'| {wl} ({leaves}) | {op} | ' + ' | '.join(cells) + ' |')
    if keras:
        add('')
        add(f'keras.tree (keras {meta["keras"]}, numpy backend): keras\'s default '
            'implementation vs grove.keras installed, through keras\'s own functions.')
        add('')
        add('| workload | keras.tree. | default | grove | default / grove |')
        add('|---|---|---|---|---|')
        for r in results:
            if r['section'] != 'keras' or r['engine'] != 'keras/grove':
                continue
            d = ix[('keras', r['workload'], r['op'], 'keras/default')]
            add(f'| {r["workload"]} | {r["op"]} | {fmt_time(d["median_s"])} | '
                f'{fmt_time(r["median_s"])} | '
                f'**{fmt_ratio(d["median_s"] / r["median_s"])}** |')
        can = [r for r in results if r['section'] == 'canonicalize'
               and r['engine'] == 'grove.canonicalize']
        if can:
            add('')
            add('canonicalize: `grove.canonicalize` vs keras\'s torch-tree '
                '`_dict_to_ordered_dict` (keras/src/tree/torchtree_impl.py).')
            add('')
            add('| workload | grove.canonicalize | keras torch _dict_to_ordered_dict | ratio | '
                'same output |')
            add('|---|---|---|---|---|')
            for r in can:
                k = ix[('canonicalize', r['workload'], 'canonicalize',
                        'keras torch _dict_to_ordered_dict')]
                same = r.get('same_output')
                add(f'| {r["workload"]} | {fmt_time(r["median_s"])} | {fmt_time(k["median_s"])}'
                    f' | **{fmt_ratio(k["median_s"] / r["median_s"])}** | '
                    f'{"yes" if same else "no: keras sorts only the first dict on each path"} |')
    lines.extend(extra)  # the torch-backend tables (keras_torch.py, train_step.py)
    if rss:
        add('')
        add('W7 peak RSS of the flatten phase, one fresh interpreter per engine: VmHWM (reset '
            'to VmRSS just before flattening) minus VmRSS just before; ru_maxrss of the whole '
            'child beside it.')
        add('')
        add('| engine | peak RSS growth while flattening | child ru_maxrss | flatten time |')
        add('|---|---|---|---|')
        for r in rss:
            if 'error' in r:
                add(f'| {r["engine"]} | error: {r["error"]} | | |')
                continue
            dk = r['delta_kib']
            add(f'| {r["engine"]} | {"n/a" if dk is None else f"{dk / 1024:,.1f} MiB"} | '
                f'{r["maxrss_kib"] / 1024:,.0f} MiB | {r["seconds"]:.2f} s |')
    add('')
    add('Goals (ratio peer / grove unless marked):')
    add('')
    add('| goal | measured | status |')
    add('|---|---|---|')
    for g in goals(results, rss):
        unit = g.get('unit')
        vals = ', '.join(
            f'{k}: {"—" if v is None else (f"{v:.3g} {unit}" if unit else (fmt_ratio(v) if "KiB" not in k else f"{v:,} KiB"))}'
            for k, v in g['ratios'].items())
        add(f'| {g["goal"]} | {vals} | {g["status"]} |')
    return '\n'.join(lines)
