"""--chrome FILE: the Chrome/Perfetto trace (Trace Event Format). Parsed with Python's json
module and checked event by event against traces with known content (sctrace.py)."""

import collections
import json
import time

import pytest

from sctrace import (API_DRIVER, CALL_MEMCPY, CALL_MEMCPY_ASYNC, CALL_STREAM_SYNC, DOMAIN_DRIVER,
                     HTOD, LEGACY, MEM_PAGEABLE, MEM_PINNED, NON_BLOCKING, Trace)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    assert isinstance(doc["traceEvents"], list)
    assert doc["displayTimeUnit"] in ("ms", "ns")
    for e in doc["traceEvents"]:
        assert e["ph"] in ("X", "M", "i", "b", "e"), e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if e["ph"] == "X":
            assert e["dur"] >= 0, e
    return doc


def metadata(doc):
    """{(pid, tid): name} of thread names and {pid: name} of process names."""
    threads, procs = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
    return threads, procs


def track_of(doc, thread_name, process_part=""):
    threads, procs = metadata(doc)
    hits = [k for k, v in threads.items() if v == thread_name and process_part in procs[k[0]]]
    assert len(hits) == 1, (thread_name, threads)
    return hits[0]


def events(doc, ph, pid_tid=None, cat=None):
    return [e for e in doc["traceEvents"] if e["ph"] == ph
            and (pid_tid is None or (e["pid"], e["tid"]) == pid_tid)
            and (cat is None or e.get("cat") == cat)]


def assert_monotone_per_track(doc):
    last = {}
    for e in doc["traceEvents"]:
        if e["ph"] in ("X", "i"):
            key = (e["pid"], e["tid"])
            assert e["ts"] >= last.get(key, 0), (e, last.get(key))
            last[key] = e["ts"]


def sample_trace(path, exe="/usr/bin/app", pid=10, base_ns=1_000_000_000):
    """Times in us from the trace start (the outer range starts at 0):
    outer range 0-1000 (thread 100), inner 100-300 nested in it, a start/end range 50-700;
    kernels: alpha 10-110 on stream 21, ns::beta<int> 60-160 on stream 22, gamma 400-450 on
    the legacy stream 7; a pinned HtoD copy 200-260 on 21, a memset 300-310 on 22, a
    pageable async copy 500-600 on 7 (its call 480-610 blocks); cudaStreamSynchronize
    700-800; a synchronous cudaMemcpy 820-900 with its driver call 821-899 inside."""
    t = Trace(exe=exe, pid=pid, base_ns=base_ns)
    t.device(0, name="Test GPU", sm_count=4)
    t.stream(7, LEGACY)
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING, priority=-1)
    t.range("outer", 0, 1_000_000, tid=100, depth=0)
    t.range("inner", 100_000, 300_000, tid=100, depth=1)
    t.range("async-phase", 50_000, 700_000, tid=100, depth=0xFFFFFFFF, domain="mydomain")
    t.launch("_Z5alphaPf", 10_000, 110_000, 21, issue=2_000)
    t.launch("_ZN2ns4betaIiEEvPT_", 60_000, 160_000, 22, issue=6_000)
    t.launch("_Z5gammav", 400_000, 450_000, 7, issue=390_000)
    t.memcpy(200_000, 260_000, 1 << 20, 21, src_kind=MEM_PINNED)
    t.memset(300_000, 310_000, 4096, 22)
    corr = t.api("cudaMemcpyAsync", 480_000, 610_000, CALL_MEMCPY_ASYNC, stream=0,
                 nbytes=64 << 20)
    t.memcpy(500_000, 600_000, 64 << 20, 7, copy_kind=HTOD, src_kind=MEM_PAGEABLE,
             correlation_id=corr)
    t.api("cudaStreamSynchronize", 700_000, 800_000, CALL_STREAM_SYNC, stream=0x55)
    corr = t.api("cudaMemcpy", 820_000, 900_000, CALL_MEMCPY, nbytes=4096)
    t.api("cuMemcpyDtoH_v2", 821_000, 899_000, CALL_MEMCPY, nbytes=4096, correlation_id=corr,
          domain=DOMAIN_DRIVER, flags=API_DRIVER)
    return t.write(path)


@pytest.fixture
def doc(run_report, tmp_path):
    out = tmp_path / "trace.json"
    r = run_report("-q", "--chrome", out, sample_trace(tmp_path / "app-10.sctrace"))
    assert r.returncode == 0, r.stderr
    return load(out)


