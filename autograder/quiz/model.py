"""Immutable data model for quizzes and grading results.

Everything here is a frozen dataclass so a loaded quiz can be shared between graders
(and threads) without anyone mutating the answer key by accident.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

QUESTION_TYPES = ("multiple_choice", "true_false", "short_answer", "numeric")
SOURCES = ("knowledge-check", "objective")

# What a student may put in an answer file for one question.
AnswerValue = Union[str, int, float, bool, None]


class QuizFormatError(ValueError):
    """A quiz or answer file is broken.

    The message names the file, the question (id, or index when the id itself is the
    problem) and what is wrong, one problem per line, so an author can fix them all at once.
    """

    def __init__(self, path: Union[str, Path, None], problems: list[tuple[str, str]]):
        self.path = str(path) if path is not None else "<memory>"
        # Each problem is (where, what): where is "" for the whole file, else "question att-03".
        self.problems = list(problems)
        lines = [
            f"{self.path}: {where}: {what}" if where else f"{self.path}: {what}"
            for where, what in self.problems
        ]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Option:
    id: str
    text: str


@dataclass(frozen=True)
class RubricItem:
    """Partial credit: `points` if the answer mentions any of the `keywords` alternatives."""

    keywords: tuple[str, ...]
    points: float


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    prompt: str
    points: float
    explanation: str
    objective: str
    misconception: Optional[str]
    source: str
    # multiple_choice: option id; true_false: bool; numeric: float; short_answer: None.
    answer: Any = None
    options: tuple[Option, ...] = ()
    accepted: tuple[str, ...] = ()
    regex: tuple[str, ...] = ()
    rubric: tuple[RubricItem, ...] = ()
    tolerance: float = 0.0

    def option(self, option_id: str) -> Option:
        for opt in self.options:
            if opt.id == option_id:
                return opt
        raise KeyError(option_id)

    def correct_answer_text(self) -> str:
        """The answer key as a person would read it (shown after grading)."""
        if self.type == "multiple_choice":
            return f"({self.answer}) {self.option(self.answer).text}"
        if self.type == "true_false":
            return "True" if self.answer else "False"
        if self.type == "numeric":
            return f"{self.answer:g}" + (f" (± {self.tolerance:g})" if self.tolerance else "")
        return self.accepted[0] if self.accepted else "(see explanation)"


@dataclass(frozen=True)
class Quiz:
    id: str
    title: str
    lesson: str
    questions: tuple[Question, ...]
    objectives: tuple[str, ...] = ()
    source_path: Optional[str] = None

    @property
    def max_score(self) -> float:
        return sum(q.points for q in self.questions)

    def question(self, question_id: str) -> Question:
        for q in self.questions:
            if q.id == question_id:
                return q
        raise KeyError(question_id)


@dataclass(frozen=True)
class ItemResult:
    question_id: str
    score: float
    max_score: float
    given: AnswerValue
    correct_answer: str
    explanation: str
    feedback: str

    @property
    def is_correct(self) -> bool:
        return self.score >= self.max_score


@dataclass(frozen=True)
class QuizResult:
    quiz_id: str
    items: tuple[ItemResult, ...]
    # File-level notes: missing answers, unknown ids, unreadable answer file.
    messages: tuple[str, ...] = field(default=())
    # Set when the whole quiz scored 0 because the answer file was missing or unusable.
    problem: Optional[str] = None

    @property
    def score(self) -> float:
        return sum(item.score for item in self.items)

    @property
    def max_score(self) -> float:
        return sum(item.max_score for item in self.items)

    def item(self, question_id: str) -> ItemResult:
        for item in self.items:
            if item.question_id == question_id:
                return item
        raise KeyError(question_id)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON reports."""
        return {
            "quiz_id": self.quiz_id,
            "score": self.score,
            "max_score": self.max_score,
            "messages": list(self.messages),
            "problem": self.problem,
            "items": [
                {
                    "question_id": i.question_id,
                    "score": i.score,
                    "max_score": i.max_score,
                    "given": i.given,
                    "correct_answer": i.correct_answer,
                    "explanation": i.explanation,
                    "feedback": i.feedback,
                }
                for i in self.items
            ],
        }
