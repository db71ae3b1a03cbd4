"""Traces recorded on a real GPU (tests/fixtures, see RECORDED.md there) replayed through
the report tool: the findings and overlap ranges each sample's arrangement must produce.

The expected values come from what each arrangement does on any GPU (see
tests/samples/arrangements.cu), not from a past output: two non-blocking streams overlap;
a blocking stream beside the legacy stream serializes; two grid-filling kernels interleave
without finishing sooner; four 32 MiB chunks copied in and out from pageable memory are
eight pageable async copies."""
import json
import os
import pathlib
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build"))
FIXTURES = SOURCE / "tests" / "fixtures"
REPORT = BUILD / "src" / "report" / "streamcheck-report"
MIB = 1024 * 1024


def report(name, *args):
    proc = subprocess.run([str(REPORT), *args, str(FIXTURES / f"{name}.sctrace")],
                          capture_output=True, text=True, timeout=120)
    return proc


def analysis(name):
    proc = report(name, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "streamcheck-report/1"
    (process,) = doc["processes"]
    assert process["status"] == "complete" and process["dropped_records"] == 0
    return process


def findings(process, rule):
    return [f for f in process["findings"] if f["rule"] == rule]


def errors(process):
    return [f for f in process["findings"] if f["severity"] == "error"]


def test_fixtures_say_how_they_were_recorded():
    text = (FIXTURES / "RECORDED.md").read_text()
    assert "NVIDIA" in text and "driver" in text and "tools/record-fixtures" in text
    for trace in FIXTURES.glob("*.sctrace"):
        assert trace.name in text, f"{trace.name} is not described in RECORDED.md"


def test_nonblocking_streams_overlap():
    p = analysis("arrangements-nonblocking")
    dev = p["devices"][0]
    assert dev["concurrency"] > 1.2
    assert dev["overlap_ns"] > 0 and dev["intervals_total"] >= 1
    names = {n for i in dev["intervals"] for n in (i["kernel_a"]["demangled"], i["kernel_b"]["demangled"])}
    assert any("spin" in n for n in names) and any("sweep" in n for n in names), names
    assert not errors(p)


def test_trap_is_a_serializing_legacy_stream_error():
    p = analysis("arrangements-trap")
    assert p["devices"][0]["concurrency"] == pytest.approx(1.0, abs=0.05)
    (legacy,) = findings(p, "legacy-stream")
    assert legacy["severity"] == "error"
    # each of the 3 reps: the sweeps on the legacy stream wait for the ~5 ms spin
    assert legacy["totals"]["serialized"] >= 3
    assert legacy["cost_ns"] >= 3 * 4_000_000
    blocking = [s for s in p["streams"] if s["kind"] == "blocking" and s["kernel_count"]]
    assert len(blocking) == 1 and blocking[0]["created_by"] is not None


def test_legacy_alone_is_a_note():
    p = analysis("arrangements-legacy")
    assert p["devices"][0]["concurrency"] == pytest.approx(1.0, abs=0.05)
    (legacy,) = findings(p, "legacy-stream")
    assert legacy["severity"] == "note" and legacy["cost_ns"] == 0
    assert not errors(p)


def test_two_full_grids_overlap_without_gain():
    p = analysis("arrangements-two-grids")
    dev = p["devices"][0]
    assert dev["speedup"] == pytest.approx(1.0, abs=0.08)
    assert dev["solo_known"] == dev["kernel_count"]


def test_pageable_pipeline_is_flagged_with_its_cost():
    p = analysis("pipeline-pageable")
    (found,) = findings(p, "pageable-async")
    assert found["severity"] == "error"
    assert found["count"] == 8
    assert found["totals"]["bytes"] == 8 * 32 * MIB
    assert 0 < found["cost_ns"] <= p["span_ns"]
    assert found["worst"]["evidence"]["host_blocked_us"] > 0


def test_pinned_pipeline_is_clean():
    p = analysis("pipeline-pinned")
    assert not findings(p, "pageable-async")
    assert not errors(p)


@pytest.mark.parametrize("name", sorted(t.stem for t in FIXTURES.glob("*.sctrace")))
def test_text_report_of_every_fixture(name):
    proc = report(name)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("== ") and "concurrency" in proc.stdout


def test_whole_folder_gates_on_errors():
    proc = subprocess.run([str(REPORT), "-q", "--fail-on", "error", str(FIXTURES)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "legacy-stream" in proc.stdout and "pageable-async" in proc.stdout
