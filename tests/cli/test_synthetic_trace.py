"""tools/bench/synthetic-trace, the report-speed benchmark's input: the trace it writes holds
the mix it promises (each step: 16 kernels and 4 copies on 4 streams, 27 calls, 4 syncs, an
NVTX range; every 64th step a pageable copy and an allocation that waits), and the report
tool reads it whole, in compact records as the library writes them or in full (--full);
--span spreads the same steps over about the run length it names (a long run's pace), and
--threads runs them on several host threads, each with streams of its own."""

import json
import subprocess

import pytest

from conftest import build_dir


@pytest.fixture(scope="module")
def generator():
    path = build_dir() / "tools" / "bench" / "synthetic-trace"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return path


def test_mix(generator, run_report, tmp_path):
    out = subprocess.run([str(generator), str(tmp_path), "20000"], capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out.endswith("synthetic-4242.sctrace")
    r = run_report("--json", out)
    assert r.returncode == 0, r.stderr
    proc = json.loads(r.stdout)["processes"][0]
    assert proc["status"] == "complete"
    steps = len(proc["ranges"])
    slow = steps // 64
    # 52 records a step (53 when slow) after a preamble of 23: the steps stop once the 20000
    # asked for are there, so less than one step more; then the END record.
    records = 52 * steps + slow + 23
    assert 20000 <= records < 20000 + 53
    counts = proc["counts"]
    assert counts["kernels"] == 16 * steps
    assert counts["copies"] == 4 * steps
    assert counts["api_calls"] == 27 * steps + slow + 4
    found = {f["rule"]: f["count"] for f in proc["findings"]}
    assert found["pageable-async"] == slow
    assert found["implicit-sync"] == slow
    assert found["host-sync"] == steps


def test_refuses_bad_arguments(generator, tmp_path):
    d = str(tmp_path)
    for args in ([], [d], [d, "0"], [d, "12x"], ["--span", "0", d, "100"],
                 ["--span", "x", d, "100"], ["--span", "-5", d, "100"], ["--span"],
                 ["--spam", d, "100"], ["--threads", "0", d, "100"],
                 ["--threads", "65", d, "100"], ["--threads", "2x", d, "100"]):
        r = subprocess.run([str(generator), *args], capture_output=True, text=True)
        assert r.returncode == 2, args
        assert ("usage: synthetic-trace [--full] [--span SECONDS] [--threads N] DIR RECORDS"
                in r.stderr)


def test_span_spreads_the_same_steps(generator, run_report, tmp_path):
    """A day's run: the same steps and findings as packed back to back, over about a day."""
    docs = {}
    for how, args in (("packed", []), ("day", ["--span", "86400"])):
        (tmp_path / how).mkdir()
        path = subprocess.run([str(generator), *args, str(tmp_path / how), "20000"],
                              capture_output=True, text=True, check=True).stdout.strip()
        r = run_report("--json", "--no-symbols", path)
        assert r.returncode == 0, r.stderr
        (docs[how],) = json.loads(r.stdout)["processes"]
    packed, day = docs["packed"], docs["day"]
    assert packed["counts"] == day["counts"]
    assert len(packed["ranges"]) == len(day["ranges"])
    assert ({f["rule"]: f["count"] for f in packed["findings"]} ==
            {f["rule"]: f["count"] for f in day["findings"]})
    assert packed["span_ns"] < 2e9
    assert 0.95 * 86400e9 < day["span_ns"] < 1.05 * 86400e9


def test_compact_and_full_say_the_same(generator, run_report, tmp_path):
    paths = {}
    for how in ("compact", "full"):
        (tmp_path / how).mkdir()
        args = ["--full"] if how == "full" else []
        paths[how] = subprocess.run([str(generator), *args, str(tmp_path / how), "20000"],
                                    capture_output=True, text=True, check=True).stdout.strip()

    def doc(path):
        r = run_report("--json", "--no-symbols", path)
        assert r.returncode == 0, r.stderr
        (p,) = json.loads(r.stdout)["processes"]
        return p.pop("path"), p.pop("trace_version"), p
    c, f = doc(paths["compact"]), doc(paths["full"])
    assert (c[1], f[1]) == ("2.0", "1.5")
    assert c[2] == f[2]
    size = {how: (tmp_path / how / "synthetic-4242.sctrace").stat().st_size for how in paths}
    assert size["compact"] < 0.6 * size["full"], size


def test_threads_run_the_steps_side_by_side(generator, run_report, tmp_path):
    """Four threads: the same records shared among them, each thread its own four streams,
    ranges and calls, and the steps of the threads overlapping in time."""
    path = subprocess.run([str(generator), "--threads", "4", str(tmp_path), "20000"],
                          capture_output=True, text=True, check=True).stdout.strip()
    r = run_report("--json", "--no-symbols", path)
    assert r.returncode == 0, r.stderr
    (proc,) = json.loads(r.stdout)["processes"]
    steps = len(proc["ranges"])
    found = {f["rule"]: f["count"] for f in proc["findings"]}
    slow = found["pageable-async"]      # every 64th step of each thread
    # the preamble: 15 records, and each thread's four streams created (a call and a record)
    records = 52 * steps + slow + 15 + 8 * 4
    assert 20000 <= records < 20000 + 53
    assert proc["counts"]["kernels"] == 16 * steps
    assert len({s["stream_id"] for s in proc["streams"]}) == 16
    by_thread = {}
    for g in proc["ranges"]:
        by_thread.setdefault(g["tid"], []).append(g)
    assert sorted(by_thread) == [100, 101, 102, 103]
    assert all(abs(len(v) - steps / 4) <= 1 for v in by_thread.values())
    first = [min(g["start_ns"] for g in v) for v in by_thread.values()]
    last = [max(g["start_ns"] for g in v) for v in by_thread.values()]
    assert max(first) < min(last)       # side by side, not one after another
