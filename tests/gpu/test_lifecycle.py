"""streamcheck when the program ends, forks, execs, threads or shares CUPTI in unusual ways.

The standard: bad input gets a clear error and loses nothing; a process that never touches
CUDA gets silence and no file; CUPTI already taken gets one line saying so and keeps what
still works; the preloaded library never changes the program's results.

Each case runs tests/samples/lifecycle (see its header for the modes) with
LD_PRELOAD=libstreamcheck.so directly, a few through the `streamcheck` wrapper, and compares
with the same program run without streamcheck. Traces are read with
`streamcheck-report --json` (what users see) and, for per-call thread ids the JSON does not
carry, with the raw reader in lifecycle_helpers.py.

Needs a GPU and a build folder (STREAMCHECK_BUILD, default ./build) holding the preload
library, the report tool and the lifecycle sample; skips otherwise.
"""
import json
import pathlib
import signal
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import lifecycle_helpers as lh  # noqa: E402

pytestmark = pytest.mark.skipif(not lh.gpu_present(),
                                reason="no NVIDIA GPU here (no /dev/nvidiactl or nvidia-smi -L "
                                       "lists none)")

SC_END_EXIT, SC_END_EXEC, SC_END_SIGNAL = 1, 2, 4


@pytest.fixture(scope="module")
def tools():
    t = lh.Tools(lh.build_dir())
    missing = t.missing("lib", "report", "lifecycle")
    if missing:
        pytest.skip(f"not built (set STREAMCHECK_BUILD to a CUDA build folder): {missing}")
    return t


@pytest.fixture(scope="module")
def baseline(tools, tmp_path_factory):
    """lifecycle ARGS without streamcheck, run once per ARGS."""
    cache = {}
    cwd = tmp_path_factory.mktemp("baseline")

    def get(*args):
        if args not in cache:
            cache[args] = lh.run([tools.lifecycle, *args], lh.clean_env(), cwd=cwd)
        return cache[args]

    return get


@pytest.fixture(scope="module")
def traced(tools, tmp_path_factory):
    """lifecycle ARGS with streamcheck preloaded, run once per ARGS: (result, trace folder)."""
    cache = {}

    def get(*args):
        if args not in cache:
            folder = tmp_path_factory.mktemp("traced")
            out = folder / "out"
            result = lh.run([tools.lifecycle, *args], lh.preload_env(tools, out), cwd=folder)
            cache[args] = (result, out)
        return cache[args]

    return get


def only_process(tools, path):
    rc, doc = lh.report_json(tools, path)
    assert rc == 0 and not doc["errors"], (rc, doc["errors"])
    (process,) = doc["processes"]
    return process


def one_complete_trace(tools, got, out):
    """The run left exactly its own trace, finished: (path, its process in the report)."""
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace"], files
    p = only_process(tools, files[0])
    assert p["status"] == "complete", p["status_detail"]
    return files[0], p


# ---- exit: the baseline ----------------------------------------------------------------

def test_exit_results_unchanged_and_trace_complete(tools, baseline, tmp_path):
    """The program's output and status are the same under streamcheck (the exit summary on,
    as users run it), and the one trace is complete with every kernel and the copy."""
    base = baseline("exit")
    assert base.returncode == 0, base
    out = tmp_path / "out"
    got = lh.run([tools.lifecycle, "exit"], lh.preload_env(tools, out, summary=True),
                 cwd=tmp_path)
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace"], files
    p = only_process(tools, files[0])
    assert p["status"] == "complete" and p["pid"] == got.pid, p["status_detail"]
    assert p["counts"]["kernels"] == lh.LAUNCHES
    assert p["counts"]["copies"] >= 1
    assert p["dropped_records"] == 0
    bad = {"cupti-unavailable", "cupti-taken", "activity-failed", "write-failed"}
    assert not bad & set(lh.note_codes(p)), p["notes"]


# ---- abort and kill: the trace stays .partial and readable -----------------------------

def test_abort_status_and_output_unchanged(baseline, traced):
    base = baseline("abort")
    got, _ = traced("abort")
    assert base.returncode == -signal.SIGABRT, base
    assert got.returncode == -signal.SIGABRT, got
    assert got.stdout == base.stdout


def test_abort_leaves_a_partial_trace_the_report_reads(tools, traced):
    got, out = traced("abort")
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace.partial"], files
    p = only_process(tools, files[0])
    assert p["status"] == "partial", p["status"]
    assert p["status_detail"]


