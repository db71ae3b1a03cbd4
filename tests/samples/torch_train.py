"""A small PyTorch training loop with the two killers PyTorch users meet most: batches
copied from unpinned memory with non_blocking=True (the copy is not asynchronous), and
loss.item() every step (a synchronization). Each such line ends with "# MARK name" so that
tests find it by its mark.

    python3 tests/samples/torch_train.py [steps] [--sync-debug]

Prints the median time of a step after the first five on stderr ("step_ms=").
--sync-debug: runs under torch.cuda.set_sync_debug_mode("warn"), PyTorch's own detector of
synchronizing calls, and prints each warning's place as "warned FILE:LINE".
"""
import statistics
import sys
import time
import warnings

import torch


def batch(step):
    g = torch.Generator().manual_seed(step)
    return torch.randn(2048, 1024, generator=g)     # unpinned host memory


def train(steps):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    total = 0.0
    times = []
    for step in range(steps):
        began = time.perf_counter()
        x = batch(step).to("cuda", non_blocking=True)  # MARK pageable
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()  # MARK item
        times.append(time.perf_counter() - began)
    torch.cuda.synchronize()  # MARK synchronize
    # a step's time once warm (the first steps load modules and pick kernels)
    print(f"step_ms={statistics.median(times[5:] or times) * 1e3:.3f}", file=sys.stderr)
    return total


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 20
    if "--sync-debug" in sys.argv:
        torch.cuda.set_sync_debug_mode("warn")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = train(steps)
        for w in caught:
            print(f"warned {w.filename}:{w.lineno}")
    else:
        total = train(steps)
    print(f"checksum={total:.3f}")


if __name__ == "__main__":
    main()
