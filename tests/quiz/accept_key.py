"""What the review page's accept key (`a`/Enter) would do to a labelled set, and whether the hints beside each
group say one thing. Shared by tests/quiz/test_quiz_labelled.py and test_quiz_heldout.py, on the answers their
module fixtures grade already (no grading of its own)."""
from __future__ import annotations

import re

from autograder.grading.quizzes import _suggestion
from autograder.quiz import review_text
from autograder.quiz.review import build_review


_BUILT: dict[int, tuple[list, dict]] = {}


def review_of(rows: list[dict], quizzes: dict) -> dict:
    """The review document `attnkit review` would write for these graded rows ({question, answer, score,
    result}), each answer one student's; built once per fixture's rows."""
    if id(rows) in _BUILT and _BUILT[id(rows)][0] is rows:
        return _BUILT[id(rows)][1]
    _BUILT[id(rows)] = (rows, _build(rows, quizzes))
    return _BUILT[id(rows)][1]


def _build(rows: list[dict], quizzes: dict) -> dict:
    quiz_of = {q.id: quiz_id for quiz_id, quiz in quizzes.items() for q in quiz.questions}
    queue: dict = {}
    for index, row in enumerate(rows):
        item = row["result"]
        if not item.pending:
            continue
        entry = queue.setdefault(quiz_of[row["question"].id], {}).setdefault(row["question"].id, {}).setdefault(
            item.review_text, {"answer": str(item.given), "students": [], "meaning": item.meaning,
                               **_suggestion(item)})
        entry["students"].append(f"s{index}")
    return build_review(queue, quizzes, None)[0]


def accepted_below_label(rows: list[dict], quizzes: dict) -> list[tuple]:
    """Answers labelled correct (full points) that the accept key would score lower: (question, answer,
    label, what the key gives)."""
    labels = {(row["question"].id, review_text(row["answer"])): row["score"] for row in rows}
    points = {row["question"].id: row["question"].points for row in rows}
    found = []
    for blocks in review_of(rows, quizzes).values():
        for question_id, block in blocks.items():
            for group in block["groups"]:
                if "suggested" not in group:
                    continue  # a hint: no key takes it
                for answer in group["answers"]:
                    label = labels.get((question_id, review_text(answer)))
                    if label == points[question_id] and group["suggested"] < label:
                        found.append((question_id, answer, label, group["suggested"]))
    return found


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^\w]+", text.casefold()) if w}


def contradictions(rows: list[dict], quizzes: dict) -> list[tuple]:
    """Hints that name a word as mentioned (a rubric keyword found) and also as a word outside the key terms."""
    found = []
    for blocks in review_of(rows, quizzes).values():
        for question_id, block in blocks.items():
            for group in block["groups"]:
                why = group.get("why", "")
                mentioned = re.search(r"rubric [^:]*: mentions (.*?)(?:; |$)", why)
                outside = re.search(r"words outside the question's key terms \((.*?)\)(?:;|$)", why)
                if not (mentioned and outside):
                    continue
                said = set().union(*(_words(k) for k in re.findall(r"'([^']*)'", mentioned.group(1))))
                listed = set().union(*(_words(k) for k in re.findall(r"'([^']*)'", outside.group(1))))
                if said & listed:
                    found.append((question_id, group["answers"][0], why))
    return found


__all__ = ["accepted_below_label", "contradictions", "review_of"]
