"""--expect and --expect-file: expectations on the measured numbers, checked against traces
with known timings (sctrace.py), in the report tool and through the wrapper.

Range metrics come from the analyzer's per-range summaries (sc_analysis.ranges); the tests
that name a range need them."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from sctrace import (CALL_MEMCPY_ASYNC, DTOH, LEGACY, MEM_DEVICE, MEM_PINNED, NON_BLOCKING,
                     Trace)

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARRANGEMENTS_EXPECT = ROOT / "tests" / "samples" / "arrangements.expect"


def copy(t, start, end, stream_id, issue):
    corr = t.api("cudaMemcpyAsync", issue, issue + 2_000, CALL_MEMCPY_ASYNC, stream=0x10,
                 nbytes=1 << 20)
    t.memcpy(start, end, 1 << 20, stream_id, copy_kind=DTOH, src_kind=MEM_DEVICE,
             dst_kind=MEM_PINNED, correlation_id=corr)


def ranges_trace(path):
    """Three ranges with known metrics (times in us from the trace start):

    legacy       [0, 400]: spin 10-110 and sweep 110-210, both on the legacy stream:
                 kernel time 200, busy 200, concurrency 1.00, wall 400
    nonblocking  [500, 700]: spin 510-610 on stream 21, sweep 520-620 on stream 22:
                 kernel time 200, busy 110, concurrency 200/110 = 1.82, wall 200
    step x3      [1000+200i, 1100+200i]: a 50 us kernel at +10 on stream 21, and a copy on
                 stream 22 that overlaps it by 20 of 40 us, 0 of 20 us, 40 of 40 us:
                 copy-overlap summed over the instances = 60 / 100 = 0.6 (the mean of the
                 three ratios would be 0.5), wall 3 x 100 = 300, kernels 3

    The whole run: 7 kernels on device 0.
    """
    t = Trace(exe="/usr/bin/arrangements", pid=31)
    t.device(0, name="Test GPU", sm_count=4)
    t.stream(7, LEGACY)
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING)
    t.range("legacy", 0, 400_000)
    t.launch("_Z4spinv", 10_000, 110_000, 7, issue=1_000)
    t.launch("_Z5sweepv", 110_000, 210_000, 7, issue=4_000)
    t.range("nonblocking", 500_000, 700_000)
    t.launch("_Z4spinv", 510_000, 610_000, 21, issue=501_000)
    t.launch("_Z5sweepv", 520_000, 620_000, 22, issue=504_000)
    copies = [(40_000, 80_000), (70_000, 90_000), (10_000, 50_000)]
    for i, (cs, ce) in enumerate(copies):
        base = 1_000_000 + 200_000 * i
        t.range("step", base, base + 100_000)
        t.launch("_Z4stepv", base + 10_000, base + 60_000, 21, issue=base + 1_000)
        copy(t, base + cs, base + ce, 22, issue=base + 4_000)
    return t.write(path)


def clean_trace(path):
    """No legacy-stream work at all: one kernel on a non-blocking stream."""
    t = Trace(exe="/usr/bin/clean", pid=32)
    t.device(0)
    t.stream(21, NON_BLOCKING)
    t.range("work", 0, 100_000)
    t.launch("_Z1kv", 10_000, 60_000, 21, issue=1_000)
    return t.write(path)


@pytest.fixture
def trace(tmp_path):
    return ranges_trace(tmp_path / "arrangements-31.sctrace")


def expect_lines(text):
    return [line for line in text.splitlines() if line.startswith("expect: ")]


def check(run_report, trace, *exprs, extra=()):
    args = [a for e in exprs for a in ("--expect", e)]
    return run_report("-q", *extra, *args, trace)


# ---- whole-process expectations and "no RULE" (no range metrics needed) -----------------

def test_whole_process_pass(run_report, trace):
    r = check(run_report, trace, "kernels == 7", "concurrency >= 1.0", "copies == 3")
    assert r.returncode == 0, r.stdout + r.stderr
    # Kernel time 200 + 200 + 3 x 50 = 550 us over busy 200 + 110 + 150 = 460 us.
    assert expect_lines(r.stdout) == [
        "expect: PASS kernels == 7 (measured 7)",
        "expect: PASS concurrency >= 1.0 (measured 1.2)",
        "expect: PASS copies == 3 (measured 3)",
    ]


def test_whole_process_fail_says_what_was_measured(run_report, trace):
    r = check(run_report, trace, "kernels > 10")
    assert r.returncode == 4
    assert expect_lines(r.stdout) == ["expect: FAIL kernels > 10 (measured 7)"]


def test_no_rule(run_report, trace, tmp_path):
    r = check(run_report, trace, "no legacy-stream", "no pageable-async")
    assert r.returncode == 4
    first, second = expect_lines(r.stdout)
    assert first.startswith("expect: FAIL no legacy-stream (measured 2 findings, cost ")
    assert second == "expect: PASS no pageable-async (measured 0 findings)"

    r = check(run_report, clean_trace(tmp_path / "clean-32.sctrace"), "no legacy-stream")
    assert r.returncode == 0, r.stdout + r.stderr
    assert expect_lines(r.stdout) == ["expect: PASS no legacy-stream (measured 0 findings)"]


def test_no_severity(run_report, trace):
    """'no error' is no finding at error severity, whatever the rule; the legacy-stream work
    here serializes nothing, so it is a note."""
    r = check(run_report, trace, "no error", "no note")
    lines = expect_lines(r.stdout)
    assert lines[0] == "expect: PASS no error (measured 0 findings)"
    assert lines[1].startswith("expect: FAIL no note (measured ")
    assert r.returncode == 4


def test_units_and_arithmetic(run_report, trace):
    """The run spans 0..1.5 ms of events (the last step range ends at 1500 us)."""
    r = check(run_report, trace, "time <= 2ms", "time >= 1400us", "time < 0.0014s",
              "kernels * 2 - 4 == 10", "(kernels + 1) / 4 == 2", "-kernels < 0")
    lines = expect_lines(r.stdout)
    assert [l.split()[1] for l in lines] == ["PASS", "PASS", "FAIL", "PASS", "PASS", "PASS"], lines
    assert "measured 1.50 ms" in lines[0]
    assert r.returncode == 4


def test_fail_on_and_expectations_exit_codes(run_report, trace):
    # --fail-on alone: 3; a failed expectation outranks it: 4; both passing: 0.
    assert run_report("-q", "--fail-on", "note", trace).returncode == 3
    assert check(run_report, trace, "kernels == 1", extra=("--fail-on", "note")).returncode == 4
    assert check(run_report, trace, "kernels == 7", extra=("--fail-on", "error")).returncode == 0
    # A read error outranks everything.
    r = check(run_report, trace, "kernels == 1", extra=("--fail-on", "note", "/nonexistent"))
    assert r.returncode == 1


def test_expectations_go_to_stderr_when_json_takes_stdout(run_report, trace):
    r = run_report("--json", "--expect", "kernels == 7", trace)
    assert r.returncode == 0
    json.loads(r.stdout)
    assert "expect: PASS kernels == 7 (measured 7)" in r.stderr


def test_verdicts_are_in_the_json_report(run_report, trace):
    """A CI job reading the JSON gets the verdicts too, in the order given; without --expect
    the document has no such member."""
    r = run_report("--json", "--expect", "kernels == 7", "--expect", "kernels > 10", trace)
    assert r.returncode == 4
    doc = json.loads(r.stdout)
    assert doc["expectations"] == [
        {"expectation": "kernels == 7", "passed": True, "measured": "measured 7"},
        {"expectation": "kernels > 10", "passed": False, "measured": "measured 7"},
    ]
    assert "expectations" not in json.loads(run_report("--json", trace).stdout)


@pytest.mark.parametrize("expr, message", [
    ("range=x concurency>=1.3", "unknown metric 'concurency'"),
    ("range=x concurrency", "expected a comparison (>=, <=, >, <, ==) at the end"),
    ("no legacy-streams", "unknown rule 'legacy-streams'"),
    ("concurrency >= 1.3q", "bad number '1.3q'"),
    ("(busy > 1ms", "expected ')'"),
    ("busy = 1ms", "compare with =="),
    ("1 < busy < 3", "one comparison per expectation"),
    ("range= busy > 1", "range= wants a name"),
    ("range=\"a b busy > 1", "unterminated quote"),
    ("", "empty expectation"),
    ("no legacy-stream in busy", "\"in\" wants range=NAME"),
])
def test_parse_errors_exit_2_before_reading(run_report, expr, message):
    r = run_report("--expect", expr, "/nonexistent/trace.sctrace")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"streamcheck-report: --expect '{expr.strip()}': ")
    assert message in r.stderr
    assert "nonexistent" not in r.stderr       # the traces are never read


def test_expect_file(run_report, trace, tmp_path):
    f = tmp_path / "x.expect"
    f.write_text("# header comment\n"
                 "\n"
                 "kernels == 7      # trailing comment\n"
                 "   no pageable-async\n")
    r = run_report("-q", "--expect-file", f, trace)
    assert r.returncode == 0, r.stdout + r.stderr
    assert expect_lines(r.stdout) == ["expect: PASS kernels == 7 (measured 7)",
                                      "expect: PASS no pageable-async (measured 0 findings)"]


def test_expect_file_errors_name_the_line(run_report, trace, tmp_path):
    f = tmp_path / "bad.expect"
    f.write_text("kernels == 7\n# fine\nkernels >== 7\n")
    r = run_report("--expect-file", f, trace)
    assert r.returncode == 2
    assert f"streamcheck-report: {f}:3: 'kernels >== 7': " in r.stderr
    r = run_report("--expect-file", tmp_path / "missing.expect", trace)
    assert r.returncode == 2
    assert "cannot read" in r.stderr and "missing.expect" in r.stderr


def test_check_expectations(run_report):
    r = run_report("--check-expectations", "--expect", "no legacy-stream",
                   "--expect-file", ARRANGEMENTS_EXPECT)
    assert r.returncode == 0, r.stderr
    assert "8 expectations parsed" in r.stdout
    assert run_report("--check-expectations", "--expect", "nope").returncode == 2


def test_bundled_arrangement_expectations_parse(run_report):
    r = run_report("--check-expectations", "--expect-file", ARRANGEMENTS_EXPECT)
    assert r.returncode == 0, r.stderr


# ---- range expectations (need sc_analysis.ranges) ---------------------------------------

def test_range_pass_and_fail(run_report, trace):
    r = check(run_report, trace, "range=nonblocking concurrency>=1.3",
              "range=legacy concurrency >= 1.3",
              "range=legacy time / range=nonblocking time >= 1.3",
              "range=nonblocking busy <= 110us")
    lines = expect_lines(r.stdout)
    assert lines[0] == "expect: PASS range=nonblocking concurrency>=1.3 (measured 1.82)"
    assert lines[1] == "expect: FAIL range=legacy concurrency >= 1.3 (measured 1)"
    assert lines[2] == ("expect: PASS range=legacy time / range=nonblocking time >= 1.3 "
                        "(measured 2; range=legacy time 400 us, range=nonblocking time 200 us)")
    assert lines[3] == "expect: PASS range=nonblocking busy <= 110us (measured 110 us)"
    assert r.returncode == 4


def test_unknown_range_never_passes(run_report, trace):
    r = check(run_report, trace, "range=nosuch concurrency >= 0", "no legacy-stream in range=nosuch",
              "range=legacy time <= 2 * range=nosuch time")
    lines = expect_lines(r.stdout)
    assert len(lines) == 3
    for line in lines:
        assert line.startswith("expect: FAIL ")
        assert line.endswith('(no range named "nosuch")')
    assert r.returncode == 4


def test_repeated_range_aggregates_its_instances(run_report, trace):
    r = check(run_report, trace, "range=step instances == 3", "range=step kernels == 3",
              "range=step copy-overlap >= 0.55", "range=step copy-overlap <= 0.65",
              "range=step time <= 0.31ms", "range=step time >= 0.29ms",
              "range=step concurrency == 1")
    lines = expect_lines(r.stdout)
    assert all(l.startswith("expect: PASS") for l in lines), lines
    assert "(measured 0.6)" in lines[2]
    assert r.returncode == 0


def test_range_findings(run_report, trace):
    r = check(run_report, trace, "no legacy-stream in range=nonblocking",
              "no legacy-stream in range=legacy")
    lines = expect_lines(r.stdout)
    assert lines[0] == "expect: PASS no legacy-stream in range=nonblocking (measured 0 findings)"
    assert lines[1].startswith("expect: FAIL no legacy-stream in range=legacy (measured 2 findings")
    assert r.returncode == 4


def test_quoted_range_names(run_report, tmp_path):
    t = Trace(exe="/usr/bin/q", pid=33)
    t.device(0)
    t.stream(21, NON_BLOCKING)
    t.range("fwd pass", 0, 100_000)
    t.launch("_Z1kv", 10_000, 60_000, 21, issue=1_000)
    path = t.write(tmp_path / "q-33.sctrace")
    f = tmp_path / "q.expect"
    f.write_text("range='fwd pass' kernels == 1   # a name with a blank\n"
                 "range=\"fwd pass\" busy >= 50us\n")
    r = run_report("-q", "--expect-file", f, path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(expect_lines(r.stdout)) == 2


def arrangements_all_trace(path, two_grids_us=2000, nonblocking_us=520, trap_us=800):
    """Ranges shaped like `arrangements all` (wall times in us): legacy 800 (spin then
    sweeps, serialized), nonblocking as given (spin and sweeps overlapped), trap as given,
    two-grids-solo-sweep 1000, two-grids-solo-sweep2 1100, two-grids as given."""
    t = Trace(exe="/usr/bin/arrangements", pid=40)
    t.device(0)
    t.stream(7, LEGACY)
    t.stream(13, 2)           # blocking
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING)
    us = 1000
    at = 0

    def rng(name, wall):
        nonlocal at
        t.range(name, at, at + wall * us)
        start = at
        at += wall * us + 100 * us
        return start

    s = rng("legacy", 800)
    t.launch("_Z4spinv", s + 10 * us, s + 510 * us, 7, issue=s + us)
    t.launch("_Z5sweepv", s + 510 * us, s + 790 * us, 7, issue=s + 2 * us)
    s = rng("nonblocking", nonblocking_us)
    t.launch("_Z4spinv", s + 10 * us, s + 510 * us, 21, issue=s + us)
    t.launch("_Z5sweepv", s + 20 * us, s + 300 * us, 22, issue=s + 2 * us)
    s = rng("trap", trap_us)
    t.launch("_Z4spinv", s + 10 * us, s + 510 * us, 13, issue=s + us)
    t.launch("_Z5sweepv", s + 510 * us, s + trap_us * us - 10 * us, 7, issue=s + 2 * us)
    s = rng("two-grids-solo-sweep", 1000)
    t.launch("_Z5sweepv", s + 10 * us, s + 990 * us, 21, issue=s + us)
    s = rng("two-grids-solo-sweep2", 1100)
    t.launch("_Z6sweep2v", s + 10 * us, s + 1090 * us, 22, issue=s + us)
    s = rng("two-grids", two_grids_us)
    t.launch("_Z5sweepv", s + 10 * us, s + two_grids_us * us - 20 * us, 21, issue=s + us)
    t.launch("_Z6sweep2v", s + 20 * us, s + two_grids_us * us - 10 * us, 22, issue=s + 2 * us)
    return t.write(path)


def test_bundled_arrangement_expectations_pass(run_report, tmp_path):
    path = arrangements_all_trace(tmp_path / "arrangements-40.sctrace")
    r = run_report("-q", "--expect-file", ARRANGEMENTS_EXPECT, path)
    lines = expect_lines(r.stdout)
    assert len(lines) == 7, r.stdout + r.stderr
    assert all(l.startswith("expect: PASS") for l in lines), "\n".join(lines)
    assert r.returncode == 0


def test_bundled_arrangement_expectations_fail(run_report, tmp_path):
    """Non-blocking barely faster, the trap 20% faster than legacy, two grids that saved a
    third of their solo time: each of those expectations fails."""
    path = arrangements_all_trace(tmp_path / "arrangements-40.sctrace", two_grids_us=1400,
                                  nonblocking_us=700, trap_us=640)
    r = run_report("-q", "--expect-file", ARRANGEMENTS_EXPECT, path)
    failed = [l for l in expect_lines(r.stdout) if l.startswith("expect: FAIL")]
    texts = [re.sub(r" \((measured|no range).*", "", l[len("expect: FAIL "):]) for l in failed]
    assert texts == [
        "range=legacy time / range=nonblocking time >= 1.3",
        "range=trap time >= 0.9 * range=legacy time",
        "range=two-grids time >= 0.9 * (range=two-grids-solo-sweep time + "
        "range=two-grids-solo-sweep2 time)",
    ], r.stdout
    assert "(measured 1.40 ms vs 1.89 ms;" in failed[2]
    assert r.returncode == 4


# ---- the wrapper -------------------------------------------------------------------------

FAKE_APP = """\
import os, sys
sys.path.insert(0, {here!r})
from sctrace import *
print("app ran")
t = Trace(exe="/usr/bin/fake", pid=os.getpid())
t.device(0)
t.stream(14, NON_BLOCKING)
t.range("step", 0, 100_000)
t.launch("_Z1kv", 10_000, 20_000, 14)
t.write(os.path.join(os.environ["STREAMCHECK_OUT"], "fake-%d.sctrace" % os.getpid()))
"""


@pytest.fixture
def wrap(wrapper_bin, tmp_path):
    app = tmp_path / "fake_app.py"
    app.write_text(FAKE_APP.format(here=str(pathlib.Path(__file__).resolve().parent)))
    lib = next((line.split()[-1] for line in open("/proc/self/maps")
                if "/libc.so" in line or "/libc-" in line), None)
    if lib is None:
        pytest.skip("no libc path in /proc/self/maps")
    env = dict(os.environ, STREAMCHECK_LIB=lib)

    def run(*args):
        return subprocess.run([str(wrapper_bin), *map(str, args), "--", sys.executable,
                               str(app)], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60)
    return run


def test_wrapper_passes_expectations(wrap, tmp_path):
    f = tmp_path / "w.expect"
    f.write_text("kernels == 1\n")
    r = wrap("--expect", "no legacy-stream", "--expect=kernels >= 1", "--expect-file", f)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "app ran\n"
    assert "expect: PASS no legacy-stream (measured 0 findings)" in r.stderr
    assert "expect: PASS kernels >= 1 (measured 1)" in r.stderr
    assert "expect: PASS kernels == 1 (measured 1)" in r.stderr


def test_wrapper_failed_expectation_exits_4(wrap):
    r = wrap("--expect", "kernels > 1", "--expect", "kernels >= 0")
    assert r.returncode == 4, r.stderr
    assert "expect: FAIL kernels > 1 (measured 1)" in r.stderr


def test_wrapper_quotes_survive(wrap):
    """Quotes, blanks and shell characters reach the report tool as typed."""
    r = wrap("--expect", 'range="it\'s $HOME `x`" kernels >= 0')
    assert r.returncode == 4, r.stderr
    assert ('expect: FAIL range="it\'s $HOME `x`" kernels >= 0 '
            '(no range named "it\'s $HOME `x`")') in r.stderr


def test_wrapper_bad_expectation_stops_before_the_command(wrap):
    r = wrap("--expect", "concurency > 1")
    assert r.returncode == 2
    assert "unknown metric 'concurency'" in r.stderr
    assert r.stdout == ""                      # the command never ran


def test_wrapper_range_expectation(wrap):
    r = wrap("--expect", "range=step kernels == 1")
    assert r.returncode == 0, r.stderr
    assert "expect: PASS range=step kernels == 1 (measured 1)" in r.stderr


def test_wrapper_writes_chrome_trace(wrap, tmp_path):
    r = wrap("--chrome", "trace.json")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "trace.json").read_text())
    assert any(e.get("cat") == "kernel" for e in doc["traceEvents"])
