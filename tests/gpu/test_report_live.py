"""Issue 4 on a live run: per-range metrics, expectations, the Perfetto export and the HTML
report, from `arrangements all` (every arrangement in its own NVTX range) on the GPU."""
import json
import subprocess

import pytest

from samples import Run, sample, SOURCE_DIR


@pytest.fixture(scope="module")
def arrangements_all(build, tmp_path_factory):
    folder = tmp_path_factory.mktemp("all")
    run = Run(build, folder, [sample(build, "arrangements"), "all"],
              wrapper_args=["--expect-file", str(SOURCE_DIR / "tests/samples/arrangements.expect"),
                            "--chrome", str(folder / "trace.json")])
    return run


def ranges_by_name(run):
    return {r["name"]: r for r in run.process()["range_names"]}


def test_bundled_expectations_hold(arrangements_all):
    proc = arrangements_all.proc
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [l for l in (proc.stdout + proc.stderr).splitlines() if l.startswith("expect:")]
    assert len(lines) >= 7 and all(l.startswith("expect: PASS") for l in lines), lines


def test_per_range_metrics(arrangements_all):
    r = ranges_by_name(arrangements_all)
    assert r["nonblocking"]["concurrency"] > 1.2
    assert r["trap"]["concurrency"] == pytest.approx(1.0, abs=0.05)
    assert r["legacy"]["concurrency"] == pytest.approx(1.0, abs=0.05)
    assert r["two-grids"]["speedup"] == pytest.approx(1.0, abs=0.1)
    # the trap's serialization is found inside the trap range, not in the nonblocking one;
    # its severity is its saving's share of the whole run (all arrangements): a warning at
    # least
    assert any(f["rule"] == "legacy-stream" and f["severity"] in ("warning", "error")
               for f in r["trap"]["findings"]), r["trap"]["findings"]
    assert not any(f["rule"] == "legacy-stream" for f in r["nonblocking"]["findings"])


def test_perfetto_export_of_a_live_run(arrangements_all):
    doc = json.loads((arrangements_all.folder / "trace.json").read_text())
    events = doc["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    assert any("non-blocking" in n for n in names) and any("legacy" in n for n in names), names
    kernels = [e for e in events if e.get("ph") == "X" and "spin" in e.get("name", "")]
    assert kernels, "no spin kernel on any track"
    assert any(e.get("ph") == "X" and e.get("name") == "nonblocking" for e in events)


def test_html_report_of_a_live_run(build, arrangements_all):
    out = arrangements_all.folder / "report.html"
    traces = [str(p) for p in arrangements_all.traces]
    proc = subprocess.run([str(build / "src/report/streamcheck-report"), "--html", str(out),
                           *traces], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    assert "http://" not in html and "https://" not in html
    assert "spin_kernel" in html and "legacy-stream" in html and "nonblocking" in html
