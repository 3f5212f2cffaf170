"""What a repair says (docs/diagnosis.md, "Repairs"): the edit on the student's line, a hint without it, or that no
small edit tried makes every check pass; and the class's repairs counted by edit, for the instructor."""
from __future__ import annotations

from dataclasses import dataclass

from ..results import FAILED, StudentResult, TestResult
from .escape import Coded


def repair_lines(test: TestResult, show_edit: bool = True) -> list[str]:
    """Lines for the check that carries a question's repair search. `show_edit`: the edit itself (feedback); else
    only where it is (Gradescope, read while the student may still hand in again). Each line is a Coded message:
    the student's code in it is shown as code wherever the output has code spans, escaped like any of their text."""
    question, fixes = test.question, test.repair
    if len(fixes) == 1:
        fix = fixes[0]
        if show_edit:
            return [Coded(f"Fix found: on {fix.where}, ", fix.old, " → ", fix.new,
                          f" makes every check of {question} pass.")]
        return [f"Fix found: one change on {fix.where} makes every check of {question} pass."]
    if len(fixes) == 2:
        first, second = fixes
        if show_edit:
            return [Coded(f"Fix found: two edits together make every check of {question} pass: on {first.where}, ",
                          first.old, " → ", first.new, f"; and on {second.where}, ", second.old, " → ", second.new,
                          ". Neither alone does.")]
        return [f"Fix found: two changes together, on {first.where} and on {second.where}, make every check of "
                f"{question} pass. Neither alone does."]
    if test.repair_stopped:
        return [Coded("The search for a small edit of your ", question, " that makes every check pass stopped at its "
                      f"limit after {test.repair_tried} edits, before trying them all; what the checks saw is stated "
                      "above.")]
    if test.repair_tried:
        return [Coded("No small edit of your ", question, f" was found that makes every check pass ({test.repair_tried} "
                      "edits of one or two places were tried); what the checks saw is stated above.")]
    return []


@dataclass(frozen=True)
class RepairCount:
    edit: str                         # the kind of edit, e.g. "call-sigmoid-to-tanh"
    students: tuple[str, ...]
    questions: tuple[str, ...]


def repairs_by_edit(results: list[StudentResult]) -> list[RepairCount]:
    """Per kind of edit, the students whose failed question it repaired (alone or in a pair), most first."""
    students: dict[str, list[str]] = {}
    questions: dict[str, list[str]] = {}
    for result in results:
        for test in result.tests:
            if test.status == FAILED and test.repair:
                for fix in test.repair:
                    if result.student_id not in students.setdefault(fix.edit, []):
                        students[fix.edit].append(result.student_id)
                    if test.question not in questions.setdefault(fix.edit, []):
                        questions[fix.edit].append(test.question)
    return sorted((RepairCount(edit, tuple(who), tuple(questions[edit])) for edit, who in students.items()),
                  key=lambda c: (-len(c.students), c.edit))


def repaired_questions(result: StudentResult) -> set[tuple[str, str]]:
    """(assignment, question) of each question a repair was found for."""
    return {(t.assignment, t.question) for t in result.tests if t.status == FAILED and t.repair}
