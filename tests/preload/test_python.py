"""Python call sites on the fake CUPTI: a Python program (python/calls.py) makes CUDA calls
through libsc_fake_calls.so, with the GIL held and released, from functions, methods, a
thread and a thread that never ran Python, under every CPython 3.10 to 3.13 found here.

What is checked: each sampled call's PYSTACK names the program's file, the line of the call
(found by its "# MARK" comment, not copied from any output) and its callers; calls of one
kernel on one stream from two Python lines never share a site; a thread without Python says
so; the report shows the user's line with its text; a process without Python writes no
PYSTACK, and a Python streamcheck cannot read says so once."""
import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build")).resolve()
LIB = BUILD / "src" / "preload" / "libstreamcheck.so"
FAKE = BUILD / "tests" / "preload" / "libsc_fake_cupti.so"
CALLS = BUILD / "tests" / "preload" / "libsc_fake_calls.so"
DRIVER = BUILD / "tests" / "preload" / "sc_fake_driver"
REPORT = BUILD / "src" / "report" / "streamcheck-report"
PROGRAM = pathlib.Path(__file__).parent / "python" / "calls.py"

sys.path.insert(0, str(SOURCE / "tests" / "cli"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
import sctrace  # noqa: E402
from sanitized import sanitized  # noqa: E402

MARKS = {m: i + 1 for i, line in enumerate(PROGRAM.read_text().splitlines())
         for m in re.findall(r"# MARK (\w+)", line)}


def pythons():
    """Every CPython 3.N interpreter here, one per minor version (pyenv's and the system's)."""
    found = {}
    for exe in [sys.executable, shutil.which("python3") or "",
                *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3"))),
                *(shutil.which(f"python3.{m}") or "" for m in range(8, 15))]:
        if not exe or not os.access(exe, os.X_OK):
            continue
        try:
            v = subprocess.run([exe, "-c", "import sys; print(sys.version_info[1])"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if v.isdigit():
            found.setdefault(int(v), exe)
    return found


PYTHONS = pythons()
READ = sorted(m for m in PYTHONS if 10 <= m <= 13)
PYTHON_BINARIES = {os.path.realpath(exe) for exe in PYTHONS.values()}


@pytest.fixture(scope="module", autouse=True)
def built():
    for p in (LIB, FAKE, CALLS, REPORT):
        if not p.exists():
            pytest.skip(f"{p} not built (needs the CUDA toolkit's CUPTI headers)")
    if sanitized(LIB):
        pytest.skip(f"{LIB} is built with a sanitizer: a Python interpreter cannot load it")


def run_program(python, out, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")}
    env.update({"LD_PRELOAD": str(LIB), "STREAMCHECK_CUPTI": str(FAKE),
                "STREAMCHECK_OUT": str(out), "STREAMCHECK_SUMMARY": "0", **extra})
    p = subprocess.run([python, str(PROGRAM), str(CALLS)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
    ids = {line.split()[0]: [int(x) for x in line.split()[1:]] for line in p.stdout.splitlines()}
    (path,) = sorted(out.glob("*.sctrace"))
    return path, ids


@pytest.fixture(scope="module", params=READ or [None], ids=lambda m: f"3.{m}")
def recorded(request, tmp_path_factory):
    if request.param is None:
        pytest.skip("no CPython 3.10 to 3.13 here")
    path, ids = run_program(PYTHONS[request.param], tmp_path_factory.mktemp("py") / "out")
    return path, ids, sctrace.read(path)


def stacks_by_call(trace):
    return {s["correlation_id"]: s for s in trace["pystacks"]}


def site_of(trace, call):
    """The call's own stack, or the one it shares (sctrace: aux, or aux2 for event calls)."""
    if call["n_frames"]:
        return call["correlation_id"]
    if call["flags"] & sctrace.API_STACK_SHARED:
        return call["aux"]
    if call["flags"] & sctrace.API_STACK_SHARED_AUX2:
        return call["aux2"]
    return None


def test_every_marked_call_names_its_line_with_or_without_the_gil(recorded):
    path, ids, trace = recorded
    py = stacks_by_call(trace)
    calls = {c["correlation_id"]: c for c in trace["calls"]}
    for mark, caller in (("gil", "step"), ("nogil", "step"), ("even", "loop"),
                         ("odd", "loop"), ("sync", None), ("thread", None)):
        for corr in ids[mark]:
            s = py[site_of(trace, calls[corr])]
            assert s["state"] == sctrace.PY_FRAMES, (mark, s)
            top = s["frames"][0]
            assert (top["file"], top["line"]) == (str(PROGRAM), MARKS[mark]), (mark, s)
            if caller:
                assert s["frames"][1]["line"] == MARKS[caller], (mark, s)
    # methods and functions by their qualified names (3.11+), the module's frame outermost
    gil = py[ids["gil"][0]]
    assert gil["frames"][0]["function"] in ("Model.forward", "forward")
    assert [f["function"] for f in gil["frames"][1:]] == ["step", "<module>"]


def test_one_kernel_on_one_stream_from_two_lines_is_two_sites(recorded):
    """Without the Python frames in the sample's key, the odd line's calls would share the
    stack the even line's call took (same kernel, stream and call). Each line's first call
    takes a stack; its next ones, the same whole Python stack, share it."""
    path, ids, trace = recorded
    py = stacks_by_call(trace)
    calls = {c["correlation_id"]: c for c in trace["calls"]}
    for mark in ("even", "odd"):
        own = [c for c in ids[mark] if calls[c]["n_frames"]]
        assert own == ids[mark][:1], (mark, own)
        for corr in ids[mark]:
            assert py[site_of(trace, calls[corr])]["frames"][0]["line"] == MARKS[mark]


def test_callers_further_out_than_the_key_each_take_a_stack(recorded):
    """The same four innermost frames (one sample key) from two callers: within the key's
    first calls, the first call from each caller takes a stack and the calls that repeat
    its whole Python stack share it; every call names its own caller."""
    path, ids, trace = recorded
    py = stacks_by_call(trace)
    calls = {c["correlation_id"]: c for c in trace["calls"]}
    deep = ids["deep"]
    assert len(deep) == 28
    own = [c for c in deep if calls[c]["n_frames"]]
    assert own == [deep[0], deep[8]], (own, deep[:10])
    for i, corr in enumerate(deep):
        frames = py[site_of(trace, calls[corr])]["frames"]
        assert frames[0]["line"] == MARKS["deep"]
        assert frames[4]["line"] == MARKS["caller_a" if i < 8 else "caller_b"], (i, frames)


def test_native_stacks_stop_where_the_interpreter_begins(recorded):
    """Below a CUDA call made from Python, the interpreter's own frames are its evaluation
    loop, which the Python stack stands in for: no native stack of a call with Python
    frames goes into the interpreter's code; a launch's still starts at the library that
    called CUDA, and each goes on through ctypes."""
    path, ids, trace = recorded
    py = stacks_by_call(trace)
    interpreter = [m for m in trace["modules"]
                   if m["path"] and (os.path.realpath(m["path"]) in PYTHON_BINARIES or
                                     os.path.basename(m["path"]).startswith("libpython3"))]
    assert interpreter, [m["path"] for m in trace["modules"]]

    def module_of(frame):
        return next((m["path"] for m in trace["modules"] if m["lo"] <= frame < m["hi"]), "")
    own = [c for c in trace["calls"] if c["n_frames"] and
           py.get(c["correlation_id"], {}).get("state") == sctrace.PY_FRAMES]
    assert len(own) >= 5
    for c in own:
        assert not any(m["lo"] <= f < m["hi"] for f in c["frames"] for m in interpreter), (
            c["name"], [module_of(f) for f in c["frames"]])
        if "Launch" in c["name"]:   # (the device sync's call is a tail call: no frame)
            assert module_of(c["frames"][0]).endswith("libsc_fake_calls.so")
        assert "_ctypes" in module_of(c["frames"][-1]), [module_of(f) for f in c["frames"]]


def test_a_thread_without_python_says_so(recorded):
    """... and names the NVTX range it ran in, which is how PyTorch names a backward
    operation on autograd's thread (emit_nvtx)."""
    path, ids, trace = recorded
    (corr,) = ids["native"]
    s = stacks_by_call(trace)[corr]
    assert (s["state"], s["frames"]) == (sctrace.PY_NO_PYTHON, [])
    text = subprocess.run([str(REPORT), "--no-symbols", "--sites", "5", str(path)],
                          capture_output=True, text=True, timeout=60).stdout
    assert "(a thread without Python, in NVTX range 'MmBackward0')" in text, text
    doc = json.loads(subprocess.run([str(REPORT), "--no-symbols", "--json", str(path)],
                                    capture_output=True, text=True, timeout=60).stdout)
    ranges = {s["call"]["python"]["nvtx_range"] for f in doc["processes"][0]["findings"]
              for s in f["sites"] if s["call"]["python"]}
    assert "MmBackward0" in ranges, ranges


def test_the_report_shows_the_users_line_and_its_text(recorded):
    path, ids, trace = recorded
    text = subprocess.run([str(REPORT), "--no-symbols", str(path)], capture_output=True,
                          text=True, timeout=60).stdout
    source = PROGRAM.read_text().splitlines()[MARKS["sync"] - 1].strip()
    assert f"<module> at calls.py:{MARKS['sync']}: {source}" in text, text
    doc = json.loads(subprocess.run([str(REPORT), "--no-symbols", "--json", str(path)],
                                    capture_output=True, text=True, timeout=60).stdout)
    (sync,) = [f for f in doc["processes"][0]["findings"] if f["rule"] == "host-sync"]
    python = sync["first"]["call"]["python"]
    assert python["state"] == "frames" and python["text"] == source
    site = python["frames"][python["site"]]
    assert (site["file"], site["line"], site["library"]) == (str(PROGRAM), MARKS["sync"], False)


@pytest.mark.skipif(not READ, reason="no CPython 3.10 to 3.13 here")
def test_python_sites_can_be_turned_off(tmp_path):
    path, ids = run_program(PYTHONS[READ[-1]], tmp_path / "out",
                            STREAMCHECK_OPTIONS="python=0")
    trace = sctrace.read(path)
    assert trace["pystacks"] == [] and all(c["n_frames"] for c in trace["calls"]
                                           if c["correlation_id"] in ids["sync"])


def test_a_process_without_python_writes_no_python_stacks(tmp_path):
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update({"LD_PRELOAD": str(LIB), "STREAMCHECK_CUPTI": str(FAKE),
                "STREAMCHECK_OUT": str(out), "STREAMCHECK_SUMMARY": "0"})
    subprocess.run([str(DRIVER), "work", "2", "50"], env=env, check=True, timeout=120,
                   capture_output=True)
    (path,) = out.glob("*.sctrace")
    trace = sctrace.read(path)
    assert trace["pystacks"] == [] and trace["calls"]


@pytest.mark.skipif(not [m for m in PYTHONS if m < 10], reason="no CPython before 3.10 here")
def test_a_python_it_cannot_read_is_said_once_and_sites_stay_native(tmp_path):
    minor = max(m for m in PYTHONS if m < 10)
    path, ids = run_program(PYTHONS[minor], tmp_path / "out")
    trace = sctrace.read(path)
    notes = [n for n in trace["notes"] if n["code"] == sctrace.NOTE_PYTHON_UNREAD]
    assert len(notes) == 1 and f"Python 3.{minor}" in notes[0]["text"], trace["notes"]
    assert trace["pystacks"] == []
    assert all(c["n_frames"] for c in trace["calls"] if c["correlation_id"] in ids["sync"])


def test_the_layout_table_is_what_each_pythons_headers_say():
    """src/preload/python_layout.c against tools/python-layouts, run here against the headers
    of every CPython 3.10-3.13 installed (offsetof on Include/internal's structs)."""
    p = subprocess.run([str(SOURCE / "tools" / "python-layouts")], capture_output=True,
                       text=True, timeout=300)
    rows = [line.strip() for line in p.stdout.splitlines() if line.strip()]
    if not rows:
        pytest.skip(f"no CPython 3.10-3.13 with headers here: {p.stderr.strip()[:300]}")
    table = (SOURCE / "src" / "preload" / "python_layout.c").read_text()
    for row in rows:
        assert row in table, (row, p.stderr)
