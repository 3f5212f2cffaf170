"""Grade a class: discover submissions, deal them to workers, collect one result per student.

Results are the durable unit: one file per student in OUT/.state, written atomically by the
worker. A run that is interrupted and started again grades only students without an up-to-date
result, so it finishes the class with the same results as an uninterrupted run.
"""
from __future__ import annotations

import errno
from collections import deque
from dataclasses import replace
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from .. import paths, profiling
from ..course import Parts, released
from ..sandbox import resolve
from . import inprocess
from ..results import StudentResult, load, safe_result
from .importers import ClassImport, import_class
from .submissions import Submission, notebook_cells, result_stem
from .version import grader_version
from .worker import CHUNK, DISK_FULL_EXIT, dump_manifest

STATE = ".state"
IMPORT = ".import"  # inside STATE: students' files unpacked or rearranged for grading, removed afterwards


class DiskFull(OSError):
    """OUT's disk is full: grading stopped; finished students are kept and a re-run resumes."""

    def __init__(self, where: Path) -> None:
        super().__init__(errno.ENOSPC, f"The disk holding {where} is full: grading stopped. Free some space and "
                                       "run the same command again; students already graded are kept.")

    def __str__(self) -> str:
        return self.strerror


def shipped_stubs(assignments: tuple[str, ...] | None = None) -> dict[str, dict[str, str]]:
    """The handout's code per assignment and format, to tell an untouched file from an edited one."""
    stubs = {}
    for name in paths.ASSIGNMENTS if assignments is None else assignments:
        folder = paths.ASSIGNMENTS_DIR / name
        py, nb = folder / f"{name}.py", folder / f"{name}.ipynb"
        stubs[name] = {"py": py.read_text(encoding="utf-8") if py.exists() else "",
                       "ipynb": "\n\n".join(notebook_cells(nb.read_bytes(), handout=True)[0]) if nb.exists() else ""}
    return stubs


def grade_class(submissions_dir: Path, out_dir: Path, workers: int | None = None, isolation: str = "auto",
                graders_dir: Path = paths.GRADERS_DIR,
                progress: Callable[[str, int, int], None] = lambda event, done, total: None,  # start/waiting/student
                warn: Callable[[str], None] = lambda text: None, allow_weak: bool = False,
                announce: Callable[[str], None] = lambda text: None,
                imported: ClassImport | None = None, parts: Parts | None = None) -> list[StudentResult]:
    """Grade every student of SUBMISSIONS (read by `import_class` unless `imported` is given) on `parts` (default:
    what the course file releases; course.py): a part not selected is neither graded nor in any result. Raises
    SandboxUnavailable (before any work) when student code cannot be isolated as asked, and DiskFull when
    OUT's disk fills up."""
    parts = parts or released()
    if imported is None:
        imported = import_class(submissions_dir, out_dir / STATE / IMPORT, list(parts.assignments),
                                shipped_stubs(parts.assignments))
        announce(imported.summary)
        for line in imported.skipped:
            warn(line)
    try:
        return _grade(imported.submissions, out_dir, workers, isolation, graders_dir, progress, warn, allow_weak,
                      announce, parts)
    finally:
        shutil.rmtree(out_dir / STATE / IMPORT, ignore_errors=True)  # staged copies of students' files


def _grade(students: list[Submission], out_dir: Path, workers: int | None, isolation: str, graders_dir: Path,
           progress, warn, allow_weak: bool, announce, parts: Parts) -> list[StudentResult]:
    state_dir = out_dir / STATE
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise (DiskFull(out_dir) if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc) from None
    for stale in state_dir.glob(".work-*"):  # scratch of a run that was killed
        shutil.rmtree(stale, ignore_errors=True)
    for partial in state_dir.glob(".*.tmp"):  # a result half-written when the disk filled up
        partial.unlink(missing_ok=True)
    version = grader_version(graders_dir)
    fingerprints = {s.student_id: f"{version}-{s.fingerprint}" for s in students}
    todo = [s for s in students if not _up_to_date(state_dir, s, fingerprints[s.student_id])]
    if len(todo) < len(students):
        announce(f"resuming: {len(students) - len(todo)} of {len(students)} already graded")
    progress("start", len(students) - len(todo), len(students))
    profiling.event("submissions discovered", students=len(students), todo=len(todo))
    server = quizzes_loaded = None  # one shard: its fork server (for the quizzes' code answers) and quiz files
    if todo:
        chosen = resolve(isolation, allow_weak)
        profiling.event("isolation resolved", mode=chosen.mode)
        announce(f"sandbox: {chosen.description}; {resources_note()}")
        if chosen.warning:
            warn(chosen.warning)
        tick = lambda: progress("student", 0, len(students))  # noqa: E731
        count = workers or os.cpu_count() or 1
        waiting = lambda: progress("waiting", 0, len(students))  # noqa: E731 - this process now mostly waits
        if inprocess.wanted(max(1, min(count, len(todo)))):
            server, quizzes_loaded = inprocess.grade(todo, state_dir, out_dir, fingerprints, chosen, allow_weak,
                                                     graders_dir, tick, waiting)
        else:
            _run_workers(todo, state_dir, out_dir, fingerprints, count, chosen.mode,
                         allow_weak, graders_dir, tick, waiting)
        profiling.event("code graded")
    # YAML and JSON Schema: not in front of the fork server's launch
    from .quizzes import grade_class_quizzes, load_class_quizzes

    with tempfile.TemporaryDirectory(prefix="attnkit-nothing-") as nothing, inprocess.closing(server):
        # a refused folder (a link, a clash of names) has nothing to read: its quizzes score 0
        folders = {s.student_id: Path(s.quiz_folder or nothing) for s in students}
        course_quizzes = quizzes_loaded() if quizzes_loaded else load_class_quizzes()
        quizzes = grade_class_quizzes(folders, out_dir, isolation, allow_weak=allow_weak, warn=warn, server=server,
                                      quizzes=[q for q in course_quizzes if parts.has_quiz(q.id)],
                                      found={s.student_id: s.quiz_files for s in students if s.quiz_files})
    profiling.event("quizzes graded")
    results = []
    safe: dict[int, object] = {}  # quiz results shared by many students (empty folders) are made safe once

    def safe_once(quiz):  # alive in `quizzes` for the whole loop: its id names it
        if id(quiz) not in safe:
            safe[id(quiz)] = safe_result(quiz)
        return safe[id(quiz)]

    for student in students:
        path = state_dir / f"{result_stem(student.student_id)}.json"
        try:
            loaded = load(path)
        except FileNotFoundError:
            raise RuntimeError(f"grading {student.student_id!r} produced no result; see {out_dir / 'logs'}") from None
        own = tuple(safe_once(quiz) for quiz in quizzes[student.student_id])
        results.append(replace(loaded, quizzes=own))  # saved results are safe
    return results


