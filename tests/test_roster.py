"""Canvas roster join: folder names matched to SIS login id, e-mail or name; everyone else listed."""
from __future__ import annotations

import csv
import io

from autograder.results import QuizItem, QuizResult, StudentResult
from autograder.results import TestResult as Check
from autograder.reporting.canvas import canvas_csv
from autograder.reporting.roster import join_roster, match_report_csv, read_canvas_export

# The shape of a real Canvas gradebook export: BOM, Integration ID, "Manual Posting" and "Points Possible"
# rows, a test student, assignment titles with their Canvas ids.
EXPORT = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Integration ID,Section,attention_scores code (4521),"
    "quiz attention (4530),Current Score\n"
    "    Manual Posting,,,,,,,,\n"
    "    Points Possible,,,,,,31.00,20.00,(read only)\n"
    '"Lovelace, Ada",101,S0001,ada,,Section A,,,\n'
    '"Hopper, Grace",102,S0002,ghopper@uni.example,,Section A,,,\n'
    '"Lee, Barbara",103,S0003,blee,,Section B,,,\n'
    '"Torvalds, Linus",104,S0004,lt2025,,Section B,,,\n'
    '"Lee, Ann",105,S0005,alee,,Section B,,,\n'
    '"Lee, Ann",106,S0006,alee2,,Section B,,,\n'
    '"Student, Test",107,,,,Section A,,,\n'
)


def result(student: str) -> StudentResult:
    test = Check(f"attention_scores::{student}", "t", "attention_scores", "dot_scores", 3, 4, "passed")
    quiz = QuizResult("attention", 12, 20, (QuizItem("att-01", 2, 2),))
    return StudentResult(student, (test,), (quiz,))


def test_read_export_skips_non_student_rows_and_reads_assignment_ids():
    entries, assignments = read_canvas_export(EXPORT)
    assert [e.name for e in entries] == ["Lovelace, Ada", "Hopper, Grace", "Lee, Barbara", "Torvalds, Linus",
                                         "Lee, Ann", "Lee, Ann"]  # Canvas's Test Student is no student
    assert assignments == {"attention_scores code": 4521, "quiz attention": 4530}
    assert entries[2].section == "Section B" and entries[2].canvas_id == "103"


def test_join_matches_login_email_and_name_and_lists_the_rest():
    entries, _ = read_canvas_export(EXPORT)
    folders = ["ada", "ghopper", "Barbara_Lee", "linus", "ann lee", "S0004x", "margaret"]
    join = join_roster(folders, entries)
    how = {folder: (entry.canvas_id, rule) for folder, (entry, rule) in join.matched.items()}
    assert how == {"ada": ("101", "SIS Login ID"), "ghopper": ("102", "email"), "Barbara_Lee": ("103", "name")}
    assert join.ambiguous == {"ann lee": ["Lee, Ann", "Lee, Ann"]}  # two Ann Lees: never guessed
    assert join.unmatched == ["linus", "S0004x", "margaret"]
    assert {e.canvas_id for e in join.without_submission} == {"104", "105", "106"}
    report = match_report_csv(join)
    assert "margaret,NOT IN ROSTER" in report and 'AMBIGUOUS: ""Lee, Ann"", ""Lee, Ann""' in report


def test_canvas_csv_round_trip_with_roster():
    entries, assignments = read_canvas_export(EXPORT)
    join = join_roster(["ada", "Barbara_Lee", "margaret"], entries)
    join.assignment_ids = assignments
    rows = list(csv.reader(io.StringIO(canvas_csv([result("ada"), result("Barbara_Lee"), result("margaret")],
                                                  roster=join))))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "attention_scores code (4521)",
                       "quiz attention (4530)"]
    assert rows[1][0] == "    Points Possible"
    assert rows[2:] == [["Lovelace, Ada", "101", "S0001", "ada", "Section A", "3", "12"],
                        ["Lee, Barbara", "103", "S0003", "blee", "Section B", "3", "12"]]
    # Read back as Canvas would: every written student id is one the export knows.
    written = {row[1] for row in rows[2:]}
    assert written <= {e.canvas_id for e in entries}


def test_pending_quiz_points_leave_the_canvas_cell_blank():
    pending = StudentResult("ada", (), (QuizResult("attention", 10, 20, (QuizItem("att-04", 0, 2, "", True),),
                                                   pending=2.0),))
    rows = list(csv.reader(io.StringIO(canvas_csv([pending]))))
    assert rows[0][-1] == "quiz attention" and rows[2][-1] == ""


