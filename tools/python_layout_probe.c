/* Prints the sc_python_layout row (src/preload/python_layout.h) of the Python whose headers
 * it is compiled against: tools/python-layouts builds it once per installed Python. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX < 0x030A0000 || PY_VERSION_HEX >= 0x030E0000
#error "streamcheck reads the frames of CPython 3.10 to 3.13"
#elif PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#else
#include "internal/pycore_frame.h"
#endif

int main(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    int tstate_frame = (int)offsetof(PyThreadState, current_frame), tstate_cframe = -1;
    int cframe_current = -1;
    int code = (int)offsetof(_PyInterpreterFrame, f_executable);
    int instr = (int)offsetof(_PyInterpreterFrame, instr_ptr);
#elif PY_VERSION_HEX >= 0x030B0000
    int tstate_frame = -1, tstate_cframe = (int)offsetof(PyThreadState, cframe);
    int cframe_current = (int)offsetof(_PyCFrame, current_frame);
    int code = (int)offsetof(_PyInterpreterFrame, f_code);
    int instr = (int)offsetof(_PyInterpreterFrame, prev_instr);
#else
    int tstate_frame = (int)offsetof(PyThreadState, frame), tstate_cframe = -1;
    int cframe_current = -1;
    int code = (int)offsetof(PyFrameObject, f_code);
    int instr = (int)offsetof(PyFrameObject, f_lasti);
#endif
#if PY_VERSION_HEX >= 0x030B0000
    int back = (int)offsetof(_PyInterpreterFrame, previous);
    int owner = (int)offsetof(_PyInterpreterFrame, owner);
    int name = (int)offsetof(PyCodeObject, co_qualname);
    int units = (int)offsetof(PyCodeObject, co_code_adaptive);
    int first = (int)offsetof(PyCodeObject, _co_firsttraceable);
#else
    int back = (int)offsetof(PyFrameObject, f_back), owner = -1;
    int name = (int)offsetof(PyCodeObject, co_name), units = -1, first = -1;
#endif
    printf("    {%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d},\n", PY_MINOR_VERSION,
           tstate_frame, tstate_cframe, cframe_current, code, back, instr, owner,
           (int)offsetof(PyCodeObject, co_filename), name, units, first,
           (int)sizeof(PyASCIIObject));
    return 0;
}
