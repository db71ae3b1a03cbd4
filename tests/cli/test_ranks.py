"""Several ranks of one job: rank identity from the ENV records, NCCL kernels as communication,
the merged report over ranks (text and JSON), rank summaries (--summary-out, summary inputs,
64 ranks), -j and the bounded report. Traces are synthetic, with hand-computed timings."""

import json
import os
import subprocess

from sctrace import LEGACY, NON_BLOCKING, MEM_PAGEABLE, Trace

NCCL = "_Z38ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"
US = 1000


def busy_us(rank, slowest=3):
    return 2000 if rank == slowest else 1000 + 100 * (rank % 4)


def fmt_us(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us} us"


def rank_trace(path, rank, world=4, env=("RANK", "LOCAL_RANK", "WORLD_SIZE"), pageable=False,
               slowest=3):
    """Rank `rank`: compute on stream 20 from 0 to busy_us(rank); an all-reduce on stream 30
    from 500 us until the slowest rank's compute ends, + 200 us. So comm is 1700 + 200...:
    [500, 2200] us, overlapped busy - 500, exposed 2200 - busy."""
    t = Trace(exe="/usr/bin/python3", pid=1000 + rank)
    t.device(0)
    t.stream(20, NON_BLOCKING)
    t.stream(30, NON_BLOCKING)
    values = {"RANK": rank, "LOCAL_RANK": rank % 2, "WORLD_SIZE": world,
              "OMPI_COMM_WORLD_RANK": rank, "SLURM_PROCID": rank}
    for name in env:
        t.env(f"{name}={values[name]}")
    t.launch("_Z4stepv", 0, busy_us(rank, slowest) * US, 20)
    t.launch(NCCL, 500 * US, 2200 * US, 30, issue=400 * US)
    if pageable:
        t.stream(7, LEGACY)
        t.memcpy(2300 * US, 2400 * US, 1 << 20, 7, src_kind=MEM_PAGEABLE)
    t.write(path)
    return path


def job(tmp_path, n=4, pageable=(1, 3), **kw):
    d = tmp_path / "job"
    d.mkdir(exist_ok=True)
    return d, [rank_trace(d / f"python3-{1000 + r}.sctrace", r, world=n,
                          pageable=r in pageable, **kw) for r in range(n)]


