"""sctrace.read(): the Python reader the GPU tests use to check what the library wrote,
against sctrace.py's own writer, the C writer, and the C loader's verdicts."""

import json
import pathlib
import shutil
import struct
import subprocess

import pytest

import sctrace
from sctrace import (CALL_LAUNCH, CALL_STREAM_CREATE, END, REC_END, REC_KERNEL, KERNEL, Trace,
                     TraceError, record)
from test_dump import full_trace

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_round_trip_every_kind(tmp_path):
    t = full_trace()
    doc = sctrace.read(t.write(tmp_path / "app-482.sctrace"))
    assert doc["status"] == "complete" and doc["status_detail"] == ""
    assert doc["version"] == (sctrace.VERSION_MAJOR, sctrace.VERSION_MINOR)
    assert doc["process"]["pid"] == 482 and doc["process"]["exe"] == "/usr/bin/app"
    assert doc["process"]["attach"] == 1 and doc["process"]["offset"] == 16
    (mod,) = doc["modules"]
    assert (mod["lo"], mod["hi"], mod["build_id"], mod["path"]) == \
        (0x400000, 0x500000, "abcd", "/usr/bin/app")
    (dev,) = doc["devices"]
    assert (dev["name"], dev["sm_count"], dev["cc_major"], dev["global_memory"]) == \
        ("NVIDIA H200", 132, 9, 141 << 30)
    assert [(s["stream_id"], s["flag"], s["priority"]) for s in doc["streams"]] == \
        [(7, sctrace.LEGACY, 0), (16, sctrace.BLOCKING, -1)]
    create, launch = doc["calls"]
    assert create["call_class"] == CALL_STREAM_CREATE and create["name"] == "cudaStreamCreate"
    assert launch["call_class"] == CALL_LAUNCH and launch["name"] == "cudaLaunchKernel"
    assert launch["domain"] == sctrace.DOMAIN_RUNTIME and launch["n_frames"] == 2
    assert launch["frames"] == [0x401234, 0x7f0000001000]
    assert launch["stream"] == 0x5555aaaa0000 and launch["tid"] == 100
    (kernel,) = doc["kernels"]
    assert kernel["name"] == "_Z4spinv" and kernel["correlation_id"] == launch["correlation_id"]
    assert (kernel["grid_x"], kernel["block_x"], kernel["stream_id"]) == (8, 128, 16)
    assert kernel["end_ns"] - kernel["start_ns"] == 100_000
    htod, dtoh = doc["copies"]
    assert (htod["copy_kind"], htod["bytes"], htod["src_kind"], htod["flags"]) == \
        (sctrace.HTOD, 1 << 20, sctrace.MEM_PAGEABLE, 1)
    assert (dtoh["copy_kind"], dtoh["flags"]) == (sctrace.DTOH, 0)
    (ms,) = doc["memsets"]
    assert (ms["bytes"], ms["value"], ms["stream_id"]) == (512, 7, 16)
    (sync,) = doc["syncs"]
    assert (sync["type"], sync["stream_id"]) == (sctrace.SYNC_STREAM, 16)
    (rng,) = doc["ranges"]
    assert (rng["name"], rng["domain"]) == ("step", "train")
    assert doc["notes"] == [{"code": sctrace.NOTE_CUPTI_TAKEN, "text": "another profiler holds "
                             "CUPTI", "offset": doc["notes"][0]["offset"]}]
    assert doc["env"] == ["CUDA_LAUNCH_BLOCKING=1"]
    (ovh,) = doc["overheads"]
    assert (ovh["kind"], ovh["correlation_id"], ovh["object_id1"]) == \
        (sctrace.OVERHEAD_LAZY_FUNCTION_LOADING, 2, 100)
    assert doc["losses"] == {sctrace.LOSS_NVTX_DEPTH: 3}
    (um,) = doc["unified"]
    assert um["kind"] == sctrace.UNIFIED_HTOD and um["value"] == 65536
    assert um["flags"] == sctrace.CAUSE_COHERENCE and um["end_ns"] - um["start_ns"] == 40_000
    assert doc["unknown"] == 1
    assert doc["strings"] == {1: "_Z4spinv", 2: "train", 3: "step"}
    assert doc["end"]["end_ns"] == 1_000_400_000 and doc["end"]["reason"] == sctrace.END_EXIT
    # File order, not time order.
    offsets = [c["offset"] for c in doc["calls"]]
    assert offsets == sorted(offsets)


def test_agrees_with_the_report_tool(run_report, tmp_path):
    path = full_trace().write(tmp_path / "app-482.sctrace")
    doc = sctrace.read(path)
    counts = json.loads(run_report("--json", path).stdout)["processes"][0]["counts"]
    assert counts == {"kernels": len(doc["kernels"]), "copies": len(doc["copies"]),
                      "memsets": len(doc["memsets"]), "api_calls": len(doc["calls"])}


