"""Format 2.0's compact records, written by hand (sctrace.Trace): the report tool, its --dump
and the Python reader read them as the full records they stand for, and refuse a compact
record that comes before its declaration."""
import json

import pytest

import sctrace
from sctrace import (API_STACK_SHARED, CALL_LAUNCH, NON_BLOCKING, Trace, TraceError)

STREAM = 0x5600


def base_trace():
    t = Trace()
    t.device(0)
    t.stream(13, NON_BLOCKING)
    t.stream(14, NON_BLOCKING)
    return t


def compact_steps(t, steps=20):
    """Each step: a launch on each of two streams and its kernel, as compact records after
    one base and one declaration each (the first launch of each stream takes a stack)."""
    first = [t.api("cudaLaunchKernel", 1000, 4000, CALL_LAUNCH, STREAM + 16 * s,
                   frames=(0x401000,), correlation_id=1 + s) for s in range(2)]
    for s in range(2):
        t.kernel("_Z4spinv", 10_000 + s * 500, 60_000, 13 + s, correlation_id=first[s])
    t.time_base(100_000)
    for s in range(2):
        t.call_site(1 + s, "cudaLaunchKernel", CALL_LAUNCH, STREAM + 16 * s)
        t.kernel_shape(1 + s, "_Z4spinv", 13 + s)
    corr = 3
    for i in range(steps):
        for s in range(2):
            at = i * 100_000 + s * 2_000
            t.call_compact(1 + s, at, 3_000, correlation_id=corr, shared=first[s])
            t.kernel_compact(1 + s, at + 10_000 + s * 40_000, 50_000, correlation_id=corr)
            corr += 1


def full_steps(t, steps=20):
    """The same run in full records."""
    first = [t.api("cudaLaunchKernel", 1000, 4000, CALL_LAUNCH, STREAM + 16 * s,
                   frames=(0x401000,), correlation_id=1 + s) for s in range(2)]
    for s in range(2):
        t.kernel("_Z4spinv", 10_000 + s * 500, 60_000, 13 + s, correlation_id=first[s])
    corr = 3
    for i in range(steps):
        for s in range(2):
            at = 100_000 + i * 100_000 + s * 2_000
            t.api("cudaLaunchKernel", at, at + 3_000, CALL_LAUNCH, STREAM + 16 * s,
                  correlation_id=corr, aux=first[s], flags=API_STACK_SHARED)
            t.kernel("_Z4spinv", at + 10_000 + s * 40_000, at + 60_000 + s * 40_000, 13 + s,
                     correlation_id=corr)
            corr += 1


def test_compact_records_report_as_their_full_form(run_report, tmp_path):
    compact, full = base_trace(), base_trace()
    compact_steps(compact)
    full_steps(full)
    a = compact.write(tmp_path / "compact-1.sctrace")
    b = full.write(tmp_path / "full-1.sctrace")

    def doc(path):
        r = run_report("--json", "--no-symbols", path)
        assert r.returncode in (0, 3), r.stderr
        (p,) = json.loads(r.stdout)["processes"]
        p.pop("path")
        return p
    assert doc(a) == doc(b)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "offset"} for r in rs]  # noqa: E731
    ta, tb = sctrace.read(a), sctrace.read(b)
    assert ta["compact"] == {"kernels": 40, "calls": 40, "declarations": 5}
    assert strip(ta["calls"]) == strip(tb["calls"])
    assert strip(ta["kernels"]) == strip(tb["kernels"])


def test_dump_shows_declarations_and_what_compact_records_stand_for(run_report, tmp_path):
    t = base_trace()
    compact_steps(t, steps=1)
    r = run_report("--dump", t.write(tmp_path / "c-1.sctrace"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "@" in next(l for l in lines if " TIME_BASE base=1000100000" in l)
    site = next(l for l in lines if " CALL_SITE " in l)
    assert "id=1 cudaLaunchKernel(cbid 1, runtime) class=launch tid=100 stream=0x5600" in site
    call = next(l for l in lines if " CALL_COMPACT " in l)
    assert "site=1 delta=0 cudaLaunchKernel" in call and "start=1000100000 end=1000103000" in call
    assert "corr=3" in call and "aux=0x1" in call and "frames=0 []" in call
    kernel = next(l for l in lines if " KERNEL_COMPACT " in l)
    assert "shape=1 delta=10000 start=1000110000 end=1000160000" in kernel
    assert "stream=13 corr=3" in kernel
    assert "TIME_BASE 1, KERNEL_SHAPE 2, KERNEL_COMPACT 2, CALL_SITE 2, CALL_COMPACT 2" in lines[-1]


@pytest.mark.parametrize("what", ["no base", "no site", "no shape"])
def test_a_compact_record_before_its_declaration_is_corrupt(run_report, tmp_path, what):
    t = base_trace()
    if what != "no base":
        t.time_base(0)
    if what != "no site":
        t.call_site(1, "cudaLaunchKernel", CALL_LAUNCH, STREAM)
    t.call_compact(1, 10, 100)
    if what == "no shape":
        t.kernel_compact(1, 20, 100)
    path = t.write(tmp_path / "bad-1.sctrace")
    r = run_report(path)
    assert r.returncode == 1 and "compact record before its declaration" in r.stderr
    d = run_report("--dump", path)
    assert d.returncode == 1 and "before its TIME_BASE or the declaration of its id" in d.stdout
    with pytest.raises(TraceError, match="compact record before its declaration"):
        sctrace.read(path)


def test_cut_inside_a_compact_record_reads_as_truncated(run_report, tmp_path):
    t = base_trace()
    compact_steps(t, steps=3)
    data = t.to_bytes(partial=True)
    path = tmp_path / "cut-1.sctrace"
    path.write_bytes(data[:-10])        # the last KERNEL_COMPACT loses 10 of its 24 bytes
    doc = sctrace.read(path)
    assert doc["status"] == "truncated"
    assert doc["compact"]["kernels"] == 5 and doc["compact"]["calls"] == 6
    r = run_report("--json", "--no-symbols", path)
    assert r.returncode in (0, 3), r.stderr
    (p,) = json.loads(r.stdout)["processes"]
    assert p["status"] == "truncated"
