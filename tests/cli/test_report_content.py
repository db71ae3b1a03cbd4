"""What the report says about traces with known content: metrics from known timings,
findings, status warnings, notes, and symbolized call sites."""

import json
import pathlib
import shutil
import subprocess

import pytest

from sctrace import (BLOCKING, CALL_MEMCPY_ASYNC, CALL_STREAM_CREATE, LEGACY, NON_BLOCKING,
                     NOTE_CUPTI_TAKEN, TRACER_LAUNCH_NS, TRACER_MEMCPY_ASYNC_NS, Trace)


def report_json(run_report, *args):
    r = run_report("--json", *args)
    assert r.returncode in (0, 3), r.stderr
    return json.loads(r.stdout)


def two_stream_trace(path):
    """Two non-blocking streams: A runs 0-100 us, B 50-150 us, then B alone 200-300 us.

    busy = 150 + 100 = 250 us, kernel time = 100 + 100 + 100 = 300 us,
    concurrency = 300 / 250 = 1.2, overlap (2+ kernels) = 50 us."""
    t = Trace(exe="/usr/bin/twostreams", pid=10)
    t.device(0, name="Test GPU", sm_count=4, cc=(8, 0))
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING, priority=-1)
    t.launch("_Z5alphaPf", 10_000, 110_000, 21)
    t.launch("_ZN2ns4betaIiEEvPT_", 60_000, 160_000, 22)
    t.launch("_ZN2ns4betaIiEEvPT_", 210_000, 310_000, 22)
    return t.write(path)


def test_overlap_metrics_from_known_timings(run_report, tmp_path):
    doc = report_json(run_report, two_stream_trace(tmp_path / "twostreams-10.sctrace"))
    (proc,) = doc["processes"]
    (dev,) = proc["devices"]
    assert dev["name"] == "Test GPU" and dev["compute_capability"] == "8.0"
    assert dev["kernel_count"] == 3
    assert dev["busy_ns"] == 250_000
    assert dev["kernel_sum_ns"] == 300_000
    assert dev["overlap_ns"] == 50_000
    assert dev["span_ns"] == 300_000
    assert dev["concurrency"] == pytest.approx(1.2)
    assert dev["intervals_total"] == 1
    (iv,) = dev["intervals"]
    assert (iv["start_ns"], iv["end_ns"]) == (1_000_060_000, 1_000_110_000)
    names = {iv["kernel_a"]["demangled"], iv["kernel_b"]["demangled"]}
    assert names == {"alpha(float*)", "void ns::beta<int>(int*)"}
    kinds = {s["stream_id"]: (s["kind"], s["priority"]) for s in proc["streams"]}
    assert kinds == {21: ("non-blocking", 0), 22: ("non-blocking", -1)}
    assert proc["findings"] == []
    assert doc["summary"]["worst_severity"] is None


def test_overlap_text(run_report, tmp_path):
    r = run_report(two_stream_trace(tmp_path / "twostreams-10.sctrace"))
    assert r.returncode == 0
    out = r.stdout
    assert "device 0: Test GPU (4 SMs, cc 8.0)" in out
    assert "concurrency    1.20x" in out
    assert "busy           250 us" in out
    assert "alpha | ns::beta<int>" in out        # short demangled names
    assert "findings: none" in out