def test_a_roster_is_refused_only_when_the_class_cannot_be_matched_with_it():
    from autograder.grading.importers import Identity
    from autograder.reporting.roster import export_columns, missing_columns

    full = export_columns(EXPORT)
    bare = export_columns("Student,ID,Section\n")
    folders = ["ada", "grace"]
    canvas = {f: Identity(lms_user_id=str(100 + i)) for i, f in enumerate(folders)}
    gradescope = {f: Identity(name=f, sid=f"S{i}") for i, f in enumerate(folders)}
    with_email = {f: Identity(name=f, email=f"{f}@uni.example") for f in folders}
    assert missing_columns(full, folders) is None
    assert missing_columns(bare, folders, canvas) is None  # Canvas user ids need only the ID column
    for identities, column in (({}, "SIS Login ID"), (gradescope, "SIS User ID"),
                               (with_email, "SIS Login ID or Email")):
        sentence = missing_columns(bare, folders, identities)
        assert sentence.startswith(f"the roster has no {column} column, which matching 2 of the 2 submission(s)")
        assert sentence.endswith(".") and ". " not in sentence
    assert missing_columns(export_columns("Student,ID,SIS User ID\n"), folders, gradescope) is None


def test_canvas_csv_without_roster_writes_only_ids_of_their_kind():
    from autograder.grading.importers import Identity

    identities = {"lovelaceada": Identity(lms_user_id="340934", late=True),
                  "Alan Turing": Identity(name="Alan Turing", sid="S0002", email="at@uni.example"),
                  "studenttest": Identity(lms_user_id="999")}
    rows = list(csv.DictReader(io.StringIO(canvas_csv([result(s) for s in (*identities, "folder")],
                                                      identities=identities))))[1:]
    assert [(r["Student"], r["ID"], r["SIS User ID"], r["SIS Login ID"]) for r in rows] == [
        ("lovelaceada", "340934", "", ""), ("Alan Turing", "", "S0002", ""), ("folder", "", "", "")]


def test_moodle_csv_has_only_rows_it_can_match_and_only_final_columns():
    """Moodle's import stops at a row whose user it cannot find and clears a grade on an empty cell."""
    from autograder.grading.importers import Identity
    from autograder.reporting.moodle import moodle_csv

    pending = QuizResult("attention", 10, 20, (QuizItem("att-04", 0, 2, "", True),), pending=2.0)
    waiting = StudentResult("Ann Lee", result("x").tests, (pending,))
    identities = {"Ada Lovelace": Identity(name="Ada Lovelace", email="ada@uni.example"),
                  "Ann Lee": Identity(name="Ann Lee", email="alee@uni.example")}
    text, notes = moodle_csv([result("Ada Lovelace"), waiting, result("folder")], identities)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["email", "attention_scores code"], ["ada@uni.example", "3"], ["alee@uni.example", "3"]]
    assert all(cell != "" for row in rows for cell in row)
    assert notes == ['moodle.csv: 1 student(s) without an e-mail left out (Moodle stops the whole import at a row '
                     'it cannot match): "folder"',
                     'moodle.csv: "quiz attention" left out until every cell is final (answers waiting for review, '
                     "a grader problem or a missing part; an empty cell would clear Moodle's grade)"]
    assert moodle_csv([result("folder")], {}) == (None, [])  # no e-mail known: no file


def test_canvas_notes_say_what_the_upload_will_not_do():
    from autograder.grading.importers import Identity
    from autograder.reporting.canvas import canvas_notes

    pending = QuizResult("attention", 10, 20, (QuizItem("att-04", 0, 2, "", True),), pending=2.0)
    results = [result("ada"), StudentResult("Ann Lee", (), (pending,)), result("studenttest")]
    identities = {"ada": Identity(lms_user_id="101"), "studenttest": Identity(lms_user_id="999")}
    assert canvas_notes(results, identities=identities) == [
        "canvas.csv: 1 quiz cell(s) of 1 student(s) left blank while answers wait for review (Canvas keeps its "
        "value); upload again after the review",
        "canvas.csv: 1 student(s) without a Canvas or SIS id, matched by exact name only; --roster <gradebook "
        "export> joins them",
        "canvas.csv: Canvas's Test Student left out"]
    assert canvas_notes([result("ada")], identities=identities) == []


