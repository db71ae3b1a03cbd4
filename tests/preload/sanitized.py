"""Whether a build of libstreamcheck.so carries a sanitizer runtime (ASan, TSan). Such a
library runs only in programs built with the same sanitizer, as the fake driver is; a Python
interpreter is not, and crashes loading it: the suites that preload it into Python skip such a
build (the plain build runs them)."""
import subprocess


def sanitized(lib):
    try:
        dynamic = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True,
                                 timeout=30).stdout
    except OSError:
        return False
    return any(name in dynamic for name in ("libtsan", "libasan"))