def legacy_with_pageable(path, frames=()):
    """Times in us. spin on blocking stream 13 (call 5, runs 10-110), sweep on the legacy
    stream (call 20, runs 110-160: waited 110 - 20 = 90 us for 13), then an async copy of
    64 MiB from pageable memory (call 210-400, copy 300-400 on the legacy stream; the device
    ran no kernel in 210-400: 190 us measured).

    What fixing each saves, from the replay. Lags from the trace: kernel issue 5 us (spin),
    cross 0 us (sweep after spin), copy issue 90 us (210 -> 300); it reproduces 0-400 us. The
    run ends with the copy, which the host issues at 210 us whatever the streams do: without
    the barrier the sweep runs at 25-75 us and nothing later moves; pinned, the copy runs no
    faster (2 us + 64 MiB at the default 50 GB/s of compute capability 9 is longer than its
    100 us) and still starts at 300 us. Every finding saves 0: notes; each waited >= 20 us
    for nothing the run would gain: joins. legacy-stream and blocking-stream name one
    barrier. The fixed run (as every replayed one) leaves out what tracing added to the
    calls: the two launches' and the copy call's (TRACER_*) bring the copy call forward."""
    t = Trace(exe="/usr/bin/pipeline", pid=4242)
    t.device(0)
    t.stream(7, LEGACY)
    create = t.api("cudaStreamCreate", 0, 2_000, CALL_STREAM_CREATE, frames=frames)
    t.stream(13, BLOCKING, correlation_id=create)
    t.launch("_Z4spinv", 10_000, 110_000, 13, issue=5_000, frames=frames)
    t.launch("_Z5sweepv", 110_000, 160_000, 7, issue=20_000, frames=frames)
    copy = t.api("cudaMemcpyAsync", 210_000, 400_000, CALL_MEMCPY_ASYNC, stream=0,
                 nbytes=64 << 20, frames=frames)
    t.memcpy(300_000, 400_000, 64 << 20, 7, correlation_id=copy)
    return t


def legacy_trap(path):
    """Times in us. spin on blocking stream 13 (call 5, runs 10-210), sweep on the legacy
    stream (call 20, runs 210-410): waited 210 - 20 = 190 us for 13.

    Lags: kernel issue 5 us, cross 0 us; the replay reproduces 0-410 us. Without the barrier
    the sweep runs 25-225 beside spin and the run ends at 225: saving 185 us. Without what
    tracing adds to a launch (L = TRACER_LAUNCH_NS, out of each launch call and its kernel's
    issue lag), spin runs from 10 - L, the sweep's call starts at 20 - L: the run as it is
    ends at 410 - L, fixed at 225 - 2L: saving 185 + L = 186.664 us, 45.5% of the run and
    >= 100 us: an error, on both legacy-stream and blocking-stream, counted once with every
    fix applied."""
    t = Trace(exe="/usr/bin/trap", pid=4343)
    t.device(0)
    t.stream(7, LEGACY)
    create = t.api("cudaStreamCreate", 0, 2_000, CALL_STREAM_CREATE)
    t.stream(13, BLOCKING, correlation_id=create)
    t.launch("_Z4spinv", 10_000, 210_000, 13, issue=5_000)
    t.launch("_Z5sweepv", 210_000, 410_000, 7, issue=20_000)
    return t.write(path)


def test_findings_json(run_report, tmp_path):
    path = legacy_with_pageable(tmp_path / "p.sctrace").write(tmp_path / "pipeline-4242.sctrace")
    doc = report_json(run_report, path)
    (proc,) = doc["processes"]
    replay = proc["replay"]
    assert (replay["recorded_span_ns"], replay["replay_span_ns"],
            replay["fixed_span_ns"]) == (400_000, 400_000,
                                         400_000 - 2 * TRACER_LAUNCH_NS - TRACER_MEMCPY_ASYNC_NS)
    assert replay["error"] == 0 and replay["trusted"] is True
    rules = {f["rule"]: f for f in proc["findings"]}
    assert set(rules) == {"legacy-stream", "blocking-stream", "pageable-async"}
    # the sweep on the legacy stream waited 110 - 20 = 90 us for stream 13, which the
    # program created with cudaStreamCreate: the same wait is blocking-stream's; moving the
    # sweep saves nothing (see legacy_with_pageable)
    blocking = rules["blocking-stream"]
    assert (blocking["waited_ns"], blocking["cost_ns"]) == (90_000, 0)
    assert blocking["severity"] == "note" and blocking["join"] is True
    assert blocking["same_wait_as"] == "legacy-stream"
    legacy = rules["legacy-stream"]
    assert (legacy["waited_ns"], legacy["cost_ns"]) == (90_000, 0)
    assert legacy["severity"] == "note" and legacy["join"] is True
    assert legacy["same_wait_as"] == "blocking-stream"
    assert legacy["fix"]
    assert legacy["share"] == 0
    assert isinstance(legacy["first"]["evidence"], dict)
    assert legacy["first"]["evidence"]["wait_us"] == 90
    assert legacy["first"]["call"]["api"] == "cudaLaunchKernel"
    pageable = rules["pageable-async"]
    assert pageable["totals"]["bytes"] == 64 << 20
    assert (pageable["waited_ns"], pageable["cost_ns"]) == (190_000, 0)
    assert pageable["join"] is True and pageable["same_wait_as"] is None
    costs = [f["cost_ns"] for f in proc["findings"]]
    assert costs == sorted(costs, reverse=True)
    summary = {f["rule"]: f for f in doc["summary"]["findings"]}
    assert summary["legacy-stream"]["processes"] == 1
    assert doc["summary"]["worst_severity"] == "note"
    for key in ("exe", "pid", "status", "devices", "streams", "findings", "notes", "env",
                "replay"):
        assert key in proc


