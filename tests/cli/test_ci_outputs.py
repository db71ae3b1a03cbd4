"""CI outputs and report shaping: --sarif, --junit, --suppress/--suppressions,
--error-exitcode, and the filters --pid, --range, --from/--to."""

import ctypes.util
import json
import os
import shutil
import xml.etree.ElementTree as ET

from sctrace import BLOCKING, CALL_MEMCPY_ASYNC, LEGACY, MEM_PAGEABLE, NON_BLOCKING, Trace
from test_report_content import site_binary, site_trace  # noqa: F401 (a fixture)

US = 1000
ANY_THREAD = 0xFFFFFFFF
# The catalogue as DESIGN.md and streamcheck-rules(7) state it, in the analyzer's order.
RULES = ["legacy-stream", "pageable-async", "implicit-sync", "host-sync", "serializing-env",
         "blocking-stream", "lazy-loading", "no-room", "host-func", "priority",
         "managed-faults", "pin-per-step", "hardware-queue", "peer-access",
         "cross-device-wait"]
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def trap(t, at, frames=(), spin="_Z4spinv", sweep="_Z5sweepv"):
    """At `at` us: a 200 us spin on blocking stream 13 (call at +5), then a 200 us sweep on
    the legacy stream issued at +20 that waits for it (test_report_cli.trap_trace: alone,
    an error saving 185 us)."""
    a = at * US
    t.launch(spin, a + 10 * US, a + 210 * US, 13, issue=a + 5 * US, frames=frames)
    t.launch(sweep, a + 210 * US, a + 410 * US, 7, issue=a + 20 * US, frames=frames)


def base(exe="/usr/bin/trap", pid=3):
    t = Trace(exe=exe, pid=pid)
    t.device(0)
    t.stream(7, LEGACY)
    t.stream(13, BLOCKING)
    return t


def trap_trace(path, pid=3, exe="/usr/bin/trap"):
    t = base(exe, pid)
    trap(t, 0)
    return t.write(path)


def report_json(run_report, *args):
    r = run_report("--json", *args)
    assert r.returncode in (0, 3), r.stderr
    return json.loads(r.stdout)


def findings_of(doc, i=0):
    return doc["processes"][i]["findings"]


# ---- SARIF ------------------------------------------------------------------------------

