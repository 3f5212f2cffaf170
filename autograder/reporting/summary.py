"""A few lines of plain text about the whole class, for the terminal after grading: the class summary, the
score distribution and who needs attention fit one screen; the full table goes to a file (`summary.txt`).
Students' ids, the reasons that quote their files and the skipped entries' names are written one line each
(escape.py's `one_line`): a newline or an ANSI escape in a name is shown, never obeyed."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..grading.skipped import UNREAD, split_skipped
from ..results import StudentResult
from .attention import Attention, counts, needs_attention
from .escape import one_line
from .names import quoted
from .provisional import (arrival_lists, arrival_text, mean_points, pending, review_banner_text,
                          score_text)
from ..sandbox.isolation import notice
from .class_stats import (CLASS_MEAN, diagnosed_mistakes, hardest_tests, score_overview, test_stats,
                          undiagnosed_failures, weak_isolation)


def plain_summary(results: list[StudentResult]) -> str:
    overview = score_overview(results)
    if not results:
        return "Class summary: no students were graded.\n"
    top = overview["max_score"]
    lines = [
        f"Class summary: {overview['students']} students, "
        f"mean {mean_points(overview['mean'], overview['mean_pending'])} / {top:g} ({CLASS_MEAN}), "
        f"median {overview['median']:g}, full marks {overview['full_marks']}, "
        f"every code test passed {overview['passed_every_test']}",
    ]
    waiting = [r for r in results if pending(r)]
    if waiting:
        lines.append(f"Provisional: {sum(map(pending, waiting)):g} quiz point(s) of {len(waiting)} student(s) wait "
                     "for review; the scores here leave them out until then")
    flags = {t.test_id for r in results for t in r.tests if t.max_score == 0}  # zero-point flags test no skill
    hardest = hardest_tests([s for s in test_stats(results) if s.test_id not in flags and s.pass_rate is not None
                             and s.pass_rate < 1])  # a test everyone passed is not hard
    if hardest:
        lines.append("Hardest tests (share of students passing):")
        lines += [f"  {s.pass_rate:4.0%}  {s.test_id}: {s.name}" for s in hardest]
    named = diagnosed_mistakes(results)
    mistakes = [m for m in named if m.made][:3]
    if mistakes:
        lines.append("Most common diagnosed mistakes (students who made them):")
        shared = {m.mistake for m in named if sum(n.mistake == m.mistake for n in named) > 1}  # one id, two meanings
        lines += [f"  {len(m.made)} student{'s' if len(m.made) != 1 else ''}  {m.title} "
                  f"[{m.mistake}{f' in {m.where}' if m.mistake in shared else ''}]"
                  for m in mistakes]
    elif named:
        lines.append(f"Diagnosed mistakes: none proven; {len(named)} named only together with another (see the report)")
    else:
        lines.append("Diagnosed mistakes: no failed check named a mistake")
    undiagnosed = undiagnosed_failures(results)
    if undiagnosed:
        students = {student for entry in undiagnosed for student, _ in entry.students}
        lines.append(f"Failed for no diagnosed reason: {sum(len(e.students) for e in undiagnosed)} failure(s) of "
                     f"{len(undiagnosed)} check(s), {len(students)} student(s); listed in the report")
    lines.append(f"Could not be graded: {overview['ungradable']} student(s) (a file handed in that could not be "
                 "read or was refused)")
    if overview["not_handed_in"]:
        lines.append(f"Not handed in: {overview['not_handed_in']} student(s) without a code file of an assignment")
    lines.append(f"Grader problems (not the students' fault): {overview['grader_problems']} check(s)")
    for mode, students in weak_isolation(results).items():
        lines.append(f"{len(students)} student(s) graded with isolation '{mode}'. {notice(mode)}")
    return "\n".join(lines) + "\n"


SHOWN_STUDENTS = 10  # students listed under "needs your attention" in the terminal; all are in the report
REASON_WIDTH = 110   # characters of a reason in the terminal; every reason is whole in summary.txt and the report


def shortened(text: str, width: int) -> str:
    """`text` whole when it fits, else cut at the last space that leaves room for " …" (a word is never cut
    unless it alone is wider than the line)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[: width - 1].rstrip()
    head = cut.rsplit(" ", 1)[0] if " " in cut else cut[: width - 2]
    return head.rstrip(" ,;:") + " …"


