# SPDX-License-Identifier: MIT
"""grove under torch.compile: Dynamo stand-ins for the extension's C functions, and the one
hook that waits for torch._dynamo.

Dynamo cannot trace into a C function: without a stand-in, a call to grove.tree_map in a
compiled function is a graph break. When torch._dynamo is imported (already when grove is, or
later: a finder on sys.meta_path answers only for torch._dynamo and runs the registrations
right after its module has run, then removes itself), each C function in STANDINS gets its
pure-Python counterpart from grove._reference through torch.compiler.substitute_in_graph.
Dynamo consults a stand-in only while tracing, where it meets the C function; eager calls run
the C functions as before (grove.tree_map is _grove.tree_map: nothing wraps it). grove never
imports torch: it reads torch from sys.modules once torch._dynamo is there.

grove._keras_torch registers its own stand-ins through the same hook (after_dynamo).
"""

from __future__ import annotations

import sys
import threading

from grove import _grove, _reference
from grove._after_import import _Finder

_DYNAMO = 'torch._dynamo'

# name -> (the C function, its stand-in)
STANDINS = {
    'tree_flatten': (_grove.tree_flatten, _reference.tree_flatten),
    'tree_leaves': (_grove.tree_leaves, _reference.tree_leaves),
    'tree_structure': (_grove.tree_structure, _reference.tree_structure),
    'tree_unflatten': (_grove.tree_unflatten, _reference.tree_unflatten),
    'tree_map': (_grove.tree_map, _reference.tree_map),
    'tree_flatten_with_path': (_grove.tree_flatten_with_path, _reference.tree_flatten_with_path),
    '_is_leaf': (_grove._is_leaf, _reference._is_leaf),  # tree_is_leaf, all_leaves
}
REGISTERED = set()  # the names of STANDINS registered (one that already had a stand-in: not)

_lock = threading.RLock()
_waiting = []  # functions to run once torch._dynamo is imported
_registered = False  # grove's own stand-ins are registered (or there is nothing to register)
_finder = None


def substitute_in_graph():
    """torch.compiler.substitute_in_graph, or None (no torch._dynamo yet, or torch < 2.5)."""
    torch = sys.modules.get('torch')
    return getattr(getattr(torch, 'compiler', None), 'substitute_in_graph', None)


def register():
    """Give Dynamo grove's stand-ins (once; torch._dynamo is imported)."""
    global _registered
    with _lock:
        if _registered:
            return
        _registered = True
        sub = substitute_in_graph()
        if sub is None:  # torch < 2.5: no stand-ins (Dynamo breaks the graph there)
            return
        if getattr(sys.modules.get('optree'), '__grove__', False):
            # grove installed as optree (install_as_optree) before torch._dynamo: torch's
            # polyfills for optree's functions took grove's C functions already, and they
            # would call back into grove's Python API; as before, nothing of grove's is
            # substituted there (a graph break where a C function is met)
            return
        _reference._is_compiling = sys.modules['torch'].compiler.is_compiling
        for name, (c_fn, standin) in STANDINS.items():
            try:
                sub(c_fn, skip_signature_check=True)(standin)
            except ValueError:  # it has a stand-in already (someone else's)
                continue
            REGISTERED.add(name)


def after_dynamo(fn):
    """Run fn() once torch._dynamo is imported: now if it is, else right after its module
    has run (one finder for every caller)."""
    global _finder
    with _lock:
        if _DYNAMO not in sys.modules:
            _waiting.append(fn)
            if _finder is None:
                _finder = _Finder(_DYNAMO, _after)
                sys.meta_path.insert(0, _finder)
            return
    fn()


def _after(module):
    """torch._dynamo has run: the finder goes, the waiting functions run."""
    global _finder
    with _lock:
        f, _finder = _finder, None
        if f is not None:
            try:
                sys.meta_path.remove(f)
            except ValueError:
                pass
        todo = list(_waiting)
        _waiting.clear()
    for fn in todo:
        fn()


after_dynamo(register)