def resources_note() -> str:
    """Which bound holds a student's memory and processes here (docs/isolation.md)."""
    from ..sandbox import cgroups

    found = cgroups.detect()
    return found.description if found else "one process per student, memory bounded by its address space"


def _up_to_date(state_dir: Path, student: Submission, fingerprint: str) -> bool:
    path = state_dir / f"{result_stem(student.student_id)}.json"
    try:
        return load(path).fingerprint == fingerprint
    except (OSError, ValueError, KeyError, TypeError):
        return False


def batch_size(left: int, workers: int) -> int:
    """Students in the next batch a free worker is dealt (guided self-scheduling): large while many are left, so
    there are few pytest sessions, down to one at the end, so no worker idles while another ends a long batch."""
    return min(left, CHUNK, max(1, -(-left // (2 * workers))))


def _run_workers(todo: list[Submission], state_dir: Path, out_dir: Path, fingerprints: dict[str, str],
                 workers: int, isolation: str, allow_weak: bool, graders_dir: Path, tick: Callable[[], None],
                 waiting: Callable[[], None] = lambda: None) -> None:
    """Grade `todo` with worker processes. Students are dealt in batches to whichever worker is free (a worker
    says `ready` after each batch), so a slow student holds up only the batch it is in."""
    from .quiz_prefetch import merge_into
    from .quizzes import CODE_CACHE

    count = max(1, min(workers, len(todo)))
    queue = deque(range(len(todo)))
    logs = out_dir / "logs"
    logs.mkdir(exist_ok=True)
    selector = selectors.DefaultSelector()
    processes: list[tuple[subprocess.Popen, object]] = []
    stopping = False  # a worker failed: the others end their batch and are dealt no more

    def deal(process: subprocess.Popen) -> None:
        size = 0 if stopping else batch_size(len(queue), count)
        batch = [queue.popleft() for _ in range(size)]
        try:
            if batch:
                process.stdin.write(" ".join(map(str, batch)).encode() + b"\n")
                process.stdin.flush()
            else:
                process.stdin.close()
        except OSError:  # the worker is gone: its exit code says so
            pass

    # The manifest holds students' sources: keep it inside OUT (the instructor's folder), not in /tmp.
    with tempfile.TemporaryDirectory(prefix=".work-", dir=state_dir) as scratch:
        manifest = Path(scratch) / "class.json"
        try:
            dump_manifest(manifest, todo, state_dir, isolation, allow_weak, fingerprints, graders_dir,
                          {"class": str(out_dir / CODE_CACHE), "shard": None})
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise DiskFull(out_dir) from None
            raise
        for index in range(count):
            log = open(logs / f"worker-{index}.log", "w", encoding="utf-8")
            process = subprocess.Popen([sys.executable, "-m", "autograder.grading.worker", str(manifest),
                                        str(Path(scratch) / f"verdicts-{index}.json")],
                                       cwd=paths.ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                       env={**os.environ, "PYTHONPATH": str(paths.ROOT)})
            processes.append((process, log))
            selector.register(process.stdout, selectors.EVENT_READ, process)
            deal(process)
        waiting()  # every worker started: this process now only deals and waits (their output is buffered)
        unfinished = {process.stdout.fileno(): b"" for process, _ in processes}  # a line's start, per worker
        while unfinished:
            for key, _ in selector.select():
                # os.read, not readline: a line left in a reader's buffer would raise no event, and a worker
                # waiting for its next batch after `ready` would wait for ever
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                    del unfinished[key.fd]
                    stopping |= key.data.wait() != 0
                    continue
                *lines, unfinished[key.fd] = (unfinished[key.fd] + data).split(b"\n")
                for line in lines:
                    if line.startswith(b"done "):
                        tick()
                    elif line == b"ready":
                        deal(key.data)
        failed, disk_full = [], False
        for index, (process, log) in enumerate(processes):
            code = process.wait()
            disk_full |= code == DISK_FULL_EXIT
            if code != 0:
                failed.append(index)
            log.close()
        if not failed:  # the workers' quiz code verdicts, kept for the quiz grading that follows
            merge_into(out_dir / CODE_CACHE, [Path(scratch) / f"verdicts-{i}.json" for i in range(count)])
    if disk_full:
        raise DiskFull(out_dir)
    if failed:
        detail = (logs / f"worker-{failed[0]}.log").read_text(encoding="utf-8")[-3000:]
        raise RuntimeError(f"grading worker(s) {failed} failed (a grader problem, not a student's):\n{detail}")
