/* SPDX-License-Identifier: MIT */
/* module.c -- grove._grove's module definition: the method table binding
 * the module functions of the layers below, the module's init, traverse and
 * clear.
 *
 * The extension in layers, top first. A file calls only the files of its own
 * layer listed before it ("then" orders them; a comma: neither calls the
 * other) and the layers below; each layer's header includes only the one
 * below, and lists the layer's files:
 *
 *   module.c    this file
 *   keras.h     grove.keras: keras_walk.c (keras_walk.h), then
 *               keras_traverse.c, keras_assert.c, keras_tape.c, then
 *               keras_flat.c, then keras.c (its method table and state)
 *   treespec.h  the TreeSpec: spec_output.c (repr, paths, the output
 *               limit), spec_compare.c (== and hash() of structures
 *               holding handles), then treespec.c (the type), spec_wire.c
 *               (its wire form)
 *   builds.h    structure -> objects: unflatten.c, flatten_up_to.c,
 *               canonicalize.c, then tree_map.c
 *   walks.h     objects -> structure: keys.c, then flatten.c (walk.h)
 *   state.h     the floor: args.c, then handles.c, typenames.c, then
 *               generations.c, then registry.c
 *   tables.h    plain C: maps.c, dictfill.c */
#include "keras.h"

#include <string.h>

static PyMethodDef module_methods[] = {
    {"tree_flatten", (PyCFunction)(void (*)(void))py_tree_flatten, METH_FASTCALL | METH_KEYWORDS,
     "tree_flatten(tree, is_leaf=None, *, none_is_leaf=False, namespace='') -> (leaves, spec)"},
    {"tree_leaves", (PyCFunction)(void (*)(void))py_tree_leaves, METH_FASTCALL | METH_KEYWORDS,
     "tree_leaves(tree, is_leaf=None, *, none_is_leaf=False, namespace='') -> leaves"},
    {"tree_structure", (PyCFunction)(void (*)(void))py_tree_structure,
     METH_FASTCALL | METH_KEYWORDS,
     "tree_structure(tree, is_leaf=None, *, none_is_leaf=False, namespace='') -> spec"},
    {"tree_unflatten", (PyCFunction)(void (*)(void))py_tree_unflatten,
     METH_FASTCALL | METH_KEYWORDS, "tree_unflatten(treespec, leaves) -> tree"},
    {"tree_map", (PyCFunction)(void (*)(void))py_tree_map, METH_FASTCALL | METH_KEYWORDS,
     "tree_map(func, tree, *rests, is_leaf=None, none_is_leaf=False, namespace='')"},
    {"canonicalize", (PyCFunction)(void (*)(void))py_canonicalize, METH_FASTCALL | METH_KEYWORDS,
     "canonicalize(tree) -> (tree, changed)"},
    {"_is_leaf", (PyCFunction)(void (*)(void))py_is_leaf, METH_FASTCALL | METH_KEYWORDS,
     "_is_leaf(tree, is_leaf=None, *, none_is_leaf=False, namespace='') -> kind"},
    {"memory_stats", py_memory_stats, METH_NOARGS, "memory_stats() -> dict"},
    {"set_memory_limit", py_set_memory_limit, METH_O,
     "set_memory_limit(bytes) -> the previous limit; starts a new generation"},
    {"set_output_limit", py_set_output_limit, METH_O,
     "set_output_limit(n) -> the previous limit (0: none); repr() and paths() refuse output "
     "larger than n"},
    {"_setup", py_setup, METH_VARARGS, NULL},
    {"_registry_changed", py_registry_changed, METH_NOARGS, NULL},
    {"_handle_object", py_handle_object, METH_VARARGS, NULL},
    {"_object_named", py_object_named, METH_O, NULL},
    {"_name_for", py_name_for, METH_O, NULL},
    {"_spec_refs", py_spec_refs, METH_O, NULL},
    {"_spec_from_wire", py_spec_from_wire, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyTypeObject *import_type(const char *mod, const char *name) {
  PyObject *m = PyImport_ImportModule(mod);
  if (!m) return NULL;
  PyObject *t = PyObject_GetAttrString(m, name);
  Py_DECREF(m);
  if (t && !PyType_Check(t)) {
    Py_DECREF(t);
    PyErr_Format(PyExc_TypeError, "%s.%s is not a type", mod, name);
    return NULL;
  }
  return (PyTypeObject *)t;
}

static int module_exec(PyObject *m) {
  gstate *st = state_of_module(m);
  memset(st, 0, sizeof *st);
  st->limit = DEFAULT_LIMIT;
  st->out_limit = DEFAULT_OUTPUT_LIMIT;
  st->recycle_min = RECYCLE_MIN;
  st->gen_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &gen_type_spec, NULL);
  st->spec_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &spec_type_spec, NULL);
  if (!st->gen_type || !st->spec_type) return -1;
  if (PyModule_AddObjectRef(m, "TreeSpec", (PyObject *)st->spec_type) < 0) return -1;
  st->nsreg = PyDict_New();
  st->names = PyDict_New();
  st->objnames = PyDict_New();
  st->namerefs = PyDict_New();
  st->empty_ns = PyUnicode_FromString("");
  st->s_fields = PyUnicode_InternFromString("_fields");
  st->s_make = PyUnicode_InternFromString("_make");
  st->s_asdict = PyUnicode_InternFromString("_asdict");
  st->s_default_factory = PyUnicode_InternFromString("default_factory");
  st->s_maxlen = PyUnicode_InternFromString("maxlen");
  st->s_n_fields = PyUnicode_InternFromString("n_fields");
  st->s_n_sequence_fields = PyUnicode_InternFromString("n_sequence_fields");
  st->s_n_unnamed_fields = PyUnicode_InternFromString("n_unnamed_fields");
  st->s_empty = PyTuple_New(0);
  if (!st->nsreg || !st->names || !st->objnames || !st->namerefs || !st->empty_ns ||
      !st->s_fields || !st->s_make || !st->s_asdict || !st->s_default_factory || !st->s_maxlen ||
      !st->s_n_fields || !st->s_n_sequence_fields || !st->s_n_unnamed_fields || !st->s_empty)
    return -1;
  st->odict_t = import_type("collections", "OrderedDict");
  st->ddict_t = import_type("collections", "defaultdict");
  st->deque_t = import_type("collections", "deque");
  if (!st->odict_t || !st->ddict_t || !st->deque_t) return -1;
  return keras_init(m, st);
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
  gstate *st = state_of_module(m);
  if (!st) return 0;
  Py_VISIT(st->spec_type);
  Py_VISIT(st->gen_type);
  Py_VISIT(st->nsreg);
  Py_VISIT(st->names);
  Py_VISIT(st->key_order);
  Py_VISIT(st->ins_ordered);
  Py_VISIT(st->mangle);
  return 0;
}

