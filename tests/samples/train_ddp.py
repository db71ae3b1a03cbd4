"""Data-parallel training with NCCL (DistributedDataParallel), one process per GPU, for the
multi-GPU tests: each rank runs an MLP's forward and backward, DDP all-reduces the gradients
in buckets while the backward pass still runs (communication that should overlap compute).

    torchrun --nproc_per_node=2 tests/samples/train_ddp.py [--steps N]

Prints, from rank 0 only, the loss after the last step (the same on every run).
"""
import argparse
import os

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    torch.manual_seed(0)
    dev = torch.device("cuda", local)
    model = torch.nn.Sequential(
        torch.nn.Linear(2048, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 2048)).to(dev)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local],
                                                    bucket_cap_mb=8)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    g = torch.Generator(device=dev).manual_seed(1 + rank)
    x = torch.randn(1024, 2048, device=dev, generator=g)
    y = torch.randn(1024, 2048, device=dev, generator=g)
    for _ in range(args.steps):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()  # MARK backward: gradients all-reduced in buckets as they are ready
        opt.step()
    final = loss.detach()
    dist.all_reduce(final)
    if rank == 0:
        print(f"loss={final.item() / dist.get_world_size():.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
