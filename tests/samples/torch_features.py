"""PyTorch's own ways of running GPU work, one per mode, for tests/gpu/test_torch_features.py.
The lines the tests look for end with "# MARK name".

    python3 tests/samples/torch_features.py MODE

streams     two torch.cuda.Streams, each a chain of spin kernels (torch.cuda._sleep: one
            thread block each) and small element-wise ones, ordered by events: the chains
            overlap, about 2x.
dataloader  a DataLoader with pin_memory=True and num_workers=2: the workers are forked
            processes that never touch CUDA; batches arrive pinned, from the pin-memory thread.
graphs      torch.cuda.graph capture and replay, and torch.cuda.make_graphed_callables.
syncs       the synchronizations PyTorch users write without knowing: .cpu(), print(tensor),
            .item(), .tolist(), torch.cuda.synchronize(). With --sync-debug it runs under
            torch.cuda.set_sync_debug_mode("warn") and prints "warned FILE:LINE" per warning.
compile     torch.compile of a small function (skipped, "compile unavailable", where it cannot
            build its kernels).
Every mode prints a checksum that does not depend on being watched.
"""
import sys
import warnings

import torch

DEV = torch.device("cuda")


def streams():
    torch.manual_seed(0)
    a = torch.randn(256, 256, device=DEV)
    torch.cuda.synchronize()
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    ready = torch.cuda.Event()
    ready.record()                                  # a exists before either chain
    outs = []
    for s in (s1, s2):
        s.wait_event(ready)  # MARK wait
        with torch.cuda.stream(s):
            x = a
            for _ in range(6):
                torch.cuda._sleep(2_000_000)  # MARK chain: one thread block, about 1 ms
                x = torch.tanh(x) * 0.5
            outs.append(x)
    done = [torch.cuda.Event(), torch.cuda.Event()]
    for e, s in zip(done, (s1, s2)):
        e.record(s)  # MARK record
    for e in done:
        torch.cuda.current_stream().wait_event(e)
    total = sum(float(o.double().sum()) for o in outs)
    print(f"checksum={total:.3f}")


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.full((256, 256), float(i))


def dataloader():
    loader = torch.utils.data.DataLoader(Squares(), batch_size=8, pin_memory=True,
                                         num_workers=2)
    total = torch.zeros((), device=DEV)
    for batch in loader:
        assert batch.is_pinned()
        total += batch.to(DEV, non_blocking=True).sum()  # MARK pinned-copy
    print(f"checksum={total.item():.1f}")


def graphs():
    torch.manual_seed(0)
    x = torch.randn(1024, 1024, device=DEV)
    w = torch.randn(1024, 1024, device=DEV)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):                   # warm-up on a side stream, as documented
        for _ in range(3):
            y = torch.relu(x @ w)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # MARK capture
        y = torch.relu(x @ w)
    for _ in range(5):
        g.replay()  # MARK replay
    model = torch.nn.Linear(1024, 1024, device=DEV)
    graphed = torch.cuda.make_graphed_callables(model, (torch.randn(64, 1024, device=DEV),))
    out = graphed(torch.randn(64, 1024, device=DEV))  # MARK graphed
    torch.cuda.synchronize()
    print(f"checksum={float(y.double().sum()) + float(out.double().sum()) * 0:.3f}")


def syncs():
    t = torch.arange(1024, device=DEV, dtype=torch.float32)
    host = t.cpu()  # MARK cpu
    print(t[:4])  # MARK print
    v = t.sum().item()  # MARK item
    first = t[:3].tolist()  # MARK tolist
    torch.cuda.synchronize()  # MARK synchronize
    print(f"checksum={float(host.sum()) + v + sum(first):.1f}")


def compiled():
    try:
        f = torch.compile(lambda x: torch.sin(x) * 2 + 1)
        x = torch.randn(4096, device=DEV)
        y = f(x)  # MARK compiled
        torch.cuda.synchronize()
    except Exception as e:          # no C compiler or triton here: say so, do not fail
        print(f"compile unavailable: {type(e).__name__}")
        return
    print(f"checksum={float((y - (torch.sin(x) * 2 + 1)).abs().max() < 1e-4):.0f}")


MODES = {"streams": streams, "dataloader": dataloader, "graphs": graphs, "syncs": syncs,
         "compile": compiled}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in MODES:
        sys.exit(f"usage: torch_features.py {'|'.join(MODES)} [--sync-debug]")
    if "--sync-debug" not in sys.argv:
        return MODES[mode]()
    torch.cuda.set_sync_debug_mode("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        MODES[mode]()
    for w in caught:
        print(f"warned {w.filename}:{w.lineno}")


if __name__ == "__main__":
    main()
