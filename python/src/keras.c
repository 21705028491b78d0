/* SPDX-License-Identifier: MIT */
/* keras.c -- the C side of grove.keras: keras.tree's functions with the
 * semantics of keras's optree implementation (namespace 'keras', None a leaf
 * unless map_structure says otherwise, dicts by sorted key, OrderedDicts by
 * insertion order, registered classes through their registration).
 *
 *   keras_is_nested, keras_flatten, keras_flatten_with_path,
 *   keras_map_structure, keras_map_structure_up_to
 *                                on grove's walk (flatten.c) and builder
 *                                (unflatten.c): keras_flat.c
 *   keras_map_structure of one structure, keras_map_shape_structure,
 *   keras_pack_sequence_as       tapes: keras_tape.c
 *   keras_assert_same_structure  a walk over two trees at once: keras_assert.c
 *   keras_traverse, keras_lists_to_tuples
 *                                a walk that calls a function on every subtree
 *                                and rebuilds: keras_traverse.c
 *   the walk these share         keras_walk.c (keras_walk.h)
 *   keras_torch_plain            the scan grove.keras does on keras's torch
 *                                backend: keras_torch.c
 *
 * This file binds them: the method table and the keras state's set-up.
 *
 * Explicit stacks only. Every object a walk looks at is held by one of its
 * stacks (a strong reference), so user code (a mapped function, a custom
 * flatten function, a key's __eq__) may change or drop anything. */
#include "keras_walk.h"

/* ---------------------------------------------------------------------------
 * Module glue
 * ------------------------------------------------------------------------- */

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef keras_methods[] = {
    {"keras_is_nested", py_is_nested, METH_O,
     "keras_is_nested(structure) -> whether structure is a node in keras's namespace"},
    {"keras_flatten", py_flatten, METH_O,
     "keras_flatten(structure) -> the leaves (None a leaf, keras's namespace)"},
    {"keras_flatten_with_path", py_flatten_with_path, METH_O,
     "keras_flatten_with_path(structure) -> [(path, leaf), ...]"},
    {"keras_pack_sequence_as", FASTKW(py_pack_sequence_as),
     "keras_pack_sequence_as(structure, flat_sequence) -> structure rebuilt from the leaves"},
    {"keras_map_structure", FASTKW(py_map_structure),
     "keras_map_structure(func, *structures, none_is_leaf=True)"},
    {"keras_map_structure_up_to", (PyCFunction)(void (*)(void))py_map_structure_up_to,
     METH_FASTCALL, "keras_map_structure_up_to(shallow_structure, func, *structures)"},
    {"keras_map_shape_structure", FASTKW(py_map_shape_structure),
     "keras_map_shape_structure(func, structure): shapes (lists or tuples of ints and None) "
     "are leaves"},
    {"keras_assert_same_structure", FASTKW(py_assert_same_structure),
     "keras_assert_same_structure(a, b): ValueError unless b has a's structure"},
    {"keras_traverse", FASTKW(py_traverse), "keras_traverse(func, structure, top_down=True)"},
    {"keras_lists_to_tuples", py_lists_to_tuples, METH_O,
     "keras_lists_to_tuples(structure) -> every list (bottom-up) made a tuple"},
    {"keras_torch_plain", (PyCFunction)(void (*)(void))py_torch_plain, METH_FASTCALL,
     "keras_torch_plain(supported, mode, first, *rest) -> whether grove's keras functions "
     "return what keras's torch implementation returns on these trees (keras_torch.c)"},
    {"keras_torch_is_nested", (PyCFunction)(void (*)(void))py_torch_is_nested, METH_FASTCALL,
     "keras_torch_is_nested(supported, structure) -> True, False or None (ask keras)"},
    {NULL, NULL, 0, NULL}};

int keras_init(PyObject *m, gstate *st) {
  kstate *ks = PyMem_Calloc(1, sizeof *ks);
  if (!ks) {
    PyErr_NoMemory();
    return -1;
  }
  st->keras = ks;
  ks->ns = PyUnicode_InternFromString("keras");
  ks->s_name = PyUnicode_InternFromString("__name__");
  ks->s_map_none = PyUnicode_InternFromString("MAP_TO_NONE");
  ks->s_paths = PyUnicode_InternFromString("paths");
  ks->s_none_leaf = PyUnicode_InternFromString("none_is_leaf");
  ks->s_top_down = PyUnicode_InternFromString("top_down");
  if (!ks->ns || !ks->s_name || !ks->s_map_none || !ks->s_paths || !ks->s_none_leaf ||
      !ks->s_top_down)
    return -1;
  return PyModule_AddFunctions(m, keras_methods);
}

void keras_clear(gstate *st) {
  kstate *ks = st->keras;
  if (!ks) return;
  st->keras = NULL;
  Py_CLEAR(ks->ns);
  Py_CLEAR(ks->s_name);
  Py_CLEAR(ks->s_map_none);
  Py_CLEAR(ks->s_paths);
  Py_CLEAR(ks->s_none_leaf);
  Py_CLEAR(ks->s_top_down);
  PyMem_Free(ks);
}