static int module_clear(PyObject *m) {
  gstate *st = state_of_module(m);
  if (!st) return 0;
  Py_CLEAR(st->cur);
  Py_CLEAR(st->nsreg);
  tm_clear(&st->typecache);
  pm_clear(&st->regs);
  Py_CLEAR(st->names);
  Py_CLEAR(st->objnames);
  Py_CLEAR(st->namerefs);
  Py_CLEAR(st->key_order);
  Py_CLEAR(st->ins_ordered);
  Py_CLEAR(st->mangle);
  Py_CLEAR(st->empty_ns);
  Py_CLEAR(st->s_fields);
  Py_CLEAR(st->s_make);
  Py_CLEAR(st->s_asdict);
  Py_CLEAR(st->s_default_factory);
  Py_CLEAR(st->s_maxlen);
  Py_CLEAR(st->s_n_fields);
  Py_CLEAR(st->s_n_sequence_fields);
  Py_CLEAR(st->s_n_unnamed_fields);
  Py_CLEAR(st->s_empty);
  Py_CLEAR(st->odict_t);
  Py_CLEAR(st->ddict_t);
  Py_CLEAR(st->deque_t);
  Py_CLEAR(st->spec_type);
  Py_CLEAR(st->gen_type);
  keras_clear(st);
  PyMem_Free(st->frcache);
  st->frcache = NULL;
  st->frcache_cap = 0;
  return 0;
}

static void module_free(void *m) {
  module_clear((PyObject *)m);
}

static PyModuleDef_Slot module_slots[] = {{Py_mod_exec, (void *)module_exec}, {0, NULL}};

static struct PyModuleDef grove_module = {
    PyModuleDef_HEAD_INIT, "grove._grove", "grove's C extension (see the grove package)",
    sizeof(gstate),        module_methods, module_slots,
    module_traverse,       module_clear,   module_free};

PyMODINIT_FUNC PyInit__grove(void);
PyMODINIT_FUNC PyInit__grove(void) {
  return PyModuleDef_Init(&grove_module);
}
