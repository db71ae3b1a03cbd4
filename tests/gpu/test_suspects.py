"""The suspects (tests/samples/suspects.cu) under streamcheck on a real GPU: concurrency
killers that have no rule yet, each with a clean twin doing the same GPU work.

Every mode still verifies its results under streamcheck and prints the same results as
without it (the library must not change what a program computes). Every twin is free of
errors and of its killer's rule. Each killer should be reported by the rule named below;
where that rule, or the capture it needs, does not exist yet, the assertion is an expected
failure whose reason names what is missing (xfail, not strict: once it is added the test
passes, XPASS, and the mark can go). Where the physics is not certain in advance (did the
call wait? did the kernel start late?), the test reads what the program measured itself and
skips when the killer did not happen in that run.
"""
import os
import re
import subprocess

import pytest

from samples import Run, assert_clean, printed, sample, shown, site_apis
import sctrace  # noqa: E402  (on the path once samples is imported)
from suspects_expect import (HOST_FUNC_RULE, MANAGED_RULE, UNIFIED_ON,
                             PIN_RULE, PRIORITY_RULE, TWIN_GAPS, TWINS)

LAZY = {"CUDA_MODULE_LOADING": "LAZY"}
EAGER = {"CUDA_MODULE_LOADING": "EAGER"}

# case: (mode, environment); every way the suspects run in these tests
CASES = {
    "lazy-once": ("lazy-once", LAZY),
    "lazy-once-eager": ("lazy-once", EAGER),
    "cross-thread-free": ("cross-thread-free", {}),
    "cross-thread-async": ("cross-thread-async", {}),
    "cross-thread-before": ("cross-thread-before", {}),
    "host-func": ("host-func", {}),
    "stream-callback": ("stream-callback", {}),
    "host-after-event": ("host-after-event", {}),
    "priority": ("priority", {}),
    "equal-priority": ("equal-priority", {}),
    "managed-faults": ("managed-faults", UNIFIED_ON),
    "managed-prefetch": ("managed-prefetch", UNIFIED_ON),
    "managed-faults-untraced": ("managed-faults", {}),
    "peer-copy": ("peer-copy", {}),
    "peer-access": ("peer-access", {}),
    "register-per-step": ("register-per-step", {}),
    "register-once": ("register-once", {}),
    "setlimit-mid-run": ("setlimit-mid-run", {}),
    "cacheconfig-mid-run": ("cacheconfig-mid-run", {}),
    "set-at-start": ("set-at-start", {}),
}


