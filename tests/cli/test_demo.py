"""tools/demo without a GPU: it says what the sample does, where its source is (a file of
this checkout) and what to look at, names no path of the recording machine or absolute path
of this checkout, and points at the HTML report instead of opening a browser.

It builds ./build, so it runs only where the tests run on that folder; and only without an
NVIDIA GPU (with one, the demo runs the sample live: tests/gpu)."""
import os
import pathlib
import shutil
import subprocess

import pytest

import sctrace
from conftest import ROOT, build_dir


@pytest.fixture(scope="module")
def demo_output():
    if build_dir().resolve() != (ROOT / "build").resolve():
        pytest.skip("tools/demo builds ./build; these tests run on another build folder")
    if shutil.which("nvidia-smi"):
        pytest.skip("an NVIDIA GPU may be here: the demo would run the sample live")
    p = subprocess.run([str(ROOT / "tools" / "demo")], cwd="/", capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout + p.stderr


def test_it_says_what_the_sample_does_and_where_its_source_is(demo_output):
    lines = demo_output.splitlines()
    (does,) = [line for line in lines if line.startswith("demo: ==== arrangements trap: ")]
    assert "cudaStreamCreate" in does and "legacy" in does
    (source,) = [line for line in lines if line.startswith("demo: source: ")]
    path = source.split()[2].rstrip(",")
    assert (ROOT / path).is_file(), path
    assert any(line.startswith("demo: look at: ") for line in lines)


def test_no_path_of_the_recording_machine_nor_of_this_checkout(demo_output):
    recorded = sctrace.read(ROOT / "tests/fixtures/arrangements-trap.sctrace")["process"]["exe"]
    folder = os.path.dirname(recorded)
    assert folder.startswith("/") and folder not in demo_output
    assert str(ROOT) + "/" not in demo_output
    assert "== build/tests/samples/arrangements (pid " in demo_output


def test_the_html_report_is_a_command_not_a_browser(demo_output):
    assert "streamcheck-report --html report.html tests/fixtures/arrangements-trap.sctrace" \
        in demo_output
    assert "chromium" not in demo_output.lower()
