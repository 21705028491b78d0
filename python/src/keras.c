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

/* Docstrings: a text signature first (inspect.signature); the name is the extension's,
 * grove.keras binds it under keras's name. Examples run as doctests
 * (tests/python/test_doctests.py). */
PyDoc_STRVAR(doc_is_nested,
             "keras_is_nested($module, structure, /)\n--\n\n"
             "keras.tree.is_nested: whether structure is a node (not a leaf) in keras's\n"
             "namespace.\n\n"
             "Args:\n"
             "    structure: any object.\n\n"
             "Returns:\n"
             "    A bool.\n\n"
             "Example:\n"
             "    >>> grove.keras.is_nested([1]), grove.keras.is_nested(1)\n"
             "    (True, False)\n");

PyDoc_STRVAR(doc_flatten,
             "keras_flatten($module, structure, /)\n--\n\n"
             "keras.tree.flatten: the leaves of structure (None is a leaf; dicts by sorted\n"
             "key).\n\n"
             "Args:\n"
             "    structure: a nested structure.\n\n"
             "Returns:\n"
             "    The list of leaves.\n\n"
             "Raises:\n"
             "    RecursionError: the structure contains itself.\n\n"
             "Example:\n"
             "    >>> grove.keras.flatten({'b': [1, 2], 'a': (3, None)})\n"
             "    [3, None, 1, 2]\n");

PyDoc_STRVAR(doc_flatten_with_path,
             "keras_flatten_with_path($module, structure, /)\n--\n\n"
             "keras.tree.flatten_with_path: every leaf with its path.\n\n"
             "Args:\n"
             "    structure: a nested structure.\n\n"
             "Returns:\n"
             "    A list of (path, leaf) pairs, path a tuple of keys and indices.\n\n"
             "Raises:\n"
             "    RecursionError: the structure contains itself.\n\n"
             "Example:\n"
             "    >>> grove.keras.flatten_with_path({'b': [1], 'a': 2})\n"
             "    [(('a',), 2), (('b', 0), 1)]\n");

PyDoc_STRVAR(doc_pack_sequence_as,
             "keras_pack_sequence_as($module, /, structure, flat_sequence)\n--\n\n"
             "keras.tree.pack_sequence_as: structure rebuilt with flat_sequence's items as\n"
             "its leaves (in flatten's order).\n\n"
             "Args:\n"
             "    structure: the nested structure to follow.\n"
             "    flat_sequence: a sequence of exactly as many leaves as structure has.\n\n"
             "Returns:\n"
             "    A new structure.\n\n"
             "Raises:\n"
             "    ValueError: the number of leaves differs.\n"
             "    TypeError: flat_sequence is not a sequence.\n\n"
             "Example:\n"
             "    >>> grove.keras.pack_sequence_as({'b': [0, 0], 'a': 0}, [1, 2, 3])\n"
             "    {'b': [2, 3], 'a': 1}\n");

PyDoc_STRVAR(doc_map_structure,
             "keras_map_structure($module, func, /, *structures, none_is_leaf=True)\n--\n\n"
             "keras.tree.map_structure: func applied leaf by leaf to structures.\n\n"
             "Args:\n"
             "    func: called with one leaf of each structure.\n"
             "    *structures: one or more structures of the same structure.\n"
             "    none_is_leaf: whether None is a leaf passed to func (default True).\n\n"
             "Returns:\n"
             "    A new structure like the first, holding func's results.\n\n"
             "Raises:\n"
             "    ValueError: the structures differ, or none is given.\n"
             "    TypeError: func is not callable.\n\n"
             "Example:\n"
             "    >>> grove.keras.map_structure(lambda x, y: x + y, [1, 2], [10, 20])\n"
             "    [11, 22]\n"
             "    >>> grove.keras.map_structure(lambda x: 0, [1, None], none_is_leaf=False)\n"
             "    [0, None]\n");

PyDoc_STRVAR(doc_map_structure_up_to,
             "keras_map_structure_up_to($module, shallow_structure, func, /, *structures)\n"
             "--\n\n"
             "keras.tree.map_structure_up_to: func applied to the subtrees of structures at\n"
             "shallow_structure's leaves.\n\n"
             "Args:\n"
             "    shallow_structure: a prefix of every structure.\n"
             "    func: called with one subtree of each structure.\n"
             "    *structures: the structures.\n\n"
             "Returns:\n"
             "    A structure like shallow_structure, holding func's results.\n\n"
             "Raises:\n"
             "    ValueError: a structure does not have shallow_structure as a prefix.\n\n"
             "Example:\n"
             "    >>> grove.keras.map_structure_up_to([0, 0], len, [[1, 2], (3,)])\n"
             "    [2, 1]\n");

