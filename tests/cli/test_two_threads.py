"""Where a core is free, the report builds some parts of an analysis on a second thread (the
context's independent indexes, the rule host-sync beside the others: src/analyze/fork_join.h).
The report must be the same byte for byte as on one core, for every recorded fixture and for
a synthetic trace of several host threads, in text and in JSON. That the second thread is
taken at all, and only where a core is free, test_stage_table.py shows (its thread column)."""

import os
import subprocess

import pytest

from conftest import ROOT, build_dir, one_cpu

FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*.sctrace"))
OUTPUTS = [[], ["--json"]]


@pytest.fixture(scope="module")
def cores():
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: the report never takes a second thread")


def both_ways(report_bin, args):
    """The report's exit status and stdout, where a core is free and on one core."""
    free = subprocess.run([str(report_bin), *args], capture_output=True)
    one = subprocess.run([str(report_bin), *args], capture_output=True, preexec_fn=one_cpu())
    return (free.returncode, free.stdout), (one.returncode, one.stdout)


def test_fixtures_are_there():
    assert len(FIXTURES) >= 20


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_each_fixture_the_same_on_one_core(report_bin, cores, fixture):
    for extra in OUTPUTS:
        free, one = both_ways(report_bin, [*extra, str(fixture)])
        assert free == one, (fixture.name, extra)


def test_a_trace_of_four_threads_the_same_on_one_core(report_bin, cores, tmp_path):
    generator = build_dir() / "tools" / "bench" / "synthetic-trace"
    if not generator.exists():
        pytest.skip(f"{generator} not built")
    trace = subprocess.run([str(generator), "--threads", "4", str(tmp_path), "200000"],
                           capture_output=True, text=True, check=True).stdout.strip()
    for extra in OUTPUTS:
        free, one = both_ways(report_bin, [*extra, trace])
        assert free[0] == 0 and free == one, extra
