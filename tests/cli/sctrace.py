"""Write streamcheck trace files (include/streamcheck/trace_format.h) from Python.

Tests build traces with known content and known timings, run the report tool on them and
check what it says. The layouts below mirror trace_format.h field by field; the sizes are
asserted so a change to the header shows up here at once.

    t = Trace(exe="/usr/bin/app", pid=42)
    t.device(0)
    t.stream(7, LEGACY)
    t.launch("_Z4spinv", start=1000, end=5000, stream_id=7, issue=900)
    t.write(tmp_path / "app-42.sctrace")      # complete (END record); partial=True omits it

All times are nanoseconds on the trace's clock; `base_ns` (default 1 s) is added to every
time given, so tests can think in small offsets.
"""

import struct

MAGIC = b"SCTRACE\0"
VERSION_MAJOR = 1
VERSION_MINOR = 0

# enum sc_record_kind
REC_PROCESS, REC_MODULE, REC_DEVICE, REC_STRING, REC_CALL_NAME, REC_API, REC_KERNEL = range(1, 8)
REC_MEMCPY, REC_MEMSET, REC_STREAM, REC_SYNC, REC_NOTE, REC_ENV, REC_RANGE, REC_END = range(8, 16)

# enum sc_stream_flag
UNKNOWN, BLOCKING, NON_BLOCKING, LEGACY = 0, 1, 2, 3

# enum sc_memory_kind
MEM_UNKNOWN, MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE = 0, 1, 2, 3

# CUpti_ActivityMemcpyKind
HTOD, DTOH, DTOD = 1, 2, 8

# enum sc_call_class (the ones tests use)
CALL_OTHER, CALL_LAUNCH, CALL_MEMCPY, CALL_MEMCPY_ASYNC = 0, 1, 3, 4
CALL_STREAM_CREATE, CALL_DEVICE_SYNC = 13, 19

# enum sc_note_code
NOTE_INFO, NOTE_CUPTI_UNAVAILABLE, NOTE_CUPTI_TAKEN = 0, 1, 2

STREAM_NONE = (1 << 64) - 1
DOMAIN_RUNTIME = 3     # CUPTI_CB_DOMAIN_RUNTIME_API

FILE_HEADER = struct.Struct("<8sHHI")
RECORD_HEADER = struct.Struct("<HHI")
PROCESS = struct.Struct("<IIQQII")
MODULE = struct.Struct("<QQQ20sI")
DEVICE = struct.Struct("<12IQ")
STRING = struct.Struct("<II")
CALL_NAME = struct.Struct("<HHI")
API = struct.Struct("<5Q4I4HiI")
KERNEL = struct.Struct("<3Q4I6i6I")
MEMCPY = struct.Struct("<3Q4I4B3I")
MEMSET = struct.Struct("<3Q4I I2H".replace(" ", ""))
STREAM = struct.Struct("<3IIiI")
SYNC = struct.Struct("<2Q6I")
NOTE = struct.Struct("<II")
RANGE = struct.Struct("<2Q4I")
END = struct.Struct("<4QII")

for _s, _n in [(FILE_HEADER, 16), (RECORD_HEADER, 8), (PROCESS, 32), (MODULE, 48),
               (DEVICE, 56), (STRING, 8), (CALL_NAME, 8), (API, 72), (KERNEL, 88),
               (MEMCPY, 56), (MEMSET, 48), (STREAM, 24), (SYNC, 40), (NOTE, 8),
               (RANGE, 32), (END, 40)]:
    assert _s.size == _n, (_s.format, _s.size, _n)


def record(kind, payload=b"", text=None):
    """One record: header, fixed payload, optional NUL-terminated text, zero padding to 8."""
    body = payload
    if text is not None:
        body += text.encode() + b"\0"
    body += b"\0" * (-(RECORD_HEADER.size + len(body)) % 8)
    return RECORD_HEADER.pack(kind, 0, RECORD_HEADER.size + len(body)) + body


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
            frames=(), correlation_id=None, tid=100, cbid=None, aux=0, aux2=0, context_id=1):
        """An API call record; returns its correlation id."""
        if correlation_id is None:
            correlation_id = self.next_corr
            self.next_corr += 1
        if cbid is None:
            cbid = self.call_names.get(name)
            if cbid is None:
                cbid = len(self.call_names) + 1
                self.call_names[name] = cbid
                self.records.append(record(REC_CALL_NAME, CALL_NAME.pack(DOMAIN_RUNTIME, cbid, 0),
                                           name))
        payload = API.pack(self._t(start), self._t(end), stream, nbytes, aux, tid, correlation_id,
                           context_id, 0, DOMAIN_RUNTIME, cbid, call_class, len(frames), 0, aux2)
        payload += b"".join(struct.pack("<Q", f) for f in frames)
        self.records.append(record(REC_API, payload))
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

    def note(self, code, text):
        self.records.append(record(REC_NOTE, NOTE.pack(code, 0), text))

    def env(self, text):
        self.records.append(record(REC_ENV, b"", text))

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
