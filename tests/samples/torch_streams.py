"""A PyTorch program in its idiomatic shape: work on the default (legacy) stream, more work
on a side stream (PyTorch's side streams are non-blocking), matrix products through cuBLAS
(driver-API launches), and a final result that does not depend on being watched.

    python3 tests/samples/torch_streams.py [steps]
"""
import sys

import torch


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    torch.manual_seed(0)
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    side = torch.cuda.Stream()
    total = torch.zeros((), device="cuda")
    for _ in range(steps):
        c = a @ b                       # default stream: cuBLAS
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):   # side stream: elementwise kernels
            d = torch.relu(c) * 0.5
        torch.cuda.current_stream().wait_stream(side)
        total += d.sum() / d.numel()
    torch.cuda.synchronize()
    print(f"checksum={total.item():.6f}")


if __name__ == "__main__":
    main()
