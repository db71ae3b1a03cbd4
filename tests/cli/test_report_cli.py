"""streamcheck-report's command line: options, exit status, inputs it cannot read."""

import json

from sctrace import BLOCKING, LEGACY, NON_BLOCKING, Trace


def small_trace(path, exe="/usr/bin/app", pid=1):
    t = Trace(exe=exe, pid=pid)
    t.device(0)
    t.stream(14, NON_BLOCKING)
    t.launch("_Z1kv", 10_000, 20_000, 14)
    return t.write(path)


def legacy_trace(path, pid=2):
    """A legacy-stream kernel issued while a blocking-stream kernel runs: it waits 90 us.

    Times in us: spin on 13 (call 5, runs 10-110), sweep on the legacy stream (call 20, runs
    110-160). Lags from the trace: kernel issue 5 us, cross 0 us; the replay reproduces the
    run, 5-160 us (155 us). Without the barrier the sweep runs 25-75 beside spin and the run
    ends at 110: saving 50 us, 32.3% of the run but under 100 us: a warning."""
    t = Trace(exe="/usr/bin/legacy", pid=pid)
    t.device(0)
    t.stream(7, LEGACY)
    t.stream(13, BLOCKING)
    t.launch("_Z4spinv", 10_000, 110_000, 13, issue=5_000)
    t.launch("_Z5sweepv", 110_000, 160_000, 7, issue=20_000)
    return t.write(path)


def trap_trace(path, pid=3):
    """The same with a 200 us sweep behind a 200 us spin: spin on 13 (call 5, runs 10-210),
    sweep on the legacy stream (call 20, runs 210-410). The replay reproduces 5-410 us;
    without the barrier the sweep runs 25-225 and the run ends there: saving 185 us, 45.7%
    of the 405 us run: an error."""
    t = Trace(exe="/usr/bin/trap", pid=pid)
    t.device(0)
    t.stream(7, LEGACY)
    t.stream(13, BLOCKING)
    t.launch("_Z4spinv", 10_000, 210_000, 13, issue=5_000)
    t.launch("_Z5sweepv", 210_000, 410_000, 7, issue=20_000)
    return t.write(path)


def test_help_and_version(run_report):
    r = run_report("--help")
    assert r.returncode == 0 and "Usage: streamcheck-report" in r.stdout
    r = run_report("--version")
    assert r.returncode == 0 and r.stdout.startswith("streamcheck-report ")


def test_usage_errors_exit_2(run_report, tmp_path):
    small_trace(tmp_path / "a-1.sctrace")
    for args in ([], ["--bogus", tmp_path], ["--fail-on", "fatal", tmp_path],
                 ["--sites", "many", tmp_path], ["-o"]):
        r = run_report(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert "streamcheck-report" in r.stderr


def test_empty_folder(run_report, tmp_path):
    (tmp_path / "notes.txt").write_text("not a trace")
    r = run_report(tmp_path)
    assert r.returncode == 1
    assert f"no streamcheck traces in {tmp_path}" in r.stderr


def test_missing_path(run_report, tmp_path):
    r = run_report(tmp_path / "nope.sctrace")
    assert r.returncode == 1
    assert "nope.sctrace" in r.stderr


def test_corrupt_file_named_and_others_still_reported(run_report, tmp_path):
    (tmp_path / "bad-1.sctrace").write_bytes(b"this is not a trace at all, not even close")
    small_trace(tmp_path / "good-2.sctrace", exe="/usr/bin/good", pid=2)
    r = run_report(tmp_path)
    assert r.returncode == 1
    assert "bad-1.sctrace" in r.stderr
    assert "/usr/bin/good (pid 2)" in r.stdout


def test_newer_major_version_refused(run_report, tmp_path):
    t = Trace(version=(99, 0))
    t.device(0)
    path = t.write(tmp_path / "new-1.sctrace")
    r = run_report(path)
    assert r.returncode == 1
    assert "new-1.sctrace" in r.stderr


def test_folder_sorted_and_merged(run_report, tmp_path):
    small_trace(tmp_path / "b-2.sctrace", exe="/usr/bin/bbb", pid=2)
    small_trace(tmp_path / "a-1.sctrace.partial", exe="/usr/bin/aaa", pid=1)
    (tmp_path / "ignored.txt").write_text("x")
    r = run_report(tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.index("/usr/bin/aaa") < r.stdout.index("/usr/bin/bbb")
    assert "== streamcheck summary: 2 processes ==" in r.stdout


def test_quiet_prints_only_summary(run_report, tmp_path):
    legacy_trace(tmp_path / "legacy-2.sctrace")
    r = run_report("-q", tmp_path)
    assert r.returncode == 0
    assert r.stdout.startswith("== streamcheck summary: 1 process ==")
    assert "device 0:" not in r.stdout
    assert "legacy-stream" in r.stdout


def test_fail_on(run_report, tmp_path):
    path = legacy_trace(tmp_path / "legacy-2.sctrace")     # a warning
    assert run_report("--fail-on", "error", path).returncode == 0
    assert run_report("--fail-on", "warning", path).returncode == 3
    assert run_report("--fail-on", "note", path).returncode == 3
    assert run_report("--fail-on", "never", path).returncode == 0
    assert run_report(path).returncode == 0
    trap = trap_trace(tmp_path / "trap-3.sctrace")          # an error
    assert run_report("--fail-on", "error", trap).returncode == 3
    assert run_report(trap).returncode == 0
    clean = small_trace(tmp_path / "clean-1.sctrace")
    assert run_report("--fail-on", "note", clean).returncode == 0


def test_read_error_outranks_fail_on(run_report, tmp_path):
    legacy_trace(tmp_path / "legacy-2.sctrace")
    (tmp_path / "bad-1.sctrace").write_bytes(b"garbage")
    assert run_report("--fail-on", "error", tmp_path).returncode == 1


def test_output_files(run_report, tmp_path):
    path = legacy_trace(tmp_path / "legacy-2.sctrace")
    text, js = tmp_path / "report.txt", tmp_path / "report.json"
    r = run_report("-o", text, f"--json={js}", path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert "legacy-stream" in text.read_text()
    assert json.loads(js.read_text())["schema"] == "streamcheck-report/1"
    # --json=FILE alone: JSON to the file, text still on stdout
    r = run_report(f"--json={js}", path)
    assert "legacy-stream" in r.stdout


def test_json_on_stdout_replaces_text(run_report, tmp_path):
    path = legacy_trace(tmp_path / "legacy-2.sctrace")
    r = run_report("--json", path)
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["schema"] == "streamcheck-report/1"


def test_json_lists_unreadable_inputs(run_report, tmp_path):
    small_trace(tmp_path / "good-1.sctrace")
    (tmp_path / "bad-2.sctrace").write_bytes(b"garbage")
    r = run_report("--json", tmp_path)
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert [e["path"].endswith("bad-2.sctrace") for e in doc["errors"]] == [True]
    assert doc["summary"]["unreadable"] == 1
    assert len(doc["processes"]) == 1
