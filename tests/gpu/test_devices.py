"""The two-device sample (tests/samples/devices.cu) under streamcheck: a cross-device wait
that serializes device 1 behind device 0 is cross-device-wait, priced by the replay at about
what its clean twin (no wait) measures less; the twin has no such finding. Skips on a machine
with fewer than two GPUs (the sample exits 77 there)."""
import re
import subprocess

import pytest

from samples import Run, sample

SPIN_MS = 20                    # devices.cu: each device's spin


@pytest.fixture(scope="module")
def two_devices(build):
    exe = sample(build, "devices")
    probe = subprocess.run([str(exe), "independent"], capture_output=True, text=True,
                           timeout=120)
    if probe.returncode == 77:
        pytest.skip(probe.stderr.strip() or "fewer than two GPUs")
    assert probe.returncode == 0, probe.stdout + probe.stderr
    return exe


def wall_ms(run):
    m = re.search(r": ([0-9.]+) ms$", run.proc.stdout, re.M)
    assert m, run.proc.stdout
    return float(m.group(1))


def test_cross_device_wait_and_its_twin(build, two_devices, tmp_path):
    killer = Run(build, tmp_path / "cross", [two_devices, "cross-wait"])
    twin = Run(build, tmp_path / "independent", [two_devices, "independent"])
    assert killer.proc.returncode == 0, killer.proc.stderr
    assert twin.proc.returncode == 0, twin.proc.stderr
    assert not twin.findings("cross-device-wait")
    (f,) = killer.findings("cross-device-wait")
    assert f["severity"] in ("warning", "error")
    # the devices ran one after the other: about one spin more than the twin
    saved_ms = wall_ms(killer) - wall_ms(twin)
    assert saved_ms == pytest.approx(SPIN_MS, rel=0.3)
    assert f["cost_ns"] / 1e6 == pytest.approx(saved_ms, rel=0.25)
    devices = {d["device"] for d in killer.process()["devices"]}
    assert devices == {0, 1}
