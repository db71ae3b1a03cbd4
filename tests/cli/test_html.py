"""The HTML report (src/report/html.c): structure, escaping, a real browser, and scale.

The page is written by tests/cli/html_driver (load, analyse, sc_html_write), the same call
`streamcheck-report --html` makes. Structure tests read the file as text; browser tests run
Debian's headless Chromium (package `chromium`) on it and are skipped where it is missing:
--dump-dom shows the DOM after the page's script ran (it mirrors its counters into data-*
attributes of #timeline), --screenshot takes a picture, saved under the build folder in
test-html/ for humans to look at.
"""

import html.parser
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import time
import zlib

import pytest

import sctrace
from sctrace import (BLOCKING, CALL_DEVICE_SYNC, CALL_MEMCPY_ASYNC, CALL_STREAM_CREATE,
                     CALL_STREAM_SYNC, LEGACY, NON_BLOCKING, Trace)

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

EVIL = "_Z4evilv</script><script>alert(1)</script><!--"


@pytest.fixture(scope="session")
def build(report_bin):
    return report_bin.parents[2]          # BUILD/src/report/streamcheck-report


@pytest.fixture(scope="session")
def html_driver(build):
    path = build / "tests" / "cli" / "html_driver"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return path


@pytest.fixture(scope="session")
def shots(build):
    """Where screenshots go for humans: BUILD/test-html/."""
    d = build / "test-html"
    d.mkdir(exist_ok=True)
    return d


def render(driver, out, *traces, timeout=120):
    r = subprocess.run([str(driver), str(out), *map(str, traces)], capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return out.read_text(encoding="utf-8")


class Page(html.parser.HTMLParser):
    """The parts of the page the tests look at: elements by id and class, row labels,
    table rows, script elements."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.labels = []          # (classes, data-row, text)
        self.table_rows = {}      # table id -> [(classes, [cell texts])]
        self.scripts = []         # (attrs, text)
        self.ids = {}
        self._label = None
        self._table = None
        self._row = None
        self._cell = None
        self._script = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = (tag, a)
        cls = (a.get("class") or "").split()
        if tag == "div" and "row-label" in cls:
            self._label = [cls, int(a["data-row"]), ""]
        elif tag == "table":
            self._table = a.get("id")
            self.table_rows.setdefault(self._table, [])
        elif tag == "tr" and self._table:
            self._row = (cls, [], a)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""
        elif tag == "script":
            self._script = [a, ""]

    def handle_endtag(self, tag):
        if tag == "div" and self._label is not None:
            self.labels.append((self._label[0], self._label[1], self._label[2].strip()))
            self._label = None
        elif tag in ("td", "th") and self._cell is not None:
            self._row[1].append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.table_rows[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "script" and self._script is not None:
            self.scripts.append(tuple(self._script))
            self._script = None

    def handle_data(self, data):
        if self._label is not None:
            self._label[2] += data
        if self._cell is not None:
            self._cell += data
        if self._script is not None:
            self._script[1] += data

    def data(self):
        (text,) = [t for a, t in self.scripts if a.get("id") == "sc-data"]
        return json.loads(text)


def rows_of(table_rows, cls):
    return [cells for classes, cells, _ in table_rows if cls in classes]


def decode(row):
    """A row's events as (start, end, desc) in ns from time 0."""
    out, t = [], 0
    for dt, d, e in zip(row["t"], row["d"], row["e"]):
        t += dt
        out.append((t, t + d, e))
    return out


def check_self_contained(text):
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"<(script|img|iframe|link)\b[^>]*\b(src|href)\s*=", text, re.I)
    assert "@import" not in text and "url(" not in text


def check_consistent(page, doc):
    """One label per data row, in order; label classes say the row type."""
    assert [row for _, row, _ in page.labels] == list(range(len(doc["rows"])))
    for (classes, i, _), row in zip(page.labels, doc["rows"]):
        assert row["ty"] in classes
        assert len(row["t"]) == len(row["d"]) == len(row["e"])
        assert all(0 <= e < len(doc["descs"]) for e in row["e"])


# ---- a synthetic trace with known content -------------------------------------------------

