"""NVIDIA's stream samples, replayed from the traces recorded on a GPU
(tests/fixtures/nvidia-<program>.sctrace, see RECORDED.md there): the same checks the GPU
suite applies to live runs (tests/gpu/nvidia_truths.py; why each holds:
tests/gpu/NVIDIA-SAMPLES.md). A program whose trace is not recorded yet is skipped."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE", pathlib.Path(__file__).parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build"))
FIXTURES = SOURCE / "tests" / "fixtures"
REPORT = BUILD / "src" / "report" / "streamcheck-report"

sys.path.insert(0, str(SOURCE / "tests" / "gpu"))
import nvidia_truths  # noqa: E402
from nvidia_truths import sctrace  # noqa: E402

_samples = {}


def sample(name):
    """The report and the trace of one recorded program, read once."""
    if name not in _samples:
        path = FIXTURES / f"nvidia-{name}.sctrace"
        if not path.exists():
            pytest.skip(f"{path.name} not recorded yet (tools/record-fixtures on a GPU)")
        proc = subprocess.run([str(REPORT), "--json", str(path)], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        (process,) = json.loads(proc.stdout)["processes"]
        _samples[name] = nvidia_truths.Sample(name, process, sctrace.read(str(path)))
    return _samples[name]


@pytest.mark.parametrize("case", nvidia_truths.CASES, ids=nvidia_truths.case_id)
def test_recorded_nvidia_sample(request, case):
    name, check = case
    gap = nvidia_truths.KNOWN_GAPS.get(check.__name__)
    if gap:
        request.applymarker(pytest.mark.xfail(reason=gap, strict=True))
    check(sample(name))
