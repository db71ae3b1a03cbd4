"""--baseline OLD NEW: how two runs differ, per process and per NVTX range name, as text and
as JSON (schema streamcheck-compare/1). Traces with known timings from sctrace.py.

The per-range rows come from the analyzer's range summaries (sc_analysis.ranges); the
whole-run row and the findings do not need them."""

import json

import pytest

from sctrace import CALL_MEMCPY_ASYNC, HTOD, LEGACY, MEM_PAGEABLE, NON_BLOCKING, Trace


def old_trace(path, exe="/usr/bin/app", pid=10):
    """Baseline: two "step" ranges of 100 us, each with two 50 us kernels one after the other
    on the legacy stream (busy 100, kernel time 100, concurrency 1.00), and a "load" range
    of 50 us. Summed: step wall 200 us, busy 200 us. Legacy-stream work: a legacy-stream
    finding; no pageable copy."""
    t = Trace(exe=exe, pid=pid)
    t.device(0)
    t.stream(7, LEGACY)
    for i in range(2):
        base = 200_000 * i
        t.range("step", base, base + 100_000)
        t.launch("_Z1av", base + 10_000, base + 60_000, 7, issue=base + 1_000)
        t.launch("_Z1bv", base + 60_000, base + 110_000, 7, issue=base + 2_000)
    t.range("load", 500_000, 550_000)
    return t.write(path)


def new_trace(path, exe="/usr/bin/app", pid=20):
    """Current: the two "step" ranges take 80 us each, their kernels on two non-blocking
    streams overlap (10-60 and 15-65: busy 55, kernel time 100, concurrency 1.82). Summed:
    wall 160 us (-20%), busy 110 us (-45%). No "load" range; a new "save" range holds an
    async copy from pageable memory: a pageable-async finding, and no legacy-stream one."""
    t = Trace(exe=exe, pid=pid)
    t.device(0)
    t.stream(7, LEGACY)
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING)
    for i in range(2):
        base = 200_000 * i
        t.range("step", base, base + 80_000)
        t.launch("_Z1av", base + 10_000, base + 60_000, 21, issue=base + 1_000)
        t.launch("_Z1bv", base + 15_000, base + 65_000, 22, issue=base + 2_000)
    t.range("save", 500_000, 700_000)
    corr = t.api("cudaMemcpyAsync", 510_000, 690_000, CALL_MEMCPY_ASYNC, stream=0x99,
                 nbytes=64 << 20)
    t.memcpy(600_000, 680_000, 64 << 20, 21, copy_kind=HTOD, src_kind=MEM_PAGEABLE,
             correlation_id=corr)
    return t.write(path)


@pytest.fixture
def pair(tmp_path):
    return old_trace(tmp_path / "app-10.sctrace"), new_trace(tmp_path / "app-20.sctrace")


def row(text, name):
    lines = [l for l in text.splitlines() if l.startswith(f"  {name} ")]
    assert len(lines) == 1, text
    return lines[0]


def by_name(items, key="name"):
    return {i[key]: i for i in items}


def test_text_header_and_findings(run_report, pair):
    old, new = pair
    r = run_report("--baseline", old, new)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith(f"comparison: baseline {old} (1 process) -> current {new} (1 process)")
    assert "== app (pid 10 -> pid 20) ==" in out
    assert "(whole run)" in out
    assert "    gone     legacy-stream (note): was " in out
    assert "    new      pageable-async (" in out


def test_json_findings(run_report, pair):
    old, new = pair
    r = run_report("--baseline", old, "--json", new)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "streamcheck-compare/1"
    assert doc["baseline"]["paths"] == [str(old)] and doc["current"]["paths"] == [str(new)]
    (proc,) = doc["processes"]
    assert proc["status"] == "matched" and proc["exe"] == "app"
    assert proc["baseline"]["pid"] == 10 and proc["current"]["pid"] == 20
    findings = by_name(proc["findings"], "rule")
    assert findings["legacy-stream"]["status"] == "gone"
    assert findings["legacy-stream"]["count"]["current"] is None
    assert findings["pageable-async"]["status"] == "new"
    assert findings["pageable-async"]["count"]["baseline"] is None
    assert findings["pageable-async"]["count"]["current"] == 1
    run = proc["run"]
    assert run["name"] is None and run["status"] == "matched"
    # Whole run: busy 200 -> 110 us, kernel time 200 -> 200 us (device 0).
    assert run["busy_ns"] == {"baseline": 200_000, "current": 110_000, "delta": -90_000,
                              "delta_pct": pytest.approx(-45.0)}
    assert run["kernels"]["baseline"] == run["kernels"]["current"] == 4


