"""`make bench-empty`: how long a class of empty student folders takes to grade (no sandbox, no probe).

Makes N empty folders (default 10,000), grades them through the real engine (discovery, workers,
quizzes, results) and prints the wall time and the time per folder. An empty folder is answered
"not attempted" without a child process, so the figure is dominated by start-up and writing results.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.grading.runner import grade_class  # noqa: E402


def cpu_seconds() -> float:
    """User and system time of this process and of its finished children (the workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def coordinator_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10_000, help="empty student folders")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="attnkit-bench-empty-"))
    try:
        classdir = base / "class"
        for index in range(options.n):
            (classdir / f"student{index:05d}").mkdir(parents=True)
        start, cpu_start = time.perf_counter(), cpu_seconds()
        results = grade_class(classdir, base / "out", workers=options.workers)
        seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
        assert len(results) == options.n and all(r.score == 0 for r in results)
        print(f"graded {options.n} empty folders in {seconds:.1f} s ({1000 * seconds / options.n:.2f} ms each, "
              f"{options.workers} workers); CPU time {cpu:.1f} s (all processes; {coordinator_cpu():.1f} s of it the "
              f"coordinator's); load average at the end "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
