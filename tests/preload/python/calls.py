"""A Python program making CUDA calls through the fake CUPTI (libsc_fake_calls.so), for
test_python.py. Each call's line carries a "# MARK name" comment: the test finds the lines
by their marks, so no line number is written down twice.

    python3 calls.py LIBSC_FAKE_CALLS

PyDLL calls hold the GIL, as a C extension's calls do; CDLL calls release it, as PyTorch
does around its CUDA work. Prints the correlation id of each marked call: "MARK id".
"""
import ctypes
import sys
import threading

with_gil = ctypes.PyDLL(sys.argv[1])
without_gil = ctypes.CDLL(sys.argv[1])
for lib in (with_gil, without_gil):
    lib.sc_fake_launch.restype = ctypes.c_uint32
    lib.sc_fake_launch.argtypes = (ctypes.c_int, ctypes.c_uint64)
    lib.sc_fake_device_sync.restype = ctypes.c_uint32
    lib.sc_fake_launch_from_native_thread.restype = ctypes.c_uint32
with_gil.sc_fake_start()
seen = {}


def note(mark, correlation):
    seen.setdefault(mark, []).append(correlation)


class Model:
    def forward(self, i):
        note("gil", with_gil.sc_fake_launch(0, 7))  # MARK gil
        note("nogil", without_gil.sc_fake_launch(1, 7))  # MARK nogil


def step(model, i):
    model.forward(i)  # MARK step
    # the same kernel on the same stream from two lines: two sites, never one
    if i % 2 == 0:
        note("even", without_gil.sc_fake_launch(0, 5))  # MARK even
    else:
        note("odd", without_gil.sc_fake_launch(0, 5))  # MARK odd


def deepest():
    note("deep", without_gil.sc_fake_launch(2, 11))  # MARK deep


def deeper():
    deepest()


def deep():
    deeper()


def helper():
    deep()


model = Model()
for i in range(60):
    step(model, i)  # MARK loop
# one kernel on one stream through the same four innermost frames (the sample key's Python
# part) from two callers further out: 8 calls from one, then 20 from the other
for i in range(8):
    helper()  # MARK caller_a
for i in range(20):
    helper()  # MARK caller_b
note("sync", without_gil.sc_fake_device_sync())  # MARK sync
t = threading.Thread(target=lambda: note("thread", without_gil.sc_fake_launch(1, 9)))  # MARK thread
t.start()
t.join()
note("native", with_gil.sc_fake_launch_from_native_thread())
for mark, ids in seen.items():
    print(mark, " ".join(map(str, ids)))
