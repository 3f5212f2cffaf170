"""Partial answers the shipped quizzes score themselves (`scored:`), and the evidence behind each.

A free-text answer that states only some of the key terms ("score, softmax, weighted sum") is a teacher's
call, since teachers differ on partial credit. The shipped quizzes fix the score of such a reading only
where the labelled sets' teachers, writing apart, agreed on it: every `scored` entry must be met in at
least two sets and get its declared points from nearly every teacher who met it. Then, generated from the
question's own terms: the reading in other words gets the declared points without a person, and the same
terms reordered, or with a word that turns or adds a meaning, do not.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.quiz import grade_question
from autograder.quiz.meaning import accepted_structures, lexicon, read_meaning, scored_structures
from tests.quiz.test_quiz_meaning import _say  # a term sequence in the question's own phrases

HERE = Path(__file__).parent
SETS = sorted(HERE.glob("*_answers.yaml"))
TURNS = ["not", "never", "without", "because", "but", "only", "maybe", "faster", "memory", "keys", "after"]


def _scored_questions(real_quizzes):
    return [q for quiz in real_quizzes.values() for q in quiz.questions if q.scored]


def _labels_by_reading(q):
    """terms read -> [(set, teacher's score)] over every labelled set, for answers that read fully."""
    lex = lexicon(q.terms, q.languages)
    found = defaultdict(list)
    for path in SETS:
        for row in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get(q.id, []):
            reading = read_meaning(row["answer"], lex)
            if not reading.unknown:
                found[reading.terms].append((path.name, float(row["score"])))
    return found


def test_the_shipped_quizzes_score_some_partial_answers(real_quizzes):
    assert len(_scored_questions(real_quizzes)) >= 3


def test_every_scored_partial_answer_is_what_the_teachers_gave_it(real_quizzes):
    for q in _scored_questions(real_quizzes):
        labels = _labels_by_reading(q)
        for terms, (points, _) in scored_structures(q.scored, lexicon(q.terms, q.languages)).items():
            met = labels.get(terms, [])
            sets = {name for name, _ in met}
            agreeing = [score for _, score in met if score == points]
            assert len(sets) >= 2, (q.id, terms, "met in fewer than two labelled sets", met)
            assert len(agreeing) >= 0.8 * len(met) and len(met) - len(agreeing) <= 1, (q.id, terms, points, met)


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data())
def test_a_scored_reading_in_other_words_gets_its_points(real_quizzes, data):
    q = data.draw(st.sampled_from(_scored_questions(real_quizzes)))
    scored = scored_structures(q.scored, lexicon(q.terms, q.languages))
    sequence = data.draw(st.sampled_from(sorted(scored)))
    text = _say(data.draw, q, sequence)
    reading = read_meaning(text, lexicon(q.terms, q.languages))
    if reading.terms == sequence and not reading.unknown:  # phrases may merge across a join: another reading
        result = grade_question(q, text)
        assert (result.score, result.pending) == (scored[sequence][0], False), (q.id, text)


@SETTINGS
@given(data=st.data())
def test_a_scored_reading_reordered_or_turned_does_not_get_its_points_alone(real_quizzes, data):
    q = data.draw(st.sampled_from(_scored_questions(real_quizzes)))
    lex = lexicon(q.terms, q.languages)
    scored = scored_structures(q.scored, lex)
    known = set(scored) | set(accepted_structures(q.accepted, lex))
    sequence = data.draw(st.sampled_from(sorted(scored)))
    if data.draw(st.booleans()) and len(sequence) > 1:
        sequence = tuple(data.draw(st.permutations(sequence)))
        text = _say(data.draw, q, sequence)
    else:
        tokens = _say(data.draw, q, sequence).split(" ")
        tokens.insert(data.draw(st.integers(0, len(tokens))), data.draw(st.sampled_from(TURNS)))
        text = " ".join(tokens)
    reading = read_meaning(text, lex)
    if reading.unknown or reading.terms not in known:
        result = grade_question(q, text)
        assert result.pending, (q.id, text, result.score, result.feedback)


@pytest.mark.parametrize("question_id, answer, points", [
    ("att-04", "Scoring, then softmax, then a weighted average of the values", 1.5),
    ("sc-07", "The dot products blow up, so the softmax becomes one-hot.", 2),
    ("sc-04", "replace it with -inf", 1.5),
    ("sc-04", "set the score to zero", 0),
])
def test_partial_answers_in_students_words(real_quizzes, question_id, answer, points):
    q = next(q for quiz in real_quizzes.values() for q in quiz.questions if q.id == question_id)
    result = grade_question(q, answer)
    assert (result.score, result.pending) == (points, False), result.feedback
    assert result.feedback.startswith("Partial credit" if points else "Incorrect")
