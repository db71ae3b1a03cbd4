"""tools/bench/report-speed, the report tool's benchmark: a row per trace, run length, thread
count and output (the packed trace and the same steps spread over a day, on one thread and
on four), the traces deleted after; run lengths and thread counts it cannot use refused."""

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


def test_refuses_spans_and_threads_it_cannot_use(build, tmp_path):
    for flag, value in (("--spans", "x"), ("--spans", "-1"), ("--spans", "1e9"),
                        ("--spans", ""), ("--threads", "0"), ("--threads", "65"),
                        ("--threads", "2,x")):
        r = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), "--records",
                            "3000", flag, value, "--dir", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode == 2 and flag in r.stderr, (flag, value, r.stderr)
