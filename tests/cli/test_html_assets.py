"""The HTML page's own files (src/report/html/: page.js, page.css, toolbar.html), which the
build embeds into the report tool: the script must parse (node --check, where node is
installed), and the page must carry exactly these files."""
import pathlib
import shutil
import subprocess

import pytest

ASSETS = pathlib.Path(__file__).resolve().parents[2] / "src" / "report" / "html"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_script_parses():
    r = subprocess.run(["node", "--check", str(ASSETS / "page.js")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_stylesheet_braces_balance():
    css = (ASSETS / "page.css").read_text()
    depth = 0
    for ch in css:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "a '}' closes nothing"
    assert depth == 0, "a '{' is never closed"


def test_the_page_embeds_the_files(run_report, tmp_path):
    """What the report writes holds each file as it is in the tree (a stale embed fails)."""
    from sctrace import NON_BLOCKING, Trace
    t = Trace(pid=60)
    t.device(0)
    t.stream(14, NON_BLOCKING)
    t.launch("_Z1kv", 10_000, 20_000, 14)
    page = tmp_path / "page.html"
    r = run_report("--no-symbols", "--html", page, t.write(tmp_path / "app-60.sctrace"))
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    for name in ("page.css", "toolbar.html", "page.js"):
        assert (ASSETS / name).read_text() in html, name
