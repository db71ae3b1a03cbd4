"""The streamcheck wrapper script, with a stand-in for libstreamcheck.so: the command itself
writes a trace into $STREAMCHECK_OUT the way the library would, so no GPU is needed."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent

FAKE_APP = """\
import os, re, sys
sys.path.insert(0, {here!r})
from sctrace import *
# STREAMCHECK_OUT is a pattern to the library: the wrapper's folder comes with each '%' as
# '%%', and nothing the library would expand (%p, %h, %q{{VAR}}).
pattern = os.environ["STREAMCHECK_OUT"]
assert not re.search("%[^%]", pattern.replace("%%", "")), pattern
out = pattern.replace("%%", "%")
assert os.path.isabs(out), out
assert os.environ["STREAMCHECK_SUMMARY"] == "0"
assert os.environ["LD_PRELOAD"].startswith(os.environ["EXPECT_LIB"])
print("app output")
mode = sys.argv[1]
if mode != "nocuda":
    t = Trace(exe="/usr/bin/fake", pid=os.getpid())
    t.device(0)
    if mode == "legacy":
        t.stream(7, LEGACY)
        t.stream(13, BLOCKING)
        t.launch("_Z4spinv", 10_000, 110_000, 13, issue=5_000)
        t.launch("_Z5sweepv", 110_000, 160_000, 7, issue=20_000)
    elif mode == "trap":
        t.stream(7, LEGACY)
        t.stream(13, BLOCKING)
        t.launch("_Z4spinv", 10_000, 210_000, 13, issue=5_000)
        t.launch("_Z5sweepv", 210_000, 410_000, 7, issue=20_000)
    elif mode == "frames":
        # a launch whose one frame lies in this Python's executable, 0x1234 into it
        t.stream(14, NON_BLOCKING)
        t.launch("_Z1kv", 10_000, 20_000, 14, frames=(0x400000 + 0x1234,))
        t.module(os.path.realpath(sys.executable), 0x400000, 0x500000, bias=0x400000)
    else:
        t.stream(14, NON_BLOCKING)
        t.launch("_Z1kv", 10_000, 20_000, 14)
    if mode == "capture":   # what the library would read (libstreamcheck(7))
        print("capture:", [os.environ.get("STREAMCHECK_CAPTURE" + v) for v in
                           ("", "_RANGE", "_SKIP")])
    t.write(os.path.join(out, "fake-%d.sctrace" % os.getpid()))
