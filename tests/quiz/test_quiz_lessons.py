"""The quiz files match the lessons: every Knowledge Check question is present, every
learning objective is assessed, and the lesson's own answers earn full marks."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.quiz import Quiz, grade_question

from tests.test_course import LESSON_QUIZZES as QUIZ_FOR_LESSON, QUESTION_PREFIX
KC_TYPES = {"Short Answer": "short_answer", "True/False": "true_false", "Multiple Choice": "multiple_choice"}
KC_LINE = re.compile(
    r"^\s*(?:\d+\.\s*)?(?P<kind>Short Answer|True/False|Multiple Choice):\s*(?P<question>.+?)\s+"
    r"Answer:\s*(?P<answer>.+?)\s*$"
)
MC_OPTION = re.compile(r"\((?P<id>[a-z])\)\s*(?P<text>.+?)(?=,\s*\([a-z]\)|\s*$)")


@dataclass
class KnowledgeCheckItem:
    kind: str
    question: str
    answer: str


def loose(text: str) -> str:
    """Loose comparison key: case, punctuation, quotes and spacing do not matter."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def section(text: str, start: str, end: str) -> str:
    match = re.search(rf"^\s*{re.escape(start)}\s*$(.*?)^\s*{re.escape(end)}\s*$", text, re.M | re.S)
    assert match, f"section {start!r} not found"
    return match.group(1)


def knowledge_check(lesson_text: str) -> list[KnowledgeCheckItem]:
    items = []
    for line in section(lesson_text, "Knowledge Check", "Key Takeaways").splitlines():
        match = KC_LINE.match(line)
        if match:
            items.append(KnowledgeCheckItem(match["kind"], match["question"], match["answer"]))
    return items


def learning_objectives(lesson_text: str) -> list[str]:
    block = section(lesson_text, "Learning Objectives", "Definition")
    block = block.split("students should be able to:", 1)[1]
    return [line.strip().lstrip("•").strip() for line in block.splitlines() if line.strip()]


def mc_stem_and_options(question: str) -> tuple[str, list[tuple[str, str]]]:
    stem, _, rest = question.partition("(a)")
    options = [(m["id"], m["text"].rstrip(".")) for m in MC_OPTION.finditer("(a)" + rest)]
    return stem, options


@pytest.fixture(params=sorted(QUIZ_FOR_LESSON))
def quiz_and_lesson(request, real_quizzes, lesson_dir: Path) -> tuple[Quiz, str]:
    quiz = real_quizzes[request.param]
    assert quiz.lesson == QUIZ_FOR_LESSON[quiz.id]
    return quiz, (lesson_dir / quiz.lesson).read_text(encoding="utf-8")


# Knowledge Check questions deliberately not asked, with the id they had (now in the quiz's `retired`).
NOT_ASKED = {"What does the next lecture focus on specifically?": ("attention", "att-10")}


def asked(items: list[KnowledgeCheckItem]) -> list[KnowledgeCheckItem]:
    return [item for item in items if item.question not in NOT_ASKED]


def find_kc_question(quiz: Quiz, item: KnowledgeCheckItem):
    stem = mc_stem_and_options(item.question)[0] if item.kind == "Multiple Choice" else item.question
    matches = [q for q in quiz.questions if q.source == "knowledge-check" and loose(stem) in loose(q.prompt)]
    assert len(matches) == 1, f"{quiz.id}: knowledge-check question not found (or ambiguous): {item.question!r}"
    return matches[0]


def test_lesson_has_ten_knowledge_check_questions(quiz_and_lesson):
    _, lesson = quiz_and_lesson
    assert len(knowledge_check(lesson)) == 10


def test_every_knowledge_check_question_is_in_the_quiz(quiz_and_lesson):
    quiz, lesson = quiz_and_lesson
    items = asked(knowledge_check(lesson))
    found = [find_kc_question(quiz, item) for item in items]
    assert len({q.id for q in found}) == len(items), "two lesson questions map to one quiz question"
    assert {q.id for q in quiz.questions if q.source == "knowledge-check"} == {q.id for q in found}
    for item, question in zip(items, found):
        assert question.type == KC_TYPES[item.kind], question.id


def test_multiple_choice_options_and_keys_match_the_lesson(quiz_and_lesson):
    quiz, lesson = quiz_and_lesson
    for item in knowledge_check(lesson):
        if item.kind != "Multiple Choice":
            continue
        question = find_kc_question(quiz, item)
        _, options = mc_stem_and_options(item.question)
        assert [(o.id, loose(o.text)) for o in question.options] == [(i, loose(t)) for i, t in options]
        assert question.answer == re.search(r"\(([a-z])\)", item.answer).group(1)


def test_lesson_answers_earn_full_marks(quiz_and_lesson):
    """The lesson's own answer, typed as a student would, must be graded correct."""
    quiz, lesson = quiz_and_lesson
    for item in asked(knowledge_check(lesson)):
        question = find_kc_question(quiz, item)
        if item.kind == "True/False":
            given = re.match(r"(True|False)", item.answer).group(1)
        elif item.kind == "Multiple Choice":
            given = re.search(r"\(([a-z])\)", item.answer).group(1)
        else:
            given = item.answer
        result = grade_question(question, given)
        assert result.score == question.points, (question.id, given, result.feedback)


def test_every_learning_objective_is_assessed(quiz_and_lesson):
    quiz, lesson = quiz_and_lesson
    objectives = learning_objectives(lesson)
    assert len(objectives) == 6
    assert list(quiz.objectives) == objectives
    for objective in objectives:
        assert any(q.objective == objective for q in quiz.questions), objective


def test_quiz_size_and_metadata(lesson_quizzes):
    assert set(lesson_quizzes) == set(QUIZ_FOR_LESSON)
    for quiz in lesson_quizzes.values():  # its size is the course's own rule: tests/test_course.py
        assert {q.type for q in quiz.questions} == {"multiple_choice", "true_false", "short_answer", "numeric"}
        assert sum(q.source == "knowledge-check" for q in quiz.questions) == 10 - sum(
            1 for q_id, _ in NOT_ASKED.values() if q_id == quiz.id)
        for question in quiz.questions:
            assert question.explanation and question.objective
            assert question.id.startswith(QUESTION_PREFIX[quiz.id])


def test_questions_not_asked_are_retired_not_reused(real_quizzes):
    for quiz_id, question_id in NOT_ASKED.values():
        quiz = real_quizzes[quiz_id]
        assert question_id in quiz.retired and question_id not in {q.id for q in quiz.questions}
    for quiz in real_quizzes.values():
        for question in quiz.questions:
            assert "next lecture" not in question.prompt.lower() and "next lesson" not in question.prompt.lower()
