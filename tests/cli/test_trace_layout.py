"""trace_layout.py reads the trace format's structs and constants from trace_format.h for
every Python test: checked here against the compiler, which reads the same header. A C
program made from what the parser found prints each field's offset and size and each
constant's value; they must be what the parser says (so a field it skipped, a type it
misread or a constant it mis-evaluated fails here, not as a puzzling test elsewhere)."""
import pathlib
import shutil
import struct
import subprocess

import pytest

from trace_layout import CONSTANTS, STRUCTS, layout

ROOT = pathlib.Path(__file__).resolve().parents[2]


def c_source():
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <stdint.h>",
             '#include "streamcheck/trace_format.h"', "int main(void) {"]
    for name, fields in STRUCTS.items():
        lines.append(f'printf("size {name} %zu\\n", sizeof({name}));')
        for field, code, member in fields:
            lines.append(f'printf("field {name} {field} %zu %zu\\n", '
                         f'offsetof({name}, {member}), sizeof((({name} *)0)->{member}));')
    for cname in CONSTANTS:
        lines.append(f'printf("const {cname} %llu\\n", (unsigned long long)({cname}));')
    lines.append("return 0; }")
    return "\n".join(lines)


def test_the_parser_reads_the_header_as_the_compiler_does(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    src = tmp_path / "layout.c"
    src.write_text(c_source())
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=gnu11", "-I", ROOT / "include", "-o", exe, src], check=True)
    seen = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split("\n")
    sizes = {l.split()[1]: int(l.split()[2]) for l in seen if l.startswith("size ")}
    fields = {(l.split()[1], l.split()[2]): (int(l.split()[3]), int(l.split()[4]))
              for l in seen if l.startswith("field ")}
    consts = {l.split()[1]: int(l.split()[2]) for l in seen if l.startswith("const ")}
    for name in STRUCTS:
        st, names = layout(name)
        assert st.size == sizes[name], (name, st.format, sizes[name])
        offset = 0
        for field, code, _ in STRUCTS[name]:
            size = struct.calcsize("<" + code)
            assert fields[(name, field)] == (offset, size), (name, field)
            offset += size
    assert consts == CONSTANTS
    assert len(STRUCTS) >= 19 and "sc_rec_api" in STRUCTS and "SC_REC_UNIFIED" in CONSTANTS
