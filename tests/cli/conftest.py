"""Shared fixtures for the CLI tests: where the built tools are, and how to run them.

Set STREAMCHECK_BUILD to the meson build folder (default: ./build, then ./build-report, from
the repository root). No GPU is needed: traces are written by sctrace.py.
"""

import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

ROOT = pathlib.Path(__file__).resolve().parents[2]


def build_dir():
    env = os.environ.get("STREAMCHECK_BUILD")
    if env:
        return pathlib.Path(env).resolve()
    for name in ("build", "build-report", "build-main"):
        if (ROOT / name / "src" / "report" / "streamcheck-report").exists():
            return ROOT / name
    pytest.skip("set STREAMCHECK_BUILD to a build folder holding src/report/streamcheck-report")


def one_cpu():
    """For subprocess's preexec_fn: the child may use the first of this process's CPUs alone,
    as `taskset -c` runs it (the report then builds nothing on a second thread)."""
    cpu = min(os.sched_getaffinity(0))
    return lambda: os.sched_setaffinity(0, {cpu})


@pytest.fixture(scope="session")
def report_bin():
    path = build_dir() / "src" / "report" / "streamcheck-report"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return path


@pytest.fixture(scope="session")
def wrapper_bin():
    path = build_dir() / "tools" / "streamcheck"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return path


@pytest.fixture
def run_report(report_bin):
    def run(*args, **kw):
        return subprocess.run([str(report_bin), *map(str, args)], capture_output=True,
                              text=True, timeout=60, **kw)
    return run
