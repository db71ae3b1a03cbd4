"""What streamcheck should say about the suspects (tests/samples/suspects.cu): the rule
each killer needs, what is missing for it, and the rules each clean twin must not trigger.
Shared by the GPU tests (test_suspects.py) and the replay of the recorded fixtures
(tests/replay/test_replay_suspects.py): one place to update when a rule lands.
"""

# Proposed ids of the rules that do not exist yet (the analyzer names them in the end).
HOST_FUNC_RULE = "host-func"
PRIORITY_RULE = "priority"
MANAGED_RULE = "managed-faults"
PIN_RULE = "pin-per-step"

# What is missing, for the expected failures.
MISSING_LAZY_DIRECT = (
    "lazy-loading from direct evidence: a kernel launched once has no later launch to "
    "corroborate the module load; needs CUPTI_ACTIVITY_KIND_OVERHEAD records of kind "
    "LAZY_FUNCTION_LOADING (correlationId = the launch's), not captured yet")
MISSING_CROSS_THREAD = (
    "implicit-sync across threads: a cudaFree that waited for part of another thread's queue "
    "is not reported, nor the threads and streams it waited for and what its own stream could "
    "not issue meanwhile")
MISSING_HOST_FUNC = (
    f"rule {HOST_FUNC_RULE} does not exist, and cudaLaunchHostFunc (runtime cbid 284/285), "
    "cudaStreamAddCallback (197/248), cuLaunchHostFunc (driver 527/528) and "
    "cuStreamAddCallback (346/437) are not hooked")
MISSING_PRIORITY = f"rule {PRIORITY_RULE} does not exist"
MISSING_MANAGED = (
    f"rule {MANAGED_RULE} does not exist; needs CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER "
    "(GPU page faults, HtoD migrations) and hooks on cudaMemPrefetchAsync / cuMemPrefetchAsync")
MISSING_PIN = (
    f"no rule ({PIN_RULE} proposed) reports host memory pinned every step when the calls "
    "waited for no other stream")
MISSING_CACHECONFIG = (
    "cudaFuncSetCacheConfig (runtime cbid 14) and cuFuncSetCacheConfig (driver 86) are not "
    "hooked: implicit-sync cannot see them")

# clean twin: the rules its killer triggers (or should), absent here
TWINS = {
    "lazy-once-eager": ["lazy-loading"],
    "cross-thread-async": ["implicit-sync"],
    "cross-thread-before": ["implicit-sync"],
    "host-after-event": ["host-sync", HOST_FUNC_RULE],
    "equal-priority": [PRIORITY_RULE],
    "managed-prefetch": [MANAGED_RULE],
    "register-once": ["implicit-sync", PIN_RULE],
    "set-at-start": ["implicit-sync"],
}