def test_abort_partial_trace_holds_the_kernels(tools, traced):
    """The work was synchronized before abort(), so its kernel records existed: a crashed run
    must still show what it did (DESIGN.md: "a crashed run still leaves a readable prefix").
    streamcheck hands CUPTI's buffers over after a device-wide synchronization and writes out
    its own buffers on SIGABRT."""
    got, out = traced("abort")
    files = lh.trace_files(out)
    assert len(files) == 1, files
    p = only_process(tools, files[0])
    assert p["counts"]["kernels"] >= 1, (p["status"], p["counts"], p["notes"])


def test_kill_leaves_a_partial_trace_the_report_reads(tools, baseline, traced):
    """SIGKILL cannot be caught, so buffered records are lost; what was written must load.
    The library's own thread writes the trace (after the device synchronization just before
    the kill, for one): a kill in the middle of one of its writes cuts the last record, which
    the reader reports as truncated, keeping everything before it."""
    base = baseline("kill")
    got, out = traced("kill")
    assert base.returncode == -signal.SIGKILL, base
    assert got.returncode == -signal.SIGKILL, got
    assert got.stdout == base.stdout
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace.partial"], files
    p = only_process(tools, files[0])
    assert p["status"] in ("partial", "truncated"), p["status"]


def test_kill_under_the_wrapper(tools, baseline, tmp_path):
    """The wrapper passes the signal on as 128+N and still reports the partial trace."""
    if tools.missing("wrapper"):
        pytest.skip(f"{tools.wrapper} not built")
    report = tmp_path / "report.json"
    got = lh.run([tools.wrapper, "-o", tmp_path / "out", "--json", report, "--",
                  tools.lifecycle, "kill"], lh.clean_env(), cwd=tmp_path)
    assert got.returncode == 128 + signal.SIGKILL, got
    assert got.stdout == baseline("kill").stdout
    doc = json.loads(report.read_text())
    (p,) = doc["processes"]
    assert p["status"] in ("partial", "truncated"), p["status"]   # see the test above
    assert p["path"].endswith(".sctrace.partial"), p["path"]


# ---- SIGTERM, _exit, quick_exit: the trace is finished, the status unchanged ------------

SIGNAL_MODES = {"term": signal.SIGTERM, "int": signal.SIGINT, "hup": signal.SIGHUP,
                "term-busy": signal.SIGTERM}


def finished_by_signal(tools, got, out, sig):
    """A complete trace with every launch's kernel, ended by SIG."""
    path, p = one_complete_trace(tools, got, out)
    assert p["counts"]["kernels"] >= lh.LAUNCHES
    end = lh.read_raw(path)["end"]
    assert (end["reason"], end["signal"]) == (SC_END_SIGNAL, sig)
    return p


@pytest.mark.parametrize("mode", sorted(SIGNAL_MODES))
def test_terminating_signal_finishes_the_trace_and_keeps_the_status(tools, baseline, traced,
                                                                     mode):
    """What timeout, torchrun and SLURM (SIGTERM), Ctrl-C (SIGINT) and a closed terminal
    (SIGHUP) send (a PyTorch script stopped by `timeout -s TERM` once left a 16-byte .partial
    file): the trace is finished first, with CUPTI's records, then the signal ends the program
    as it would have. term-busy: a thread is launching kernels when the signal comes."""
    sig = SIGNAL_MODES[mode]
    base = baseline(mode)
    got, out = traced(mode)
    assert base.returncode == got.returncode == -sig, (base, got)
    assert got.stdout == base.stdout
    finished_by_signal(tools, got, out, sig)


def run_until_busy_then_term(argv, env, cwd):
    """lifecycle busy, sent SIGTERM from outside once it says "busy" (as timeout does)."""
    proc = subprocess.Popen([str(a) for a in argv], env=env, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    try:
        while first and first != "busy\n":
            first = proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"lifecycle busy outlived SIGTERM by 60 s:\n{out}\n{err}")
    return lh.Result(argv, proc.returncode, out, err, proc.pid)


def test_sigterm_from_outside_while_kernels_run(tools, tmp_path):
    """The signal comes from another process to whichever thread the kernel picks, while a
    thread launches: finished within the bound, and the program still dies by SIGTERM."""
    out = tmp_path / "out"
    got = run_until_busy_then_term([tools.lifecycle, "busy"], lh.preload_env(tools, out),
                                   tmp_path)
    assert got.returncode == -signal.SIGTERM, got
    finished_by_signal(tools, got, out, signal.SIGTERM)


