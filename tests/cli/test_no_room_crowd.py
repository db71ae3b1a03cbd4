"""What no-room says room saves when the kernel that waited then ran crowded
(src/analyze/no_room_crowd.c): built traces whose saving follows from how they are built.

Each trace has two phases on streams 21 (a spin, 8 blocks) and 22 (sweeps of 1056 blocks of
256 threads: 8 per SM on 132 SMs, a full grid). Phase 1 shows how long the two kernels run
beside each other with room: the spin 5 ms with four 0.86 ms sweeps inside it. Phase 2
starts at 20 ms: a sweep first, the spin issued 10 us later and the other sweeps after it;
the spin waits for room until 0.6 ms, then runs crowded, 10 ms, and the second sweep beside
it 5.7 ms.
With room the spin would start when issued (20.013 ms), run 5 ms and end at 25.01 ms; the
sweeps run 0.86 ms each and are done by 23.5 ms: the run would end at 25.01 ms instead of
30.6 ms, 5.59 ms sooner."""

import json

import pytest

from sctrace import NON_BLOCKING, Trace

SPIN, SWEEP = "_Z11spin_kernelPf", "_Z12sweep_kernelPf"
FULL = {"grid": (1056, 1, 1), "block": (256, 1, 1)}
SMALL = {"grid": (8, 1, 1), "block": (128, 1, 1)}
SWEEP_NS = 860_000
PHASE2 = 20_000_000


def build(path, phase1_in_company=True, spin2_ns=10_000_000, sweep2_ns=5_700_000,
          phase1_streams=(21, 22)):
    t = Trace(exe="/usr/bin/crowd", pid=31)
    t.device(0, sm_count=132)
    for s in sorted({21, 22, *phase1_streams}):
        t.stream(s, NON_BLOCKING)
    # phase 1: the spin with the sweeps inside it (or, without company, the sweeps after it)
    t.launch(SPIN, 1_000_000, 6_000_000, phase1_streams[0], **SMALL)
    first = 1_100_000 if phase1_in_company else 6_100_000
    for k in range(4):
        start = first + k * (SWEEP_NS + 1_000)
        t.launch(SWEEP, start, start + SWEEP_NS, phase1_streams[1], **FULL)
    # phase 2: a sweep reaches the device first, the spin waits for room, then runs crowded
    t.launch(SWEEP, PHASE2, PHASE2 + SWEEP_NS, 22, **FULL)
    t.launch(SPIN, PHASE2 + 600_000, PHASE2 + 600_000 + spin2_ns, 21, issue=PHASE2 + 10_000,
             **SMALL)
    start = PHASE2 + SWEEP_NS + 1_000
    for k, dur in enumerate((sweep2_ns, SWEEP_NS, SWEEP_NS)):     # issued ahead, as programs do
        t.launch(SWEEP, start, start + dur, 22, issue=PHASE2 + 20_000 + k * 10_000, **FULL)
        start += dur + 1_000
    return t.write(path)


def no_room(run_report, path):
    r = run_report("--json", path)
    assert r.returncode in (0, 3), r.stderr
    (p,) = json.loads(r.stdout)["processes"]
    (f,) = [f for f in p["findings"] if f["rule"] == "no-room" and f["waited_ns"] > 0]
    return f


def test_the_crowded_spin_and_sweep_run_as_long_as_with_room(run_report, tmp_path):
    f = no_room(run_report, build(tmp_path / "crowd-31.sctrace"))
    assert f["waited_ns"] == pytest.approx(590_000, abs=10_000)
    # the wait alone (the replay before) would save about 0.6 ms
    assert f["cost_ns"] == pytest.approx(5_590_000, rel=0.03), f["title"]
    assert f["totals"]["crowded_kernels"] == 2      # the spin, and the 5.7 ms sweep
    assert f["totals"]["crowded_extra_us"] == pytest.approx(5_000 + 4_840, abs=1)
    assert "then 2 kernel(s) ran crowded" in f["title"]


def test_instances_on_other_streams_are_instances(run_report, tmp_path):
    """Phase 1 on streams 23 and 24: the same kernels with the same launch, so their
    durations there are the spin's and the sweep's with room all the same (a kernel's
    instances are those of its launch shape on its device, whatever the stream)."""
    f = no_room(run_report, build(tmp_path / "crowd-31.sctrace", phase1_streams=(23, 24)))
    assert f["cost_ns"] == pytest.approx(5_590_000, rel=0.03), f["title"]
    assert f["totals"]["crowded_kernels"] == 2
    assert f["totals"]["crowded_extra_us"] == pytest.approx(5_000 + 4_840, abs=1)


def test_without_instances_in_company_only_the_wait_is_priced(run_report, tmp_path):
    """Phase 1's spin and sweeps ran one after the other: nothing shows how long they run
    side by side with room, so both keep their recorded durations."""
    f = no_room(run_report, build(tmp_path / "crowd-31.sctrace", phase1_in_company=False))
    assert "crowded_kernels" not in f["totals"], f["totals"]
    assert "ran crowded" not in f["title"]
    assert f["cost_ns"] < 1_000_000, f["title"]


def test_a_grid_slowed_less_than_a_quarter_keeps_its_time(run_report, tmp_path):
    """The spin ran its usual 5 ms once it started, and the sweep beside it 1.2 times its
    usual: neither ran crowded, and room saves the wait only (the spin ends 0.59 ms sooner,
    the run with it)."""
    f = no_room(run_report, build(tmp_path / "crowd-31.sctrace", spin2_ns=5_000_000,
                                  sweep2_ns=int(1.2 * SWEEP_NS)))
    assert "crowded_kernels" not in f["totals"], f["totals"]
    assert f["cost_ns"] == pytest.approx(590_000, abs=60_000), f["title"]
