"""Quiz code answers judged by the grading workers, each with its own warm fork server, after each batch's
code: the coordinator then finds every verdict kept and starts no fork server (nor torch) of its own.

Each worker keeps its verdicts in a file of its own (no two writers on one file); the coordinator merges
them into the class's verdict cache (grading/quizzes.py), which then grades the quizzes as usual. A
worker that cannot judge an answer leaves it out: the coordinator judges what is missing, as before.
"""
from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

from ..results import write_atomic
from .quizzes import _code_answers, _read, _verdict_stamp, load_class_quizzes, stamp_verdict_cache
from .submissions import Submission


def kept_verdicts(cache: Path) -> dict[str, dict]:
    """The class's kept verdicts, when made by this version (else none)."""
    from ..quiz.code_answers import _read_cache

    return _read_cache(cache) if cache.exists() and _verdict_stamp(cache)[2] else {}


class WorkerJudge:
    """Judges the new code answers of each batch's quiz files with the worker's warm `server` (left open), right
    after the batch's code, so that this work is dealt with the students instead of ending one worker's run."""

    def __init__(self, class_cache: Path, shard_cache: Path, server, isolation: str, allow_weak: bool) -> None:
        self.class_cache, self.shard_cache, self.server = class_cache, shard_cache, server
        self.isolation, self.allow_weak = isolation, allow_weak
        self.quizzes: list | None = None  # loaded at the first batch with a quiz folder
        self.kept: dict[str, dict] = {}

    def judge(self, submissions: list[Submission]) -> None:
        from ..quiz.code_answers import CodeEvaluator

        folders = [(Path(s.quiz_folder), s.quiz_files) for s in submissions if s.quiz_folder]
        if not folders:
            return
        try:
            if self.quizzes is None:
                self.quizzes, self.kept = load_class_quizzes(), kept_verdicts(self.class_cache)
            sheets = {str(folder): {quiz.id: _read(quiz, folder, found) for quiz in self.quizzes}
                      for folder, found in folders}
            work = _code_answers(self.quizzes, sheets)
            if not work:
                return
            evaluator = CodeEvaluator(self.isolation, self.shard_cache, self.allow_weak)  # with the batches' so far
            evaluator.cache.update(self.kept)
            evaluator.server = self.server
            evaluator.evaluate(work)
        except Exception:  # noqa: BLE001 - the coordinator judges what is missing, and reports its own failure
            traceback.print_exc(file=sys.stderr)


def merge_into(class_cache: Path, shard_caches: list[Path]) -> None:
    """Add the workers' verdicts to the class's verdict cache, stamped with this version."""
    from ..quiz.code_answers import _read_cache

    found = [p for p in shard_caches if p.is_file()]
    if not found:
        return
    merged = kept_verdicts(class_cache)
    for path in found:
        merged.update(_read_cache(path))
    write_atomic(class_cache, json.dumps(merged, indent=0, sort_keys=True))
    stamp_verdict_cache(class_cache)
