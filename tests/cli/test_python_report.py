"""The report on a PyTorch trace recorded on the GPU (tests/fixtures/torch-train.sctrace,
RECORDED.md): each killer is shown at the line of tests/samples/torch_train.py that causes
it (found by its "# MARK" comment), with that line's text when the file is here, in the
text report and in the JSON."""
import json
import os
import pathlib
import re
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build")).resolve()
REPORT = BUILD / "src" / "report" / "streamcheck-report"
TRACE = SOURCE / "tests" / "fixtures" / "torch-train.sctrace"
PROGRAM = SOURCE / "tests" / "samples" / "torch_train.py"
RECORDED_AS = "/work/main/tests/samples/torch_train.py"   # the path on the recording machine
MARKS = {m: i + 1 for i, line in enumerate(PROGRAM.read_text().splitlines())
         for m in re.findall(r"# MARK (\w+)", line)}


@pytest.fixture(scope="module")
def doc():
    if not REPORT.exists():
        pytest.skip(f"{REPORT} not built")
    p = subprocess.run([str(REPORT), "--no-symbols", "--json", str(TRACE)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["processes"][0]


def user_sites(finding):
    out = []
    for site in finding["sites"]:
        py = site["call"]["python"]
        f = py["frames"][py["site"]] if py and py["site"] is not None else None
        out.append((f["file"], f["line"], f["function"]) if f else py and py["state"])
    return out


def test_each_killer_at_its_python_line(doc):
    by_rule = {f["rule"]: user_sites(f) for f in doc["findings"]}
    assert (RECORDED_AS, MARKS["pageable"], "train.<locals>.step") in by_rule["pageable-async"]
    assert (RECORDED_AS, MARKS["item"], "train") in by_rule["host-sync"]
    assert (RECORDED_AS, MARKS["synchronize"], "train") in by_rule["host-sync"]
    # the caching allocator's cudaMalloc ran on autograd's thread, which runs no Python
    assert by_rule["implicit-sync"] == ["no-python"]


def test_one_line_reached_from_two_callers_is_one_site(doc):
    """The batch copy runs once in the warm-up and 20 times in the loop: one line to change."""
    (f,) = [f for f in doc["findings"] if f["rule"] == "pageable-async"]
    lines = [s for s in user_sites(f) if s[1] == MARKS["pageable"]]
    assert len(lines) == 1
    (site,) = [s for s in f["sites"] if s["call"]["python"]["frames"][0]["line"] == MARKS["pageable"]]
    assert site["count"] == 21


def test_library_frames_are_marked_and_outermost_frames_kept(doc):
    (f,) = [f for f in doc["findings"] if f["rule"] == "host-sync"]
    frames = f["sites"][0]["call"]["python"]["frames"]
    assert frames[-1]["function"] == "<module>" and not any(x["library"] for x in frames)


def test_the_text_report_shows_the_line_and_its_text_when_the_file_is_here(tmp_path):
    if not REPORT.exists():
        pytest.skip(f"{REPORT} not built")
    text = subprocess.run([str(REPORT), "--no-symbols", str(TRACE)], capture_output=True,
                          text=True, timeout=60).stdout
    line = f"torch_train.py:{MARKS['pageable']}"
    assert f"train.<locals>.step at {line}" in text
    if pathlib.Path(RECORDED_AS).is_file() and pathlib.Path(RECORDED_AS).samefile(PROGRAM):
        source = PROGRAM.read_text().splitlines()[MARKS["pageable"] - 1].strip()
        assert f"{line}: {source}" in text


def test_the_timeline_outputs_name_the_python_line_too(tmp_path):
    """HTML and Chrome show a call's site as the text report does: the user's line first."""
    if not REPORT.exists():
        pytest.skip(f"{REPORT} not built")
    html, chrome = tmp_path / "r.html", tmp_path / "r.json"
    p = subprocess.run([str(REPORT), "--no-symbols", "--html", str(html), "--chrome",
                        str(chrome), str(TRACE)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    line = f"step at torch_train.py:{MARKS['pageable']}"  # "<locals>" is escaped in both
    assert line in html.read_text()
    events = json.loads(chrome.read_text())["traceEvents"]
    assert any(line in json.dumps(e.get("args", {})) for e in events)
