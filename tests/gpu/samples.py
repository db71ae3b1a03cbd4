"""Running bundled samples under streamcheck on the GPU, once per session each."""
import json
import os
import pathlib
import re
import subprocess
import sys

SOURCE_DIR = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "cli"))
import sctrace  # noqa: E402  (the independent Python reader of trace files)


class Run:
    """One command run under the streamcheck wrapper: its result, report and traces."""

    def __init__(self, build, folder, argv, env=None, wrapper_args=()):
        self.folder = pathlib.Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        out = self.folder / "out"
        report = self.folder / "report.json"
        cmd = [str(build / "tools" / "streamcheck"), "-o", str(out), "--json", str(report),
               *wrapper_args, "--", *map(str, argv)]
        self.proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                                   env={**os.environ, **(env or {})})
        self.report = json.loads(report.read_text()) if report.exists() else None
        # the run folder also holds each trace's .syms and .summary.json
        self.traces = sorted(p for p in out.glob("run-*/*")
                             if p.name.endswith((".sctrace", ".sctrace.partial")))

    def process(self):
        assert self.report, f"no report; stderr:\n{self.proc.stderr}"
        procs = self.report["processes"]
        assert len(procs) == 1, [p["exe"] for p in procs]
        return procs[0]

    def device(self):
        return self.process()["devices"][0]

    def findings(self, rule=None):
        return [f for f in self.process()["findings"] if rule is None or f["rule"] == rule]

    def read_traces(self):
        return [sctrace.read(str(p)) for p in self.traces]


def sample(build, name):
    path = build / "tests" / "samples" / name
    if not path.exists():
        import pytest
        pytest.skip(f"{path} not built")
    return path


# --- reading a run's output and findings (shared by the suites over the killer samples) ------

# host-sync reports every synchronization, a cheap one (the final synchronize of any
# program) as a note: for it, "absent" means no warning and no error.
NOTE_TOLERANT = {"host-sync"}


def printed(run, key):
    """The value of `key=VALUE` in the program's own diagnostics."""
    m = re.search(rf"\b{re.escape(key)}=(\S+)", run.proc.stdout)
    assert m, f"{key}= not printed:\n{run.proc.stdout}"
    return m.group(1)


def errors(run):
    return [f for f in run.findings() if f["severity"] == "error"]


def killer_findings(findings, rules):
    return [f for f in findings if f["rule"] in rules and
            not (f["rule"] in NOTE_TOLERANT and f["severity"] == "note")]


def assert_clean(run, *rules):
    """None of `rules` reported (host-sync notes aside), and no error at all."""
    found = killer_findings(run.findings(), rules)
    assert not found, found
    assert not errors(run), errors(run)


def site_apis(findings):
    return [s["call"]["api"] for f in findings for s in f["sites"] if s.get("call")]


def shown(findings):
    """What the findings say in words: titles and their worst instances' text."""
    return " ".join(f["title"] + " " + ((f.get("worst") or {}).get("text") or "")
                    for f in findings)
