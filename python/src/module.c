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
 *               (its wire form), spec_graft.c (TreeSpecs grafted into one),
 *               spec_access.c (accessors)
 *   builds.h    structure -> objects: unflatten.c, flatten_up_to.c,
 *               canonicalize.c, then tree_map.c
 *   walks.h     objects -> structure: keys.c, then flatten.c (walk.h)
 *   state.h     the floor: args.c, then handles.c, typenames.c, then
 *               generations.c, then registry.c
 *   tables.h    plain C: maps.c, dictfill.c */
#include "keras.h"

#include <string.h>

/* The docstrings: a text signature (for inspect.signature) on the first line, then the
 * parameters, the return value, what is raised and an example (run as doctests by
 * tests/python/test_doctests.py). */
PyDoc_STRVAR(
    doc_tree_flatten,
    "tree_flatten($module, /, tree, is_leaf=None, *, none_is_leaf=False, namespace='')\n--\n\n"
    "Flatten a pytree into its leaves and its structure.\n\n"
    "Leaves come in traversal order: sequences by index, dicts by sorted key (in insertion\n"
    "order when the keys do not sort), OrderedDicts by insertion order.\n\n"
    "Args:\n"
    "    tree: the pytree to flatten.\n"
    "    is_leaf: a predicate called on every subtree; where it returns true, the subtree\n"
    "        is a leaf. None (the default): only non-containers are leaves.\n"
    "    none_is_leaf: whether None is a leaf (default: a node without children).\n"
    "    namespace: the registry namespace of custom node types ('' is the global one).\n\n"
    "Returns:\n"
    "    (leaves, treespec): the list of leaves and the TreeSpec of the structure, such\n"
    "    that tree_unflatten(treespec, leaves) rebuilds the tree.\n\n"
    "Raises:\n"
    "    TypeError: is_leaf is not callable, or namespace is not a str.\n"
    "    RecursionError: the tree contains itself (a cycle), naming its path.\n\n"
    "Example:\n"
    "    >>> leaves, spec = grove.tree_flatten({'b': (2, [3, 4]), 'a': 1, 'c': None})\n"
    "    >>> leaves\n"
    "    [1, 2, 3, 4]\n"
    "    >>> spec\n"
    "    PyTreeSpec({'a': *, 'b': (*, [*, *]), 'c': None})\n"
    "    >>> grove.tree_flatten([1, None], none_is_leaf=True)[0]\n"
    "    [1, None]\n");

PyDoc_STRVAR(
    doc_tree_flatten_with_path,
    "tree_flatten_with_path($module, /, tree, is_leaf=None, *, none_is_leaf=False, "
    "namespace='')\n--\n\n"
    "Flatten a pytree into the paths of its leaves, its leaves and its structure.\n\n"
    "Args:\n"
    "    tree: the pytree to flatten.\n"
    "    is_leaf: a predicate making the subtrees it accepts leaves, or None.\n"
    "    none_is_leaf: whether None is a leaf (default: a node without children).\n"
    "    namespace: the registry namespace of custom node types ('' is the global one).\n\n"
    "Returns:\n"
    "    (paths, leaves, treespec): each leaf's path (a tuple of indices, keys and\n"
    "    attribute names), the leaves, and the TreeSpec, all in leaf order.\n\n"
    "Raises:\n"
    "    TypeError: is_leaf is not callable, or namespace is not a str.\n"
    "    RecursionError: the tree contains itself.\n"
    "    ValueError: the paths would be over grove.set_output_limit's bound.\n\n"
    "Example:\n"
    "    >>> paths, leaves, spec = grove.tree_flatten_with_path({'a': 1, 'b': (2, [3])})\n"
    "    >>> paths\n"
    "    [('a',), ('b', 0), ('b', 1, 0)]\n"
    "    >>> leaves\n"
    "    [1, 2, 3]\n");

PyDoc_STRVAR(
    doc_tree_leaves,
    "tree_leaves($module, /, tree, is_leaf=None, *, none_is_leaf=False, namespace='')\n--\n\n"
    "The leaves of a pytree, in traversal order (tree_flatten's first result).\n\n"
    "Args:\n"
    "    tree: the pytree.\n"
    "    is_leaf: a predicate making the subtrees it accepts leaves, or None.\n"
    "    none_is_leaf: whether None is a leaf.\n"
    "    namespace: the registry namespace of custom node types.\n\n"
    "Returns:\n"
    "    The list of leaves.\n\n"
    "Raises:\n"
    "    TypeError: is_leaf is not callable, or namespace is not a str.\n"
    "    RecursionError: the tree contains itself.\n\n"
    "Example:\n"
    "    >>> grove.tree_leaves({'x': [1, 2], 'y': (3, None)})\n"
    "    [1, 2, 3]\n"
    "    >>> grove.tree_leaves([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple))\n"
    "    [1, (2, 3)]\n");

