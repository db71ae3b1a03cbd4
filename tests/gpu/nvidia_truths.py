"""What NVIDIA's stream samples really do, as checks on one run of each program: its report
(one process of the JSON report) and its trace (sctrace.read). The GPU suite runs the
programs (test_nvidia_samples.py); the replay suite reads their recorded traces
(tests/replay/test_nvidia_replay.py); both apply these same checks. Why each one holds, with
the source lines it rests on, is in NVIDIA-SAMPLES.md beside this file.

The checks hold on any GPU with HyperQ and two copy engines and follow from the source and
from the rules of the cost model (a finding costs what its fix would save): counts from the
programs' loops, which streams exist, which rules may appear and how severe. No number is
copied from a past run.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "cli"))
import sctrace  # noqa: E402  (the independent Python reader of trace files)

PROGRAMS = ("asyncAPI", "simpleHyperQ", "simpleStreams", "simpleMultiCopy", "simpleCallback",
            "simpleCudaGraphs")

SEVERITY = {"note": 0, "warning": 1, "error": 2}


class Sample:
    """One run of one program: `p`, a process of the JSON report, and `t`, its trace."""

    def __init__(self, name, process, trace):
        self.name, self.p, self.t = name, process, trace
        self.flag = {s["stream_id"]: s["flag"] for s in trace["streams"]}

    def findings(self, rule=None):
        return [f for f in self.p["findings"] if rule is None or f["rule"] == rule]

    def kernels(self, name=None):
        """Kernels by their source name (matched in the mangled name: _Z<len><name>)."""
        return [k for k in self.t["kernels"]
                if name is None or (k["name"] or "").startswith(f"_Z{len(name)}{name}")]

    def copies(self, kind=None):
        return [c for c in self.t["copies"] if kind is None or c["copy_kind"] == kind]

    def calls(self, call_class):
        return [c for c in self.t["calls"] if c["call_class"] == call_class]

    def work(self):
        """Everything the device ran: kernels, copies, memsets."""
        return self.t["kernels"] + self.t["copies"] + self.t["memsets"]

    def on(self, flag, records):
        return [r for r in records if self.flag.get(r["stream_id"]) == flag]

    def streams(self, kind):
        """The report's streams of one kind ("legacy", "blocking", ...) that ran kernels."""
        return [s for s in self.p["streams"] if s["kind"] == kind and s["kernel_count"]]


# ---- helpers --------------------------------------------------------------------------------

def union_ns(records):
    """Time covered by at least one of the records' [start, end) intervals."""
    total, end = 0, None
    for r in sorted(records, key=lambda r: r["start_ns"]):
        if end is None or r["start_ns"] >= end:
            total += r["end_ns"] - r["start_ns"]
            end = r["end_ns"]
        elif r["end_ns"] > end:
            total += r["end_ns"] - end
            end = r["end_ns"]
    return total


def span_ns(records):
    return max(r["end_ns"] for r in records) - min(r["start_ns"] for r in records)


def most_at_once(records):
    """The largest number of the records that ran at the same instant."""
    edges = sorted([(r["start_ns"], 1) for r in records] + [(r["end_ns"], -1) for r in records])
    now = best = 0
    for _, d in edges:       # at equal times an end (-1) sorts first: touching is not overlap
        now += d
        best = max(best, now)
    return best


def overlap(a, b):
    return a["start_ns"] < b["end_ns"] and b["start_ns"] < a["end_ns"]


def at_most(s, rule, severity):
    found = [f for f in s.findings(rule) if SEVERITY[f["severity"]] > SEVERITY[severity]]
    assert not found, f"{rule} above {severity}: {[(f['severity'], f['title']) for f in found]}"


def absent(s, rule):
    assert not s.findings(rule), [f["title"] for f in s.findings(rule)]


def no_error(s):
    at_most(s, None, "warning")


def site_apis(finding):
    return [site["call"]["api"] for site in finding["sites"] if site.get("call")]


# ---- every program ----------------------------------------------------------------------------

