"""What a kernel costs in the trace on the GPU: at most 64 bytes (its compact record and its
launch call, with their declarations), for launches of one shape and for launches that go
round 400 kernel shapes (tools/bench/launch_bench launch-shapes: more shapes than 3/4 of 256,
where a buffer's table once forgot them all and every kernel declared its shape again, 136
bytes a kernel). Measured by tools/bench/trace-bytes, which reads the trace through
`streamcheck-report --dump` (a record's size is the distance to the next)."""
import re
import subprocess
import sys

import pytest

from conftest import SOURCE
from samples import Run

LAUNCHES = 20000
PER_KERNEL = re.compile(r"bytes per kernel \(kernel \+ launch call \+ declarations\): ([0-9.]+)")
SHAPES = re.compile(r"KERNEL_SHAPE\s+(\d+) records")
KERNELS = re.compile(r": \d+ bytes, (\d+) kernels")


def bench(build):
    path = build / "tools" / "bench" / "launch_bench"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return path


@pytest.mark.parametrize("mode,shapes", [("launch", 1), ("launch-shapes", 400)])
def test_a_kernel_takes_at_most_64_bytes(build, tmp_path, mode, shapes):
    run = Run(build, tmp_path, [bench(build), mode, str(LAUNCHES)])
    assert run.proc.returncode == 0, run.proc.stderr
    (trace,) = run.traces
    out = subprocess.run([sys.executable, str(SOURCE / "tools" / "bench" / "trace-bytes"),
                          "--report", str(build / "src" / "report" / "streamcheck-report"),
                          str(trace)], capture_output=True, text=True, check=True).stdout
    kernels = int(KERNELS.search(out).group(1))
    assert kernels >= LAUNCHES, out
    per_kernel = float(PER_KERNEL.search(out).group(1))
    assert per_kernel <= 64, out
    declared = int(SHAPES.search(out).group(1)) if SHAPES.search(out) else 0
    # each shape declared once a buffer the kernels fill (a buffer holds thousands of them)
    assert shapes <= declared <= shapes * (kernels // 2000 + 1), out
