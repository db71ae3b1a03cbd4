"""Write and read streamcheck trace files (include/streamcheck/trace_format.h) from Python.

Tests build traces with known content and known timings, run the report tool on them and
check what it says. The layouts and constants are read from trace_format.h itself
(trace_layout.py): no size, field order or enum value is copied here.

`read(path)` parses a trace independently of the C reader, so GPU tests can check what the
library wrote without trusting the code they test (see its docstring).

    t = Trace(exe="/usr/bin/app", pid=42)
    t.device(0)
    t.stream(7, LEGACY)
    t.launch("_Z4spinv", start=1000, end=5000, stream_id=7, issue=900)
    t.write(tmp_path / "app-42.sctrace")      # complete (END record); partial=True omits it

All times are nanoseconds on the trace's clock; `base_ns` (default 1 s) is added to every
time given, so tests can think in small offsets.
"""

import struct

from trace_layout import CONSTANTS, layout

MAGIC = b"SCTRACE\0"

# Every SC_NAME constant of trace_format.h, as NAME (REC_API, CALL_LAUNCH, LOSS_NAMES, END_SIGNAL,
# MEM_PAGEABLE, API_STACK_SHARED, OVERHEAD_STREAMCHECK_STACK, ...): their one home is the header.
globals().update({name[3:]: value for name, value in CONSTANTS.items()})
VERSION_MAJOR, VERSION_MINOR = TRACE_VERSION_MAJOR, TRACE_VERSION_MINOR  # noqa: F821
# shorter names the tests use for enum sc_stream_flag and enum sc_unified_cause
UNKNOWN, BLOCKING, NON_BLOCKING, LEGACY = (CONSTANTS["SC_STREAM_FLAG_" + n] for n in (
    "UNKNOWN", "BLOCKING", "NON_BLOCKING", "LEGACY"))
CAUSE_USER, CAUSE_COHERENCE, CAUSE_PREFETCH = (CONSTANTS["SC_UNIFIED_CAUSE_" + n] for n in (
    "USER", "COHERENCE", "PREFETCH"))
STREAM_NONE = (1 << 64) - 1                 # SC_STREAM_NONE (UINT64_MAX)

# Values from CUDA, not from the trace format
HTOD, DTOH, DTOD = 1, 2, 8                  # CUpti_ActivityMemcpyKind
DOMAIN_DRIVER, DOMAIN_RUNTIME = 1, 2        # CUPTI_CB_DOMAIN_DRIVER_API, _RUNTIME_API
SYNC_EVENT, SYNC_STREAM_WAIT_EVENT, SYNC_STREAM, SYNC_CONTEXT = 1, 2, 3, 4  # ...SynchronizationType

# What tracing adds to a call, which the replay leaves out of every call of a trace with a
# PROCESS record (every trace Trace writes): src/analyze/tracer_cost.h. A launch call is that
# much shorter, and its kernel starts that much sooner after the call starts.
TRACER_LAUNCH_NS = 1664
TRACER_MEMCPY_ASYNC_NS = 655

# The structs of trace_format.h: (struct.Struct, field names), little-endian, unpadded.
_STRUCTS = {name: layout("sc_" + name) for name in (
    "file_header", "record_header", "rec_process", "rec_module", "rec_device", "rec_string",
    "rec_call_name", "rec_api", "rec_kernel", "rec_memcpy", "rec_memset", "rec_stream",
    "rec_sync", "rec_note", "rec_range", "rec_end", "rec_overhead", "rec_loss", "rec_unified",
    "rec_pystack", "py_frame", "rec_scope", "rec_scope_window", "rec_time_base",
    "rec_kernel_shape", "rec_kernel_compact", "rec_call_site", "rec_call_compact")}
FILE_HEADER, RECORD_HEADER = _STRUCTS["file_header"][0], _STRUCTS["record_header"][0]
(PROCESS, MODULE, DEVICE, STRING, CALL_NAME, API, KERNEL, MEMCPY, MEMSET, STREAM, SYNC, NOTE,
 RANGE, END, OVERHEAD, LOSS, UNIFIED, PYSTACK) = (_STRUCTS["rec_" + n][0] for n in (
    "process", "module", "device", "string", "call_name", "api", "kernel", "memcpy", "memset",
    "stream", "sync", "note", "range", "end", "overhead", "loss", "unified", "pystack"))
