"""The format's promise (trace_format.h): a newer minor version only appends fields to a
kind's fixed part, and this reader reads such a file as if the fields were not there. Since
1.3 every record header gives its fixed part's size, so the text or frames after it are
found past fields this reader does not know. Checked by rewriting a trace that has a record
of every kind as a "2.99" writer would write it, eight bytes of unknown fields appended to
every fixed part (texts and frames after them), and reading both with the report tool and
with sctrace.py: everything they say must be the same."""
import json
import struct

from sctrace import (BLOCKING, CALL_LAUNCH, CALL_MEMCPY_ASYNC, FILE_HEADER, LEGACY,
                     NON_BLOCKING, NOTE_CUPTI_TAKEN, OVERHEAD_LAZY_FUNCTION_LOADING,
                     RECORD_HEADER, REC_CALL_COMPACT, REC_ENV, REC_TIME_BASE, SYNC_CONTEXT,
                     UNIFIED_HTOD, Trace, read, record)

APPENDED = b"\xab" * 8      # not zeros: a reader that took them for known fields would show it


def every_kind():
    """A small run with a record of every kind the format has."""
    t = Trace(exe="/usr/bin/every", pid=50)
    t.module("/usr/lib/libevery.so", 0x10000, 0x20000, build_id=b"\x01\x02\x03\x04")
    t.device(0, name="Every GPU")
    t.stream(7, LEGACY)
    t.stream(13, BLOCKING)
    t.stream(14, NON_BLOCKING)
    t.env("CUDA_MODULE_LOADING=LAZY")
    t.note(NOTE_CUPTI_TAKEN, "a note with its text")
    t.range("step", 0, 420_000, tid=100, depth=0)
    t.launch("_Z4spinv", 10_000, 210_000, 13, issue=5_000, frames=(0x10100, 0x10200))
    t.launch("_Z5sweepv", 210_000, 410_000, 7, issue=20_000, frames=(0x10300,))
    corr = t.api("cudaMemcpyAsync", 300_000, 305_000, CALL_MEMCPY_ASYNC, frames=(0x10400,))
    t.memcpy(306_000, 310_000, 1 << 20, 14, correlation_id=corr)
    t.memset(311_000, 312_000, 4096, 14)
    t.sync(400_000, 411_000, SYNC_CONTEXT)
    t.overhead(OVERHEAD_LAZY_FUNCTION_LOADING, 205_000, 206_000)
    t.unified(UNIFIED_HTOD, 320_000, 330_000, 65536)
    # format 2.0: a launch and its kernel as compact records
    t.time_base(420_000)
    t.call_site(1, "cudaLaunchKernel", CALL_LAUNCH, 0x7000)
    t.kernel_shape(1, "_Z4spinv", 14)
    corr = t.call_compact(1, 0, 3_000, shared=1)
    t.kernel_compact(1, 5_000, 100_000, correlation_id=corr)
    t.loss(1, 3)
    return t


def appended(data):
    """The trace as a newer minor version writes it: APPENDED after every fixed part."""
    magic, major, _minor, header_size = FILE_HEADER.unpack_from(data)
    out = FILE_HEADER.pack(magic, major, 99, header_size) + data[FILE_HEADER.size:header_size]
    off = header_size
    while off < len(data):
        kind, fixed, size = RECORD_HEADER.unpack_from(data, off)
        payload = data[off + RECORD_HEADER.size:off + size]
        assert fixed or kind == REC_ENV, (kind, "every record but ENV (all text) has a fixed part")
        out += record(kind, payload, fixed=fixed, extra=APPENDED)
        off += size
    return out


def test_fields_a_newer_minor_version_appends_are_skipped(run_report, tmp_path):
    t = every_kind()
    plain = t.write(tmp_path / "every-50.sctrace")
    newer = tmp_path / "newer" / "every-50.sctrace"
    newer.parent.mkdir()
    newer.write_bytes(appended(plain.read_bytes()))
    kinds = {RECORD_HEADER.unpack_from(plain.read_bytes(), off)[0]
             for off in _offsets(plain.read_bytes())}
    # the 18 kinds of format 1.0-1.2 and the compact ones of 2.0
    assert kinds == set(range(1, 19)) | set(range(REC_TIME_BASE, REC_CALL_COMPACT + 1)), \
        sorted(kinds)

    def report(path):
        r = run_report("--json", "--no-symbols", path)
        assert r.returncode in (0, 3), r.stderr
        (p,) = json.loads(r.stdout)["processes"]
        for key in ("path", "trace_version"):      # what differs, and must
            p.pop(key, None)
        return p
    assert report(newer) == report(plain)
    text = [l for l in run_report("--no-symbols", newer).stdout.splitlines()
            if not l.startswith(("trace:", "=="))]
    assert text == [l for l in run_report("--no-symbols", plain).stdout.splitlines()
                    if not l.startswith(("trace:", "=="))]
    a, b = read(plain), read(newer)
    for key in ("process", "modules", "devices", "calls", "kernels", "copies", "memsets",
                "streams", "syncs", "ranges", "notes", "env", "strings", "call_names", "end"):
        assert _strip(a[key]) == _strip(b[key]), key


def test_a_fixed_part_outside_its_record_is_corrupt(run_report, tmp_path):
    t = every_kind()
    data = bytearray(t.to_bytes())
    off = FILE_HEADER.size                        # the PROCESS record
    kind, fixed, size = RECORD_HEADER.unpack_from(data, off)
    struct.pack_into("<HHI", data, off, kind, size, size)   # past its own payload
    bad = tmp_path / "bad-50.sctrace"
    bad.write_bytes(bytes(data))
    r = run_report(bad)
    assert r.returncode != 0 and "fixed part outside the record" in r.stderr


def _offsets(data):
    off = FILE_HEADER.unpack_from(data)[3]
    while off < len(data):
        yield off
        off += RECORD_HEADER.unpack_from(data, off)[2]


def _strip(value):
    """Without the byte offsets, which the appended fields move."""
    if isinstance(value, list):
        return [_strip(v) for v in value]
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "offset"}
    return value