def plain_env(env):
    """The test run's environment and the case's, nothing attached: the same CUDA settings as
    the run under the wrapper (which takes os.environ plus the case's), without a tracer."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("LD_PRELOAD", "CUDA_INJECTION64_PATH")}
    return {**clean, **env}


def skip_without_two_devices(proc):
    """The peer modes exit 2 where there are not two devices that reach each other."""
    if proc.returncode == 2 and "needs two devices" in proc.stderr:
        pytest.skip(proc.stderr.strip())


@pytest.fixture(scope="session")
def suspects(build, tmp_path_factory):
    """Each case runs once under the wrapper; the tests read its report."""
    cache = {}

    def get(case):
        if case not in cache:
            mode, env = CASES[case]
            folder = tmp_path_factory.mktemp(f"suspects-{case}")
            run = Run(build, folder, [sample(build, "suspects"), mode], env=env)
            skip_without_two_devices(run.proc)
            assert run.proc.returncode == 0, run.proc.stdout + run.proc.stderr
            assert run.report, run.proc.stderr
            assert f"mode={mode} " in run.proc.stdout, run.proc.stdout
            cache[case] = run
        return cache[case]

    return get


@pytest.fixture(scope="session")
def plain(build):
    """Each case runs once with nothing attached: its stdout."""
    cache = {}

    def get(case):
        if case not in cache:
            mode, env = CASES[case]
            p = subprocess.run([str(sample(build, "suspects")), mode], capture_output=True,
                               text=True, timeout=300, env=plain_env(env))
            skip_without_two_devices(p)
            assert p.returncode == 0, p.stdout + p.stderr
            cache[case] = p.stdout
        return cache[case]

    return get


def results(stdout):
    """The lines that must not change under streamcheck: the mode line without its time, and
    the checksum of what the GPU computed."""
    return [re.sub(r" ms=\S+", "", line) for line in stdout.splitlines()
            if line.startswith(("mode=", "result:"))]


def waited(run, call):
    """waited=yes/no from the program's own line about `call` (`# CALL(SIZE): ... waited=X` or
    `# CALL: ... waited=X`)."""
    m = re.search(rf"^# {re.escape(call)}[(:].*\bwaited=(\w+)", run.proc.stdout, re.M)
    assert m, f"no waited= line for {call}:\n{run.proc.stdout}"
    return m.group(1)


def costly(findings):
    return findings and sum(f["cost_ns"] for f in findings) > 0


# --- every mode ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_results_are_the_same_with_and_without_streamcheck(suspects, plain, case):
    run = suspects(case)
    assert "# verified" in run.proc.stdout, run.proc.stdout
    want = results(plain(case))
    assert len(want) == 2, want  # the mode line and the checksum
    assert results(run.proc.stdout) == want


@pytest.mark.parametrize("case", sorted(TWINS))
def test_twin_is_clean(request, suspects, case):
    if case in TWIN_GAPS:     # a live run may or may not show the gap: not strict
        request.applymarker(pytest.mark.xfail(reason=TWIN_GAPS[case], strict=False))
    assert_clean(suspects(case), *TWINS[case])


# --- lazy-once: lazy-loading from direct evidence ----------------------------------------------

def test_lazy_once_eager_twin_runs_beside_the_spin(suspects):
    assert printed(suspects("lazy-once-eager"), "started_during") == "yes"


def test_lazy_once_first_and_only_launch_is_reported(suspects):
    run = suspects("lazy-once")
    if printed(run, "started_during") == "yes":
        pytest.skip("once_kernel ran beside the spin in this run: nothing held it back")
    found = run.findings("lazy-loading")
    assert costly(found), run.findings()
    functions = [((s.get("call") or {}).get("call_site") or {}).get("function") or ""
                 for f in found for s in f["sites"]]
    assert "once" in shown(found) + " ".join(functions), found


# --- cross-thread-free: implicit-sync across threads -------------------------------------------

def test_cross_thread_free_is_reported_with_the_threads_it_waited_for(suspects):
    run = suspects("cross-thread-free")
    if waited(run, "cudaFree") != "yes":
        pytest.skip("cudaFree waited for nothing in this run")
    found = run.findings("implicit-sync")
    assert costly(found), run.findings()
    assert any("cudaFree" in a for a in site_apis(found)), found
    # the wait was for another thread's stream: the report says which thread and stream
    text = shown(found).lower()
    assert "thread" in text and "stream" in text, found


# --- host-func / stream-callback ----------------------------------------------------------------

@pytest.mark.parametrize("case,api", [("host-func", "cudaLaunchHostFunc"),
                                      ("stream-callback", "cudaStreamAddCallback")])
def test_host_function_holding_back_its_stream_is_reported(suspects, case, api):
    run = suspects(case)
    if printed(run, "held") != "yes":
        pytest.skip("the host function did not hold the stream back in this run")
    found = run.findings(HOST_FUNC_RULE)
    assert costly(found), run.findings()
    assert any(a.startswith(api) for a in site_apis(found)), found


# --- priority -------------------------------------------------------------------------------------

def test_high_priority_streams_starving_a_stream_are_reported(suspects):
    run = suspects("priority")
    if printed(run, "starved") != "yes":
        pytest.skip("the low-priority chain was not starved in this run")
    assert costly(run.findings(PRIORITY_RULE)), run.findings()


# --- managed-faults -------------------------------------------------------------------------------

MANAGED_BYTES = 2 * 8 * 4 << 20     # two streams, 8 steps of a 4 MiB chunk each


def test_managed_page_faults_are_reported(suspects):
    """With unified-memory tracing on, the kernels that faulted their chunks in are found,
    with the bytes they pulled in on demand: every chunk the program touched (the driver may
    move a few pages beyond them, never less than half of them)."""
    run = suspects("managed-faults")
    (found,) = run.findings(MANAGED_RULE)
    assert found["cost_ns"] > 0, found
    assert MANAGED_BYTES / 2 <= found["totals"]["bytes"] <= 2 * MANAGED_BYTES, found
    assert any(a.startswith("cudaLaunchKernel") or a.startswith("__cudaLaunchKernel")
               for a in site_apis([found])), found


def test_managed_faults_are_not_traced_unless_asked(suspects):
    """Without STREAMCHECK_UNIFIED_MEMORY the driver's unified-memory tracing stays off (it
    slows a faulting program): no UNIFIED record, no managed-faults finding."""
    run = suspects("managed-faults-untraced")
    assert not any(t["unified"] for t in run.read_traces())
    assert not run.findings(MANAGED_RULE)


# --- peer-copy (two devices) --------------------------------------------------------------------

def test_staged_peer_copies_are_reported(suspects):
    """With peer access off the 8 copies of 64 MiB go through host memory (CUPTI: a
    device-to-host and a host-to-device half each): peer-access names them, costly, at the
    cudaMemcpyPeerAsync line."""
    run = suspects("peer-copy")
    (found,) = run.findings("peer-access")
    assert found["count"] == 8 and found["cost_ns"] > 0, found
    assert all(a.startswith("cudaMemcpyPeerAsync") for a in site_apis([found])), found


# --- register-per-step ------------------------------------------------------------------------

def test_register_per_step_that_waited_is_an_implicit_sync(suspects):
    run = suspects("register-per-step")
    if "yes" not in (waited(run, "cudaHostRegister"), waited(run, "cudaHostUnregister")):
        pytest.skip("cudaHostRegister/Unregister waited for nothing in this run")
    found = run.findings("implicit-sync")
    assert costly(found), run.findings()
    assert any("HostRegister" in a or "HostUnregister" in a for a in site_apis(found)), found


def test_register_per_step_pinning_is_reported(suspects):
    """Pinning every step costs the host the pinning, whether or not the calls also waited
    for the other stream: pin-per-step names the registers, costly."""
    run = suspects("register-per-step")
    found = run.findings(PIN_RULE)
    assert costly(found), run.findings()
    assert any("HostRegister" in a for a in site_apis(found)), found


# --- setlimit-mid-run / cacheconfig-mid-run ------------------------------------------------------

def test_setlimit_mid_run_that_waited_is_an_implicit_sync(suspects):
    run = suspects("setlimit-mid-run")
    if waited(run, "cudaDeviceSetLimit") != "yes":
        pytest.skip("cudaDeviceSetLimit waited for nothing in this run: no finding expected")
    found = run.findings("implicit-sync")
    assert costly(found), run.findings()
    assert any(a.startswith("cudaDeviceSetLimit") for a in site_apis(found)), found


def test_cacheconfig_mid_run_that_waited_is_an_implicit_sync(suspects):
    run = suspects("cacheconfig-mid-run")
    # seen whether or not it waited: the loop's calls (as many as the program says it timed)
    # and the two it made with the device idle, each a set-limit call
    m = re.search(r"^# cudaFuncSetCacheConfig: (\d+) calls", run.proc.stdout, re.M)
    assert m, run.proc.stdout
    seen = [c for t in run.read_traces() for c in t["calls"]
            if c["name"] and c["name"].startswith("cudaFuncSetCacheConfig")]
    assert len(seen) == int(m.group(1)) + 2, [c["name"] for t in run.read_traces()
                                              for c in t["calls"]][:80]
    assert all(c["call_class"] == sctrace.CALL_SET_LIMIT for c in seen), seen[:2]
    if waited(run, "cudaFuncSetCacheConfig") != "yes":
        pytest.skip("cudaFuncSetCacheConfig waited for nothing in this run: no finding expected")
    found = run.findings("implicit-sync")
    assert costly(found), run.findings()
    assert any(a.startswith("cudaFuncSetCacheConfig") for a in site_apis(found)), found