# ---------- generated: whatever the platform said, canvas.csv puts only ids of their kind in their columns ----------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = st.one_of(st.text(min_size=1, max_size=20),
                  st.sampled_from(["Lovelace, Ada", 'Ada "the" Lovelace', "Points Possible", "=cmd|calc",
                                   "Student, Test", "Test Student", "studenttest", "Lee, Ann\nJr"]))
IDS = st.one_of(st.just(""), st.from_regex(r"[0-9]{1,9}", fullmatch=True))


@st.composite
def platform_class(draw):
    from autograder.grading.importers import Identity

    people = draw(st.lists(st.tuples(NAMES, st.sampled_from(["folder", "canvas", "gradescope"]), IDS, IDS),
                           min_size=1, max_size=6, unique_by=lambda p: p[0]))
    identities = {}
    for name, kind, user, sid in people:
        if kind == "canvas":
            identities[name] = Identity(lms_user_id=user)
        elif kind == "gradescope":
            identities[name] = Identity(name=name, sid=sid, email="x@uni.example")
    return [result(name) for name, *_ in people], identities


@settings(max_examples=60, derandomize=True, deadline=None)
@given(platform_class())
def test_generated_classes_write_ids_only_under_their_own_column(case):
    from autograder.reporting.names import is_test_student

    results, identities = case
    rows = list(csv.DictReader(io.StringIO(canvas_csv(results, identities=identities), newline="")))
    assert rows[0]["Student"] == "    Points Possible"  # as Canvas exports it
    written = rows[1:]
    kept = [r for r in results if not is_test_student(getattr(identities.get(r.student_id), "name", "")
                                                      or r.student_id)]
    assert len(written) == len(kept)
    for row, kept_result in zip(written, kept):
        who = identities.get(kept_result.student_id)
        assert row["ID"] == getattr(who, "lms_user_id", "")            # a Canvas user id, or nothing
        assert row["SIS User ID"] == getattr(who, "sid", "")           # a SID, or nothing
        assert row["SIS Login ID"] == "" and row["Section"] == ""      # never a name where a login belongs
        assert "points possible" not in row["Student"].lower()         # not taken for the points row
        assert not row["Student"].startswith(("=", "+", "-", "@"))     # not run by a spreadsheet


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.lists(NAMES, min_size=1, max_size=5))
def test_quoted_lists_read_back_name_by_name(names):
    from autograder.reporting.escape import one_line
    from autograder.reporting.names import quoted

    text = quoted(names)
    assert len(text.splitlines()) == 1  # one line, whatever the names hold: a newline in one is shown
    [back] = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    assert back == [one_line(name).replace('"', "'") for name in names]


def test_a_sid_that_is_a_canvas_user_id_is_joined_by_it():
    from autograder.grading.importers import Identity

    entries, _ = read_canvas_export(EXPORT)
    identities = {"Ada Lovelace": Identity(name="Ada Lovelace", sid="S0001"),   # the SIS User ID
                  "Grace Hopper": Identity(name="Grace Hopper", sid="102"),     # the Canvas user id
                  "Nobody": Identity(name="Nobody", sid="999")}
    join = join_roster(list(identities), entries, identities)
    assert {f: (e.canvas_id, rule) for f, (e, rule) in join.matched.items()} == {
        "Ada Lovelace": ("101", "SIS User ID"), "Grace Hopper": ("102", "Canvas ID (the SID)")}
    assert join.unmatched == ["Nobody"]


def test_roster_notes_name_who_the_upload_will_not_reach():
    from autograder.reporting.canvas import roster_notes
    from autograder.reporting.roster import RosterEntry, RosterJoin

    joined = RosterJoin(unmatched=["Doe, Jane", "studenttest"], ambiguous={"lee": ["Lee, Barbara", "Lee, Bo"]},
                        without_submission=[RosterEntry("Hopper, Grace", "7")])
    assert roster_notes(joined) == [
        'canvas.csv: left out, no student of the roster matches "Doe, Jane" (roster-match.csv says why)',
        'canvas.csv: left out, each matches two or more students of the roster: "lee"',
        'roster: 1 student(s) with no submission, not in canvas.csv (Canvas keeps their cells): "Hopper, Grace"']
    assert roster_notes(RosterJoin()) == [] and roster_notes(None) == []