PY_FRAME = _STRUCTS["py_frame"][0]
SCOPE, SCOPE_WINDOW = _STRUCTS["rec_scope"][0], _STRUCTS["rec_scope_window"][0]
# format 2.0's compact records
TIME_BASE, KERNEL_SHAPE, KERNEL_COMPACT, CALL_SITE, CALL_COMPACT = (
    _STRUCTS["rec_" + n][0] for n in ("time_base", "kernel_shape", "kernel_compact",
                                       "call_site", "call_compact"))


def record(kind, payload=b"", text=None, fixed=None, extra=b""):
    """One record: header (with the fixed part's size, format 1.3), fixed payload, optional
    NUL-terminated text, zero padding to 8. fixed: the fixed part's size when payload holds
    more (an API record's frames); extra: bytes appended to the fixed part, as a newer minor
    version's fields would be (the header counts them; the text follows them)."""
    fixed = len(payload) if fixed is None else fixed
    body = payload[:fixed] + extra + payload[fixed:]
    if text is not None:
        body += text.encode() + b"\0"
    body += b"\0" * (-(RECORD_HEADER.size + len(body)) % 8)
    return RECORD_HEADER.pack(kind, fixed + len(extra), RECORD_HEADER.size + len(body)) + body


class Trace:
    def __init__(self, exe="/usr/bin/app", pid=4242, ppid=1, base_ns=1_000_000_000,
                 attach=1, version=(VERSION_MAJOR, VERSION_MINOR)):
        self.base = base_ns
        self.version = version
        self.records = []
        self.strings = {}
        self.call_names = {}
        self.next_corr = 1
        self.last_ns = 0
        self.records.append(record(REC_PROCESS, PROCESS.pack(pid, ppid, base_ns,
                                                             1_700_000_000 * 10**9, attach, 0),
                                   exe))

    def _t(self, ns):
        self.last_ns = max(self.last_ns, self.base + ns)
        return self.base + ns

    def string(self, text):
        """The id of an interned string (kernel names, range names)."""
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1
            self.records.append(record(REC_STRING, STRING.pack(self.strings[text], 0), text))
        return self.strings[text]

    def module(self, path, lo, hi, bias=0, build_id=b""):
        self.records.append(record(REC_MODULE, MODULE.pack(bias, lo, hi, build_id.ljust(20, b"\0"),
                                                           len(build_id)), path))

    def device(self, device=0, name="NVIDIA H200", sm_count=132, cc=(9, 0)):
        self.records.append(record(REC_DEVICE, DEVICE.pack(
            device, sm_count, 2048, 32, 65536, 233472, 1024, 65536, 49152, cc[0], cc[1], 3,
            141 << 30), name))

    def stream(self, stream_id, flag, device=0, context_id=1, priority=0, correlation_id=0):
        self.records.append(record(REC_STREAM, STREAM.pack(device, context_id, stream_id, flag,
                                                           priority, correlation_id)))

    def api(self, name, start, end, call_class=CALL_OTHER, stream=STREAM_NONE, nbytes=0,
            frames=(), correlation_id=None, tid=100, cbid=None, aux=0, aux2=0, context_id=1,
            domain=DOMAIN_RUNTIME, flags=0, result=0):
        """An API call record; returns its correlation id. Without a cbid, the name gets one
        and a CALL_NAME record; with one, no CALL_NAME is written."""
        if correlation_id is None:
            correlation_id = self.next_corr
            self.next_corr += 1
        if cbid is None:
            cbid = self.call_names.get((domain, name))
            if cbid is None:
                cbid = len(self.call_names) + 1
                self.call_names[(domain, name)] = cbid
                self.records.append(record(REC_CALL_NAME, CALL_NAME.pack(domain, cbid, 0), name))
        payload = API.pack(self._t(start), self._t(end), stream, nbytes, aux, tid, correlation_id,
                           context_id, flags, domain, cbid, call_class, len(frames), result, aux2)
        payload += b"".join(struct.pack("<Q", f) for f in frames)
        self.records.append(record(REC_API, payload, fixed=API.size))
        return correlation_id

    def kernel(self, name, start, end, stream_id, device=0, context_id=1, correlation_id=0,
               grid=(1, 1, 1), block=(32, 1, 1)):
        self.records.append(record(REC_KERNEL, KERNEL.pack(
            self._t(start), self._t(end), 0, device, context_id, stream_id, correlation_id,
            *grid, *block, 32, 0, 0, self.string(name), 0, 0)))

    def launch(self, name, start, end, stream_id, issue=None, frames=(), stream_handle=0,
               **kw):
        """A launch call issued at `issue` (default: 5 us before start) plus its kernel."""
        issue = start - 5000 if issue is None else issue
        corr = self.api("cudaLaunchKernel", issue, issue + 3000, CALL_LAUNCH, stream_handle,
                        frames=frames)
        self.kernel(name, start, end, stream_id, correlation_id=corr, **kw)
        return corr

    def memcpy(self, start, end, nbytes, stream_id, copy_kind=HTOD, src_kind=MEM_PAGEABLE,
               dst_kind=MEM_DEVICE, is_async=True, device=0, context_id=1, correlation_id=0):
        self.records.append(record(REC_MEMCPY, MEMCPY.pack(
            self._t(start), self._t(end), nbytes, device, context_id, stream_id, correlation_id,
            copy_kind, src_kind, dst_kind, 1 if is_async else 0, device, device, 0)))

    def memset(self, start, end, nbytes, stream_id, value=0, memory_kind=MEM_DEVICE,
               is_async=True, device=0, context_id=1, correlation_id=0):
        self.records.append(record(REC_MEMSET, MEMSET.pack(
            self._t(start), self._t(end), nbytes, device, context_id, stream_id, correlation_id,
            value, memory_kind, 1 if is_async else 0)))

    def sync(self, start, end, sync_type, stream_id=0xFFFFFFFF, context_id=1, correlation_id=0,
             event_id=0):
        self.records.append(record(REC_SYNC, SYNC.pack(
            self._t(start), self._t(end), sync_type, context_id, stream_id, correlation_id,
            event_id, 0)))

    def range(self, name, start, end, tid=100, domain=None, depth=0):
        domain_id = self.string(domain) if domain else 0
        self.records.append(record(REC_RANGE, RANGE.pack(
            self._t(start), self._t(end), tid, self.string(name), domain_id, depth)))

    def overhead(self, kind, start, end, correlation_id=0, object_kind=2, ids=(0, 0, 0)):
        """CUPTI's OVERHEAD activity, e.g. OVERHEAD_LAZY_FUNCTION_LOADING inside a launch."""
        self.records.append(record(REC_OVERHEAD, OVERHEAD.pack(
            self._t(start), self._t(end), kind, object_kind, *ids, correlation_id)))

    def unified(self, kind, start, end, value, flags=CAUSE_COHERENCE, device=0,
                address=0x7F0000000000):
        """A UNIFIED record: a managed-memory migration to (HTOD) or from (DTOH) `device` of
        `value` bytes with cause `flags`, or a GPU fault group on `device`."""
        to_device = kind != UNIFIED_DTOH
        src = device if kind == UNIFIED_GPU_FAULT or not to_device else 0
        self.records.append(record(REC_UNIFIED, UNIFIED.pack(
            self._t(start), self._t(end), address, value, kind, flags, src,
            device if to_device else 0)))

    def call_name(self, name, cbid, domain=DOMAIN_RUNTIME):
        """A CALL_NAME record on its own (the library writes one on a call's first exit)."""
        self.records.append(record(REC_CALL_NAME, CALL_NAME.pack(domain, cbid, 0), name))

    def raw(self, kind, payload=b"", text=None):
        """Any record, e.g. a kind from a newer minor version that readers must skip."""
        self.records.append(record(kind, payload, text))

    def scope(self, mode, name="", skip=0):
        """The SCOPE record (1.5): recorded only inside a capture scope (SCOPE_NVTX_RANGE with
        the range's name, or SCOPE_PROFILER)."""
        self.records.append(record(REC_SCOPE, SCOPE.pack(mode, skip), name))  # noqa: F821

    def scope_window(self, open_ns, close_ns, occurrence=1, flags=0):
        """A SCOPE_WINDOW record: the scope was open from open_ns to close_ns."""
        self.records.append(record(REC_SCOPE_WINDOW, SCOPE_WINDOW.pack(  # noqa: F821
            self._t(open_ns), self._t(close_ns), occurrence, flags)))

    def note(self, code, text):
        self.records.append(record(REC_NOTE, NOTE.pack(code, 0), text))

    def env(self, text):
        self.records.append(record(REC_ENV, b"", text))

    def loss(self, cause, count):
        """A LOSS record: `count` lost to `cause` (cumulative: the last one of a cause wins)."""
        self.records.append(record(REC_LOSS, LOSS.pack(cause, 0, count)))

    def time_base(self, ns):
        """A TIME_BASE record (2.0): compact records after it count their times from ns."""
        self.records.append(record(REC_TIME_BASE, TIME_BASE.pack(self._t(ns))))  # noqa: F821

    def kernel_shape(self, shape_id, name, stream_id, device=0, context_id=1, grid=(1, 1, 1),
                     block=(32, 1, 1), registers=32, graph_node_id=0):
        """A KERNEL_SHAPE record (2.0) declaring shape_id."""
        self.records.append(record(REC_KERNEL_SHAPE, KERNEL_SHAPE.pack(  # noqa: F821
            graph_node_id, shape_id, device, context_id, stream_id, *grid, *block, registers,
            0, 0, self.string(name), 0, 0)))

    def kernel_compact(self, shape_id, delta, duration, correlation_id=0):
        """A KERNEL_COMPACT record (2.0): starts delta ns after the last TIME_BASE."""
        self.records.append(record(REC_KERNEL_COMPACT, KERNEL_COMPACT.pack(  # noqa: F821
            delta, duration, correlation_id, shape_id)))

    def call_site(self, site_id, name, call_class=CALL_OTHER, stream=STREAM_NONE, tid=100,
                  flags=API_STACK_SHARED, domain=DOMAIN_RUNTIME):  # noqa: F821
        """A CALL_SITE record (2.0) declaring site_id (a CALL_NAME record names the call)."""
        cbid = self.call_names.get((domain, name))
        if cbid is None:
            cbid = len(self.call_names) + 1
            self.call_names[(domain, name)] = cbid
            self.records.append(record(REC_CALL_NAME, CALL_NAME.pack(domain, cbid, 0), name))
        self.records.append(record(REC_CALL_SITE, CALL_SITE.pack(  # noqa: F821
            stream, tid, flags, domain, cbid, call_class, site_id)))

    def call_compact(self, site_id, delta, duration, correlation_id=None, shared=0,
                     context_id=1):
        """A CALL_COMPACT record (2.0); returns its correlation id."""
        if correlation_id is None:
            correlation_id = self.next_corr
            self.next_corr += 1
        self.records.append(record(REC_CALL_COMPACT, CALL_COMPACT.pack(  # noqa: F821
            delta, duration, correlation_id, shared, site_id, context_id)))
        return correlation_id

    def to_bytes(self, partial=False, dropped=0):
        header = FILE_HEADER.pack(MAGIC, self.version[0], self.version[1], FILE_HEADER.size)
        out = header + b"".join(self.records)
        if not partial:
            out += record(REC_END, END.pack(self.last_ns, dropped, 0, 0, 1, 0))
        return out

    def write(self, path, partial=False, dropped=0):
        with open(path, "wb") as f:
            f.write(self.to_bytes(partial=partial, dropped=dropped))
        return path


