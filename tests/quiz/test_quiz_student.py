"""Student handouts give nothing away, and the answer template is ready to fill in."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import yaml

from autograder.quiz import Quiz, answer_file_name, grade_answer_file, write_student_files
from autograder.quiz.student import STUDENT_QUESTION_KEYS

FORBIDDEN_KEYS = {"answer", "accepted", "regex", "rubric", "explanation", "tolerance", "misconception", "objective"}


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
    assert yaml.safe_load(text) == {q.id: "" for q in quiz.questions}
    for q in quiz.questions:
        assert f"# {q.prompt.splitlines()[0]}" in text
    result = grade_answer_file(quiz, files.answer_template)
    assert result.score == 0
    assert result.messages == (
        f"{len(quiz.questions)} question(s) not answered (0 points): {', '.join(q.id for q in quiz.questions)}",
    )


def test_filled_template_is_graded(handout):
    quiz, files = handout
    text = files.answer_template.read_text(encoding="utf-8")
    first = quiz.questions[0]
    answer = first.accepted[0] if first.accepted else str(first.answer)
    files.answer_template.write_text(text.replace(f'{first.id}: ""', f'{first.id}: "{answer}"'), encoding="utf-8")
    assert grade_answer_file(quiz, files.answer_template).item(first.id).score == first.points