def check_sarif_structure(log):
    """The properties SARIF 2.1.0 requires of what streamcheck writes (sarif-schema-2.1.0:
    sarifLog.version/runs, run.tool.driver.name, result.message.text, rule ids)."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "streamcheck" and driver["version"]
    for rule in driver["rules"]:
        assert isinstance(rule["id"], str) and rule["shortDescription"]["text"]
    for res in run["results"]:
        assert res["message"]["text"]
        assert res["level"] in ("none", "note", "warning", "error")
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        for loc in res["locations"]:
            if "physicalLocation" in loc:
                phys = loc["physicalLocation"]
                assert phys["artifactLocation"]["uri"]
                assert phys["region"]["startLine"] >= 1
            for logical in loc["logicalLocations"]:
                assert logical["name"] and logical["fullyQualifiedName"]
    return run


def test_sarif_matches_the_findings(run_report, tmp_path):
    fixture = "tests/fixtures/killers-blocking.sctrace"
    out = tmp_path / "r.sarif"
    r = run_report("--no-symbols", "--sarif", out, fixture, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    run = check_sarif_structure(json.loads(out.read_text()))
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == RULES
    findings = findings_of(report_json(run_report, "--no-symbols", ROOT / fixture))
    assert len(run["results"]) == len(findings) == 3
    for res, f in zip(run["results"], findings):
        assert res["ruleId"] == f["rule"]
        assert res["level"] == LEVELS[f["severity"]]
        assert f["title"] in res["message"]["text"]
        assert res["properties"]["cost_ns"] == f["cost_ns"]
        # without symbols every site is a logical location: module+0xoffset
        assert len(res["locations"]) == len(f["sites"])
        for loc, site in zip(res["locations"], f["sites"]):
            assert "physicalLocation" not in loc
            name = loc["logicalLocations"][0]["name"]
            assert name == "killers+" + site["call"]["call_site"]["module_offset"]


def test_sarif_physical_location_at_the_source_line(run_report, site_binary, tmp_path):  # noqa: F811
    if not shutil.which("addr2line"):
        import pytest
        pytest.skip("needs addr2line")
    path = site_trace(site_binary, tmp_path)
    r = run_report("--sarif", "-", path)
    assert r.returncode == 0, r.stderr
    run = check_sarif_structure(json.loads(r.stdout))
    legacy = [res for res in run["results"] if res["ruleId"] == "legacy-stream"][0]
    phys = legacy["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "file://" + str(site_binary.parent / "site.c")
    assert 5 <= phys["region"]["startLine"] <= 8     # launch_site's body in SITE_C
    assert legacy["locations"][0]["logicalLocations"][0]["name"] == "launch_site"


def test_sarif_validates_against_a_local_schema(run_report, tmp_path):
    """With python3-jsonschema and a schema file at hand (no network in CI), the log is also
    validated in full; otherwise the structure checks above stand."""
    import pytest
    jsonschema = pytest.importorskip("jsonschema")
    schemas = [p for p in ("/usr/share/sarif/sarif-schema-2.1.0.json",) if
               __import__("os").path.exists(p)]
    if not schemas:
        pytest.skip("no SARIF 2.1.0 schema file on this machine")
    r = run_report("--no-symbols", "--sarif", "-", trap_trace(tmp_path / "t.sctrace"))
    jsonschema.validate(json.loads(r.stdout), json.loads(open(schemas[0]).read()))


# ---- JUnit ------------------------------------------------------------------------------

def junit(run_report, *args, **kw):
    r = run_report("--no-symbols", "--junit", "-", *args, **kw)
    assert r.returncode in (0, 3), r.stderr
    return ET.fromstring(r.stdout)


def test_junit_a_case_per_rule_failed_by_errors(run_report, tmp_path):
    trap_trace(tmp_path / "a-trap-3.sctrace", pid=3)
    t = base("/usr/bin/quiet", 9)
    t.launch("_Z1kv", 10 * US, 20 * US, 13)
    t.write(tmp_path / "b-quiet-9.sctrace")
    doc = report_json(run_report, "--no-symbols", tmp_path)
    root = junit(run_report, tmp_path)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["/usr/bin/trap (pid 3)", "/usr/bin/quiet (pid 9)"]
    for suite, proc in zip(suites, doc["processes"]):
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == RULES
        errors = {f["rule"] for f in proc["findings"] if f["severity"] == "error"}
        failed = {c.get("name") for c in cases if c.find("failure") is not None}
        assert failed == errors
        assert int(suite.get("failures")) == len(errors)
        assert int(suite.get("tests")) == len(RULES)
    assert {"legacy-stream"} <= {c.get("name") for c in suites[0].findall("testcase")
                                 if c.find("failure") is not None}
    failure = [c for c in suites[0].findall("testcase")
               if c.get("name") == "legacy-stream"][0].find("failure")
    legacy = [f for f in doc["processes"][0]["findings"] if f["rule"] == "legacy-stream"][0]
    assert legacy["title"] in failure.get("message")
    assert f"saves ~{legacy['cost_ns'] / 1000:.0f} us" in failure.get("message")
    assert int(root.get("failures")) == sum(int(s.get("failures")) for s in suites)


def test_junit_follows_fail_on(run_report, tmp_path):
    """A join the run needs (a kernel issued later ends the run anyway): a note, which the
    default threshold passes and --fail-on note fails."""
    t = base()
    trap(t, 0)
    t.launch("_Z1kv", 1020 * US, 1030 * US, 13, issue=1010 * US)
    path = t.write(tmp_path / "join.sctrace")
    doc = report_json(run_report, "--no-symbols", path)
    assert [f["severity"] for f in findings_of(doc)] == ["note"]
    assert not [c for c in junit(run_report, path).iter("testcase")
                if c.find("failure") is not None]
    root = junit(run_report, "--fail-on", "note", path)
    failed = {c.get("name") for c in root.iter("testcase") if c.find("failure") is not None}
    assert failed == {"legacy-stream"}
    root = junit(run_report, "--fail-on", "never", path)
    assert not [c for c in root.iter("testcase") if c.find("failure") is not None]


def test_junit_test_ranges_are_cases(run_report, tmp_path):
    """A range named test:clean holds a lone kernel; test:slow, later, the trap's calls."""
    t = base()
    t.range("test:clean", 0, 100 * US, tid=100)
    t.launch("_Z1kv", 20 * US, 30 * US, 13, issue=10 * US)
    t.range("test:slow", 1000 * US, 1030 * US, tid=100)
    trap(t, 1000)
    path = t.write(tmp_path / "t.sctrace")
    cases = {c.get("name"): c for c in junit(run_report, path).iter("testcase")}
    assert cases["test:slow"].find("failure") is not None
    assert "legacy-stream (error)" in cases["test:slow"].find("failure").get("message")
    assert cases["test:clean"].find("failure") is None