sys.exit(int(sys.argv[2]))
"""


def loaded_libc():
    """A real shared library to stand in for libstreamcheck.so: harmless to preload."""
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if "/libc.so" in path or "/libc-" in path:
            return path
    pytest.skip("no libc path in /proc/self/maps")


@pytest.fixture
def wrap(wrapper_bin, tmp_path):
    app = tmp_path / "fake_app.py"
    app.write_text(FAKE_APP.format(here=str(HERE)))
    lib = loaded_libc()
    env = dict(os.environ, STREAMCHECK_LIB=lib, EXPECT_LIB=lib)

    def run(*args, mode="clean", status=0, cwd=tmp_path):
        cmd = [str(wrapper_bin), *map(str, args), "--", sys.executable, str(app), mode,
               str(status)]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=60)
    return run


def runs(out):
    return sorted(p for p in out.iterdir() if p.name.startswith("run-"))


def test_clean_run(wrap, tmp_path):
    r = wrap()
    assert r.returncode == 0, r.stderr
    assert r.stdout == "app output\n"             # the summary stays off the app's stdout
    assert "== streamcheck summary: 1 process ==" in r.stderr
    (run,) = runs(tmp_path / "streamcheck-out")
    assert len(list(run.glob("*.sctrace"))) == 1


def test_symbols_saved_beside_the_trace_after_the_run(wrap, tmp_path):
    r = wrap(mode="frames")
    assert r.returncode == 0, r.stderr
    (run,) = runs(tmp_path / "streamcheck-out")
    (trace,) = run.glob("*.sctrace")
    doc = json.loads(pathlib.Path(str(trace) + ".syms").read_text())
    (mod,) = doc["modules"]
    assert mod["path"] == os.path.realpath(sys.executable)
    assert [f["offset"] for f in mod["frames"]] == ["0x1234"]


def test_a_summary_is_written_beside_each_trace(wrap, tmp_path):
    r = wrap()
    assert r.returncode == 0, r.stderr
    (run,) = runs(tmp_path / "streamcheck-out")
    (trace,) = run.glob("*.sctrace")
    doc = json.loads(pathlib.Path(str(trace) + ".summary.json").read_text())
    assert doc["schema"] == "streamcheck-summary/1" and doc["path"] == str(trace)


def test_exit_status_passes_through(wrap):
    assert wrap(status=7).returncode == 7
    assert wrap("--fail-on", "error", mode="legacy", status=5).returncode == 5


def test_fail_on(wrap):
    """legacy: the sweep (call 20 us, runs 110-160) waited behind spin (10-110); the replay
    (issue lag 5 us, cross 0 us) reproduces 5-160 us and without the barrier ends at 110:
    saving 50 us, 32% of the run but under 100 us: a warning. trap: a 200 us sweep (210-410)
    behind a 200 us spin (10-210): without the barrier the sweep runs 25-225, saving 185 us
    of 405 us, and what tracing added to the sweep's launch (test_report_content.py,
    legacy_trap): 187 us, an error."""
    r = wrap("--fail-on", "error", mode="trap")
    assert r.returncode == 3, r.stderr
    assert "error   legacy-stream   cost 187 us" in r.stderr
    r = wrap("--fail-on", "error", mode="legacy")
    assert r.returncode == 0, r.stderr
    assert "warning legacy-stream   cost 50.0 us" in r.stderr
    assert wrap("--fail-on", "warning", mode="legacy").returncode == 3
    assert wrap("--fail-on", "never", mode="trap").returncode == 0
    assert wrap(mode="trap").returncode == 0


def test_json_and_out_dir(wrap, tmp_path):
    out, js = tmp_path / "traces", tmp_path / "r.json"
    r = wrap("-o", out, "--json", js, mode="legacy")
    assert r.returncode == 0, r.stderr
    doc = json.loads(js.read_text())
    assert doc["summary"]["findings"][0]["rule"] == "legacy-stream"
    assert len(runs(out)) == 1


def test_earlier_runs_are_kept_unless_clean(wrap, tmp_path):
    out = tmp_path / "o"
    for args in ((), (), ("--keep",)):             # --keep: the default, still accepted
        assert wrap("-o", out, *args).returncode == 0
    assert len(runs(out)) == 3
    assert all((r / ".done").exists() for r in runs(out))
    unfinished = out / "run-19700101-000000-1"     # no .done marker: left alone
    unfinished.mkdir()
    r = wrap("-o", out, "--clean")
    assert r.returncode == 0, r.stderr
    (latest,) = [r for r in runs(out) if r != unfinished]
    assert list(latest.glob("*.sctrace")) and unfinished.exists()


def test_clean_removes_nothing_when_the_run_left_no_trace(wrap, tmp_path):
    out = tmp_path / "o"
    wrap("-o", out)
    wrap("-o", out, "--clean", mode="nocuda")
    assert len(runs(out)) == 1


def test_a_percent_in_the_output_folder_is_not_a_pattern(wrap, tmp_path):
    out = tmp_path / "100%p-%h"
    r = wrap("-o", out, mode="legacy")
    assert r.returncode == 0, r.stderr
    (run,) = runs(out)
    assert len(list(run.glob("*.sctrace"))) == 1


def test_capture_scope_options_reach_the_library(wrap):
    r = wrap("--capture-range", "train step", "--capture-skip", "2", mode="capture")
    assert r.returncode == 0, r.stderr
    assert "capture: [None, 'train step', '2']" in r.stdout
    r = wrap("--capture-profiler", mode="capture")
    assert "capture: ['profiler', None, None]" in r.stdout
    r = wrap("--capture-range", "step", "--capture-skip", "two", mode="capture")
    assert r.returncode == 2 and "--capture-skip wants a number, not 'two'" in r.stderr


def test_no_cuda_leaves_nothing(wrap, tmp_path):
    r = wrap(mode="nocuda", status=4)
    assert r.returncode == 4
    assert "streamcheck: no process used CUDA" in r.stderr
    assert runs(tmp_path / "streamcheck-out") == []


def test_killed_by_signal(wrapper_bin, tmp_path):
    env = dict(os.environ, STREAMCHECK_LIB=loaded_libc())
    r = subprocess.run([str(wrapper_bin), "--", "sh", "-c", "kill -TERM $$"], env=env,
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 128 + 15


def test_usage_and_setup_errors(wrapper_bin, tmp_path):
    def run(*args, **env):
        return subprocess.run([str(wrapper_bin), *map(str, args)], capture_output=True,
                              text=True, cwd=tmp_path, env=dict(os.environ, **env), timeout=60)
    assert run("--help").returncode == 0
    assert run().returncode == 2
    assert run("--fail-on", "bad", "--", "true").returncode == 2
    assert run("--bogus", "--", "true").returncode == 2
    r = run("--", "true", STREAMCHECK_LIB=str(tmp_path / "missing.so"))
    assert r.returncode == 2 and "missing.so" in r.stderr
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run("-o", blocker / "sub", "--", "true", STREAMCHECK_LIB=loaded_libc())
    assert r.returncode == 2 and "cannot create" in r.stderr


def test_ci_outputs_and_suppressions_pass_through(wrap, tmp_path):
    """--sarif, --junit, --suppress and --error-exitcode reach the report; a suppressed error
    no longer trips --fail-on; a suppression that does not parse stops before the command."""
    sarif, junit = tmp_path / "r.sarif", tmp_path / "r.xml"
    r = wrap("--fail-on", "error", "--error-exitcode", "17", "--sarif", sarif,
             "--junit", junit, mode="trap")
    assert r.returncode == 17, r.stderr
    (result,) = [x for x in json.loads(sarif.read_text())["runs"][0]["results"]
                 if x["ruleId"] == "legacy-stream"]
    assert result["level"] == "error"
    assert 'name="legacy-stream"' in junit.read_text()
    r = wrap("--fail-on", "error", "--suppress", "legacy-stream", mode="trap")
    assert r.returncode == 0, r.stderr
    assert "suppressed" in r.stderr
    r = wrap("--suppress", "no-such-rule", mode="clean")
    assert r.returncode == 2 and "no-such-rule" in r.stderr, r.stderr
    assert "app output" not in r.stdout     # the command never ran
    assert wrap("--error-exitcode", "0", mode="clean").returncode == 2