PyDoc_STRVAR(doc_tree_structure,
             "tree_structure($module, /, tree, is_leaf=None, *, none_is_leaf=False, namespace='')\n"
             "--\n\n"
             "The structure of a pytree (tree_flatten's second result).\n\n"
             "Args:\n"
             "    tree: the pytree.\n"
             "    is_leaf: a predicate making the subtrees it accepts leaves, or None.\n"
             "    none_is_leaf: whether None is a leaf.\n"
             "    namespace: the registry namespace of custom node types.\n\n"
             "Returns:\n"
             "    The TreeSpec: interned, so == and hash() take O(1).\n\n"
             "Raises:\n"
             "    TypeError: is_leaf is not callable, or namespace is not a str.\n"
             "    RecursionError: the tree contains itself.\n\n"
             "Example:\n"
             "    >>> spec = grove.tree_structure((1, {'k': [2, 3]}))\n"
             "    >>> spec\n"
             "    PyTreeSpec((*, {'k': [*, *]}))\n"
             "    >>> spec.num_leaves\n"
             "    3\n"
             "    >>> spec == grove.tree_structure(('a', {'k': ['b', 'c']}))\n"
             "    True\n");

PyDoc_STRVAR(doc_tree_unflatten,
             "tree_unflatten($module, /, treespec, leaves)\n--\n\n"
             "Build a pytree of the structure treespec from leaves (tree_flatten's inverse).\n\n"
             "Args:\n"
             "    treespec: the structure, a TreeSpec.\n"
             "    leaves: an iterable of exactly treespec.num_leaves leaves, in leaf order.\n\n"
             "Returns:\n"
             "    A new tree of the structure with the leaves in its leaf positions.\n\n"
             "Raises:\n"
             "    TypeError: treespec is not a TreeSpec, or leaves is not iterable.\n"
             "    ValueError: there are too few or too many leaves.\n\n"
             "Example:\n"
             "    >>> leaves, spec = grove.tree_flatten({'a': 1, 'b': (2, 3)})\n"
             "    >>> grove.tree_unflatten(spec, [x * 10 for x in leaves])\n"
             "    {'a': 10, 'b': (20, 30)}\n"
             "    >>> grove.tree_unflatten(spec, [1])\n"
             "    Traceback (most recent call last):\n"
             "    ...\n"
             "    ValueError: Too few leaves for PyTreeSpec; expected: 3, got: 1.\n");

PyDoc_STRVAR(doc_tree_map,
             "tree_map($module, func, tree, /, *rests, is_leaf=None, none_is_leaf=False, "
             "namespace='')\n--\n\n"
             "Map func over the leaves of tree (and of the trees in rests, leaf by leaf).\n\n"
             "Args:\n"
             "    func: called as func(leaf, *leaves_of_rests) at every leaf of tree.\n"
             "    tree: the pytree whose structure the result has.\n"
             "    *rests: more pytrees, each with tree's structure or one it is a prefix of; func\n"
             "        gets their subtree at each of tree's leaves.\n"
             "    is_leaf: a predicate making the subtrees it accepts leaves, or None.\n"
             "    none_is_leaf: whether None is a leaf (then func is called on it).\n"
             "    namespace: the registry namespace of custom node types.\n\n"
             "Returns:\n"
             "    A new tree of tree's structure holding func's results.\n\n"
             "Raises:\n"
             "    ValueError: a tree in rests does not have tree's structure (the message starts\n"
             "        with the path where they differ).\n"
             "    TypeError: is_leaf is not callable, or namespace is not a str.\n"
             "    Whatever func raises.\n\n"
             "Example:\n"
             "    >>> grove.tree_map(lambda x: x * 2, {'a': 1, 'b': (2, None)})\n"
             "    {'a': 2, 'b': (4, None)}\n"
             "    >>> grove.tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])\n"
             "    [11, (22, 33)]\n");

PyDoc_STRVAR(
    doc_canonicalize,
    "canonicalize($module, /, tree)\n--\n\n"
    "Every dict and defaultdict in tree, at every level, in sorted-key insertion order.\n\n"
    "Args:\n"
    "    tree: the pytree (None a leaf, keras's namespace).\n\n"
    "Returns:\n"
    "    (tree, changed): the tree, rebuilt where a dict was out of order; the very same\n"
    "    object, with changed False, when nothing was.\n\n"
    "Raises:\n"
    "    RecursionError: the tree contains itself.\n\n"
    "Example:\n"
    "    >>> grove.canonicalize({'b': 1, 'a': {'d': 1, 'c': 2}})\n"
    "    ({'a': {'c': 2, 'd': 1}, 'b': 1}, True)\n"
    "    >>> t = {'a': 1}\n"
    "    >>> grove.canonicalize(t)[0] is t\n"
    "    True\n");

PyDoc_STRVAR(doc_memory_stats,
             "memory_stats($module, /)\n--\n\n"
             "What the interned structures use now.\n\n"
             "Returns:\n"
             "    A dict of counters: 'generations' (live), 'limit' and 'bytes_used' (bytes),\n"
             "    'nodes', the current generation's 'current_*' counts and the caches' sizes.\n\n"
             "Example:\n"
             "    >>> stats = grove.memory_stats()\n"
             "    >>> stats['limit'] > 0 and stats['generations'] >= 1\n"
             "    True\n");

