"""Keys stay hidden on Gradescope until the instructor releases them: fast checks of results.json.

Every quiz of the kit is graded in memory for a class of wrong and empty answer sheets; no entry a student
can see before the due date may hold any question's key or explanation. Code checks whose message quotes
the reference's values keep their score visible and release the message with the keys."""
from __future__ import annotations

import pytest

from autograder.gradescope.visibility import KeyRelease, load_release, reveals_key
from autograder.grading.quizzes import convert, load_class_quizzes
from autograder.quiz.grade import grade_quiz
from autograder.reporting.gradescope import results_json
from tests.markdown_read import shown_text
from tests.report_classes import check, student

QUIZZES = load_class_quizzes()


def wrong(question):
    """A wrong answer a student might give, for questions graded without the sandbox."""
    if question.type == "multiple_choice":
        return next(o.id for o in question.options if o.id != question.answer)
    if question.type == "true_false":
        return not question.answer
    if question.type == "numeric":
        return question.answer + 1000
    return None  # short answers: left empty (no answer also shows the key today)


def sheets():
    for quiz in QUIZZES:
        yield quiz, {}
        yield quiz, {q.id: wrong(q) for q in quiz.questions if wrong(q) is not None}


def keys_of(quiz) -> list[str]:
    """Texts that give an answer away: each key and each explanation (long enough to be one)."""
    texts = [q.correct_answer_text() for q in quiz.questions] + [q.explanation for q in quiz.questions]
    return [t.strip() for t in texts if t and len(t.strip()) >= 4]


def visible_before_release(data: dict) -> str:
    return "\n".join(shown_text(t["output"]) + " " + t["name"] for t in data["tests"] if t["visibility"] == "visible") \
        + "\n" + shown_text(data["output"])


@pytest.mark.parametrize("quiz,answers", list(sheets()), ids=lambda v: getattr(v, "id", None) or str(len(v)))
def test_no_key_is_visible_before_the_due_date(quiz, answers, tmp_path):
    graded = convert(grade_quiz(quiz, answers), tmp_path)
    data = results_json(student("ann", quizzes=[graded]), KeyRelease())
    shown = visible_before_release(data)
    assert not [k for k in keys_of(quiz) if k in shown]
    released = [t for t in data["tests"] if t["name"] == f"quiz {quiz.id}"]
    assert [t["visibility"] for t in released] == ["after_due_date"]
    assert any(k in shown_text(released[0]["output"]) for k in keys_of(quiz)), "the key is shown once released"
    receipt = next(t for t in data["tests"] if t["name"] == f"quiz {quiz.id}: answers received")
    assert receipt["visibility"] == "visible" and receipt["max_score"] == 0
    assert "after the due date" in shown_text(receipt["output"])


def test_the_release_is_configurable_per_kit_and_per_quiz(tmp_path):
    quiz = QUIZZES[0]
    graded = convert(grade_quiz(quiz, {}), tmp_path)
    settings = tmp_path / "pyproject.toml"
    settings.write_text(f'[tool.attnkit.gradescope]\nkeys = "after_published"\nquizzes = {{ {quiz.id} = "visible" }}\n')
    release = load_release(settings)
    assert release.for_quiz(quiz.id) == "visible" and release.for_quiz("other") == "after_published"
    data = results_json(student("ann", quizzes=[graded]), release)
    assert [t["visibility"] for t in data["tests"]] == ["visible"]  # shown at once: one entry, as before
    settings.write_text('[tool.attnkit.gradescope]\nkeys = "after_published"\n')
    data = results_json(student("ann", quizzes=[graded]), load_release(settings))
    assert [t["visibility"] for t in data["tests"]] == ["visible", "after_published"]
    assert "when your instructor publishes the grades" in shown_text(data["tests"][0]["output"])
    settings.write_text('[tool.attnkit.gradescope]\nkeys = "soon"\n')
    with pytest.raises(ValueError, match="keys = 'soon'"):
        load_release(settings)
    assert load_release(tmp_path / "missing.toml") == KeyRelease()  # default: after the due date


def test_the_kit_ships_with_keys_after_the_due_date():
    assert load_release().keys == "after_due_date"


def test_an_unreadable_answer_file_is_said_at_once(tmp_path):
    quiz = QUIZZES[0]
    graded = convert(grade_quiz(quiz, "not a mapping"), tmp_path)
    data = results_json(student("ann", quizzes=[graded]), KeyRelease())
    receipt = data["tests"][0]
    assert receipt["visibility"] == "visible" and receipt["status"] == "failed"
    assert "answers must map question ids" in shown_text(receipt["output"])


REVEALING = ["weights: expected tensor([[0.25, 0.75]]) but got tensor([[0.5, 0.5]])",
             "The answer is 0.125 at row 0", "scores should be 8.0 at (0, 1)", "reference [0.1, 0.9]"]
SAFE = ["scores has shape (2, 3) where (2, 4) was expected.", "row 0 sums to 0.31",
        "weights: the mask is applied after the softmax", "expected floating point numbers", ""]


@pytest.mark.parametrize("output", REVEALING)
def test_a_code_message_quoting_the_reference_waits_for_the_keys(output):
    assert reveals_key(output, ())
    data = results_json(student("ann", [check("test_a", output=output, name="values")]), KeyRelease())
    shown, details = data["tests"]
    assert shown["visibility"] == "visible" and shown["max_score"] == 1 and output not in shown_text(shown["output"])
    assert "after the due date" in shown_text(shown["output"]) and details["name"] in shown_text(shown["output"])
    assert details["visibility"] == "after_due_date" and details["max_score"] == 0
    assert output in shown_text(details["output"])


