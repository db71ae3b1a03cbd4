"""What streamcheck should say about the suspects (tests/samples/suspects.cu): the rule
each killer needs, what is missing for it, and the rules each clean twin must not trigger.
Shared by the GPU tests (test_suspects.py) and the replay of the recorded fixtures
(tests/replay/test_replay_suspects.py): one place to update when a rule lands.
"""

HOST_FUNC_RULE = "host-func"
PRIORITY_RULE = "priority"
MANAGED_RULE = "managed-faults"
PIN_RULE = "pin-per-step"

# What is missing, for the expected failures.
# clean twin: the rules its killer triggers (or should), absent here
TWINS = {
    "lazy-once-eager": ["lazy-loading"],
    "cross-thread-async": ["implicit-sync"],
    "cross-thread-before": ["implicit-sync"],
    # it waits for an event every step by design (that is how it runs the host function):
    # host-sync may price that wait, a warning at most (no twin has an error)
    "host-after-event": [HOST_FUNC_RULE],
    "equal-priority": [PRIORITY_RULE],
    "managed-prefetch": [MANAGED_RULE],
    "register-once": ["implicit-sync", PIN_RULE],
    "peer-access": ["peer-access"],
    "set-at-start": ["implicit-sync"],
}

# Twins that fail to be clean for a reason known and not fixed yet (expected failures:
# strict on the recorded traces, so the entry goes when the gap is closed; not strict on
# live runs, which may not show it).
TWIN_GAPS = {}

# managed-faults needs CUPTI's unified-memory counters, which streamcheck enables only when
# asked: the managed cases run with it (tests/samples/MEASURED.md: what it costs).
UNIFIED_ON = {"STREAMCHECK_UNIFIED_MEMORY": "1"}