def synthetic(path):
    """Legacy stream beside a blocking one (legacy-stream finding), a pageable async copy
    (pageable-async), a non-blocking stream with hostile kernel names, a memset, host
    syncs of 50 us (shown) and 2 us (below the 10 us threshold), nested NVTX ranges."""
    t = Trace(exe="/usr/bin/pipe<b>&line", pid=4242)
    t.device(0, name="Test <GPU>")
    t.stream(7, LEGACY)
    create = t.api("cudaStreamCreate", 0, 2_000, CALL_STREAM_CREATE)
    t.stream(13, BLOCKING, correlation_id=create)
    create = t.api("cudaStreamCreateWithFlags", 2_500, 3_000, CALL_STREAM_CREATE)
    t.stream(14, NON_BLOCKING, priority=-2, correlation_id=create)
    t.range("step", 4_000, 480_000, tid=100, depth=0)
    t.range("inner</script>", 5_000, 200_000, tid=100, depth=1)
    t.launch("_Z4spinv", 10_000, 110_000, 13, issue=5_000)
    t.launch("_Z5sweepv", 110_000, 160_000, 7, issue=20_000)
    t.launch(EVIL, 30_000, 90_000, 14, issue=25_000)
    t.launch("_ZN2ns4betaIiEEvPT_", 95_000, 150_000, 14, issue=26_000)
    # a kernel whose name is not UTF-8: the page must still be valid
    t.records.append(sctrace.record(sctrace.REC_STRING, sctrace.STRING.pack(900, 0)
                                    + b"bad\xffname\0", fixed=sctrace.STRING.size))
    t.records.append(sctrace.record(sctrace.REC_KERNEL, sctrace.KERNEL.pack(
        t._t(160_000), t._t(170_000), 0, 0, 1, 14, 0, 1, 1, 1, 32, 1, 1, 32, 0, 0, 900, 0, 0)))
    t.memset(170_000, 175_000, 4096, 14)
    t.api("cudaStreamSynchronize", 180_000, 230_000, CALL_STREAM_SYNC, stream=0)
    t.api("cudaStreamSynchronize", 232_000, 234_000, CALL_STREAM_SYNC, stream=0)
    copy = t.api("cudaMemcpyAsync", 250_000, 400_000, CALL_MEMCPY_ASYNC, stream=0,
                 nbytes=64 << 20)
    t.memcpy(300_000, 400_000, 64 << 20, 7, correlation_id=copy)
    t.api("cudaDeviceSynchronize", 410_000, 470_000, CALL_DEVICE_SYNC)
    return t.write(path)


