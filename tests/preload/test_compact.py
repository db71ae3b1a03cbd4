"""Compact records (trace format 2.0) as libstreamcheck.so writes them on the fake CUPTI: a
run's kernels and launch calls come out compact, and read back as the very records the full
form holds. The full form is computed independently of the C reader: sctrace.full_form
decodes the compact records in Python and writes the KERNEL and API records they stand for,
and the report tool must then say the same about both files, byte for byte."""
import json
import pathlib
import subprocess
import sys

import pytest

from test_preload import BUILD, SOURCE, check_sharing, run
import sctrace

REPORT = BUILD / "src" / "report" / "streamcheck-report"


def report(path, *options):
    r = subprocess.run([str(REPORT), "--no-symbols", *options, str(path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode in (0, 3), r.stderr
    return r.stdout


def same_report(a, b):
    """The report tool's text and JSON on two traces of one run, but for the lines that name
    the file and its format."""
    def text(path):
        return [line for line in report(path).splitlines()
                if not line.startswith(("trace:", "=="))]

    def doc(path):
        (p,) = json.loads(report(path, "--json"))["processes"]
        for key in ("path", "trace_version"):
            p.pop(key)
        return p
    assert text(a) == text(b)
    assert doc(a) == doc(b)


def strip(records):
    return [{k: v for k, v in r.items() if k != "offset"} for r in records]


def could_be_compact(call):
    """What the library writes compact: a call that shares its stack through aux, without a
    byte count, a second argument or an error."""
    return (call["flags"] & sctrace.API_STACK_SHARED and not call["bytes"] and
            not call["aux2"] and not call["result"])


def test_kernels_and_launches_come_out_compact_and_read_back_whole(tmp_path):
    # 4 threads, several buffers each (a buffer starts over: everything is declared again)
    _, t, fired = run(tmp_path, "work", 4, 1500)
    assert t["version"] == (sctrace.VERSION_MAJOR, sctrace.VERSION_MINOR)
    assert t["status"] == "complete"
    assert len(t["calls"]) == fired["calls"] == t["end"]["api_records"]
    assert len(t["kernels"]) == fired["launches"] == t["end"]["activity_records"]
    # every kernel (none runs 4 s), and every call that could be
    assert t["compact"]["kernels"] == len(t["kernels"])
    assert t["compact"]["calls"] == sum(map(could_be_compact, t["calls"])) > 0.3 * len(t["calls"])
    launches = [c for c in t["calls"] if c["call_class"] == sctrace.CALL_LAUNCH]
    assert sum(map(could_be_compact, launches)) > 0.9 * len(launches)
    check_sharing(t)    # thread, class, call, stream: as the call whose stack they share

    full = tmp_path / "full" / "sc_fake_driver-1.sctrace"
    full.parent.mkdir()
    full.write_bytes(sctrace.full_form(pathlib.Path(t["path"]).read_bytes()))
    f = sctrace.read(full)
    assert f["version"] == (sctrace.TRACE_FULL_MAJOR, sctrace.TRACE_FULL_MINOR)
    assert f["compact"] == {"kernels": 0, "calls": 0, "declarations": 0}
    assert strip(f["calls"]) == strip(t["calls"])
    assert strip(f["kernels"]) == strip(t["kernels"])
    same_report(t["path"], full)


def test_threads_that_reuse_a_block_declare_their_own_sites(tmp_path):
    """A thread's block (and its compact writer) goes to the next new thread: a site declared
    with the old thread's id must not name the new thread's calls."""
    _, t, fired = run(tmp_path, "churn", 4, 3, 300)
    assert len(t["calls"]) == fired["calls"]
    assert t["compact"]["calls"] > 0
    check_sharing(t)
    assert len({c["tid"] for c in t["calls"]}) == 12


@pytest.mark.parametrize("env", [{"STREAMCHECK_OPTIONS": "compact=0"},
                                 {"STREAMCHECK_COMPACT": "0"}])
def test_compact_off_writes_full_records_as_format_1_5(tmp_path, env):
    """For a report tool older than format 2.0: it reads every record of such a file."""
    _, t, fired = run(tmp_path, "work", 2, 300, env=env)
    assert t["version"] == (sctrace.TRACE_FULL_MAJOR, sctrace.TRACE_FULL_MINOR) == (1, 5)
    assert t["compact"] == {"kernels": 0, "calls": 0, "declarations": 0}
    assert len(t["calls"]) == fired["calls"] and len(t["kernels"]) == fired["launches"]
    check_sharing(t)


def test_a_kernel_with_its_launch_takes_at_most_64_bytes(tmp_path):
    """Issue 12: a launch loop's trace, whole file over kernels (the sampled stacks, the
    process, its modules and the end included)."""
    sizes = {}
    for compact in ("1", "0"):
        out = tmp_path / compact
        out.mkdir()
        _, t, _ = run(out, "time", "launch", 20000, env={"STREAMCHECK_COMPACT": compact})
        assert len(t["kernels"]) == 40000      # two passes
        (path,) = (out / "out").iterdir()
        sizes[compact] = path.stat().st_size / len(t["kernels"])
    assert sizes["1"] <= 64, sizes
    assert sizes["0"] >= 176, sizes     # a KERNEL (96 bytes) and an API record (80)


def test_the_gpu_suites_own_reader_reads_compact_traces(tmp_path):
    """tests/gpu/lifecycle_helpers.py reads traces without sctrace.read: checked here, where
    no GPU is needed, that it reads what the library now writes."""
    sys.path.insert(0, str(SOURCE / "tests" / "gpu"))
    import lifecycle_helpers
    _, t, fired = run(tmp_path, "work", 2, 300)
    raw = lifecycle_helpers.read_raw(t["path"])
    assert raw["status"] == "complete"
    assert [(c["tid"], c["correlation_id"], c["stream"], c["call_class"]) for c in raw["calls"]] \
        == [(c["tid"], c["correlation_id"], c["stream"], c["call_class"]) for c in t["calls"]]
    assert len(raw["calls"]) == fired["calls"]
    assert [(k["stream_id"], k["correlation_id"]) for k in raw["kernels"]] == \
        [(k["stream_id"], k["correlation_id"]) for k in t["kernels"]]
    assert len(raw["kernels"]) == fired["launches"]
