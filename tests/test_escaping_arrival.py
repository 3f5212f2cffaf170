"""The platform's words about a student (names in lists, the submission time, late marks) reach every output
through that output's escaping rule (reporting/escape.py), as the student's own text does."""
from __future__ import annotations

import json

from hypothesis import given, strategies as st

from autograder.grading.importers import Identity, PartArrival
from autograder.reporting import class_report
from autograder.reporting.escape import one_line
from autograder.reporting.feedback import feedback_markdown
from autograder.reporting.gradebook import gradebook_csv
from autograder.reporting.gradescope import results_json
from autograder.reporting.moodle import moodle_csv
from autograder.reporting.names import quoted
from autograder.reporting.provisional import arrival
from autograder.reporting.roster import RosterJoin, match_report_csv
from autograder.reporting.summary import full_table
from tests.html_tree import parse_html
from tests.markdown_read import shown_text
from tests.test_escaping import (ALLOWED_TAGS, HOSTILE, SETTINGS, as_text, assert_inert_markdown, assert_no_formula,
                                 hidden_in, hostile_class, monkeypatch_charts, read_csv, words)

__all__ = ["monkeypatch_charts"]  # the fixture, shared


@SETTINGS
@given(hostile_class(), st.lists(HOSTILE, min_size=3, max_size=3))
def test_arrival_and_late_lists_are_shown_as_text(monkeypatch_charts, made, texts):
    ada, hostile, _ = made
    name, email, when = texts
    # where the platform dates parts apart, a part's name is a folder's, and a resubmitted file's name is the
    # student's: both are shown in the feedback, the lists, the gradebook's columns and notes
    parts = (PartArrival(name, when, True, "2026-11-30 10:05 UTC", email), PartArrival("ps2", when, False))
    notes = (f"{email} uploaded 2 times: the latest ({name}) was graded",)
    identities = {hostile.student_id: Identity(name=name, email=email, late=True, submitted_at=when, parts=parts,
                                               notes=notes),
                  "ada": Identity(name="Ada Lovelace", email="ada@example.org", late=False,
                                  submitted_at="2026-11-20T10:00:00-08:00")}
    came = arrival(identities, hostile.student_id)

    markdown = feedback_markdown(hostile, came)
    assert_inert_markdown(markdown)
    if when.strip():
        assert words(one_line(when)) in words(shown_text(markdown))
    data = results_json(hostile, arrival=came)
    json.dumps(data, ensure_ascii=False).encode("utf-8")
    assert_inert_markdown(data["output"])
    assert data["extra_data"]["late"] is True

    table = full_table([ada, hostile], [], identities, ["a note about " + when])
    assert not hidden_in(table)
    assert not [line for line in table.splitlines() if line.startswith("forged")]
    late_line = quoted([hostile.student_id])
    assert len(late_line.splitlines()) == 1 and late_line in table

    rows = read_csv(gradebook_csv([ada, hostile], identities))
    assert len(rows) == 3 and len({len(r) for r in rows}) == 1
    assert_no_formula(rows)
    row = dict(zip(rows[0], rows[2]))
    assert row["late"] == "yes" and as_text(row["submitted_at"], when)

    moodle, notes = moodle_csv([ada, hostile], identities)
    if moodle is not None:
        assert_no_formula(read_csv(moodle))
    assert all(len(note.splitlines()) == 1 for note in notes)

    page = class_report.class_report_html([ada, hostile], [], identities)
    assert not hidden_in(page, "\n\t")
    assert {e.tag for e in parse_html(page).iter()} <= ALLOWED_TAGS


@SETTINGS
@given(st.lists(HOSTILE, min_size=2, max_size=4))
def test_ambiguous_matches_in_the_roster_report_are_cells_of_text(names):
    from autograder.reporting.roster import RosterEntry

    join = RosterJoin(ambiguous={names[0]: names[1:]}, unmatched=[names[-1]],
                      without_submission=[RosterEntry(names[1], "7")])
    rows = read_csv(match_report_csv(join))
    assert len(rows) == 4 and len({len(r) for r in rows}) == 1  # a newline in a name forges no row
    assert_no_formula(rows)
    assert len(quoted(names).splitlines()) == 1  # a list of names is one line, for any output
