"""STREAMCHECK_REPORT_STAGES: the report tool writes each trace's stages (load, the context,
the rules, the replay's build, its walks, the ranges) to standard error, with the CPU time and
faults of the thread that ran each and the process's resident memory at each stage's end
(src/analyze/stage_clock.c, src/report/stage_table.c). The report itself is the same byte for
byte; the table is checked against what the kernel says of the whole process (wait4)."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, build_dir, one_cpu
from test_ci_outputs import RULES

# The rules that may run on a second thread beside the others (analyze.c, SC_RULE_BESIDE): their
# rows come after the others'.
BESIDE = ["host-sync"]

# Every stage, in the order the analysis runs them (each rule a stage, in the analyzer's order,
# those beside the others last): a mark lost or moved shows here, whether the parts run on one
# thread or two (fork_join.h keeps the rows of the two in that order).
STAGES = [
    "load", "context: ids, devices", "context: work order", "context: overlaps",
    "context: dependencies", "context: launches", "context: blocking index", "context: polls",
    "rules: legacy waits", *[f"rule: {r}" for r in RULES if r not in BESIDE],
    *[f"rule: {r}" for r in BESIDE],
    "replay: host items", "replay: work", "replay: runs of calls", "replay: issue orders",
    "replay: edges", "replay: host waits", "replay: lags", "replay: node order",
    "replay: fidelity walks",
    "cost passes", "ranges: calls and work", "ranges: measures", "ranges: later measures",
    "ranges",
]

ROW = re.compile(r"^  (\S.*?)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+)"
                 r"(?:\s+(\d+\.\d)\s+(\d+\.\d)\s+([12]))?$")


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A 400k-record synthetic trace (the benchmark's mix): work for each stage, and a peak
    well above the resident memory of the interpreter that runs the tool below."""
    generator = build_dir() / "tools" / "bench" / "synthetic-trace"
    if not generator.exists():
        pytest.skip(f"{generator} not built")
    folder = tmp_path_factory.mktemp("stages")
    return subprocess.run([str(generator), str(folder), "400000"], capture_output=True,
                          text=True, check=True).stdout.strip()


# Runs the tool and prints its rusage: the tool is the child of this small interpreter, not of
# the test's, whose resident memory a child forked from it would count as its own peak.
RUSAGE_OF_CHILD = """
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
sys.stderr.write(r.stderr)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.returncode, u.ru_utime, u.ru_stime, u.ru_minflt, u.ru_maxrss)
"""


def run_with_usage(report_bin, args):
    """The tool's exit status, stderr and (user s, system s, minor faults, peak KiB), from one
    run with STREAMCHECK_REPORT_STAGES=1: the table and the kernel's count of one process."""
    env = dict(os.environ, STREAMCHECK_REPORT_STAGES="1")
    r = subprocess.run([sys.executable, "-c", RUSAGE_OF_CHILD, str(report_bin), *args],
                       capture_output=True, text=True, env=env, check=True)
    status, user, system, faults, peak = r.stdout.split()
    return int(status), r.stderr, (float(user), float(system), int(faults), int(peak))


def tables(err):
    """Each table in stderr: (path, rows as (stage, user, system, faults, resident MiB, peak
    MiB, thread)); the total row has no memory and no thread (None, None, None)."""
    found = []
    for line in err.splitlines():
        head = re.match(r"^streamcheck-report: stages of (\S+) \(", line)
        if head:
            found.append((head.group(1), []))
            continue
        m = ROW.match(line)
        if m and found and m.group(1) != "stage":
            rest = ((float(m.group(5)), float(m.group(6)), int(m.group(7))) if m.group(5)
                    else (None, None, None))
            found[-1][1].append((m.group(1), float(m.group(2)), float(m.group(3)),
                                 int(m.group(4)), *rest))
    return found


def test_the_report_is_the_same_and_the_stages_are_all_there(report_bin, trace):
    plain = subprocess.run([str(report_bin), trace], capture_output=True, check=True)
    env = dict(os.environ, STREAMCHECK_REPORT_STAGES="1")
    staged = subprocess.run([str(report_bin), trace], capture_output=True, check=True, env=env)
    assert staged.stdout == plain.stdout
    assert plain.stderr == b""
    found = tables(staged.stderr.decode())
    assert [path for path, _ in found] == [trace]
    rows = found[0][1]
    assert [r[0] for r in rows] == STAGES + ["total"]
    total = rows[-1]
    for column in (1, 2):   # user, system: the total is the sum, within each row's rounding
        assert abs(sum(r[column] for r in rows[:-1]) - total[column]) <= 0.0005 * len(rows)
    assert sum(r[3] for r in rows[:-1]) == total[3]
    resident = {r[0]: r[4] for r in rows[:-1]}
    if os.path.exists("/proc/self/status"):
        # the replay holds the loaded records and its graph beside them (what it frees after
        # is the allocator's to give back or keep: an ASan build keeps it)
        assert resident["replay: fidelity walks"] > resident["load"] > 0


