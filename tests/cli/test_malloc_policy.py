"""The report tool runs itself again with glibc's huge-page tunable (src/report/malloc_policy.c):
what it adds to GLIBC_TUNABLES, what it keeps of the user's, and that a user who names the
tunable is left alone. The process is held while it reads its expectations from a FIFO, so its
environment can be read from /proc once it has run itself again."""

import os
import subprocess
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="no /proc")


def held_environment(report_bin, tmp_path, tunables):
    """The environment block of the report tool (GLIBC_TUNABLES as given, None: unset) and the
    program it runs, read while it waits on its expectations' FIFO; then the expectation is
    written and the run ends. The block is searched, not parsed: the loader of some glibc
    versions writes a NUL after each tunable it parses into the block itself."""
    fifo = tmp_path / "expect.fifo"
    os.mkfifo(fifo)
    env = dict(os.environ)
    env.pop("GLIBC_TUNABLES", None)
    if tunables is not None:
        env["GLIBC_TUNABLES"] = tunables
    proc = subprocess.Popen([str(report_bin), "--check-expectations", "--expect-file", str(fifo)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    opened, release = threading.Event(), threading.Event()

    def writer():
        with open(fifo, "w") as f:   # returns once the tool has opened it for reading
            opened.set()
            release.wait(30)
            f.write("no legacy-stream\n")

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    # The writer's open returns only when the reader's open does, and the line is written
    # only once the environment is read: the process is alive then, and past its exec.
    try:
        assert opened.wait(30), "the report tool never opened its expectations"
        raw = Path(f"/proc/{proc.pid}/environ").read_bytes()
        exe = os.readlink(f"/proc/{proc.pid}/exe")
    finally:
        release.set()
        thread.join(30)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "1 expectation parsed" in out
    return raw, exe


def test_huge_pages_are_asked_for(report_bin, tmp_path):
    raw, exe = held_environment(report_bin, tmp_path, None)
    assert b"\0GLIBC_TUNABLES=glibc.malloc.hugetlb=1\0" in b"\0" + raw
    assert Path(exe).resolve() == Path(report_bin).resolve()


def test_the_users_tunables_are_kept(report_bin, tmp_path):
    raw, _ = held_environment(report_bin, tmp_path, "glibc.malloc.tcache_count=7")
    assert b"GLIBC_TUNABLES=glibc.malloc.tcache_count=7" in raw
    assert b"glibc.malloc.hugetlb=1" in raw


def test_a_user_who_names_the_tunable_is_left_alone(report_bin, tmp_path):
    raw, _ = held_environment(report_bin, tmp_path, "glibc.malloc.hugetlb=0")
    assert b"GLIBC_TUNABLES=glibc.malloc.hugetlb=0" in raw
    assert b"hugetlb=1" not in raw
