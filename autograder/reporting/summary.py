"""A few lines of plain text about the whole class, for the terminal after grading."""
from __future__ import annotations

from ..grading.results import StudentResult
from ..sandbox.isolation import notice
from .class_stats import hardest_tests, misconceptions, score_overview, test_stats, weak_isolation


def plain_summary(results: list[StudentResult]) -> str:
    overview = score_overview(results)
    if not results:
        return "Class summary: no students were graded.\n"
    top = overview["max_score"]
    lines = [
        f"Class summary: {overview['students']} students, mean {overview['mean']:.1f} / {top:g}, "
        f"median {overview['median']:g}, full marks {overview['full_marks']}, "
        f"every code test passed {overview['passed_every_test']}",
    ]
    hardest = hardest_tests(test_stats(results))
    if hardest:
        lines.append("Hardest tests (share of students passing):")
        lines += [f"  {s.pass_rate:4.0%}  {s.test_id}: {s.name}" for s in hardest]
    common = misconceptions(results)[:3]
    if common:
        lines.append("Most common misconceptions (tags of failing tests):")
        lines += [f"  {len(ids)} student{'s' if len(ids) != 1 else ''}  {tag}" for tag, ids in common]
    lines.append(f"Ungradable submissions: {overview['ungradable']} student(s) with files that could not be graded")
    lines.append(f"Grader problems (not the students' fault): {overview['grader_problems']} check(s)")
    for mode, students in weak_isolation(results).items():
        lines.append(f"{len(students)} student(s) graded with isolation '{mode}'. {notice(mode)}")
    return "\n".join(lines) + "\n"