# ---- reading ------------------------------------------------------------------------------

class TraceError(ValueError):
    """The file is not a readable trace: not a trace at all, another major version, or
    corrupt (the message names the file and the byte offset of the damage)."""


# Each kind's fixed part and its field names, in trace_format.h order ("reserved" is dropped).
_LAYOUTS = {kind: _STRUCTS["rec_" + name] for kind, name in (
    (REC_PROCESS, "process"), (REC_MODULE, "module"), (REC_DEVICE, "device"),  # noqa: F821
    (REC_STRING, "string"), (REC_CALL_NAME, "call_name"), (REC_API, "api"),  # noqa: F821
    (REC_KERNEL, "kernel"), (REC_MEMCPY, "memcpy"), (REC_MEMSET, "memset"),  # noqa: F821
    (REC_STREAM, "stream"), (REC_SYNC, "sync"), (REC_NOTE, "note"),  # noqa: F821
    (REC_RANGE, "range"), (REC_END, "end"), (REC_OVERHEAD, "overhead"),  # noqa: F821
    (REC_LOSS, "loss"), (REC_UNIFIED, "unified"), (REC_PYSTACK, "pystack"),  # noqa: F821
    (REC_SCOPE, "scope"), (REC_SCOPE_WINDOW, "scope_window"),  # noqa: F821
    (REC_TIME_BASE, "time_base"), (REC_KERNEL_SHAPE, "kernel_shape"),  # noqa: F821
    (REC_KERNEL_COMPACT, "kernel_compact"), (REC_CALL_SITE, "call_site"),  # noqa: F821
    (REC_CALL_COMPACT, "call_compact"))}  # noqa: F821
