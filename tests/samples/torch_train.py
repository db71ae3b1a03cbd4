"""A PyTorch training loop in the shape most tutorials have, and the same loop fixed.

    python3 tests/samples/torch_train.py [--pinned] [--no-item] [--steps N] [--sync-debug]

Default: every batch is an ordinary (pageable) CPU tensor copied with
`.to('cuda', non_blocking=True)`, which cannot be asynchronous from pageable memory: the host
waits while the driver stages it, and the GPU, drained by the previous step's `loss.item()`,
has nothing to run meanwhile. `loss.item()` every step waits for the step to finish
(a stream synchronize), so the GPU starves between steps. streamcheck: pageable-async and
host-sync, each with its cost.

--pinned: the batches are pinned (`pin_memory()`) before the loop, so the copies are truly
asynchronous. --no-item: the loss is summed on the GPU and read once, at the end. With both:
neither finding, and no error-level finding at all.

--sync-debug: runs under torch.cuda.set_sync_debug_mode("warn"), PyTorch's own detector of
synchronizing calls, and prints where each warning came from ("warned FILE:LINE"). The lines
tests look for end with "# MARK name". The median time of a step (after the first five) is
printed on stderr ("step_ms=") for tools/bench/torch-step.

Same seed, same arithmetic in every mode: the printed final loss does not depend on the flags.
Nothing is allocated while work is in flight, in any mode: the model is created on the GPU
directly (no host-to-device parameter copies), the pinned scalar `.item()` copies into is
allocated by a warm-up `.item()` before the model, and one warm-up step (then a synchronize)
fills PyTorch's caching allocator before the loop.
"""
import argparse
import statistics
import sys
import time
import warnings

import torch

BATCH = 1024
FEATURES = 1024
HIDDEN = 2048
OUTPUTS = 256


def make_batches(steps, pinned):
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(steps):
        x = torch.randn(BATCH, FEATURES, generator=g)
        y = torch.randn(BATCH, OUTPUTS, generator=g)
        if pinned:
            x, y = x.pin_memory(), y.pin_memory()
        batches.append((x, y))
    return batches


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pinned", action="store_true", help="pinned host batches")
    ap.add_argument("--no-item", action="store_true", help="one .item() at the end, not per step")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--sync-debug", action="store_true",
                    help="torch.cuda.set_sync_debug_mode('warn'); print where it warned")
    args = ap.parse_args()
    if not args.sync_debug:
        return train(args)
    torch.cuda.set_sync_debug_mode("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train(args)
    for w in caught:
        print(f"warned {w.filename}:{w.lineno}")


def train(args):
    torch.manual_seed(0)
    # Host data first: pinning allocates page-locked memory, done while the GPU is idle.
    batches = make_batches(args.steps, args.pinned)
    dev = torch.device("cuda")
    torch.zeros((), device=dev).item()  # warm-up: the pinned scalar .item() reuses later

    model = torch.nn.Sequential(
        torch.nn.Linear(FEATURES, HIDDEN, device=dev),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN, device=dev),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, OUTPUTS, device=dev),
    )
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    loss_fn = torch.nn.MSELoss()

    def step(x_host, y_host):
        x = x_host.to(dev, non_blocking=True)  # MARK pageable
        y = y_host.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    step(*batches[0])          # warm-up: activations, gradients and momentum get their memory
    torch.cuda.synchronize()  # MARK synchronize

    total = torch.zeros((), device=dev)
    losses = []
    last = None
    times = []
    for x_host, y_host in batches:
        began = time.perf_counter()
        loss = step(x_host, y_host)
        last = loss.detach()
        if args.no_item:
            total += last
        else:
            losses.append(loss.item())  # MARK item: waits for the step; nothing is queued after it
        times.append(time.perf_counter() - began)
    print(f"step_ms={statistics.median(times[5:] or times) * 1e3:.3f}", file=sys.stderr)

    if args.no_item:
        torch.cuda.synchronize()  # the GPU is busy until here: the wait costs it nothing
        mean = total.item() / args.steps
        final = last.item()
    else:
        mean = sum(losses) / len(losses)
        final = losses[-1]
    print(f"mode={'pinned' if args.pinned else 'pageable'}{'-no-item' if args.no_item else ''} "
          f"steps={args.steps} final_loss={final:.6f} mean_loss={mean:.6f}")


if __name__ == "__main__":
    main()
