"""PyTorch's ways of running GPU work under streamcheck (tests/samples/torch_features.py):
streams with events (the overlap streamcheck reports is the one a minimal CUPTI client
measures), a DataLoader with pinned memory and worker processes (the workers leave no trace;
the pin-memory thread's Python frames are read), CUDA graphs (the replay's Python line), the
synchronizations users do not see (.cpu(), print, .item(), .tolist(), synchronize: every one
PyTorch's own detector warns about is reported at its line), and torch.compile where it runs.

Needs a GPU, PyTorch with CUDA, and a build folder (STREAMCHECK_BUILD); skips otherwise."""
import os
import pathlib
import re
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(SOURCE / "tests" / "cli"))
import lifecycle_helpers as lh  # noqa: E402
import sctrace  # noqa: E402
# the same skips and build fixture as the Python-sites suite
from test_python_sites import pytestmark, tools, torch_ready, user_lines  # noqa: E402,F401

PROGRAM = SOURCE / "tests" / "samples" / "torch_features.py"
MARKS = {m: i + 1 for i, line in enumerate(PROGRAM.read_text().splitlines())
         for m in re.findall(r"# MARK ([\w-]+)", line)}
CLIENT_RE = re.compile(r"cupti_concurrency: device=0 kernels=(\d+) kernel_ns=(\d+) "
                       r"busy_ns=(\d+) concurrency=([0-9.]+)")


@pytest.fixture(scope="module")
def traced(tools, tmp_path_factory):
    """torch_features.py MODE under streamcheck, once per mode: (result, folder, raw, report)."""
    cache = {}

    def get(mode):
        if mode not in cache:
            out = tmp_path_factory.mktemp(mode) / "out"
            got = lh.run([sys.executable, PROGRAM, mode], lh.preload_env(tools, out), timeout=300)
            assert got.returncode == 0, got.stderr
            files = lh.trace_files(out)
            mine = [f for f in files if f.name.endswith(f"-{got.pid}.sctrace")]
            raw = sctrace.read(mine[0]) if mine else None
            rc, doc = lh.report_json(tools, *files) if files else (None, None)
            cache[mode] = (got, files, raw, doc)
        return cache[mode]
    return get


def pylines(raw, program=PROGRAM):
    """Every (line, function) of the program in the trace's Python stacks, any depth."""
    return {(f["line"], f["function"]) for s in raw["pystacks"] for f in s["frames"]
            if f["file"] == str(program)}


def program_line(stack):
    """The line of the program's innermost frame in a Python stack, or None."""
    return next((f["line"] for f in stack["frames"] if f["file"] == str(PROGRAM)), None)


def test_streams_overlap_as_a_minimal_client_measures(tools, traced, tmp_path):
    got, files, raw, doc = traced("streams")
    plain = lh.run([sys.executable, PROGRAM, "streams"], lh.clean_env(), timeout=300)
    assert got.stdout == plain.stdout
    client_lib = lh.build_dir() / "tests" / "gpu" / "libcupti_concurrency.so"
    if not client_lib.exists():
        pytest.skip(f"{client_lib} not built")
    env = lh.clean_env()
    env["LD_PRELOAD"] = str(client_lib)
    client = lh.run([sys.executable, PROGRAM, "streams"], env, timeout=300)
    m = CLIENT_RE.search(client.stderr)
    assert m, client.stderr
    reference = float(m.group(4))
    # on a host of several GPUs every device is listed; the program uses device 0
    (device,) = [d for d in doc["processes"][0]["devices"] if d["kernel_count"]]
    ours = device["concurrency"]
    assert reference > 1.2, reference          # the chains do overlap without streamcheck
    assert abs(ours - reference) <= 0.05 * reference, (ours, reference)
    assert (MARKS["chain"], "streams") in pylines(raw)
    assert device["kernel_count"] >= 24


def test_dataloader_workers_leave_no_trace_and_the_pin_thread_is_read(traced):
    got, files, raw, doc = traced("dataloader")
    assert len(files) == 1, files          # the two workers never touched CUDA
    assert raw["process"]["pid"] == got.pid
    pin_thread = [s for s in raw["pystacks"]
                  if any(f["file"] and f["file"].endswith("utils/data/_utils/pin_memory.py")
                         for f in s["frames"])]
    assert pin_thread, "no call from the pin-memory thread has its Python frames"
    pageable = [f for f in doc["processes"][0]["findings"] if f["rule"] == "pageable-async"]
    assert all((str(PROGRAM), MARKS["pinned-copy"]) not in user_lines(f) for f in pageable)


def test_graph_replays_are_at_their_line(traced):
    got, files, raw, doc = traced("graphs")
    stacks = {s["correlation_id"]: s for s in raw["pystacks"]}
    replays = [c for c in raw["calls"] if c["name"] and "GraphLaunch" in c["name"]]
    assert len(replays) >= 6, [c["name"] for c in raw["calls"]][:50]   # 5 replays + graphed
    lines = {program_line(stacks[c["correlation_id"]]) for c in replays
             if c["correlation_id"] in stacks}
    assert MARKS["replay"] in lines, lines
    assert any(k["graph_node_id"] for k in raw["kernels"])


def test_every_sync_torch_warns_about_is_reported_at_its_line(tools, traced):
    got, files, raw, doc = traced("syncs")
    plain = lh.run([sys.executable, PROGRAM, "syncs", "--sync-debug"], lh.clean_env(),
                   timeout=300)
    assert plain.returncode == 0, plain.stderr
    warned = {(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1]))
              for w in re.findall(r"^warned (\S+)$", plain.stdout, re.M)}
    assert len(warned) >= 3, plain.stdout
    # torch warns from its own Python (print's formatting, .tolist()) or from the program's
    # line: either is a frame of the stack streamcheck took for that call
    seen = {(f["file"], f["line"]) for s in raw["pystacks"] for f in s["frames"]}
    assert warned <= seen, (warned - seen, seen)
    found = set()
    for f in doc["processes"][0]["findings"]:
        if f["rule"] in ("host-sync", "implicit-sync", "pageable-async"):
            found |= user_lines(f)
    for mark in ("cpu", "print", "item", "tolist", "synchronize"):
        assert (str(PROGRAM), MARKS[mark]) in found, (mark, found)


def test_compiled_code_keeps_its_callers_line(traced):
    got, files, raw, doc = traced("compile")
    if "compile unavailable" in got.stdout:
        pytest.skip(got.stdout.strip())
    assert raw["kernels"]
    assert any(line == MARKS["compiled"] for line, _ in pylines(raw)), pylines(raw)
