"""Shared setup of the GPU suite: where the build is, and whether a GPU is here at all.

Every test in this folder needs an NVIDIA GPU; without one the whole suite skips with the
reason, so the suite can run anywhere (CI has no GPU) and counts as skipped there."""
import os
import pathlib
import shutil
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build")).resolve()


def gpu_present():
    """True when the NVIDIA driver answers and lists at least one GPU."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


GPU = gpu_present()


def pytest_collection_modifyitems(config, items):
    if GPU:
        return
    skip = pytest.mark.skip(reason="no NVIDIA GPU on this machine (nvidia-smi -L lists none)")
    for item in items:
        if pathlib.Path(str(item.fspath)).parent == pathlib.Path(__file__).parent:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def build():
    if not (BUILD / "src" / "preload" / "libstreamcheck.so").exists():
        pytest.skip(f"{BUILD} has no libstreamcheck.so (built without the CUDA toolkit?)")
    return BUILD
