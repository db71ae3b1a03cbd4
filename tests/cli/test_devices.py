"""One process, two devices: copy bandwidth per device and direction, and a cross-device
wait, through the report tool (text and JSON). Expected rates are bytes / summed duration,
worked out from the trace's known sizes and times."""
import json

import pytest

from sctrace import (CALL_EVENT_RECORD, CALL_EVENT_WAIT, CALL_LAUNCH, DTOH, HTOD, MEM_DEVICE, MEM_PINNED,
                     NON_BLOCKING, Trace)

MIB = 1 << 20
PTOP = 10                       # CUpti_ActivityMemcpyKind: peer to peer


def copies_trace(path):
    """Device 0: HtoD 64 MiB in 2 ms and DtoH 32 MiB in 1 ms (both 33.554432 GB/s); a
    staged peer copy (a device-to-host half on device 0, host-to-device on 1, device memory
    at both ends), which counts in no direction. Device 1: a direct peer copy of 128 MiB in
    0.4 ms: 335.54432 GB/s."""
    t = Trace(exe="/usr/bin/twodev", pid=11)
    t.device(0)
    t.device(1)
    t.stream(20, NON_BLOCKING)
    t.stream(30, NON_BLOCKING, device=1, context_id=2)
    t.memcpy(0, 2_000_000, 64 * MIB, 20, HTOD, MEM_PINNED, MEM_DEVICE)
    t.memcpy(2_000_000, 3_000_000, 32 * MIB, 20, DTOH, MEM_DEVICE, MEM_PINNED)
    t.memcpy(3_000_000, 3_100_000, 8 * MIB, 20, DTOH, MEM_DEVICE, MEM_DEVICE, correlation_id=9)
    t.memcpy(3_200_000, 3_300_000, 8 * MIB, 30, HTOD, MEM_DEVICE, MEM_DEVICE, device=1,
             context_id=2, correlation_id=9)
    t.memcpy(0, 400_000, 128 * MIB, 30, PTOP, MEM_DEVICE, MEM_DEVICE, device=1, context_id=2)
    return t.write(path)


def test_copy_rates_per_device_json(run_report, tmp_path):
    r = run_report("--json", copies_trace(tmp_path / "twodev-11.sctrace"))
    assert r.returncode in (0, 3), r.stderr
    (proc,) = json.loads(r.stdout)["processes"]
    devs = {d["device"]: d["copies"] for d in proc["devices"]}
    assert devs[0]["htod"] == {"count": 1, "bytes": 64 * MIB, "time_ns": 2_000_000,
                               "bytes_per_s": pytest.approx(33.554432e9)}
    assert devs[0]["dtoh"]["count"] == 1 and devs[0]["dtoh"]["bytes"] == 32 * MIB
    assert devs[0]["dtoh"]["bytes_per_s"] == pytest.approx(33.554432e9)
    assert devs[0]["peer"]["count"] == 0 and devs[0]["peer"]["bytes_per_s"] == 0
    assert devs[1]["htod"]["count"] == 0      # the staged half is no host upload
    assert devs[1]["peer"]["bytes"] == 128 * MIB
    assert devs[1]["peer"]["bytes_per_s"] == pytest.approx(335.54432e9)


def test_copy_rates_per_device_text(run_report, tmp_path):
    r = run_report(copies_trace(tmp_path / "twodev-11.sctrace"))
    assert r.returncode in (0, 3), r.stderr
    assert "copies  HtoD 1 (64.0 MiB, 33.6 GB/s); DtoH 1 (32.0 MiB, 33.6 GB/s)\n" in r.stdout
    assert "copies  peer 1 (128 MiB, 335.5 GB/s)\n" in r.stdout


def test_cross_device_wait_reported(run_report, tmp_path):
    """Device 1's stream 30 waits for an event recorded on device 0's stream 20 after a
    1 ms kernel; its kernel starts 2 us after that one ends: cross-device-wait, waiting
    device 1, recorded device 0."""
    t = Trace(exe="/usr/bin/twodev", pid=12)
    t.device(0)
    t.device(1)
    t.stream(20, NON_BLOCKING)
    t.stream(30, NON_BLOCKING, device=1, context_id=2)
    t.launch("_Z1av", 10_000, 1_010_000, 20, issue=0, stream_handle=0xA0)
    t.api("cudaEventRecord", 5_000, 7_000, CALL_EVENT_RECORD, 0xA0, aux=0xE1)
    t.api("cudaStreamWaitEvent", 7_000, 9_000, CALL_EVENT_WAIT, 0xB0, aux=0xE1, context_id=2)
    corr = t.api("cudaLaunchKernel", 9_000, 12_000, CALL_LAUNCH, 0xB0, context_id=2)
    t.kernel("_Z1bv", 1_012_000, 2_012_000, 30, device=1, context_id=2, correlation_id=corr)
    r = run_report("--json", t.write(tmp_path / "twodev-12.sctrace"))
    assert r.returncode in (0, 3), r.stderr
    (proc,) = json.loads(r.stdout)["processes"]
    (f,) = [f for f in proc["findings"] if f["rule"] == "cross-device-wait"]
    assert f["count"] == 1 and f["cost_ns"] > 900_000
