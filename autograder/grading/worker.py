"""One grading worker: a fork server plus one pytest session per batch of students the coordinator deals it.

Run as `python -m autograder.grading.worker MANIFEST [QUIZ_VERDICTS]`: the manifest holds the whole class;
standard input deals batches (a line of indices into it); the worker prints `done <file stem>` per student,
so the coordinator can show progress, and `ready` after each batch. It reads no submission folder: the
manifest carries the text.
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Iterable, Iterator

from .. import profiling
from . import startup_gc
from ..paths import GRADERS_DIR
from ..sandbox import SandboxConfig, SandboxLimits
from ..sandbox.isolation import describe, landlock_abi
from .submissions import SourceFile, Submission, result_stem

# pytest, torch and the plugin are imported only where tests run: the coordinator imports this module
# for the manifest, and a worker launches its fork server before paying for them (start-up, issue 21).

CHUNK = 100  # students per pytest session in one worker
DISK_FULL_EXIT = 75  # the worker stopped because OUT's disk is full


def dump_manifest(path: Path, submissions: list[Submission], state_dir: Path, isolation: str, allow_weak: bool,
                  fingerprints: dict[str, str], graders_dir: Path = GRADERS_DIR, quiz_verdicts: dict | None = None) -> None:
    """quiz_verdicts: {"class": the class's verdict cache, "shard": this worker's own file} to judge the
    shard's quiz code answers here too (grading/quiz_prefetch.py)."""
    path.write_text(json.dumps({
        "state_dir": str(state_dir), "isolation": isolation, "allow_weak": allow_weak,
        "fingerprints": fingerprints, "graders_dir": str(graders_dir), "quiz_verdicts": quiz_verdicts,
        "submissions": plain_submissions(submissions)}), encoding="utf-8")


def plain_submissions(submissions: list[Submission]) -> list[dict]:
    """What dataclasses.asdict gives for each submission; a file object many students share (every empty
    folder's) is converted once."""
    done: dict[int, dict] = {}  # id of a SourceFile alive in `submissions` -> its plain form

    def plain(source: SourceFile) -> dict:
        if id(source) not in done:
            done[id(source)] = asdict(source)
        return done[id(source)]

    return [{"student_id": s.student_id, "files": {name: plain(f) for name, f in s.files.items()},
             "quiz_folder": s.quiz_folder, "quiz_files": s.quiz_files} for s in submissions]


