"""A synthetic class for the review page: 200 students whose quiz answers come from the labelled sets.

Each student answers every labelled question with one labelled answer, drawn with Zipf-like weights (a
few wordings are common, most are rare, as in a real class), and often with a surface change a real class
makes (case, a full stop, spacing, an article): the teacher's score of the drawn answer is the label. The
held-out sets (written by other people) are used too: every tests/quiz/heldout*_answers.yaml, or the file
named by ATTNKIT_HELDOUT_ANSWERS. ATTNKIT_REVIEW_SETS (file names, comma-separated) picks some of these, to
measure one set's class on its own.

The teacher's time is a model, stated here so the figures can be argued with: reading a group's first
wording takes READ_GROUP seconds, each further wording READ_WORDING, each key press PRESS, and deciding to
split an answer off SPLIT_DECISION.
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import yaml

from autograder.quiz.grade import review_text

HERE = Path(__file__).parent
READ_GROUP, READ_WORDING, PRESS, SPLIT_DECISION = 5.0, 1.5, 0.4, 3.0
QUIZ_OF = {"att": "attention", "sc": "attention_score"}


def labelled_sources() -> list[Path]:
    named = os.environ.get("ATTNKIT_HELDOUT_ANSWERS", "")
    heldout = [Path(named)] if named else sorted(HERE.glob("heldout*_answers.yaml"))
    sources = [HERE / "labelled_answers.yaml"] + [p for p in heldout if p.is_file()]
    picked = [name.strip() for name in os.environ.get("ATTNKIT_REVIEW_SETS", "").split(",") if name.strip()]
    return [p for p in sources if p.name in picked] if picked else sources


def pools() -> dict[str, list[tuple[object, float]]]:
    """question id -> [(answer, teacher's score)], one entry per distinct answer (first label wins)."""
    found: dict[str, dict[str, tuple[object, float]]] = {}
    for path in labelled_sources():
        for question, rows in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            for row in rows or []:
                if isinstance(row, dict) and "answer" in row and "score" in row:
                    found.setdefault(str(question), {}).setdefault(review_text(row["answer"]),
                                                                   (row["answer"], float(row["score"])))
    return {q: list(v.values()) for q, v in found.items()}


SURFACE = [lambda t: t, lambda t: t, lambda t: t, lambda t: t.lower(), lambda t: t.capitalize(),
           lambda t: t.rstrip(".") + ".", lambda t: " ".join(t.split()) + " ", lambda t: t.upper()]
# Case carries meaning in code and formulas (`F.softmax` is not `f.SOFTMAX`, K is not k): a class does not
# retype them in another case, and a label given to one spelling says nothing of the other. What it does:
# a phone capitalises the first letter, a full stop or spaces are added.
FORMAL_SURFACE = [lambda t: t, lambda t: t, lambda t: t, lambda t: t, lambda t: t[:1].upper() + t[1:],
                  lambda t: t.rstrip(".") + ".", lambda t: " ".join(t.split()) + " ", lambda t: t]


def formal_questions() -> set[str]:
    """Questions whose answers are code or formulas."""
    from autograder.grading.quizzes import load_class_quizzes

    return {q.id for quiz in load_class_quizzes() for q in quiz.questions if q.maths or q.code}


def build(root: Path, students: int = 200, seed: int = 19) -> dict[str, float]:
    """Write the class into root (one folder per student); return the teacher's score by (question,
    review text) for every answer handed in."""
    rng = random.Random(seed)
    labels: dict[tuple[str, str], float] = {}
    by_quiz: dict[str, dict[str, list[tuple[object, float]]]] = {}
    formal = formal_questions()
    for question, pool in sorted(pools().items()):
        quiz = QUIZ_OF.get(question.split("-")[0])
        if quiz:
            order = pool[:]
            rng.shuffle(order)
            by_quiz.setdefault(quiz, {})[question] = order
    for n in range(students):
        folder = root / f"s{n:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for quiz, questions in by_quiz.items():
            sheet = {}
            for question, pool in questions.items():
                answer, score = rng.choices(pool, weights=[1 / (rank + 1) for rank in range(len(pool))])[0]
                if isinstance(answer, str):
                    answer = rng.choice(FORMAL_SURFACE if question in formal else SURFACE)(answer)
                sheet[question] = answer
                labels[question, review_text(answer)] = score
            (folder / f"quiz_{quiz}.yaml").write_text(yaml.safe_dump(sheet, allow_unicode=True), encoding="utf-8")
    return labels


def minutes(groups_read: list[int], presses: int, splits: int) -> float:
    """The teacher's time in the model above: groups_read holds the number of wordings of each group read."""
    seconds = sum(READ_GROUP + READ_WORDING * (w - 1) for w in groups_read) + PRESS * presses + SPLIT_DECISION * splits
    return seconds / 60