_LAYOUTS[REC_ENV] = (None, "")  # noqa: F821  (all text)
for _kind, (_s, _names) in _LAYOUTS.items():
    assert _s is None or len(_names.split()) == len(_s.unpack(b"\0" * _s.size)), _kind

_TEXT_KINDS = {REC_PROCESS, REC_MODULE, REC_DEVICE, REC_STRING, REC_CALL_NAME, REC_NOTE, REC_ENV,
               REC_SCOPE}  # noqa: F821

# Which list of the result each repeated kind goes to.
_LISTS = {REC_MODULE: "modules", REC_DEVICE: "devices", REC_API: "calls", REC_KERNEL: "kernels",
          REC_MEMCPY: "copies", REC_MEMSET: "memsets", REC_STREAM: "streams", REC_SYNC: "syncs",
          REC_NOTE: "notes", REC_ENV: "env", REC_RANGE: "ranges", REC_OVERHEAD: "overheads",
          REC_UNIFIED: "unified", REC_PYSTACK: "pystacks",  # noqa: F821
          REC_SCOPE_WINDOW: "scope_windows"}  # noqa: F821
_FRAME_KINDS = {REC_API, REC_PYSTACK}  # noqa: F821  (frames follow the fixed part)
COMPACT_KINDS = {REC_TIME_BASE, REC_KERNEL_SHAPE, REC_KERNEL_COMPACT, REC_CALL_SITE,  # noqa: F821
                  REC_CALL_COMPACT}  # noqa: F821


