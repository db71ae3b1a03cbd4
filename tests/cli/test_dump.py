"""streamcheck-report --dump: raw records in file order; and the text report's stream table,
which leaves out the idle streams CUDA makes with every context."""

import json

from sctrace import (BLOCKING, CALL_LAUNCH, CALL_STREAM_CREATE, DOMAIN_DRIVER, DTOH, LEGACY,
                     VERSION_MAJOR, VERSION_MINOR, UNIFIED_HTOD, CAUSE_COHERENCE, LOSS_NAMES, LOSS_NVTX_DEPTH, MEM_DEVICE, MEM_PINNED, NON_BLOCKING,
                     NOTE_CUPTI_TAKEN, OVERHEAD_LAZY_FUNCTION_LOADING, SYNC_STREAM, Trace)


def full_trace():
    """One record of every kind, in a known order."""
    t = Trace(exe="/usr/bin/app", pid=482)
    t.module("/usr/bin/app", 0x400000, 0x500000, build_id=b"\xab\xcd")
    t.device(0)
    t.stream(7, LEGACY)
    create = t.api("cudaStreamCreate", 0, 2_000, CALL_STREAM_CREATE, frames=(0x401000,))
    t.stream(16, BLOCKING, correlation_id=create, priority=-1)
    t.launch("_Z4spinv", 10_000, 110_000, 16, issue=5_000, frames=(0x401234, 0x7f0000001000),
             stream_handle=0x5555aaaa0000, grid=(8, 1, 1), block=(128, 1, 1))
    t.memcpy(200_000, 300_000, 1 << 20, 7)
    t.memcpy(310_000, 320_000, 4096, 16, copy_kind=DTOH, src_kind=MEM_DEVICE, dst_kind=MEM_PINNED,
             is_async=False)
    t.memset(330_000, 331_000, 512, 16, value=7)
    t.sync(340_000, 350_000, SYNC_STREAM, stream_id=16)
    t.range("step", 0, 400_000, domain="train")
    t.note(NOTE_CUPTI_TAKEN, "another profiler holds CUPTI")
    t.env("CUDA_LAUNCH_BLOCKING=1")
    t.overhead(OVERHEAD_LAZY_FUNCTION_LOADING, 6_000, 7_500, correlation_id=2, ids=(482, 100, 0))
    t.loss(LOSS_NVTX_DEPTH, 3)
    t.unified(UNIFIED_HTOD, 20_000, 60_000, 65536, CAUSE_COHERENCE, device=0)
    t.raw(99, b"\0" * 16)
    return t


def lines_of(out, kind):
    return [l for l in out.splitlines() if l.startswith("@") and l.split()[1] == kind]


