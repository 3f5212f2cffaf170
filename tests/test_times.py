"""Every time the kit shows is written one way, in UTC ("2026-11-30 10:01 UTC", seconds only where not zero),
whatever the platform wrote: nbgrader's timestamp.txt with or without a zone or microseconds, Gradescope's
ISO 8601 with an offset; a time written without a zone is taken as UTC and the import says so once."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import paths
from autograder.grading.importers import import_class
from autograder.grading.importers.times import parse_time, shown_stamp
from autograder.grading.runner import shipped_stubs
from tests import platforms

SHOWN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC")
TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d\S*(?: UTC)?")
FORMS = {
    "nbgrader": lambda t: t.strftime("%Y-%m-%d %H:%M:%S.%f UTC"),
    "no zone": lambda t: t.strftime("%Y-%m-%d %H:%M:%S"),
    "no zone, microseconds": lambda t: t.strftime("%Y-%m-%d %H:%M:%S.%f"),
    "offset": lambda t: t.astimezone(timezone(timedelta(hours=-8))).isoformat(),
    "Z": lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ"),
}
MOMENTS = st.datetimes(datetime(2026, 11, 30, 9), datetime(2026, 11, 30, 13)).map(
    lambda t: t.replace(microsecond=0, tzinfo=timezone.utc))


@settings(max_examples=80)
@given(MOMENTS, st.sampled_from(sorted(FORMS)))
def test_every_form_is_shown_one_way_in_utc(moment, form):
    written = FORMS[form](moment)
    assert parse_time(written) == moment
    shown = shown_stamp(written)
    assert SHOWN.fullmatch(shown) and parse_time(shown) == moment


@settings(max_examples=6)
@given(st.lists(st.sampled_from(sorted(FORMS)), min_size=6, max_size=6), st.lists(MOMENTS, min_size=6, max_size=6))
def test_an_nbgrader_course_shows_its_times_one_way(tmp_path_factory, forms, moments):
    course = tmp_path_factory.mktemp("nb") / "course"
    students = sorted(p.name for p in paths.DEMO_CLASS_DIR.iterdir() if p.is_dir())
    parts = {a: f"hw{n}" for n, a in enumerate(paths.ASSIGNMENTS, 1)}  # one nbgrader assignment per notebook
    stamps = {(s, part): FORMS[form](when) for s, form, when in zip(students, forms, moments)
              for part in parts.values()}
    due = {part: f"2026-11-30 {min(10 + n, 23)}:00:00" for n, part in enumerate(parts.values(), 1)}
    platforms.nbgrader_course(course, per_assignment=parts, database=True, due=due, stamps=stamps)
    found = import_class(course, course.parent / "stage", list(paths.ASSIGNMENTS), shipped_stubs())
    zoneless = len(parts) * sum(form.startswith("no zone") for form in forms)
    said = found.summary.count("without a time zone, taken as UTC")
    assert said == (1 if zoneless else 0)
    if zoneless:
        assert f"; {zoneless} timestamp.txt without a time zone, taken as UTC" in found.summary
    for student, when in zip(students, moments):
        arrival = found.identities[student].arrival()
        times = TIME.findall(" ".join(arrival.values()))
        assert times and all(SHOWN.fullmatch(t) for t in times), times
        assert parse_time(arrival["submitted_at"]) == when
        assert arrival["late:hw1"] == ("yes" if when > datetime(2026, 11, 30, 11, tzinfo=timezone.utc) else "no")
