"""The suspects' fixtures (tests/fixtures/suspects-*.sctrace, recorded by tools/record-fixtures
from tests/samples/suspects.cu) through the report tool: each clean twin has no error and
none of its killer's rules; each killer is reported by the rule tests/gpu/suspects_expect.py
names, an expected failure (xfail, not strict) where that rule or its capture is missing.
A fixture not recorded yet skips its tests. Whether a killer happened in a recording (did a
call wait? did the kernel start late?) is read from the trace itself.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build"))
FIXTURES = SOURCE / "tests" / "fixtures"
REPORT = BUILD / "src" / "report" / "streamcheck-report"

sys.path.insert(0, str(SOURCE / "tests" / "cli"))
sys.path.insert(0, str(SOURCE / "tests" / "gpu"))
import sctrace  # noqa: E402
from suspects_expect import (HOST_FUNC_RULE, MANAGED_RULE,  # noqa: E402
                             PIN_RULE, PRIORITY_RULE, TWIN_GAPS,
                             TWINS)

CALL_FREE, CALL_HOST_REGISTER, CALL_HOST_UNREGISTER, CALL_SET_LIMIT = (  # trace_format.h
    sctrace.CALL_FREE, sctrace.CALL_HOST_REGISTER, sctrace.CALL_HOST_UNREGISTER,
    sctrace.CALL_SET_LIMIT)


def fixture(case):
    path = FIXTURES / f"suspects-{case}.sctrace"
    if not path.exists():
        pytest.skip(f"{path.name} is not recorded yet (tools/record-fixtures)")
    return path


def analysis(case):
    proc = subprocess.run([str(REPORT), "--json", str(fixture(case))], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (process,) = json.loads(proc.stdout)["processes"]
    assert process["status"] == "complete" and process["dropped_records"] == 0
    return process


def findings(process, rule):
    return [f for f in process["findings"] if f["rule"] == rule]


def costly(found):
    return found and sum(f["cost_ns"] for f in found) > 0


def site_apis(found):
    return [s["call"]["api"] for f in found for s in f["sites"] if s.get("call")]


def calls_that_waited(trace, classes):
    """Calls of these classes in progress when a spin on another stream ended, returning
    within 50 us of that end: they waited for it."""
    spins = [k for k in trace["kernels"] if "spin_kernel" in k["name"]]
    return [c for c in trace["calls"] if c["call_class"] in classes and
            any(c["start_ns"] < k["end_ns"] <= c["end_ns"] <= k["end_ns"] + 50_000
                for k in spins)]


@pytest.mark.parametrize("case", sorted(TWINS))
def test_twin_fixture_is_clean(request, case):
    if case in TWIN_GAPS:
        request.applymarker(pytest.mark.xfail(reason=TWIN_GAPS[case], strict=True))
    p = analysis(case)
    found = [f for f in p["findings"] if f["rule"] in TWINS[case] and
             not (f["rule"] == "host-sync" and f["severity"] == "note")]
    assert not found, p["findings"]
    errors = [f for f in p["findings"] if f["severity"] == "error"]
    assert not errors, errors


def test_lazy_once_fixture_is_reported_when_the_launch_was_held_back():
    t = sctrace.read(str(fixture("lazy-once")))
    calls = {c["correlation_id"]: c for c in t["calls"]}
    once = next(k for k in t["kernels"] if "once_kernel" in k["name"])
    issue = calls[once["correlation_id"]]["start_ns"]
    spins = [k for k in t["kernels"] if "spin_kernel" in k["name"] and
             k["stream_id"] != once["stream_id"] and k["start_ns"] <= issue < k["end_ns"]]
    if not (spins and once["start_ns"] >= spins[0]["end_ns"] - 1_000):
        pytest.skip("once_kernel ran beside the spin in this recording")
    assert costly(findings(analysis("lazy-once"), "lazy-loading"))


def test_cross_thread_free_fixture_is_reported():
    t = sctrace.read(str(fixture("cross-thread-free")))
    # measured on an H200: 350-510 us while the other thread's spins ran, 70-85 us after
    if not [c for c in t["calls"] if c["call_class"] == CALL_FREE and
            c["end_ns"] - c["start_ns"] > 200_000]:
        pytest.skip("no cudaFree waited in this recording")
    found = findings(analysis("cross-thread-free"), "implicit-sync")
    assert costly(found) and any("cudaFree" in a for a in site_apis(found)), found


@pytest.mark.parametrize("case,classes,api", [
    ("register-per-step", {CALL_HOST_REGISTER, CALL_HOST_UNREGISTER}, "cudaHost"),
    ("setlimit-mid-run", {CALL_SET_LIMIT}, "cudaDeviceSetLimit"),
])
def test_config_calls_that_waited_are_implicit_syncs(case, classes, api):
    t = sctrace.read(str(fixture(case)))
    if not calls_that_waited(t, classes):
        pytest.skip("none of the calls waited for the other stream in this recording")
    found = findings(analysis(case), "implicit-sync")
    assert costly(found) and any(a.startswith(api) for a in site_apis(found)), found


@pytest.mark.parametrize("case", ["host-func", "stream-callback"])
def test_host_function_fixture_is_reported(case):
    found = findings(analysis(case), HOST_FUNC_RULE)
    assert costly(found), found
    # the sample queues one host function between its two kernels on A, every step (20): the
    # hold of each is one instance when A's next kernel was issued before the first ended
    assert 1 <= sum(f["count"] for f in found) <= 20, found


def test_register_per_step_fixture_is_pin_per_step():
    """The loop pins and unpins a buffer every step (8 steps): the registers after the first
    and the unregisters before the last are what pinning once would take away."""
    found = findings(analysis("register-per-step"), PIN_RULE)
    assert costly(found), found
    (f,) = found
    assert f["count"] >= 2 * (8 - 1), f
    assert any(a.startswith("cudaHostRegister") for a in site_apis(found)), found


def test_peer_copy_fixture_is_reported():
    """Recorded on two H200s: 8 copies of 64 MiB with peer access off, each staged through
    host memory (a device-to-host and a host-to-device half per call)."""
    (found,) = findings(analysis("peer-copy"), "peer-access")
    assert found["count"] == 8 and costly([found]), found
    assert all(a.startswith("cudaMemcpyPeerAsync") for a in site_apis([found])), found


def test_priority_fixture_is_reported():
    found = findings(analysis("priority"), PRIORITY_RULE)
    assert costly(found), found
    # the low-priority chain's sum, queued behind the first step, waited for every grid of
    # the two high-priority streams issued after it: it is named, on the low stream
    (f,) = found
    assert f["worst"]["evidence"]["overtaken_by"] >= 2, f
    assert f["worst"]["evidence"]["priority"] > f["worst"]["evidence"]["highest_overtaking_priority"]


def test_managed_faults_fixture_is_reported():
    """Recorded with unified-memory tracing on: the two streams' kernels pulled their 4 MiB
    chunks in on demand (CUPTI's migrations, not cudaMemPrefetchAsync)."""
    t = sctrace.read(str(fixture("managed-faults")))
    demand = [u for u in t["unified"] if u["kind"] == sctrace.UNIFIED_HTOD
              and u["flags"] != sctrace.CAUSE_USER]
    assert demand, "recorded without unified-memory tracing"
    (found,) = findings(analysis("managed-faults"), MANAGED_RULE)
    assert costly([found]), found
    assert found["totals"]["bytes"] <= sum(u["value"] for u in demand), found


def test_managed_prefetch_fixture_moved_its_pages_by_prefetch():
    """The twin's migrations are the program's own prefetches: recorded with the tracing on,
    and no managed-faults finding (TWINS checks the latter for every twin)."""
    t = sctrace.read(str(fixture("managed-prefetch")))
    htod = [u for u in t["unified"] if u["kind"] == sctrace.UNIFIED_HTOD]
    assert htod and all(u["flags"] == sctrace.CAUSE_USER for u in htod)