def test_findings_json_with_a_saving(run_report, tmp_path):
    doc = report_json(run_report, legacy_trap(tmp_path / "trap-4343.sctrace"))
    (proc,) = doc["processes"]
    assert proc["replay"]["replay_span_ns"] == 410_000
    saving = 185_000 + TRACER_LAUNCH_NS
    assert proc["replay"]["fixed_span_ns"] == 225_000 - 2 * TRACER_LAUNCH_NS
    rules = {f["rule"]: f for f in proc["findings"]}
    for rule, other in (("legacy-stream", "blocking-stream"),
                        ("blocking-stream", "legacy-stream")):
        f = rules[rule]
        assert (f["waited_ns"], f["cost_ns"]) == (190_000, saving)
        assert f["severity"] == "error" and f["join"] is False
        assert f["share"] == pytest.approx(saving / 410_000)
        assert f["same_wait_as"] == other
        assert f["worst"]["cost_ns"] == saving
    assert doc["summary"]["worst_severity"] == "error"


def test_findings_text(run_report, tmp_path):
    path = legacy_with_pageable(tmp_path / "p").write(tmp_path / "pipeline-4242.sctrace")
    out = run_report(path).stdout
    assert ("legacy-stream   saves nothing: a join the run needs "
            "[the same wait as blocking-stream]") in out
    assert "measured: 90.0 us waited or idle" in out
    assert "fix: " in out
    assert "pageable-async" in out
    assert "64.0 MiB" in out
    assert "the run replayed as recorded takes 400 us against 400 us recorded (+0.0%)" in out
    out = run_report(legacy_trap(tmp_path / "trap-4343.sctrace")).stdout
    assert ("error   legacy-stream   fixing this saves ~187 us (45.5% of the run) "
            "[the same wait as blocking-stream]") in out
    assert "measured: 190 us waited or idle" in out
    assert "with every finding fixed: 222 us (saves 187 us)" in out


def test_merged_summary_sums_rules(run_report, tmp_path):
    legacy_with_pageable(None).write(tmp_path / "a-1.sctrace")
    legacy_with_pageable(None).write(tmp_path / "b-2.sctrace")
    doc = report_json(run_report, tmp_path)
    summary = {f["rule"]: f for f in doc["summary"]["findings"]}
    assert summary["legacy-stream"]["cost_ns"] == 0     # a join in each
    assert summary["legacy-stream"]["processes"] == 2
    out = run_report("-q", tmp_path).stdout
    assert "legacy-stream   cost 0 ns" in out
    assert "in 2 processes" in out
    # two traps: 186.664 us each (legacy_trap)
    traps = tmp_path / "traps"
    traps.mkdir()
    legacy_trap(traps / "c-3.sctrace")
    legacy_trap(traps / "d-4.sctrace")
    summary = {f["rule"]: f for f in report_json(run_report, traps)["summary"]["findings"]}
    assert summary["legacy-stream"]["cost_ns"] == 2 * (185_000 + TRACER_LAUNCH_NS)
    assert summary["legacy-stream"]["severity"] == "error"
    assert "legacy-stream   cost 373 us" in run_report("-q", traps).stdout


