#!/usr/bin/env python3
"""Count test results from meson's testlog.json files (one JSON object per line, one per meson
test; several files: a build's and its sanitized builds') and print a table, then the
closing line `N passed, N failed, N skipped` over all of them.

Cases are counted where the test says how many it ran, else the meson test counts as one:
  - pytest suites (tests/run_pytest.py): its last line `run_pytest: passed=N failed=N
    skipped=N`;
  - cmocka executables: their `[  PASSED  ] N test(s)`, `[  FAILED  ] N test(s)` and
    `[  SKIPPED ] N test(s)` summary lines, summed over the groups;
  - anything else: one passed, failed or skipped test by meson's result.
A meson test whose result is a failure (FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS, ...) counts at
least one failed case even when its output claims none (a crash after the summary, a
timeout before it).

Exit status: 0 when nothing failed and something passed, 1 otherwise.
"""

import json
import re
import sys

PYTEST = re.compile(r"^run_pytest: passed=(\d+) failed=(\d+) skipped=(\d+)\s*$", re.M)
CMOCKA = re.compile(r"^\[  (PASSED|FAILED|SKIPPED) *\] (\d+) test\(s\)", re.M)
PASSING = {"OK", "EXPECTEDFAIL"}


def cases(entry):
    out = (entry.get("stdout") or "") + "\n" + (entry.get("stderr") or "")
    result = entry.get("result", "ERROR")
    found = PYTEST.findall(out)
    if found:
        passed, failed, skipped = map(int, found[-1])
        how = "pytest"
    else:
        sums = {"PASSED": 0, "FAILED": 0, "SKIPPED": 0}
        hits = CMOCKA.findall(out)
        for kind, n in hits:
            sums[kind] += int(n)
        passed, failed, skipped = sums["PASSED"], sums["FAILED"], sums["SKIPPED"]
        how = "cmocka" if hits else "meson result"
        if not hits:
            passed = int(result in PASSING)
            skipped = int(result == "SKIP")
            failed = int(result not in PASSING and result != "SKIP")
    if result not in PASSING and result != "SKIP" and failed == 0:
        failed = 1
    return passed, failed, skipped, how


def main(paths):
    """Counts every testlog in paths (a build's, and a sanitized build's) into one line."""
    total = [0, 0, 0]
    n_tests = 0
    print(f"{'meson test':48} {'result':10} {'passed':>6} {'failed':>6} {'skipped':>7}  counted from")
    for path in paths:
        try:
            lines = [json.loads(line) for line in open(path) if line.strip()]
        except OSError as e:
            print(f"count: cannot read {path}: {e}")
            total[1] += 1
            continue
        label = "" if len(paths) == 1 else path.split("/meson-logs/")[0] + ": "
        for entry in lines:
            p, f, s, how = cases(entry)
            total = [total[0] + p, total[1] + f, total[2] + s]
            name = label + entry.get("name", "?")
            print(f"{name:48} {entry.get('result', '?'):10} {p:6} {f:6} {s:7}  {how}")
        n_tests += len(lines)
    passed, failed, skipped = total
    print(f"{n_tests} meson tests; cases counted as above")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["build/meson-logs/testlog.json"]))
