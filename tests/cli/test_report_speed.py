"""tools/bench/report-speed, the report tool's benchmark: a row per trace, run length and
output, the packed trace and the same steps spread over a day both measured, the traces
deleted after; run lengths it cannot use refused."""

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
                        "3000", "--spans", "0,86400", "--runs", "1", "--dir", str(folder)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [line.split("|")[1:-1] for line in r.stdout.splitlines()
            if line.startswith("| 3,000 |")]
    cells = [(c[1].strip(), c[3].strip()) for c in rows]
    assert cells == [("packed", "text"), ("packed", "--json"), ("24 h", "text"),
                     ("24 h", "--json")]
    assert not folder.exists()      # the traces deleted, and the folder made for them


def test_refuses_spans_it_cannot_use(build, tmp_path):
    for spans in ("x", "-1", "1e9", ""):
        r = subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), "--records",
                            "3000", "--spans", spans, "--dir", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode == 2 and "--spans" in r.stderr, (spans, r.stderr)
