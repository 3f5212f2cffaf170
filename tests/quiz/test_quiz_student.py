"""Student handouts give nothing away, and the answer template is ready to fill in."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import yaml

from autograder.quiz import Quiz, answer_file_name, grade_answer_file, write_student_files
from autograder.quiz.student import STUDENT_QUESTION_KEYS

FORBIDDEN_KEYS = {"answer", "accepted", "regex", "rubric", "explanation", "tolerance", "misconception", "objective",
                  "terms", "scored", "review_if"}


def _keys(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _keys(value)
    elif isinstance(data, list):
        for value in data:
            yield from _keys(value)


def _secrets(quiz: Quiz) -> set[str]:
    """Answer-revealing strings that do not already appear in what students must see."""
    visible = " ".join([quiz.title] + [q.prompt for q in quiz.questions]
                       + [o.text for q in quiz.questions for o in q.options])
    secrets = set()
    for q in quiz.questions:
        secrets.update(q.accepted)
        secrets.update(q.regex)
        secrets.add(q.explanation)
        if q.misconception:
            secrets.add(q.misconception)
    return {s for s in secrets if s not in visible}


@pytest.fixture(params=["attention", "attention_score"])
def handout(request, real_quizzes, tmp_path):
    quiz = real_quizzes[request.param]
    return quiz, write_student_files(quiz, tmp_path / "handout")


def test_files_are_written(handout):
    quiz, files = handout
    assert files.answer_template.name == answer_file_name(quiz) == f"quiz_{quiz.id}.yaml"
    assert files.questions_yaml.name == f"{quiz.id}.questions.yaml"
    assert files.markdown.name == f"{quiz.id}.md"
    assert all(path.is_file() for path in files)


def test_student_yaml_has_only_allowed_keys(handout):
    quiz, files = handout
    data = yaml.safe_load(files.questions_yaml.read_text(encoding="utf-8"))
    assert not FORBIDDEN_KEYS & set(_keys(data))
    assert [q["id"] for q in data["questions"]] == [q.id for q in quiz.questions]
    for student_q, q in zip(data["questions"], quiz.questions):
        assert set(student_q) <= set(STUDENT_QUESTION_KEYS)
        assert student_q["prompt"] == q.prompt
        assert student_q.get("options", []) == [{"id": o.id, "text": o.text} for o in q.options]


def test_no_answer_leaks_into_any_student_file(handout):
    quiz, files = handout
    secrets = _secrets(quiz)
    assert len(secrets) > 2 * len(quiz.questions)  # the check has something to look for
    for path in files:
        text = path.read_text(encoding="utf-8")
        leaked = [s for s in secrets if s in text]
        assert not leaked, f"{path.name} leaks {leaked}"


def test_markdown_lists_every_question_and_option(handout):
    quiz, files = handout
    text = files.markdown.read_text(encoding="utf-8")
    assert text.startswith(f"# {quiz.title}")
    for q in quiz.questions:
        assert f"`{q.id}`" in text and q.prompt in text
        for o in q.options:
            assert f"- **({o.id})** {o.text}" in text  # every option looks the same: no marked key


def test_answer_template_parses_to_every_id_unanswered(handout):
    quiz, files = handout
    text = files.answer_template.read_text(encoding="utf-8")
    parsed = yaml.safe_load(text)
    assert list(parsed) == [q.id for q in quiz.questions] and not any(parsed.values())
    for q in quiz.questions:
        assert f"# {q.prompt.splitlines()[0]}" in text
        assert (f"{q.id}: |-" in text) == (q.type == "short_answer")  # block scalars for free text
    result = grade_answer_file(quiz, files.answer_template)
    assert result.score == 0
    assert result.messages == (
        f"{len(quiz.questions)} question(s) not answered (0 points): {', '.join(q.id for q in quiz.questions)}",
    )


def fill(text: str, question_id: str, answer: str, block: bool) -> str:
    """What a student does in an editor: type the answer after the colon, or on the indented line."""
    if block:
        return text.replace(f"{question_id}: |-\n  \n", f"{question_id}: |-\n  {answer}\n")
    return text.replace(f"{question_id}:\n", f"{question_id}: {answer}\n")


def test_filled_template_survives_backslashes_colons_and_quotes(real_quizzes, tmp_path):
    quiz = real_quizzes["attention_score"]
    files = write_student_files(quiz, tmp_path)
    text = files.answer_template.read_text(encoding="utf-8")
    text = fill(text, "sc-10", "\\sqrt{d_k}", block=True)
    text = fill(text, "sc-04", 'set its score to "-inf": before the softmax', block=True)
    text = fill(text, "sc-11", "0,125", block=False)
    text = fill(text, "sc-03", "b", block=False)
    files.answer_template.write_text(text, encoding="utf-8")
    result = grade_answer_file(quiz, files.answer_template)
    assert result.item("sc-10").given == "\\sqrt{d_k}" and result.item("sc-10").score == 1
    assert result.item("sc-04").given == 'set its score to "-inf": before the softmax'
    assert result.item("sc-11").score == 1 and result.item("sc-03").score == 1
    assert "not valid YAML" not in " ".join(result.messages)


def test_handouts_name_the_lesson_not_its_file(handout):
    quiz, files = handout
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert quiz.lesson not in text and ".txt" not in text
    assert quiz.lesson_title in files.markdown.read_text(encoding="utf-8")