def test_synthetic_structure(html_driver, tmp_path):
    trace = synthetic(tmp_path / "pipeline-4242.sctrace")
    text = render(html_driver, tmp_path / "out.html", trace)
    check_self_contained(text)
    page = Page(text)
    doc = page.data()
    check_consistent(page, doc)

    # hostile names: not in the markup or the script verbatim, intact in the data
    assert text.count("</script>") == 2 and len(page.scripts) == 2
    assert "<script>alert" not in text and "<b>&line" not in text
    names = {full for _, full in doc["names"]}
    assert EVIL in names and "inner</script>" in names and "bad?name" in names
    assert "void ns::beta<int>(int*)" in names and "spin()" in names
    assert ["spin", "spin()"] in doc["names"]

    types = [row["ty"] for row in doc["rows"]]
    assert types[:3] == ["process", "findings", "device"]
    labels = {text for classes, _, text in page.labels if "stream" in classes}
    assert labels == {"stream 7 legacy", "stream 13 blocking", "stream 14 non-blocking, prio -2"}

    # events land on their stream's row, times relative to the run start, sorted
    by_label = {text: doc["rows"][i] for _, i, text in page.labels}
    assert doc["axis"] == "shared"
    assert int(doc["procs"][0]["t0"]) == 1_000_000_000    # cudaStreamCreate at base + 0
    s13 = decode(by_label["stream 13 blocking"])
    assert [(a, b) for a, b, _ in s13] == [(10_000, 110_000)]
    s14 = decode(by_label["stream 14 non-blocking, prio -2"])
    assert [(a, b) for a, b, _ in s14] == [(30_000, 90_000), (95_000, 150_000),
                                           (160_000, 170_000), (170_000, 175_000)]
    kinds = [doc["descs"][e][0] for _, _, e in s14]
    assert kinds == [0, 0, 0, 2]           # kernels, then the memset
    evil_desc = doc["descs"][s14[0][2]]
    assert doc["names"][evil_desc[1]][1] == EVIL
    assert "grid 1x1x1, block 32x1x1" in evil_desc[2]
    legacy = decode(by_label["stream 7 legacy"])
    assert [doc["descs"][e][0] for _, _, e in legacy] == [0, 1]     # kernel, copy
    assert "pageable to device" in doc["descs"][legacy[1][2]][2]

    # host thread: the 50 us sync, the pageable copy call and the device sync; not the 2 us one
    thread = decode(by_label["thread 100 blocking calls"])
    assert [(a, b) for a, b, _ in thread] == [(180_000, 230_000), (250_000, 400_000),
                                              (410_000, 470_000)]
    assert [doc["names"][doc["descs"][e][1]][0] for _, _, e in thread] == [
        "cudaStreamSynchronize", "cudaMemcpyAsync", "cudaDeviceSynchronize"]

    # NVTX: one row per depth
    assert decode(by_label["thread 100 NVTX depth 0"])[0][:2] == (4_000, 480_000)
    assert decode(by_label["thread 100 NVTX depth 1"])[0][:2] == (5_000, 200_000)

    # findings: markers in the data, one table row each, with rule, severity, cost and fix
    (proc,) = doc["procs"]
    rules = {f["rule"] for f in proc["findings"]}
    assert {"legacy-stream", "pageable-async"} <= rules
    table = rows_of(page.table_rows["findings"], "finding")
    assert len(table) == len(proc["findings"])
    assert {cells[1] for cells in table} == rules
    # pinning the copy: the replay (times in us) runs the thread's calls in order, and the
    # marks of "inner" (ended at 200, inside the 180-230 sync) and the overlapping launches
    # at 25 and 26 push the host 35 us late: the copy call starts at 285, its copy at 285 +
    # 50 (the copy's issue lag) = 335-435, the device sync at 445 takes its own 60 us (it was
    # called after all work had ended) and step's end mark comes at 515. Pinned, the copy
    # call returns at 285 + 5 (the default async call), the device sync starts at 300 and
    # returns 5 us (the default wake) after the copy, at 440; step ends at 450. Saving 65 us:
    # 13.5% of the 480 us run but under 100 us: a warning.
    pageable = next(cells for cells in table if cells[1] == "pageable-async")
    assert pageable[2] == "warning" and "pin" in pageable[7]
    for f in proc["findings"]:
        assert 1 <= len(f["inst"]) <= 2 and f["inst"][0][4] == "first"

    # ranges: per-range metrics when the analysis has them, else says why not
    ranges = page.table_rows["ranges"]
    if proc["rm"]:
        assert len(rows_of(ranges, "range")) == 2
        step = next(c for c in rows_of(ranges, "range") if c[1] == "step")
        assert step[4] == "476 us"                       # wall
    else:
        assert any("no per-range metrics" in " ".join(c) for _, c, _ in ranges)

    devices = rows_of(page.table_rows["devices"], "device")
    assert len(devices) == 1 and devices[0][1] == "0 Test <GPU>"


def test_fixture_structure(html_driver, tmp_path):
    """A trace recorded on an H200: every stream the program made gets a row; every kernel,
    copy and memset is on one; the findings table has the analysis's findings."""
    fixture = FIXTURES / "arrangements-nonblocking.sctrace"
    text = render(html_driver, tmp_path / "out.html", fixture)
    check_self_contained(text)
    page = Page(text)
    doc = page.data()
    check_consistent(page, doc)
    raw = sctrace.read(fixture)
    streams = {text.split()[1] for classes, _, text in page.labels if "stream" in classes}
    with_work = {str(k["stream_id"]) for k in raw["kernels"] + raw["copies"] + raw["memsets"]}
    assert with_work == {"13", "14"}
    assert streams == with_work | {"15"}          # 15: created by the program, never used
    on_streams = sum(len(r["t"]) for r in doc["rows"] if r["ty"] == "stream")
    assert on_streams == len(raw["kernels"]) + len(raw["copies"]) + len(raw["memsets"])
    assert any("spin_kernel" == short for short, _ in doc["names"])
    findings = doc["procs"][0]["findings"]
    table = rows_of(page.table_rows["findings"], "finding")
    assert [c[1] for c in table] == [f["rule"] for f in findings]
    if not findings:
        assert rows_of(page.table_rows["findings"], "none") == [["no findings"]]
    range_cells = [c for cls, c, _ in page.table_rows["ranges"]]
    if raw["ranges"]:
        # every recorded range has its row (the arrangement runs inside an NVTX range)
        for r in raw["ranges"]:
            assert any(r["name"] in cells for cells in range_cells), (r["name"], range_cells)
    else:
        assert range_cells == [["no NVTX ranges recorded"]]


