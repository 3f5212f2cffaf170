"""What a repair says (docs/diagnosis.md, "Repairs"): the edit on the student's line, a hint without it, or that no
small edit tried makes every check pass; and the class's repairs counted by edit, for the instructor."""
from __future__ import annotations

from dataclasses import dataclass

from ..results import FAILED, StudentResult, TestResult
from .escape import Coded


def repair_lines(test: TestResult, show_edit: bool = True) -> list[str]:
    """Lines for the check that carries a question's repair search. `show_edit`: the edit itself (feedback); else
    only where it is (Gradescope, read while the student may still hand in again). Each line is a Coded message:
    the student's code in it is shown as code wherever the output has code spans, escaped like any of their text.
    Edits of another part (`Fix.part`: a callee's repair this one needs) are named first, as made too."""
    question = test.question
    others = [f for f in test.repair if f.part]
    own = [f for f in test.repair if not f.part]
    if own and len(own) <= 2:
        parts: list[str] = ["Fix found: "]
        if others:
            parts[-1] += f"with the fix found for {', '.join(dict.fromkeys(f.part for f in others))} made too ("
            for number, fix in enumerate(others):
                if show_edit:
                    parts[-1] += ("; " if number else "") + f"on {fix.where}, "
                    parts += [fix.old, " → ", fix.new, ""]
                else:
                    parts[-1] += ("; " if number else "") + f"on {fix.where}"
            parts[-1] += "), "
        if len(own) == 1 and not show_edit:
            parts[-1] += f"one change on {own[0].where} makes every check of {question} pass."
        elif len(own) == 1:
            parts[-1] += f"on {own[0].where}, "
            parts += [own[0].old, " → ", own[0].new, f" makes every check of {question} pass."]
        elif not show_edit:
            parts[-1] += (f"two changes together, on {own[0].where} and on {own[1].where}, make every check of "
                          f"{question} pass. Neither alone does.")
        else:
            parts[-1] += f"two edits together make every check of {question} pass: on {own[0].where}, "
            parts += [own[0].old, " → ", own[0].new, f"; and on {own[1].where}, ", own[1].old, " → ", own[1].new,
                      ". Neither alone does."]
        return [Coded(*parts)]
    if test.repair_stopped:
        return [Coded("The search for a small edit of your ", question, " that makes every check pass stopped at its "
                      f"limit after {test.repair_tried} edits, before trying them all; what the checks saw is stated "
                      "above.")]
    if test.repair_tried:
        return [Coded("No small edit of your ", question, " was found that makes every check pass "
                      f"({test.repair_tried} edits of one or two places were tried); what the checks saw is stated "
                      "above.")]
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
                for fix in (f for f in test.repair if not f.part):   # another part's edit is counted there
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
