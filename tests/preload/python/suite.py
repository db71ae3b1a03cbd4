"""A test suite whose tests make CUDA calls through the fake CUPTI (libsc_fake_calls.so,
named by SC_FAKE_CALLS), run by test_pytest_plugin.py under pytest with the plugin
(tools/python/pytest_streamcheck.py). Not collected on its own: its name does not start
with test_.

Two tests do what the analyzer calls an error, the classic trap (sc_fake_trap: a kernel on
the legacy stream issued while a blocking stream's kernel runs, so it waits for it): one in
its body, one in a fixture's teardown, which the test's range covers too. The trap waits for
its kernels with a cudaDeviceSynchronize, so the barrier delays the run (the analyzer calls
that synchronize an error too). The others launch a kernel on a non-blocking stream, which
serializes with nothing, and sleep past its end. The first test starts CUDA (sc_fake_start,
what cuInit does) inside its own range.
"""
import ctypes
import os
import time

import pytest

lib = ctypes.CDLL(os.environ["SC_FAKE_CALLS"])
lib.sc_fake_trap.argtypes = (ctypes.c_uint64,)
lib.sc_fake_clean.argtypes = (ctypes.c_uint64,)
KERNEL_US = 30000


def trap():
    lib.sc_fake_trap(KERNEL_US)


def clean():
    lib.sc_fake_clean(KERNEL_US)
    time.sleep(1.1 * KERNEL_US / 1e6)   # past the kernel's end, without a CUDA call


@pytest.fixture(autouse=True)
def cuda():
    lib.sc_fake_start()     # once per process; a no-op after that


@pytest.fixture
def trap_at_teardown():
    yield
    trap()


def test_clean_first():
    clean()


def test_trap():
    trap()


@pytest.mark.parametrize("n", [1, 2])
def test_clean_param(n):
    for _ in range(n):
        clean()


def test_trap_in_teardown(trap_at_teardown):
    clean()


def test_clean_last():
    clean()
