"""The ways a program meets streamcheck: LD_PRELOAD, CUDA_INJECTION64_PATH, the wrapper;
PyTorch with cuBLAS; and processes that never touch CUDA."""
import os
import pathlib
import subprocess
import sys

import pytest

from samples import Run, sample

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "cli"))
import sctrace  # noqa: E402

SOURCE = pathlib.Path(__file__).parents[2]


def preload_env(build, out, **extra):
    env = {**os.environ, "LD_PRELOAD": str(build / "src/preload/libstreamcheck.so"),
           "STREAMCHECK_OUT": str(out)}
    env.pop("CUDA_INJECTION64_PATH", None)
    env.update(extra)
    return env


def test_preload_names_its_one_trace_and_the_report_finds_the_trap(build, tmp_path):
    """The library only records: at exit one line names the trace; the report tool, run
    on it, finds what the trap does."""
    binary = sample(build, "arrangements")
    plain = subprocess.run([binary, "trap"], capture_output=True, text=True)
    watched = subprocess.run([binary, "trap"], capture_output=True, text=True,
                             env=preload_env(build, tmp_path / "out"))
    assert watched.returncode == plain.returncode == 0
    said = [l for l in watched.stderr.splitlines() if l.startswith("streamcheck:")]
    traces = list((tmp_path / "out").glob("*.sctrace"))
    assert len(traces) == 1 and not list((tmp_path / "out").glob("*.partial"))
    assert said == [f"streamcheck: trace written: {traces[0]} "
                    f"(report: streamcheck-report {traces[0]})"], watched.stderr
    report = subprocess.run([build / "src/report/streamcheck-report", "--no-symbols",
                             traces[0]], capture_output=True, text=True)
    assert report.returncode == 0 and "legacy-stream" in report.stdout, report.stderr
    # the program's own output is untouched (timings aside)
    strip = lambda s: [l.split(" ms=")[0] for l in s.splitlines() if not l.startswith("# spin")]
    assert strip(watched.stdout) == strip(plain.stdout)


def test_injection_path_alone_attaches(build, tmp_path):
    env = {**os.environ, "CUDA_INJECTION64_PATH": str(build / "src/preload/libstreamcheck.so"),
           "STREAMCHECK_OUT": str(tmp_path), "STREAMCHECK_SUMMARY": "0"}
    env.pop("LD_PRELOAD", None)
    proc = subprocess.run([sample(build, "arrangements"), "nonblocking"], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (path,) = tmp_path.glob("*.sctrace")
    trace = sctrace.read(str(path))
    assert trace["status"] == "complete"
    assert trace["process"]["attach"] == 2  # SC_ATTACH_INJECTION
    assert len(trace["kernels"]) > 0


@pytest.mark.parametrize("argv", [["/bin/true"], ["sh", "-c", "echo hi; ls / >/dev/null"],
                                  [sys.executable, "-c", "print(42)"]])
def test_process_without_cuda_writes_nothing(build, tmp_path, argv):
    out = tmp_path / "out"
    proc = subprocess.run(argv, env=preload_env(build, out), capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0
    assert "streamcheck" not in proc.stderr
    assert not out.exists() and not (tmp_path / "streamcheck-out").exists()


def torch_ready():
    try:
        import torch  # noqa: F401
        return torch.cuda.is_available()
    except Exception:
        return False


@pytest.mark.skipif(not torch_ready(), reason="PyTorch with CUDA is not installed here")
def test_pytorch_cublas_launches_are_seen_and_idiom_is_no_error(build, tmp_path):
    run = Run(build, tmp_path, [sys.executable, SOURCE / "tests/samples/torch_streams.py", "10"])
    assert run.proc.returncode == 0, run.proc.stderr
    assert "checksum=" in run.proc.stdout
    traces = [t for t in run.read_traces() if t["kernels"]]
    assert len(traces) == 1
    trace = traces[0]
    launches = {c["correlation_id"] for c in trace["calls"] if c["call_class"] == 1}
    driver = [c for c in trace["calls"] if c["call_class"] == 1 and c["flags"] & 2]  # SC_API_DRIVER
    assert driver, "cuBLAS launches through the driver API were not seen"
    missing = [k["name"] for k in trace["kernels"] if k["correlation_id"] not in launches]
    assert not missing, missing[:5]
    proc = next(p for p in run.report["processes"] if p["counts"]["kernels"])
    legacy = [f for f in proc["findings"] if f["rule"] == "legacy-stream"]
    assert all(f["severity"] != "error" for f in legacy), legacy


def test_nvtx_ranges_are_recorded(build, tmp_path):
    """`arrangements all` runs each arrangement inside an NVTX range named after it."""
    run = Run(build, tmp_path, [sample(build, "arrangements"), "all", "--reps", "1"])
    assert run.proc.returncode == 0, run.proc.stderr
    (trace,) = run.read_traces()
    names = [r["name"] for r in trace["ranges"]]
    for expected in ("spin", "sweep", "sweep2", "legacy", "nonblocking", "trap", "two-grids",
                     "two-grids-solo-sweep", "two-grids-solo-sweep2"):
        assert expected in names, names
    for r in trace["ranges"]:
        assert r["end_ns"] > r["start_ns"]
        assert r["depth"] == 0
    # every range holds the launches its arrangement made: each began after the range did
    nb = next(r for r in trace["ranges"] if r["name"] == "nonblocking")
    inside = [c for c in trace["calls"]
              if c["call_class"] == 1 and nb["start_ns"] <= c["start_ns"] <= nb["end_ns"]]
    assert len(inside) == 5  # one rep: a spin and four sweeps