def test_sigterm_racing_the_programs_own_end_never_hangs_it(tools, tmp_path):
    """SIGTERM from outside at a random moment of a run that ends by itself (lifecycle exit),
    so that some land while its exit finishes the trace: each run ends at once, by the signal
    or by the exit, with one complete trace (none when the signal came before CUDA started).
    An exit that met the signal's finish used to wait for it while it waited for the exit:
    10 s, until the watchdog ended the run with a .partial trace (fake driver: end
    exit-term@*, tests/preload)."""
    import random
    import time
    start = time.monotonic()
    lh.run([tools.lifecycle, "exit"], lh.preload_env(tools, tmp_path / "first"), cwd=tmp_path)
    span = time.monotonic() - start     # how long a run takes here, start to end
    outcomes = {}
    for i in range(30):
        out = tmp_path / f"out{i}"
        proc = subprocess.Popen([str(tools.lifecycle), "exit"], cwd=tmp_path,
                                env=lh.preload_env(tools, out), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(random.uniform(0.5, 1.05) * span)
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"run {i} outlived SIGTERM by 60 s")
        took = time.monotonic() - sent
        assert took < 5, (i, f"{took:.1f} s after SIGTERM", err)
        assert proc.returncode in (0, -signal.SIGTERM), (i, proc.returncode, err)
        files = lh.trace_files(out)
        assert not [f for f in files if f.name.endswith(".partial")], (i, files, err)
        if proc.returncode == 0:
            assert len(files) == 1 and lh.read_raw(files[0])["end"]["reason"] == SC_END_EXIT, i
        outcomes[(proc.returncode, len(files))] = outcomes.get((proc.returncode, len(files)), 0) + 1
    print(outcomes)


@pytest.mark.parametrize("mode,status", [("_exit", 0), ("_Exit", 3), ("quick-exit", 0)])
def test_exits_without_exit_handlers_finish_the_trace(tools, baseline, traced, mode, status):
    base = baseline(mode)
    got, out = traced(mode)
    assert base.returncode == got.returncode == status, (base, got)
    assert got.stdout == base.stdout
    path, p = one_complete_trace(tools, got, out)
    assert p["counts"]["kernels"] == lh.LAUNCHES
    assert lh.read_raw(path)["end"]["reason"] == SC_END_EXIT


# ---- fork ------------------------------------------------------------------------------

def test_fork_child_without_cuda_leaves_the_parent_trace_alone(tools, baseline, traced):
    """One trace, the parent's, complete: the child (which exit()s, so streamcheck's exit
    handler runs in it too) writes no file and does not finish, rename or append to the
    parent's, which shares its open file with the child."""
    base = baseline("fork")
    got, out = traced("fork")
    assert base.returncode == 0, base
    assert got.returncode == 0, got
    assert got.value("child status") == "0"
    assert got.value("checksum") == base.value("checksum")
    child = int(got.value("child pid"))
    assert child != got.pid
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace"], files
    assert got.streamcheck_lines() == [], got.stderr
    p = only_process(tools, files[0])
    assert p["status"] == "complete" and p["pid"] == got.pid
    assert p["counts"]["kernels"] == lh.LAUNCHES
    raw = lh.read_raw(files[0])
    assert raw["status"] == "complete" and raw["end"]["reason"] == SC_END_EXIT
    # what the END record counted is what is in the file: nothing lost, nothing doubled
    assert raw["end"]["api_records"] == len(raw["calls"])


def test_fork_before_cuda_gives_two_complete_traces(tools, baseline, traced):
    """A child that forks before any CUDA and then uses it is a process of its own: its own
    trace, complete, next to the parent's."""
    base = baseline("fork-cuda-child")
    got, out = traced("fork-cuda-child")
    assert base.returncode == 0, base
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    assert got.streamcheck_lines() == [], got.stderr
    files = lh.trace_files(out)
    assert len(files) == 2 and all(f.name.endswith(".sctrace") for f in files), files
    rc, doc = lh.report_json(tools, out)
    assert rc == 0 and not doc["errors"], doc["errors"]
    procs = {p["pid"]: p for p in doc["processes"]}
    assert len(procs) == 2 and got.pid in procs, sorted(procs)
    parent = procs.pop(got.pid)
    (child,) = procs.values()
    assert child["ppid"] == got.pid
    for p in (parent, child):
        assert p["status"] == "complete", (p["pid"], p["status_detail"])
        assert p["counts"]["kernels"] == lh.LAUNCHES, (p["pid"], p["counts"])
        assert pathlib.Path(p["path"]).name == f"lifecycle-{p['pid']}.sctrace"


