"""Helpers of test_lifecycle.py: finding the built pieces, running the `lifecycle` sample with
and without streamcheck, and reading what it left behind.

Kept out of conftest.py on purpose (other GPU tests own that file); nothing here is a
fixture, so importing it changes no other test.

Traces are read two ways: through the C report tool (`streamcheck-report --json`, schema in
man/streamcheck-json.5), which is what users see, and, where the JSON does not carry a
detail (the thread id of every API call), with `read_raw` below, a minimal reader of
include/streamcheck/trace_format.h, independent of the C reader.
"""

import json
import os
import pathlib
import resource
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]

# tests/samples/lifecycle.cu
LAUNCHES = 4
WORKERS = 4
WORKER_LAUNCHES = 8


def gpu_present():
    """True when an NVIDIA driver is loaded and lists a GPU."""
    if not os.path.exists("/dev/nvidiactl"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return True  # the device node is there; the runs themselves will tell
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def build_dir():
    env = os.environ.get("STREAMCHECK_BUILD")
    return pathlib.Path(env).resolve() if env else ROOT / "build"


class Tools:
    """Paths of the built pieces; `missing` names those that are not there."""

    def __init__(self, build):
        self.build = pathlib.Path(build)
        self.lib = self.build / "src" / "preload" / "libstreamcheck.so"
        self.report = self.build / "src" / "report" / "streamcheck-report"
        self.wrapper = self.build / "tools" / "streamcheck"
        self.lifecycle = self.build / "tests" / "samples" / "lifecycle"
        self.squatter = self.build / "tests" / "gpu" / "libcupti_squatter.so"

    def missing(self, *names):
        return [str(getattr(self, n)) for n in names if not getattr(self, n).exists()]


def clean_env(**extra):
    """The test's environment without anything that would attach a tool already (the suite
    itself may run under streamcheck or a profiler), plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH") and not k.startswith("STREAMCHECK_")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Result:
    def __init__(self, argv, returncode, stdout, stderr, pid):
        self.argv, self.returncode, self.stdout, self.stderr, self.pid = (
            argv, returncode, stdout, stderr, pid)

    def streamcheck_lines(self):
        return [l for l in self.stderr.splitlines() if l.startswith("streamcheck:")]

    def value(self, key):
        """The value of the stdout line "KEY VALUE" (the first such line)."""
        for line in self.stdout.splitlines():
            if line.startswith(key + " "):
                return line[len(key) + 1:]
        raise AssertionError(f"no '{key}' line in stdout:\n{self.stdout}")

    def __repr__(self):
        return (f"<{' '.join(map(str, self.argv))}: exit {self.returncode}\n"
                f"--- stdout\n{self.stdout}--- stderr\n{self.stderr}>")


def _no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(argv, env, timeout=180, cwd=None):
    """Runs argv; its pid is kept (it is the pid in the trace's name). No core files: the
    abort and kill modes end by signal on purpose."""
    argv = [str(a) for a in argv]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd, preexec_fn=_no_core)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{argv} did not finish in {timeout} s:\n{out}\n{err}")
    return Result(argv, proc.returncode, out, err, proc.pid)


def preload_env(tools, out_dir, *, summary=False, before=()):
    """Environment that preloads streamcheck (after `before`, e.g. the squatter) and writes
    traces into out_dir. summary=False keeps the exit summary off stderr, so stderr holds
    only what streamcheck says because something is wrong."""
    preload = ":".join([*map(str, before), str(tools.lib)])
    extra = {"LD_PRELOAD": preload, "STREAMCHECK_OUT": out_dir}
    if not summary:
        extra["STREAMCHECK_SUMMARY"] = "0"
    return clean_env(**extra)


def trace_files(folder):
    folder = pathlib.Path(folder)
    if not folder.exists():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith((".sctrace", ".sctrace.partial")))


def report_json(tools, *paths):
    """streamcheck-report --json over paths: (exit status, document)."""
    proc = subprocess.run([str(tools.report), "--json", "--no-symbols", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"streamcheck-report wrote no JSON ({e}); exit {proc.returncode}\n"
                             f"stderr:\n{proc.stderr}") from e
    return proc.returncode, doc


def note_codes(process):
    return [n["code"] for n in process["notes"]]


# ---- a minimal raw reader of trace_format.h -------------------------------------------
# Layouts and values from the header itself (tests/cli/trace_layout.py, through sctrace.py).
import sys  # noqa: E402
sys.path.insert(0, str(ROOT / "tests" / "cli"))
from sctrace import (API, CALL_LAUNCH, COMPACT_KINDS, END, FILE_HEADER, KERNEL,  # noqa: E402,F401
                     NOTE, PROCESS, REC_API, REC_END, REC_KERNEL, REC_NOTE, REC_PROCESS,
                     RECORD_HEADER, TRACE_OLDEST_MAJOR, VERSION_MAJOR, Compact)


def read_raw(path):
    """{"status", "process", "calls", "kernels", "notes", "end"} of one trace file."""
    data = pathlib.Path(path).read_bytes()
    magic, major, _minor, header_size = FILE_HEADER.unpack_from(data, 0)
    assert magic == b"SCTRACE\0" and TRACE_OLDEST_MAJOR <= major <= VERSION_MAJOR, \
        (path, magic, major)
    t = {"process": None, "calls": [], "kernels": [], "notes": [], "end": None}
    compact = Compact()     # format 2.0: kernels and launches as compact records
    ends = 0
    off = header_size
    while off + RECORD_HEADER.size <= len(data):
        kind, fixed, size = RECORD_HEADER.unpack_from(data, off)  # fixed: format 1.3, else 0
        assert size >= 8 and size % 8 == 0, f"{path}: bad record size {size} at {off}"
        if off + size > len(data):
            break
        assert not ends, f"{path}: a record (kind {kind}) after the end record, at byte {off}"
        body = off + RECORD_HEADER.size
        full = compact.take(kind, data[body:off + size]) if kind in COMPACT_KINDS else None
        if full and full[0] == REC_API:
            t["calls"].append({k: full[1][k] for k in ("stream", "tid", "correlation_id",
                                                       "call_class")})
        elif full:
            t["kernels"].append({k: full[1][k] for k in ("stream_id", "correlation_id")})
        elif kind == REC_PROCESS:
            pid, ppid, *_ = PROCESS.unpack_from(data, body)
            t["process"] = {"pid": pid, "ppid": ppid}
        elif kind == REC_API:
            f = API.unpack_from(data, body)
            t["calls"].append({"stream": f[2], "tid": f[5], "correlation_id": f[6],
                               "call_class": f[11]})
        elif kind == REC_KERNEL:
            f = KERNEL.unpack_from(data, body)
            t["kernels"].append({"stream_id": f[5], "correlation_id": f[6]})
        elif kind == REC_NOTE:
            code, _ = NOTE.unpack_from(data, body)
            text = data[body + (fixed or NOTE.size):off + size].split(b"\0", 1)[0].decode(
                errors="replace")
            t["notes"].append((code, text))
        elif kind == REC_END:
            ends += 1
            f = END.unpack_from(data, body)
            t["end"] = {"dropped_records": f[1], "api_records": f[2],
                        "activity_records": f[3], "reason": f[4], "signal": f[5]}
        off += size
    t["status"] = "truncated" if off < len(data) else "complete" if ends else "partial"
    return t
