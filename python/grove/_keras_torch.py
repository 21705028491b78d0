# SPDX-License-Identifier: MIT
"""grove.keras on keras's torch backend: keras.tree with exactly the results
of keras's torch implementation (``keras/src/tree/torchtree_impl.py``), which
orders dicts differently from keras's optree implementation (it sorts the
dicts down to the first dict on each path and keeps the order of the dicts
inside those, and rebuilds dicts in that order).

grove.keras.install() puts this module in place of torchtree_impl when keras
picked that one (``bind``). Each function first asks the extension's scan
(``keras_torch_plain``, python/src/keras_torch.c) whether grove's own
function gives keras's torch implementation's result on these arguments: it
does when the trees are exact lists, tuples and dicts whose keys are already
sorted (str or int; for flatten and flatten_with_path only the dicts inside
a dict need be, for assert_same_structure none), with leaves neither side
takes for a node, and (with several trees) of one shape. Then grove's C function answers; otherwise
keras's own function does. For a keras version other than the ones this
module was checked against (KNOWN_KERAS) every function is keras's own.

Under ``torch.compile`` Dynamo cannot look into C functions. When
``torch._dynamo`` is imported (already, or later: grove._dynamo's import hook
waits for it) the two scans get ``torch.compiler.substitute_in_graph`` stand-ins that
answer "ask keras", so a traced call runs keras's own traceable function and
compiles exactly as it does without grove. grove never imports torch itself.
"""

from __future__ import annotations

import importlib
import threading

from grove import _dynamo, _grove

__all__ = [
    'register_tree_node_class', 'is_nested', 'traverse', 'flatten', 'flatten_with_path',
    'map_structure', 'map_structure_up_to', 'assert_same_structure', 'assert_same_paths',
    'pack_sequence_as', 'lists_to_tuples', 'map_shape_structure',
]

# The keras versions whose torchtree_impl this module's fast paths were checked against
# (tests/python/test_keras_torch.py); for any other, every function is keras's own.
KNOWN_KERAS = ('3.15.1',)

_plain = _grove.keras_torch_plain
_is_nested = _grove.keras_torch_is_nested
_g_flatten = _grove.keras_flatten
_g_flatten_with_path = _grove.keras_flatten_with_path
_g_map_structure = _grove.keras_map_structure
_g_map_structure_up_to = _grove.keras_map_structure_up_to
_g_pack_sequence_as = _grove.keras_pack_sequence_as
_g_traverse = _grove.keras_traverse
_g_lists_to_tuples = _grove.keras_lists_to_tuples
_g_map_shape_structure = _grove.keras_map_shape_structure

_impl = None  # keras's torchtree_impl (bind)
_SUPPORTED = {}  # torch.utils._pytree.SUPPORTED_NODES (the very dict torch registers in)
fast = False  # whether the fast paths are in use (a known keras version)


def register_tree_node_class(cls):
    """keras's torch implementation's: cls goes to torch's pytree."""
    return _impl.register_tree_node_class(cls)


def is_nested(structure):
    r = _is_nested(_SUPPORTED, structure)
    if r is None:
        return _impl.is_nested(structure)
    return r


def flatten(structure):
    if _plain(_SUPPORTED, 4, structure):
        return _g_flatten(structure)
    return _impl.flatten(structure)


def flatten_with_path(structure):
    if _plain(_SUPPORTED, 4, structure):
        return _g_flatten_with_path(structure)
    return _impl.flatten_with_path(structure)


def map_structure(func, *structures, none_is_leaf=True):
    if 0 < len(structures) <= 16 and _plain(_SUPPORTED, 0 if none_is_leaf else 2, *structures):
        return _g_map_structure(func, *structures, none_is_leaf=none_is_leaf)
    return _impl.map_structure(func, *structures, none_is_leaf=none_is_leaf)


def map_structure_up_to(shallow_structure, func, *structures):
    if 0 < len(structures) <= 15 and _plain(_SUPPORTED, 1, shallow_structure, *structures):
        return _g_map_structure_up_to(shallow_structure, func, *structures)
    return _impl.map_structure_up_to(shallow_structure, func, *structures)


def assert_same_structure(a, b):
    if _plain(_SUPPORTED, 8, a, b):
        return None
    return _impl.assert_same_structure(a, b)


def assert_same_paths(a, b):
    return _impl.assert_same_paths(a, b)


def pack_sequence_as(structure, flat_sequence):
    t = type(flat_sequence)
    if (t is list or t is tuple) and _plain(_SUPPORTED, 0, structure):
        try:
            return _g_pack_sequence_as(structure, flat_sequence)
        except Exception:  # keras's own exception (no user code ran)
            pass
    return _impl.pack_sequence_as(structure, flat_sequence)


def traverse(func, structure, top_down=True):
    if _plain(_SUPPORTED, 0, structure):
        return _g_traverse(func, structure, top_down=top_down)
    return _impl.traverse(func, structure, top_down=top_down)


def lists_to_tuples(structure):
    if _plain(_SUPPORTED, 0, structure):
        return _g_lists_to_tuples(structure)
    return _impl.lists_to_tuples(structure)


def map_shape_structure(func, structure):
    if _plain(_SUPPORTED, 0, structure):
        return _g_map_shape_structure(func, structure)
    return _impl.map_shape_structure(func, structure)


# ---------------------------------------------------------------------------
# bind(): this module in place of keras's torchtree_impl
# ---------------------------------------------------------------------------

_FAST = {name: globals()[name] for name in __all__ if name != 'register_tree_node_class'}


def _keras_version():
    # (tree_api runs before keras imports its version module: import it, it needs nothing more)
    try:
        v = importlib.import_module('keras.src.version')
    except ImportError:
        return None
    return getattr(v, '__version__', None)


def bind(impl):
    """Answer for keras's torch implementation module impl."""
    global _impl, _SUPPORTED, fast
    _impl = impl
    _SUPPORTED = impl.torch_tree.SUPPORTED_NODES
    fast = _keras_version() in KNOWN_KERAS
    g = globals()
    for name, f in _FAST.items():  # an unknown keras: keras's own functions
        g[name] = f if fast else getattr(impl, name)
    _hook_dynamo()


# ---------------------------------------------------------------------------
# Dynamo stand-ins
# ---------------------------------------------------------------------------

def _plain_standin(supported, mode, first, *rest):
    """The scan under torch.compile: always "ask keras" (its functions trace)."""
    return False


def _is_nested_standin(supported, structure):
    return None


_lock = threading.Lock()
_registered = False


def _register_standins():
    """Give Dynamo the stand-ins (once; torch._dynamo is imported)."""
    global _registered
    with _lock:
        if _registered:
            return
        sub = _dynamo.substitute_in_graph()
        if sub is None:  # torch < 2.5: no stand-ins (Dynamo breaks the graph there)
            _registered = True
            return
        sub(_plain, skip_signature_check=True)(_plain_standin)
        sub(_is_nested, skip_signature_check=True)(_is_nested_standin)
        _registered = True


def _hook_dynamo():
    """The stand-ins, once torch._dynamo is imported (grove._dynamo's hook)."""
    if _registered or not fast:
        return
    _dynamo.after_dynamo(_register_standins)
