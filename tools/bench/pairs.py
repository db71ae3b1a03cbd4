"""The killer/twin pairs of the bundled samples and how to run one side of a pair: shared by
tools/bench/killer-survey (is each killer real, measured plain) and tools/bench/accuracy (does
streamcheck's predicted saving match the measured one). One table, so the two never disagree
about what a pair is."""
import os
import re
import shutil
import statistics
import subprocess
from dataclasses import dataclass

# --- the pairs -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    program: str                  # under BUILD_DIR/tests/samples
    args: tuple
    env: tuple = ()               # (NAME, VALUE) pairs

    def command(self):
        env = " ".join(f"{k}={v}" for k, v in self.env)
        return " ".join(filter(None, [env, self.program, *self.args]))


def side(program, *args, **env):
    return Side(program, tuple(args), tuple(sorted(env.items())))


LAZY = {"CUDA_MODULE_LOADING": "LAZY"}
EAGER = {"CUDA_MODULE_LOADING": "EAGER"}


@dataclass(frozen=True)
class Pair:
    name: str
    killer: Side
    twin: Side
    rule: str                     # the rule that should fire on the killer ("proposed: ...")
    # The rules whose predicted saving is the killer's (tools/bench/accuracy); empty when
    # streamcheck prices none (no rule, or nothing a fix could remove: see `why`).
    priced: tuple = ()
    why: str = ""


PAIRS = [
    # killers.cu
    Pair("malloc-in-loop", side("killers", "malloc-in-loop"),
         side("killers", "malloc-before-loop"), "implicit-sync", ("implicit-sync",)),
    Pair("sync-copy", side("killers", "sync-copy"), side("killers", "async-copy"),
         "implicit-sync", ("implicit-sync",)),
    Pair("device-sync-per-step", side("killers", "device-sync-per-step"),
         side("killers", "events"), "host-sync", ("host-sync",)),
    Pair("query-poll", side("killers", "query-poll"), side("killers", "events"), "host-sync",
         ("host-sync",)),
    Pair("lazy-cold", side("killers", "lazy-cold", **LAZY), side("killers", "lazy-warm", **LAZY),
         "lazy-loading", ("lazy-loading",)),
    Pair("lazy-cold-eager", side("killers", "lazy-cold", **LAZY),
         side("killers", "lazy-cold", **EAGER), "lazy-loading", ("lazy-loading",)),
    Pair("no-room", side("killers", "no-room"), side("killers", "room"), "no-room",
         ("no-room",)),
    # the twin is the same program with room for the spin (launch-blocking's sweeps, 8 blocks
    # short of filling the device); after each join either stream may reach the device
    # first, so what the killer loses changes from run to run
    Pair("nonblocking", side("killers", "nonblocking"), side("killers", "launch-blocking"),
         "no-room", ("no-room",)),
    # the twin is the fix itself (the spin's stream non-blocking); "nonblocking" also joins the
    # streams every repetition, a different program
    Pair("blocking", side("killers", "blocking"), side("killers", "blocking-fixed"),
         "blocking-stream, legacy-stream", ("blocking-stream", "legacy-stream")),
    Pair("pageable-2d", side("killers", "pageable-2d"), side("killers", "pinned-2d"),
         "pageable-async", ("pageable-async",)),
    Pair("pageable-driver", side("killers", "pageable-driver"), side("killers", "pinned-2d"),
         "pageable-async", ("pageable-async",)),
    Pair("launch-blocking", side("killers", "launch-blocking", CUDA_LAUNCH_BLOCKING="1"),
         side("killers", "launch-blocking"), "serializing-env", ("serializing-env",)),
    # arrangements.cu
    Pair("legacy", side("arrangements", "legacy"), side("arrangements", "nonblocking"),
         "legacy-stream", (), "one stream: nothing orders the work but its own stream, so no "
         "fix streamcheck names removes a wait; the twin is another program (two streams)"),
    Pair("trap", side("arrangements", "trap"), side("arrangements", "nonblocking"),
         "legacy-stream, blocking-stream", ("blocking-stream", "legacy-stream")),
    # suspects.cu: the killers measured before their rules were written (MEASURED.md)
    Pair("lazy-once", side("suspects", "lazy-once", **LAZY), side("suspects", "lazy-once", **EAGER),
         "lazy-loading", ("lazy-loading",)),
    Pair("cross-thread-free/async", side("suspects", "cross-thread-free"),
         side("suspects", "cross-thread-async"), "implicit-sync", ("implicit-sync",)),
    Pair("cross-thread-free/before", side("suspects", "cross-thread-free"),
         side("suspects", "cross-thread-before"), "implicit-sync", ("implicit-sync",)),
    Pair("host-func", side("suspects", "host-func"), side("suspects", "host-after-event"),
         "host-func", ("host-func",)),
    Pair("stream-callback", side("suspects", "stream-callback"),
         side("suspects", "host-after-event"), "host-func", ("host-func",)),
    Pair("priority", side("suspects", "priority"), side("suspects", "equal-priority"),
         "priority", ("priority",)),
    # the rule needs the unified-memory counters, on only when asked for (MEASURED.md)
    Pair("managed-faults", side("suspects", "managed-faults", STREAMCHECK_UNIFIED_MEMORY="1"),
         side("suspects", "managed-prefetch", STREAMCHECK_UNIFIED_MEMORY="1"), "managed-faults",
         ("managed-faults",)),
    # needs two devices (the suspects exit 2 with one)
    Pair("peer-copy", side("suspects", "peer-copy"), side("suspects", "peer-access"),
         "peer-access", ("peer-access",)),
    Pair("register-per-step", side("suspects", "register-per-step"),
         side("suspects", "register-once"), "pin-per-step, implicit-sync",
         ("pin-per-step", "implicit-sync")),
    Pair("setlimit-mid-run", side("suspects", "setlimit-mid-run"),
         side("suspects", "set-at-start"), "implicit-sync",
         ("implicit-sync",)),
    Pair("cacheconfig-mid-run", side("suspects", "cacheconfig-mid-run"),
         side("suspects", "set-at-start"), "proposed: config-mid-run",
         why="no rule yet: killer-survey measured no saving on the H200 "
             "(tests/samples/MEASURED.md)"),
]

