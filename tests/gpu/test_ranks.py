"""Two ranks of a data-parallel job (tests/samples/train_ddp.py: DDP over NCCL, one process
per GPU) under the wrapper: one trace per rank, named with it; the training's result as in a
plain run; NCCL's kernels reported as communication, and how much of them computation hid
held to what a bare CUPTI client (libcupti_concurrency.so) measures of the same job; the
merged report over the rank traces and over the small per-rank summaries alike.

Skips without PyTorch (with NCCL), torchrun, or two GPUs. NVLink multicast stays off (the
GPU host's rule for NCCL), as in every run here."""
import json
import re
import shutil
import subprocess

import pytest

import lifecycle_helpers as lh
from test_python_sites import SOURCE, pytestmark, tools  # noqa: F401 (skips, a fixture)

PROGRAM = SOURCE / "tests" / "samples" / "train_ddp.py"
STEPS = 20
NCCL_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
            "NVSHMEM_DISABLE_NVLS": "1"}
CLIENT_RE = re.compile(r"cupti_concurrency: device=(\d+) kernels=(\d+) .* comm_kernels=(\d+) "
                       r"comm_busy_ns=(\d+) comm_overlapped_ns=(\d+)")
# What two runs of the job agree on, measured on two H200s (four runs under each): the hidden
# communication time, 7.6-11.1 ms under streamcheck and 7.7-10.2 ms under the bare client per
# rank; not the exposed part, which holds the time a rank's collective waited for the other
# rank to arrive (one rank's communication took 12 ms in one run, 107 ms in another).
HIDDEN_RATIO = (0.6, 1.6)


def two_gpus():
    try:
        import torch
        return torch.cuda.device_count()
    except Exception:
        return 0


@pytest.fixture(scope="module")
def torchrun():
    if two_gpus() < 2:
        pytest.skip(f"needs two GPUs, this machine has {two_gpus()}")
    exe = shutil.which("torchrun")
    if not exe:
        pytest.skip("torchrun is not on PATH")
    return [exe, "--nproc_per_node=2", str(PROGRAM), "--steps", str(STEPS)]


def loss_line(stdout):
    m = re.search(r"^loss=[0-9.]+$", stdout, re.M)
    assert m, stdout
    return m.group(0)


@pytest.fixture(scope="module")
def job(tools, torchrun, tmp_path_factory):
    """(plain run, client run, wrapper run, its run folder, the merged JSON)."""
    out = tmp_path_factory.mktemp("ddp")
    env = lh.clean_env(**NCCL_ENV)
    plain = lh.run(torchrun, env, timeout=300)
    assert plain.returncode == 0, plain
    client_lib = lh.build_dir() / "tests" / "gpu" / "libcupti_concurrency.so"
    client = lh.run(torchrun, lh.clean_env(LD_PRELOAD=client_lib, **NCCL_ENV), timeout=300) \
        if client_lib.exists() else None
    traced = lh.run([str(tools.wrapper), "-o", str(out / "runs"), "--", *torchrun], env,
                    timeout=400)
    assert traced.returncode == 0, traced
    (run_dir,) = (out / "runs").iterdir()
    r = subprocess.run([str(tools.report), "--json", "--no-symbols", str(run_dir)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return plain, client, traced, run_dir, json.loads(r.stdout)


def test_the_job_computes_what_it_computes_without_streamcheck(job):
    plain, _, traced, _, _ = job
    assert loss_line(traced.stdout) == loss_line(plain.stdout)


def test_one_trace_per_rank_named_with_it(job):
    _, _, _, run_dir, doc = job
    ranked = sorted(p.name for p in run_dir.glob("*-rank*-*.sctrace"))
    assert [re.sub(r"-\d+\.sctrace$", "", n).rsplit("-", 1)[1] for n in ranked] == \
        ["rank0", "rank1"], sorted(p.name for p in run_dir.iterdir())
    ranks = doc["ranks"]
    assert [r["rank"] for r in ranks["ranks"]] == [0, 1]
    assert all(r["world_size"] == 2 and r["complete"] for r in ranks["ranks"])
    for r in ranks["ranks"]:
        assert f"-rank{r['rank']}-" in r["path"]


def comm_of(doc, rank):
    proc = next(p for p in doc["processes"] if f"-rank{rank}-" in p["path"])
    (dev,) = [d for d in proc["devices"] if d["comm"]["kernels"]]
    return dev


def test_nccl_kernels_are_communication_and_their_overlap_is_what_a_bare_client_sees(job):
    _, client, _, _, doc = job
    for rank in (0, 1):
        dev = comm_of(doc, rank)
        comm = dev["comm"]
        assert dev["device"] == rank                    # LOCAL_RANK picks the GPU
        # every step all-reduces its gradients: at least one collective per step
        assert comm["kernels"] >= STEPS, comm
        assert comm["overlapped_ns"] + comm["exposed_ns"] == comm["busy_ns"]
        row = next(r for r in doc["ranks"]["ranks"] if r["rank"] == rank)
        assert row["comm_ns"] == comm["busy_ns"]
        assert row["comm_overlapped_ns"] == comm["overlapped_ns"]
    if client is None:
        pytest.skip("libcupti_concurrency.so not built")
    assert client.returncode == 0, client
    measured = {int(m.group(1)): m for m in CLIENT_RE.finditer(client.stderr)}
    assert set(measured) >= {0, 1}, client.stderr
    for rank in (0, 1):
        dev = comm_of(doc, rank)
        comm = dev["comm"]
        m = measured[rank]
        # the same collectives and the same compute kernels, told apart by two readers of
        # the names
        assert int(m.group(3)) == comm["kernels"], (m.group(0), comm)
        assert int(m.group(2)) == dev["kernel_count"], (m.group(0), dev["kernel_count"])
        ratio = comm["overlapped_ns"] / int(m.group(5))
        assert HIDDEN_RATIO[0] <= ratio <= HIDDEN_RATIO[1], (rank, comm, m.group(0))


def test_merged_from_summaries_as_from_traces(tools, job):
    _, _, _, run_dir, doc = job
    summaries = sorted(run_dir.glob("*-rank*.summary.json"))
    assert len(summaries) == 2, sorted(p.name for p in run_dir.iterdir())
    r = subprocess.run([str(tools.report), "--json", *map(str, summaries)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    from_summaries = json.loads(r.stdout)["ranks"]["ranks"]
    keys = ("rank", "kernels", "busy_ns", "comm_ns", "comm_overlapped_ns", "comm_exposed_ns")
    assert [{k: x[k] for k in keys} for x in from_summaries] == \
        [{k: x[k] for k in keys} for x in doc["ranks"]["ranks"]]
