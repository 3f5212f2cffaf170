"""`python bench/bench_watch.py`: what the kernel watch costs one probe, and what a dispatch-level mode would.

Times the reference SingleHeadAttention's forward and backward pass (a (3, 6, 12) causal self-attention call,
as the hidden tests make them) bare, inside the kernel watch (sandbox/child/watch.py: a torch-function mode),
and inside the watch plus a pass-through TorchDispatchMode, the Python call on every ATen operation that the
watch once had. Medians of alternating rounds, in milliseconds per call.
"""
from __future__ import annotations

import contextlib
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "autograder" / "sandbox" / "child"))

import watch  # noqa: E402 - the child's own module, as the fork server imports it


class PassThrough(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def layer():
    path = ROOT / "solutions" / "single_head_attention" / "single_head_attention.py"
    spec = importlib.util.spec_from_file_location("reference_layer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SingleHeadAttention(12, 9).eval()


def main(calls: int = 200, rounds: int = 5) -> None:
    model = layer()
    x = torch.randn(3, 6, 12, requires_grad=True)
    mask = torch.ones(6, 6, dtype=torch.bool).tril()

    def probe():
        out = model(x, x, mask)
        (out[0] if isinstance(out, tuple) else out).sum().backward()

    @contextlib.contextmanager
    def watch_and_dispatch():
        with watch.Watch(), PassThrough():
            yield

    settings = {"bare": contextlib.nullcontext, "kernel watch": watch.Watch,
                "watch + dispatch mode": watch_and_dispatch}
    times: dict[str, list[float]] = {name: [] for name in settings}
    for _ in range(rounds):
        for name, context in settings.items():
            for _ in range(20):
                with context():
                    probe()
            start = time.perf_counter()
            for _ in range(calls):
                with context():
                    probe()
            times[name].append((time.perf_counter() - start) / calls * 1000)
    bare = statistics.median(times["bare"])
    for name, values in times.items():
        print(f"{name:24s} {statistics.median(values):6.3f} ms per forward + backward ({statistics.median(values) / bare:.2f} x bare)")


if __name__ == "__main__":
    main()
