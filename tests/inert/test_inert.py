"""libstreamcheck.so loaded into programs that never touch CUDA must change nothing.

Each program runs twice in the same empty working folder: once plainly, once with the library
(LD_PRELOAD, CUDA_INJECTION64_PATH alone, LD_PRELOAD with STREAMCHECK_DISABLE=1, LD_PRELOAD
with the default output folder). Its stdout, stderr and exit status must be byte-identical,
and neither $STREAMCHECK_OUT nor the default ./streamcheck-out may appear. The programs fork
and exec (the library wraps exec*), read stdin, write stderr, write binary data and a lot of
it, and die of a signal.

Not compared, on purpose: the environment that children see. Under LD_PRELOAD the library
names itself in CUDA_INJECTION64_PATH (init.c), which is how the CUDA driver finds it.

Also checked: the library has no DT_NEEDED entry on CUDA libraries (it must load where CUDA
is absent) nor on what the report tool alone may use, and exports only its entry points.

No GPU and no CUDA driver are needed; the library must exist, which takes the CUDA toolkit
(CUPTI headers) at build time: without it every test here skips with that reason.
"""

import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("STREAMCHECK_SOURCE",
                                     pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("STREAMCHECK_BUILD", SOURCE / "build")).resolve()
LIB = BUILD / "src" / "preload" / "libstreamcheck.so"

# Defined dynamic symbols the library may export: the CUDA injection entry point (required),
# NVTX's (it hands NVTX to CUPTI), and the exec* family and _exit/_Exit it wraps to finish
# the trace before the process image is replaced or ends without exit handlers.
ENTRY_POINT = "InitializeInjection"
NVTX_ENTRY_POINT = "InitializeInjectionNvtx2"
EXEC_WRAPPERS = {"execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe",
                 "fexecve",
                 "_exit", "_Exit",    # exits that skip the exit handlers (exits.c)
                 "__cxa_atexit"}      # exit handlers that wait for a signal's finish (exits.c)
# Ranges without NVTX, for programs and the pytest plugin: what the public header declares.
RANGE_API = set(re.findall(r"^void (streamcheck_\w+)\(",
                           (SOURCE / "include/streamcheck/range_api.h").read_text(), re.M))
# DT_NEEDED entries that would make the library fail to load, or pull CUDA in, where
# CUDA is absent; and the report tool's own libraries (the library only records).
FORBIDDEN_NEEDED = ("libcuda.", "libcudart", "libcupti", "libnvidia", "libnvperf",
                    "libelf", "libdw", "libjansson", "libstdc++")


@pytest.fixture(scope="session")
def lib():
    if not LIB.exists():
        pytest.skip(f"{LIB} was not built: the build found no CUDA toolkit (CUPTI headers)")
    return LIB


def tool(name):
    path = shutil.which(name)
    if not path:
        pytest.skip(f"{name} not found on PATH")
    return path


# ---------------------------------------------------------------- inputs the programs use

@pytest.fixture(scope="session")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("inert-data")
    rnd = random.Random(20240229)
    lines = [f"{rnd.randrange(10**6):07d} {rnd.choice(['alpha', 'beta', 'gamma', 'delta'])} "
             f"{rnd.random():.6f}" for _ in range(20000)]
    (d / "lines.txt").write_text("\n".join(lines) + "\n")
    (d / "binary.bin").write_bytes(bytes(range(256)) * 64 + rnd.randbytes(50000))
    (d / "sub").mkdir()
    for i in range(5):
        (d / "sub" / f"file{i}.txt").write_text(f"file {i}\n" * (i + 1))
    return d


PY = sys.executable


def cases(data):
    """name -> (argv, stdin bytes or None). Only programs whose output does not depend on
    the time, the process id or the environment they were given."""
    lines, binary, sub = data / "lines.txt", data / "binary.bin", data / "sub"
    return {
        "ls-la": (["ls", "-la", "--time-style=+%Y", str(sub), "/usr/bin/env"], None),
        "ls-missing": (["ls", "-la", str(data / "no-such-file")], None),
        "sort": (["sort", "-k2,2", "-k1,1n", str(lines)], None),
        "sort-stdin": (["sort", "-r"], lines.read_bytes()),
        "sh-exit3": (["sh", "-c", "echo hi; exit 3"], None),
        "sh-stderr": (["sh", "-c", "echo to-out; echo to-err >&2; echo more-out; exit 1"],
                      None),
        "sh-pipeline": (["sh", "-c", f"cat {lines} | sort | uniq -c | sort -rn | head -5; "
                                     f"wc -l < {lines}"], None),
        "sh-exec": (["sh", "-c", f"exec cat {sub}/file3.txt"], None),
        "sh-signal": (["sh", "-c", "echo before; kill -TERM $$; echo after"], None),
        "env-exec": (["env", "A_VAR=1", "sh", "-c", "echo $A_VAR; exec printf '%s\\n' x y"],
                     None),
        "python-print": ([PY, "-c", "import sys; print('hello from python');"
                                    "print(sum(range(10**5))); sys.stderr.write('err\\n');"
                                    "sys.exit(4)"], None),
        "python-subprocess": ([PY, "-c", "import subprocess, sys; "
                                         "r = subprocess.run(['sort', '-n'], input=b'3\\n1\\n2\\n',"
                                         " capture_output=True); "
                                         "sys.stdout.write(r.stdout.decode()); "
                                         "sys.exit(r.returncode)"], None),
        "cat-binary": (["cat", str(binary)], None),
        "cat-stdin-binary": (["cat"], binary.read_bytes()),
        "tr-stdin": (["tr", "a-z", "A-Z"], lines.read_bytes()[:100000]),
        "sha256-stdin": (["sha256sum"], binary.read_bytes()),
        "seq-large": (["seq", "1", "300000"], None),
        "false": (["false"], None),
    }


