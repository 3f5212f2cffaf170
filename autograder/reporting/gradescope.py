"""Gradescope's results.json for one student (the format Gradescope's autograder platform reads)."""
from __future__ import annotations

from ..results import FAILED, GRADER_ERROR, PASSED, QuizResult, StudentResult
from ..sandbox.isolation import notice
from .explain import count, failure_lines, label, plan_explanations, points


def results_json(result: StudentResult) -> dict:
    plan = plan_explanations(result)  # a diagnosed mistake is explained once; its other failures point back
    tests = [{
        "name": label(t),
        "score": t.score,
        "max_score": t.max_score,
        "status": "passed" if t.status == PASSED else "failed",  # a failed zero-point flag is not "passed"
        "output": "\n".join(failure_lines(t, plan)) if t.status == FAILED else t.output,
        "visibility": t.visibility,
        "tags": list(t.tags),
    } for t in result.tests]
    tests += [quiz_entry(quiz) for quiz in result.quizzes]
    isolation = notice(result.isolation)
    if isolation:  # instructors only: Gradescope never shows hidden tests to students
        tests.append({"name": "Isolation of student code (instructors only)", "score": 0.0, "max_score": 0.0,
                      "status": "failed" if result.isolation == "rlimits" else "passed", "output": isolation,
                      "visibility": "hidden", "tags": ["isolation"]})
    notes = list(result.problems) + list(result.notes)
    notes += [f"Mistake found: {m.diagnosis.title} ({points(m.points_lost)} in {count(len(m.tests), 'check')}; "
              f"explained in \"{label(m.anchor)}\")" for m in plan.mistakes if m.anchor.visibility == "visible"]
    if any(t.status == GRADER_ERROR for t in result.tests):
        notes.append("Some checks hit a grader problem; your instructor will review them.")
    pending = sum(q.pending for q in result.quizzes)
    if pending:
        notes.append(f"{pending:g} quiz points wait for your instructor's review: not lost, not yet earned.")
    return {
        "score": result.score,
        "max_score": result.max_score,
        "output": "\n".join(notes),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"isolation": result.isolation, "isolation_notice": isolation or "",
                       "fingerprint": result.fingerprint},
    }


def quiz_entry(quiz: QuizResult) -> dict:
    """One test entry per quiz. While answers wait for review their points are neither earned nor lost, so
    the entry has no pass/fail status until nothing else can be lost."""
    lines = [f"{i.question_id}: {i.score:g}/{i.max_score:g} {i.feedback}".rstrip() for i in quiz.items]
    if quiz.pending:
        lines.insert(0, f"{quiz.pending:g} of these points wait for your instructor's review.")
    entry = {"name": f"quiz {quiz.quiz_id}", "score": quiz.score, "max_score": quiz.max_score,
             "output": quiz.problem or "\n".join(lines), "visibility": "visible", "tags": ["quiz"]}
    if quiz.score == quiz.max_score:
        entry["status"] = "passed"
    elif quiz.score + quiz.pending < quiz.max_score or quiz.problem:
        entry["status"] = "failed"
    return entry
