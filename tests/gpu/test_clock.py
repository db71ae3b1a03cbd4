"""The calls' clock (src/preload/clock.h): from about 200 ms into the capture, a call's times
come from the CPU's counter, converted to CUPTI's clock by a line through pairs the agent
takes. The GPU's records are in CUPTI's clock, so a conversion that drifted would show
between the two: a device synchronization returns a few microseconds after the last kernel
before it ends (4.5 us at least in the recorded fixture), and a kernel starts after its
launch call began.

killers device-sync-per-step runs here for about a second (--steps 8000), once with
STREAMCHECK_TSC=0 (every time CUPTI's) and once by default, and the synchronizations past the
first 300 ms are compared: the median time from the last kernel's end to the
synchronization's return must agree within 1 us, and no synchronization may return before a
kernel it waited for ended."""
import bisect
import os
import statistics
import subprocess
import sys

import pytest

from samples import sample

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
import sctrace  # noqa: E402

STEPS = 8000
SETTLED_NS = 300_000_000      # the line is in use from the agent's second round, ~200 ms


def traced(build, tmp_path, name, extra_env):
    out = tmp_path / name
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")}
    env.update({"LD_PRELOAD": str(build / "src" / "preload" / "libstreamcheck.so"),
                "STREAMCHECK_OUT": str(out), "STREAMCHECK_SUMMARY": "0", **extra_env})
    p = subprocess.run([str(sample(build, "killers")), "device-sync-per-step", "--steps",
                        str(STEPS)], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    traces = sorted(out.glob("*.sctrace"))
    assert len(traces) == 1, list(out.iterdir())
    return sctrace.read(str(traces[0])), p.stderr


def sync_slacks(t):
    """For each device synchronization past SETTLED_NS: its end minus the latest end of the
    kernels that started before it began. And each kernel's start minus its launch's."""
    kernels = sorted(t["kernels"], key=lambda k: k["start_ns"])
    starts = [k["start_ns"] for k in kernels]
    latest_end, m = [], 0
    for k in kernels:
        m = max(m, k["end_ns"])
        latest_end.append(m)
    settled = t["process"]["start_ns"] + SETTLED_NS
    slacks = []
    for c in t["calls"]:
        if c["name"] != "cudaDeviceSynchronize" or c["start_ns"] < settled:
            continue
        i = bisect.bisect_left(starts, c["start_ns"])
        if i:
            slacks.append(c["end_ns"] - latest_end[i - 1])
    launches = {c["correlation_id"]: c for c in t["calls"]}
    leads = [k["start_ns"] - launches[k["correlation_id"]]["start_ns"] for k in kernels
             if k["correlation_id"] in launches and k["start_ns"] >= settled]
    return slacks, leads


def test_the_counter_keeps_cuptis_time_against_the_gpus_records(build, tmp_path):
    cupti, _ = traced(build, tmp_path, "cupti", {"STREAMCHECK_TSC": "0"})
    counter, stderr = traced(build, tmp_path, "counter", {})
    assert "CUPTI's clock" not in stderr, stderr
    assert not [n for n in counter["notes"] if "CUPTI's clock" in n["text"]], counter["notes"]
    s_cupti, l_cupti = sync_slacks(cupti)
    s_counter, l_counter = sync_slacks(counter)
    assert len(s_cupti) > 1000 and len(s_counter) > 1000, (len(s_cupti), len(s_counter))
    med_cupti, med_counter = statistics.median(s_cupti), statistics.median(s_counter)
    print(f"synchronizations past 300 ms: {len(s_cupti)} / {len(s_counter)}; return after the "
          f"last kernel's end, median {med_cupti} ns (CUPTI's clock) / {med_counter} ns "
          f"(counter), least {min(s_cupti)} / {min(s_counter)} ns; kernel start after launch "
          f"start, least {min(l_cupti)} / {min(l_counter)} ns")
    assert abs(med_counter - med_cupti) < 1000
    assert min(s_counter) >= 0 and min(l_counter) >= 0
