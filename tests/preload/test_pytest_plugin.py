"""The pytest plugin (tools/python/pytest_streamcheck.py) and the range functions it calls
(streamcheck_range_push/pop, include/streamcheck/range_api.h), on the fake CUPTI.

A suite of six tests (python/suite.py) makes CUDA calls through libsc_fake_calls.so; two of
them fall into the classic trap, one in its body, one in a fixture's teardown. Checked: the
report's JUnit output has a case per test, failed for exactly those two, with pytest alone
and with pytest-xdist's workers, by hand (-p) and through the wrapper; the controller of
xdist and a run that never starts CUDA write nothing; without the library the plugin is
inert; a range opened before CUDA starts counts from capture's start."""
import ctypes  # noqa: F401  (the program below uses it)
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build")).resolve()
LIB = BUILD / "src" / "preload" / "libstreamcheck.so"
FAKE = BUILD / "tests" / "preload" / "libsc_fake_cupti.so"
CALLS = BUILD / "tests" / "preload" / "libsc_fake_calls.so"
REPORT = BUILD / "src" / "report" / "streamcheck-report"
WRAPPER = BUILD / "tools" / "streamcheck"
PLUGIN_DIR = BUILD / "tools" / "python"
SUITE = pathlib.Path(__file__).parent / "python" / "suite.py"
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

sys.path.insert(0, str(SOURCE / "tests" / "cli"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
import sctrace  # noqa: E402
from sanitized import sanitized  # noqa: E402

# The suite's tests, as pytest names them (run from the folder holding suite.py), and the
# two whose CUDA work falls into the trap.
TESTS = ["suite.py::test_clean_first", "suite.py::test_trap", "suite.py::test_clean_param[1]",
         "suite.py::test_clean_param[2]", "suite.py::test_trap_in_teardown",
         "suite.py::test_clean_last"]
TRAPPED = {"suite.py::test_trap", "suite.py::test_trap_in_teardown"}


def has_xdist():
    return subprocess.run([PYTHON, "-c", "import xdist"], capture_output=True).returncode == 0


@pytest.fixture(scope="module", autouse=True)
def built():
    for p in (LIB, FAKE, CALLS, REPORT, WRAPPER, PLUGIN_DIR / "pytest_streamcheck.py"):
        if not p.exists():
            pytest.skip(f"{p} not built (needs the CUDA toolkit's CUPTI headers)")
    if subprocess.run([PYTHON, "-c", "import pytest"], capture_output=True).returncode:
        pytest.skip(f"{PYTHON} has no pytest")
    if sanitized(LIB):
        pytest.skip(f"{LIB} is built with a sanitizer: a Python interpreter cannot load it")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
                        "PYTEST_PLUGINS", "PYTHONPATH", "PYTEST_ADDOPTS", "STREAMCHECK_OPTIONS")}
    env.update({"STREAMCHECK_CUPTI": str(FAKE), "SC_FAKE_CALLS": str(CALLS),
                "PYTHONDONTWRITEBYTECODE": "1", **extra})
    return env


def pytest_args(workers):
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", ".", "suite.py"]
    return args + (["-n", str(workers)] if workers else [])


def suite_folder(tmp_path):
    """suite.py alone in a folder, so that pytest's node ids do not depend on this checkout."""
    folder = tmp_path / "suite"
    folder.mkdir()
    shutil.copy(SUITE, folder / "suite.py")
    return folder


def run_suite(tmp_path, workers=None, preload=True, plugin=True, env=None):
    folder = suite_folder(tmp_path)
    out = tmp_path / "out"
    e = clean_env(STREAMCHECK_OUT=str(out), STREAMCHECK_SUMMARY="0", **(env or {}))
    if preload:
        e["LD_PRELOAD"] = str(LIB)
    args = pytest_args(workers)
    if plugin:
        e["PYTHONPATH"] = str(PLUGIN_DIR)
        args = args[:2] + ["-p", "pytest_streamcheck"] + args[2:]
    p = subprocess.run([PYTHON, *args], cwd=folder, env=e, capture_output=True, text=True,
                       timeout=240)
    assert p.returncode == 0, (p.stdout, p.stderr)
    return out