PyDoc_STRVAR(doc_map_shape_structure,
             "keras_map_shape_structure($module, /, func, structure)\n--\n\n"
             "keras.tree.map_shape_structure: map_structure where shapes (lists or tuples of\n"
             "ints and None) are leaves.\n\n"
             "Args:\n"
             "    func: called on every shape and other leaf.\n"
             "    structure: a nested structure of shapes.\n\n"
             "Returns:\n"
             "    A new structure holding func's results.\n\n"
             "Example:\n"
             "    >>> grove.keras.map_shape_structure(tuple, {'x': [2, 3], 'y': (4, None)})\n"
             "    {'x': (2, 3), 'y': (4, None)}\n");

PyDoc_STRVAR(doc_assert_same_structure,
             "keras_assert_same_structure($module, /, a, b)\n--\n\n"
             "keras.tree.assert_same_structure: raise unless b has a's structure.\n\n"
             "Args:\n"
             "    a: a nested structure.\n"
             "    b: another.\n\n"
             "Returns:\n"
             "    None.\n\n"
             "Raises:\n"
             "    ValueError: they differ (the message starts with the path).\n\n"
             "Example:\n"
             "    >>> grove.keras.assert_same_structure([1, 2], [3, 4])\n"
             "    >>> grove.keras.assert_same_structure([1, 2], [1, [2]])\n"
             "    Traceback (most recent call last):\n"
             "    ...\n"
             "    ValueError: at (1,): Structures don't have the same nested structure: `a` has "
             "a leaf where `b` has a nested list.\n");

PyDoc_STRVAR(doc_traverse,
             "keras_traverse($module, /, func, structure, top_down=True)\n--\n\n"
             "keras.tree.traverse: func called on every node and leaf; where it returns\n"
             "something other than None, that replaces the subtree.\n\n"
             "Args:\n"
             "    func: called on each subtree.\n"
             "    structure: a nested structure.\n"
             "    top_down: visit parents before their children (True) or after (False; func\n"
             "        then sees the children already replaced).\n\n"
             "Returns:\n"
             "    The new structure.\n\n"
             "Example:\n"
             "    >>> double = lambda x: x * 2 if isinstance(x, int) else None\n"
             "    >>> grove.keras.traverse(double, [1, (2,)], top_down=False)\n"
             "    [2, (4,)]\n");

PyDoc_STRVAR(doc_lists_to_tuples,
             "keras_lists_to_tuples($module, structure, /)\n--\n\n"
             "keras.tree.lists_to_tuples: every list, at every level, made a tuple.\n\n"
             "Args:\n"
             "    structure: a nested structure.\n\n"
             "Returns:\n"
             "    The new structure.\n\n"
             "Example:\n"
             "    >>> grove.keras.lists_to_tuples([1, [2, {'a': [3]}]])\n"
             "    (1, (2, {'a': (3,)}))\n");

static PyMethodDef keras_methods[] = {
    {"keras_is_nested", py_is_nested, METH_O, doc_is_nested},
    {"keras_flatten", py_flatten, METH_O, doc_flatten},
    {"keras_flatten_with_path", py_flatten_with_path, METH_O, doc_flatten_with_path},
    {"keras_pack_sequence_as", FASTKW(py_pack_sequence_as), doc_pack_sequence_as},
    {"keras_map_structure", FASTKW(py_map_structure), doc_map_structure},
    {"keras_map_structure_up_to", (PyCFunction)(void (*)(void))py_map_structure_up_to,
     METH_FASTCALL, doc_map_structure_up_to},
    {"keras_map_shape_structure", FASTKW(py_map_shape_structure), doc_map_shape_structure},
    {"keras_assert_same_structure", FASTKW(py_assert_same_structure), doc_assert_same_structure},
    {"keras_traverse", FASTKW(py_traverse), doc_traverse},
    {"keras_lists_to_tuples", py_lists_to_tuples, METH_O, doc_lists_to_tuples},
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
