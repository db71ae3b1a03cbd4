#!/usr/bin/env python3
"""Run one pytest folder as one meson test.

    run_pytest.py FOLDER [PYTEST ARGS...]

pytest runs in this process, on FOLDER, with its output passed through unchanged. The exit
status is what meson understands:
    0   every test that ran passed (skips beside passes are fine)
    77  nothing ran: every collected test skipped, or none was collected (meson: SKIP)
    1   a test failed or errored, or pytest itself stopped (usage error, internal error)

The last line printed is `run_pytest: passed=N failed=N skipped=N` (failed counts errors
too), which .ci/run reads back from meson's testlog.json to count single cases.

No cache folder and no byte code is written into the source tree: -p no:cacheprovider, and
byte code (assertion rewriting included) is off.
"""

import os
import sys

sys.dont_write_bytecode = True
os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")

import pytest  # noqa: E402  (after dont_write_bytecode, so rewritten asserts are not cached)

SKIP = 77


class Tally:
    """Counts each test once, by its worst phase: failed > skipped > passed."""

    def __init__(self):
        self.outcome = {}      # nodeid -> "passed" | "failed" | "skipped"
        self.collect_failed = 0
        self.collect_skipped = 0

    def _set(self, nodeid, outcome):
        rank = {"passed": 0, "skipped": 1, "failed": 2}
        old = self.outcome.get(nodeid)
        if old is None or rank[outcome] > rank[old]:
            self.outcome[nodeid] = outcome

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self._set(report.nodeid, "failed")
        elif report.skipped and not hasattr(report, "wasxfail"):
            self._set(report.nodeid, "skipped")
        elif report.when == "call" or hasattr(report, "wasxfail"):
            # passed, or an expected failure (xfail) / unexpected pass that did not fail:
            # it ran.
            self._set(report.nodeid, "passed")

    def pytest_collectreport(self, report):
        # A module that cannot be imported, or one that skips itself at module level.
        if report.failed:
            self.collect_failed += 1
        elif report.skipped:
            self.collect_skipped += 1

    def counts(self):
        values = list(self.outcome.values())
        return (values.count("passed"),
                values.count("failed") + self.collect_failed,
                values.count("skipped") + self.collect_skipped)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder, extra = argv[1], argv[2:]
    if not os.path.isdir(folder):
        print(f"run_pytest: {folder}: no such folder", file=sys.stderr)
        return 1
    tally = Tally()
    code = pytest.main([folder, "-p", "no:cacheprovider", "-rs", *extra], plugins=[tally])
    code = int(code)
    passed, failed, skipped = tally.counts()
    if code == 0 and passed == 0:
        verdict = SKIP                       # all skipped
    elif code == 5:                          # pytest.ExitCode.NO_TESTS_COLLECTED
        verdict = SKIP if failed == 0 else 1
    elif code == 0:
        verdict = 0
    else:
        verdict = 1                          # failed, interrupted, internal or usage error
        failed = max(failed, 1)
    sys.stdout.flush()
    print(f"run_pytest: passed={passed} failed={failed} skipped={skipped}", flush=True)
    return verdict


if __name__ == "__main__":
    sys.exit(main(sys.argv))
