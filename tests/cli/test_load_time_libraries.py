"""What the shipped binaries need at load time: only what every machine that runs CUDA has.
The report tool runs on GPU hosts the wrapper is used on, and those often lack libdw and
libxml2 (the project's own GPU host has neither); a NEEDED entry for one of them makes every
report fail before main(). The preload library is loaded into the user's program: it must
not pull in anything the program did not have."""

import re
import shutil
import subprocess

import pytest

from conftest import build_dir

# Loaded at run time when needed (src/report/dynlib.c), never at start.
OPTIONAL = ("libdw.so", "libxml2.so", "libunwind", "libcupti", "libcuda", "libpython")


def needed(path):
    if not shutil.which("readelf"):
        pytest.skip("needs readelf")
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def sanitized(libs):
    return any(l.startswith(("libasan", "libtsan")) for l in libs)


def test_report_tool_starts_without_optional_libraries(report_bin):
    libs = needed(report_bin)
    assert "libelf.so.1" in libs                    # the check reads the real table
    optional = [l for l in libs if l.startswith(OPTIONAL)]
    if sanitized(libs):     # src/report/meson.build links libdw there, for LeakSanitizer
        optional.remove("libdw.so.1")
    assert not optional, libs


def test_preload_library_needs_only_the_c_runtime():
    lib = build_dir() / "src" / "preload" / "libstreamcheck.so"
    if not lib.exists():
        pytest.skip(f"{lib} not built")
    # a sanitized build links its runtimes (tools/test's ASan and TSan builds)
    libs = [l for l in needed(lib) if not l.startswith(("libasan", "libubsan", "libtsan"))]
    assert "libc.so.6" in libs
    assert set(libs) <= {"libc.so.6", "libgcc_s.so.1", "libm.so.6", "libdl.so.2",
                         "libpthread.so.0", "ld-linux-x86-64.so.2"}, libs
