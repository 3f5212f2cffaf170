"""One grading worker: a fork server plus pytest sessions over its shard of the class, in chunks.

Run as `python -m autograder.grading.worker MANIFEST`; prints `done <file stem>` per student so
the coordinator can show progress. It reads no submission folder: the manifest carries the text.
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from ..paths import GRADERS_DIR
from ..sandbox import ForkServer, SandboxConfig, SandboxLimits
from .plugin import GradingPlugin
from .submissions import SourceFile, Submission, result_stem

CHUNK = 100  # students per pytest session in one worker
DISK_FULL_EXIT = 75  # the worker stopped because OUT's disk is full


def dump_manifest(path: Path, submissions: list[Submission], state_dir: Path, isolation: str, allow_weak: bool,
                  fingerprints: dict[str, str], graders_dir: Path = GRADERS_DIR) -> None:
    path.write_text(json.dumps({
        "state_dir": str(state_dir), "isolation": isolation, "allow_weak": allow_weak,
        "fingerprints": fingerprints, "graders_dir": str(graders_dir),
        "submissions": [asdict(s) for s in submissions]}), encoding="utf-8")


def read_manifest(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["submissions"] = [
        Submission(s["student_id"], {name: SourceFile(**{**f, "cells": tuple(f["cells"]), "notes": tuple(f["notes"])})
                                     for name, f in s["files"].items()}, s.get("quiz_folder"))
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
    return [str(graders_dir), "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:randomly", "-p", "no:logging",
            "-p", "no:warnings", "--capture=no",
            "--rootdir", str(graders_dir), "-c", "/dev/null", "-W", "ignore::DeprecationWarning"]


def gradable(submission: Submission) -> bool:
    """Whether at least one of the student's files can be run (the others are answered without running)."""
    return any(f.problem is None for f in submission.files.values())


def identities_of(graders_dir: Path, server: ForkServer) -> list[tuple[tuple, dict]]:
    """The hidden tests' identities and order, from one collection for a placeholder student."""
    placeholder = Submission("placeholder", {})
    plugin = GradingPlugin([placeholder], Path(os.devnull), server)
    plugin.collect_only = True
    code = pytest.main([*pytest_args(graders_dir), "--collect-only"], plugins=[plugin])
    if code != pytest.ExitCode.OK or not plugin.identities:
        raise RuntimeError(f"the hidden tests could not be collected (pytest exit code {code})")
    return plugin.identities


def run_shard(submissions: list[Submission], state_dir: Path, server: ForkServer,
              fingerprints: dict[str, str] | None = None, on_done=lambda result: None,
              graders_dir: Path = GRADERS_DIR, identities: list[tuple[tuple, dict]] | None = None) -> GradingPlugin:
    """Grade a chunk of students in one pytest session. With `identities` (identities_of), students without
    a single gradable file are answered "not attempted" at once: no session item, no child, no probe."""
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
    code = pytest.main(pytest_args(graders_dir), plugins=[plugin])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and plugin.finished < len(submissions):
        raise RuntimeError(f"the hidden tests could not be collected or run (pytest exit code {code})")
    return plugin


def main(manifest_path: str) -> int:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no process of our uid reads our memory or environment
    manifest = read_manifest(Path(manifest_path))
    server = ForkServer(SandboxConfig(isolation=manifest["isolation"], allow_weak=manifest["allow_weak"],
                                      limits=SandboxLimits.from_environment()))

    def announce(result) -> None:
        print(f"done {result_stem(result.student_id)}", flush=True)

    submissions = manifest["submissions"]
    state_dir = Path(manifest["state_dir"])
    graders_dir = Path(manifest["graders_dir"])
    try:
        identities = identities_of(graders_dir, server) if not all(map(gradable, submissions)) else None
        # One pytest session per chunk: collection stays cheap, and memory (pytest keeps every collected
        # item) stays flat however large the class is. Students without a gradable file need no session.
        chunk: list[Submission] = []
        for submission in submissions:
            if identities is not None and not gradable(submission):
                run_shard([submission], state_dir, server, manifest["fingerprints"], announce, graders_dir, identities)
                continue
            chunk.append(submission)
            if len(chunk) == CHUNK:
                run_shard(chunk, state_dir, server, manifest["fingerprints"], announce, graders_dir)
                chunk = []
        if chunk:
            run_shard(chunk, state_dir, server, manifest["fingerprints"], announce, graders_dir)
    except Exception:
        if out_of_space(state_dir):  # pytest reports a failed result write as its own internal error
            return DISK_FULL_EXIT
        raise
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