@pytest.mark.parametrize("output", SAFE)
def test_a_code_message_naming_a_symptom_stays_visible(output):
    assert not reveals_key(output, ())
    data = results_json(student("ann", [check("test_a", output=output)]), KeyRelease())
    assert [t["visibility"] for t in data["tests"]] == ["visible"]


def test_an_author_tags_a_revealing_check_and_hidden_checks_stay_hidden():
    tagged = check("test_a", output="row 0 sums to 0.31", tags=("reveals-answer",))
    hidden = check("test_b", output="expected tensor([1.0])", visibility="hidden")
    data = results_json(student("ann", [tagged, hidden]), KeyRelease())
    assert [t["visibility"] for t in data["tests"]] == ["visible", "after_due_date", "hidden"]
    shown_at_once = results_json(student("ann", [tagged]), KeyRelease(keys="visible"))
    assert [t["visibility"] for t in shown_at_once["tests"]] == ["visible"]


def test_a_zero_point_flag_on_a_missing_file_neither_passes_nor_fails():
    """The circumvention flag is worth 0 points: on a file that is not there it says nothing about the student,
    so Gradescope gets no status for it; run on a file that is there, it passes or fails as usual."""
    missing = check("test_file_leaves_the_kernel_watch_alone", points=0.0, attempted=False, visibility="hidden")
    ran = check("test_file_leaves_the_kernel_watch_alone", points=0.0, attempted=True, visibility="hidden")
    (entry,) = [t for t in results_json(student("ana", [missing]))["tests"] if "quiz" not in t["tags"]][:1]
    assert "status" not in entry and entry["score"] == 0
    (entry,) = [t for t in results_json(student("ana", [ran]))["tests"] if "quiz" not in t["tags"]][:1]
    assert entry["status"] == "failed"


def _quiz_folder(tmp_path, quiz, visibility):
    """A copy of one shipped quiz file whose own `visibility` is set (None: left out)."""
    import yaml

    data = yaml.safe_load(open(quiz.source_path, encoding="utf-8"))
    data.pop("visibility", None)
    if visibility is not None:
        data["visibility"] = visibility
    folder = tmp_path / "quizzes"
    folder.mkdir(exist_ok=True)
    (folder / f"{quiz.id}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


@pytest.mark.parametrize("declared, shown, said", [
    ("after_published", ["visible", "after_published"], "when your instructor publishes the grades"),
    ("hidden", ["visible", "hidden"], "only to your instructor"),
    ("visible", ["visible"], None),
    (None, ["visible", "after_due_date"], "after the due date"),
])
def test_a_quiz_file_sets_when_its_own_key_is_released(tmp_path, declared, shown, said):
    from autograder.quiz import load_quiz

    quiz = QUIZZES[0]
    folder = _quiz_folder(tmp_path, quiz, declared)
    assert load_quiz(folder / f"{quiz.id}.yaml").visibility == declared  # the schema accepts it
    graded = convert(grade_quiz(quiz, {q.id: wrong(q) for q in quiz.questions if wrong(q) is not None}), tmp_path)
    release = load_release(tmp_path / "no-pyproject.toml", folder)
    data = results_json(student("ann", quizzes=[graded]), release)
    assert [t["visibility"] for t in data["tests"]] == shown
    if said:
        receipt, entry = data["tests"]
        assert said in shown_text(receipt["output"])
        assert not [k for k in keys_of(quiz) if k in visible_before_release(data)]
        assert entry["name"] == f"quiz {quiz.id}" and any(k in shown_text(entry["output"]) for k in keys_of(quiz))


def test_a_quiz_files_visibility_overrides_the_course_default_and_the_per_quiz_table_overrides_both(tmp_path):
    quiz = QUIZZES[0]
    folder = _quiz_folder(tmp_path, quiz, "after_published")
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.attnkit.gradescope]\nkeys = "visible"\n')
    release = load_release(settings, folder)
    assert release.for_quiz(quiz.id) == "after_published" and release.for_quiz("other") == "visible"
    graded = convert(grade_quiz(quiz, {}), tmp_path)
    data = results_json(student("ann", quizzes=[graded]), release)
    assert [t["visibility"] for t in data["tests"]] == ["visible", "after_published"]
    settings.write_text(f'[tool.attnkit.gradescope]\nkeys = "visible"\nquizzes = {{ {quiz.id} = "after_due_date" }}\n')
    assert load_release(settings, folder).for_quiz(quiz.id) == "after_due_date"


def test_an_unknown_visibility_in_a_quiz_file_is_refused(tmp_path):
    from autograder.quiz import QuizFormatError, load_quiz

    quiz = QUIZZES[0]
    folder = _quiz_folder(tmp_path, quiz, "soon")
    with pytest.raises(QuizFormatError, match="'visibility' must be one of hidden, after_due_date"):
        load_quiz(folder / f"{quiz.id}.yaml")
    with pytest.raises(ValueError, match="visibility 'soon'"):
        load_release(tmp_path / "no-pyproject.toml", folder)


def test_the_shipped_quizzes_release_their_keys_after_the_due_date():
    release = load_release()
    assert {release.for_quiz(quiz.id) for quiz in QUIZZES} == {"after_due_date"}
