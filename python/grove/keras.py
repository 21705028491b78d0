# SPDX-License-Identifier: MIT
"""grove.keras: grove as the engine of ``keras.tree``.

The twelve functions keras's ``keras.src.tree.tree_api`` calls on its
implementation module, with the semantics of keras's optree implementation
(namespace ``'keras'``, None a leaf unless ``map_structure(...,
none_is_leaf=False)``, dicts by sorted key and rebuilt in their insertion
order, OrderedDicts by insertion order, keras's Tracked* wrappers and any
class given to ``register_tree_node_class`` through their ``tree_flatten`` /
``tree_unflatten`` methods, ``MAP_TO_NONE`` recognised by its class name),
the same exception types, and messages that start with the path where the
problem is (``at (0, 'a'): ...``; nothing at the root).

Make keras use it, before or after ``import keras``::

    import grove.keras
    grove.keras.install()      # keras.tree now runs on grove
    grove.keras.uninstall()    # and back

This module does not import keras. ``canonicalize`` is ``grove.canonicalize``,
the ordering pass keras's torch backend does in Python (``_dict_to_ordered_dict``
in ``keras/src/tree/torchtree_impl.py``), with a change flag: every dict and
defaultdict at every level in sorted-key insertion order, the very same object
when nothing changes (keras's pass always copies, returns no flag, and leaves a
dict directly inside a re-sorted dict as it was). docs/python.md has the details.
"""

from __future__ import annotations

import operator
import sys
import threading

import grove
from grove import _grove
from grove._after_import import _Finder

__all__ = [
    'register_tree_node_class',
    'is_nested',
    'traverse',
    'flatten',
    'flatten_with_path',
    'map_structure',
    'map_structure_up_to',
    'assert_same_structure',
    'assert_same_paths',
    'pack_sequence_as',
    'lists_to_tuples',
    'map_shape_structure',
    'canonicalize',
    'install',
    'uninstall',
    'installed',
]

NAMESPACE = 'keras'

# The hot functions are the extension's own (no Python frame in between).
is_nested = _grove.keras_is_nested
flatten = _grove.keras_flatten
flatten_with_path = _grove.keras_flatten_with_path
map_structure = _grove.keras_map_structure
map_structure_up_to = _grove.keras_map_structure_up_to
assert_same_structure = _grove.keras_assert_same_structure
pack_sequence_as = _grove.keras_pack_sequence_as
traverse = _grove.keras_traverse
lists_to_tuples = _grove.keras_lists_to_tuples
map_shape_structure = _grove.keras_map_shape_structure

canonicalize = grove.canonicalize

_tree_flatten = operator.methodcaller('tree_flatten')


def register_tree_node_class(cls):
    """keras.tree.register_tree_node_class: register cls as a node in keras's namespace.

    ``obj.tree_flatten()`` gives ``(children, metadata)`` or ``(children, metadata,
    entries)`` and ``cls.tree_unflatten(metadata, children)`` rebuilds it.

    Args:
        cls: the class, with both methods.

    Returns:
        cls (so it works as a decorator).

    Raises:
        TypeError: cls is not a class, or lacks one of the methods.
        ValueError: cls is registered in keras's namespace already.

    Example:
        >>> @grove.keras.register_tree_node_class
        ... class Pair:
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        ...     def tree_flatten(self):
        ...         return (self.a, self.b), None
        ...     @classmethod
        ...     def tree_unflatten(cls, metadata, children):
        ...         return cls(*children)
        >>> grove.keras.flatten([Pair(1, 2), 3])
        [1, 2, 3]
        >>> grove.unregister_pytree_node(Pair, namespace='keras') and None
    """
    if not isinstance(cls, type):
        raise TypeError(f'register_tree_node_class: expected a class, got {cls!r}.')
    if not (callable(getattr(cls, 'tree_flatten', None))
            and callable(getattr(cls, 'tree_unflatten', None))):
        raise TypeError(f'{cls!r} must define both `tree_flatten` and `tree_unflatten` methods '
                        'to be registered as a keras tree node.')
    return grove.register_pytree_node(cls, _tree_flatten, cls.tree_unflatten,
                                      namespace=NAMESPACE)