def test_junit_escapes_what_the_program_named(run_report, tmp_path):
    trap_trace(tmp_path / "t.sctrace", exe='/opt/a<b>&"c\x01d')
    root = junit(run_report, tmp_path / "t.sctrace")   # parses: well-formed
    assert root.find("testsuite").get("name") == '/opt/a<b>&"c?d (pid 3)'


# ---- suppressions -----------------------------------------------------------------------

def test_suppressed_error_no_longer_trips_fail_on(run_report, tmp_path):
    path = trap_trace(tmp_path / "t.sctrace")
    errors = {f["rule"] for f in findings_of(report_json(run_report, path))
              if f["severity"] == "error"}
    assert errors == {"legacy-stream"}
    assert run_report("--fail-on", "error", path).returncode == 3
    args = ["--suppress", "legacy-stream"]
    r = run_report("--fail-on", "error", *args, path)
    assert r.returncode == 0, r.stdout
    assert "findings: none (1 suppressed)" in r.stdout
    doc = report_json(run_report, *args, path)
    assert findings_of(doc) == []
    assert doc["processes"][0]["suppressed"] == 1
    assert {f["rule"] for f in doc["summary"]["findings"]} & errors == set()
    sarif = json.loads(run_report("--sarif", "-", *args, path).stdout)
    assert {res["ruleId"] for res in sarif["runs"][0]["results"]} & errors == set()
    root = junit(run_report, *args, path)
    assert not [c for c in root.iter("testcase") if c.find("failure") is not None]


def test_suppressions_file(run_report, tmp_path):
    path = trap_trace(tmp_path / "t.sctrace")
    supp = tmp_path / "ci.supp"
    supp.write_text("# reviewed: the trap is the point of this sample\n\n"
                    "legacy-stream:kernel=*sweep*   # the sweep waits on purpose\n"
                    "  blocking-stream  \n")
    doc = report_json(run_report, "--suppressions", supp, path)
    assert doc["processes"][0]["suppressed"] == 1 and findings_of(doc) == []
    assert run_report("--fail-on", "error", "--suppressions", supp, path).returncode == 0


def test_suppression_leaves_the_ranges_lists_naming_the_findings_kept(run_report, tmp_path):
    """A trap in a "step" range (legacy-stream) and a pageable copy in a "loader" range
    (pageable-async, listed first): each range lists its finding by its place in the
    process's findings. Suppressing the first moves the other to place 0 in every list;
    with nothing suppressed the report's ranges are the analysis's own (view.c), and must
    say the same as where the view copies them."""
    t = base()
    t.stream(23, NON_BLOCKING)
    t.range("step", 0, 500 * US, tid=100)
    trap(t, 0)
    t.range("loader", 600 * US, 900 * US, tid=200, depth=0xFFFFFFFF)
    copy = t.api("cudaMemcpyAsync", 650 * US, 850 * US, CALL_MEMCPY_ASYNC, stream=0,
                 nbytes=1 << 20, tid=200)
    t.memcpy(700 * US, 800 * US, 1 << 20, 23, src_kind=MEM_PAGEABLE, correlation_id=copy)
    path = t.write(tmp_path / "t.sctrace")

    def lists(*args):
        proc = report_json(run_report, *args, path)["processes"][0]
        rules = [f["rule"] for f in proc["findings"]]
        ranges = [[(f["rule"], f["finding"]) for f in r["findings"]] for r in proc["ranges"]]
        rows = {r["name"]: [(f["rule"], f["finding"]) for f in r["findings"]]
                for r in proc["range_names"]}
        return rules, ranges, rows

    assert lists() == (["pageable-async", "legacy-stream"],
                       [[("legacy-stream", 1)], [("pageable-async", 0)]],
                       {"step": [("legacy-stream", 1)], "loader": [("pageable-async", 0)]})
    assert lists("--suppress", "pageable-async") == (
        ["legacy-stream"], [[("legacy-stream", 0)], []],
        {"step": [("legacy-stream", 0)], "loader": []})
    assert lists("--suppress", "legacy-stream") == (
        ["pageable-async"], [[], [("pageable-async", 0)]],
        {"step": [], "loader": [("pageable-async", 0)]})
    # a suppression that matches nothing keeps every finding in its place
    assert lists("--suppress", "host-sync") == lists()