def test_fork_before_cuda_under_the_wrapper(tools, baseline, tmp_path):
    if tools.missing("wrapper"):
        pytest.skip(f"{tools.wrapper} not built")
    report = tmp_path / "report.json"
    got = lh.run([tools.wrapper, "-o", tmp_path / "out", "--json", report, "--",
                  tools.lifecycle, "fork-cuda-child"], lh.clean_env(), cwd=tmp_path)
    assert got.returncode == 0, got
    assert got.stdout == baseline("fork-cuda-child").stdout
    doc = json.loads(report.read_text())
    assert sorted(p["status"] for p in doc["processes"]) == ["complete", "complete"]
    assert doc["summary"]["kernels"] == 2 * lh.LAUNCHES


# ---- exec ------------------------------------------------------------------------------

EXEC_CASES = {"true": ((), 0), "sh-exit-7": (("/bin/sh", "-c", "exit 7"), 7)}


@pytest.mark.parametrize("case", sorted(EXEC_CASES))
def test_exec_keeps_the_exec_d_programs_status_and_writes_no_trace_for_it(
        tools, baseline, traced, case):
    """exec of a program that uses no CUDA: no crash, its exit status is the process's, it
    writes no trace (it inherits LD_PRELOAD), and the pre-exec trace is readable."""
    prog, status = EXEC_CASES[case]
    base = baseline("exec", *prog)
    got, out = traced("exec", *prog)
    assert base.returncode == status, base
    assert got.returncode == status, got
    assert got.stdout == base.stdout
    assert got.streamcheck_lines() == [], got.stderr
    files = lh.trace_files(out)
    assert len(files) == 1 and files[0].name.startswith(f"lifecycle-{got.pid}."), files
    p = only_process(tools, files[0])
    assert p["pid"] == got.pid


@pytest.mark.parametrize("case", sorted(EXEC_CASES))
def test_exec_finishes_the_pre_exec_trace(tools, traced, case):
    prog, _ = EXEC_CASES[case]
    got, out = traced("exec", *prog)
    path, p = one_complete_trace(tools, got, out)
    assert p["counts"]["kernels"] == lh.LAUNCHES
    assert lh.read_raw(path)["end"]["reason"] == SC_END_EXEC


def test_exec_into_a_cuda_program_runs_unchanged(tools, baseline, traced):
    base = baseline("exec", str(tools.lifecycle), "exit")
    got, out = traced("exec", str(tools.lifecycle), "exit")
    assert base.returncode == 0, base
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    assert lh.trace_files(out), "no trace at all"


def test_exec_into_a_cuda_program_keeps_both_traces(tools, traced):
    """Both images did CUDA work under one pid: both traces must survive (the second takes
    the name <exe>-<pid>.1)."""
    got, out = traced("exec", str(tools.lifecycle), "exit")
    files = lh.trace_files(out)
    assert len(files) == 2, files
    rc, doc = lh.report_json(tools, out)
    assert rc == 0 and not doc["errors"]
    assert [p["counts"]["kernels"] for p in doc["processes"]] == [lh.LAUNCHES] * 2
    assert sorted(p["status"] for p in doc["processes"]) == ["complete", "complete"]


# ---- a process that never touches CUDA -------------------------------------------------

def test_nocuda_is_silent_and_leaves_nothing(tools, baseline, tmp_path):
    """No file, not a word on stderr (exit summary on, as users run it), and CUDA is not even
    loaded: the library never starts CUDA itself."""
    base = baseline("nocuda")
    assert base.returncode == 0, base
    assert base.value("libcuda mapped") == "no" and base.value("libcupti mapped") == "no"
    out = tmp_path / "out"
    got = lh.run([tools.lifecycle, "nocuda"], lh.preload_env(tools, out, summary=True),
                 cwd=tmp_path)
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    assert got.stderr == ""
    assert not out.exists() or not any(out.iterdir()), list(out.iterdir())


def test_nocuda_under_the_wrapper(tools, baseline, tmp_path):
    if tools.missing("wrapper"):
        pytest.skip(f"{tools.wrapper} not built")
    out = tmp_path / "out"
    got = lh.run([tools.wrapper, "-o", out, "--", tools.lifecycle, "nocuda"], lh.clean_env(),
                 cwd=tmp_path)
    assert got.returncode == 0, got
    assert got.stdout == baseline("nocuda").stdout
    assert "no process used CUDA" in got.stderr
    assert not list(out.glob("run-*")), list(out.glob("run-*"))


# ---- threads ---------------------------------------------------------------------------