# Work each program issues, counted from its source (NVIDIA-SAMPLES.md gives the lines):
# kernels by name, copies host-to-device and device-to-host, memsets.
WORK = {
    "asyncAPI": ({"increment_kernel": 1}, 1, 1, 1),
    "simpleHyperQ": ({"kernel_A": 32, "kernel_B": 32, "sum": 1}, 0, 1, 0),
    "simpleStreams": ({"init_array": 1 + 100 + 100 * 4}, 1, 1 + 100 + 100 * 4, 2),
    "simpleMultiCopy": ({"incKernel": 2 + 10 + 10}, 1 + 10 + 10, 1 + 10 + 10, 4),
    "simpleCallback": ({"incKernel": 8}, 8, 8, 0),
    "simpleCudaGraphs": ({"reduce": 12, "reduceFinal": 12}, 12, 12, 2 * 12),
}


def trace_is_complete(s):
    """The program ran to its end under streamcheck and no record was lost."""
    assert s.t["status"] == "complete", s.t["status_detail"]
    assert s.t["end"]["dropped_records"] == 0
    assert s.p["status"] == "complete" and s.p["dropped_records"] == 0


def work_matches_the_source(s):
    """Every kernel, copy and memset the source issues was recorded, and no other."""
    kernels, htod, dtoh, memsets = WORK[s.name]
    assert {n: len(s.kernels(n)) for n in kernels} == kernels
    assert len(s.t["kernels"]) == sum(kernels.values())
    assert len(s.copies(sctrace.HTOD)) == htod and len(s.copies(sctrace.DTOH)) == dtoh
    assert len(s.t["copies"]) == htod + dtoh
    assert len(s.t["memsets"]) == memsets
    counts = s.p["counts"]
    assert (counts["kernels"], counts["copies"], counts["memsets"]) == \
        (len(s.t["kernels"]), len(s.t["copies"]), len(s.t["memsets"]))


def what_saves_nothing_is_a_note(s):
    """A finding's cost is what its fix would save; one that saves nothing is a note."""
    loud = [f for f in s.findings() if f["cost_ns"] == 0 and f["severity"] != "note"]
    assert not loud, [(f["rule"], f["severity"], f["title"]) for f in loud]


def no_cost_beyond_the_run(s):
    for f in s.findings():
        assert 0 <= f["cost_ns"] <= s.p["span_ns"], (f["rule"], f["cost_ns"], s.p["span_ns"])


COMMON = [trace_is_complete, work_matches_the_source, what_saves_nothing_is_a_note,
          no_cost_beyond_the_run]


# ---- asyncAPI ---------------------------------------------------------------------------------

def async_api_runs_on_the_legacy_stream_alone(s):
    """Copy in, kernel, copy out, all on stream 0: one chain, nothing beside it."""
    assert all(s.flag.get(r["stream_id"]) == sctrace.LEGACY for r in s.work())
    assert {st["kind"] for st in s.p["streams"] if st["kernel_count"]} == {"legacy"}
    assert all(c["flags"] & 1 for c in s.t["copies"])          # cudaMemcpyAsync
    assert s.p["devices"][0]["concurrency"] == 1.0


def async_api_has_nothing_to_fix(s):
    """Pinned copies, no second stream to serialize against, and a host that polls because it
    has nothing else to issue: no finding can save anything."""
    absent(s, "pageable-async")
    absent(s, "blocking-stream")
    at_most(s, None, "note")


# ---- simpleHyperQ -----------------------------------------------------------------------------

