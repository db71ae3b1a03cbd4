"""How findings name kernels and write numbers (issue 13): kernels demangled in every output,
titles and texts whole however long the names, and one unit style inside a finding (every
time through one magnitude-chosen formatter, every size as B/KiB/MiB/GiB)."""

import json
import pathlib
import re

import pytest

from sctrace import NON_BLOCKING, Trace

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
TWO_GRIDS = FIXTURES / "arrangements-two-grids.sctrace"

# Recorded on the H200 (tests/fixtures/RECORDED.md): sweep2_kernel fills the device while
# sweep_kernel waits for room. Their names in the trace are mangled.
SWEEP2_MANGLED = "_Z13sweep2_kernelPK6float4PS_mi"
NO_ROOM_HEAD = "sweep2_kernel (528 blocks of 512 threads) fills all 132 SMs"

# g++ 12 mangles this instantiation so (checked with c++filt, not with the tool):
#   void streaming_pipeline::detail::reduce_rows_kernel<...<float, 256>, ...<double, 512>,
#   ...<int, 1024> >(float*, int)
LONG_MANGLED = ("_ZN18streaming_pipeline6detail18reduce_rows_kernelIJNS0_36blocked_accumulator_"
                "with_a_long_nameIfLi256EEENS2_IdLi512EEENS2_IiLi1024EEEEEEvPfi")
ACC = "streaming_pipeline::detail::blocked_accumulator_with_a_long_name"
LONG_SHORT = (f"streaming_pipeline::detail::reduce_rows_kernel<{ACC}<float, 256>, "
              f"{ACC}<double, 512>, {ACC}<int, 1024> >")


def findings(run_report, *paths):
    r = run_report("--json", *paths)
    assert r.returncode in (0, 3), r.stderr
    return [f for p in json.loads(r.stdout)["processes"] for f in p["findings"]]


def texts(f):
    return [f["title"], f["first"]["text"], f["worst"]["text"]]


def test_fixture_kernels_demangled_in_json_and_text(run_report):
    room = [f for f in findings(run_report, TWO_GRIDS) if f["rule"] == "no-room"]
    assert len(room) == 1
    for s in texts(room[0]):
        assert s.startswith(NO_ROOM_HEAD), s
        assert " — sweep_kernel on stream 14 waited " in s
        assert "_Z" not in s
    r = run_report(TWO_GRIDS)
    assert r.returncode in (0, 3), r.stderr
    assert f"— {NO_ROOM_HEAD}" in r.stdout
    assert SWEEP2_MANGLED not in r.stdout


def test_fixture_kernels_demangled_in_sarif_and_html(run_report, tmp_path):
    sarif, html = tmp_path / "r.sarif", tmp_path / "r.html"
    r = run_report("--sarif", sarif, "--html", html, TWO_GRIDS)
    assert r.returncode in (0, 3), r.stderr
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    room = [x for x in results if x["ruleId"] == "no-room"]
    assert len(room) == 1
    assert room[0]["message"]["text"].startswith(NO_ROOM_HEAD)
    page = html.read_text()
    assert NO_ROOM_HEAD in page
    assert f"{SWEEP2_MANGLED} (528 blocks" not in page


def no_room_with_long_name(path):
    """One full grid (1056 blocks of 256 threads: 8 per SM on 132 SMs) on stream 21 runs
    10 .. 1010 us; the long-named kernel, issued at 100 us on independent stream 22, starts
    5 us after the grid ends: it waited for room (the rule's one instance is its title)."""
    t = Trace(exe="/usr/bin/longnames", pid=12)
    t.device(0, sm_count=132)
    t.stream(21, NON_BLOCKING)
    t.stream(22, NON_BLOCKING)
    t.launch("_Z9fill_gridPf", 10_000, 1_010_000, 21, grid=(1056, 1, 1), block=(256, 1, 1))
    t.launch(LONG_MANGLED, 1_015_000, 1_115_000, 22, issue=100_000)
    return t.write(path)


def test_long_templated_name_is_never_cut(run_report, tmp_path):
    path = no_room_with_long_name(tmp_path / "longnames-12.sctrace")
    room = [f for f in findings(run_report, path) if f["rule"] == "no-room"]
    assert len(room) == 1
    title = room[0]["title"]
    assert len(title) > 300     # the old titles stopped at 199 characters
    assert title.startswith("fill_grid (1056 blocks of 256 threads) fills all 132 SMs")
    assert f" — {LONG_SHORT} on stream 22 waited " in title
    assert title.endswith(" for room")
    assert room[0]["worst"]["text"] == title
    r = run_report(path)
    assert r.returncode in (0, 3), r.stderr
    assert f"— {title}\n" in r.stdout


# A time as the one formatter writes it: three significant digits, the unit chosen so the
# number stays below 1000 ("2.96 ms", never "2961.1 us").
TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) (ns|us|ms|s)\b")
SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) (B|KiB|MiB|GiB|TiB|bytes)\b")


def significant_digits(number):
    return len(number.replace(".", "").lstrip("0")) or 1


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.sctrace")))
def test_one_unit_style_inside_every_finding(run_report, fixture):
    for f in findings(run_report, FIXTURES / fixture):
        for s in texts(f):
            for number, unit in TIME.findall(s):
                assert float(number) < 1000, (unit, s)
                if unit != "ns":
                    assert significant_digits(number) <= 3, s
            for number, unit in SIZE.findall(s):
                assert unit != "bytes", s
                assert float(number) < 1024 and significant_digits(number) <= 3, s


def test_text_totals_name_no_unit_their_value_is_not_in(run_report):
    r = run_report(FIXTURES / "killers-lazy-cold.sctrace")
    assert r.returncode in (0, 3), r.stderr
    totals = [ln for ln in r.stdout.splitlines() if ln.strip().startswith("totals:")]
    assert totals
    for ln in totals:
        assert not re.search(r"_us \d", ln), ln
    assert any(re.search(r"\bdelay \d+(\.\d+)? ms\b", ln) for ln in totals), totals