def read_manifest(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["submissions"] = [
        Submission(s["student_id"], {name: SourceFile(**{**f, "cells": tuple(f["cells"]), "notes": tuple(f["notes"])})
                                     for name, f in s["files"].items()}, s.get("quiz_folder"), s.get("quiz_files", {}))
        for s in data["submissions"]]
    return data


def out_of_space(folder: Path) -> bool:
    """Whether a small file can no longer be written into `folder`."""
    probe = folder / f".space-probe-{os.getpid()}"
    try:
        with open(probe, "wb") as handle:
            handle.write(b"\0" * 65536)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    finally:
        probe.unlink(missing_ok=True)
    return False


def pytest_args(graders_dir: Path) -> list[str]:
    """The hidden tests' session: no installed plugin is loaded (each would be imported, and a plugin's whole
    package assertion-rewritten, hypothesis's ~90 modules among them, at every start), only the graders' own
    modules are rewritten, and no plugin that collects garbage after the session (unraisableexception runs
    gc.collect five times over torch's heap) or keeps a cache."""
    return [str(graders_dir), "--disable-plugin-autoload", "-p", "no:cacheprovider", "-p", "no:terminal",
            "-p", "no:logging", "-p", "no:warnings", "-p", "no:unraisableexception", "-p", "no:threadexception",
            "-p", "no:pastebin", "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:legacypath",
            "--capture=no", "--rootdir", str(graders_dir), "-c", "/dev/null", "-W", "ignore::DeprecationWarning"]


def hidden_session(args: list[str], plugin: "GradingPlugin") -> int:
    """One pytest session of the hidden tests. It takes no options from the environment: a teacher's
    PYTEST_ADDOPTS (-x, --junitxml, ...) would stop a student's tests early or make the session fail; the
    variable is put back after (in-process grading runs in the teacher's own process)."""
    import pytest

    addopts = os.environ.pop("PYTEST_ADDOPTS", None)
    try:
        return pytest.main(args, plugins=[plugin])
    finally:
        if addopts is not None:
            os.environ["PYTEST_ADDOPTS"] = addopts


def gradable(submission: Submission) -> bool:
    """Whether at least one of the student's files can be run (the others are answered without running)."""
    return any(f.problem is None for f in submission.files.values())


def identities_of(graders_dir: Path, server: "ForkServer") -> list[tuple[tuple, dict]]:
    """The hidden tests' identities and order, from one collection for a placeholder student."""
    import pytest

    from .plugin import GradingPlugin

    placeholder = Submission("placeholder", {})
    plugin = GradingPlugin([placeholder], Path(os.devnull), server)
    plugin.collect_only = True
    code = hidden_session([*pytest_args(graders_dir), "--collect-only"], plugin)
    if code != pytest.ExitCode.OK or not plugin.identities:
        raise RuntimeError(f"the hidden tests could not be collected (pytest exit code {code})"
                           + "".join(f"\n{error}" for error in plugin.session_errors))
    return plugin.identities


def run_shard(submissions: list[Submission], state_dir: Path, server: "ForkServer",
              fingerprints: dict[str, str] | None = None, on_done=lambda result: None,
              graders_dir: Path = GRADERS_DIR, identities: list[tuple[tuple, dict]] | None = None) -> "GradingPlugin":
    """Grade a chunk of students in one pytest session. With `identities` (identities_of), students without
    a single gradable file are answered "not attempted" at once: no session item, no child, no probe."""
    import pytest

    from .plugin import GradingPlugin

    if identities is not None:
        empty = [s for s in submissions if not gradable(s)]
        if empty:
            quick = GradingPlugin(empty, state_dir, server, fingerprints, on_done)
            for submission in empty:
                quick.finish_unopened(submission.student_id, identities)
            submissions = [s for s in submissions if gradable(s)]
            if not submissions:
                return quick
    plugin = GradingPlugin(submissions, state_dir, server, fingerprints, on_done)
    profiling.event("pytest session start", students=len(submissions))
    code = hidden_session(pytest_args(graders_dir), plugin)
    profiling.event("pytest session end")
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and plugin.finished < len(submissions):
        raise RuntimeError(f"the hidden tests could not be collected or run (pytest exit code {code})"
                           + "".join(f"\n{error}" for error in plugin.session_errors))
    return plugin


def needs_sandbox(submissions: list[Submission]) -> bool:
    """Whether some student of the shard handed in a file to run (else no fork server ever starts)."""
    return any(map(gradable, submissions))


def launch_server(isolation: str, allow_weak: bool, eager: bool = True) -> "ForkServer":
    """The shard's fork server, launched at once when `eager` (it imports torch while the caller collects
    the tests), else at the first spawn. The isolation was resolved (and bubblewrap probed) by the
    coordinator: it is not probed again."""
    from ..sandbox.server import ForkServer

    chosen = describe(isolation, landlock_abi() if isolation != "rlimits" else 0)
    server = ForkServer(SandboxConfig(isolation=isolation, allow_weak=allow_weak,
                                      limits=SandboxLimits.from_environment()), chosen)
    if eager:
        server.launch()
    return server


def main(manifest_path: str, shard_verdicts: str | None = None) -> int:
    profiling.event("worker start")
    startup_gc.pause()  # until the hidden tests are collected (startup_gc.py)
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no process of our uid reads our memory or environment
    manifest = read_manifest(Path(manifest_path))
    if shard_verdicts and manifest.get("quiz_verdicts"):  # the manifest is the class's: this worker's own file
        manifest["quiz_verdicts"] = {**manifest["quiz_verdicts"], "shard": shard_verdicts}
    server = launch_server(manifest["isolation"], manifest["allow_weak"], needs_sandbox(manifest["submissions"]))

    def announce(result) -> None:
        print(f"done {result_stem(result.student_id)}", flush=True)

    return grade_shard(manifest, server, announce, batches=dealt(manifest["submissions"], sys.stdin))


def dealt(submissions: list[Submission], stream) -> Iterator[list[Submission]]:
    """The batches the coordinator hands this worker (runner._run_workers), one line of indices into the
    manifest each. After each batch the worker says `ready`; an empty line or the end of input: no more."""
    while True:
        line = stream.readline()
        if not line.strip():
            return
        yield [submissions[int(index)] for index in line.split()]
        print("ready", flush=True)


def in_chunks(submissions: list[Submission]) -> Iterator[list[Submission]]:
    for start in range(0, len(submissions), CHUNK):
        yield submissions[start:start + CHUNK]


def grade_shard(manifest: dict, server: "ForkServer", announce, close: bool = True,
                batches: Iterable[list[Submission]] | None = None) -> int:
    """Grade a manifest's students with `server`, in the given batches (default: all of them, CHUNK at a time);
    DISK_FULL_EXIT when OUT's disk filled up, else 0."""
    submissions = manifest["submissions"]
    state_dir = Path(manifest["state_dir"])
    graders_dir = Path(manifest["graders_dir"])
    identities: list[tuple[tuple, dict]] = []  # collected at the first student without a gradable file
    judge = None
    if manifest.get("quiz_verdicts"):  # with this warm fork server, so the coordinator needs none
        from .quiz_prefetch import WorkerJudge

        judge = WorkerJudge(Path(manifest["quiz_verdicts"]["class"]), Path(manifest["quiz_verdicts"]["shard"]),
                            server, manifest["isolation"], manifest["allow_weak"])
    try:
        # One pytest session per batch (at most CHUNK students): collection stays cheap, and memory (pytest keeps
        # every collected item) stays flat however large the class is. Students without a gradable file need none.
        for batch in in_chunks(submissions) if batches is None else batches:
            chunk = []
            for submission in batch:
                if gradable(submission):
                    chunk.append(submission)
                    continue
                identities = identities or identities_of(graders_dir, server)
                run_shard([submission], state_dir, server, manifest["fingerprints"], announce, graders_dir, identities)
            if chunk:
                run_shard(chunk, state_dir, server, manifest["fingerprints"], announce, graders_dir)
            if judge is not None:
                judge.judge(batch)
                profiling.event("quiz code answers judged", students=len(batch))
    except Exception:
        if out_of_space(state_dir):  # pytest reports a failed result write as its own internal error
            return DISK_FULL_EXIT
        raise
    finally:
        if close:
            server.close()
    return 0


if __name__ == "__main__":
    from ..process_exit import exit_now

    profiling.set_role("worker")
    exit_now(main(*sys.argv[1:3]))  # results are written and synced: skip torch's teardown
