"""What a student's process costs around its work: started, loaded with a file, ended and cleaned up after.

Starts one fork server with the isolation `make grade` would use and, N times, spawns a child, loads a small file
into it and closes it, timing each step in the grading process (wall time). A close waits for the fork server's
reap (kill everything the child started, wipe what it wrote), so `close` is the reap's cost. With `--defer` a close
only sends the reap, as the grading session's closes do, and its answer is read at the next spawn. Medians after
five warm-up rounds.

    python bench/bench_children.py --n 60
    python bench/bench_children.py --n 60 --defer
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.grading.worker import launch_server  # noqa: E402
from autograder.sandbox import resolve  # noqa: E402

FILE = {"op": "load", "module": "m", "filename": "m.py", "cells": ["import torch\n\ndef f(x):\n    return x\n"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=60, help="children started (after 5 warm-up ones)")
    parser.add_argument("--defer", action="store_true", help="a close only sends the reap (Child.close(settle=False))")
    args = parser.parse_args()
    chosen = resolve("auto", False)
    server = launch_server(chosen.mode, False)
    steps: dict[str, list[float]] = {"spawn": [], "load": [], "close": []}
    try:
        for round_ in range(args.n + 5):
            start = time.perf_counter()
            child = server.spawn()
            spawned = time.perf_counter()
            child.request(FILE, 30)
            loaded = time.perf_counter()
            if args.defer:
                child.close(settle=False)
            else:
                child.close()
            closed = time.perf_counter()
            if round_ >= 5:
                for step, took in (("spawn", spawned - start), ("load", loaded - spawned), ("close", closed - loaded)):
                    steps[step].append(took)
    finally:
        server.close()
    print(f"{chosen.description}; {args.n} children; medians of wall time in the grading process:")
    for step, times in steps.items():
        print(f"  {step:6s} {1000 * statistics.median(times):6.2f} ms")
    if args.defer:
        print("  (a close's reap is answered at the next spawn: its time is in `spawn`)")


if __name__ == "__main__":
    main()
