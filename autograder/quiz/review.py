"""Answers that need a person: gather them once per group, keep the instructor's decisions.

`make grade` writes every answer it could not judge to OUT/.state/quiz/review-queue.json and marks its
points as pending. `attnkit review OUT` turns the queue into OUT/review.yaml: per question, groups of
answers that mean the same (review_meaning.py; answers that differ in a number, a negation or before/after
never share a group), each with a `score:` for the instructor to fill in, on the review page
(review_page/) or in the file. The next `make grade` applies each decision to every answer in its group, now and in every
later run; a re-run of `attnkit review` keeps the decisions and adds only new answers.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .grade import Decision, review_text, rubric_suggestion
from .model import Quiz
from .review_meaning import join_near_readings, meaning_groups, merge_same_meaning

QUEUE = Path(".state") / "quiz" / "review-queue.json"  # not .state/*.json: those are student results
NOTED = Path(".state") / "quiz" / "noted.json"
REVIEW_FILE = "review.yaml"
HEADER = """\
# Quiz answers the grader could not judge, grouped by meaning (wordings that say the same), largest first.
# For each group, set `score` (0 up to the question's points) and, if you like, `feedback` for the students.
# Then run the grading again with the same OUT folder: each decision applies to every answer in its group,
# now and in every later run. A group left without a score stays pending (not 0) in the gradebook.
# To grade one answer differently from its group, move its line into a new group of its own.
# `suggested` (rare) is a score that follows from a rule, such as 0 for a wrong option whatever its reason: the
# review page takes it with `a` or Enter. `hint` is what the keyword rubric counted or what grading read, and
# `why` what it read and matched: never a score to take without reading the answers.
# `noted` (quizzes with `reasons: choice`): answers scored by their option or verdict alone, whose reason may
# contradict the key. They need no decision; they are listed so you can see them.
"""


@dataclass
class ReviewDecisions:
    """Decisions read from review.yaml, by (quiz id, question id, normalised answer)."""
    by_answer: dict[tuple[str, str, str], Decision] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, quiz_id: str, question_id: str, text: str) -> Decision | None:
        return self.by_answer.get((quiz_id, question_id, text))


def load_decisions(path: Path, quizzes: dict[str, Quiz]) -> ReviewDecisions:
    decisions = ReviewDecisions()
    if not path.is_file():
        return decisions
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        decisions.warnings.append(f"{path.name} could not be read ({exc}); its decisions were not applied")
        return decisions
    for quiz_id, question_id, index, group in _groups(data):
        where = f"{path.name}: {question_id}, group {index + 1}"
        quiz = quizzes.get(quiz_id)
        if quiz is None or question_id not in {q.id for q in quiz.questions}:
            decisions.warnings.append(f"{where}: no such question in quiz {quiz_id!r}; ignored")
            continue
        score = group.get("score")
        if score is None or score == "":
            continue
        problem = score_problem(score, quiz.question(question_id).points)
        if problem:
            decisions.warnings.append(f"{where}: {problem}; the group stays pending")
            continue
        feedback = group.get("feedback") if isinstance(group.get("feedback"), str) else ""
        for answer in group.get("answers") or []:
            decisions.by_answer[quiz_id, question_id, review_text(answer)] = Decision(float(score), feedback.strip())
    return decisions


def score_problem(score: Any, points: float) -> str | None:
    """Why a group's score cannot be applied, or None: the one rule grading and the review both use, so a
    score grading refuses is never taken by the review for a decision made."""
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= points:
        return f"score {score!r} is not a number from 0 to {points:g}"
    return None


def _decided(group: dict, points: float) -> bool:
    return group.get("score") not in (None, "") and score_problem(group.get("score"), points) is None


def _groups(data: Any):
    if not isinstance(data, dict):
        return
    for quiz_id, questions in data.items():
        if not isinstance(questions, dict):
            continue
        for question_id, block in questions.items():
            groups = block.get("groups") if isinstance(block, dict) else None
            for index, group in enumerate(groups if isinstance(groups, list) else []):
                if isinstance(group, dict):
                    yield str(quiz_id), str(question_id), index, group


# --- the queue written by grading ---------------------------------------------------------------

def write_queue(out_dir: Path, pending: dict[str, dict[str, dict[str, dict]]]) -> None:
    """pending: quiz id -> question id -> normalised answer -> {"answer": text, "students": [ids]}."""
    from ..results import write_atomic

    write_atomic(out_dir / QUEUE, json.dumps(pending, indent=1, ensure_ascii=False, sort_keys=True))


def write_noted(out_dir: Path, noted: dict[str, dict[str, dict[str, dict]]]) -> None:
    """Answers scored by their choice alone (`reasons: choice`) beside a reason that may contradict the key:
    quiz id -> question id -> normalised answer -> {"answer", "students", "why"}. Listed in review.yaml."""
    from ..results import write_atomic

    write_atomic(out_dir / NOTED, json.dumps(noted, indent=1, ensure_ascii=False, sort_keys=True))


def read_noted(out_dir: Path) -> dict:
    try:
        data = json.loads((out_dir / NOTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_queue(out_dir: Path) -> dict:
    path = out_dir / QUEUE
    if not path.is_file():
        if (out_dir / ".state").is_dir():
            return {}  # graded, and no answer needed a person
        raise FileNotFoundError(f"{out_dir} holds no graded class: run the grading into it first")
    return json.loads(path.read_text(encoding="utf-8"))


# --- grouping ------------------------------------------------------------------------------------

def cluster(texts: list[str], weight: dict[str, int] | None = None,
            meaning: dict[str, str | None] | None = None, readings: bool = False) -> list[list[str]]:
    """Groups of answers that mean the same (review_meaning.py), largest first: close in wording, or of one
    meaning as grading read it (`readings`: free text read with the question's terms)."""
    groups = merge_same_meaning(meaning_groups(texts, weight), meaning or {}, weight, readings)
    return join_near_readings(groups, meaning or {}, weight) if readings else groups


def anchored(question, entries: dict[str, dict], meaning: dict[str, str | None]) -> dict[str, str]:
    """Answers that state the key terms of one accepted answer, scored answer or listed misconception, in its
    order, with other words beside them that turn nothing (no negation, cause, contrast, role word or letter,
    number), at one suggested score: one group key each. The words beside the terms decide the score, so
    the teacher still reads every wording; grouping only puts them side by side."""
    if not question.terms or question.maths is not None or question.code is not None:
        return {}
    from .meaning import GUARDS, accepted_structures, lexicon, read_meaning, scored_structures
    from .review_meaning import HEDGES, _words, roles_in

    lex = lexicon(question.terms, question.languages)
    anchors = set(accepted_structures(question.accepted, lex)) | set(scored_structures(question.scored, lex))
    anchors |= {r.terms for r in (read_meaning(m.answer, lex) for m in question.misconceptions) if not r.unknown}
    keys = {}
    for text, reading in meaning.items():
        if not reading or reading.startswith("misconception:"):
            continue
        terms = tuple(re.findall(r"<([^<>\s]+)>", reading))
        beside = re.sub(r"<[^<>\s]+>", " ", reading).split()
        turning = [w for w in beside if (w in GUARDS and w not in HEDGES) or re.search(r"\d", w)
                   or any(roles_in(x) for x in _words(w))]
        score = entries[text].get("suggested")
        if terms in anchors and not turning and isinstance(score, (int, float)):
            keys[text] = f"§states {' '.join(terms)} at {score:g}"
    return keys


def suggestion(question, entry: dict) -> tuple[float | None, str, bool]:
    """A group's hint: the score grading attached to the answer (when it did), else the keyword rubric's count,
    why, and whether the score follows from a rule (`certain`: the only kind the review page takes with one
    key). Read defensively: a queue written by another version may carry none of them."""
    score, why = entry.get("suggested"), entry.get("why")
    if isinstance(score, (int, float)) and not isinstance(score, bool) and 0 <= score <= question.points:
        return float(score), why if isinstance(why, str) else "", entry.get("certain") is True
    rubric = rubric_suggestion(question, entry.get("answer", ""))
    if rubric is None:
        return None, "", False
    return rubric, _rubric_why(question, entry.get("answer", "")), False


def _rubric_why(question, answer: str) -> str:
    """Which rubric items the answer mentions: the reason behind a rubric suggestion."""
    hint = "the keyword rubric's count, a hint only"
    try:
        from .normalize import keyword_in, normalize_answer

        text = normalize_answer(answer)
        hits = [item for item in question.rubric if any(keyword_in(k, text) for k in item.keywords)]
    except Exception:  # noqa: BLE001 - a missing reason must not stop the review
        return hint
    if not hits:
        return f"mentions none of the rubric's key points ({hint})"
    named = ", ".join(f"{item.keywords[0]!r} (+{item.points:g})" for item in hits)
    return f"mentions {named} ({hint})"


def build_review(queue: dict, quizzes: dict[str, Quiz], existing: Any,
                 noted: dict | None = None) -> tuple[dict, int, int]:
    """The new review document: existing groups kept (decided ones whole; undecided ones as the instructor
    split them, with only answers still pending), new pending answers grouped. Returns (document, number
    of groups to decide, number of answers in them)."""
    document: dict[str, dict] = {}
    to_decide = answers_to_decide = 0
    kept = {(q, qid): [g for _, _, _, g in _groups({q: {qid: b}})]
            for q, questions in (existing or {}).items() if isinstance(questions, dict)
            for qid, b in questions.items()} if isinstance(existing, dict) else {}
    for quiz_id, quiz in quizzes.items():
        for question in quiz.questions:
            pending = queue.get(quiz_id, {}).get(question.id, {})
            old = kept.get((quiz_id, question.id), [])
            decided = [g for g in old if _decided(g, question.points)]
            claimed = {review_text(a) for g in decided for a in g.get("answers") or []}
            groups = []
            for old_group in (g for g in old if not _decided(g, question.points)):  # as split or moved: kept
                answers = [a for a in old_group.get("answers") or []
                           if review_text(a) in pending and review_text(a) not in claimed]
                if answers:
                    claimed |= {review_text(a) for a in answers}
                    students = sorted({s for a in answers for s in pending[review_text(a)].get("students", [])})
                    refused = old_group.get("score") not in (None, "")  # a score grading cannot apply: decide again
                    note = {"score": None, "why": f"{score_problem(old_group['score'], question.points)}: "
                                                  "score this group again"} if refused else {}
                    groups.append({**old_group, **note, "students": students, "answers": answers})
                    to_decide += 1
                    answers_to_decide += len(answers)
            new = {text: entry for text, entry in pending.items() if text not in claimed}
            listed = (noted or {}).get(quiz_id, {}).get(question.id, {})
            block = {"question": question.prompt, "points": question.points,
                     "expected": question.correct_answer_text(), "groups": []}
            if listed:
                block["noted"] = [{"answer": e.get("answer", t), "students": e.get("students", []),
                                   "why": e.get("why", "")} for t, e in sorted(listed.items()) if isinstance(e, dict)]
            if not decided and not groups and not new:
                if listed:
                    document.setdefault(quiz_id, {})[question.id] = block
                continue
            weight = {t: len(e.get("students", [])) for t, e in new.items()}
            meaning = {t: e.get("meaning") if isinstance(e.get("meaning"), str) else None for t, e in new.items()}
            meaning.update(anchored(question, new, meaning))
            readings = bool(question.terms) and question.maths is None and question.code is None
            for members in cluster(list(new), weight, meaning, readings):
                students = sorted({s for t in members for s in new[t].get("students", [])})
                hints = [suggestion(question, new[t]) for t in members]
                suggested, why, _ = hints[0]
                others = sorted({s for s, _, _ in hints[1:] if s is not None and s != suggested})
                if others:  # grouping never settles a score: the teacher sees that the hints disagree
                    why = (why + "; " if why else "") + "other answers of this group are suggested " + \
                        ", ".join(f"{s:g}" for s in others)
                # one key takes a score only where a rule gives it to every answer of the group
                certain = all(c and s == suggested for s, _, c in hints)
                group = {"score": None, "feedback": ""}
                if suggested is not None:
                    group["suggested" if certain else "hint"] = suggested
                    if why:
                        group["why"] = why
                group.update({"students": students, "answers": [new[t]["answer"] for t in members]})
                groups.append(group)
                to_decide += 1
                answers_to_decide += len(members)
            groups.sort(key=lambda g: -len(g["students"]))
            document.setdefault(quiz_id, {})[question.id] = {**block, "groups": decided + groups}
    return document, to_decide, answers_to_decide


def write_review(out_dir: Path, quizzes: dict[str, Quiz]) -> tuple[Path, int, int, int]:
    """`attnkit review OUT`: (re)write OUT/review.yaml from the queue, keeping every decision made. Returns
    (its path, groups to decide, answers in them, decided groups whose answers grading has not applied yet).
    With nothing to review and no file yet, no file is written."""
    path = out_dir / REVIEW_FILE
    existing = None
    if path.is_file():
        try:
            existing = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ValueError(f"{path} is not valid YAML ({exc}); fix it before gathering new answers") from None
    queue = read_queue(out_dir)
    document, groups, answers = build_review(queue, quizzes, existing, read_noted(out_dir))
    if document or path.is_file():
        save_review(path, document)
    unapplied = sum(1 for quiz_id, block in document.items() for question_id, data in block.items()
                    for group in data.get("groups") or [] if group.get("score") not in (None, "")
                    and any(review_text(a) in queue.get(quiz_id, {}).get(question_id, {})
                            for a in group.get("answers") or []))
    return path, groups, answers, unapplied


def save_review(path: Path, document: dict) -> None:
    """Atomically: a crash leaves the previous decisions or the new ones, never half a file."""
    from ..results import write_atomic

    write_atomic(path, HEADER + "\n" + yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=110))
