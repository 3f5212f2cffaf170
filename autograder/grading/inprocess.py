"""One shard graded in the coordinator's own process (a single submission, or --workers 1).

A worker subprocess would import Python, pytest and torch once more only to hand results back; here the
same engine (worker.grade_shard) runs in this process instead. Its fork server is launched first, so the
zygote imports torch while this process imports pytest and torch and collects the hidden tests; the quiz
files are read while the first child computes, in this thread (no second thread: see ForkServer.when_idle);
the server is handed back open, so the quiz code answers are judged by the same warm zygote.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import traceback
from pathlib import Path
from typing import Callable

from .. import profiling
from . import startup_gc
from ..sandbox.isolation import Isolation
from .submissions import Submission
from .worker import DISK_FULL_EXIT, grade_shard, needs_sandbox

PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
ENV = "ATTNKIT_INPROCESS"  # "0": always grade in worker subprocesses (to compare, or to keep this process light)


def wanted(shards: int) -> bool:
    return shards == 1 and os.environ.get(ENV, "1") != "0"


class Deferred:
    """Work done once: while a child computes (ForkServer.when_idle), or when its result is first asked for."""

    def __init__(self, work: Callable[[], object]) -> None:
        self.work, self.done, self.value, self.error = work, False, None, None

    def run(self) -> None:
        if not self.done:
            self.done = True
            try:
                self.value = self.work()
            except Exception as exc:  # noqa: BLE001 - handed to whoever asks for the result
                self.error = exc

    def __call__(self):
        self.run()
        if self.error is not None:
            raise self.error
        return self.value


def launch(chosen: Isolation, allow_weak: bool, eager: bool = True):
    """The fork server for this process, launched now when `eager` (else at the first spawn); its hello
    is awaited at the first spawn."""
    from ..sandbox import SandboxConfig, SandboxLimits
    from ..sandbox.server import ForkServer

    server = ForkServer(SandboxConfig(isolation=chosen.mode, allow_weak=allow_weak,
                                      limits=SandboxLimits.from_environment()), chosen)
    if eager:
        server.launch()
    return server


def grade_here(todo: list[Submission], state_dir: Path, log_path: Path, fingerprints: dict[str, str], server,
               allow_weak: bool, graders_dir: Path, tick: Callable[[], None]) -> int:
    """Grade every student of `todo` with `server` (left open). Returns the worker's exit code."""
    manifest = {"state_dir": str(state_dir), "isolation": server.isolation, "allow_weak": allow_weak,
                "fingerprints": fingerprints, "graders_dir": str(graders_dir), "submissions": todo}
    libc = ctypes.CDLL(None)
    dumpable = libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # as a worker: no process of our uid reads the hidden tests from memory
    forget_other_graders(graders_dir)
    before = set(sys.modules)
    profiling.event("in-process grading start", students=len(todo))
    startup_gc.pause()  # until the hidden tests are collected (startup_gc.py)
    try:
        # what the graders print goes to the log, as a worker's would
        with open(log_path, "w", encoding="utf-8") as log, contextlib.redirect_stdout(log):
            return grade_shard(manifest, server, lambda result: tick(), close=False)
    finally:
        startup_gc.resume()  # whatever stopped the session before its collection ended
        forget_modules(before, graders_dir)
        if dumpable > 0:
            libc.prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0)
        profiling.event("in-process grading end")


def forget_modules(before: set[str], graders_dir: Path) -> None:
    """Drop the hidden test modules this session imported, so that a later session (another graders
    folder, an edited grader) imports its own files, as a fresh worker would. The folder is no package, so
    pytest imports its files under their bare names: only those are looked at (the session also imported
    torch's thousand modules, whose paths need not be resolved)."""
    folder = str(graders_dir.resolve())
    names = {p.stem for p in Path(graders_dir).glob("*.py")}
    for name in (set(sys.modules) - before) & names:
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if os.path.realpath(path).startswith(folder + os.sep):
            del sys.modules[name]


def forget_other_graders(graders_dir: Path) -> None:
    """Drop modules named like this folder's test modules but loaded from elsewhere (another graders folder,
    or graders imported by other code in this process): pytest would refuse the name clash and collect nothing.
    The folder is no package, so pytest imports its files under their bare names: only those can clash (a
    package's `tests.conftest` cannot, and is left alone)."""
    folder = os.path.realpath(graders_dir)
    names = {p.stem for p in Path(graders_dir).glob("*.py")}
    for name in [n for n in list(sys.modules) if n in names]:
        path = getattr(sys.modules[name], "__file__", None) or ""
        if not os.path.realpath(path).startswith(folder + os.sep):
            del sys.modules[name]


def grade(todo: list[Submission], state_dir: Path, out_dir: Path, fingerprints: dict[str, str], chosen: Isolation,
          allow_weak: bool, graders_dir: Path, tick: Callable[[], None], waiting: Callable[[], None] = lambda: None):
    """Grade the one shard here. Returns its fork server, still open, and a function that returns the
    class's quizzes, loaded while the first child computed (or when asked for). `waiting` is called then too:
    from then on this process mostly waits for the students' code. Fails as a worker would: DiskFull, or a grader problem
    with the traceback in OUT/logs/worker-0.log."""
    from ..sandbox import SandboxUnavailable
    from .runner import DiskFull

    server = launch(chosen, allow_weak, needs_sandbox(todo))
    quizzes = Deferred(_load_quizzes)
    server.when_idle(waiting)  # while the first child computes: this process would only wait for it
    server.when_idle(quizzes.run)
    log = out_dir / "logs" / "worker-0.log"
    try:
        log.parent.mkdir(exist_ok=True)
        code = grade_here(todo, state_dir, log, fingerprints, server, allow_weak, graders_dir, tick)
    except SandboxUnavailable:
        server.close()
        raise
    except Exception as exc:
        server.close()
        detail = "".join(traceback.format_exception(exc))
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(detail)
        raise RuntimeError(f"grading worker(s) [0] failed (a grader problem, not a student's):\n{detail[-3000:]}") \
            from exc
    except BaseException:
        server.close()
        raise
    if code == DISK_FULL_EXIT:
        server.close()
        raise DiskFull(out_dir)
    return server, quizzes


@contextlib.contextmanager
def closing(server):
    """Close the in-process fork server (if any) when the quizzes are graded, whatever happens."""
    try:
        yield server
    finally:
        if server is not None:
            server.close()


def _load_quizzes():
    from .quizzes import load_class_quizzes

    return load_class_quizzes()