# --- running ---------------------------------------------------------------------------------

MS_RE = re.compile(r"^(?:mode|arrangement)=\S+ .*\bms=([0-9.]+)", re.M)
CHECKSUM_RE = re.compile(r"^result: checksum=(\S+)", re.M)
CLEARED = ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING",
           "CUDA_DEVICE_MAX_CONNECTIONS")
RUN_TIMEOUT_S = 300


class RunFailed(Exception):
    pass


@dataclass
class Run:
    ms: float
    checksum: str
    diagnostics: list


def run_side(build, s):
    """One run of a side, nothing attached; its measured ms, checksum and '#' lines."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(dict(s.env))
    exe = os.path.join(build, "tests", "samples", s.program)
    try:
        p = subprocess.run([exe, *s.args], env=env, capture_output=True, text=True,
                           timeout=RUN_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RunFailed(f"`{s.command()}`: {e}") from e
    m = MS_RE.search(p.stdout)
    if p.returncode != 0 or m is None:
        last = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["?"])[-1]
        raise RunFailed(f"`{s.command()}` exited {p.returncode}: {last}")
    c = CHECKSUM_RE.search(p.stdout)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("#")]
    return Run(float(m.group(1)), c.group(1) if c else None, lines)



def spread(values):
    """1.4826 x the median absolute deviation: a standard deviation, robust to outliers."""
    if len(values) < 2:
        return 0.0
    med = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - med) for v in values)



def machine_description():
    lines = []
    smi = shutil.which("nvidia-smi")
    for args, label in ((["-L"], "GPU"),
                        (["--query-gpu=driver_version", "--format=csv,noheader"], "driver")):
        text = "unknown"
        if smi:
            try:
                p = subprocess.run([smi, *args], capture_output=True, text=True, timeout=30)
                text = "; ".join(p.stdout.strip().splitlines()[:1 if label == "driver" else 8])
            except (OSError, subprocess.SubprocessError) as e:
                text = f"? ({e})"
        lines.append(f"{label}: {text}")
    nvcc = shutil.which("nvcc")
    if nvcc:
        p = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
        m = re.search(r"release ([0-9.]+)", p.stdout)
        lines.append(f"CUDA toolkit (nvcc): {m.group(1) if m else '?'}")
    return lines