class Compact:
    """Format 2.0's compact records: the base and declarations in file order, and each compact
    record expanded into the fields of the KERNEL or API record it stands for. For readers of
    their own (tests/gpu/lifecycle_helpers.py): feed it every record of a compact kind, in file
    order, with take()."""

    def __init__(self):
        self.base = None
        self.shapes = {}
        self.sites = {}

    def take(self, kind, payload):
        """A record of a compact kind: None for a declaration (remembered), else (REC_KERNEL or
        REC_API, the fields of that record). Raises TraceError for a compact record before its
        declaration."""
        rec = _fields(kind, payload)
        if kind in (REC_KERNEL_COMPACT, REC_CALL_COMPACT):  # noqa: F821
            full = self.kernel(rec) if kind == REC_KERNEL_COMPACT else self.call(rec)  # noqa: F821
            if full is None:
                raise TraceError("compact record before its declaration")
            return (REC_KERNEL if kind == REC_KERNEL_COMPACT else REC_API), full  # noqa: F821
        self.declare(kind, rec)
        return None

    def declare(self, kind, rec):
        if kind == REC_TIME_BASE:  # noqa: F821
            self.base = rec["base_ns"]
        elif kind == REC_KERNEL_SHAPE:  # noqa: F821
            self.shapes[rec["id"]] = rec
        else:
            self.sites[rec["id"]] = rec

    def _start(self, rec):
        return (self.base + rec["start_delta"]) % (1 << 64)

    def kernel(self, rec):
        """The KERNEL fields of a KERNEL_COMPACT, or None when it was not declared."""
        shape = self.shapes.get(rec["shape_id"])
        if self.base is None or shape is None:
            return None
        start = self._start(rec)
        out = {k: shape[k] for k in _STRUCTS["rec_kernel"][1].split() if k in shape}
        out.update(start_ns=start, end_ns=(start + rec["duration"]) % (1 << 64),
                   correlation_id=rec["correlation_id"])
        return {k: out[k] for k in _STRUCTS["rec_kernel"][1].split() if k != "reserved"}

    def call(self, rec):
        """The API fields of a CALL_COMPACT, or None when it was not declared."""
        site = self.sites.get(rec["site_id"])
        if self.base is None or site is None:
            return None
        start = self._start(rec)
        flags = site["flags"]
        out = dict(start_ns=start, end_ns=(start + rec["duration"]) % (1 << 64),
                   stream=site["stream"], bytes=0,
                   aux=rec["shared"] if flags & API_STACK_SHARED else 0,  # noqa: F821
                   tid=site["tid"], correlation_id=rec["correlation_id"],
                   context_id=rec["context_id"], flags=flags, domain=site["domain"],
                   cbid=site["cbid"], call_class=site["call_class"], n_frames=0, result=0,
                   aux2=rec["shared"] if flags & API_STACK_SHARED_AUX2 else 0)  # noqa: F821
        return {k: out[k] for k in _STRUCTS["rec_api"][1].split() if k != "reserved"}