def hyperq_streams_hold_one_pair_each(s):
    """32 cudaStreamCreate streams (one call site), kernel_A then kernel_B in each; the sum
    kernel on the legacy stream."""
    blocking = s.on(sctrace.BLOCKING, s.t["kernels"])
    by_stream = {}
    for k in sorted(blocking, key=lambda k: k["start_ns"]):
        by_stream.setdefault(k["stream_id"], []).append(k)
    assert len(by_stream) == 32
    a, b = ({id(k) for k in s.kernels(n)} for n in ("kernel_A", "kernel_B"))
    for pair in by_stream.values():
        assert len(pair) == 2 and id(pair[0]) in a and id(pair[1]) in b
        assert pair[1]["start_ns"] >= pair[0]["end_ns"]        # same stream: in order
    (total,) = s.kernels("sum")
    assert s.flag[total["stream_id"]] == sctrace.LEGACY
    streams = s.streams("blocking")
    assert len(streams) == 32 and all(st["kernel_count"] == 2 for st in streams)
    sites = {st["created_by"]["call_site"]["module_offset"] for st in streams}
    assert len(sites) == 1 and all(st["created_by"]["api"].startswith("cudaStreamCreate")
                                   for st in streams)


def hyperq_streams_run_at_once(s):
    """The sample's point: the 32 streams' kernels run concurrently. Each is one block that
    spins for a fixed time, so the overlap also pays."""
    assert most_at_once(s.on(sctrace.BLOCKING, s.t["kernels"])) >= 8
    dev = s.p["devices"][0]
    assert dev["concurrency"] > 6, dev
    # Productive speedup needs each kernel's solo duration: 32 of the 64 kernel_A/kernel_B
    # never ran alone, so streamcheck says "unknown" rather than guess; when it does know,
    # the spins' overlap must pay.
    assert dev["speedup"] is None or dev["speedup"] > 2, dev


def hyperq_join_is_needed(s):
    """The sum kernel reads every stream's result: its wait behind the 32 blocking streams is
    the join the program needs, and so is the final cudaMemcpy's. Removing the barrier saves
    nothing: legacy-stream, blocking-stream and implicit-sync are at most notes."""
    (total,) = s.kernels("sum")
    assert total["start_ns"] >= max(k["end_ns"] for k in s.kernels("kernel_B"))
    for rule in ("legacy-stream", "blocking-stream", "implicit-sync", "host-sync"):
        at_most(s, rule, "note")


def hyperq_lazy_loading_is_reported_exactly_when_it_held_the_streams(s):
    """Under lazy module loading (CUDA's default) kernel_B is loaded at its first launch, right
    after stream 0's kernel_A. Where the trace shows the other streams' kernel_A, issued after
    that launch while stream 0's kernel_A ran, starting only when it ended, the loading held
    them back: lazy-loading must be reported, costing at least half of that hold. Where they
    ran beside it (CUDA_MODULE_LOADING=EAGER), it must be a note at most."""
    launch = {c["correlation_id"]: c for c in s.calls(sctrace.CALL_LAUNCH)}
    first_a = min(s.kernels("kernel_A"), key=lambda k: k["start_ns"])
    first_b = min(s.kernels("kernel_B"), key=lambda k: launch[k["correlation_id"]]["start_ns"])
    after = launch[first_b["correlation_id"]]["start_ns"]
    issued = [k for k in s.kernels("kernel_A")
              if k["stream_id"] != first_a["stream_id"] and
              after < launch[k["correlation_id"]]["start_ns"] and
              launch[k["correlation_id"]]["end_ns"] < first_a["end_ns"]]
    held = bool(issued) and all(k["start_ns"] >= first_a["end_ns"] for k in issued)
    if not held:
        at_most(s, "lazy-loading", "note")
        return
    hold = first_a["end_ns"] - max(launch[k["correlation_id"]]["end_ns"] for k in issued)
    cost = sum(f["cost_ns"] for f in s.findings("lazy-loading"))
    assert cost >= hold / 2, (cost, hold, [f["title"] for f in s.findings()])


def hyperq_shared_queues_are_reported(s):
    """32 streams on CUDA's 8 hardware queues: stream i's kernel_B, waiting for its kernel_A,
    holds up stream i + 8's kernel_A queued behind it. hardware-queue names the kernels so
    held (after the first round, 8 per round), costly: without the sharing the second round
    of kernel_A would run in the first."""
    (found,) = s.findings("hardware-queue")
    assert found["count"] >= 16, found["count"]
    assert found["totals"]["queues"] == 8 and found["totals"]["streams"] == 32, found["totals"]
    assert found["cost_ns"] >= 10_000_000, found["cost_ns"]