def test_the_table_agrees_with_the_kernels_count_of_the_process(report_bin, trace):
    status, err, (user, system, faults, peak_kib) = run_with_usage(report_bin, [trace])
    assert status == 0, err
    rows = tables(err)[0][1]
    if os.path.exists("/proc/self/status"):
        # the process's peak so far, at each stage's end: never above its peak at exit, and
        # the analysis holds the run's peak (the text written after it holds little); the
        # kernel's counters of resident pages are approximate by a few hundred KiB
        peak_mib = peak_kib / 1024.0
        assert 0.9 * peak_mib <= max(r[5] for r in rows[:-1]) <= peak_mib + 1
        assert all(r[4] <= r[5] + 1 for r in rows[:-1])     # resident <= peak so far
    # the thread's CPU time and faults are a part of the process's, which adds its start, its
    # output and the run of itself again (src/report/malloc_policy.c)
    total = rows[-1]
    assert total[1] <= user + 0.01
    assert total[2] <= system + 0.01
    assert total[3] <= faults


# The stages built on a second thread where a core is free (context.c, analyze.c: fork_join.h).
SECOND_THREAD = ["context: dependencies", "context: blocking index", "context: polls",
                 *[f"rule: {r}" for r in BESIDE], "ranges: later measures"]


def test_a_second_thread_only_where_a_core_is_free(report_bin, trace):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: the report never takes a second thread")
    env = dict(os.environ, STREAMCHECK_REPORT_STAGES="1")
    two = subprocess.run([str(report_bin), trace], capture_output=True, check=True, env=env)
    one = subprocess.run([str(report_bin), trace], capture_output=True, check=True, env=env,
                         preexec_fn=one_cpu())
    assert one.stdout == two.stdout
    for run, beside in ((two, SECOND_THREAD), (one, [])):
        rows = tables(run.stderr.decode())[0][1]
        assert [r[0] for r in rows] == STAGES + ["total"]
        assert {r[0] for r in rows[:-1] if r[6] == 2} == set(beside)
    # two traces at once on two CPUs: no core is free for a second thread of either
    pair = subprocess.run([str(report_bin), "-j", "2", trace, trace], capture_output=True,
                          check=True, env=env, preexec_fn=lambda: os.sched_setaffinity(
                              0, set(sorted(os.sched_getaffinity(0))[:2])))
    found = tables(pair.stderr.decode())
    assert len(found) == 2 and all(r[6] != 2 for _, rows in found for r in rows)


@pytest.mark.parametrize("value", [None, "", "0"])
def test_off_unless_asked(report_bin, value):
    fixture = ROOT / "tests" / "fixtures" / "killers-async-copy.sctrace"
    env = dict(os.environ)
    env.pop("STREAMCHECK_REPORT_STAGES", None)
    if value is not None:
        env["STREAMCHECK_REPORT_STAGES"] = value
    r = subprocess.run([str(report_bin), str(fixture)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "stages of" not in r.stderr


def test_several_traces_each_table_whole_in_input_order(report_bin, tmp_path):
    names = ["killers-async-copy.sctrace", "arrangements-trap.sctrace",
             "killers-blocking.sctrace"]
    for name in names:
        (tmp_path / name).symlink_to(ROOT / "tests" / "fixtures" / name)
    env = dict(os.environ, STREAMCHECK_REPORT_STAGES="1")
    r = subprocess.run([str(report_bin), "-j", "3", *[str(tmp_path / n) for n in names]],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    found = tables(r.stderr)
    assert [os.path.basename(p) for p, _ in found] == names
    # each table's lines are together: a header, its column names, a row a stage, the total
    lines = r.stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("streamcheck-report: stages of "):
            block = lines[i + 2:i + 2 + len(STAGES) + 1]
            assert [ROW.match(x).group(1) for x in block] == STAGES + ["total"]


def test_a_trace_that_cannot_be_read_has_no_table(report_bin, tmp_path):
    bad = tmp_path / "cut-1.sctrace"
    bad.write_bytes(b"SCTRACE\0" + b"\xff" * 5)
    env = dict(os.environ, STREAMCHECK_REPORT_STAGES="1")
    r = subprocess.run([str(report_bin), str(bad)], capture_output=True, text=True, env=env)
    assert r.returncode == 1
    assert "stages of" not in r.stderr