CASE_NAMES = ["ls-la", "ls-missing", "sort", "sort-stdin", "sh-exit3", "sh-stderr",
              "sh-pipeline", "sh-exec", "sh-signal", "env-exec", "python-print",
              "python-subprocess", "cat-binary", "cat-stdin-binary", "tr-stdin",
              "sha256-stdin", "seq-large", "false"]


def clean_env():
    """The environment of the plain run: nothing of streamcheck or of CUDA injection."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("STREAMCHECK_") and k not in ("LD_PRELOAD", "NVTX_INJECTION64_PATH",
                                                               "CUDA_INJECTION64_PATH")}
    env["LC_ALL"] = "C"
    return env


def run(argv, stdin, env, cwd):
    return subprocess.run(argv, input=stdin if stdin is not None else b"",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                          timeout=120)


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# How the library is attached: (env additions; whether STREAMCHECK_OUT is set).
MODES = {
    "preload": ({"LD_PRELOAD": "{lib}"}, True),
    "preload-default-out": ({"LD_PRELOAD": "{lib}"}, False),
    "injection": ({"CUDA_INJECTION64_PATH": "{lib}"}, True),
    "preload-disabled": ({"LD_PRELOAD": "{lib}", "STREAMCHECK_DISABLE": "1"}, True),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("case", CASE_NAMES)
def test_program_is_unchanged(lib, data, tmp_path, case, mode):
    argv, stdin = cases(data)[case]
    tool(argv[0])
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    out = tmp_path / "out"

    base = run(argv, stdin, clean_env(), cwd)
    assert listing(cwd) == [], "the plain run itself wrote into its working folder"

    additions, set_out = MODES[mode]
    env = clean_env()
    env.update({k: v.format(lib=lib) for k, v in additions.items()})
    if set_out:
        env["STREAMCHECK_OUT"] = str(out)
    got = run(argv, stdin, env, cwd)

    assert got.returncode == base.returncode, got.stderr.decode(errors="replace")
    assert got.stderr == base.stderr
    assert got.stdout == base.stdout
    assert not out.exists(), f"{out} was created: {listing(out)}"
    assert listing(cwd) == [], "the library wrote into the working folder " \
                               "(./streamcheck-out is the default output folder)"


def test_library_is_really_loaded(lib, tmp_path):
    """The comparisons above would pass trivially if the library never loaded: under
    LD_PRELOAD it is mapped and its constructor names it in CUDA_INJECTION64_PATH; with
    STREAMCHECK_DISABLE=1 it is mapped but does nothing."""
    script = "grep -c libstreamcheck /proc/self/maps; echo \"inj=$CUDA_INJECTION64_PATH\""
    env = dict(clean_env(), LD_PRELOAD=str(lib), STREAMCHECK_OUT=str(tmp_path / "out"))
    r = run(["sh", "-c", script], None, env, tmp_path)
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    maps, inj = r.stdout.decode().splitlines()
    assert int(maps) > 0
    assert inj == f"inj={lib}"
    env["STREAMCHECK_DISABLE"] = "1"
    r = run(["sh", "-c", script], None, env, tmp_path)
    maps, inj = r.stdout.decode().splitlines()
    assert int(maps) > 0 and inj == "inj="


def test_cases_cover_what_they_claim(lib, data, tmp_path):
    """The programs above really do exit non-zero, write stderr and die of a signal, so the
    comparisons test something (skipped with the rest when there is no library)."""
    env = clean_env()
    c = cases(data)
    assert run(*c["sh-exit3"], env, tmp_path).returncode == 3
    assert run(*c["sh-stderr"], env, tmp_path).stderr == b"to-err\n"
    assert run(*c["sh-signal"], env, tmp_path).returncode == -15
    assert run(*c["python-print"], env, tmp_path).returncode == 4
    assert len(run(*c["cat-stdin-binary"], env, tmp_path).stdout) == 256 * 64 + 50000


# ---------------------------------------------------------------- the library file itself

def test_no_cuda_in_dt_needed(lib):
    r = subprocess.run([tool("readelf"), "-d", "-W", str(lib)], capture_output=True,
                       text=True, check=True)
    needed = [line.split("[", 1)[1].rstrip("]").strip()
              for line in r.stdout.splitlines() if "(NEEDED)" in line]
    assert needed, f"readelf found no NEEDED entry at all:\n{r.stdout}"
    bad = [n for n in needed if n.startswith(FORBIDDEN_NEEDED)]
    assert not bad, f"libstreamcheck.so must not need {bad} (it needs {needed})"


def test_exports_only_entry_points(lib):
    r = subprocess.run([tool("nm"), "-D", "--defined-only", str(lib)], capture_output=True,
                       text=True, check=True)
    symbols = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            symbols[parts[-1].split("@")[0]] = parts[-2]
    # 'A' entries are symbol version names, not symbols.
    exported = {name: kind for name, kind in symbols.items() if kind != "A"}
    assert exported.get(ENTRY_POINT) == "T", f"{ENTRY_POINT} is not exported:\n{r.stdout}"
    assert RANGE_API and all(exported.get(name) == "T" for name in RANGE_API), RANGE_API
    extra = sorted(set(exported) - {ENTRY_POINT, NVTX_ENTRY_POINT} - EXEC_WRAPPERS - RANGE_API)
    assert not extra, f"libstreamcheck.so exports more than its entry points: {extra}"