def assert_same_paths(a, b):
    """keras.tree.assert_same_paths: raise unless a and b have the same set of leaf paths
    (container types, order and leaf values do not matter).

    Args:
        a: a nested structure.
        b: another.

    Returns:
        None.

    Raises:
        ValueError: the paths differ; the message lists those only in one of them.

    Example:
        >>> grove.keras.assert_same_paths({'x': 1, 'y': [2]}, {'y': (0,), 'x': 'a'})
        >>> grove.keras.assert_same_paths({'x': 1}, {'y': 1})
        Traceback (most recent call last):
        ...
        ValueError: `a` and `b` don't have the same paths.
        Paths only in `a` (missing in `b`):
        {('x',)}
        Paths only in `b` (missing in `a`):
        {('y',)}
    """
    pa = set(grove.tree_paths(a, none_is_leaf=True, namespace=NAMESPACE))
    pb = set(grove.tree_paths(b, none_is_leaf=True, namespace=NAMESPACE))
    if pa == pb:
        return
    msg = "`a` and `b` don't have the same paths."
    only_a, only_b = pa - pb, pb - pa
    if only_a:
        msg += f'\nPaths only in `a` (missing in `b`):\n{only_a}'
    if only_b:
        msg += f'\nPaths only in `b` (missing in `a`):\n{only_b}'
    raise ValueError(msg)


# ---------------------------------------------------------------------------
# install() / uninstall()
#
# keras.src.tree.tree_api picks its implementation module once, when it is
# executed, binds it to its global `tree_impl`, and every keras.tree function
# (and every internal keras caller) looks `tree_impl` up at call time. On
# keras's torch backend the replacement is grove._keras_torch (keras's torch
# implementation's results; registrations go to torch's pytree), else this
# module. So:
# - keras already imported: swap tree_api.tree_impl, and register with grove
#   the classes keras registered with the module it had (its Tracked*
#   wrappers; under TensorFlow also TF's list and dict wrappers; with optree,
#   also the classes registered with optree's global namespace);
# - keras imported later: a meta path finder wraps tree_api's loader so that
#   right after keras's own selection has run (its module body) tree_impl is
#   swapped; keras registers its Tracked* classes after that, through
#   tree_api, so they come to grove directly.
# uninstall() removes the finder and puts every swapped module back, and
# gives the original implementation the classes registered with grove while
# grove was installed.
# ---------------------------------------------------------------------------

_TARGET = 'keras.src.tree.tree_api'
_lock = threading.RLock()
_finder = None
_swapped = []  # [(tree_api module, its original implementation, what replaced it)]


def _this():
    return sys.modules[__name__]


def _registered_with(impl):
    """Classes (with their flatten and unflatten functions) that keras's
    implementation module impl has in the 'keras' namespace."""
    out = []
    name = getattr(impl, '__name__', '')
    if name.endswith('optree_impl'):
        optree = sys.modules.get('optree')
        get = getattr(getattr(optree, 'register_pytree_node', None), 'get', None)
        if get is not None:
            try:
                entries = get(namespace=NAMESPACE)
            except (TypeError, ValueError):
                entries = {}
            for cls, entry in entries.items():
                ns = getattr(entry, 'namespace', None)
                # keras's own, and classes registered with optree globally (optree's
                # functools.partial, a user's), which optree's keras namespace sees too
                if ns == NAMESPACE or (
                        ns == '' and isinstance(cls, type)
                        and cls not in grove._BUILTIN_NODE_TYPES
                        and getattr(cls, '__module__', '') != 'optree.typing'):
                    out.append((cls, entry.flatten_func, entry.unflatten_func))
    elif name.endswith('dmtree_impl'):
        for cls, funcs in dict(getattr(impl, 'REGISTERED_CLASSES', {})).items():
            if isinstance(cls, type) and isinstance(funcs, tuple) and len(funcs) == 2:
                out.append((cls, funcs[0], funcs[1]))
    tracking = sys.modules.get('keras.src.utils.tracking')
    if tracking is not None:  # whatever the implementation: keras's own wrappers
        for n in ('TrackedList', 'TrackedDict', 'TrackedOrderedDict', 'TrackedSet'):
            cls = getattr(tracking, n, None)
            if isinstance(cls, type):
                out.append((cls, None, None))
    return out


