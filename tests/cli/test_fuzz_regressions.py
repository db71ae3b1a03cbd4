"""Every input in tests/fuzz/regressions (ones that once broke the report tool) through
every output the fuzz target drives: text, JSON, Chrome, HTML, --dump and --baseline against
itself. Each must end in a report or a one-line refusal (exit 0, 1 or 3), within the time
limit, without a sanitizer report (CI runs this suite in an ASan+UBSan build too)."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
INPUTS = sorted((ROOT / "tests" / "fuzz" / "regressions").glob("*.sctrace"))


@pytest.mark.parametrize("path", INPUTS, ids=[p.name for p in INPUTS])
@pytest.mark.parametrize("args", [
    ("--no-symbols", "--json=-", "--chrome", "{out}.json", "--html", "{out}.html"),
    ("--no-symbols",),
    ("--dump",),
    ("--no-symbols", "--baseline", "{trace}"),
    ("--no-symbols", "--json", "--baseline", "{trace}"),
], ids=["every-output", "text", "dump", "baseline", "baseline-json"])
def test_regression_input_is_handled(run_report, tmp_path, path, args):
    argv = [a.format(out=tmp_path / "out", trace=path) for a in args]
    r = run_report(*argv, path)
    assert r.returncode in (0, 1, 3), (r.returncode, r.stderr[-2000:])
    assert "Sanitizer" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-2000:]
