"""PyTorch programs show their own Python lines: tests/samples/torch_train.py under
streamcheck on the GPU, checked against the lines PyTorch's own sync detector
(torch.cuda.set_sync_debug_mode("warn")) names in a run without streamcheck.

Needs a GPU, PyTorch with CUDA in the Python running the tests, and a build folder
(STREAMCHECK_BUILD); skips otherwise."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import lifecycle_helpers as lh  # noqa: E402

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
PROGRAM = SOURCE / "tests" / "samples" / "torch_train.py"
MARKS = {m: i + 1 for i, line in enumerate(PROGRAM.read_text().splitlines())
         for m in re.findall(r"# MARK (\w+)", line)}


def torch_ready():
    try:
        import torch  # noqa: F401
        return torch.cuda.is_available()
    except Exception:
        return False


pytestmark = [pytest.mark.skipif(not lh.gpu_present(), reason="no NVIDIA GPU here"),
              pytest.mark.skipif(not torch_ready(), reason="PyTorch with CUDA is not here")]


@pytest.fixture(scope="module")
def tools():
    t = lh.Tools(lh.build_dir())
    if t.missing("lib", "report"):
        pytest.skip("not built")
    return t


@pytest.fixture(scope="module")
def report(tools, tmp_path_factory):
    out = tmp_path_factory.mktemp("torch") / "out"
    got = lh.run([sys.executable, PROGRAM, "--steps", "20"], lh.preload_env(tools, out))
    assert got.returncode == 0, got.stderr
    plain = lh.run([sys.executable, PROGRAM, "--steps", "20"], lh.clean_env())
    assert got.stdout == plain.stdout    # the same losses, to the printed digit
    (path,) = lh.trace_files(out)
    rc, doc = lh.report_json(tools, path)
    assert rc == 0
    (process,) = doc["processes"]
    return process


def user_lines(finding):
    """(file, line) of the frame each site shows first."""
    lines = set()
    for site in finding["sites"]:
        py = site["call"]["python"]
        if py and py["state"] == "frames" and py["site"] is not None:
            f = py["frames"][py["site"]]
            lines.add((f["file"], f["line"]))
    return lines


def test_the_pageable_copies_are_found_at_their_python_line(report):
    (f,) = [f for f in report["findings"] if f["rule"] == "pageable-async"]
    assert (str(PROGRAM), MARKS["pageable"]) in user_lines(f), f["sites"]


def test_item_and_synchronize_are_found_at_their_python_lines(report):
    lines = set()
    for f in report["findings"]:
        if f["rule"] in ("host-sync", "implicit-sync"):
            lines |= user_lines(f)
    assert (str(PROGRAM), MARKS["item"]) in lines, lines
    assert (str(PROGRAM), MARKS["synchronize"]) in lines, lines


def test_every_sync_torch_warns_about_is_reported_at_the_same_line(report):
    """PyTorch's own detector, in a run without streamcheck, against streamcheck's sites."""
    plain = lh.run([sys.executable, PROGRAM, "--steps", "20", "--sync-debug"], lh.clean_env())
    assert plain.returncode == 0, plain.stderr
    warned = {(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1]))
              for w in re.findall(r"^warned (\S+)$", plain.stdout, re.M)}
    assert warned, plain.stdout     # .item() at least: the detector ran
    found = set()
    for f in report["findings"]:
        found |= user_lines(f)
    assert warned <= found, (warned - found, found)
