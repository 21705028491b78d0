# SPDX-License-Identifier: MIT
"""Checks that the files of a folder call each other only downwards.

    check_layers.py NAME SRCDIR OBJDIR [NM]

NAME is one of the folders below (lib, tools, python, bench), SRCDIR that
folder; OBJDIR holds the object files CMake made of it (e.g.
build/CMakeFiles/grove-objects.dir/lib; an object whose source is gone is
passed over).
Every undefined symbol of a file's object is matched to the object that
defines it; a call from file a to file b is allowed when b's layer is below
a's, or b is in a's layer and listed before it, or {a, b} is one of the pairs
named as a core that calls back and forth. Anything else, a file the table
does not know, or a folder with no objects, fails. docs/design-notes.md draws
the same tables.
"""

import os
import subprocess
import sys

# Layers from the floor up; within a layer, a file may call the files listed
# before it. CORE: pairs that may call each other.
LAYERS = {
    'lib': [
        ['repr', 'version'],
        ['errors'],
        ['arena', 'intern', 'memo'],
        ['node', 'keys'],
        ['access', 'containers', 'walk', 'lex'],
        ['hostorder', 'compare', 'flatten', 'print', 'read'],
        ['copy', 'encode', 'decode', 'transform'],
        ['mutate_leaf', 'mutate_tree', 'mutate'],
    ],
    'tools': [
        ['output'], ['options'], ['functions'], ['stats'], ['load'], ['ops'],
        ['lines_gen'], ['lines_batch'], ['lines'], ['demo'], ['main'],
    ],
    'python': [
        ['maps', 'dictfill'],
        ['args', 'handles', 'typenames', 'generations', 'registry', 'nodememo'],
        ['keys', 'flatten'],
        ['unflatten', 'flatten_up_to', 'canonicalize', 'tree_map'],
        ['spec_output', 'spec_compare', 'treespec', 'spec_wire', 'spec_graft',
         'spec_access'],
        ['keras_walk', 'keras_traverse', 'keras_assert', 'keras_tape', 'keras_flat', 'keras_torch',
         'keras'],
        ['module'],
    ],
    'bench': [
        ['util'], ['workloads'], ['engine-grove', 'engine-jansson', 'engine-cjson'],
        ['run', 'rss'], ['report'], ['grove-bench'],
    ],
}
CORE = {
    'lib': [{'arena', 'intern'}, {'node', 'keys'}],
}


def symbols(nm, path):
    out = subprocess.run([nm, '--defined-only', '-g', path], capture_output=True, text=True,
                         check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    out = subprocess.run([nm, '-u', path], capture_output=True, text=True, check=True).stdout
    undefined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, undefined


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in LAYERS:
        sys.exit(f'usage: {sys.argv[0]} {{{",".join(LAYERS)}}} SRCDIR OBJDIR [NM]')
    name, srcdir, objdir = sys.argv[1:4]
    nm = sys.argv[4] if len(sys.argv) == 5 else 'nm'
    place = {}
    for li, layer in enumerate(LAYERS[name]):
        for fi, f in enumerate(layer):
            place[f] = (li, fi)
    core = [frozenset(p) for p in CORE.get(name, [])]
    objs = {}
    for fn in sorted(os.listdir(objdir)):
        if fn.endswith('.c.o') and os.path.exists(os.path.join(srcdir, fn[:-2])):
            objs[fn[:-4]] = os.path.join(objdir, fn)
    if not objs:
        sys.exit(f'{name}: no object files in {objdir}')
    bad = [f for f in objs if f not in place]
    if bad:
        sys.exit(f'{name}: files the layer table does not know: {", ".join(bad)} '
                 f'(add them to tests/check_layers.py and docs/design-notes.md)')
    owner, needs = {}, {}
    for f, path in objs.items():
        defined, undefined = symbols(nm, path)
        for s in defined:
            owner[s] = f
        needs[f] = undefined
    errors = []
    for a in sorted(objs):
        calls = sorted({owner[s] for s in needs[a] if s in owner and owner[s] != a})
        for b in calls:
            (la, fa), (lb, fb) = place[a], place[b]
            if lb < la or (lb == la and fb < fa) or frozenset((a, b)) in core:
                continue
            syms = sorted(s for s in needs[a] if owner.get(s) == b)
            errors.append(f'{a}.c calls up into {b}.c ({", ".join(syms[:4])})')
        print(f'{name}: {a} -> {", ".join(calls) or "-"}')
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        sys.exit(1)
    print(f'{name}: {len(objs)} files, every call goes down')


if __name__ == '__main__':
    main()
