"""What one term's review teaches the next: `python bench/learn_bench.py --learn-from A.yaml [...] --grade B.yaml [...]`.

A labelled set stands for one term's class: every answer the kit leaves pending is reviewed by a script standing
in for the teacher (each group gets the label of its answers; a group whose answers carry different labels is
split, one group per label), and `learn` turns the decisions into additions to a copy of the quiz files (never
one that changes an answer the kit scored by itself in that class). Then
another labelled set, the next term's class, is graded with the quizzes before and after: its pending share
(all answers, free text), the review time under the bench's model (tests/quiz/review_class.py: 5 s per group,
1.5 s per further wording, 0.4 s per key press, 3 s per split) over its distinct pending wordings, and, over every labelled
set, each answer the kit now scores by itself against its label where it did not before.

Sets are named by path, or by file name in tests/quiz/; several after one option are read as one class. A set
written by someone else (the format of tests/quiz/heldout7_answers.yaml: question id -> list of {score,
answer}) is measured as it is: question ids no quiz has and rows without answer or score are reported and
left out. Exit status 1 when an answer changes against its label without a decision of the reviewed class
that explains it.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.quiz import load_quizzes  # noqa: E402
from autograder.quiz.grade import grade_question, review_text  # noqa: E402
from autograder.quiz.learn import learn  # noqa: E402
from autograder.quiz.review import build_review  # noqa: E402

SETS = ROOT / "tests" / "quiz"
READ_GROUP, READ_WORDING, PRESS, SPLIT_DECISION = 5.0, 1.5, 0.4, 3.0  # tests/quiz/review_class.py


def labelled(path: Path) -> list[tuple[str, object, float]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [(qid, row["answer"], float(row["score"])) for qid, rows in data.items() for row in rows or []
            if isinstance(row, dict) and "answer" in row and "score" in row]


def questions(quizzes) -> dict:
    return {q.id: (quiz_id, q) for quiz_id, quiz in quizzes.items() for q in quiz.questions}


def grade(rows, quizzes):
    by_id = questions(quizzes)
    return [(qid, answer, label, grade_question(by_id[qid][1], answer)) for qid, answer, label in rows if qid in by_id]


def teacher_review(graded, quizzes) -> dict:
    """review.yaml as the stand-in teacher leaves it: every pending group decided from its answers' labels."""
    by_id = questions(quizzes)
    queue: dict = {}
    label_of: dict = {}
    for qid, answer, label, item in graded:
        if item.pending:
            quiz_id = by_id[qid][0]
            entry = queue.setdefault(quiz_id, {}).setdefault(qid, {}).setdefault(
                review_text(answer), {"answer": str(answer), "students": [], "meaning": item.meaning})
            entry["students"].append(f"s{len(entry['students'])}")
            label_of.setdefault((qid, review_text(answer)), label)
    document, _, _ = build_review(queue, quizzes, None)
    for quiz_id, blocks in document.items():
        for qid, block in blocks.items():
            split = []
            for group in block["groups"]:
                by_label = defaultdict(list)
                for answer in group["answers"]:
                    by_label[label_of[qid, review_text(answer)]].append(answer)
                split += [{**group, "score": label, "answers": answers} for label, answers in by_label.items()]
            block["groups"] = split
    return document


def kit_scored(graded, quizzes) -> dict:
    """The answers the kit scored by itself in the reviewed class (as grading records them: kit_scored.py)."""
    by_id = questions(quizzes)
    kit: dict = {}
    for qid, answer, _, item in graded:
        if not item.pending and item.given is not None:
            kit.setdefault(by_id[qid][0], {}).setdefault(qid, []).append(
                {"answer": answer, "score": float(item.score), "students": ["s"]})
    return kit


def shares(graded) -> str:
    free = [g for g in graded if g[3].pending is not None and _free(g)]
    pending = sum(g[3].pending for g in graded)
    free_pending = sum(g[3].pending for g in free)
    return (f"{pending} of {len(graded)} pending ({pending / len(graded):.0%}); free text {free_pending} of "
            f"{len(free)} ({free_pending / max(len(free), 1):.0%})")


_FREE: set[str] = set()


def _free(row) -> bool:
    return row[0] in _FREE


def against_labels(before, after) -> list[tuple]:
    """Answers the kit scores by itself after learning, against their label, where before it did not."""
    return [(qid, answer, label, a.score) for (qid, answer, label, b), (_, _, _, a) in zip(before, after)
            if not a.pending and abs(a.score - label) > 1e-9 and (b.pending or abs(b.score - label) <= 1e-9)]


def labelled_set(name: str) -> Path:
    """A labelled set by path, or by file name in tests/quiz/ (the sets shipped with the kit)."""
    path = Path(name)
    if not path.is_file() and (SETS / name).is_file():
        path = SETS / name
    if not path.is_file():
        raise SystemExit(f"no labelled set at {name} (nor tests/quiz/{name})")
    return path.resolve()