# ---- simpleStreams ----------------------------------------------------------------------------

def streams_and_legacy_as_in_source(s):
    """4 cudaStreamCreate streams, 100 kernels each (one more on the first, the timed one);
    the non-streamed reference loop on the legacy stream."""
    blocking = sorted(st["kernel_count"] for st in s.streams("blocking"))
    assert blocking == [100, 100, 100, 101], blocking
    assert [st["kernel_count"] for st in s.streams("legacy")] == [100]


def streamed_copies_overlap_kernels(s):
    """The sample's point: each stream's copy out runs while another stream's kernel does."""
    assert s.p["devices"][0]["copy_compute_ns"] > 0
    kernels = s.on(sctrace.BLOCKING, s.t["kernels"])
    assert any(overlap(c, k) and c["stream_id"] != k["stream_id"]
               for c in s.on(sctrace.BLOCKING, s.copies(sctrace.DTOH)) for k in kernels)


def streams_copies_are_pinned(s):
    """The host buffer is registered (cudaHostRegister): every async copy is pinned."""
    assert all(c["dst_kind"] == sctrace.MEM_PINNED for c in s.copies(sctrace.DTOH))
    absent(s, "pageable-async")


def full_grids_run_one_at_a_time(s):
    """Every init_array grid has 8192 blocks of 512 threads or more: many waves of a whole
    device. Kernels of different streams can overlap only in a wave's tail, and no fix can
    make them overlap more: no-room saves nothing."""
    assert s.p["devices"][0]["concurrency"] < 1.1
    at_most(s, "no-room", "note")


def simple_streams_serializes_nothing(s):
    """The legacy-stream loop runs while the streams are idle (an event synchronize ends each
    phase), and the host waits only when it has nothing left to issue."""
    for rule in ("legacy-stream", "blocking-stream", "host-sync", "implicit-sync"):
        at_most(s, rule, "note")
    no_error(s)


# ---- simpleMultiCopy --------------------------------------------------------------------------

def multicopy_streams_as_in_source(s):
    """4 cudaStreamCreate streams: the serial pass uses the first for all 10 cycles, the
    overlapped pass rotates over all four (cycles 0,4,8 / 1,5,9 / 2,6 / 3,7); the warm-up and
    timed kernels are on the legacy stream."""
    assert sorted(st["kernel_count"] for st in s.streams("blocking")) == [2, 2, 3, 13]
    assert [st["kernel_count"] for st in s.streams("legacy")] == [2]
    assert all(c["flags"] & 1 and sctrace.MEM_PINNED in (c["src_kind"], c["dst_kind"])
               for c in s.t["copies"])
    absent(s, "pageable-async")


def copies_run_both_ways_at_once(s):
    """The sample's point: with two copy engines an upload and a download overlap, and both
    overlap kernels."""
    if s.t["devices"] and s.t["devices"][0]["async_engines"] < 2:
        return
    assert any(overlap(a, b) for a in s.copies(sctrace.HTOD) for b in s.copies(sctrace.DTOH))
    assert s.p["devices"][0]["copy_compute_ns"] > 0


def four_streams_beat_one(s):
    """On the GPU's own clock, the overlapped pass (after the first cudaDeviceSynchronize)
    takes less time than the serial one (before it)."""
    syncs = sorted(c["end_ns"] for c in s.calls(sctrace.CALL_DEVICE_SYNC))
    assert len(syncs) >= 2
    work = s.on(sctrace.BLOCKING, s.work())
    serial = [w for w in work if w["start_ns"] < syncs[-2]]
    overlapped = [w for w in work if syncs[-2] <= w["start_ns"] < syncs[-1]]
    assert len(serial) == 3 * 10 and len(overlapped) == 3 * 10
    assert span_ns(overlapped) < span_ns(serial)


