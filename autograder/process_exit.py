"""Ending a command-line process quickly: once torch is loaded, tearing down the interpreter's modules
costs about half a second of CPU (bench/bench_startup.py), paid by every grading worker and by every
single submission graded in the command's own process. Every output of the kit is written atomically
(and synced) before this point, so only the standard streams need flushing."""
from __future__ import annotations

import atexit
import os
import sys

from . import profiling


_CLEANUPS: list = []


def on_exit(cleanup) -> None:
    """Run `cleanup` when the process ends, whichever way: atexit, or exit_now (which skips atexit)."""
    _CLEANUPS.append(cleanup)
    atexit.register(cleanup)


def _clean_up() -> None:
    for cleanup in _CLEANUPS:
        try:
            cleanup()
        except Exception:  # noqa: BLE001 - a leftover must not turn a finished run into a failed one
            pass


def exit_now(code: object = 0) -> None:
    """Exit like sys.exit(code) would, without the interpreter's teardown (atexit handlers do not run; those
    registered with on_exit do)."""
    _clean_up()
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    profiling.event("exit")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def run_command(main) -> None:
    """Run a click command group as a program; end with exit_now once torch is loaded (a single shard
    graded in this process), else as usual."""
    try:
        main()
    except SystemExit as done:
        if "torch" in sys.modules:
            exit_now(done.code)
        raise