def test_processes_and_tracks_are_named(doc):
    threads, procs = metadata(doc)
    assert sorted(procs.values()) == ["app (pid 10) GPU 0: Test GPU", "app (pid 10) host"]
    host = next(p for p, n in procs.items() if n.endswith("host"))
    gpu = next(p for p, n in procs.items() if "GPU" in n)
    assert host != gpu
    names = {n for (p, _), n in threads.items() if p == gpu}
    assert names == {"stream 7 (legacy)", "stream 21 (non-blocking)",
                     "stream 22 (non-blocking, priority -1)"}
    names = {n for (p, _), n in threads.items() if p == host}
    assert names == {"findings", "thread 100", "thread 100: blocking calls"}
    sort_keys = [e for e in doc["traceEvents"] if e["ph"] == "M" and "sort_index" in e["name"]]
    assert sort_keys


def test_kernels_copies_memsets_on_their_streams(doc):
    s21 = track_of(doc, "stream 21 (non-blocking)")
    s22 = track_of(doc, "stream 22 (non-blocking, priority -1)")
    s7 = track_of(doc, "stream 7 (legacy)")
    k21 = events(doc, "X", s21, "kernel")
    assert [(e["name"], e["ts"], e["dur"]) for e in k21] == [("alpha", 10.0, 100.0)]
    assert k21[0]["args"]["grid"] == "1x1x1" and k21[0]["args"]["block"] == "32x1x1"
    assert [(e["name"], e["ts"], e["dur"]) for e in events(doc, "X", s22, "kernel")] == \
        [("ns::beta<int>", 60.0, 100.0)]
    assert [(e["name"], e["ts"]) for e in events(doc, "X", s7, "kernel")] == [("gamma", 400.0)]
    (c21,) = events(doc, "X", s21, "memcpy")
    assert c21["name"] == "memcpy HtoD" and (c21["ts"], c21["dur"]) == (200.0, 60.0)
    assert c21["args"]["bytes"] == 1 << 20 and c21["args"]["src"] == "pinned"
    (m22,) = events(doc, "X", s22, "memset")
    assert (m22["ts"], m22["dur"], m22["args"]["bytes"]) == (300.0, 10.0, 4096)
    (c7,) = events(doc, "X", s7, "memcpy")
    assert c7["args"]["src"] == "pageable" and c7["args"]["dst"] == "device"


def test_nvtx_ranges_nest_on_the_thread_track(doc):
    t100 = track_of(doc, "thread 100")
    ranges = events(doc, "X", t100, "nvtx")
    assert [(e["name"], e["ts"], e["dur"]) for e in ranges] == \
        [("outer", 0.0, 1000.0), ("inner", 100.0, 200.0)]
    # Start/end ranges: an async pair with one id.
    b = events(doc, "b", cat="nvtx")
    e = events(doc, "e", cat="nvtx")
    assert len(b) == len(e) == 1
    assert b[0]["id"] == e[0]["id"] and b[0]["name"] == e[0]["name"] == "async-phase"
    assert (b[0]["ts"], e[0]["ts"]) == (50.0, 700.0)
    assert b[0]["args"]["domain"] == "mydomain"


def test_blocking_calls_on_their_own_track(doc):
    calls = events(doc, "X", track_of(doc, "thread 100: blocking calls"))
    # Launches are not blocking; the pageable async copy is; the driver call inside the
    # synchronous cudaMemcpy is shown once, as its runtime call.
    assert [(e["name"], e["ts"], e["dur"]) for e in calls] == [
        ("cudaMemcpyAsync", 480.0, 130.0),
        ("cudaStreamSynchronize", 700.0, 100.0),
        ("cudaMemcpy", 820.0, 80.0),
    ]
    assert calls[0]["args"]["pageable"] is True
    assert calls[1]["args"]["stream"] == "0x55"
    assert all(e["cat"] == "cuda" for e in calls)


def test_findings_are_instant_events(doc):
    marks = events(doc, "i")
    assert marks, "the pageable async copy must give a finding"
    findings = track_of(doc, "findings")
    for m in marks:
        assert (m["pid"], m["tid"]) == findings
        assert m["s"] in ("t", "p") and m["cat"] == "finding"
        for key in ("rule", "severity", "cost", "cost_ns", "title"):
            assert key in m["args"], m
    rules = {m["args"]["rule"] for m in marks}
    assert "pageable-async" in rules


