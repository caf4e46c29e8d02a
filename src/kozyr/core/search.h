/* Information-set Monte Carlo tree search over the core (see search.c). */
#ifndef KOZYR_SEARCH_H
#define KOZYR_SEARCH_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

/* 1 if obj is a tuple, else 0 with a TypeError naming ``what`` (module.c):
 * PyArg_ParseTuple must only be handed real tuples. */
int k_require_tuple(PyObject *obj, const char *what);

/* The KState inside a core State object, or NULL with a TypeError (module.c). */
const KState *k_state_of(PyObject *obj);

#define SEARCH_DOC "search(...) -> (action, stats): information-set MCTS for one decision"
PyObject *core_search(PyObject *mod, PyObject *args, PyObject *kwargs);
PyObject *core_sample_deals(PyObject *mod, PyObject *args);
PyObject *core_solve(PyObject *mod, PyObject *args);
PyObject *core_eval_features(PyObject *mod, PyObject *arg);
#endif
