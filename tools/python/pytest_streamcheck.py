"""pytest_streamcheck: each test in a range named ``test:<node id>``, so that streamcheck's
report attributes findings to tests and its JUnit output (``--junit``) fails exactly the
tests whose CUDA work had a finding at ``--fail-on``'s severity.

Loaded by ``streamcheck -- python -m pytest ...`` (the wrapper puts this file's folder on
PYTHONPATH and names it in PYTEST_PLUGINS), or by hand: ``-p pytest_streamcheck``.

The range covers the test's setup, call and teardown (a fixture's CUDA work is the test's
too). It is opened through two functions libstreamcheck.so exports
(include/streamcheck/range_api.h), found in the process itself: NVTX would need
libnvToolsExt or the nvtx package, which a test environment may not have. Where the library
is not loaded the plugin does nothing; under pytest-xdist each worker runs its own tests
and records its own ranges, and the controller, which runs none, records nothing.
"""
import ctypes

import pytest

PREFIX = "test:"


def _library_functions():
    """streamcheck_range_push/pop when libstreamcheck.so is in this process, else None."""
    try:
        process = ctypes.CDLL(None)
        push = process.streamcheck_range_push
        pop = process.streamcheck_range_pop
    except (OSError, AttributeError):
        return None
    push.argtypes = (ctypes.c_char_p,)
    push.restype = None
    pop.argtypes = ()
    pop.restype = None
    return push, pop


_FUNCTIONS = _library_functions()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _FUNCTIONS is None:
        yield
        return
    push, pop = _FUNCTIONS
    push((PREFIX + item.nodeid).encode("utf-8", "surrogateescape"))
    try:
        yield
    finally:
        pop()
