"""tools/bench/report-speed, the report tool's benchmark: a row per trace, run length, thread
count and output (the packed trace and the same steps spread over a day, on one thread and
on four), each output again on one core when asked, the traces deleted after; run lengths
and thread counts it cannot use refused."""

import subprocess
import sys

import pytest

from conftest import ROOT, build_dir

SCRIPT = ROOT / "tools" / "bench" / "report-speed"


@pytest.fixture(scope="module")
def build():
    b = build_dir()
    if not (b / "tools" / "bench" / "synthetic-trace").exists():
        pytest.skip("tools/bench/synthetic-trace not built")
    return b


def test_a_row_per_trace_span_and_output(build, tmp_path):
    folder = tmp_path / "speed"
    r = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), "--records",
                        "3000", "--spans", "0,86400", "--threads", "1,4", "--runs", "1",
                        "--dir", str(folder)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [line.split("|")[1:-1] for line in r.stdout.splitlines()
            if line.startswith("| 3,000 |")]
    cells = [(c[1].strip(), c[2].strip(), c[4].strip()) for c in rows]
    assert cells == [(run, threads, out) for threads in ("1", "4")
                     for run in ("packed", "24 h") for out in ("text", "--json")]
    assert not folder.exists()      # the traces deleted, and the folder made for them


def test_one_core_runs_each_output_again_on_one_cpu(build, tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), "--records",
                        "3000", "--spans", "0", "--runs", "1", "--one-core", "--stages",
                        "--dir", str(tmp_path / "speed")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    outputs = [line.split("|")[5].strip() for line in r.stdout.splitlines()
               if line.startswith("| 3,000 |")]
    assert outputs == ["text", "--json", "text, one core", "--json, one core"]
    # on one core every stage is the trace's own thread's (the stage table's thread column)
    for section in r.stdout.split("\nstages of ")[1:]:
        threads = {line.split("|")[7].strip() for line in section.splitlines()[3:]
                   if line.startswith("|")}
        if "one core" in section.splitlines()[0]:
            assert threads == {"1"}, section


def test_refuses_spans_and_threads_it_cannot_use(build, tmp_path):
    for flag, value in (("--spans", "x"), ("--spans", "-1"), ("--spans", "1e9"),
                        ("--spans", ""), ("--threads", "0"), ("--threads", "65"),
                        ("--threads", "2,x")):
        r = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), "--records",
                            "3000", flag, value, "--dir", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode == 2 and flag in r.stderr, (flag, value, r.stderr)


def test_stages_give_each_cells_median_stages(build, tmp_path):
    from test_stage_table import STAGES
    r = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), "--records",
                        "20000", "--spans", "0", "--runs", "3", "--stages", "--dir",
                        str(tmp_path / "speed")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sections = r.stdout.split("\nstages of ")[1:]
    assert [s.splitlines()[0] for s in sections] == [
        "20,000 records, packed, 1 thread, text (medians):",
        "20,000 records, packed, 1 thread, --json (medians):"]
    for section in sections:
        rows = [line.split("|")[1:-1] for line in section.splitlines()[3:] if line.startswith("|")]
        assert [c[0].strip() for c in rows] == STAGES
        resident = [float(c[4].split()[0]) for c in rows]
        peak = [float(c[5].split()[0]) for c in rows]
        # the peak so far never falls by more than the kernel's counters' slack (a few
        # hundred KiB), and the resident memory at a stage's end is within it
        assert all(b >= a - 1 for a, b in zip(peak, peak[1:]))
        assert all(res <= p + 1 for res, p in zip(resident, peak))