def check_set(path: Path, quizzes) -> list[str]:
    """What in a labelled set the bench cannot use: question ids no quiz has, rows without answer or score."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        return [f"{path.name}: not a mapping of question id -> answers"]
    known = questions(quizzes)
    problems = [f"{path.name}: {qid}: no quiz has this question; its answers are left out"
                for qid in data if str(qid) not in known]
    for qid, rows in data.items():
        bad = [row for row in rows or [] if not (isinstance(row, dict) and "answer" in row and "score" in row)]
        if bad:
            problems.append(f"{path.name}: {qid}: {len(bad)} row(s) without `answer` and `score`; left out")
    return problems


def per_wording(graded, quizzes) -> str:
    """Review time per waiting wording and groups per question, in the bench's model: a group whose wordings
    carry different labels is split by the teacher (SPLIT_DECISION and two presses per split, then one press
    to score the group split off)."""
    by_id = questions(quizzes)
    queue: dict = {}
    label_of: dict = {}
    for qid, answer, label, item in graded:
        if item.pending:
            queue.setdefault(by_id[qid][0], {}).setdefault(qid, {}).setdefault(
                review_text(answer), {"answer": str(answer), "students": ["s"], "meaning": item.meaning})
            label_of.setdefault((qid, review_text(answer)), label)
    document, groups, wordings = build_review(queue, quizzes, None)
    splits = sum(len({label_of[qid, review_text(a)] for a in group["answers"]}) - 1
                 for blocks in document.values() for qid, block in blocks.items() for group in block["groups"])
    seconds = (groups * (READ_GROUP + PRESS) + (wordings - groups) * READ_WORDING
               + splits * (SPLIT_DECISION + 3 * PRESS))
    table = ", ".join(f"{qid} {len(block['groups'])}/{sum(len(g['answers']) for g in block['groups'])}"
                      for blocks in document.values() for qid, block in sorted(blocks.items()))
    return (f"{groups} groups ({splits} split) over {wordings} waiting wordings, {seconds / 60:.1f} min, "
            f"{seconds / max(wordings, 1):.2f} s per waiting wording\n      groups/wordings per question: {table}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learn-from", nargs="+", default=["heldout6_answers.yaml"], metavar="SET",
                        help="labelled set(s) whose class is reviewed and learned from (a path, or a name in tests/quiz/)")
    parser.add_argument("--grade", nargs="+", default=["heldout7_answers.yaml"], metavar="SET",
                        help="labelled set(s) graded with the quizzes before and after learning")
    parser.add_argument("--only", action="store_true",
                        help="check answers against their labels in the named sets only, not also the kit's own")
    args = parser.parse_args(argv)
    original = load_quizzes(ROOT / "quizzes")
    learn_from = [labelled_set(name) for name in args.learn_from]
    graded_sets = [labelled_set(name) for name in args.grade]
    for path in dict.fromkeys(learn_from + graded_sets):
        for problem in check_set(path, original):
            print(problem, file=sys.stderr)
    _FREE.update(q.id for quiz in original.values() for q in quiz.questions
                 if q.type == "short_answer" and q.grading == "text")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "quizzes"
        shutil.copytree(ROOT / "quizzes", folder)
        term1 = grade([row for path in learn_from for row in labelled(path)], original)
        document = teacher_review(term1, original)
        sources = {quiz_id: folder / Path(quiz.source_path).name for quiz_id, quiz in original.items()}
        candidates, changed = learn(document, sources, kit=kit_scored(term1, original))
        for quiz_id, text in changed.items():
            sources[quiz_id].write_text(text, encoding="utf-8")
        learned = load_quizzes(folder)
        added = [c for c in candidates if not c.refused]
        refused = [c for c in candidates if c.refused and c.kind != "none"]
        kinds = defaultdict(int)
        for c in added:
            kinds[c.kind] += 1
        names = " + ".join(p.name for p in learn_from)
        print(f"learned from {names}: {len(added)} additions ({dict(kinds)}), {len(refused)} refused, "
              f"{sum(c.kind == 'none' for c in candidates)} decided wordings teaching nothing by themselves")
        changed_total = []
        shipped = [] if args.only else sorted(SETS.glob("*_answers.yaml"))
        for path in dict.fromkeys(graded_sets + learn_from + [p.resolve() for p in shipped]):
            rows = labelled(path)
            before, after = grade(rows, original), grade(rows, learned)
            wrong = against_labels(before, after)
            changed_total += wrong
            mark = " <- graded next term" if path in graded_sets else (
                " (the reviewed set)" if path in learn_from else "")
            line = f"{path.name}: before {shares(before)}; after {shares(after)}; against label: {len(wrong)}{mark}"
            if path in graded_sets:
                line += f"\n    review before: {per_wording(before, original)}"
                line += f"\n    review after:  {per_wording(after, learned)}"
            print(line)
        unexplained = 0
        by_id = questions(learned)
        for qid, answer, label, score in changed_total:
            now = grade_question(by_id[qid][1], answer).feedback
            twin = next((a for q, a, lab, item in term1 if q == qid and item.pending and abs(lab - score) < 1e-9
                         and grade_question(by_id[qid][1], a).feedback == now), None)
            unexplained += twin is None
            why = (f"the reviewed class's teacher scored {twin!r} {score:g}, which now reads the same"
                   if twin is not None else "NOT explained by a decision of the reviewed class")
            print(f"  {qid} {answer!r}: label {label:g}, now {score:g} ({why})")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
