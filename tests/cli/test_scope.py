"""Traces recorded inside a capture scope (format 1.5: SCOPE and SCOPE_WINDOW records): the
report's header line and JSON say so, findings' shares are of the time the scope was open,
and --dump shows both records."""

import json

import pytest

from sctrace import (BLOCKING, CALL_STREAM_CREATE, LEGACY, SCOPE_NVTX_RANGE, SCOPE_OPEN_AT_END,
                     SCOPE_PROFILER, TRACER_LAUNCH_NS, Trace)


def scoped_trap(path, mode=SCOPE_NVTX_RANGE, name="step", skip=2, last_flags=0):
    """The legacy-stream trap of test_report_content.py (a saving of 185 us + L over a
    410 us run), recorded in two windows of 150 and 100 us: 250 us in all."""
    t = Trace(exe="/usr/bin/trap", pid=4343)
    t.scope(mode, name, skip)
    t.device(0)
    t.stream(7, LEGACY)
    create = t.api("cudaStreamCreate", 0, 2_000, CALL_STREAM_CREATE)
    t.stream(13, BLOCKING, correlation_id=create)
    t.launch("_Z4spinv", 10_000, 210_000, 13, issue=5_000)
    t.launch("_Z5sweepv", 210_000, 410_000, 7, issue=20_000)
    t.scope_window(200_000, 300_000, occurrence=4, flags=last_flags)    # out of order
    t.scope_window(0, 150_000, occurrence=3)
    return t.write(path)


def test_text_header_names_the_scope(run_report, tmp_path):
    out = run_report(scoped_trap(tmp_path / "trap-4343.sctrace")).stdout
    assert ("scope:    recorded only inside NVTX range 'step', after skipping 2: 2 windows, "
            "250 us\n") in out
    # the share is of the 250 us recorded, the replay's check still of first to last event
    assert "error   legacy-stream   fixing this saves ~187 us (74.7% of the run)" in out
    assert "the run replayed as recorded takes 410 us against 410 us recorded (+0.0%)" in out


def test_text_header_profiler_scope_open_at_end(run_report, tmp_path):
    path = scoped_trap(tmp_path / "trap-4343.sctrace", SCOPE_PROFILER, "", 0,
                       SCOPE_OPEN_AT_END)
    out = run_report(path).stdout
    assert ("scope:    recorded only between cudaProfilerStart and cudaProfilerStop: 2 windows, "
            "250 us, the last open until the end\n") in out


def test_json_scope(run_report, tmp_path):
    r = run_report("--json", scoped_trap(tmp_path / "trap-4343.sctrace"))
    (proc,) = json.loads(r.stdout)["processes"]
    base = 1_000_000_000
    assert proc["scope"] == {
        "mode": "nvtx-range", "range": "step", "skip": 2, "recorded_ns": 250_000,
        "windows": [
            {"open_ns": base, "close_ns": base + 150_000, "occurrence": 3,
             "open_at_end": False},
            {"open_ns": base + 200_000, "close_ns": base + 300_000, "occurrence": 4,
             "open_at_end": False}],
        "text": "recorded only inside NVTX range 'step', after skipping 2: 2 windows, 250 us"}
    rules = {f["rule"]: f for f in proc["findings"]}
    assert rules["legacy-stream"]["share"] == pytest.approx((185_000 + TRACER_LAUNCH_NS)
                                                            / 250_000)


def test_json_scope_null_without_one(run_report, tmp_path):
    t = Trace()
    t.device(0)
    t.stream(7, LEGACY)
    t.launch("_Z4spinv", 10_000, 20_000, 7, issue=5_000)
    (proc,) = json.loads(run_report("--json", t.write(tmp_path / "a-1.sctrace")).stdout)[
        "processes"]
    assert proc["scope"] is None
    assert "scope:" not in run_report(tmp_path / "a-1.sctrace").stdout


def test_dump_scope_records(run_report, tmp_path):
    out = run_report("--dump", scoped_trap(tmp_path / "trap-4343.sctrace")).stdout
    lines = [l.split(None, 1)[1] for l in out.splitlines()
             if l.startswith("@") and " SCOPE" in l]
    assert lines == ['SCOPE nvtx-range "step" mode=1 skip=2',
                     "SCOPE_WINDOW start=1000200000 end=1000300000 dur=100000 occurrence=4",
                     "SCOPE_WINDOW start=1000000000 end=1000150000 dur=150000 occurrence=3"]
