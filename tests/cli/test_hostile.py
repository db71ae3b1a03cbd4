"""Damaged and hostile inputs: what a fuzzer over the trace reader, every output format and
the expectation parser once found, each kept here as its reproducer. Every one must end in
a clear message or a sane report, never a crash, a hang, a terminal command or an absurd
number. CI also runs these under ASan and UBSan (tools/test, STREAMCHECK_SANITIZE=1), where
the crashes and the undefined arithmetic showed."""

import json
import os

import pytest

from sctrace import BLOCKING, LEGACY, NON_BLOCKING, Trace

U64_MAX = (1 << 64) - 1


def small_run(t):
    t.device(0)
    t.stream(14, NON_BLOCKING)
    t.launch("_Z1kv", 10_000, 20_000, 14)
    t.range("step", 0, 30_000, tid=100, depth=0)
    return t


def test_a_memset_at_the_last_nanosecond_is_drawn(run_report, tmp_path):
    """A run whose clock reads near 2^64 (its PROCESS record starts 1 s before it): a memset
    that starts at UINT64_MAX is inside it, after the only kernel. The HTML timeline merged
    kernels, copies and memsets by start time with UINT64_MAX standing for "none left", and
    drew kernel number n_kernels (a crash)."""
    base = U64_MAX - 1_000_000_000
    t = small_run(Trace(exe="/usr/bin/late", pid=31, base_ns=base))
    t.memset(1_000_000_000, 1_000_000_000, 64, 14)
    path = t.write(tmp_path / "late-31.sctrace")
    html = tmp_path / "late.html"
    r = run_report("--html", html, path)
    assert r.returncode == 0, r.stderr
    assert html.stat().st_size > 0
    doc = json.loads(run_report("--json", path).stdout)
    (proc,) = doc["processes"]
    assert proc["impossible_times"] == 0        # inside the run: kept, and drawn


def test_records_that_end_before_they_start_are_left_out_and_counted(run_report, tmp_path):
    t = small_run(Trace(exe="/usr/bin/backwards", pid=32))
    t.launch("_Z1kv", 50_000, 40_000, 14)       # ends 10 us before it starts
    path = t.write(tmp_path / "backwards-32.sctrace")
    out = run_report("--no-symbols", path).stdout
    assert "WARNING:  1 records with impossible times" in out
    # the damaged kernel is out; its launch call (45 .. 48 us) is sound and ends the run
    assert "run:      48.0 us" in out
    (proc,) = json.loads(run_report("--json", path).stdout)["processes"]
    assert proc["impossible_times"] == 1
    assert proc["devices"][0]["kernel_count"] == 1


def test_records_centuries_from_the_run_are_left_out(run_report, tmp_path):
    """A kernel (and its launch) near 2^64 ns in a run that started at 1 s: "run: 18446744073
    s" before; and its END record, which then claims a 584-year run, is not believed."""
    t = small_run(Trace(exe="/usr/bin/spread", pid=33))
    far = U64_MAX - 2_000_000_000
    t.launch("_Z1kv", far, far + 500_000_000, 14)
    path = t.write(tmp_path / "spread-33.sctrace")
    out = run_report("--no-symbols", path).stdout
    assert "WARNING:  2 records with impossible times" in out
    assert "run:      30.0 us" in out
    assert "18446744" not in out


