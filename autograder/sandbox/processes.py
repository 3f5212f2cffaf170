"""What the grader reads of processes in /proc: the fork server's tree, its CPU and active time, and states."""
from __future__ import annotations

import os

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def thread_env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    return {**keep, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def process_table() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, CPU clock ticks used, its waited-for children's included) for every process."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                table[int(entry)] = (int(fields[1]), sum(int(n) for n in fields[11:15]))
            except (OSError, ValueError, IndexError):
                continue
    return table


def usage(table: dict[int, tuple[int, int]], pids: list[int]) -> tuple[float, float]:
    """(CPU seconds, active seconds) of these processes; active = running or waiting for a CPU, which
    tells a process that is starved on a busy machine from one that sleeps or blocks."""
    cpu = active = 0.0
    for pid in pids:
        ticks = table[pid][1] / CLOCK_TICKS
        try:
            with open(f"/proc/{pid}/schedstat") as handle:
                run_ns, wait_ns = (int(n) for n in handle.read().split()[:2])
        except (OSError, ValueError):
            run_ns = wait_ns = 0
        cpu += max(ticks, run_ns / 1e9)
        active += max(ticks, run_ns / 1e9) + wait_ns / 1e9
    return cpu, active


def descendants(table: dict[int, tuple[int, int]], root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, frontier = [], [root]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def innermost_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return None


def _process_state(pid: int) -> str | None:
    """The kernel's one-letter state of a process (R, S, D, T stopped, Z zombie...), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None