def _fields(kind, payload):
    layout, names = _LAYOUTS[kind]
    if layout is None:
        return {}
    values = layout.unpack_from(payload)   # a newer minor version's extra bytes are ignored
    return {k: v for k, v in zip(names.split(), values) if k != "reserved"}


def read(path):
    """Parses the trace at `path` into plain Python objects, without the C reader.

    Returns a dict:
      path, version (major, minor), status ("complete" | "partial" | "truncated"),
      status_detail (why it is not complete, "" when it is),
      process (dict, with "exe") or None, end (dict) or None,
      strings {id: text}, call_names {(domain, cbid): name},
      modules, devices, calls, kernels, copies, memsets, streams, syncs, ranges, notes:
          lists of dicts in FILE order (not sorted), keyed by the trace_format.h field names,
          each with "offset" (its byte offset in the file); calls have "frames" (a list of
          return addresses, innermost first) and "name" (None when no CALL_NAME record names
          it); kernels have "name", ranges "name" and "domain" (None when unknown/default);
          modules have "path" and build_id as a hex string; devices "name"; notes "text",
      pystacks: PYSTACK records (1.4), each with "frames": dicts of file, function, line,
          innermost first,
      scope: the SCOPE record (1.5) with "name" (the range's), or None: recorded whole,
      scope_windows: its SCOPE_WINDOW records, in file order,
      env: list of "NAME=value" strings,
      losses: {cause: count} from LOSS records (the last record of each cause),
      unknown: how many records of kinds this version does not know were skipped,
      compact: counts of format 2.0's compact records: "kernels" and "calls" (expanded into
          kernels and calls, in their place in file order) and "declarations" (TIME_BASE,
          KERNEL_SHAPE and CALL_SITE records).
    Values are as written: stream records keep device 0xFFFFFFFF (the C loader fills it in).

    Raises TraceError when the file is not a trace, has another major version or is corrupt
    (the same files the C loader refuses). A last record cut short gives status "truncated"
    and everything before it; a file without an END record gives "partial".
    """
    path = str(path)
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < FILE_HEADER.size or data[:8] != MAGIC:
        raise TraceError(f"{path}: not a streamcheck trace "
                         f"({'file too short' if len(data) < FILE_HEADER.size else 'wrong magic'})")
    _, major, minor, header_size = FILE_HEADER.unpack_from(data)
    if not TRACE_OLDEST_MAJOR <= major <= VERSION_MAJOR:  # noqa: F821
        raise TraceError(f"{path}: trace format {major}.{minor}; this reader reads "
                         f"formats {TRACE_OLDEST_MAJOR}.x to {VERSION_MAJOR}.x")  # noqa: F821
    if header_size < FILE_HEADER.size or header_size > len(data) or header_size % 8:
        raise TraceError(f"{path}: corrupt trace: header size {header_size}")

    out = {"path": path, "version": (major, minor), "status": "complete", "status_detail": "",
           "process": None, "end": None, "scope": None, "strings": {}, "call_names": {},
           "losses": {},
           "unknown": 0, "compact": {"kernels": 0, "calls": 0, "declarations": 0}}
    compact = Compact()
    for name in _LISTS.values():
        out[name] = []

    def corrupt(offset, what):
        raise TraceError(f"{path}: corrupt trace: {what} at byte {offset}")

    off = header_size
    while off < len(data):
        if len(data) - off < RECORD_HEADER.size:
            break
        kind, declared, size = RECORD_HEADER.unpack_from(data, off)
        if size < RECORD_HEADER.size or size % 8:
            corrupt(off, f"bad record size {size}")
        if size > len(data) - off:
            break
        if out["end"] is not None:
            corrupt(off, "record after the end record")
        payload = data[off + RECORD_HEADER.size:off + size]
        if kind not in _LAYOUTS:
            out["unknown"] += 1      # a kind from a newer minor version: its size says how far
            off += size
            continue
        layout = _LAYOUTS[kind][0]
        least = layout.size if layout else 0
        # 1.3: the header gives the fixed part's size (fields a newer writer appended are
        # skipped); before, the text or frames followed the kind's own layout
        fixed = declared or (least if kind in _TEXT_KINDS | _FRAME_KINDS else len(payload))
        if declared and (declared > len(payload) or declared < least or
                         (kind in _FRAME_KINDS and declared % 8)):
            corrupt(off, f"fixed part of {declared} bytes outside the record")
        if len(payload) < least:
            corrupt(off, f"record shorter than its kind ({len(payload)} of {least} bytes)")
        rec = _fields(kind, payload)
        rec["offset"] = off
        text = None
        if kind in _TEXT_KINDS:
            tail = payload[fixed:]
            if tail and b"\0" not in tail:
                corrupt(off, "unterminated text")
            text = tail.split(b"\0", 1)[0].decode("utf-8", "replace")
        if kind == REC_API:
            end = fixed + 8 * rec["n_frames"]
            if end > len(payload):
                corrupt(off, "frames overrun")
            rec["frames"] = list(struct.unpack_from(f"<{rec['n_frames']}Q", payload, fixed))
        if kind == REC_PYSTACK:  # noqa: F821
            end = fixed + PY_FRAME.size * rec["n_frames"]
            if end > len(payload):
                corrupt(off, "frames overrun")
            names = _STRUCTS["py_frame"][1].split()
            rec["frames"] = [dict(zip(names, PY_FRAME.unpack_from(payload, fixed + i * PY_FRAME.size)))
                             for i in range(rec["n_frames"])]
        if kind in (REC_KERNEL_SHAPE, REC_CALL_SITE) and not 0 < rec["id"] <= COMPACT_MAX_ID:  # noqa: F821
            corrupt(off, "bad shape or site id")
        if kind in COMPACT_KINDS:
            if kind == REC_KERNEL_COMPACT:  # noqa: F821
                full, kind = compact.kernel(rec), REC_KERNEL
            elif kind == REC_CALL_COMPACT:  # noqa: F821
                full, kind = compact.call(rec), REC_API
            else:
                compact.declare(kind, rec)
                out["compact"]["declarations"] += 1
                off += size
                continue
            if full is None:
                corrupt(off, "compact record before its declaration")
            out["compact"]["kernels" if kind == REC_KERNEL else "calls"] += 1
            rec = dict(full, offset=off)
            if kind == REC_API:
                rec["frames"] = []
        if kind == REC_PROCESS:
            rec["exe"] = text
            out["process"] = rec
        elif kind == REC_STRING:
            if rec["id"] == 0 or rec["id"] > 1 << 26:
                corrupt(off, "bad string id")
            out["strings"][rec["id"]] = text
        elif kind == REC_CALL_NAME:
            out["call_names"][(rec["domain"], rec["cbid"])] = text
        elif kind == REC_END:
            out["end"] = rec
        elif kind == REC_LOSS:
            out["losses"][rec["cause"]] = rec["count"]
        elif kind == REC_ENV:
            out["env"].append(text)
        elif kind == REC_SCOPE:  # noqa: F821
            rec["name"] = text
            out["scope"] = rec
        else:
            if kind == REC_MODULE:
                rec["build_id"] = rec["build_id"][:rec.pop("build_id_size")].hex()
                rec["path"] = text
            elif kind == REC_DEVICE:
                rec["name"] = text
            elif kind == REC_NOTE:
                rec["text"] = text
            out[_LISTS[kind]].append(rec)
        off += size

    # Names are joined once every record is in: a name may come after its first use.
    for c in out["calls"]:
        c["name"] = out["call_names"].get((c["domain"], c["cbid"]))
    for k in out["kernels"]:
        k["name"] = out["strings"].get(k["name_id"])
    for r in out["ranges"]:
        r["name"] = out["strings"].get(r["name_id"])
        r["domain"] = out["strings"].get(r["domain_id"])
    for s in out["pystacks"]:
        for f in s["frames"]:
            f["file"] = out["strings"].get(f.pop("file_id"))
            f["function"] = out["strings"].get(f.pop("function_id"))
            f.pop("reserved", None)

    if off < len(data):
        out["status"] = "truncated"
        out["status_detail"] = (f"the last record is cut short at byte {off} of {len(data)}: "
                                "the process stopped while writing; everything before it is kept")
    elif out["end"] is None:
        out["status"] = "partial"
        out["status_detail"] = "no end record: the process crashed, was killed, exec'd or is " \
                               "still running"
    return out


