#include "search.h"
#include "core.h"
PyObject *core_search(PyObject *mod, PyObject *args, PyObject *kwargs) {
    PyErr_SetString(PyExc_NotImplementedError, "search: in progress");
    return NULL;
}
