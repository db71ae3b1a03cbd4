"""NVTX ranges in the report: per-range metrics and per-name rows (JSON and text), and the idle
gaps of every overlap scope. All expected numbers are worked out from the timings below."""

import json

import pytest

from sctrace import (CALL_MEMCPY_ASYNC, MEM_PAGEABLE, NON_BLOCKING, TRACER_LAUNCH_NS,
                     TRACER_MEMCPY_ASYNC_NS, Trace)

US = 1_000
BASE = 1_000_000_000        # sctrace adds it to every time
ANY_THREAD = 0xFFFFFFFF     # depth of a start/end range


def training_trace(path):
    """Times in us; the main thread is tid 100, the loader thread tid 200.

    step (push/pop, 0 .. 500):      A 50-150 on 21, B 100-200 on 22, A 300-400 on 21
                                    (launched at 20, 30, 250)
      fwd (depth 1, 10 .. 200):     the first A and B (launched at 20 and 30)
    loader (start/end, 600 .. 900): async copy from pageable memory on tid 200: call
                                    650-850, copy 700-800 on stream 23
    step (push/pop, 1000 .. 1500):  A 1050-1150, B 1200-1300 (launched at 1010 and 1020)

    Solo: A ran alone at 300-400 and 1050-1150 (100 each), B at 1200-1300 (100): every
    kernel counts 100.
    step 1: busy 150 + 100 = 250, sum 300, concurrency 1.2, overlap 50, solo 300 (3 known),
            speedup 1.2, idle 200-300 = 100 (one gap), 3 calls
    step 2: busy 200, sum 200, idle 1150-1200 = 50 (one gap), 2 calls
    fwd:    busy 150, sum 200, overlap 50, no idle, 2 calls
    loader: no kernels, copy busy 100, 1 call; the pageable copy blocked the host 200 with no
            kernel running: pageable-async, 1 instance, 200 measured. What pinning saves,
            from the replay: the call returns after the default 5 plus the 50 it spent after
            its copy, at 705 instead of 850, so the loader range (its thread's marks) replays
            300 long as recorded and 155 fixed, each less what tracing added to the call
            (TRACER_MEMCPY_ASYNC_NS, left out of every replayed call and of the pinned
            call's default); but the run ends with step's end mark at 1500
            on tid 100, which waits for nothing on tid 200: saving 0, a note, a join (it
            waited 200 for nothing the run would gain)
    step row: 2 ranges, wall 1000 (mean and max 500), busy 450, sum 500, concurrency and
              speedup 500/450, idle 150 in 2 gaps (longest 100), 5 calls
    Rows by summed wall: step 1000, loader 300, fwd 190.
    """
    t = Trace(exe="/usr/bin/train", pid=77)
    t.device(0, name="Test GPU", sm_count=4)
    for s in (21, 22, 23):
        t.stream(s, NON_BLOCKING)
    t.range("step", 0, 500 * US, tid=100, depth=0)
    t.range("fwd", 10 * US, 200 * US, tid=100, depth=1)
    t.range("loader", 600 * US, 900 * US, tid=200, depth=ANY_THREAD)
    t.range("step", 1000 * US, 1500 * US, tid=100, depth=0)
    t.launch("_Z1Av", 50 * US, 150 * US, 21, issue=20 * US)
    t.launch("_Z1Bv", 100 * US, 200 * US, 22, issue=30 * US)
    t.launch("_Z1Av", 300 * US, 400 * US, 21, issue=250 * US)
    copy = t.api("cudaMemcpyAsync", 650 * US, 850 * US, CALL_MEMCPY_ASYNC, stream=0,
                 nbytes=1 << 20, tid=200)
    t.memcpy(700 * US, 800 * US, 1 << 20, 23, src_kind=MEM_PAGEABLE, correlation_id=copy)
    t.launch("_Z1Av", 1050 * US, 1150 * US, 21, issue=1010 * US)
    t.launch("_Z1Bv", 1200 * US, 1300 * US, 22, issue=1020 * US)
    return t.write(path)


@pytest.fixture
def doc(run_report, tmp_path):
    r = run_report("--json", training_trace(tmp_path / "train-77.sctrace"))
    assert r.returncode in (0, 3), r.stderr
    return json.loads(r.stdout)


def by_start(proc, name):
    return {r["start_ns"] - BASE: r for r in proc["ranges"] if r["name"] == name}


