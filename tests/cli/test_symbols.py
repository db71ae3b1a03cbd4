"""Symbols resolved in the report tool with libdw, stored beside the trace (TRACE.syms) and
used when the binary is gone; the static CUDA runtime skipped by its address range; the count
of frames that stayed unresolved, by reason. A small program built with -g gives the frames:
a static function that calls an always-inline function that calls the "runtime"."""

import json
import os
import re
import shutil
import subprocess

import pytest

from sctrace import CALL_MEMCPY_ASYNC, LEGACY, MEM_PAGEABLE, Trace

APP_C = """\
void cudaLaunchFake(void);
static inline __attribute__((always_inline)) void enqueue(int n)
{
    if (n > 0)
        cudaLaunchFake();                                   /* MARK enqueue */
}
static __attribute__((noinline)) void launch_site(int n)
{
    enqueue(n);                                             /* MARK launch_site */
}
int main(int argc, char **argv)
{
    (void)argv;
    launch_site(argc);                                      /* MARK main */
    return 0;
}
"""

# The "CUDA runtime", linked in without debug info: a block of the static runtime's names.
RUNTIME_C = "\n".join(
    ["void cudaLaunchFake(void) {}"] +
    [f"__attribute__((noinline)) void libcudart_static_{i:040x}(void) {{}}" for i in range(20)] +
    ["void cudaStreamCreateFake(void) { libcudart_static_%040x(); }" % 7]) + "\n"

BIAS = 0x555555554000


def line_of(mark):
    return next(i + 1 for i, l in enumerate(APP_C.splitlines()) if f"MARK {mark}" in l)


def need(*tools):
    for t in tools:
        if not shutil.which(t):
            pytest.skip(f"needs {t}")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    need("cc", "nm", "objdump", "readelf")
    d = tmp_path_factory.mktemp("symbols")
    (d / "app.c").write_text(APP_C)
    (d / "runtime.c").write_text(RUNTIME_C)
    subprocess.run(["cc", "-O0", "-c", "-o", str(d / "runtime.o"), str(d / "runtime.c")],
                   check=True)
    binary = d / "app"
    subprocess.run(["cc", "-g", "-O0", "-Wl,--build-id", "-o", str(binary), str(d / "app.c"),
                    str(d / "runtime.o")], check=True)
    return binary


def symbols_of(binary):
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    return {p[2]: int(p[0], 16) for p in (l.split() for l in out.splitlines()) if len(p) == 3}