def full_form(data):
    """The trace `data` (bytes) as a writer without compact records writes it (format
    TRACE_FULL_MAJOR.TRACE_FULL_MINOR): every compact record replaced, in its place, by the
    full KERNEL or API record it stands for, as this module decodes it (independently of the C
    reader), and the base and declarations left out. Other records are copied as they are."""
    magic, _major, _minor, header_size = FILE_HEADER.unpack_from(data)
    out = [FILE_HEADER.pack(magic, TRACE_FULL_MAJOR, TRACE_FULL_MINOR, header_size),  # noqa: F821
           data[FILE_HEADER.size:header_size]]
    compact = Compact()
    off = header_size
    while off + RECORD_HEADER.size <= len(data):
        kind, _fixed, size = RECORD_HEADER.unpack_from(data, off)
        if size < RECORD_HEADER.size or off + size > len(data):
            break
        payload = data[off + RECORD_HEADER.size:off + size]
        if kind in COMPACT_KINDS:
            rec = _fields(kind, payload)
            if kind == REC_KERNEL_COMPACT:  # noqa: F821
                out.append(_packed(REC_KERNEL, "rec_kernel", compact.kernel(rec)))
            elif kind == REC_CALL_COMPACT:  # noqa: F821
                out.append(_packed(REC_API, "rec_api", compact.call(rec)))
            else:
                compact.declare(kind, rec)
        else:
            out.append(data[off:off + size])
        off += size
    out.append(data[off:])
    return b"".join(out)


def _packed(kind, struct_name, fields):
    if fields is None:
        raise TraceError("compact record before its declaration")
    layout, names = _STRUCTS[struct_name]
    return record(kind, layout.pack(*(fields.get(n, 0) for n in names.split())))
