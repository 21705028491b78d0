# SPDX-License-Identifier: MIT
"""grove.mutate as Atheris's custom mutator: fuzz code that takes pytrees with trees, not bytes.

The target here is a differential check, grove against optree: every input tree must flatten
to the same leaves (by identity) and paths in both, and unflatten back to the same structure.
Put your own code in `consume`. An input is a tree written with pickle and read back by an
unpickler that loads only the classes of ALLOWED (no other code runs on load), so a corpus
holds any tree grove.mutate makes: OrderedDict, defaultdict, deque, namedtuples, keys
1 / 1.0 / True, NaN, surrogates. For a consumer of JSON text, use grove.mutate(..., json=True)
with json.loads / json.dumps instead.

    pip install atheris==3.0.0 optree==0.20.0
    python examples/atheris_mutate.py -runs=10000 -seed=1 [CORPUS_DIR]

libFuzzer's flags apply (-max_total_time, -jobs, ...); docs/fuzzing.md ("Python: grove.mutate
and Atheris") has more."""

import collections
import decimal
import fractions
import io
import pickle
import sys

import atheris

with atheris.instrument_imports():
    import grove
    import optree

MAX_NODES, MAX_DEPTH = 200, 24
START = {'a': [1, 2.5, 'x', b'y', None], 'b': (True, {'c': -1}), 1: collections.OrderedDict(z=0)}
ALLOWED = {('builtins', n) for n in ('list', 'tuple', 'dict', 'set', 'frozenset', 'complex',
                                     'bytes', 'int', 'float', 'str', 'bool', 'getattr')}
ALLOWED |= {('collections', 'OrderedDict'), ('collections', 'defaultdict'),
            ('collections', 'deque'), ('fractions', 'Fraction'), ('decimal', 'Decimal')}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in ALLOWED or (module == 'grove._mutate' and name.startswith('Mutant')):
            return super().find_class(module, name)
        if (module, name) == ('builtins', 'Ellipsis'):
            return Ellipsis
        raise pickle.UnpicklingError(f'{module}.{name} is not allowed')


def decode(data):
    try:
        return _Unpickler(io.BytesIO(data)).load()
    except Exception:
        return START


def encode(tree):
    return pickle.dumps(tree, protocol=4)


def custom_mutator(data, max_size, seed):
    tree = decode(data)
    for i in range(4):  # a result too long for max_size is drawn again
        out = encode(grove.mutate(tree, seed + i, max_nodes=MAX_NODES, max_depth=MAX_DEPTH))
        if len(out) <= max_size:
            return out
    return encode(START)


def custom_crossover(data1, data2, max_size, seed):
    out = encode(grove.mutate(decode(data1), seed, decode(data2), max_nodes=MAX_NODES,
                              max_depth=MAX_DEPTH, kinds=('cross-replace', 'cross-insert')))
    return out if len(out) <= max_size else data1[:max_size]


def consume(tree):
    gl, gs = grove.tree_flatten(tree)
    ol, os_ = optree.tree_flatten(tree)
    if len(gl) != len(ol) or any(a is not b for a, b in zip(gl, ol)):
        raise AssertionError(f'leaves differ: {gl!r} / {ol!r}')
    if gs.paths() != os_.paths():
        raise AssertionError(f'paths differ: {gs.paths()!r} / {os_.paths()!r}')
    if grove.tree_structure(grove.tree_unflatten(gs, gl)) != gs:
        raise AssertionError('unflatten gave another structure')


def test_one_input(data):
    consume(decode(data))


def main():
    if hasattr(sys, 'set_int_max_str_digits'):
        sys.set_int_max_str_digits(0)  # (mutated ints reach the default limit of 4300 digits)
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator,
                  custom_crossover=custom_crossover)
    atheris.Fuzz()


if __name__ == '__main__':
    main()