def return_after_call(binary, function, callee):
    """The address after `function`'s call of `callee`: the return address a stack holds."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)],
                         capture_output=True, text=True, check=True).stdout
    body = out.split(f"<{function}>:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    for i, l in enumerate(body):
        if "call" in l and f"<{callee}>" in l:
            return int(body[i + 1].split(":")[0], 16)
    raise AssertionError(f"no call of {callee} in {function}")


def build_id(binary):
    out = subprocess.run(["readelf", "-n", str(binary)], capture_output=True, text=True,
                         check=True).stdout
    return bytes.fromhex(re.search(r"Build ID: ([0-9a-f]+)", out).group(1))


def frames_of(binary):
    s = symbols_of(binary)
    return (BIAS + s["cudaLaunchFake"] + 1,                        # the runtime: no lines
            BIAS + return_after_call(binary, "launch_site", "cudaLaunchFake"),
            BIAS + return_after_call(binary, "main", "launch_site"))


def write_trace(path, binary, frames, bid=None, extra_modules=()):
    t = Trace(exe=str(binary), pid=4242)
    t.device(0)
    t.stream(7, LEGACY)
    t.launch("_Z12sweep_kernelP6float4mi", 10_000, 60_000, 7, issue=5_000, frames=frames)
    t.api("cudaMemcpyAsync", 70_000, 90_000, CALL_MEMCPY_ASYNC, stream=0, nbytes=1 << 20,
          frames=frames)
    t.memcpy(80_000, 90_000, 1 << 20, 7, src_kind=MEM_PAGEABLE, correlation_id=2)
    t.module(str(binary), BIAS, BIAS + 0x100000, bias=BIAS,
             build_id=build_id(binary) if bid is None else bid)
    for m in extra_modules:
        t.module(*m)
    return t.write(path)


def sites(run_report, *args, **kw):
    r = run_report("--json", *args, **kw)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    return [s["call"]["call_site"] for f in doc["processes"][0]["findings"] for s in f["sites"]]


def symbols_line(run_report, *args, **kw):
    r = run_report(*args, **kw)
    assert r.returncode == 0, r.stderr
    return next(l for l in r.stdout.splitlines() if l.startswith("symbols:"))


def test_inline_chain_resolved_and_saved(run_report, app, tmp_path):
    trace = write_trace(tmp_path / "app-1.sctrace", app, frames_of(app))
    site = sites(run_report, "--save-symbols", trace)[0]
    # the runtime's frame is skipped; the site is the static function, at its call of the
    # inlined enqueue()
    assert site["function"] == "launch_site"
    assert site["file"].endswith("app.c") and site["line"] == line_of("launch_site")
    doc = json.loads((tmp_path / "app-1.sctrace.syms").read_text())
    assert doc["format"] == "streamcheck-syms" and doc["version"] == 1
    (mod,) = doc["modules"]
    assert mod["build_id"] == build_id(app).hex() and mod["status"] == "resolved"
    frame = next(f for f in mod["frames"] if f["symbol"] == "launch_site")
    chain = [(c["function"], c["file"].rsplit("/", 1)[-1], c["line"]) for c in frame["inline"]]
    assert chain[0] == ("enqueue", "app.c", line_of("enqueue"))
    assert chain[-1][1:] == ("app.c", line_of("launch_site"))


def test_without_libdw_names_from_the_symbol_table_and_the_reason(run_report, app, tmp_path):
    """libdw is loaded only when lines are looked up: without it (GPU hosts often lack it)
    the report still names each frame's function from the ELF symbol table, skips the CUDA
    runtime by its address range, and counts the frames left without a line, and why."""
    trace = write_trace(tmp_path / "app-3.sctrace", app, frames_of(app))
    env = dict(os.environ, STREAMCHECK_LIBDW=str(tmp_path / "missing" / "libdw.so.1"))
    site = sites(run_report, trace, env=env)[0]
    assert site["function"] == "launch_site" and not site.get("line")
    line = symbols_line(run_report, trace, env=env)
    assert "0 of 3 frames resolved to file:line; 3 not: 3 no line reader " \
        "(libdw.so.1 did not load)" in line
    # --save-symbols keeps what it has; a later report with libdw adds the lines
    assert sites(run_report, "--save-symbols", trace, env=env)[0]["function"] == "launch_site"
    assert sites(run_report, trace)[0]["line"] == line_of("launch_site")


def test_syms_file_used_when_the_binary_is_gone(run_report, app, tmp_path):
    moved = tmp_path / "app"
    shutil.copy(app, moved)
    trace = write_trace(tmp_path / "app-2.sctrace", moved, frames_of(moved))
    run_report("--save-symbols", trace)
    moved.unlink()
    site = sites(run_report, trace)[0]
    assert site["function"] == "launch_site" and site["line"] == line_of("launch_site")
    line = symbols_line(run_report, trace)
    assert "2 of 3 frames resolved to file:line (2 from the .syms file)" in line
    assert "1 no debug info" in line
    # without the .syms file: nothing but module+offset, and the line says why
    (tmp_path / "app-2.sctrace.syms").unlink()
    assert sites(run_report, trace)[0]["function"] is None
    assert "0 of 3 frames resolved to file:line; 3 not: 3 no binary" in \
        symbols_line(run_report, trace)


def test_symbol_path_finds_a_moved_binary(run_report, app, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(app, elsewhere / "app")
    trace = write_trace(tmp_path / "app-3.sctrace", tmp_path / "gone" / "app", frames_of(app),
                        bid=build_id(app))
    assert sites(run_report, trace)[0]["function"] is None
    site = sites(run_report, "--symbol-path", elsewhere, trace)[0]
    assert site["function"] == "launch_site" and site["line"] == line_of("launch_site")
    # a build-id tree holding the debug file (DIR/.build-id/xx/yyyy.debug) serves too
    bid = build_id(app).hex()
    tree = tmp_path / "debug" / ".build-id" / bid[:2]
    tree.mkdir(parents=True)
    shutil.copy(app, tree / f"{bid[2:]}.debug")
    site = sites(run_report, "--symbol-path", tmp_path / "debug", trace)[0]
    assert site["function"] == "launch_site"


def test_build_id_mismatch_counted(run_report, app, tmp_path):
    trace = write_trace(tmp_path / "app-4.sctrace", app, frames_of(app), bid=b"\x01" * 20,
                        extra_modules=[("/nonexistent/libfoo.so", 0x7f0000000000,
                                        0x7f0000100000, 0x7f0000000000)])
    assert sites(run_report, trace)[0]["function"] is None
    assert "0 of 3 frames resolved to file:line; 3 not: 3 build-id mismatch" in \
        symbols_line(run_report, trace)
    frames = (0x7f0000001000, 0x7f0000002000, 0x1000, *frames_of(app))
    trace = write_trace(tmp_path / "app-5.sctrace", app, frames,
                        extra_modules=[("/nonexistent/libfoo.so", 0x7f0000000000,
                                        0x7f0000100000, 0x7f0000000000)])
    assert ("2 of 6 frames resolved to file:line; 4 not: 2 no binary, 1 no debug info, "
            "1 outside every module") in symbols_line(run_report, trace)


def test_static_runtime_skipped_by_address_range(run_report, app, tmp_path):
    """A frame inside the runtime's block that no symbol names (here: one symbol stripped)
    is still the runtime's: the site is the program's function after it."""
    need("objcopy")
    s = symbols_of(app)
    hole = "libcudart_static_%040x" % 7
    stripped = tmp_path / "app"
    subprocess.run(["objcopy", f"--strip-symbol={hole}", str(app), str(stripped)], check=True)
    frames = (BIAS + s[hole] + 1, *frames_of(app)[1:])
    trace = write_trace(tmp_path / "app-6.sctrace", stripped, frames, bid=build_id(stripped))
    r = run_report("--json", trace)
    call = json.loads(r.stdout)["processes"][0]["findings"][0]["sites"][0]["call"]
    assert call["frames"][0]["function"] is None and call["frames"][0]["internal"]
    assert call["call_site"]["function"] == "launch_site"
    # and the range travels in the .syms file
    run_report("--save-symbols", trace)
    (mod,) = json.loads((tmp_path / "app-6.sctrace.syms").read_text())["modules"]
    lo, hi = (int(x, 16) for x in mod["cuda_ranges"][0])
    assert lo <= s[hole] < hi


def test_bad_syms_file_is_one_line_and_loses_nothing(run_report, app, tmp_path):
    trace = write_trace(tmp_path / "app-7.sctrace", app, frames_of(app))
    syms = tmp_path / "app-7.sctrace.syms"
    for text in ("{not json", '{"format": "streamcheck-syms", "version": 99, "modules": []}',
                 '{"format": "other", "version": 1, "modules": []}'):
        syms.write_text(text)
        r = run_report(trace)
        assert r.returncode == 0
        assert r.stderr.count("\n") == 1 and "ignoring" in r.stderr, r.stderr
        assert "launch_site at app.c" in r.stdout
    syms.write_text('{"format": "streamcheck-syms", "version": 1, "modules": '
                    '[{"path": 3}, {"path": "x", "build_id": "zz"}, {"path": "y", '
                    '"build_id": "", "frames": [{"offset": "0x"}, {"offset": 5}], '
                    '"cuda_ranges": [[1], ["0x9", "0x1"]]}]}')
    r = run_report(trace)
    assert r.returncode == 0 and r.stderr == ""
