"""Where one submission's grading time goes: round trips by kind, children started and reaped, the wire, waiting.

Grades a class like `make bench`'s (half solutions, half demo mistakes; `--one-mistake`: the catalogue's) in this
process with one worker, after a warm-up class, timing the grading process's own steps (wall and CPU): every
request to a student's process (split into encoding the request, waiting for the answer, decoding the reply),
children spawned and reaped, the diagnosis of failures and the result files, and the CPU time of the students'
processes and the fork server (read from the zygote just before it is closed). Then it times a trivial round trip
alone, which is what merging two round trips into one can save at most. Figures are per submission.

    python bench/profile_submission.py --n 40
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_grading  # noqa: E402
from autograder.grading import plugin  # noqa: E402
from autograder.grading.runner import grade_class  # noqa: E402
from autograder.grading.worker import launch_server  # noqa: E402
from autograder.sandbox import resolve, server  # noqa: E402
from autograder.sandbox.child import wire  # noqa: E402

TIMED: dict[str, list] = collections.defaultdict(lambda: [0, 0.0, 0.0])  # step -> [count, wall, cpu]
TRIPS: collections.Counter = collections.Counter()


def timed(owner, name: str, step: str) -> None:
    function = getattr(owner, name)

    @functools.wraps(function)
    def measured(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            entry = TIMED[step]
            entry[0] += 1
            entry[1] += time.perf_counter() - wall
            entry[2] += time.process_time() - cpu

    setattr(owner, name, measured)


def count_trips() -> None:
    request = server.Child.request

    @functools.wraps(request)
    def counted(self, message, seconds):
        TRIPS[message.get("op")] += 1
        return request(self, message, seconds)

    server.Child.request = counted


SANDBOX_CPU = [0.0]  # CPU seconds of the fork servers and of the students' processes they reaped


def count_sandbox_cpu() -> None:
    """The zygote's own CPU time and its reaped children's (the students' processes), read just before it is
    closed: it is killed, never waited for, so that time reaches no rusage of the grading process."""
    close = server.ForkServer.close
    ticks = os.sysconf("SC_CLK_TCK")

    @functools.wraps(close)
    def counted(self):
        if self.zygote_pid is not None:
            try:
                with open(f"/proc/{self.zygote_pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                SANDBOX_CPU[0] += sum(int(n) for n in fields[11:15]) / ticks
            except (OSError, ValueError, IndexError):
                pass
        return close(self)

    server.ForkServer.close = counted


def trivial_round_trip(repeats: int = 300) -> tuple[float, float]:
    """(median wall, mean CPU of this process) of one probe that does nothing, in seconds."""
    chosen = resolve("auto", False)
    fork_server = launch_server(chosen.mode, False)
    child = fork_server.spawn()
    try:
        child.request({"op": "load", "module": "m", "filename": "m.py", "cells": ["def f(x):\n    return x\n"]}, 10)
        probe = {"op": "run", "target": "f", "args": [{"$randn": {"shape": [2, 3], "seed": 1}}], "kwargs": {},
                 "init": None, "params": {}, "method": None, "grad_args": [], "backward": None, "check_inputs": False,
                 "train": False, "layouts": {}, "no_grad": False, "non_leaf": False, "more": [], "stand_in": []}
        walls, cpu = [], time.process_time()
        for _ in range(repeats):
            start = time.perf_counter()
            child.request(probe, 10)
            walls.append(time.perf_counter() - start)
        return statistics.median(walls), (time.process_time() - cpu) / repeats
    finally:
        child.close()
        fork_server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=40, help="submissions graded (after a warm-up class of 2)")
    parser.add_argument("--one-mistake", action="store_true", help="the catalogue's one-mistake files")
    args = parser.parse_args()
    count_trips()
    count_sandbox_cpu()
    timed(server.Child, "request", "request to a child (all)")
    timed(wire, "encode", "  encode (grading process)")
    timed(server.Child, "_await_reply", "  wait for the answer")
    timed(wire, "decode", "  decode (grading process)")
    timed(server.ForkServer, "spawn", "child started")
    timed(server.ForkServer, "reap", "child reaped (sent)")
    timed(server.ForkServer, "await_reap", "reap's answer awaited")  # inside spawn, or before the next student
    timed(plugin, "explain_failure", "diagnosis of failures")
    timed(plugin.GradingPlugin, "_finish", "result written")
    with tempfile.TemporaryDirectory(prefix="attnkit-profile-") as scratch_name:
        scratch = Path(scratch_name)
        grade_class(bench_grading.make_class(scratch / "warm", 2, args.one_mistake), scratch / "warm-out", workers=1)
        TIMED.clear()
        TRIPS.clear()
        SANDBOX_CPU[0] = 0.0
        students = bench_grading.make_class(scratch / "class", args.n, args.one_mistake)
        wall, cpu = time.perf_counter(), time.process_time()
        grade_class(students, scratch / "out", workers=1)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = args.n
    print(f"{n} submissions, one worker in this process: {1000 * wall / n:.1f} ms wall and {1000 * cpu / n:.1f} ms "
          "CPU of the grading process per submission (its start-up included)")
    print(f"the students' processes and the fork server: {1000 * SANDBOX_CPU[0] / n:.1f} ms CPU per submission "
          "(their start-up included; in no rusage of the grading process)")
    print("round trips per submission: " + ", ".join(f"{op} {count / n:.1f}" for op, count in TRIPS.most_common()))
    for step, (count, spent, used) in TIMED.items():
        print(f"  {step:28s} {count / n:6.1f} per submission  {1000 * spent / n:7.1f} ms wall  {1000 * used / n:7.1f} ms CPU")
    alone, cpu_alone = trivial_round_trip()
    print(f"one trivial round trip alone: {1000 * alone:.3f} ms wall, {1000 * cpu_alone:.3f} ms CPU of this process")


if __name__ == "__main__":
    main()