def test_several_processes(html_driver, report_bin, tmp_path):
    """Two processes share one time axis, each with its own rows and findings."""
    a = synthetic(tmp_path / "a-1.sctrace")
    b = FIXTURES / "pipeline-pageable.sctrace"
    page = Page(render(html_driver, tmp_path / "out.html", a, b))
    doc = page.data()
    check_consistent(page, doc)
    assert len(doc["procs"]) == 2
    # recorded years apart (the synthetic clock starts at 1 s): each process its own time 0
    assert doc["axis"] == "per-process"
    # each t0 is that process's first event, the same instant the JSON report calls run_start
    fixture_start = json.loads(subprocess.run(
        [str(report_bin), "--json", str(b)], capture_output=True, text=True,
        check=True).stdout)["processes"][0]["run_start_ns"]
    assert [int(p["t0"]) for p in doc["procs"]] == [1_000_000_000, fixture_start]
    assert doc["span"] == max(p["end"] for p in doc["procs"])
    assert [r["p"] for r in doc["rows"] if r["ty"] == "process"] == [0, 1]
    procs_in_table = {cells[0] for cells in rows_of(page.table_rows["findings"], "finding")}
    fixture_pid = sctrace.read(str(b))["process"]["pid"]
    assert procs_in_table == {"pipe<b>&line (pid 4242)", f"pipeline (pid {fixture_pid})"}


def test_empty_input(html_driver, tmp_path):
    text = render(html_driver, tmp_path / "out.html")
    page = Page(text)
    assert page.data()["rows"] == [] and "no processes" in text


# ---- a real browser ------------------------------------------------------------------------

