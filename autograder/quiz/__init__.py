"""Knowledge-check quizzes: YAML quiz files, schema checks, grading, student handouts, exports.

Typical use::

    from autograder.quiz import load_quizzes, grade_submission
    quizzes = load_quizzes("quizzes")
    result = grade_submission(quizzes["attention"], "submissions/alice")   # reads quiz_attention.yaml
    print(result.score, "/", result.max_score)
"""

from .export_gift import to_gift
from .export_qti import write_qti
from .answers import AnswerSheet, parse_answer_sheet, read_answer_sheet
from .grade import (
    Decision, GradingContext, answer_file_name, grade_answer_file, grade_question, grade_quiz, grade_submission,
    review_text,
)
from .loader import load_answers, load_quiz, load_quizzes, quiz_from_data
from .model import ItemResult, Option, Question, Quiz, QuizFormatError, QuizResult, RubricItem
from .normalize import normalize_answer
from .student import StudentFiles, write_student_files

__all__ = [
    "AnswerSheet", "Decision", "GradingContext", "parse_answer_sheet", "read_answer_sheet", "review_text",
    "ItemResult", "Option", "Question", "Quiz", "QuizFormatError", "QuizResult", "RubricItem",
    "StudentFiles", "answer_file_name", "grade_answer_file", "grade_question", "grade_quiz",
    "grade_submission", "load_answers", "load_quiz", "load_quizzes", "normalize_answer",
    "quiz_from_data", "to_gift", "write_qti", "write_student_files",
]
