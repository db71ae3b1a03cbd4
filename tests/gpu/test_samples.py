"""The bundled samples under streamcheck on a real GPU: overlap is measured from the GPU's
own timestamps, and each killer is found where it is and only there."""
import pytest

from samples import Run, sample

ARRANGEMENTS = ["nonblocking", "trap", "legacy", "two-grids"]


@pytest.fixture(scope="session")
def runs(build, tmp_path_factory):
    """Each sample runs once; the tests below read its report."""
    cache = {}

    def get(binary, *args, **kw):
        key = (binary, args, tuple(sorted(kw.get("env", {}).items())))
        if key not in cache:
            folder = tmp_path_factory.mktemp(f"{binary}-{'-'.join(args)}")
            cache[key] = Run(build, folder, [sample(build, binary), *args], **kw)
            assert cache[key].proc.returncode == 0, cache[key].proc.stderr
        return cache[key]

    return get


def test_two_nonblocking_streams_overlap(runs):
    run = runs("arrangements", "nonblocking")
    dev = run.device()
    assert dev["concurrency"] > 1.2, dev
    assert dev["intervals_total"] >= 1
    pairs = [{i["kernel_a"]["demangled"], i["kernel_b"]["demangled"]} for i in dev["intervals"]]
    assert any(any("spin" in k for k in p) and any("sweep" in k for k in p) for p in pairs), pairs
    assert not [f for f in run.findings() if f["severity"] == "error"], run.findings()


def test_trap_serializes_and_is_an_error(runs):
    run = runs("arrangements", "trap")
    assert run.device()["concurrency"] == pytest.approx(1.0, abs=0.05)
    legacy = run.findings("legacy-stream")
    assert len(legacy) == 1 and legacy[0]["severity"] == "error", legacy
    # 3 reps: each rep's sweeps wait for its spin (~5 ms); the fix runs them inside it, saving
    # their own ~3.2 ms a rep (measured on the H200 by tools/bench/accuracy: 9.6 ms in all)
    assert legacy[0]["totals"]["serialized"] >= 3
    assert legacy[0]["cost_ns"] > 3 * 2_500_000, legacy[0]
    site = legacy[0]["sites"][0]["call"]["call_site"]
    assert site and site["function"] and "arrangements" in (site["module"] or ""), site


def test_legacy_alone_is_no_error(runs):
    run = runs("arrangements", "legacy")
    assert run.device()["concurrency"] == pytest.approx(1.0, abs=0.05)
    legacy = run.findings("legacy-stream")
    assert legacy and legacy[0]["severity"] != "error", legacy


def test_two_full_grids_show_no_productive_overlap(runs):
    run = runs("arrangements", "two-grids")
    dev = run.device()
    # the grids interleave a little, but together they take as long as one after the other
    assert dev["speedup"] == pytest.approx(1.0, abs=0.08), dev
    assert dev["solo_known"] == dev["kernel_count"]


def test_pageable_pipeline_is_flagged(runs):
    run = runs("pipeline", "pageable")
    found = run.findings("pageable-async")
    assert len(found) == 1 and found[0]["severity"] == "error", found
    assert found[0]["count"] == 8  # 4 chunks, a copy in and a copy out each
    assert found[0]["totals"]["bytes"] == 8 * 32 * 1024 * 1024
    assert found[0]["cost_ns"] > 0


def test_pinned_pipeline_is_not_flagged(runs):
    run = runs("pipeline", "pinned")
    assert not run.findings("pageable-async"), run.findings()
    assert not [f for f in run.findings() if f["severity"] == "error"]


@pytest.mark.parametrize("arrangement", ["trap", "nonblocking"])
def test_static_and_shared_cudart_give_the_same_findings(runs, arrangement):
    static = runs("arrangements", arrangement)
    shared = runs("arrangements_shared", arrangement)
    # Errors are the measured serializations: the same in both. (A no-room warning can come
    # and go between runs: it depends on which of two kernels ready at the same microsecond
    # the hardware started first.)
    assert ({(f["rule"], f["severity"]) for f in static.findings() if f["severity"] == "error"} ==
            {(f["rule"], f["severity"]) for f in shared.findings() if f["severity"] == "error"})
    assert static.process()["counts"]["kernels"] == shared.process()["counts"]["kernels"]


@pytest.mark.parametrize("binary,args", [("arrangements", ("nonblocking",)),
                                         ("arrangements_shared", ("trap",)),
                                         ("pipeline", ("pinned",))])
def test_every_kernel_has_its_launch(runs, binary, args):
    """Every kernel CUPTI saw run was seen launched, whichever way the binary reaches CUDA."""
    (trace,) = runs(binary, *args).read_traces()
    launches = [c for c in trace["calls"] if c["call_class"] == 1]
    assert len(trace["kernels"]) > 0
    assert len(launches) == len(trace["kernels"])
    launch_ids = {c["correlation_id"] for c in launches}
    assert all(k["correlation_id"] in launch_ids for k in trace["kernels"])
    # Every launch has a stack, or shares that of a sampled launch of the same thread, kernel
    # and stream (SC_API_STACK_SHARED: its correlation id in aux).
    by_corr = {c["correlation_id"]: c for c in trace["calls"]}
    for c in launches:
        if c["n_frames"] == 0:
            assert c["flags"] & 4, c
            sampled = by_corr[c["aux"]]
            assert sampled["n_frames"] > 0 and sampled["tid"] == c["tid"], (c, sampled)
            assert sampled["stream"] == c["stream"], (c, sampled)
    assert trace["status"] == "complete" and trace["end"]["dropped_records"] == 0
