"""Gradescope's results.json for one student (the format Gradescope's autograder platform reads).

Keys stay hidden until the instructor releases them (autograder/gradescope/visibility.py): a quiz's entry
(its scores, "Expected: ..." and explanations) is released at the configured time, beside a visible entry
that only says the answer file was read; a visible code check whose message would give the answer away
shows its score at once and its message in a companion entry released with the keys.

Gradescope is told to render every output as Markdown (`output_format` "md") and test names as text; every
output is written with escape.py's Markdown rule, one paragraph per line, so a message quoting a student's
values or file names shows them as text, never as links, images or HTML.
"""
from __future__ import annotations

from functools import lru_cache

from ..gradescope.visibility import KeyRelease, load_release, reveals_key
from ..quiz.outcome import REVIEWED
from ..results import FAILED, GRADER_ERROR, PASSED, QuizResult, StudentResult, safe_text
from ..sandbox.isolation import notice
from .blank import blank_assignments, student_line
from .escape import Coded, markdown_paragraphs, one_line
from .explain import count, failure_lines, label, plan_explanations, points
from .feedback import arrival_line


def results_json(result: StudentResult, release: KeyRelease | None = None, arrival: dict | None = None) -> dict:
    """`arrival`: {"submitted_at", "late"} as the platform said (reporting/provisional.arrival); kept in
    extra_data, and a late submission is named in the output the student reads."""
    release = release or kit_release()
    arrival = arrival or {}
    plan = plan_explanations(result)  # a diagnosed mistake is explained once; its other failures point back
    tests = []
    for t in result.tests:
        entry = {
            "name": label(t),
            "score": t.score,
            "max_score": t.max_score,
            "status": "passed" if t.status == PASSED else "failed",  # a failed zero-point flag is not "passed"
            "output": Coded.joined(failure_lines(t, plan, show_edit=False)) if t.status == FAILED else t.output,
            "visibility": t.visibility,
            "tags": list(t.tags),
        }
        if t.max_score == 0 and not t.attempted:
            del entry["status"]  # a zero-point flag on a file that is not there neither passed nor failed
        tests += code_entries(entry, release.keys)
    for quiz in result.quizzes:
        tests += quiz_entries(quiz, release.for_quiz(quiz.quiz_id))
    isolation = notice(result.isolation)
    if isolation:  # instructors only: Gradescope never shows hidden tests to students
        tests.append({"name": "Isolation of student code (instructors only)", "score": 0.0, "max_score": 0.0,
                      "status": "failed" if result.isolation == "rlimits" else "passed", "output": isolation,
                      "visibility": "hidden", "tags": ["isolation"]})
    notes = [line for line in (arrival_line(arrival),) if line] + list(result.problems) + list(result.notes)
    blank = blank_assignments(result)
    before_blank = len(notes)  # the blank-handout line is the kit's own Markdown (assignment names, `code`)
    notes += [f"Mistake found: {m.diagnosis.title} ({points(m.points_lost)} in {count(len(m.tests), 'check')}; "
              f"explained in \"{label(m.anchor)}\")" for m in plan.mistakes if m.anchor.visibility == "visible"]
    if any(t.status == GRADER_ERROR for t in result.tests):
        notes.append("Some checks hit a grader problem; your instructor will review them.")
    notes += reviewed_notes(result.quizzes, release.for_quiz)
    pending = round(sum(q.pending for q in result.quizzes), 6)
    if pending:
        notes.append(f"Score {result.score:g} + {pending:g} pending / {result.max_score:g}: {pending:g} quiz points "
                     "wait for your instructor's review: not lost, not yet earned. The score above does not count "
                     "them yet; it changes when your instructor regrades.")
    return {
        "score": result.score,
        "max_score": result.max_score,
        "output": "\n\n".join(part for part in (markdown_paragraphs(notes[:before_blank]),
                                                   student_line(result, blank) if blank else "",
                                                   markdown_paragraphs(notes[before_blank:])) if part),
        "output_format": "md",
        "test_output_format": "md",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [as_markdown(entry) for entry in tests],
        "extra_data": {"isolation": result.isolation, "isolation_notice": isolation or "",
                       "fingerprint": result.fingerprint, "pending": pending,
                       "late": {"yes": True, "no": False}.get(arrival.get("late", "")),
                       "submitted_at": safe_text(arrival.get("submitted_at", ""), 64)},  # as stored
    }


def reviewed_notes(quizzes, visibility=lambda quiz_id: "visible") -> list[str]:
    """What a regrade with the instructor's review decisions changed, true whatever score was given: the
    points given are named where the quiz's scores are shown (`visibility(quiz_id)` is `visible`); else they
    are in the quiz's own entry, released with the keys."""
    notes = []
    for quiz in quizzes:
        reviewed = [i for i in quiz.items if REVIEWED in i.feedback]
        if not reviewed:
            continue
        scored = f"Quiz {quiz.quiz_id}: your instructor has scored {count(len(reviewed), 'answer')} the grader left to a person"
        shown = visibility(quiz.quiz_id)
        if shown == "visible":
            given, worth = sum(i.score for i in reviewed), sum(i.max_score for i in reviewed)
            notes.append(f"{scored}, giving {given:g} of {count(worth, 'point')}, counted in your score.")
        else:
            notes.append(f"{scored}; your score includes the points given, which the quiz's entry shows "
                         f"{_when(shown)}.")
    return notes


def as_markdown(entry: dict) -> dict:
    """A test entry as Gradescope shows it: its output Markdown (escaped), its name one line of text. Done
    last, so that what is decided from the text (reveals_key) reads the text itself."""
    return {**entry, "name": one_line(entry["name"]), "output": markdown_paragraphs([entry["output"]]),
            "output_format": "md"}


@lru_cache(maxsize=1)
def kit_release() -> KeyRelease:
    """The kit's setting, read once per run (a class has many students, the setting one value)."""
    return load_release()


def code_entries(entry: dict, keys: str) -> list[dict]:
    """A code check as authored, unless students would read the answer in it before the keys are out:
    then its score stays where it was, and its message moves to a 0-point entry released with the keys."""
    if keys == "visible" or entry["visibility"] != "visible" or not reveals_key(entry["output"], entry["tags"]):
        return [entry]
    details = {**entry, "name": f"{entry['name']} (details)", "score": 0.0, "max_score": 0.0, "visibility": keys}
    withheld = f"This check's message gives the answer away: it is shown in \"{details['name']}\" {_when(keys)}."
    return [{**entry, "output": withheld}, details]


def quiz_entries(quiz: QuizResult, visibility: str = "after_due_date") -> list[dict]:
    """The quiz's entry, released at `visibility`; while that is not `visible`, a visible 0-point entry
    says the answers were read (or why not), so a student can still fix an unreadable file in time."""
    entry = quiz_entry(quiz)
    if visibility == "visible":
        return [entry]
    entry["visibility"] = visibility
    answered = sum(1 for i in quiz.items if not i.feedback.startswith("No answer"))
    receipt = quiz.problem or (f"Your answer file was read: {answered} of {count(len(quiz.items), 'question')} "
                               f"answered. Scores, the answer key and explanations are shown {_when(visibility)}.")
    return [{"name": f"quiz {quiz.quiz_id}: answers received", "score": 0.0, "max_score": 0.0,
             "status": "failed" if quiz.problem else "passed", "output": receipt, "visibility": "visible",
             "tags": ["quiz", "receipt"]}, entry]


def _when(visibility: str) -> str:
    return {"after_due_date": "after the due date", "after_published": "when your instructor publishes the grades",
            "hidden": "only to your instructor"}.get(visibility, "later")


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