PyDoc_STRVAR(doc_set_memory_limit,
             "set_memory_limit($module, limit, /)\n--\n\n"
             "Set the memory budget of a generation of structures and start a new one.\n\n"
             "Args:\n"
             "    limit: the budget in bytes (an int > 0).\n\n"
             "Returns:\n"
             "    The previous limit.\n\n"
             "Raises:\n"
             "    TypeError: limit is not an int.\n"
             "    ValueError: limit is under 65536 bytes.\n\n"
             "Example:\n"
             "    >>> old = grove.set_memory_limit(1 << 30)\n"
             "    >>> grove.set_memory_limit(old)\n"
             "    1073741824\n");

PyDoc_STRVAR(doc_set_output_limit,
             "set_output_limit($module, limit, /)\n--\n\n"
             "Bound what repr() and TreeSpec.paths() write out (in characters or items).\n\n"
             "Args:\n"
             "    limit: the bound (an int >= 0; 0: none).\n\n"
             "Returns:\n"
             "    The previous limit.\n\n"
             "Raises:\n"
             "    TypeError: limit is not an int.\n"
             "    ValueError: limit is negative.\n\n"
             "Example:\n"
             "    >>> old = grove.set_output_limit(0)\n"
             "    >>> grove.set_output_limit(old)\n"
             "    0\n");

static PyMethodDef module_methods[] = {
    {"tree_flatten", (PyCFunction)(void (*)(void))py_tree_flatten, METH_FASTCALL | METH_KEYWORDS,
     doc_tree_flatten},
    {"tree_flatten_with_path", (PyCFunction)(void (*)(void))py_tree_flatten_with_path,
     METH_FASTCALL | METH_KEYWORDS, doc_tree_flatten_with_path},
    {"tree_leaves", (PyCFunction)(void (*)(void))py_tree_leaves, METH_FASTCALL | METH_KEYWORDS,
     doc_tree_leaves},
    {"tree_structure", (PyCFunction)(void (*)(void))py_tree_structure,
     METH_FASTCALL | METH_KEYWORDS, doc_tree_structure},
    {"tree_unflatten", (PyCFunction)(void (*)(void))py_tree_unflatten,
     METH_FASTCALL | METH_KEYWORDS, doc_tree_unflatten},
    {"tree_map", (PyCFunction)(void (*)(void))py_tree_map, METH_FASTCALL | METH_KEYWORDS,
     doc_tree_map},
    {"canonicalize", (PyCFunction)(void (*)(void))py_canonicalize, METH_FASTCALL | METH_KEYWORDS,
     doc_canonicalize},
    {"_is_leaf", (PyCFunction)(void (*)(void))py_is_leaf, METH_FASTCALL | METH_KEYWORDS,
     "_is_leaf(tree, is_leaf=None, *, none_is_leaf=False, namespace='') -> kind"},
    {"memory_stats", py_memory_stats, METH_NOARGS, doc_memory_stats},
    {"set_memory_limit", py_set_memory_limit, METH_O, doc_set_memory_limit},
    {"set_output_limit", py_set_output_limit, METH_O, doc_set_output_limit},
    {"_setup", py_setup, METH_VARARGS, NULL},
    {"_registry_changed", py_registry_changed, METH_NOARGS, NULL},
    {"_handle_object", py_handle_object, METH_VARARGS, NULL},
    {"_object_named", py_object_named, METH_O, NULL},
    {"_name_for", py_name_for, METH_O, NULL},
    {"_spec_refs", py_spec_refs, METH_O, NULL},
    {"_spec_from_wire", py_spec_from_wire, METH_VARARGS, NULL},
    {"_graft_seq", (PyCFunction)(void (*)(void))py_graft_seq, METH_FASTCALL, NULL},
    {"_accessors", (PyCFunction)(void (*)(void))py_accessors, METH_FASTCALL, NULL},
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
  st->s_new = PyUnicode_InternFromString("__new__");
  st->tuple_new = st->s_new ? PyObject_GetAttr((PyObject *)&PyTuple_Type, st->s_new) : NULL;
  if (!st->nsreg || !st->names || !st->objnames || !st->namerefs || !st->empty_ns ||
      !st->s_fields || !st->s_make || !st->s_asdict || !st->s_default_factory || !st->s_maxlen ||
      !st->s_n_fields || !st->s_n_sequence_fields || !st->s_n_unnamed_fields || !st->s_empty ||
      !st->tuple_new)
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
  for (size_t i = 0; i < sizeof st->pathmemo / sizeof *st->pathmemo; i++)
    Py_VISIT(st->pathmemo[i].paths);
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
  Py_CLEAR(st->tuple_new);
  Py_CLEAR(st->s_new);
  memset(st->ntplain, 0, sizeof st->ntplain);
  for (size_t i = 0; i < sizeof st->pathmemo / sizeof *st->pathmemo; i++)
    Py_CLEAR(st->pathmemo[i].paths);
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
