"""Traces recorded on a host of two H200s (tests/fixtures/RECORDED.md, "Two GPUs"), replayed
through the report tool in CI: a process driving two devices, where a cross-device wait made
the devices take turns, against its twin without the wait; and a two-rank DDP job over NCCL,
merged over its ranks from the traces and from the summaries the wrapper left beside them.
Every expected value is worked out from the raw records (tests/cli/sctrace.py), not from a
past report."""
import json
import re
import subprocess

import pytest

from test_replay import FIXTURES, REPORT, analysis, findings, sctrace

RANKS = FIXTURES / "ddp-two-ranks"
NCCL = re.compile(r"nccl\w*Kernel")     # a second reader of NCCL's kernel names


def measured_pass_ns(name):
    """The sample's measured pass from the records: each device's last kernel is its long
    spin (calibration and warm-up come before); from the first of them starting to the last
    ending."""
    ks = sctrace.read(str(FIXTURES / f"{name}.sctrace"))["kernels"]
    last = [max((k for k in ks if k["device"] == d), key=lambda k: k["start_ns"])
            for d in (0, 1)]
    return max(k["end_ns"] for k in last) - min(k["start_ns"] for k in last)


def test_cross_device_wait_priced_at_what_the_recorded_twin_saves():
    """devices.cu: each device spins ~20 ms; with the wait device 1 starts when device 0
    ends. The twin runs the same kernels at once: the saving is the difference of the two
    recordings' measured passes, within the accuracy goal (20%)."""
    p, twin = analysis("devices-cross-wait"), analysis("devices-independent")
    (f,) = findings(p, "cross-device-wait")
    assert not findings(twin, "cross-device-wait")
    measured = measured_pass_ns("devices-cross-wait") - measured_pass_ns("devices-independent")
    assert measured > 15_000_000, measured              # the recordings show the turns
    assert abs(f["cost_ns"] - measured) <= 0.2 * measured, (f["cost_ns"], measured)
    assert {d["device"] for d in p["devices"] if d["kernel_count"]} == {0, 1}


def merged(*paths):
    proc = subprocess.run([str(REPORT), "--json", "--no-symbols", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_two_ranks_merged_with_their_communication():
    doc = merged(RANKS)
    rows = doc["ranks"]["ranks"]
    assert [r["rank"] for r in rows] == [0, 1]
    assert all(r["world_size"] == 2 and r["complete"] for r in rows)
    for proc in doc["processes"]:
        raw = sctrace.read(proc["path"])
        comm = [k for k in raw["kernels"] if NCCL.search(k["name"] or "")]
        compute = [k for k in raw["kernels"] if not NCCL.search(k["name"] or "")]
        rank = int(re.search(r"-rank(\d+)-", proc["path"]).group(1))
        (dev,) = [d for d in proc["devices"] if d["kernel_count"]]
        assert dev["device"] == rank                    # LOCAL_RANK picked the GPU
        assert dev["comm"]["kernels"] == len(comm) >= 20    # a collective per step at least
        assert dev["kernel_count"] == len(compute)      # NCCL left out of compute
        assert dev["comm"]["kernel_time_ns"] == sum(k["end_ns"] - k["start_ns"] for k in comm)
        c = dev["comm"]
        assert c["overlapped_ns"] + c["exposed_ns"] == c["busy_ns"] > 0
        row = next(r for r in rows if r["rank"] == rank)
        assert (row["comm_ns"], row["comm_overlapped_ns"]) == (c["busy_ns"], c["overlapped_ns"])


def test_two_ranks_from_summaries_as_from_traces():
    keys = ("rank", "kernels", "busy_ns", "comm_ns", "comm_overlapped_ns", "comm_exposed_ns")
    from_traces = merged(RANKS)["ranks"]
    from_summaries = merged(*sorted(RANKS.glob("*.summary.json")))["ranks"]
    assert [{k: r[k] for k in keys} for r in from_summaries["ranks"]] == \
        [{k: r[k] for k in keys} for r in from_traces["ranks"]]
    assert from_summaries["slowest"]["rank"] == from_traces["slowest"]["rank"]


def test_symbols_travel_with_the_rank_traces():
    """The job's binaries are not on this machine: the .syms files the wrapper left resolve
    the frames libdw resolved there."""
    proc = subprocess.run([str(REPORT), str(RANKS)], capture_output=True, text=True,
                          timeout=120)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("symbols:")]
    assert len(lines) == 2
    for l in lines:
        m = re.search(r"(\d+) of \d+ frames resolved to file:line \((\d+) from the .syms", l)
        assert m and int(m.group(1)) > 0, l


@pytest.mark.parametrize("name", ["devices-cross-wait", "devices-independent"])
def test_two_device_replay_is_faithful(name):
    r = analysis(name)["replay"]
    assert abs(r["error"]) <= 0.05 and r["trusted"], r
