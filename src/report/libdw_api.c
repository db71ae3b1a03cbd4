#include "report/libdw_api.h"

#include "report/dynlib.h"

SC_DYNLIB_DEFINE(sc_libdw, SC_LIBDW_FUNCTIONS, SC_LIBDW_SONAME, SC_LIBDW_ENV, sc_libdw_get,
                 sc_libdw_missing)
