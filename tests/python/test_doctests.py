# SPDX-License-Identifier: MIT
"""The examples in the public API's docstrings, run as doctests, and which of the
main functions have a full docstring (parameters, result, errors, an example).

The docstrings of the extension's functions and of TreeSpec's C methods live in
python/src (module.c, treespec.c, keras.c); the rest in python/grove."""

import doctest
import inspect

import pytest

import grove
import grove.keras

GLOBS = {'grove': grove}


def _public_objects():
    """(qualified name, object) for grove's and grove.keras's public names and TreeSpec's
    public methods and properties, each object once."""
    seen, out = set(), []

    def add(name, obj):
        if id(obj) in seen or not (callable(obj) or isinstance(obj, property)):
            return
        seen.add(id(obj))
        out.append((name, obj))

    add('grove', grove)
    add('grove.keras', grove.keras)
    for n in grove.__all__:
        add(f'grove.{n}', getattr(grove, n))
    for n in grove.keras.__all__:
        add(f'grove.keras.{n}', getattr(grove.keras, n))
    for n in sorted(vars(grove.TreeSpec)):
        if not n.startswith('_'):
            add(f'grove.TreeSpec.{n}', inspect.getattr_static(grove.TreeSpec, n))
    return out


def _doctests():
    finder = doctest.DocTestFinder(recurse=False, exclude_empty=True)
    tests = []
    for name, obj in _public_objects():
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, type(grove)):
            found = finder.find(obj, name, globs=dict(GLOBS))
        else:
            found = finder.find(obj, name, module=False, globs=dict(GLOBS))
        tests.extend(t for t in found if t.examples)
    return tests


DOCTESTS = _doctests()


def test_there_are_doctests():
    assert len(DOCTESTS) >= 100, [t.name for t in DOCTESTS]


@pytest.mark.parametrize('test', DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_doctest(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, ''.join(out)


# The functions the documentation promises a full docstring for: what each takes (Args:,
# unless it takes nothing), returns (Returns:) and an example (Example:); Raises: where it
# raises something of its own.
MAIN = [
    'tree_flatten', 'tree_unflatten', 'tree_leaves', 'tree_structure', 'tree_map',
    'tree_map_with_path', 'tree_flatten_with_path', 'tree_all', 'tree_any', 'tree_transpose',
    'canonicalize', 'memory_stats', 'set_memory_limit', 'set_output_limit',
]
TREESPEC_MAIN = [
    'children', 'child', 'is_leaf', 'unflatten', 'flatten_up_to', 'paths', 'fingerprint',
    'entries', 'is_prefix', 'is_suffix', 'compose', 'to_bytes', 'from_bytes',
]
KERAS_MAIN = [
    'register_tree_node_class', 'is_nested', 'traverse', 'flatten', 'flatten_with_path',
    'map_structure', 'map_structure_up_to', 'assert_same_structure', 'assert_same_paths',
    'pack_sequence_as', 'lists_to_tuples', 'map_shape_structure',
]


def _main_objects():
    for n in MAIN:
        yield f'grove.{n}', getattr(grove, n)
    for n in TREESPEC_MAIN:
        yield f'grove.TreeSpec.{n}', getattr(grove.TreeSpec, n)
    for n in KERAS_MAIN:
        yield f'grove.keras.{n}', getattr(grove.keras, n)


def _takes_arguments(obj):
    params = list(inspect.signature(obj).parameters.values())
    return bool(params and params[0].name in ('self', 'cls') and params[1:] or
                params and params[0].name not in ('self', 'cls'))


@pytest.mark.parametrize('name,obj', list(_main_objects()), ids=lambda x: x if isinstance(x, str)
                         else '')
def test_main_functions_have_full_docstrings(name, obj):
    doc = inspect.getdoc(obj) or ''
    missing = [s for s in ('Returns:', 'Example:') if s not in doc]
    if _takes_arguments(obj) and 'Args:' not in doc:
        missing.append('Args:')
    assert not missing, f'{name}: no {", ".join(missing)} in its docstring'
    assert '>>> ' in doc, name


# The public functions and methods whose docstrings are still short (no Returns: or no
# Example:): the list is checked both ways, so that a name leaves it when its docstring is
# written and a new public function without one is added to it on purpose.
LACKING = set('''
tree_iter all_leaves tree_broadcast_prefix tree_flatten_one_level treespec_frozendict
unregister_pytree_node PyTreeTypeVar install_as_optree keras.install keras.uninstall
keras.installed
'''.split())


def _full(obj):
    doc = inspect.getdoc(obj) or ''
    return 'Returns:' in doc and 'Example:' in doc


def test_the_list_of_short_docstrings_is_true():
    short = set()
    for n in grove.__all__:
        obj = getattr(grove, n)
        if inspect.isroutine(obj) and not _full(obj):
            short.add(n)
    for n in dir(grove.TreeSpec):
        obj = getattr(grove.TreeSpec, n)
        if not n.startswith('_') and inspect.isroutine(obj) and not _full(obj):
            short.add(f'TreeSpec.{n}')
    for n in grove.keras.__all__:
        obj = getattr(grove.keras, n)
        if inspect.isroutine(obj) and not _full(obj):
            short.add(f'keras.{n}')
    assert short - LACKING == set(), 'short docstrings not listed in LACKING'
    assert LACKING - short == set(), 'full docstrings still listed in LACKING'