def _forward_from(impl):
    """Register with grove the classes impl knows (skipping those grove has)."""
    have = grove._REGISTRY.get(NAMESPACE, {})
    for cls, flat, unflat in _registered_with(impl):
        if cls in have or cls in grove._BUILTIN_NODE_TYPES:
            continue
        if callable(getattr(cls, 'tree_flatten', None)) and callable(
                getattr(cls, 'tree_unflatten', None)):
            register_tree_node_class(cls)
        elif flat is not None and unflat is not None:
            grove.register_pytree_node(cls, flat, unflat, namespace=NAMESPACE)
        have = grove._REGISTRY.get(NAMESPACE, {})


def _target_for(impl):
    """The module keras's tree_api gets in place of impl: on keras's torch
    backend grove._keras_torch (torchtree_impl's results), else this one."""
    if getattr(impl, '__name__', '').endswith('torchtree_impl'):
        from grove import _keras_torch
        _keras_torch.bind(impl)
        return _keras_torch
    return _this()


def _swap(api):
    """Make tree_api module api use grove (once)."""
    cur = getattr(api, 'tree_impl', None)
    if any(cur is t for _, _, t in _swapped) or cur is _this():
        return
    if cur is None:
        raise RuntimeError('grove.keras.install(): keras.src.tree.tree_api is being imported '
                           'right now; call install() before or after importing keras')
    target = _target_for(cur)
    _swapped.append((api, cur, target))
    api.tree_impl = target
    if target is _this():
        _forward_from(cur)


def _after_tree_api(module):
    """tree_api has run (keras's own choice of implementation made): the swap."""
    with _lock:
        if _finder is not None:  # still installed
            _swap(module)


def install():
    """Make keras.tree (the public API and every keras internal caller) run
    on grove, whether keras is imported already or later. Idempotent."""
    global _finder
    with _lock:
        if _finder is None:
            _finder = _Finder(_TARGET, _after_tree_api)
            sys.meta_path.insert(0, _finder)
        api = sys.modules.get(_TARGET)
        if api is not None:
            _swap(api)


def uninstall():
    """Undo install(): keras.tree gets back the implementation it had, which
    also gets the classes registered with grove meanwhile. Idempotent."""
    global _finder
    with _lock:
        if _finder is not None:
            try:
                sys.meta_path.remove(_finder)
            except ValueError:
                pass
            _finder = None
        while _swapped:
            api, orig, target = _swapped.pop()
            if getattr(api, 'tree_impl', None) is target:
                api.tree_impl = orig
            if target is _this():  # (grove._keras_torch registers with orig itself)
                _replay_into(orig)


def installed():
    """Whether install() is in effect."""
    return _finder is not None


def _known_to(impl):
    """The classes keras's implementation module impl has registered (as far
    as it can be asked; None when it cannot)."""
    name = getattr(impl, '__name__', '')
    if name.endswith('optree_impl') or name.endswith('dmtree_impl'):
        return {cls for cls, flat, _ in _registered_with(impl) if flat is not None}
    return None


def _replay_into(impl):
    """Give impl the classes registered with grove's 'keras' namespace that it
    does not know (registrations made while grove was installed)."""
    reg = getattr(impl, 'register_tree_node_class', None)
    if reg is None:
        return
    known = _known_to(impl) or set()
    for cls in list(grove._REGISTRY.get(NAMESPACE, {})):
        if cls in known or not (callable(getattr(cls, 'tree_flatten', None))
                                and callable(getattr(cls, 'tree_unflatten', None))):
            continue
        try:
            reg(cls)
        except ValueError:  # registered there already
            pass