def test_dump_every_kind_in_file_order(run_report, tmp_path):
    path = full_trace().write(tmp_path / "app-482.sctrace")
    r = run_report("--dump", path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    lines = out.splitlines()
    assert lines[0] == f"== {path} =="
    assert lines[1].startswith(f"format {VERSION_MAJOR}.{VERSION_MINOR}, header 16 bytes, file ")
    assert lines[2] == "status: complete"
    records = [l for l in lines if l.startswith("@")]
    kinds = [l.split()[1] for l in records]
    assert kinds == ["PROCESS", "MODULE", "DEVICE", "STREAM", "CALL_NAME", "API", "STREAM",
                     "CALL_NAME", "API", "STRING", "KERNEL", "MEMCPY", "MEMCPY", "MEMSET",
                     "SYNC", "STRING", "STRING", "RANGE", "NOTE", "ENV", "OVERHEAD", "LOSS",
                     "UNIFIED", "unknown", "END"]
    offsets = [int(l.split()[0][1:]) for l in records]
    assert offsets[0] == 16 and offsets == sorted(offsets)
    assert all(o % 8 == 0 for o in offsets)

    (proc,) = lines_of(out, "PROCESS")
    assert proc.startswith("@16 PROCESS pid=482 ppid=1 attach=preload start=1000000000 ")
    assert proc.endswith(" exe=/usr/bin/app")
    (mod,) = lines_of(out, "MODULE")
    assert "lo=0x400000 hi=0x500000 bias=0x0 build_id=abcd path=/usr/bin/app" in mod
    assert '"NVIDIA H200" sms=132 cc=9.0' in lines_of(out, "DEVICE")[0]
    streams = lines_of(out, "STREAM")
    assert streams[0].endswith("STREAM ctx=1 id=7 flag=legacy prio=0 corr=0 dev=0")
    assert "id=16 flag=blocking prio=-1 corr=1" in streams[1]
    launch = lines_of(out, "API")[1]
    assert " API cudaLaunchKernel(cbid 2, runtime) class=launch start=1000005000 " \
           "end=1000008000 dur=3000 tid=100 ctx=1 corr=2 stream=0x5555aaaa0000 " in launch
    assert launch.endswith("result=0 frames=2 [0x401234, 0x7f0000001000]")
    assert "class=stream-create" in lines_of(out, "API")[0]
    assert 'STRING #1 "_Z4spinv"' in out
    (kernel,) = lines_of(out, "KERNEL")
    assert kernel.split(" ", 2)[2] == (
        "start=1000010000 end=1000110000 dur=100000 dev=0 ctx=1 stream=16 corr=2 grid=8x1x1 "
        "block=128x1x1 regs=32 smem=0+0 name=#1")
    copies = lines_of(out, "MEMCPY")
    assert " MEMCPY HtoD 1048576 B pageable->device async start=1000200000 " in copies[0]
    assert " MEMCPY DtoH 4096 B device->pinned sync " in copies[1]
    assert " MEMSET 512 B device value=7 async start=1000330000 end=1000331000 dur=1000 " \
           in lines_of(out, "MEMSET")[0]
    assert " SYNC stream-sync start=1000340000 end=1000350000 dur=10000 ctx=1 stream=16 " \
           in lines_of(out, "SYNC")[0]
    assert "tid=100 name=#3 domain=#2 depth=0" in lines_of(out, "RANGE")[0]
    (loss,) = lines_of(out, "LOSS")
    assert loss.split(" ", 2)[2] == \
        "nvtx-depth=3 (cause 4: NVTX push/pop ranges nested deeper than 64)"
    assert lines_of(out, "NOTE")[0].endswith(" NOTE cupti-taken: another profiler holds CUPTI")
    assert lines_of(out, "ENV")[0].endswith(" ENV CUDA_LAUNCH_BLOCKING=1")
    assert lines_of(out, "OVERHEAD")[0].endswith(
        " OVERHEAD start=1000006000 end=1000007500 dur=1500 kind=lazy-function-loading(0x50000) "
        "object=2 ids=482,100,0 corr=2")
    assert lines_of(out, "UNIFIED")[0].endswith(
        " UNIFIED start=1000020000 end=1000060000 dur=40000 htod addr=0x7f0000000000 "
        "bytes=65536 src=0 dst=0 cause=coherence")
    assert "kind=99 size=24: not known to this version, skipped" in lines_of(out, "unknown")[0]
    assert " END end=1000400000 dropped=0 api=0 activity=0 reason=exit" in lines_of(out, "END")[0]
    assert lines[-1].startswith("records: 25 (PROCESS 1, MODULE 1, DEVICE 1, STRING 3, ")
    assert lines[-1].endswith("END 1, OVERHEAD 1, LOSS 1, UNIFIED 1, unknown 1)")


def test_dump_names_calls_defined_later_and_driver_domain(run_report, tmp_path):
    t = Trace()
    t.api("cuLaunchKernel", 0, 10, CALL_LAUNCH, cbid=307, domain=DOMAIN_DRIVER, flags=3,
          result=1)
    t.call_name("cuLaunchKernel", 307, domain=DOMAIN_DRIVER)    # after its first use
    t.api("cudaFoo", 20, 30, cbid=307)                          # (runtime, 307): never named
    out = run_report("--dump", t.write(tmp_path / "x.sctrace")).stdout
    (driver, runtime) = lines_of(out, "API")
    assert "API cuLaunchKernel(cbid 307, driver) class=launch" in driver
    assert "flags=per-thread,driver result=1 frames=0 []" in driver
    assert "API ?(cbid 307, runtime) class=other" in runtime
    assert "CALL_NAME cbid 307, driver: cuLaunchKernel" in out


def test_dump_partial_and_truncated(run_report, tmp_path):
    t = full_trace()
    partial = t.write(tmp_path / "a-1.sctrace.partial", partial=True)
    r = run_report("--dump", partial)
    assert r.returncode == 0
    assert "status: partial: no end record" in r.stdout
    assert " END " not in r.stdout

    data = t.to_bytes(partial=True)
    cut = tmp_path / "b-2.sctrace.partial"
    cut.write_bytes(data[:-12])          # the last record (24 bytes) loses its tail
    r = run_report("--dump", cut)
    assert r.returncode == 0, r.stderr
    last = len(data) - len(t.records[-1])
    assert f"status: truncated: the last record is cut short at byte {last} of {len(data) - 12}" \
        in r.stdout
    lines = r.stdout.splitlines()
    assert lines[-2].startswith(f"@{last} TRUNCATED: unknown record of 24 bytes cut short, ")
    assert lines_of(r.stdout, "ENV")            # everything before the cut is there

    cut.write_bytes(data + b"\1\0\0")    # a few stray bytes after whole records
    r = run_report("--dump", cut)
    assert r.returncode == 0
    assert f"@{len(data)} TRUNCATED: 3 stray bytes where a record header should be" in r.stdout


def test_dump_corrupt_shows_prefix_and_damage(run_report, tmp_path):
    t = full_trace()
    data = bytearray(t.to_bytes())
    # The 4th record (the first STREAM) claims a size that is not a multiple of 8.
    off = 16 + sum(len(r) for r in t.records[:3])
    data[off + 4:off + 8] = (13).to_bytes(4, "little")
    path = tmp_path / "bad-3.sctrace"
    path.write_bytes(bytes(data))
    r = run_report("--dump", path)
    assert r.returncode == 1
    assert f"{path}: corrupt trace: bad record size 13 (kind 10) at byte {off}" in r.stderr
    assert f"status: corrupt at byte {off} (bad record size 13 (kind 10))" in r.stdout
    assert [l.split()[1] for l in r.stdout.splitlines() if l.startswith("@")] == \
        ["PROCESS", "MODULE", "DEVICE", "CORRUPT:"]
    assert f"@{off} CORRUPT: bad record size 13 (kind 10); nothing after it can be read" \
        in r.stdout
    # The report refuses the same file: dump and loader agree on what is corrupt.
    assert run_report(path).returncode == 1


def test_dump_not_a_trace_and_other_files_still_dumped(run_report, tmp_path):
    (tmp_path / "a-1.sctrace").write_bytes(b"definitely not a trace file")
    newer = VERSION_MAJOR + 1
    Trace(version=(newer, 0)).write(tmp_path / "b-2.sctrace")
    full_trace().write(tmp_path / "c-3.sctrace")
    r = run_report("--dump", tmp_path)
    assert r.returncode == 1
    assert "a-1.sctrace: not a streamcheck trace (wrong magic)" in r.stderr
    assert f"b-2.sctrace: trace format {newer}.0" in r.stderr
    assert f"cannot read format {newer}.x" in r.stdout
    assert r.stdout.count("== ") == 3
    assert "status: complete" in r.stdout


def test_dump_options(run_report, tmp_path):
    path = full_trace().write(tmp_path / "app-1.sctrace")
    r = run_report("--dump", "--json", path)
    assert r.returncode == 2 and "--dump and --json" in r.stderr
    out = tmp_path / "dump.txt"
    r = run_report("--dump", "-o", out, path)
    assert r.returncode == 0 and r.stdout == ""
    assert "status: complete" in out.read_text()
    assert "--dump" in run_report("--help").stdout


def context_streams_trace(path):
    """What the H200 shows: the program's two streams plus idle streams CUDA made itself."""
    t = Trace(exe="/usr/bin/noisy", pid=9)
    t.device(0)
    t.stream(7, LEGACY)
    create = t.api("cudaStreamCreateWithFlags", 0, 1_000, CALL_STREAM_CREATE, frames=(0x401000,))
    t.stream(13, NON_BLOCKING, correlation_id=create)
    unused = t.api("cudaStreamCreate", 1_000, 2_000, CALL_STREAM_CREATE, frames=(0x401000,))
    t.stream(14, BLOCKING, correlation_id=unused)       # created by the program, never used
    for sid in (8, 9, 10, 11):
        t.stream(sid, BLOCKING if sid % 2 else NON_BLOCKING)
    t.launch("_Z1av", 10_000, 20_000, 13)
    t.memcpy(30_000, 40_000, 4096, 7)
    return t.write(path)


def test_idle_context_streams_hidden_in_text_kept_in_json(run_report, tmp_path):
    path = context_streams_trace(tmp_path / "noisy-9.sctrace")
    out = run_report("--no-symbols", path).stdout
    table = out[out.index("\nstreams:\n"):].split("\n\n")[0].splitlines()[2:]
    rows = {int(l.split()[1]): l for l in table if l.split()[1].isdigit()}
    assert set(rows) == {7, 13, 14}
    assert "4 idle streams not shown (created by CUDA with the context)" in out

    doc = json.loads(run_report("--json", path).stdout)
    idle = {s["stream_id"]: s["idle"] for s in doc["processes"][0]["streams"]}
    assert idle == {7: False, 8: True, 9: True, 10: True, 11: True, 13: False, 14: True}


def test_a_library_pool_of_idle_streams_is_one_line_per_site(run_report, tmp_path):
    """NCCL and PyTorch's stream pools create streams by the dozen (a DDP rank on the H200
    made 130, 3 of them used): the idle ones count per creating site, the used ones keep
    their rows."""
    t = Trace(exe="/usr/bin/pool", pid=9)
    t.device(0)
    t.stream(7, LEGACY)
    sites = {0x401000: range(20, 32), 0x402000: range(40, 43)}
    for frame, ids in sites.items():
        for sid in ids:
            c = t.api("cudaStreamCreateWithFlags", sid * 1_000, sid * 1_000 + 500,
                      CALL_STREAM_CREATE, frames=(frame,))
            t.stream(sid, NON_BLOCKING, correlation_id=c)
    t.launch("_Z1av", 100_000, 120_000, 21)
    out = run_report("--no-symbols", t.write(tmp_path / "pool-9.sctrace")).stdout
    table = out[out.index("\nstreams:\n"):].split("\n\n")[0].splitlines()[2:]
    rows = [l for l in table if l.split()[1].isdigit()]
    assert [int(l.split()[1]) for l in rows] == [21]
    idle = [l.strip() for l in table if " idle stream" in l]
    assert idle == ["11 idle streams created at 0x401000", "3 idle streams created at 0x402000",
                    "1 idle stream not shown (created by CUDA with the context)"]


def test_no_idle_line_when_nothing_hidden(run_report, tmp_path):
    t = Trace()
    t.device(0)
    t.stream(13, NON_BLOCKING)
    t.launch("_Z1av", 10_000, 20_000, 13)
    out = run_report(t.write(tmp_path / "a-1.sctrace")).stdout
    assert "idle stream" not in out
    assert "stream" in out and "created at" in out
