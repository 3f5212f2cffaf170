"""Gradescope's results.json for one student (the format Gradescope's autograder platform reads)."""
from __future__ import annotations

from ..grading.results import FAILED, GRADER_ERROR, StudentResult
from .explain import count, failure_lines, label, plan_explanations, points


def results_json(result: StudentResult) -> dict:
    plan = plan_explanations(result)  # a diagnosed mistake is explained once; its other failures point back
    tests = [{
        "name": label(t),
        "score": t.score,
        "max_score": t.max_score,
        "status": "passed" if t.score == t.max_score else "failed",
        "output": "\n".join(failure_lines(t, plan)) if t.status == FAILED else t.output,
        "visibility": t.visibility,
        "tags": list(t.tags),
    } for t in result.tests]
    for quiz in result.quizzes:
        lines = [f"{i.question_id}: {i.score:g}/{i.max_score:g} {i.feedback}".rstrip() for i in quiz.items]
        tests.append({"name": f"quiz {quiz.quiz_id}", "score": quiz.score, "max_score": quiz.max_score,
                      "status": "passed" if quiz.score == quiz.max_score else "failed",
                      "output": quiz.problem or "\n".join(lines), "visibility": "visible", "tags": ["quiz"]})
    notes = list(result.problems) + list(result.notes)
    notes += [f"Mistake found: {m.diagnosis.title} ({points(m.points_lost)} in {count(len(m.tests), 'check')}; "
              f"explained in \"{label(m.anchor)}\")" for m in plan.mistakes if m.anchor.visibility == "visible"]
    if any(t.status == GRADER_ERROR for t in result.tests):
        notes.append("Some checks hit a grader problem; your instructor will review them.")
    return {
        "score": result.score,
        "max_score": result.max_score,
        "output": "\n".join(notes),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"isolation": result.isolation, "fingerprint": result.fingerprint},
    }
