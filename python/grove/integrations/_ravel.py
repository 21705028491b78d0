# SPDX-License-Identifier: MIT
"""tree_ravel on one array library: the leaves raveled and joined into one 1-D array of their
promoted dtype, and the function that splits such an array back into the tree."""

import itertools


class Raveler:
    """The operations tree_ravel needs from an array library (numpy, jax.numpy, torch)."""

    def __init__(self, *, empty, dtype_of, promote, size, shape, ravel, cast, concat, split,
                 reshape, noun='array', is_array=None, leaves_error=None):
        self.empty, self.dtype_of, self.promote = empty, dtype_of, promote
        self.size, self.shape, self.ravel, self.cast = size, shape, ravel, cast
        self.concat, self.split, self.reshape = concat, split, reshape
        # what the messages call an array; is_array: what unravel takes (None: anything the
        # library's shape() reads); leaves_error: the message when a leaf is not one
        self.noun, self.is_array, self.leaves_error = noun, is_array, leaves_error

    def tree_ravel(self, tree, is_leaf, none_is_leaf, namespace):
        from grove import tree_flatten
        leaves, spec = tree_flatten(tree, is_leaf, none_is_leaf=none_is_leaf,
                                    namespace=namespace)
        flat, unravel_leaves = self._ravel_leaves(leaves)
        return flat, lambda array: spec.unflatten(unravel_leaves(array))

    def _check(self, array, length):
        if self.is_array is not None and not self.is_array(array):
            raise ValueError(f'Expected a {self.noun} to unravel, got {type(array)!r}.')
        if tuple(self.shape(array)) != (length,):
            raise ValueError(f'The unravel function expected {self._a()} of shape {(length,)}, '
                             f'got shape {tuple(self.shape(array))}.')

    def _a(self):
        return f'an {self.noun}' if self.noun[0] in 'aeiou' else f'a {self.noun}'

    def _ravel_leaves(self, leaves):
        if not leaves:
            def unravel_empty(array):
                self._check(array, 0)
                return []
            return self.empty(), unravel_empty
        if self.is_array is not None and not all(self.is_array(x) for x in leaves):
            raise ValueError(self.leaves_error)
        dtypes = [self.dtype_of(x) for x in leaves]
        target = self.promote(dtypes)
        shapes = [tuple(self.shape(x)) for x in leaves]
        ends = list(itertools.accumulate(self.size(x) for x in leaves))
        same = all(d == target for d in dtypes)
        flat = self.concat([self.ravel(x) if same else self.cast(self.ravel(x), target)
                            for x in leaves])

        def unravel(array):
            self._check(array, ends[-1])
            if not same and self.dtype_of(array) != target:
                raise ValueError(f'The unravel function expected {self._a()} of dtype {target}, '
                                 f'got dtype {self.dtype_of(array)}.')
            chunks = self.split(array, ends)
            out = [self.reshape(c, s) for c, s in zip(chunks, shapes)]
            return out if same else [self.cast(c, d) for c, d in zip(out, dtypes)]

        return flat, unravel
