#include "report/libxml2_api.h"

#include "report/dynlib.h"

SC_DYNLIB_DEFINE(sc_libxml2, SC_LIBXML2_FUNCTIONS, SC_LIBXML2_SONAME, SC_LIBXML2_ENV,
                 sc_libxml2_get, sc_libxml2_missing)
