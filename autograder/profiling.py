"""Start-up profile: timestamped events that each stage of grading emits, for bench/bench_startup.py.

When ATTNKIT_PROFILE names a file, `event("...")` appends one JSON line (wall-clock time, process id,
role, event, CPU seconds of this process so far) to it; O_APPEND keeps lines from several processes
whole. When the variable is unset, `event` returns at once and nothing is written. The sandboxed fork
server cannot reach the file: it reports its own timestamps in its hello, and the parent records them
with `record`.
"""
from __future__ import annotations

import json
import os
import sys
import time

ENV = "ATTNKIT_PROFILE"
PATH = os.environ.get(ENV) or None
ROLE = os.environ.get("ATTNKIT_PROFILE_ROLE") or os.path.basename(sys.argv[0] or "python")


def enabled() -> bool:
    return PATH is not None


def set_role(role: str) -> None:
    global ROLE
    ROLE = role


_seen: set[int] = set()
_collector = {"seconds": 0.0, "passes": 0, "since": 0.0}  # the cyclic garbage collector's time in this process


def _time_collector(phase: str, info: dict) -> None:
    if phase == "start":
        _collector["since"] = time.perf_counter()
    else:
        _collector["seconds"] += time.perf_counter() - _collector["since"]
        _collector["passes"] += 1


def event(name: str, **fields) -> None:
    """Record that this process reached `name` now (no-op unless ATTNKIT_PROFILE is set). The first event
    of a process also records when the process started, and registers one for its exit."""
    if PATH is None:
        return
    if os.getpid() not in _seen:
        _seen.add(os.getpid())
        import gc

        gc.callbacks.append(_time_collector)  # reported with the exit: what start-up spent collecting
        started = process_start()
        if started is not None:
            record("process started", started, os.getpid(), ROLE, 0.0)
        import atexit

        atexit.register(lambda pid=os.getpid(): os.getpid() == pid and record(
            "exit", time.time(), pid, ROLE, time.process_time(), **collector()))
    if name == "exit":
        fields = {**fields, **collector()}
    record(name, time.time(), os.getpid(), ROLE, time.process_time(), **fields)


def collector() -> dict:
    """Seconds and passes of the garbage collector since this process's first event."""
    return {"collector_s": round(_collector["seconds"], 3), "collector_passes": _collector["passes"]}


def process_start(pid: int | str = "self") -> float | None:
    """Wall-clock time at which a process started (from /proc, to a clock tick)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)  # the clock /proc's start times count on
    return time.time() - (since_boot - ticks / os.sysconf("SC_CLK_TCK"))


def record(name: str, at: float, pid: int, role: str, cpu: float | None = None, **fields) -> None:
    if PATH is None:
        return
    line = json.dumps({"t": at, "pid": pid, "role": role, "event": name, "cpu": cpu, **fields}) + "\n"
    try:
        fd = os.open(PATH, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:  # a profile must never break grading
        pass


def read(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return sorted((json.loads(line) for line in handle if line.strip()), key=lambda e: e["t"])


def timeline(events: list[dict], origin: float | None = None) -> str:
    """Events grouped per process, each with its time since `origin` (the first event) and the gap
    since the previous event of that process: what took long, and in which process."""
    if not events:
        return "(no events)"
    origin = events[0]["t"] if origin is None else origin
    by_process: dict[int, list[dict]] = {}
    for item in events:
        by_process.setdefault(item["pid"], []).append(item)
    lines = []
    for pid, items in sorted(by_process.items(), key=lambda pair: pair[1][0]["t"]):
        lines.append(f"  [{items[0]['role']} pid {pid}]  {items[0]['t'] - origin:+.3f} s .. "
                     f"{items[-1]['t'] - origin:+.3f} s")
        previous = items[0]["t"]
        for item in items:
            extra = {k: v for k, v in item.items() if k not in ("t", "pid", "role", "event", "cpu")}
            cpu = f" cpu {item['cpu']:6.3f}" if isinstance(item.get("cpu"), (int, float)) else " " * 10
            detail = " " + " ".join(f"{k}={v}" for k, v in extra.items()) if extra else ""
            lines.append(f"    {item['t'] - origin:7.3f} s (+{item['t'] - previous:6.3f}){cpu}  {item['event']}{detail}")
            previous = item["t"]
    return "\n".join(lines)