def chromium():
    for name in (os.environ.get("SC_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.skip("no chromium (Debian package chromium): the browser tests need it")


def browse(page, tmp_path, *args, timeout=90):
    cmd = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1400,900",
           *args, page.resolve().as_uri()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def dump_dom(page, tmp_path, timeout=90):
    return browse(page, tmp_path, "--virtual-time-budget=5000", "--dump-dom", timeout=timeout)


def timeline_attrs(dom):
    m = re.search(r'<div id="timeline"[^>]*>', dom)
    assert m, "no #timeline in the DOM"
    return {k: v for k, v in re.findall(r'(data-[a-z-]+)="([^"]*)"', m.group(0))}


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB/RGBA PNG, decoded
    with zlib alone."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = header
    assert depth == 8 and ctype in (2, 6) and interlace == 0, header
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def colours(path):
    """Distinct colours in the screenshot and the share of pixels that are not white."""
    width, height, rows, bpp = png_pixels(path)
    seen, ink = set(), 0
    for line in rows:
        for x in range(0, width * bpp, bpp):
            px = line[x:x + 3]
            seen.add(px)
            ink += px != b"\xff\xff\xff"
    return len(seen), ink / (width * height)


@pytest.mark.parametrize("fixture", ["arrangements-nonblocking", "pipeline-pageable",
                                     "synthetic"])
def test_browser_renders_fixture(html_driver, tmp_path, shots, fixture):
    """Headless Chromium loads the report of a recorded fixture (and of the synthetic trace,
    which has NVTX ranges and hostile names): the script ran, drew bars on every stream row
    and a marker per finding instance; the screenshot is not blank."""
    chromium()
    page = tmp_path / f"{fixture}.html"
    trace = (synthetic(tmp_path / "pipeline-4242.sctrace") if fixture == "synthetic"
             else FIXTURES / f"{fixture}.sctrace")
    text = render(html_driver, page, trace)
    doc = Page(text).data()
    dom = dump_dom(page, tmp_path)
    attrs = timeline_attrs(dom)
    assert int(attrs["data-rows"]) == len(doc["rows"])
    assert int(attrs["data-events"]) == sum(len(r["t"]) for r in doc["rows"])
    assert int(attrs["data-drawn-bars"]) > 0
    markers = sum(len(f["inst"]) for p in doc["procs"] for f in p["findings"])
    assert int(attrs["data-findings"]) == markers
    if fixture != "arrangements-nonblocking":
        assert markers > 0
    assert dom.count('class="row-label stream"') == len([r for r in doc["rows"]
                                                          if r["ty"] == "stream"])
    assert 'id="view-range">view +' in dom                 # the script wrote the view

    shot = shots / f"{fixture}.png"
    if shot.exists():
        shot.unlink()
    browse(page, tmp_path, f"--screenshot={shot}")
    assert shot.exists() and shot.stat().st_size > 20_000
    n_colours, ink = colours(shot)
    assert n_colours > 30, n_colours         # text, bars of several kinds, markers
    assert 0.05 < ink < 0.9, ink


HOVER = """<script>
(function () {
  var data = JSON.parse(document.getElementById('sc-data').textContent);
  var canvas = document.querySelector('#timeline canvas');
  var box = canvas.getBoundingClientRect(), v = window.scReport.view;
  function x(t) { return box.left + (t - v[0]) * v[2] / (v[1] - v[0]); }
  function hover(sel, t, attr) {
    var lb = document.querySelector(sel).getBoundingClientRect();
    canvas.dispatchEvent(new MouseEvent('mousemove', {clientX: x(t), bubbles: true,
                                                      clientY: lb.top + lb.height / 2}));
    var tip = document.getElementById('tooltip');
    document.body.setAttribute(attr, tip.hidden ? 'HIDDEN' : tip.textContent);
  }
  var inst = data.procs[0].findings[0].inst[0];
  hover('.row-label.findings', inst[0], 'data-tip-finding');
  var rows = data.rows, i = rows.findIndex(function (r) { return r.ty === 'stream' && r.t.length; });
  var t0 = rows[i].t[0], d0 = rows[i].d[0];
  hover('.row-label[data-row="' + i + '"]', t0 + d0 / 2, 'data-tip-bar');
  // zoom in with the wheel around the middle, then with the + key: the view narrows
  var before = v[1] - v[0];
  canvas.dispatchEvent(new WheelEvent('wheel', {deltaY: -500, clientX: box.left + v[2] / 2,
                                                clientY: box.top + 40, bubbles: true,
                                                cancelable: true}));
  document.dispatchEvent(new KeyboardEvent('keydown', {key: '+', bubbles: true}));
  var w = window.scReport.view;     // the view changes at once; the frame follows
  document.body.setAttribute('data-zoom', (before / (w[1] - w[0])).toFixed(2));
})();
</script>
"""


def test_browser_hover_explains(html_driver, tmp_path):
    """Hovering a finding marker shows rule, title and fix; hovering a bar shows the
    operation, its stream and duration; the wheel and the + key zoom in."""
    chromium()
    page = tmp_path / "hover.html"
    text = render(html_driver, page, FIXTURES / "pipeline-pageable.sctrace")
    page.write_text(text.replace("</body>", HOVER + "</body>"), encoding="utf-8")
    dom = dump_dom(page, tmp_path)
    finding = re.search(r'data-tip-finding="([^"]*)"', dom).group(1)
    assert "pageable-async" in finding and "fix: pin the host buffer" in finding, finding
    assert "first instance at +" in finding
    bar = re.search(r'data-tip-bar="([^"]*)"', dom).group(1)
    assert "memcpy HtoD" in bar and "stream 13" in bar and "duration" in bar, bar
    zoom = float(re.search(r'data-zoom="([^"]*)"', dom).group(1))
    assert zoom > 2.5, zoom                 # wheel (e^1 = 2.7x) and + (2x) zoomed in


# ---- scale ---------------------------------------------------------------------------------

def million_kernels(path, n=1_000_000, streams=8):
    """n kernels on `streams` non-blocking streams, 1.5-4.5 us each with 0.5-1.3 us gaps,
    four kernel names; packed straight into one buffer (Trace.kernel is too slow for 1M)."""
    t = Trace(exe="/usr/bin/million", pid=77)
    t.device(0)
    for s in range(streams):
        t.stream(20 + s, NON_BLOCKING)
    names = [t.string(f"_Z7kernel{i}Pf") for i in range(4)]
    size = sctrace.RECORD_HEADER.size + sctrace.KERNEL.size
    header = sctrace.RECORD_HEADER.pack(sctrace.REC_KERNEL, 0, size)
    buf = bytearray(size * n)
    pack, off, end = sctrace.KERNEL.pack_into, 0, 0
    for s in range(streams):
        start = t.base + 1000 + 300 * s
        for i in range(n // streams):
            dur = 1500 + (i * 7919 + s * 31) % 3000
            buf[off:off + 8] = header
            pack(buf, off + 8, start, start + dur, 0, 0, 1, 20 + s, 0, 64, 1, 1, 128, 1, 1,
                 32, 0, 0, names[(i + s) % 4], 0, 0)
            off += size
            start += dur + 500 + (i % 5) * 200
        end = max(end, start)
    t.records.append(bytes(buf))
    t.last_ns = end
    return t.write(path)


def test_million_kernels(html_driver, tmp_path, shots):
    """A million kernels on 8 streams: the file stays within ~40 bytes per event and the
    browser draws it (aggregated bars) within the time limit."""
    trace = million_kernels(tmp_path / "million-77.sctrace")
    page = tmp_path / "million.html"
    started = time.monotonic()
    render(html_driver, page, trace, timeout=240)
    size = page.stat().st_size
    assert size < 40 * 1_000_000, size
    print(f"million: {size / 1e6:.1f} MB ({size / 1e6:.1f} bytes/event), "
          f"written in {time.monotonic() - started:.1f} s")
    chromium()
    started = time.monotonic()
    attrs = timeline_attrs(dump_dom(page, tmp_path, timeout=60))
    print(f"million: chromium {time.monotonic() - started:.1f} s, attrs {attrs}")
    assert int(attrs["data-events"]) == 1_000_000
    assert int(attrs["data-rows"]) == 11                  # process, findings, device, 8 streams
    assert int(attrs["data-drawn-bars"]) > 0
    assert int(attrs["data-aggregated"]) > 0              # sub-pixel kernels were aggregated
    assert int(attrs["data-drawn-bars"]) < 8 * 1400       # at most one bar per pixel and row
    shot = shots / "million.png"
    if shot.exists():
        shot.unlink()
    browse(page, tmp_path, f"--screenshot={shot}", timeout=60)
    assert shot.exists()


def test_html_and_chrome_show_the_same_host_calls(html_driver, run_report, tmp_path):
    """One definition of the calls that held their thread (src/report/host_calls.h) behind
    both timelines: a 50 us stream sync and an async copy of pageable memory are shown; a
    50 us async copy of pinned memory and a 50 us stream query are not (they did not hold
    the thread for the device). The two outputs once disagreed (11 classes against 15)."""
    t = Trace(exe="/usr/bin/calls", pid=61)
    t.device(0)
    t.stream(14, NON_BLOCKING)
    t.launch("_Z1kv", 10_000, 400_000, 14)
    t.api("cudaStreamSynchronize", 20_000, 70_000, CALL_STREAM_SYNC, stream=0)
    pinned = t.api("cudaMemcpyAsync", 80_000, 130_000, CALL_MEMCPY_ASYNC, stream=0)
    t.memcpy(90_000, 100_000, 1 << 20, 14, src_kind=sctrace.MEM_PINNED, correlation_id=pinned)
    t.api("cudaStreamQuery", 140_000, 190_000, sctrace.CALL_STREAM_QUERY, stream=0)
    pageable = t.api("cudaMemcpyAsync", 200_000, 250_000, CALL_MEMCPY_ASYNC, stream=0)
    t.memcpy(210_000, 220_000, 1 << 20, 14, src_kind=sctrace.MEM_PAGEABLE,
             correlation_id=pageable)
    path = t.write(tmp_path / "calls-61.sctrace")
    page = Page(render(html_driver, tmp_path / "out.html", path))
    doc = page.data()
    by_label = {text: doc["rows"][i] for _, i, text in page.labels}
    in_html = [(a, b) for a, b, _ in decode(by_label["thread 100 blocking calls"])]
    out = tmp_path / "calls.json"
    assert run_report("-q", "--chrome", out, path).returncode == 0
    chrome = json.loads(out.read_text())["traceEvents"]
    in_chrome = [(round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in chrome
                 if e.get("cat") == "cuda"]
    # times from the run's start, the launch call at 5 us: the sync and the pageable copy
    assert in_html == in_chrome == [(15_000, 65_000), (195_000, 245_000)]
