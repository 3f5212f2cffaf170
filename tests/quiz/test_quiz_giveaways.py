"""No question's text or options give away another question's answer (both quizzes: students get both)."""
from __future__ import annotations

import itertools

from rapidfuzz import fuzz

from autograder.quiz import normalize_answer
from autograder.quiz.grade import rubric_suggestion


def visible(question) -> str:
    return " ".join([question.prompt, *(o.text for o in question.options)])


def answers(question) -> list[str]:
    """What a question's answer key says, in the forms a reader would recognise."""
    if question.type == "multiple_choice":
        return [question.option(question.answer).text]
    keys = list(question.accepted)
    if question.maths or question.code:
        keys.append((question.maths or question.code).answer)
    return keys


def all_questions(real_quizzes):
    return [q for quiz in real_quizzes.values() for q in quiz.questions]


def test_no_answer_key_appears_in_another_questions_text(real_quizzes):
    leaks = []
    for asked, other in itertools.permutations(all_questions(real_quizzes), 2):
        text = normalize_answer(visible(other))
        for key in answers(asked):
            key_text = normalize_answer(key)
            if asked.type == "multiple_choice":  # an option names a thing; only a sentence-long one can leak
                leaked = len(key_text) >= 12 and key_text in text
            else:
                leaked = len(key_text) >= 4 and (key_text in text or (
                    len(key_text) >= 20 and fuzz.partial_ratio(key_text, text) >= 90))
            if leaked:
                leaks.append((asked.id, key, other.id))
    assert not leaks, leaks


def test_no_question_text_earns_a_rubric_question_full_marks(real_quizzes):
    """Copying another question's prompt and options into a free-text answer must not be a full answer."""
    questions = all_questions(real_quizzes)
    for asked in (q for q in questions if q.rubric):
        for other in questions:
            if other is not asked:
                assert rubric_suggestion(asked, visible(other)) < asked.points, (asked.id, other.id)


def test_no_question_text_is_a_right_free_text_answer(real_quizzes):
    """Nor may it read as an accepted answer (the terms' way to credit without review)."""
    from autograder.quiz import grade_question

    questions = all_questions(real_quizzes)
    for asked in (q for q in questions if q.terms):
        for other in questions:
            if other is not asked:
                assert grade_question(asked, visible(other)).score < asked.points, (asked.id, other.id)


def test_the_known_giveaways_are_gone(real_quizzes):
    """The cases found in review: sc-07's answer as att-15's option, d_k ** -0.5 in prompts (sc-10's answer),
    shape rules stated by the questions that ask for a shape, Bahdanau named beside 'additive'."""
    text = " ".join(visible(q) for q in all_questions(real_quizzes) if q.id not in ("sc-05",))
    assert "d_k ** -0.5" not in text and "saturate" not in text
    assert "(batch, T_q, T_k)" not in text and "(B, T_q, T_k)" not in text
    for question in all_questions(real_quizzes):
        if question.id != "sc-03":
            assert "bahdanau" not in visible(question).lower() or "additive" not in visible(question).lower()