def test_kernel_and_site_patterns(run_report, tmp_path):
    t = base()
    t.module("/usr/bin/trap", 0x400000, 0x500000, bias=0x400000)
    trap(t, 0, frames=(0x401234,))
    path = t.write(tmp_path / "t.sctrace")

    def kept(*args):
        return {f["rule"] for f in findings_of(report_json(run_report, "--no-symbols", *args,
                                                             path))}
    assert "legacy-stream" in kept()
    # the legacy-stream site launched _Z5sweepv: demangled "sweep()"
    assert "legacy-stream" not in kept("--suppress", "legacy-stream:kernel=*sweep*")
    assert "legacy-stream" not in kept("--suppress", "legacy-stream:kernel=_Z5sweepv")
    assert "legacy-stream" in kept("--suppress", "legacy-stream:kernel=*spin*")
    # a pattern of another rule leaves it alone
    assert "legacy-stream" in kept("--suppress", "host-sync:kernel=*sweep*")
    assert "legacy-stream" not in kept("--suppress", "legacy-stream:site=trap+0x1234")
    assert "legacy-stream" not in kept("--suppress", "legacy-stream:site=trap+*")
    assert "legacy-stream" in kept("--suppress", "legacy-stream:site=other+*")


def test_site_pattern_on_file_and_line(run_report, site_binary, tmp_path):  # noqa: F811
    if not shutil.which("addr2line"):
        import pytest
        pytest.skip("needs addr2line")
    path = site_trace(site_binary, tmp_path)

    def rules(*args):
        return {f["rule"] for f in findings_of(report_json(run_report, *args, path))}
    assert "legacy-stream" in rules()
    assert "legacy-stream" not in rules("--suppress", "legacy-stream:site=site.c:*")
    assert "legacy-stream" not in rules("--suppress", "legacy-stream:site=*/site.c:[5-8]")
    assert "legacy-stream" not in rules("--suppress", "legacy-stream:site=launch_site")
    assert "legacy-stream" in rules("--suppress", "legacy-stream:site=other.c:*")


def test_range_pattern_needs_every_occurrence_inside(run_report, tmp_path):
    t = base()
    t.range("warmup", 0, 30 * US, tid=100)
    trap(t, 0)
    one = t.write(tmp_path / "one.sctrace")
    t = base()
    t.range("warmup", 0, 30 * US, tid=100)
    trap(t, 0)
    trap(t, 2000)                               # a second wait, outside any range
    two = t.write(tmp_path / "two.sctrace")
    for path, suppressed in ((one, True), (two, False)):
        doc = report_json(run_report, "--suppress", "legacy-stream:range=warm*", path)
        assert ("legacy-stream" not in {f["rule"] for f in findings_of(doc)}) == suppressed


def test_bad_suppressions_are_usage_errors(run_report, tmp_path):
    path = trap_trace(tmp_path / "t.sctrace")
    bad = tmp_path / "bad.supp"
    bad.write_text("legacy-stream\nlegacy-stream:kernal=*x*\n")
    cases = [
        (["--suppress", "legacy-streams"], "unknown rule 'legacy-streams'"),
        (["--suppress", "legacy-stream:kernel="], "the pattern is empty"),
        (["--suppress", "legacy-stream:kernel*x*"], "kernel=PATTERN"),
        (["--suppress", ":kernel=x"], "no rule id"),
        (["--suppressions", bad], f"{bad}:2: "),
        (["--suppressions", tmp_path / "missing.supp"], "cannot read"),
    ]
    for args, message in cases:
        r = run_report(*args, path)
        assert r.returncode == 2, (args, r.stdout)
        assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stdout == ""


# ---- --error-exitcode -------------------------------------------------------------------

def test_error_exitcode(run_report, tmp_path):
    path = trap_trace(tmp_path / "t.sctrace")
    assert run_report("--fail-on", "error", "--error-exitcode", "42", path).returncode == 42
    assert run_report("--error-exitcode", "42", path).returncode == 0     # no --fail-on
    for bad in ("0", "256", "x", "-1"):
        r = run_report("--fail-on", "error", "--error-exitcode", bad, path)
        assert r.returncode == 2 and "--error-exitcode" in r.stderr


# ---- filters ----------------------------------------------------------------------------