def multicopy_serializes_nothing(s):
    """Legacy-stream work runs only while the streams are idle; the per-cycle event wait in
    the serial pass is the serialization the sample measures on purpose."""
    for rule in ("legacy-stream", "blocking-stream"):
        at_most(s, rule, "note")
    no_error(s)


# ---- simpleCallback ---------------------------------------------------------------------------

def one_stream_and_thread_per_workload(s):
    """8 workloads, each a host thread with its own cudaStreamCreate stream: copy in, kernel,
    copy out, then a stream callback."""
    streams = s.streams("blocking")
    assert len(streams) == 8 and all(st["kernel_count"] == 1 for st in streams)
    assert len({c["tid"] for c in s.calls(sctrace.CALL_LAUNCH)}) == 8
    for k in s.t["kernels"]:
        mine = [c for c in s.t["copies"] if c["stream_id"] == k["stream_id"]]
        (up,) = [c for c in mine if c["copy_kind"] == sctrace.HTOD]
        (down,) = [c for c in mine if c["copy_kind"] == sctrace.DTOH]
        assert up["end_ns"] <= k["start_ns"] and k["end_ns"] <= down["start_ns"]
    assert all(sctrace.MEM_PINNED in (c["src_kind"], c["dst_kind"]) for c in s.t["copies"])


def callback_has_no_legacy_work(s):
    """Nothing runs on the legacy stream, so the blocking streams serialize with nothing."""
    assert not s.on(sctrace.LEGACY, s.work())
    absent(s, "legacy-stream")
    at_most(s, "blocking-stream", "note")
    absent(s, "pageable-async")


def callbacks_come_last_and_hold_nothing(s):
    """Each workload's stream callback is the last thing queued on its stream (the worker
    thread waits for it on a barrier): seen as a host function on the workload's stream,
    with nothing after it to hold back, so no host-func finding."""
    funcs = s.calls(sctrace.CALL_HOST_FUNC)
    assert len(funcs) == 8 and all(c["name"].startswith("cudaStreamAddCallback") for c in funcs)
    absent(s, "host-func")


def callback_syncs_cost_at_most_the_device_work(s):
    """cudaMalloc and cudaFree in the workload threads may wait for other workloads' device
    work, but removing such a wait saves at most that work: the implicit-sync cost cannot
    exceed the time the device was busy at all (a few tens of microseconds here)."""
    busy = union_ns(s.work())
    cost = sum(f["cost_ns"] for f in s.findings("implicit-sync"))
    assert cost <= busy, (cost, busy)
    no_error(s)


# ---- simpleCudaGraphs -------------------------------------------------------------------------

GRAPH_NODES = {"reduce": 1, "reduceFinal": 1}


def graph_kernels_belong_to_their_launch(s):
    """Every kernel came from a graph (graph_node_id != 0) and carries the correlation id of
    a cudaGraphLaunch call: its call site is the graph launch's. 12 launches (3 of each of
    four executable graphs), each ran one reduce and one reduceFinal, two memsets, an upload
    and a download."""
    launches = {c["correlation_id"]: c for c in s.calls(sctrace.CALL_GRAPH_LAUNCH)}
    assert len(launches) == 12
    assert all(k["graph_node_id"] != 0 for k in s.t["kernels"])
    assert all(k["correlation_id"] in launches for k in s.t["kernels"])
    for corr in launches:
        assert {n: len([k for k in s.kernels(n) if k["correlation_id"] == corr])
                for n in GRAPH_NODES} == GRAPH_NODES
        assert len([c for c in s.t["copies"] if c["correlation_id"] == corr]) == 2
        assert len([m for m in s.t["memsets"] if m["correlation_id"] == corr]) == 2


def captured_launches_run_nothing(s):
    """The two <<<>>> launches inside stream capture are recorded into the graph, not run:
    no kernel carries their correlation ids."""
    captured = {c["correlation_id"] for c in s.calls(sctrace.CALL_LAUNCH)}
    assert len(captured) == 2
    assert not [k for k in s.t["kernels"] if k["correlation_id"] in captured]