def test_monotone_per_track(doc):
    assert_monotone_per_track(doc)


def test_two_processes_share_one_time_line(run_report, tmp_path):
    """The second trace's CUPTI clock starts elsewhere but both recorded the same wall clock
    at start: aligned, their first kernels both start 10 us into the run."""
    a = sample_trace(tmp_path / "app-10.sctrace")
    b = sample_trace(tmp_path / "app-11.sctrace", exe="/usr/bin/other", pid=11,
                     base_ns=7_000_000_000)
    out = tmp_path / "two.json"
    r = run_report("-q", "--chrome", out, a, b)
    assert r.returncode == 0, r.stderr
    d = load(out)
    threads, procs = metadata(d)
    assert len(procs) == 4 and len(set(procs)) == 4
    assert any(n.startswith("other (pid 11)") for n in procs.values())
    firsts = sorted(e["ts"] for e in events(d, "X", cat="kernel") if e["name"] == "alpha")
    assert firsts == [10.0, 10.0]
    assert_monotone_per_track(d)


def test_odd_names_stay_valid_json(run_report, tmp_path):
    t = Trace(exe="/usr/bin/odd", pid=12)
    t.device(0)
    t.stream(21, NON_BLOCKING)
    t.range('quote " backslash \\ tab \t newline', 0, 100_000)
    t.launch("bad\xff\xfeutf8 \"kernel\"", 10_000, 20_000, 21)
    path = t.write(tmp_path / "odd-12.sctrace")
    out = tmp_path / "odd.json"
    r = run_report("-q", "--chrome", out, path)
    assert r.returncode == 0, r.stderr
    d = load(out)
    names = {e["name"] for e in events(d, "X")}
    # control characters are '?' from the loader on (trace/validate.h, sc_text_tame): the
    # quote and the backslash stay, escaped by the JSON writer
    assert 'quote " backslash \\ tab ? newline' in names


def test_chrome_to_stdout_replaces_the_text(run_report, tmp_path):
    r = run_report("--chrome", "-", sample_trace(tmp_path / "app-10.sctrace"))
    assert r.returncode == 0, r.stderr
    json.loads(r.stdout)
    r = run_report("--chrome", "-", "--json", sample_trace(tmp_path / "app-10.sctrace"))
    assert r.returncode == 2
    assert "only one of --json, --chrome, --html, --sarif and --junit" in r.stderr


def test_unwritable_chrome_file(run_report, tmp_path):
    r = run_report("-q", "--chrome", tmp_path / "no" / "such" / "dir.json",
                   sample_trace(tmp_path / "app-10.sctrace"))
    assert r.returncode == 1
    assert "cannot write" in r.stderr


def test_many_kernels_stream_out(run_report, tmp_path):
    """50 000 kernels on two streams: written quickly, every one present, in order."""
    t = Trace(exe="/usr/bin/many", pid=13)
    t.device(0)
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING)
    n = 50_000
    for i in range(n):
        t.kernel("_Z1kv" if i % 2 else "_Z1jv", 10_000 + i * 2_000, 11_500 + i * 2_000,
                 21 + i % 2)
    path = t.write(tmp_path / "many-13.sctrace")
    out = tmp_path / "many.json"
    start = time.monotonic()
    r = run_report("-q", "--no-symbols", "--chrome", out, path)
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stderr
    d = load(out)
    kernels = events(d, "X", cat="kernel")
    assert len(kernels) == n
    per_track = collections.Counter((e["pid"], e["tid"]) for e in kernels)
    assert sorted(per_track.values()) == [n // 2, n // 2]
    assert_monotone_per_track(d)
    assert elapsed < 30, elapsed


def test_html_option_beside_chrome(run_report, tmp_path):
    """--html goes through the same option handling as --chrome (the page itself is
    test_html.py's subject): both files from one run, stdout keeps the text report."""
    html, trace_json = tmp_path / "r.html", tmp_path / "t.json"
    r = run_report("--html", html, "--chrome", trace_json,
                   sample_trace(tmp_path / "app-10.sctrace"))
    assert r.returncode == 0, r.stderr
    assert "== /usr/bin/app (pid 10) ==" in r.stdout
    assert html.read_text().lstrip().lower().startswith("<!doctype html")
    load(trace_json)
    r = run_report("--html", tmp_path / "no" / "dir.html", sample_trace(tmp_path / "b-1.sctrace"))
    assert r.returncode == 1 and "cannot write" in r.stderr
