"""The answers the kit scored by itself in a graded class: OUT/.state/quiz/kit-scored.json.

Grading writes it beside the review queue: per question, each distinct answer the kit scored without a person
(not pending, not scored by a review decision, not blank), with its score and the students who wrote it.
Keeping a review decision for later terms (learn.py, the review page) reads it: these answers are decided
too, so an addition that would make the kit score any of them otherwise (or send it to a person) is refused.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .nonanswers import is_non_answer
from .outcome import REVIEWED

KIT_SCORED = Path(".state") / "quiz" / "kit-scored.json"  # not .state/*.json: those are student results

# quiz id -> question id -> [{"answer": the answer as given (str, number or bool), "score": s, "students": [ids]}]
Scored = dict[str, dict[str, list[dict[str, Any]]]]


class NoRecord(ValueError):
    """The class's grading left no record of what the kit scored by itself."""


def kit_scored(graded: dict) -> Scored:
    """From grading's results (student id -> the quiz package's QuizResults), the answers the kit scored."""
    found: dict[tuple, dict[str, Any]] = {}
    for sid, results in sorted(graded.items()):
        for result in results:
            for item in result.items:
                given = item.given
                if item.pending or given is None or item.feedback.endswith(REVIEWED) or \
                        not isinstance(given, (str, int, float, bool)) or is_non_answer(given):
                    continue  # blanks and "I don't know" score 0 whatever the quiz says
                key = (result.quiz_id, item.question_id, type(given).__name__, str(given))
                entry = found.setdefault(key, {"answer": given, "score": float(item.score), "students": []})
                entry["students"].append(sid)
    scored: Scored = {}
    for (quiz_id, question_id, _, _), entry in found.items():
        scored.setdefault(quiz_id, {}).setdefault(question_id, []).append(entry)
    return scored


def write_kit_scored(out_dir: Path, scored: Scored) -> None:
    from ..results import write_atomic

    write_atomic(out_dir / KIT_SCORED, json.dumps(scored, indent=1, ensure_ascii=False, sort_keys=True))


def read_kit_scored(out_dir: Path) -> Scored:
    """The record, or NoRecord saying why there is none (a class graded before the kit kept it, or not yet)."""
    path = out_dir / KIT_SCORED
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        why = "there is none" if isinstance(exc, FileNotFoundError) else f"it cannot be read ({exc})"
        raise NoRecord(f"the answers the kit scored by itself in {out_dir} are not known ({KIT_SCORED}: {why}): "
                       "grade the class again with this kit, then keep the decision") from None
    if not isinstance(data, dict):
        raise NoRecord(f"{path} is not a record of scored answers: grade the class again")
    return data


def entries(scored: Scored, quiz_id: str, question_id: str) -> list[tuple[Any, float, int]]:
    """(answer, score, how many students wrote it) of one question's kit-scored answers, read defensively."""
    rows = (scored.get(quiz_id) or {}).get(question_id) or [] if isinstance(scored.get(quiz_id), dict) else []
    out = []
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get("answer"), (str, int, float, bool)) and \
                isinstance(row.get("score"), (int, float)) and not isinstance(row.get("score"), bool):
            students = row.get("students")
            out.append((row["answer"], float(row["score"]), len(students) if isinstance(students, list) else 0))
    return out
