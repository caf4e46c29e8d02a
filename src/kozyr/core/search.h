/* Information-set Monte Carlo tree search over the core (see search.c). */
#ifndef KOZYR_SEARCH_H
#define KOZYR_SEARCH_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

/* The KState inside a core State object, or NULL with a TypeError (module.c). */
const KState *k_state_of(PyObject *obj);

#define SEARCH_DOC "search(...) -> (action, stats): information-set MCTS for one decision"
PyObject *core_search(PyObject *mod, PyObject *args, PyObject *kwargs);
PyObject *core_sample_deals(PyObject *mod, PyObject *args);
#endif