def test_threads_record_four_threads_on_four_streams(tools, baseline, traced):
    """4 host threads, each launching on its own non-blocking stream: every launch is
    recorded with its own thread's id and joined to its kernel, and each worker's kernels
    are on one stream of its own."""
    base = baseline("threads")
    got, out = traced("threads")
    assert base.returncode == 0, base
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    assert got.streamcheck_lines() == [], got.stderr
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace"], files

    p = only_process(tools, files[0])
    assert p["status"] == "complete"
    assert p["counts"]["kernels"] == lh.LAUNCHES + lh.WORKERS * lh.WORKER_LAUNCHES
    worker_streams = [s for s in p["streams"] if s["kernel_count"] == lh.WORKER_LAUNCHES]
    assert len(worker_streams) == lh.WORKERS, p["streams"]
    assert {s["kind"] for s in worker_streams} == {"non-blocking"}, worker_streams

    raw = lh.read_raw(files[0])
    assert raw["end"]["api_records"] == len(raw["calls"])
    kernel_stream = {k["correlation_id"]: k["stream_id"] for k in raw["kernels"]}
    launches = [c for c in raw["calls"] if c["call_class"] == lh.CALL_LAUNCH]
    assert len(launches) == len(raw["kernels"]), (len(launches), len(raw["kernels"]))
    by_tid = {}
    for c in launches:
        assert c["correlation_id"] in kernel_stream, c
        by_tid.setdefault(c["tid"], []).append(kernel_stream[c["correlation_id"]])
    assert len(by_tid.pop(got.pid, [])) == lh.LAUNCHES  # the main thread's tid is the pid
    assert len(by_tid) == lh.WORKERS, sorted(by_tid)
    streams = set()
    for tid, ids in by_tid.items():
        assert len(ids) == lh.WORKER_LAUNCHES and len(set(ids)) == 1, (tid, ids)
        streams |= set(ids)
    assert len(streams) == lh.WORKERS, streams


def test_exit_while_a_cuda_thread_is_alive(tools, baseline, traced):
    """CUDA started and used only by a worker thread that is still alive when main returns:
    its records are still in its buffer at exit and must land before the end record, or the
    whole trace is unreadable."""
    base = baseline("thread-alive")
    got, out = traced("thread-alive")
    assert base.returncode == 0, base
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    assert got.streamcheck_lines() == [], got.stderr
    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace"], files
    raw = lh.read_raw(files[0])  # fails on a record after the end record
    assert raw["status"] == "complete" and raw["process"]["pid"] == got.pid
    p = only_process(tools, files[0])
    assert p["status"] == "complete", p["status_detail"]
    assert p["counts"]["kernels"] == lh.LAUNCHES
    assert {c["tid"] for c in raw["calls"]} - {got.pid}, "no call from the worker thread"


# ---- CUPTI taken by another profiler ---------------------------------------------------

def test_cupti_taken_is_said_once_and_the_rest_still_works(tools, baseline, tmp_path):
    """libcupti_squatter.so holds CUPTI's one subscription (as nsys, ncu or torch.profiler
    would): streamcheck says so in one line and in a cupti-taken note, the program's output
    and status are unchanged, and kernels are still recorded from activity records, unless
    CUPTI refused those too, which must then be said in an activity-failed note."""
    if tools.missing("squatter"):
        pytest.skip(f"{tools.squatter} not built (tests/gpu/meson.build)")
    base = baseline("exit")
    out = tmp_path / "out"
    # The squatter listed first: the loader then runs streamcheck's constructor (which only
    # sets CUDA_INJECTION64_PATH) before the squatter's cuptiSubscribe. Either way the
    # squatter subscribes before main, so before cuInit calls streamcheck's
    # InitializeInjection.
    got = lh.run([tools.lifecycle, "exit"],
                 lh.preload_env(tools, out, before=[tools.squatter]), cwd=tmp_path)
    if "cupti_squatter: subscribed" not in got.stderr:
        pytest.fail(f"the squatter did not get the CUPTI subscription, so this test proves "
                    f"nothing:\n{got.stderr}")
    assert got.returncode == 0, got
    assert got.stdout == base.stdout
    taken = [l for l in got.streamcheck_lines() if "another profiler" in l]
    assert len(taken) == 1, got.stderr

    files = lh.trace_files(out)
    assert [f.name for f in files] == [f"lifecycle-{got.pid}.sctrace"], files
    p = only_process(tools, files[0])
    assert p["status"] == "complete", p["status_detail"]
    assert "cupti-taken" in lh.note_codes(p), p["notes"]
    refused = [n["text"] for n in p["notes"] if n["code"] == "activity-failed"
               and ("CONCURRENT_KERNEL" in n["text"] or "buffer callbacks" in n["text"])]
    if refused:
        assert any(l for l in got.streamcheck_lines() if "activity" in l), got.stderr
    else:
        assert p["counts"]["kernels"] == lh.LAUNCHES, (p["counts"], p["notes"])
