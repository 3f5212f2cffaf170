"""What a repair says (docs/diagnosis.md, "Repairs"): the edit on the student's line, a hint without it, or that no
small edit tried makes every check pass; and the class's repairs counted by edit, for the instructor."""
from __future__ import annotations

from dataclasses import dataclass

from ..results import FAILED, StudentResult, TestResult


def repair_lines(test: TestResult, show_edit: bool = True) -> list[str]:
    """Lines for the check that carries a question's repair search. `show_edit`: the edit itself (feedback); else
    only where it is (Gradescope, read while the student may still hand in again)."""
    question, fixes = test.question, test.repair
    if len(fixes) == 1:
        fix = fixes[0]
        if show_edit:
            return [f"Fix found: on {fix.where}, `{fix.old}` → `{fix.new}` makes every check of {question} pass."]
        return [f"Fix found: one change on {fix.where} makes every check of {question} pass."]
    if len(fixes) == 2:
        first, second = fixes
        if show_edit:
            return [f"Fix found: two edits together make every check of {question} pass: on {first.where}, "
                    f"`{first.old}` → `{first.new}`; and on {second.where}, `{second.old}` → `{second.new}`. "
                    "Neither alone does."]
        return [f"Fix found: two changes together, on {first.where} and on {second.where}, make every check of "
                f"{question} pass. Neither alone does."]
    if test.repair_tried:
        return [f"No small edit of your `{question}` was found that makes every check pass ({test.repair_tried} "
                "edits of one or two places were tried); what the checks saw is stated above."]
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


def no_repairs_sentence(results: list[StudentResult]) -> str:
    """What is true when no repair was found: the search runs only on failed parts no mistake names."""
    failed: dict[tuple, list] = {}
    for result in results:
        for test in result.tests:
            if test.status == FAILED and test.attempted and test.max_score > 0:
                failed.setdefault((result.student_id, test.assignment, test.question), []).append(test)
    named = sum(1 for tests in failed.values() if any(t.diagnoses for t in tests))
    searched = sum(1 for tests in failed.values() if not any(t.diagnoses for t in tests)
                   and any(t.repair_tried for t in tests))
    if not failed:
        return "No part failed, so no repair was searched for."
    parts = []
    if searched:
        parts.append(f"none of the {searched} failed part{'s' * (searched != 1)} that no mistake named was one or "
                     "two small edits away from passing")
    if named:
        parts.append(f"{named} failed part{'s' * (named != 1)} named by a diagnosed or declared mistake "
                     f"{'were' if named != 1 else 'was'} not searched (their feedback names the mistake)")
    if not parts:
        return "No repair search ran on the failed parts."
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."