def test_partial_and_dropped_and_notes(run_report, tmp_path):
    t = Trace(exe="/usr/bin/crashy", pid=5)
    t.device(0)
    t.note(NOTE_CUPTI_TAKEN, "CUPTI is held by another profiler: nothing was recorded")
    partial = t.write(tmp_path / "crashy-5.sctrace.partial", partial=True)
    out = run_report(partial).stdout
    assert "WARNING:  PARTIAL trace" in out
    assert "note:     CUPTI is held by another profiler" in out
    proc = report_json(run_report, partial)["processes"][0]
    assert proc["status"] == "partial" and proc["status_detail"]
    assert proc["notes"] == [{"code": "cupti-taken",
                              "text": "CUPTI is held by another profiler: nothing was recorded"}]

    dropped = t.write(tmp_path / "crashy-6.sctrace", dropped=1234)
    assert "CUPTI dropped 1234 activity records" in run_report(dropped).stdout

    data = t.to_bytes()
    (tmp_path / "cut-7.sctrace").write_bytes(data[:-5])
    r = run_report(tmp_path / "cut-7.sctrace")
    assert r.returncode == 0, r.stderr
    assert "TRUNCATED" in r.stdout


# ---- symbols ------------------------------------------------------------------------------

SITE_C = """\
#include <stdio.h>
void cudaLaunchFake(void);
/* what nvcc generates for a <<<>>> launch: a host stub per kernel */
__attribute__((noinline)) void __device_stub__Z4spinv(void) { cudaLaunchFake(); }
__attribute__((noinline)) void launch_site(void)
{
    __device_stub__Z4spinv();
}
/* the program's own function, named like CUDA's (NVIDIA's simpleCudaGraphs has two) */
__attribute__((noinline)) void cudaGraphsManual(void) { cudaLaunchFake(); }
int main(void) { launch_site(); cudaGraphsManual(); return 0; }
"""

# Stands in for the CUDA runtime that nvcc links into a program: built without line tables.
RUNTIME_C = """\
#include <stdio.h>
__attribute__((noinline)) void cudaLaunchFake(void) { puts("x"); }
"""

SITE_CXX = """\
#include <cstdio>
namespace app {
__attribute__((noinline)) void run_pipeline(int n) { std::printf("%d", n); }
}
int main() { app::run_pipeline(1); return 0; }
"""


def symbols_of(binary):
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    return {line.split()[2]: int(line.split()[0], 16) for line in out.splitlines()
            if len(line.split()) == 3}