def distribution(results: list[StudentResult], bands: int = 5, width: int = 30) -> list[str]:
    """A text histogram of total scores in `bands` equal shares of the maximum."""
    if not results:
        return []
    counts_per_band = [0] * bands
    for result in results:
        share = result.score / result.max_score if result.max_score else 0.0
        counts_per_band[min(bands - 1, int(share * bands))] += 1
    top = max(counts_per_band)
    lines = ["Score distribution (share of the maximum):"]
    for band, count in enumerate(counts_per_band):
        low, high = 100 * band // bands, 100 * (band + 1) // bands
        bar = "#" * round(width * count / top) if top else ""
        lines.append(f"  {low:3d}-{high:3d}%{']' if band == bands - 1 else ')'} {count:4d}  {bar}")
    return lines


def attention_lines(found: list[Attention], skipped: list[str], full_list: str) -> list[str]:
    lines = []
    students: dict[str, list[Attention]] = {}
    for item in found:
        students.setdefault(item.student, []).append(item)
    if students:
        lines.append(f"Needs your attention: {len(students)} student(s); by file or answer: {counts(found)}")
        for student, items in list(students.items())[:SHOWN_STUDENTS]:
            first = items[0]
            more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
            reason = shortened(one_line(first.reason), REASON_WIDTH)
            lines.append(f"  {one_line(student)}: {first.kind}: {reason}{more}")
        if len(students) > SHOWN_STUDENTS:
            lines.append(f"  ... and {len(students) - SHOWN_STUDENTS} more student(s): every one in {full_list}")
    else:
        lines.append("Needs your attention: nobody (every file was found and graded as handed in)")
    unread, skipped = split_skipped(list(skipped))
    if unread:
        lines.append(f"Could not be graded: {len(unread)} file(s) named like a student's submission, whose student "
                     f"could not be read (listed above and in {full_list})")
    if skipped:
        lines.append(f"Not a student's submission, so not graded: {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'}"
                     f" (listed above and in {full_list})")
    return lines


def closing_summary(results: list[StudentResult], skipped: list[str], full_list: str) -> str:
    """What the terminal shows after grading: fits a screen for a class of any size."""
    lines = [plain_summary(results).rstrip("\n"), *distribution(results),
             *attention_lines(needs_attention(results), skipped, full_list)]
    return "\n".join(lines) + "\n"


def full_table(results: list[StudentResult], skipped: list[str], identities: Mapping | None = None,
               notes: list[str] = (), out: Path | None = None) -> str:
    """summary.txt: every student's score (with quiz points pending review beside it) and when the work
    arrived where the platform says, then everything that needs attention, then what was skipped; `notes`
    (what to know about canvas.csv) close it."""
    names = {r.student_id: one_line(r.student_id) for r in results}
    width = max([len(name) for name in names.values()] + [7])
    scores = {r.student_id: score_text(r) for r in results}
    score_width = max([len(text) for text in scores.values()] + [5])
    arrivals = {r.student_id: one_line(arrival_text(identities, r.student_id)) for r in results}
    arrived = max([len(text) for text in arrivals.values()] + [0])
    when = f"  {'arrived':<{max(arrived, 7)}}" if arrived else ""
    lines = [f"{'student':<{width}}  {'score':>{score_width}}{when}  needs attention"]
    banner = review_banner_text(results, out)
    found: dict[str, list[Attention]] = {}
    for item in needs_attention(results):
        found.setdefault(item.student, []).append(item)
    for result in results:
        items = found.get(result.student_id, [])
        shown = f"  {arrivals[result.student_id]:<{max(arrived, 7)}}" if arrived else ""
        lines.append(f"{names[result.student_id]:<{width}}  {scores[result.student_id]:>{score_width}}{shown}  "
                     f"{len(items) or ''}".rstrip())
    for label, text in arrival_lists(identities):
        lines += ["", f"{label}: {one_line(text)}"]
    if banner:
        lines += ["", banner]
    lines += ["", "Needs your attention (every student, every reason):"]
    lines += [f"  {one_line(a.student)}: {a.kind}: {one_line(a.reason)}" for items in found.values() for a in items] \
        or ["  nobody"]
    unread, skipped = split_skipped(list(skipped))
    if unread:
        lines += ["", "Named like a student's submission, but not read, so not graded:"] + [
            f"  {one_line(line.removeprefix(UNREAD))}" for line in unread]
    if skipped:
        lines += ["", "Not a student's submission, so not graded:"] + [f"  {one_line(line)}" for line in skipped]
    if notes:
        lines += ["", *map(one_line, notes)]
    return "\n".join(lines) + "\n"
