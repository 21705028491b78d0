# SPDX-License-Identifier: MIT
"""The installed wheel at work (tests/wheel/check.sh runs it in a fresh venv, with
the system's libxxhash and libmimalloc hidden where it can): grove comes from
the venv, the libraries mapped into the process are the wheel's own, and the
main operations give the right results.

usage: python smoke.py VERSION   (VERSION: include/grove.h's GV_VERSION_STRING)"""

import collections
import importlib.metadata
import os
import pickle
import sys
import sysconfig


def mapped_libraries():
    """The shared objects this process has mapped (Linux: /proc/self/maps)."""
    libs = set()
    with open('/proc/self/maps', encoding='utf-8') as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ''
            if '.so' in os.path.basename(path):
                libs.add(path)
    return libs


def main(version):
    import grove
    import grove.keras

    purelib = os.path.realpath(sysconfig.get_paths()['purelib'])
    here = os.path.realpath(grove.__file__)
    assert here.startswith(purelib + os.sep), f'grove imported from {here}, not {purelib}'

    # one version: the header's, the package's, the distribution's
    assert grove.__version__ == version, (grove.__version__, version)
    assert importlib.metadata.version('grove-pytree') == version

    # the libraries: xxHash from the wheel's grove_pytree.libs, no mimalloc at all
    libs = mapped_libraries()
    ext = [p for p in libs if os.path.basename(p).startswith('_grove.')]
    assert ext and all(os.path.realpath(p).startswith(purelib) for p in ext), ext
    xxh = [p for p in libs if 'libxxhash' in os.path.basename(p)]
    assert xxh, 'no libxxhash mapped'
    for p in xxh:
        assert os.path.realpath(p).startswith(os.path.join(purelib, 'grove_pytree.libs')), p
    assert not [p for p in libs if 'mimalloc' in p], sorted(libs)

    # the operations
    tree = {'b': 1, 'a': [2, (3, None)], 'c': collections.OrderedDict(z=4, y=5)}
    leaves, spec = grove.tree_flatten(tree)
    assert leaves == [2, 3, 1, 4, 5], leaves
    assert grove.tree_unflatten(spec, leaves) == tree
    assert list(grove.tree_unflatten(spec, leaves)) == ['b', 'a', 'c']  # insertion order kept
    assert grove.tree_map(lambda x: x * 10, tree)['a'] == [20, (30, None)]
    shuffled = [{f'k{(i * 7 + j) % 50}': j for j in range(50)} for i in range(200)]
    leaves, spec = grove.tree_flatten(shuffled)
    back = grove.tree_unflatten(spec, leaves)
    assert back == shuffled and [list(d) for d in back] == [list(d) for d in shuffled]
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert grove.TreeSpec.from_bytes(spec.to_bytes()) == spec
    assert grove.tree_structure(shuffled) == spec  # O(1): the same interned node
    assert grove.canonicalize({'b': 1, 'a': 2}) == ({'a': 2, 'b': 1}, True)
    assert grove.keras.flatten({'b': 1, 'a': [2, 3]}) == [2, 3, 1]
    assert grove.memory_stats()['generations'] >= 1
    print(f'ok: grove {grove.__version__} from {os.path.dirname(here)}, Python '
          f'{sys.version.split()[0]}, libxxhash from grove_pytree.libs, no mimalloc')


if __name__ == '__main__':
    main(sys.argv[1])