def report_json(run_report, *args):
    r = run_report("--json", "--no-symbols", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_comm_is_measured_and_left_out_of_compute(tmp_path, run_report):
    d, traces = job(tmp_path, n=1, pageable=())
    doc = report_json(run_report, traces[0])
    (dev,) = doc["processes"][0]["devices"]
    assert dev["comm"] == {"kernels": 1, "kernel_time_ns": 1700 * US, "busy_ns": 1700 * US,
                           "overlapped_ns": 500 * US, "exposed_ns": 1200 * US}
    assert dev["kernel_count"] == 1 and dev["busy_ns"] == 1000 * US
    assert dev["concurrency"] == 1.0       # the all-reduce beside it is not compute overlap
    text = run_report("--no-symbols", traces[0]).stdout
    assert "communication  1 NCCL kernel (not counted as compute above), 1.70 ms: " \
           "500 us overlapped compute, 1.20 ms exposed (70.6%)" in text, text


def test_merged_report_over_ranks(tmp_path, run_report):
    d, traces = job(tmp_path)
    r = run_report("--no-symbols", "-q", d)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "== ranks: 4 of world size 4 ==" in out, out
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 10 and f[0].isdigit() and f[2].startswith("10"):
            rows[int(f[0])] = f
    assert sorted(rows) == [0, 1, 2, 3]
    for rank, f in rows.items():
        assert f[1] == str(rank % 2) and f[2] == str(1000 + rank)
        busy = busy_us(rank)
        assert " ".join(f[4:6]) == fmt_us(busy)
        assert " ".join(f[7:9]) == fmt_us(1700)                 # comm: 500 to 2200 us
        assert " ".join(f[9:11]) == fmt_us(2200 - busy), (rank, f)  # exposed
    # busy 1000, 1100, 1200, 2000 us: the lower median is 1100
    assert "slowest rank: 3 (pid 1003): compute busy 2.00 ms, 900 us over the median rank's " \
           "1.10 ms" in out, out
    # the others' exposed comm: 1200, 1100, 1000 us; median 1100
    assert "its exposed communication 200 us; the other ranks' median 1.10 ms" in out, out


def test_findings_name_the_ranks_they_occurred_on(tmp_path, run_report):
    d, traces = job(tmp_path, pageable=(1, 3))
    # each rank's own report says which rules it has: the merged one must agree
    want = {}
    for rank, t in enumerate(traces):
        for f in report_json(run_report, t)["processes"][0]["findings"]:
            want.setdefault(f["rule"], []).append(rank)
    assert want.get("pageable-async") == [1, 3]
    doc = report_json(run_report, d)
    got = {f["rule"]: f["ranks"] for f in doc["ranks"]["findings"]}
    assert got == want
    assert doc["ranks"]["slowest"]["rank"] == 3
    assert [x["rank"] for x in doc["ranks"]["ranks"]] == [0, 1, 2, 3]
    assert [x["comm_exposed_ns"] for x in doc["ranks"]["ranks"]] == [
        (2200 - busy_us(r)) * US for r in range(4)]
    text = run_report("--no-symbols", "-q", d).stdout
    line = next(ln for ln in text.splitlines() if "pageable-async" in ln and "on rank" in ln)
    assert line.endswith("on ranks 1,3"), line


def test_rank_comes_from_each_launcher(tmp_path, run_report):
    for i, var in enumerate(("RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID")):
        d = tmp_path / var
        d.mkdir()
        for r in range(2):
            rank_trace(d / f"a-{r}.sctrace", r, env=(var,))
        doc = report_json(run_report, d)
        assert [(x["rank"], x["rank_from"]) for x in doc["ranks"]["ranks"]] == \
            [(0, var), (1, var)]
        assert doc["ranks"]["ranks"][0]["world_size"] is None


def test_no_ranks_no_section(tmp_path, run_report):
    d = tmp_path / "plain"
    d.mkdir()
    for r in range(2):
        rank_trace(d / f"a-{r}.sctrace", r, env=())
    r = run_report("--no-symbols", "-q", d)
    assert "== ranks" not in r.stdout
    assert "ranks" not in report_json(run_report, d)


def test_jobs_and_the_bounded_report_say_the_same(tmp_path, run_report):
    d, _ = job(tmp_path, n=8)
    one = run_report("--no-symbols", "-j", "1", d)
    many = run_report("--no-symbols", "-j", "4", d)
    assert one.returncode == many.returncode == 0
    assert one.stdout == many.stdout
    # --junit keeps every analysis in memory and prints the merged summary from them
    # (text.c); the bounded report prints it from the summaries: the same lines
    bounded = run_report("--no-symbols", "-q", d).stdout
    whole = run_report("--no-symbols", "-q", "--junit", tmp_path / "j.xml", d).stdout
    assert bounded == whole


def late_rank_trace(path, rank, busy, arrive):
    """Compute on stream 20 from 0 to `busy` us; the rank reaches its all-reduce at `arrive`
    us, and the all-reduce ends on every rank at 3000 us (the last arrival, 2800, + 200)."""
    t = Trace(exe="/usr/bin/python3", pid=2000 + rank)
    t.device(0)
    t.stream(20, NON_BLOCKING)
    t.stream(30, NON_BLOCKING)
    for e in (f"RANK={rank}", f"LOCAL_RANK={rank}", "WORLD_SIZE=3"):
        t.env(e)
    t.launch("_Z4stepv", 0, busy * US, 20)
    t.launch(NCCL, arrive * US, 3000 * US, 30, issue=(arrive - 100) * US)
    return t.write(path)


def test_the_rank_the_others_waited_for_is_the_last_to_arrive(tmp_path, run_report):
    """Rank 0 computes the most (1500 us) but reaches the all-reduce at once; rank 2 computes
    the least (1000 us) and reaches it last (2800 us: its host held it). The others' all-reduce
    waited for rank 2, which exposes the least communication: it is the slowest rank, named
    as held by its host, not by its compute."""
    d = tmp_path / "late"
    d.mkdir()
    for rank, busy, arrive in ((0, 1500, 1500), (1, 1200, 1200), (2, 1000, 2800)):
        late_rank_trace(d / f"python3-{2000 + rank}.sctrace", rank, busy, arrive)
    r = run_report("--no-symbols", "-q", d)
    assert r.returncode == 0, r.stderr
    # exposed: rank 0 3000-1500, rank 1 3000-1200, rank 2 3000-2800 (its compute ended)
    assert "slowest rank: 2 (pid 2002): the last to reach its collectives, not for its " \
        "compute (busy 1.00 ms, the median rank's 1.20 ms): held by its host between them" \
        in r.stdout, r.stdout
    assert "its exposed communication 200 us; the other ranks' median 1.50 ms" in r.stdout
    assert report_json(run_report, d)["ranks"]["slowest"]["rank"] == 2


def test_64_rank_summaries_make_the_same_merged_report(tmp_path, run_report):
    d, traces = job(tmp_path, n=64, pageable=range(0, 64, 5), slowest=17)
    sums = tmp_path / "sums"
    sums.mkdir()
    for t in traces:
        r = run_report("--no-symbols", "-q", "--summary-out", sums / (t.name + ".summary.json"),
                       t)
        assert r.returncode == 0, r.stderr
    s = json.loads((sums / (traces[5].name + ".summary.json")).read_text())
    assert s["schema"] == "streamcheck-summary/1" and s["rank"] == 5
    assert os.path.getsize(sums / (traces[5].name + ".summary.json")) < 4096
    from_traces = run_report("--no-symbols", "-q", d)
    from_sums = run_report("--no-symbols", "-q", sums)
    assert from_sums.returncode == 0, from_sums.stderr
    assert from_sums.stdout == from_traces.stdout
    assert "slowest rank: 17 " in from_sums.stdout
    doc = report_json(run_report, sums)
    assert len(doc["ranks"]["ranks"]) == 64 and doc["processes"] == []
    (pa,) = [f for f in doc["ranks"]["findings"] if f["rule"] == "pageable-async"]
    assert pa["ranks"] == list(range(0, 64, 5))


def test_a_summary_beside_its_trace_is_not_counted_twice(tmp_path, run_report):
    d, traces = job(tmp_path)
    r = run_report("--no-symbols", "-q", "--save-summaries", d)
    assert r.returncode == 0, r.stderr
    assert all(os.path.exists(str(t) + ".summary.json") for t in traces)
    again = run_report("--no-symbols", "-q", d)
    assert "== streamcheck summary: 4 processes ==" in again.stdout
    os.remove(traces[0])                  # a trace gone: its summary stands in for it
    alone = run_report("--no-symbols", "-q", d)
    assert alone.stdout == again.stdout


def test_every_file_of_a_run_folder_named_reports_each_trace_once(tmp_path, run_report):
    """`streamcheck-report run/*` names each trace, its summary and its symbols: the traces are
    read once each; a summary given with its trace and a .syms file are not inputs."""
    d, traces = job(tmp_path)
    assert run_report("-q", "--save-summaries", "--save-symbols", d).returncode == 0
    names = sorted(d.iterdir())
    assert {p.name.split(".sctrace")[1] for p in names} == {"", ".summary.json", ".syms"}
    every = run_report("--no-symbols", "-q", *names)
    assert every.returncode == 0 and every.stderr == "", every.stderr
    assert every.stdout == run_report("--no-symbols", "-q", *traces).stdout
    assert "== streamcheck summary: 4 processes ==" in every.stdout
    # a .syms file alone is no trace: said, skipped, not an error
    os.remove(traces[0])
    r = run_report("--no-symbols", "-q", str(traces[0]) + ".syms", traces[1])
    assert r.returncode == 0 and "the symbols of a trace that is not there" in r.stderr
    assert "== streamcheck summary" not in r.stdout or "1 process" in r.stdout


def test_summaries_that_are_not_are_refused(tmp_path, run_report):
    d, traces = job(tmp_path, n=2)
    newer = tmp_path / "x.summary.json"
    newer.write_text(json.dumps({"schema": "streamcheck-summary/2"}))
    r = run_report("--no-symbols", "-q", newer, traces[0])
    assert r.returncode == 1 and "newer schema" in r.stderr
    bad = tmp_path / "y.summary.json"
    bad.write_text("{")
    r = run_report("--no-symbols", "-q", bad)
    assert r.returncode == 1 and "not a summary" in r.stderr
    r = run_report("--no-symbols", "--summary-out", tmp_path / "s.json", *traces)
    assert r.returncode == 2 and "exactly one trace" in r.stderr
