"""Knowledge-check quizzes: YAML quiz files, schema checks, grading, student handouts, exports.

Typical use::

    from autograder.quiz import load_quizzes, grade_submission
    quizzes = load_quizzes("quizzes")
    result = grade_submission(quizzes["attention"], "submissions/alice")   # reads quiz_attention.yaml
    print(result.score, "/", result.max_score)
"""

import importlib

# What each name is imported from: on first use (PEP 562), so that grading, which needs the loader and the
# grader, does not import the exporters and handout writers too.
_FROM = {
    "to_gift": "export_gift", "write_qti": "export_qti",
    "AnswerSheet": "answers", "parse_answer_sheet": "answers", "read_answer_sheet": "answers",
    **dict.fromkeys(["Decision", "GradingContext", "answer_file_name", "grade_answer_file", "grade_question",
                     "grade_quiz", "grade_submission", "review_text"], "grade"),
    **dict.fromkeys(["load_answers", "load_quiz", "load_quizzes", "quiz_from_data"], "loader"),
    **dict.fromkeys(["ItemResult", "Option", "Question", "Quiz", "QuizFormatError", "QuizResult", "RubricItem"],
                    "model"),
    "normalize_answer": "normalize", "StudentFiles": "student", "write_student_files": "student",
}


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_FROM[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_FROM])


__all__ = [
    "AnswerSheet", "Decision", "GradingContext", "parse_answer_sheet", "read_answer_sheet", "review_text",
    "ItemResult", "Option", "Question", "Quiz", "QuizFormatError", "QuizResult", "RubricItem",
    "StudentFiles", "answer_file_name", "grade_answer_file", "grade_question", "grade_quiz",
    "grade_submission", "load_answers", "load_quiz", "load_quizzes", "normalize_answer",
    "quiz_from_data", "to_gift", "write_qti", "write_student_files",
]