def test_clocks_near_2_63_make_one_valid_chrome_timeline(run_report, tmp_path):
    """Two runs whose CUPTI clocks lie 2^63 apart (the signed difference of their offsets
    overflowed)."""
    hi = small_run(Trace(exe="/usr/bin/hi", pid=34, base_ns=(1 << 63) + 1000)).write(
        tmp_path / "hi-34.sctrace")
    lo = small_run(Trace(exe="/usr/bin/lo", pid=35, base_ns=10)).write(tmp_path / "lo-35.sctrace")
    out = tmp_path / "both.json"
    r = run_report("-q", "--chrome", out, hi, lo)
    assert r.returncode == 0, r.stderr
    events = json.loads(out.read_text())["traceEvents"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    assert len(kernels) == 2 and all(e["ts"] >= 0 for e in kernels)


def test_names_never_reach_the_terminal_as_controls(run_report, tmp_path):
    """ESC ] retitles a terminal window, ESC [ 6n makes it answer on stdin, CR and LF forge
    report lines, and U+009B is CSI in UTF-8."""
    t = Trace(exe="/usr/bin/m\x1b]0;pwned\x07", pid=36)
    t.device(0, name="GPU\x1b[6n\r\nfake line")
    t.stream(14, NON_BLOCKING)
    t.launch("_Z1k\x1b[31mred\u009b2J", 10_000, 20_000, 14)
    t.range("step\r\nerror   legacy-stream   forged", 0, 30_000, tid=100, depth=0)
    path = t.write(tmp_path / "esc-36.sctrace")
    for args in ((), ("-q",)):
        out = run_report("--no-symbols", *args, path).stdout
        assert "\x1b" not in out and "\r" not in out and "\u009b" not in out
        assert "\nerror   legacy-stream   forged" not in out
    out = run_report("--no-symbols", path).stdout
    assert "/usr/bin/m?]0;pwned?" in out
    dump = run_report("--dump", path).stdout     # the raw records, escaped as \\xNN
    assert "\x1b" not in dump and "\\x1b]0;pwned\\x07" in dump


def test_only_regular_files_are_read(run_report, tmp_path):
    fifo = tmp_path / "fifo.sctrace"
    os.mkfifo(fifo)
    r = run_report(fifo)                         # would wait for a writer forever
    assert r.returncode != 0 and "not a regular file" in r.stderr
    r = run_report("/dev/zero")                  # would be read until memory runs out
    assert r.returncode != 0 and "/dev/zero: not a regular file" in r.stderr
    r = run_report("--dump", "/dev/zero")
    assert r.returncode != 0 and "not a regular file" in r.stdout + r.stderr
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "x.sctrace")              # a folder's FIFO is passed over
    small_run(Trace(pid=37)).write(folder / "app-37.sctrace")
    r = run_report("-q", folder)
    assert r.returncode == 0, r.stderr
    big = tmp_path / "big.sctrace"               # not a trace: refused before it is read
    with open(big, "wb") as f:
        f.truncate(1 << 30)                      # sparse: 1 GiB on disk in name only
    r = run_report(big)
    assert r.returncode != 0 and "wrong magic" in r.stderr


def test_a_module_path_that_names_a_fifo_is_not_opened(run_report, tmp_path):
    """The symbolizer opens the module files a trace names: a FIFO there hung the report. A
    legacy-stream finding (a sweep behind a blocking stream's spin) shows its call site."""
    fifo = tmp_path / "libhang.so"
    os.mkfifo(fifo)
    t = Trace(exe="/usr/bin/app", pid=38)
    t.module(str(fifo), 0x10000, 0x20000)
    t.device(0)
    t.stream(7, LEGACY)
    t.stream(13, BLOCKING)
    t.launch("_Z4spinv", 10_000, 210_000, 13, issue=5_000, frames=(0x10100,))
    t.launch("_Z5sweepv", 210_000, 410_000, 7, issue=20_000, frames=(0x10200,))
    path = t.write(tmp_path / "app-38.sctrace")
    r = run_report(path)                         # run_report times out at 60 s
    assert r.returncode == 0, r.stderr
    assert "libhang.so+0x10200" in r.stdout      # module+offset: the file was not read


@pytest.mark.parametrize("expr,why", [
    ("(" * 25_000 + "range=a time" + ")" * 25_000 + " >= 1", "nested too deeply"),
    ("-" * 20_000 + "1 >= 1", "nested too deeply"),
    (" + ".join(["range=a time"] * 10_000) + " >= 1", "expression too long"),
], ids=["parentheses", "signs", "terms"])
def test_expectations_too_deep_or_too_long_are_refused(run_report, tmp_path, expr, why):
    """25,000 nested parentheses or a 10,000-term sum overflowed the parser's stack."""
    f = tmp_path / "expect.txt"
    f.write_text(expr + "\n")
    r = run_report("--check-expectations", "--expect-file", f)
    assert r.returncode == 2
    assert why in r.stderr
    assert len(r.stderr) < 600                   # the expression is cut, the reason shows


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("flag,what", [("--html", "HTML report"), ("--chrome", "Chrome trace"),
                                       ("--json=", "JSON report"), ("-o", "text report")])
def test_a_full_disk_is_named_once(run_report, tmp_path, flag, what):
    """ "writing the HTML report failed: writing the HTML report failed" said nothing."""
    path = small_run(Trace(pid=39)).write(tmp_path / "app-39.sctrace")
    args = [flag + "/dev/full"] if flag.endswith("=") else [flag, "/dev/full"]
    r = run_report(*args, path)
    assert r.returncode != 0
    assert f"writing the {what} failed: No space left on device" in r.stderr
    assert r.stderr.count("failed") == 1
