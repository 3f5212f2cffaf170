"""Immutable data model for quizzes and grading results.

Everything here is a frozen dataclass so a loaded quiz can be shared between graders
(and threads) without anyone mutating the answer key by accident.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

DEFAULT_LANGUAGES = ("en", "fr", "es", "de")  # languages students may answer true/false and free text in
QUIZ_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"  # used in the answer-file name quiz_<id>.yaml
QUESTION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
OPTION_ID_PATTERN = r"^[a-z]$"
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
    also: tuple[str, ...] = ()  # other wordings that mean this option; never shown to students


@dataclass(frozen=True)
class RubricItem:
    """Partial credit: `points` if the answer mentions any of the `keywords` alternatives."""

    keywords: tuple[str, ...]
    points: float


@dataclass(frozen=True)
class Misconception:
    """A wrong answer the quiz lists: matched as the question's own answers are (same option, same number,
    same formula, same tensors, same key terms); `points` is the partial credit the author declares, None
    for "a person decides" (the answer goes to review with `says` as the suggestion)."""

    answer: Any                    # option id, number, formula, code or free text, as the question's answers
    says: str                      # the wrong idea in a few words: shown to the reviewer and in the feedback
    points: Optional[float] = None


WRONG_ANSWER_POLICIES = ("zero", "review")
# Words beside an option or a verdict: "read" (a reason that may turn the answer sends it to a person) or
# "choice" (the choice alone decides the points; such a reason is noted for the teacher).
REASONS_POLICIES = ("read", "choice")


@dataclass(frozen=True)
class MathsSpec:
    """A short answer graded as a formula: equal to `answer` under symbolic simplification."""

    answer: str
    symbols: tuple[str, ...]                       # every name an answer may use (wrong ones too, e.g. d_model)
    aliases: tuple[tuple[str, str], ...] = ()      # other spellings/phrases -> symbol ("key dimension" -> d_k)
    factor: Optional[str] = None                   # "divisor": "multiplies by x" means dividing by 1/x


@dataclass(frozen=True)
class CodeSpec:
    """A short answer graded by evaluating it on seeded tensors in the sandbox."""

    answer: str
    inputs: dict                                   # name -> shape of a seeded random tensor
    constants: dict = field(default_factory=dict)  # name -> plain number (e.g. d_k)
    functions: tuple[str, ...] = ()                # kit helpers offered: softmax, score, sqrt, exp
    variants: tuple[str, ...] = ()                 # meanings of score(Q, K); an answer may match any
    aliases: tuple[tuple[str, str], ...] = ()
    wrong_names: tuple[str, ...] = ()              # names that make an answer wrong, not unreadable (e.g. V)
    notation: str = "any"                          # "code": the question asks for code; maths goes to a person
    masked: tuple[str, ...] = ()                   # inputs that carry -inf where a mask hid a position


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
    maths: Optional[MathsSpec] = None
    code: Optional[CodeSpec] = None
    constants: tuple[tuple[str, float], ...] = ()  # numeric: names an answer may use (d_k = 64)
    review_if: tuple[str, ...] = ()                 # words the review hint points out (e.g. "faster")
    # Free text: key term name -> phrases meaning it; an answer stating an accepted answer's terms in the
    # same sequence, with no other word than fillers, is right without review (meaning.py).
    terms: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Free text: other answers whose score the author fixed (partial credit, or 0 for a known wrong answer),
    # matched like accepted answers: (answer, points, feedback).
    scored: tuple[tuple[str, float, str], ...] = ()
    languages: tuple[str, ...] = DEFAULT_LANGUAGES  # the quiz's: fillers and true/false words
    misconceptions: tuple[Misconception, ...] = ()
    # A wrong answer that matches no listed misconception: scored 0 ("zero") or read by a person ("review").
    wrong_answers: str = "zero"
    verdicts: tuple[tuple[str, bool], ...] = ()     # true_false: word -> verdict, for the quiz's languages
    reasons: str = "read"                           # multiple_choice, true_false: REASONS_POLICIES

    @property
    def grading(self) -> str:
        """How a short answer is judged: maths, code, or text (exact answers, then a person)."""
        return "maths" if self.maths else "code" if self.code else "text"

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
        if self.accepted:
            return self.accepted[0]
        if self.maths or self.code:
            return (self.maths or self.code).answer
        return "(see explanation)"


@dataclass(frozen=True)
class Quiz:
    id: str
    title: str
    lesson: str
    questions: tuple[Question, ...]
    objectives: tuple[str, ...] = ()
    source_path: Optional[str] = None
    lesson_title: Optional[str] = None              # what students see; `lesson` is the lesson's file
    retired: tuple[str, ...] = ()                   # ids of removed questions: never reused, ignored in answers
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    visibility: Optional[str] = None                # Gradescope: when students see this quiz's key (None: the kit's)

    @property
    def lesson_name(self) -> str:
        return self.lesson_title or self.title

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
    pending: bool = False        # waiting for the instructor's review: not counted as 0, not counted yet
    review_text: Optional[str] = None  # the answer as the review groups it (set when pending or reviewed)
    # Set when pending, for the reviewer only (never shown to students):
    suggested_score: Optional[float] = None  # what the keyword rubric would give; never awarded by itself
    suggestion: str = ""                     # why: rubric items found / missing, and why no rule could decide
    meaning: Optional[str] = None            # canonical reading (key terms by <name>, other words as written):
    #                                          pending answers with the same meaning say the same thing
    noted: str = ""                          # for the teacher only: scored by its choice (`reasons: choice`),
    #                                          beside a reason that may contradict the key, and why
    suggestion_certain: bool = False         # the suggested score follows from a rule (suggest.Suggestion.certain)

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

    @property
    def pending(self) -> float:
        """Points waiting for review."""
        return sum(item.max_score for item in self.items if item.pending)

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
                    "pending": i.pending,
                    "suggested_score": i.suggested_score,
                    "suggestion": i.suggestion,
                    "meaning": i.meaning,
                    "noted": i.noted,
                    "suggestion_certain": i.suggestion_certain,
                }
                for i in self.items
            ],
        }
