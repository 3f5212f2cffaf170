"""A declared mistake id means something only in its own exercise (docs/authoring.md): two exercises that both
declare `mask-inverted`, with different sentences, are two mistakes in the class summary, the class report and one
student's feedback, each shown with where it was named; never merged by id (walk 34b, finding 4). A catalogue
mistake (one sentence everywhere) stays one misconception across exercises (tests/test_reports.py)."""
from __future__ import annotations

from itertools import product

from autograder.reporting.class_report import class_report_html
from autograder.reporting.class_stats import diagnosed_mistakes
from autograder.reporting.feedback import feedback_markdown
from autograder.reporting.summary import plain_summary
from autograder.results import Diagnosis
from tests.html_tree import parse_html
from tests.report_classes import check, student

KPM = Diagnosis("mask-inverted", "the mask is inverted: it is True on the padding and False on the real keys",
                "your masks equal the reference's negated on all 4 calls")
LAYER = Diagnosis("mask-inverted", "the padding mask is used inverted: the real keys are hidden",
                  "your results equal this mistake's on all 6 calls")
PLACES = [("cross_attention", "key_padding_mask", KPM), ("cross_attention", "CrossAttention", LAYER),
          ("other_lesson", "key_padding_mask", KPM)]


def failing(assignment: str, question: str, diagnosis: Diagnosis, number: int = 0):
    return check(f"test_{question}_{number}", assignment=assignment, question=question, diagnoses=(diagnosis,))


def test_the_same_id_in_every_pair_of_exercises_is_counted_apart_everywhere():
    for (first, second) in product(PLACES, repeat=2):
        if first == second:
            continue
        # ann made the first exercise's mistake, bob the second's, cy both (in two checks each)
        ann = student("ann", [failing(*first)])
        bob = student("bob", [failing(*second)])
        cy = student("cy", [failing(*first, 1), failing(*second, 2)])
        if first[2] is second[2]:   # the same sentence: one mistake, named in both exercises
            [one] = diagnosed_mistakes([ann, bob, cy])
            assert one.made == ("ann", "bob", "cy") and one.places == (first[:2], second[:2])
            continue
        stats = {m.places: m for m in diagnosed_mistakes([ann, bob, cy])}
        assert set(stats) == {(first[:2],), (second[:2],)}
        assert (stats[first[:2],].made, stats[first[:2],].title) == (("ann", "cy"), first[2].title)
        assert (stats[second[:2],].made, stats[second[:2],].title) == (("bob", "cy"), second[2].title)

        summary = plain_summary([ann, bob, cy])
        for assignment, exercise, diagnosis in (first, second):
            line = f"2 students  {diagnosis.title} [mask-inverted in {assignment} / {exercise}]"
            assert line in summary, summary

        rows = [[td.text() for td in row.iter("td")]
                for row in parse_html(class_report_html([ann, bob, cy])).find("table", id="diagnoses")
                .find("tbody").iter("tr")]
        where = {row[-1]: row for row in rows if row}
        for (assignment, exercise, diagnosis), made in ((first, "ann, cy"), (second, "bob, cy")):
            row = where[f"{assignment} / {exercise}"]
            assert (row[0], row[1], row[3]) == (diagnosis.title, "mask-inverted", made), row

        feedback = feedback_markdown(cy)   # each exercise's mistake explained in its own words
        for _, _, diagnosis in (first, second):
            assert diagnosis.evidence in feedback, feedback