def junit_cases(path_or_dir, *extra):
    r = subprocess.run([str(REPORT), "--no-symbols", "--junit", "-", *extra, str(path_or_dir)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 3), r.stderr
    return junit_tests(ET.fromstring(r.stdout))


def junit_tests(root):
    """{test id: failure text (one line per finding) or None} of the cases named test:..."""
    return {c.get("name")[len("test:"):]: (c.find("failure").text
                                           if c.find("failure") is not None else None)
            for c in root.iter("testcase") if c.get("name").startswith("test:")}


def check_exactly_the_trapped_fail(cases):
    assert sorted(cases) == sorted(TESTS)
    failed = {t for t, why in cases.items() if why}
    assert failed == TRAPPED, cases
    # the trap's barrier, or the synchronize that waited for it (the clean tests have none)
    for t in TRAPPED:
        assert "legacy-stream (error)" in cases[t] or "host-sync (error)" in cases[t], cases[t]


@pytest.mark.parametrize("workers", [None, 2], ids=["one-process", "xdist-2"])
def test_junit_fails_exactly_the_tests_that_made_an_error(tmp_path, workers):
    if workers and not has_xdist():
        pytest.skip("pytest-xdist is not installed (python3-pytest-xdist)")
    out = run_suite(tmp_path, workers)
    traces = sorted(out.glob("*.sctrace"))
    # one per process that ran tests: xdist's controller never touches CUDA
    assert len(traces) == (workers or 1), traces
    check_exactly_the_trapped_fail(junit_cases(out))
    # every test's range is in the trace of the process that ran it, once
    names = [r["name"] for t in traces for r in sctrace.read(t)["ranges"]]
    assert sorted(names) == sorted("test:" + t for t in TESTS)


def test_the_range_covers_setup_and_teardown(tmp_path):
    """test_trap_in_teardown's body is clean; its fixture's teardown falls into the trap."""
    (trace,) = sorted(run_suite(tmp_path).glob("*.sctrace"))
    t = sctrace.read(trace)
    (teardown,) = [r for r in t["ranges"] if r["name"] == "test:suite.py::test_trap_in_teardown"]
    inside = [k for k in t["kernels"]
              if teardown["start_ns"] <= k["start_ns"] and k["end_ns"] <= teardown["end_ns"]]
    # its own clean kernel, then the trap's two (the sync waits for them inside the range)
    assert sorted(k["stream_id"] for k in inside) == [7, 13, 15]


def test_without_the_plugin_there_are_no_test_cases(tmp_path):
    """What the two tests above check is the plugin's doing: the same run without it has
    the same findings and no case per test."""
    out = run_suite(tmp_path, plugin=False)
    assert junit_cases(out) == {}


def test_without_the_library_the_plugin_is_inert(tmp_path):
    out = run_suite(tmp_path, preload=False)
    assert not out.exists()


def test_a_run_that_never_starts_cuda_writes_nothing(tmp_path):
    """Ranges open and close, the library is loaded, CUDA never starts: no trace."""
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "suite.py").write_text("def test_a():\n    pass\n\n\ndef test_b():\n    pass\n")
    out = tmp_path / "out"
    e = clean_env(LD_PRELOAD=str(LIB), STREAMCHECK_OUT=str(out), PYTHONPATH=str(PLUGIN_DIR))
    p = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                        "pytest_streamcheck", "suite.py"], cwd=folder, env=e,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "2 passed" in p.stdout
    assert not out.exists()


@pytest.mark.parametrize("workers", [None, 2], ids=["one-process", "xdist-2"])
def test_the_wrapper_loads_the_plugin_and_fails_on_error(tmp_path, workers):
    """streamcheck --fail-on error -- python -m pytest: no -p, no PYTHONPATH given."""
    if workers and not has_xdist():
        pytest.skip("pytest-xdist is not installed (python3-pytest-xdist)")
    folder = suite_folder(tmp_path)
    junit = tmp_path / "junit.xml"
    p = subprocess.run([str(WRAPPER), "-o", str(tmp_path / "out"), "--fail-on", "error",
                        "--junit", str(junit), "--", PYTHON, *pytest_args(workers)],
                       cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=240)
    assert p.returncode == 3, (p.stdout, p.stderr)     # the suite passed; --fail-on tripped
    check_exactly_the_trapped_fail(junit_tests(ET.parse(junit).getroot()))


def test_the_wrapper_leaves_the_plugin_out_when_asked(tmp_path):
    folder = suite_folder(tmp_path)
    junit = tmp_path / "junit.xml"
    p = subprocess.run([str(WRAPPER), "-o", str(tmp_path / "out"), "--no-test-ranges",
                        "--junit", str(junit), "--", PYTHON, *pytest_args(None)],
                       cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert junit_tests(ET.parse(junit).getroot()) == {}


RANGES_PROGRAM = textwrap.dedent("""
    import ctypes, sys
    me = ctypes.CDLL(None)
    calls = ctypes.CDLL(sys.argv[1])
    me.streamcheck_range_push(b"before")    # CUDA not started yet
    calls.sc_fake_start()
    me.streamcheck_range_push(b"inner")
    calls.sc_fake_launch(0, 7)
    me.streamcheck_range_pop()
    me.streamcheck_range_pop()
    me.streamcheck_range_pop()              # nothing open: counted, not written
    me.streamcheck_range_push(b"left open") # never closed: not written
""")


def test_range_functions(tmp_path):
    out = tmp_path / "out"
    e = clean_env(LD_PRELOAD=str(LIB), STREAMCHECK_OUT=str(out), STREAMCHECK_SUMMARY="0")
    p = subprocess.run([PYTHON, "-c", RANGES_PROGRAM, str(CALLS)], env=e, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    (trace,) = sorted(out.glob("*.sctrace"))
    t = sctrace.read(trace)
    ranges = {r["name"]: r for r in t["ranges"]}
    assert sorted(ranges) == ["before", "inner"]
    before, inner = ranges["before"], ranges["inner"]
    # opened before capture: from capture's start, the process record's start
    assert before["start_ns"] == t["process"]["start_ns"]
    assert before["start_ns"] < inner["start_ns"] <= inner["end_ns"] <= before["end_ns"]
    assert (before["depth"], inner["depth"]) == (0, 1)
    assert before["tid"] == inner["tid"] == t["calls"][0]["tid"]
    (launch,) = t["calls"]
    assert inner["start_ns"] <= launch["start_ns"] <= inner["end_ns"]
    assert t["losses"][sctrace.LOSS_NVTX_UNMATCHED] == 1