def test_pid_filter(run_report, tmp_path):
    trap_trace(tmp_path / "a-3.sctrace", pid=3, exe="/usr/bin/a")
    trap_trace(tmp_path / "b-4.sctrace", pid=4, exe="/usr/bin/b")
    doc = report_json(run_report, "--pid", "4", tmp_path)
    assert [p["exe"] for p in doc["processes"]] == ["/usr/bin/b"]
    r = run_report("--pid", "5", tmp_path)
    assert r.returncode == 1 and "no trace of process 5" in r.stderr
    assert run_report("--pid", "four", tmp_path).returncode == 2


def test_time_window(run_report, tmp_path):
    """Two traps, at 0 and at 10 ms: each window holds one."""
    t = base()
    trap(t, 0)
    trap(t, 10_000)
    path = t.write(tmp_path / "t.sctrace")

    def legacy(*args):
        fs = [f for f in findings_of(report_json(run_report, *args, path))
              if f["rule"] == "legacy-stream"]
        return fs[0]["count"] if fs else 0
    assert legacy() == 2
    assert legacy("--to", "5ms") == 1
    assert legacy("--from", "0.005") == 1
    assert legacy("--from", "5ms", "--to", "9ms") == 0
    proc = report_json(run_report, "--from", "5ms", path)["processes"][0]
    assert proc["counts"]["kernels"] == 2
    for args in (["--from", "soon"], ["--to", "-1s"], ["--from", "2s", "--to", "1s"],
                 ["--to", "5 ms"]):
        r = run_report(*args, path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)


def test_range_filter(run_report, tmp_path):
    """The first trap's calls lie in a "step" range; the second trap's in none."""
    t = base()
    t.range("step", 0, 30 * US, tid=100)
    t.range("other", 9_000 * US, 9_100 * US, tid=100)
    trap(t, 0)
    trap(t, 10_000)
    path = t.write(tmp_path / "t.sctrace")
    whole = {f["rule"]: f for f in findings_of(report_json(run_report, path))}
    assert whole["legacy-stream"]["count"] == 2
    doc = report_json(run_report, "--range", "step", path)
    proc = doc["processes"][0]
    inside = {f["rule"]: f for f in proc["findings"]}
    assert inside["legacy-stream"]["count"] == 1
    assert inside["legacy-stream"]["cost_ns"] < whole["legacy-stream"]["cost_ns"]
    assert [r["name"] for r in proc["ranges"]] == ["step"]
    assert [r["name"] for r in proc["range_names"]] == ["step"]
    text = run_report("--range", "step", path).stdout
    assert "inside ranges 'step' only" in text
    # no finding lies in "other"
    assert findings_of(report_json(run_report, "--range", "other", path)) == []


# ---- outputs that cannot be written ------------------------------------------------------

def test_unwritable_outputs(run_report, tmp_path):
    path = trap_trace(tmp_path / "t.sctrace")
    for opt in ("--sarif", "--junit"):
        r = run_report(opt, tmp_path / "no" / "such" / "dir" / "out", path)
        assert r.returncode == 1, (opt, r.stderr)
        assert "cannot write" in r.stderr
        assert "findings" in r.stdout               # the text report is still there
    r = run_report("--sarif", "-", "--junit", "-", path)
    assert r.returncode == 2 and "standard output" in r.stderr
    r = run_report("--dump", "--sarif", tmp_path / "x", path)
    assert r.returncode == 2


def test_junit_without_libxml2_says_so_and_keeps_the_rest(run_report, tmp_path):
    """libxml2 is loaded only when JUnit is asked for: without it the report tool still
    starts, writes the text and SARIF, and says what it could not write and why."""
    path = trap_trace(tmp_path / "t.sctrace")
    env = dict(os.environ, STREAMCHECK_LIBXML2=str(tmp_path / "missing" / "libxml2.so.2"))
    r = run_report("--sarif", tmp_path / "out.sarif", "--junit", tmp_path / "out.xml", path,
                   env=env)
    assert r.returncode == 1, r.stderr
    assert "JUnit XML needs libxml2" in r.stderr and "missing/libxml2.so.2" in r.stderr
    assert "findings" in r.stdout
    assert json.loads((tmp_path / "out.sarif").read_text())["version"] == "2.1.0"
    # the same library named explicitly loads: the variable is honoured, not just ignored
    real = ctypes.util.find_library("xml2")
    if real:
        env["STREAMCHECK_LIBXML2"] = real
        assert junit(run_report, path, env=env).tag == "testsuites"


from conftest import ROOT  # noqa: E402
