# SPDX-License-Identifier: MIT
"""The engines under one naming: grove, optree, jax.tree_util, torch's two pytree
modules (Engine, load_engine), and keras.tree with either implementation (Keras)."""

import os


def ident(x):
    return x


def first(x, y):
    return x


def nothing(x):
    return None


class Engine:
    """An engine's functions under one naming. rule: 'sorted' or 'insertion'."""

    def __init__(self, name, label, mod, rule, none_is_leaf, unflatten_leaves_first=False,
                 with_path=True):
        self.name, self.label, self.mod = name, label, mod
        self.rule, self.none_is_leaf = rule, none_is_leaf
        self.unflatten_leaves_first = unflatten_leaves_first
        self.with_path = with_path

    def flatten(self, t):
        return self.mod.tree_flatten(t)

    def ops(self, t, o):
        """operation -> (statement, namespace) for timeit; o: an equal tree built apart."""
        m = self.mod
        leaves, spec = m.tree_flatten(t)
        spec2 = m.tree_structure(o)
        base = {'t': t, 'o': o, 'l': leaves, 's': spec, 's2': spec2, 'g': ident, 'g2': first}
        ops = {
            'tree_flatten': ('f(t)', {'f': m.tree_flatten}),
            'tree_leaves': ('f(t)', {'f': m.tree_leaves}),
            'tree_unflatten': ('f(l, s)' if self.unflatten_leaves_first else 'f(s, l)',
                               {'f': m.tree_unflatten}),
            'tree_map': ('f(g, t)', {'f': m.tree_map}),
            'tree_map (two trees)': ('f(g2, t, o)', {'f': m.tree_map}),
            'tree_flatten_with_path': ('f(t)', {'f': m.tree_flatten_with_path})
            if self.with_path else None,
            'spec ==': ('s == s2', {}),
            'hash(spec)': ('hash(s)', {}),
            'tree_structure': ('f(t)', {'f': m.tree_structure}),
            'flatten_up_to': ('u(o)', {'u': spec.flatten_up_to}),
        }
        # optree's API beyond the core (grove and optree only; issue 22)
        optree_api = self.name in ('grove', 'optree')
        ops.update({
            'tree_map_': ('f(g, t)', {'f': m.tree_map_}) if optree_api else None,
            'tree_flatten_with_accessor': ('f(t)', {'f': m.tree_flatten_with_accessor})
            if optree_api else None,
            'spec.accessors()': ('s.accessors()', {}) if optree_api else None,
            'treespec_tuple (of children)': ('f(k)', {'f': m.treespec_tuple,
                                                      'k': spec.children()})
            if optree_api else None,
        })
        return {k: (v[0], {**base, **v[1]}) if v else None for k, v in ops.items()}


def load_engine(name):
    """The engine, or a str saying why it is not there."""
    try:
        if name == 'grove':
            import grove
            return Engine('grove', 'grove', grove, 'sorted', False)
        if name == 'optree':
            import optree
            return Engine('optree', f'optree {optree.__version__}', optree, 'sorted', False)
        if name == 'jax':
            os.environ.setdefault('JAX_PLATFORMS', 'cpu')
            import jax
            import jax.tree_util
            return Engine('jax', f'jax {jax.__version__}', jax.tree_util, 'sorted', False)
        if name == 'torch':
            import torch
            import torch.utils._pytree as tp
            return Engine('torch', f'torch {torch.__version__} _pytree', tp, 'insertion', True,
                          unflatten_leaves_first=True)
        if name == 'torch_cxx':
            import torch
            import torch.utils._cxx_pytree as cp
            cp.tree_flatten([1])  # it needs optree
            # KeyPaths are not supported by _cxx_pytree (it raises NotImplementedError)
            return Engine('torch_cxx', f'torch {torch.__version__} _cxx_pytree', cp, 'insertion',
                          True, unflatten_leaves_first=True, with_path=False)
    except Exception as e:  # noqa: BLE001 - any import failure means: not installed here
        return f'{type(e).__name__}: {e}'
    raise ValueError(name)


class Keras:
    """keras.tree through keras's own API; `impl` switches tree_api's implementation
    between keras's default (optree under the numpy backend) and grove.keras."""

    def __init__(self):
        os.environ.setdefault('KERAS_BACKEND', 'numpy')
        os.environ.setdefault('JAX_PLATFORMS', 'cpu')
        import keras
        from keras import tree as ktree
        from keras.src.tree import tree_api

        import grove.keras
        self.version = keras.__version__
        self.tree, self.api = ktree, tree_api
        self.default = tree_api.tree_impl
        grove.keras.install()
        self.grove = grove.keras
        tree_api.tree_impl = self.default
        try:
            from keras.src.tree import torchtree_impl
            self.dict_to_ordered_dict = torchtree_impl._dict_to_ordered_dict
            self.torch_note = None
        except Exception as e:  # noqa: BLE001 - needs torch importable
            self.dict_to_ordered_dict = None
            self.torch_note = f'{type(e).__name__}: {e}'

    def use(self, which):
        self.api.tree_impl = self.grove if which == 'grove' else self.default

    def ops(self, t, o):
        k = self.tree
        flat = k.flatten(t)
        base = {'t': t, 'o': o, 'flat': flat, 'g': ident, 'g2': first, 'nothing': nothing}
        ops = {
            'flatten': ('f(t)', {'f': k.flatten}),
            'map_structure': ('f(g, t)', {'f': k.map_structure}),
            'map_structure (two)': ('f(g2, t, o)', {'f': k.map_structure}),
            'pack_sequence_as': ('f(t, flat)', {'f': k.pack_sequence_as}),
            'traverse (top-down)': ('f(nothing, t)', {'f': k.traverse}),
            'traverse (bottom-up)': ('f(nothing, t, top_down=False)', {'f': k.traverse}),
            'assert_same_structure': ('f(t, o)', {'f': k.assert_same_structure}),
            'lists_to_tuples': ('f(t)', {'f': k.lists_to_tuples}),
        }
        return {name: (stmt, {**base, **extra}) for name, (stmt, extra) in ops.items()}