def graph_pageable_copy_found_at_the_launch(s):
    """The graph's last copy writes 8 bytes to result_h, a stack variable: pageable. Found
    once per launch, at the cudaGraphLaunch that ran it."""
    assert all(c["dst_kind"] == sctrace.MEM_PAGEABLE and c["bytes"] == 8
               for c in s.copies(sctrace.DTOH))
    (found,) = s.findings("pageable-async")
    assert found["count"] == 12 and found["totals"]["bytes"] == 12 * 8
    apis = site_apis(found)
    assert apis and all(a.startswith("cudaGraphLaunch") for a in apis), apis


def graph_pageable_cost_is_bounded_by_device_idle(s):
    """Pinning result_h lets cudaGraphLaunch return before the graph ends, so the next launch
    is queued in time: it can save the device's idle time between graphs, never the 64 MiB
    uploads and kernels it runs anyway."""
    work = s.work()
    idle = span_ns(work) - union_ns(work)
    cost = sum(f["cost_ns"] for f in s.findings("pageable-async"))
    assert cost <= idle, (cost, idle)
    no_error(s)


def captured_host_function_holds_no_stream(s):
    """The cudaLaunchHostFunc of the sample is made inside stream capture: it becomes the
    graph's host node and queues nothing on stream1, where no work follows anyway (the graphs
    are launched on another stream): no host-func finding."""
    funcs = s.calls(sctrace.CALL_HOST_FUNC)
    assert len(funcs) == 1 and funcs[0]["name"].startswith("cudaLaunchHostFunc")
    absent(s, "host-func")


def graphs_are_chains(s):
    """Each graph is a chain (copy and memsets, reduce, reduceFinal, copy, host node) and all
    launches go to one stream in turn: no two kernels can overlap. No legacy-stream work."""
    assert s.p["devices"][0]["concurrency"] == 1.0
    absent(s, "legacy-stream")
    at_most(s, "blocking-stream", "note")
    at_most(s, "host-sync", "note")


CHECKS = {
    "asyncAPI": COMMON + [async_api_runs_on_the_legacy_stream_alone,
                          async_api_has_nothing_to_fix],
    "simpleHyperQ": COMMON + [hyperq_streams_hold_one_pair_each, hyperq_streams_run_at_once,
                              hyperq_join_is_needed,
                              hyperq_lazy_loading_is_reported_exactly_when_it_held_the_streams,
                              hyperq_shared_queues_are_reported],
    "simpleStreams": COMMON + [streams_and_legacy_as_in_source, streamed_copies_overlap_kernels,
                               streams_copies_are_pinned, full_grids_run_one_at_a_time,
                               simple_streams_serializes_nothing],
    "simpleMultiCopy": COMMON + [multicopy_streams_as_in_source, copies_run_both_ways_at_once,
                                 four_streams_beat_one, multicopy_serializes_nothing],
    "simpleCallback": COMMON + [one_stream_and_thread_per_workload, callback_has_no_legacy_work,
                                callbacks_come_last_and_hold_nothing,
                                callback_syncs_cost_at_most_the_device_work],
    "simpleCudaGraphs": COMMON + [graph_kernels_belong_to_their_launch,
                                  captured_launches_run_nothing,
                                  graph_pageable_copy_found_at_the_launch,
                                  graph_pageable_cost_is_bounded_by_device_idle,
                                  captured_host_function_holds_no_stream,
                                  graphs_are_chains],
}

CASES = [(name, check) for name in PROGRAMS for check in CHECKS[name]]

# Checks that fail for a reason known and not fixed yet: expected to fail (strictly on the
# recorded traces, where one that passes is reported, so the entry goes when the gap is
# closed; not strictly on live runs, which may not show it).
KNOWN_GAPS = {}


def case_id(case):
    return f"{case[0]}-{case[1].__name__}"