def test_partial_truncated_and_newer_minor(tmp_path):
    t = full_trace()
    doc = sctrace.read(t.write(tmp_path / "a.sctrace.partial", partial=True))
    assert doc["status"] == "partial" and doc["end"] is None
    assert doc["status_detail"].startswith("no end record")

    data = t.to_bytes()
    (tmp_path / "b.sctrace").write_bytes(data[:-8])     # the END record (48 bytes) is cut
    doc = sctrace.read(tmp_path / "b.sctrace")
    assert doc["status"] == "truncated" and doc["end"] is None
    assert f"cut short at byte {len(data) - 48} of {len(data) - 8}" in doc["status_detail"]
    assert len(doc["kernels"]) == 1

    # A newer minor version appends fields to a kind: the reader takes the part it knows.
    t = Trace(version=(1, 3))
    longer = KERNEL.pack(10, 20, 0, 0, 1, 7, 5, 1, 1, 1, 32, 1, 1, 0, 0, 0, t.string("k"), 0, 0)
    t.raw(REC_KERNEL, longer + b"\xff" * 16)
    doc = sctrace.read(t.write(tmp_path / "c.sctrace"))
    assert doc["version"] == (1, 3)
    (k,) = doc["kernels"]
    assert (k["start_ns"], k["end_ns"], k["stream_id"], k["name"]) == (10, 20, 7, "k")


@pytest.mark.parametrize("damage,message", [
    (lambda d, off: d[:off + 4] + struct.pack("<I", 12) + d[off + 8:], "bad record size 12"),
    (lambda d, off: d[:off] + struct.pack("<HHI", REC_KERNEL, 0, 16) + d[off + 8:off + 16]
     + d[off + 16:], "record shorter than its kind"),
    (lambda d, off: d + record(REC_END, END.pack(0, 0, 0, 0, 1, 0)), "record after the end"),
    (lambda d, off: d[:16] + struct.pack("<HHI", sctrace.REC_NOTE, 0, 24) + b"\0" * 8
     + b"abcdefgh" + d[16:], "unterminated text"),
])
def test_corrupt_files_raise(tmp_path, run_report, damage, message):
    data = full_trace().to_bytes()
    off = 16 + 56 + 72          # the third record (DEVICE)
    path = tmp_path / "bad.sctrace"
    path.write_bytes(damage(data, off))
    with pytest.raises(TraceError, match=message) as e:
        sctrace.read(path)
    assert str(path) in str(e.value)
    assert run_report(path).returncode == 1      # the C loader refuses the same files


def test_not_a_trace_and_other_major(tmp_path):
    (tmp_path / "x").write_bytes(b"hello")
    with pytest.raises(TraceError, match="not a streamcheck trace"):
        sctrace.read(tmp_path / "x")
    newer = sctrace.VERSION_MAJOR + 1
    with pytest.raises(TraceError, match=f"trace format {newer}.0"):
        sctrace.read(Trace(version=(newer, 0)).write(tmp_path / "y"))


def test_reads_what_the_c_writer_wrote(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    exe = tmp_path / "c_writer"
    subprocess.run([cc, "-std=gnu11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                    "-I", ROOT / "include", "-I", ROOT / "src", "-o", exe,
                    pathlib.Path(__file__).parent / "c_writer.c", ROOT / "src/trace/writer.c",
                    "-pthread"], check=True)
    subprocess.run([exe, tmp_path / "out"], check=True)
    doc = sctrace.read(tmp_path / "out" / "cw-7.sctrace")
    assert doc["status"] == "complete"
    assert doc["process"]["pid"] == 7 and doc["process"]["exe"] == "/opt/app"
    assert doc["process"]["attach"] == 2
    (call,) = doc["calls"]
    assert (call["name"], call["call_class"], call["domain"], call["tid"], call["stream"]) == \
        ("cudaLaunchKernel", CALL_LAUNCH, sctrace.DOMAIN_RUNTIME, 77, 0x5000)
    assert call["frames"] == [0x401000, 0x401234, 0x7f0000001000]
    (k,) = doc["kernels"]
    assert (k["name"], k["correlation_id"], k["grid_x"], k["block_x"],
            k["registers_per_thread"]) == ("_Z4spinv", 1, 8, 128, 20)
    (s,) = doc["streams"]
    assert (s["device"], s["stream_id"], s["priority"]) == (0xFFFFFFFF, 7, -2)
    assert doc["notes"][0]["text"] == "hello"
    assert doc["env"] == ["CUDA_MODULE_LOADING=LAZY"]
    assert (doc["end"]["api_records"], doc["end"]["activity_records"]) == (1, 2)
    assert [c["correlation_id"] for c in doc["calls"] if c["call_class"] == 1] == \
        [k["correlation_id"] for k in doc["kernels"]]