def test_range_metrics_json(doc):
    (proc,) = doc["processes"]
    assert [r["name"] for r in proc["ranges"]] == ["step", "fwd", "loader", "step"]
    steps = by_start(proc, "step")
    s1, s2 = steps[0], steps[1000 * US]
    assert s1["kind"] == "push-pop" and s1["tid"] == 100 and s1["depth"] == 0
    assert s1["domain"] is None
    assert s1["wall_ns"] == 500 * US
    assert s1["call_count"] == 3
    assert s1["kernel_count"] == 3
    assert s1["busy_ns"] == 250 * US
    assert s1["kernel_sum_ns"] == 300 * US
    assert s1["overlap_ns"] == 50 * US
    assert s1["concurrency"] == pytest.approx(1.2)
    assert s1["solo_sum_ns"] == 300 * US and s1["solo_known"] == 3
    assert s1["speedup"] == pytest.approx(1.2)
    assert (s1["idle_ns"], s1["gap_count"], s1["longest_gap_ns"]) == (100 * US, 1, 100 * US)
    assert (s1["first_ns"] - BASE, s1["last_ns"] - BASE) == (50 * US, 400 * US)
    assert s1["findings"] == []
    assert (s2["busy_ns"], s2["idle_ns"], s2["call_count"]) == (200 * US, 50 * US, 2)

    (fwd,) = by_start(proc, "fwd").values()
    assert fwd["depth"] == 1
    assert (fwd["busy_ns"], fwd["kernel_sum_ns"], fwd["overlap_ns"]) == (150 * US, 200 * US,
                                                                          50 * US)
    assert (fwd["idle_ns"], fwd["gap_count"], fwd["call_count"]) == (0, 0, 2)

    (loader,) = by_start(proc, "loader").values()
    assert loader["kind"] == "start-end" and loader["depth"] is None
    assert (loader["kernel_count"], loader["copy_count"], loader["memset_count"]) == (0, 1, 0)
    assert loader["copy_busy_ns"] == 100 * US and loader["copy_compute_ns"] == 0
    assert loader["call_count"] == 1
    (f,) = loader["findings"]
    assert (f["rule"], f["count"], f["cost_ns"]) == ("pageable-async", 1, 0)
    finding = proc["findings"][f["finding"]]
    assert finding["rule"] == "pageable-async"
    assert f["severity"] == finding["severity"] == "note"
    assert (finding["waited_ns"], finding["join"]) == (200 * US, True)
    assert (loader["replay_wall_ns"], loader["fixed_wall_ns"]) == (
        300 * US - TRACER_MEMCPY_ASYNC_NS, 155 * US - TRACER_MEMCPY_ASYNC_NS)
    # its three launch calls, each TRACER_LAUNCH_NS shorter in the replay, bring its end
    # mark forward
    step_replayed = 500 * US - 3 * TRACER_LAUNCH_NS
    assert (s1["replay_wall_ns"], s1["fixed_wall_ns"]) == (step_replayed, step_replayed)


def test_range_names_json(doc):
    (proc,) = doc["processes"]
    rows = proc["range_names"]
    assert [(r["name"], r["count"]) for r in rows] == [("step", 2), ("loader", 1), ("fwd", 1)]
    step = rows[0]
    assert (step["wall_ns"], step["mean_wall_ns"], step["max_wall_ns"]) == (1000 * US, 500 * US,
                                                                            500 * US)
    assert step["call_count"] == 5
    assert (step["kernel_count"], step["busy_ns"], step["kernel_sum_ns"]) == (5, 450 * US,
                                                                              500 * US)
    assert step["concurrency"] == pytest.approx(500 / 450)
    assert step["speedup"] == pytest.approx(500 / 450)
    assert (step["idle_ns"], step["gap_count"], step["longest_gap_ns"]) == (150 * US, 2, 100 * US)
    assert step["findings"] == []
    assert [f["rule"] for f in rows[1]["findings"]] == ["pageable-async"]


def test_idle_gaps_in_devices_and_streams(doc):
    """Device 0 ran 50-200, 300-400, the copy 700-800, 1050-1150 and 1200-1300: idle 100 +
    300 + 250 + 50 = 700 in 4 gaps, the longest 300. Stream 21 (A only) ran 50-150,
    300-400, 1050-1150: idle 150 + 650 = 800 in 2 gaps. Stream 23 (the copy alone): none."""
    (proc,) = doc["processes"]
    (dev,) = proc["devices"]
    assert (dev["idle_ns"], dev["gap_count"], dev["longest_gap_ns"]) == (700 * US, 4, 300 * US)
    streams = {s["stream_id"]: s for s in proc["streams"]}
    s21 = streams[21]
    assert (s21["idle_ns"], s21["gap_count"], s21["longest_gap_ns"]) == (800 * US, 2, 650 * US)
    assert (streams[23]["idle_ns"], streams[23]["gap_count"]) == (0, 0)


def test_range_table_text(run_report, tmp_path):
    out = run_report(training_trace(tmp_path / "train-77.sctrace")).stdout
    assert "ranges (NVTX): 4 ranges under 3 names; one row per name" in out
    table = out[out.index("ranges (NVTX)"):]
    rows = {line.split()[0]: line.split() for line in table.splitlines()[3:6]}
    assert list(rows) == ["step", "loader", "fwd"]
    # name count calls wall mean busy conc prod copy/comp idle top-finding
    assert rows["step"][1:3] == ["2", "5"]
    assert rows["step"][3:5] == ["1.00", "ms"]          # wall 1000 us
    assert rows["step"][5:7] == ["500", "us"]           # mean
    assert rows["step"][9:11] == ["1.11x", "1.11x"]     # 500/450
    assert rows["step"][11] == "-"                      # no copies in the steps
    assert rows["step"][12:14] == ["150", "us"] and rows["step"][-1] == "-"
    assert "pageable-async 1x 0 ns" in " ".join(rows["loader"])     # saves nothing
    # the table comes after the streams and before the findings
    assert out.index("streams:") < out.index("ranges (NVTX)") < out.index("findings")


def test_no_ranges_no_table(run_report, tmp_path):
    t = Trace(exe="/usr/bin/plain", pid=5)
    t.device(0)
    t.launch("_Z1Av", 10 * US, 20 * US, 7)
    path = t.write(tmp_path / "plain-5.sctrace")
    assert "ranges (NVTX)" not in run_report(path).stdout
    proc = json.loads(run_report("--json", path).stdout)["processes"][0]
    assert proc["ranges"] == [] and proc["range_names"] == []