def test_text_range_rows(run_report, pair):
    old, new = pair
    out = run_report("--baseline", old, new).stdout
    step = row(out, "step")
    assert "200 us -> 160 us (-20.0%)" in step
    assert "200 us -> 110 us (-45.0%)" in step
    assert "1.00x -> 1.82x (+0.82)" in step
    assert "(gone range)" in row(out, "load")
    save = row(out, "save")
    assert "(new range)" in save and "+pageable-async" in save


def test_json_range_rows(run_report, pair):
    old, new = pair
    doc = json.loads(run_report("--baseline", old, "--json", new).stdout)
    ranges = by_name(doc["processes"][0]["ranges"])
    assert list(ranges) == ["step", "save", "load"]     # current run's order, then gone ones
    step = ranges["step"]
    assert step["status"] == "matched"
    assert step["instances"] == {"baseline": 2, "current": 2, "delta": 0, "delta_pct": 0.0}
    assert step["wall_ns"] == {"baseline": 200_000, "current": 160_000, "delta": -40_000,
                               "delta_pct": pytest.approx(-20.0)}
    assert step["busy_ns"]["current"] == 110_000
    assert step["concurrency"]["baseline"] == pytest.approx(1.0)
    assert step["concurrency"]["current"] == pytest.approx(200 / 110)
    assert step["concurrency"]["delta"] == pytest.approx(200 / 110 - 1)
    assert ranges["load"]["status"] == "gone"
    assert ranges["load"]["wall_ns"]["current"] is None
    assert ranges["save"]["status"] == "new"
    assert by_name(ranges["save"]["findings"], "rule")["pageable-async"]["status"] == "new"


def test_processes_matched_by_name_then_order(run_report, tmp_path):
    olddir, newdir = tmp_path / "old", tmp_path / "new"
    olddir.mkdir()
    newdir.mkdir()
    old_trace(olddir / "app-1.sctrace", pid=1)
    old_trace(olddir / "app-2.sctrace", pid=2)
    old_trace(olddir / "tool-3.sctrace", exe="/opt/tool", pid=3)
    new_trace(newdir / "app-4.sctrace", pid=4)
    new_trace(newdir / "app-5.sctrace", pid=5)
    new_trace(newdir / "other-6.sctrace", exe="/opt/other", pid=6)
    r = run_report("--baseline", olddir, "--json", newdir)
    assert r.returncode == 0, r.stderr
    procs = json.loads(r.stdout)["processes"]
    got = [(p["exe"], p["status"], p["baseline"] and p["baseline"]["pid"],
            p["current"] and p["current"]["pid"]) for p in procs]
    assert got == [("app", "matched", 1, 4), ("app", "matched", 2, 5),
                   ("other", "new", None, 6), ("tool", "gone", 3, None)]
    text = run_report("--baseline", olddir, newdir).stdout
    assert "== other (- -> pid 6): only in the current run ==" in text
    assert "== tool (pid 3 -> -): only in the baseline ==" in text


def test_unreadable_baseline(run_report, pair, tmp_path):
    _, new = pair
    r = run_report("--baseline", tmp_path / "missing", new)
    assert r.returncode == 1
    assert "missing" in r.stderr


def test_expectations_and_fail_on_apply_to_the_current_run(run_report, pair):
    old, new = pair
    r = run_report("--baseline", old, "--expect", "no legacy-stream", new)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "expect: PASS no legacy-stream (measured 0 findings)" in r.stdout
    r = run_report("--baseline", old, "--expect", "range=step concurrency >= 2", new)
    assert r.returncode == 4
    assert "expect: FAIL range=step concurrency >= 2 (measured 1.82)" in r.stdout


def test_baseline_excludes_dump_and_html(run_report, pair, tmp_path):
    old, new = pair
    assert run_report("--baseline", old, "--dump", new).returncode == 2
    assert run_report("--baseline", old, "--html", tmp_path / "x.html", new).returncode == 2