@pytest.fixture(scope="module")
def site_binary(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not shutil.which("nm"):
        pytest.skip("needs a C compiler and nm")
    d = tmp_path_factory.mktemp("site")
    (d / "site.c").write_text(SITE_C)
    (d / "runtime.c").write_text(RUNTIME_C)
    binary = d / "site"
    subprocess.run([cc, "-O0", "-c", "-o", str(d / "runtime.o"), str(d / "runtime.c")],
                   check=True)
    subprocess.run([cc, "-g", "-O0", "-o", str(binary), str(d / "site.c"), str(d / "runtime.o")],
                   check=True)
    return binary


BIAS = 0x555555554000


def site_trace(binary, tmp_path, build_id=b"", extra_frames=()):
    syms = symbols_of(binary)
    t = legacy_with_pageable(None, frames=(*extra_frames,
                                           BIAS + syms["cudaLaunchFake"] + 4,
                                           BIAS + syms["__device_stub__Z4spinv"] + 9,
                                           BIAS + syms["launch_site"] + 9,
                                           BIAS + syms["main"] + 9))
    t.module(str(binary), BIAS, BIAS + 0x100000, bias=BIAS, build_id=build_id)
    t.module("/opt/cuda/lib64/libcudart.so.13", 0x7f0000000000, 0x7f0000100000,
             bias=0x7f0000000000)
    return t.write(tmp_path / "pipeline-4242.sctrace")


def call_site(doc):
    legacy = [f for f in doc["processes"][0]["findings"] if f["rule"] == "legacy-stream"][0]
    return legacy["sites"][0]["call"]


def test_call_site_symbolized_with_line(run_report, site_binary, tmp_path):
    path = site_trace(site_binary, tmp_path, extra_frames=(0x7f0000001234,))
    call = call_site(report_json(run_report, path))
    # frame 0 is in libcudart, frame 1 in a function named cuda*, frame 2 nvcc's launch
    # stub: all internal; the site is the program's function that launched
    assert call["call_site_index"] == 3
    site = call["call_site"]
    assert site["function"] == "launch_site"
    assert site["module"] == str(site_binary)
    assert site["offset"] == 9
    if shutil.which("addr2line"):
        # launch_site's body is lines 5-8 of SITE_C
        assert site["file"].endswith("site.c") and 5 <= site["line"] <= 8
    frames = call["frames"]
    assert frames[0]["module"].endswith("libcudart.so.13") and frames[0]["internal"]
    assert frames[0]["function"] is None and frames[0]["module_offset"] == "0x1234"
    assert frames[1]["function"] == "cudaLaunchFake" and frames[1]["internal"]
    assert frames[2]["function"] == "__device_stub__Z4spinv" and frames[2]["internal"]
    assert frames[4]["function"] == "main"
    out = run_report(path).stdout
    assert "launch_site" in out and "(site+0x" in out


def test_program_function_named_like_cuda_is_the_site(run_report, site_binary, tmp_path):
    syms = symbols_of(site_binary)
    t = legacy_with_pageable(None, frames=(BIAS + syms["cudaLaunchFake"] + 4,
                                           BIAS + syms["cudaGraphsManual"] + 9,
                                           BIAS + syms["main"] + 9))
    t.module(str(site_binary), BIAS, BIAS + 0x100000, bias=BIAS)
    call = call_site(report_json(run_report, t.write(tmp_path / "graphs-4242.sctrace")))
    if not shutil.which("addr2line"):
        pytest.skip("needs addr2line: line tables tell the program's code from CUDA's")
    # cudaLaunchFake has no line tables (CUDA's runtime); cudaGraphsManual has one in site.c
    assert call["frames"][0]["internal"] and not call["frames"][1]["internal"]
    assert call["call_site_index"] == 1
    assert call["call_site"]["function"] == "cudaGraphsManual"
    assert call["call_site"]["file"].endswith("site.c") and call["call_site"]["line"] == 10


def test_no_symbols_flag(run_report, site_binary, tmp_path):
    path = site_trace(site_binary, tmp_path)
    site = call_site(report_json(run_report, "--no-symbols", path))["call_site"]
    assert site["function"] is None and site["file"] is None
    assert site["module"] == str(site_binary)
    assert "site+0x" in run_report("--no-symbols", path).stdout


def test_build_id_mismatch_or_missing_file_is_quiet(run_report, site_binary, tmp_path):
    path = site_trace(site_binary, tmp_path, build_id=b"\x01" * 20)
    r = run_report("--json", path)
    assert r.returncode == 0 and r.stderr == ""
    site = call_site(json.loads(r.stdout))["call_site"]
    assert site["function"] is None and site["module_offset"].startswith("0x")

    gone = tmp_path / "gone"
    shutil.copy(site_binary, gone)
    path = site_trace(gone, tmp_path)
    gone.unlink()
    r = run_report(path)
    assert r.returncode == 0 and r.stderr == ""
    assert "gone+0x" in r.stdout


def test_cxx_names_demangled(run_report, tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++")
    if not cxx or not shutil.which("nm"):
        pytest.skip("needs a C++ compiler and nm")
    (tmp_path / "app.cc").write_text(SITE_CXX)
    binary = tmp_path / "app"
    subprocess.run([cxx, "-O0", "-o", str(binary), str(tmp_path / "app.cc")], check=True)
    addr = BIAS + symbols_of(binary)["_ZN3app12run_pipelineEi"] + 5
    t = legacy_with_pageable(None, frames=(addr,))
    t.module(str(binary), BIAS, BIAS + 0x100000, bias=BIAS)
    path = t.write(tmp_path / "app-1.sctrace")
    site = call_site(report_json(run_report, path))["call_site"]
    assert site["function"] == "app::run_pipeline(int)"
