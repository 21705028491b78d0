/* SPDX-License-Identifier: MIT */
/* keras.h -- grove.keras's C side: keras.tree's functions with keras's
 * optree semantics (the layers: module.c). On treespec.h.
 *
 *   keras_walk.c      the walk the others share (keras_walk.h, which only
 *                     the keras files include)
 *   keras_traverse.c  traverse, lists_to_tuples
 *   keras_assert.c    assert_same_structure
 *   keras_tape.c      tapes: map_structure of one structure,
 *                     map_shape_structure, pack_sequence_as
 *   keras_flat.c      is_nested, flatten, flatten_with_path, map_structure,
 *                     map_structure_up_to on grove's walk and builder
 *   keras_torch.c     keras_torch_plain: when grove may answer for keras's
 *                     torch implementation (python/grove/_keras_torch.py)
 *   keras.c           the keras_* method table and grove.keras's state */
#ifndef GROVE_PY_KERAS_H
#define GROVE_PY_KERAS_H

#include "treespec.h"

/* ---- keras.c ---- */
/* Adds the keras_* functions to the module; its state goes in st->keras. */
int keras_init(PyObject *m, gstate *st);
void keras_clear(gstate *st);

#endif
