"""Command line: a thin layer over the authoring, grading and reporting stages."""
from __future__ import annotations

import errno
import shutil
import sys
import tempfile
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from . import paths
from .commands import default_out, grade_command, record_source, review_command
from .reporting.escape import one_line

console = Console(stderr=True)


def show(text: str, style: str | None = None, target: Console | None = None, **options) -> None:
    """Print a message that may quote students' text (names, file names, errors): as plain text, with control
    and bidirectional characters shown (escape.py's terminal rule), never read as rich markup or emoji."""
    from .reporting.escape import terminal

    (target or console).print(terminal(text), style=style, markup=False, highlight=False, emoji=False, **options)


@click.group()
def main() -> None:
    """Attention kit: exercises, hidden graders and reports for the attention lessons."""


@main.command()
@click.argument("submissions", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: out/<name of the submissions folder>).")
@click.option("--workers", type=int, default=None, help="Parallel graders (default: number of cores).")
@click.option("--isolation", type=click.Choice(["auto", "bwrap", "landlock", "rlimits"]), default="auto",
              help="auto: bubblewrap namespaces when they work, else Landlock without namespaces; "
                   "see docs/isolation.md.")
@click.option("--allow-weak-isolation", "allow_weak", is_flag=True,
              help="Grade even where neither namespaces nor Landlock work (resource limits only: student code "
                   "can read the hidden tests and reference solutions). Every output says so.")
@click.option("--roster", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="A Canvas gradebook export (CSV): canvas.csv then carries Canvas's student and assignment ids.")
@click.option("--due", default=None, metavar="DATETIME",
              help="The deadline, with a time zone (2026-11-25T23:59-08:00): where the download gives submission "
                   "times but not lateness (Gradescope, nbgrader without due dates), a later time is late.")
@click.option("--parts", default=None, metavar="PARTS",
              help="Only these parts, comma-separated: assignment names and quiz:<quiz id> (default: the course "
                   "file's `released:`, source/course.yaml). A part not selected appears nowhere.")
def grade(submissions: Path | None, out: Path | None, workers: int | None, isolation: str, allow_weak: bool,
          roster: Path | None, due: str | None, parts: str | None) -> None:
    """Grade every student in SUBMISSIONS (default: the bundled demo class): folders, a Canvas download, a
    Gradescope export, an nbgrader course root, or a zip of any of them."""
    from . import profiling
    from .grading.importers import import_class
    from .grading.importers.detect import NotAClass
    from .grading.runner import IMPORT, STATE, DiskFull, grade_class, shipped_stubs
    from .reporting.roster import export_columns, join_roster, missing_columns, read_canvas_export
    from .sandbox import SandboxUnavailable
    from .sandbox.isolation import probe_bwrap_early

    profiling.event("cli: grade command")
    probe_bwrap_early(isolation)  # bubblewrap's self-test runs while the class is read

    export = None
    if roster is not None:
        try:
            roster_text = roster.read_text(encoding="utf-8-sig")
            export = read_canvas_export(roster_text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise click.BadParameter(str(exc), param_hint="--roster") from None

    deadline = None
    if due is not None:
        from .grading.importers.arrival import parse_due

        try:
            deadline = parse_due(due)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--due") from None

    selected = chosen_parts(parts)
    submissions = submissions or paths.DEMO_CLASS_DIR
    out = out or default_out(submissions)
    refuse(refusal(submissions, out, workers))
    try:
        imported = import_class(submissions, out / STATE / IMPORT, list(selected.assignments),
                                shipped_stubs(selected.assignments))
    except NotAClass as exc:
        refuse(f"{exc}.")
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            console.print(str(DiskFull(out)), style="bold red", markup=False, highlight=False)
            sys.exit(3)
        refuse(f"{submissions} could not be read ({exc.strerror or type(exc).__name__}).")
    show(imported.summary)
    if deadline is not None:
        from .grading.importers.arrival import apply_due

        show(apply_due(imported, deadline))
    for line in imported.skipped:
        show(one_line(line), "bold red")
    if not imported.submissions:
        shutil.rmtree(out / STATE / IMPORT, ignore_errors=True)
        refuse(f"{submissions} holds no student submission to grade (read as {imported.layout}); "
               "docs/submissions.md lists the layouts that are read.")
    if export is not None:  # before grading: a roster that cannot match this class is refused, not half used
        gap = missing_columns(export_columns(roster_text), [s.student_id for s in imported.submissions],
                              imported.identities)
        if gap:
            shutil.rmtree(out / STATE / IMPORT, ignore_errors=True)
            refuse(f"--roster {roster.name}: {gap}")
    warnings: list[str] = list(imported.skipped)
    with Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("left"), TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("grading", total=None)
        class_size = 0

        def progress(event: str, done: int, total: int) -> None:
            nonlocal class_size
            if event == "start":  # reset: students graded by an earlier run say nothing about the speed now
                bar.reset(task, total=total, completed=done)
                class_size = total
            elif event == "waiting":  # on workers or sandboxed children: the import no longer delays grading
                preload_reports(class_size)
            else:
                bar.advance(task)

        def warn(text: str) -> None:
            warnings.append(text)
            show(text, "bold red", bar.console)

        def announce(text: str) -> None:
            show(text, target=bar.console)

        try:
            results = grade_class(submissions, out, workers=workers, isolation=isolation, progress=progress,
                                  warn=warn, allow_weak=allow_weak, announce=announce, imported=imported,
                                  parts=selected)
        except (SandboxUnavailable, DiskFull) as exc:
            bar.stop()
            show(str(exc), "bold red")
            sys.exit(3)
    joined = None
    if export is not None:
        joined = join_roster([r.student_id for r in results], export[0], imported.identities)
        joined.assignment_ids = export[1]
        report_roster(joined, out, imported.skipped)
    profiling.event("cli: graded")
    from .reporting.outputs import write_outputs  # matplotlib: after the grading, not in front of it

    try:
        write_outputs(out, results, joined, imported.identities, imported.skipped)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            console.print(str(DiskFull(out)), style="bold red", markup=False, highlight=False)
            sys.exit(3)
        refuse(f"The results could not be written to {out} ({exc.strerror or type(exc).__name__}).")
    # `attnkit review` says how to grade again, with the same options
    record_source(out, submissions, roster, due, parts)
    profiling.event("cli: outputs written")
    summarize(results, out, warnings, imported.skipped, joined, imported.identities)
    profiling.event("cli: summary printed")
    if any(r.grader_errors for r in results):
        sys.exit(2)


def chosen_parts(parts: str | None):
    """The course's parts a command works on (course.py); an unknown part refuses the run, naming those that
    exist. Says which parts when not every part is chosen."""
    from .course import CourseError, chosen

    try:
        selected = chosen(parts)
    except CourseError as exc:
        refuse(f"{exc}.")
    if selected.quizzes is not None or selected.assignments != paths.ASSIGNMENTS:
        show(f"parts: {selected.describe()} (the others are left out of every output)")
    return selected


def refusal(submissions: Path, out: Path, workers: int | None) -> str | None:
    """The one sentence that refuses a run that would be dangerous or meaningless, or None."""
    if workers is not None and workers < 1:
        return f"--workers must be at least 1 (got {workers})."
    source, target = submissions.resolve(), out.resolve()
    if source.is_dir() and (target == source or target.is_relative_to(source)):
        return (f"OUT ({out}) is inside SUBMISSIONS ({submissions}): the next run would grade it as a student; "
                "choose an --out outside the submissions.")
    if source.is_relative_to(target):
        return (f"SUBMISSIONS ({submissions}) is inside OUT ({out}): outputs would be written among the "
                "students' files; choose an --out outside the submissions.")
    if submissions.is_file() and not submissions.name.lower().endswith(".zip"):
        return f"{submissions} is a file, not a folder of submissions or a zip of one."
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-probe-"):
            pass
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return None  # a full disk is reported (exit 3) when grading stops on it
        return f"OUT ({out}) cannot be written ({exc.strerror or type(exc).__name__}); choose another --out."
    return None


def refuse(sentence: str | None) -> None:
    if sentence:
        show(sentence, "bold red", soft_wrap=True)  # one line
        sys.exit(2)


def preload_reports(students: int = 0) -> None:
    """Import the report renderers (matplotlib, when the class gets charts) once grading waits (for the workers,
    or for the first student's code in the sandbox), so that writing the outputs afterwards is not also paying
    for the import; not before: in one shard graded here, it would compete with the imports and the
    collection. In this thread: see ForkServer.when_idle for why no second one."""
    import autograder.reporting.outputs  # noqa: F401, PLC0415
    from autograder.reporting.class_report import CHARTS_MIN_STUDENTS  # noqa: PLC0415

    if students >= CHARTS_MIN_STUDENTS:
        import autograder.reporting.plots  # noqa: F401, PLC0415


def report_roster(joined, out: Path, skipped: list[str] = ()) -> None:
    from .grading.skipped import split_skipped
    from .reporting.names import is_test_student, quoted

    show(f"roster: {len(joined.matched)} submission(s) matched to Canvas students "
         f"(details in {out / 'roster-match.csv'})")
    for folder in joined.unmatched:
        if is_test_student(folder):  # Canvas's student view: no one's work, never in an export's roster
            show(f"roster: {quoted([folder])} is Canvas's Test Student; left out of canvas.csv")
        else:
            show(f"roster: no Canvas student for {quoted([folder])}; left out of canvas.csv", "bold red")
    for folder, names in joined.ambiguous.items():
        show(f"roster: {quoted([folder])} matches {quoted(names)}; left out of canvas.csv", "bold red")
    if joined.without_submission:
        unread = split_skipped(list(skipped))[0]
        show(f"roster: {len(joined.without_submission)} Canvas student(s) without a submission: "
             + quoted([e.name for e in joined.without_submission], limit=10)
             + (f"; {len(unread)} file(s) named like a submission could not be read (listed above): some may be "
                "theirs" if unread else ""))


def summarize(results, out: Path, warnings: list[str], skipped: list[str], joined=None, identities=None) -> None:
    """A closing summary that fits a screen; every student's row is in OUT/summary.txt."""
    from .reporting.canvas import canvas_notes
    from .reporting.summary import closing_summary

    from .quiz.outcome import REVIEWED

    reviewed = sum(1 for r in results for q in r.quizzes for i in q.items if REVIEWED in (i.feedback or ""))
    if reviewed:  # a re-grade after a review says what it took from it
        console.print(f"review: {reviewed} answer(s) scored by the decisions in {out / 'review.yaml'}",
                      markup=False, highlight=False, soft_wrap=True)
    pending = sum(q.pending for r in results for q in r.quizzes)
    if pending:
        console.print(f"{pending:g} quiz point(s) wait for review (pending, not 0): run `{review_command(out)}`",
                      markup=False, highlight=False, soft_wrap=True)
    errors = sum(len(r.grader_errors) for r in results)
    if errors:
        console.print(f"[bold red]{errors} checks hit a grader problem (not the students' fault); "
                      f"see {out / 'logs'} and the grader_detail fields in {out / '.state'}[/]")
    shown = [w for w in warnings if w not in skipped]
    for text in shown[:10]:
        show(text, "bold red")
    if len(shown) > 10:
        console.print(f"... and {len(shown) - 10} more warning(s) above", style="bold red")
    # test names hold [brackets]: no markup
    show(closing_summary(results, skipped, str(out / "summary.txt")), end="")
    from .reporting.provisional import arrival_lists

    for label, text in arrival_lists(identities, limit=10):  # extensions, later uploads: in summary.txt
        if label.startswith("Submitted late"):
            show(f"{label[:1].lower() + label[1:]}: {text}")
        else:
            show(f"{label[:1].lower() + label[1:]}: each named in summary.txt")
    from .reporting.moodle import moodle_csv

    for line in canvas_notes(results, joined, identities) + moodle_csv(results, identities)[1]:
        show(one_line(line))
    console.print(f"every student: {out / 'summary.txt'}\ngradebook: {out / 'gradebook.csv'}\n"
                  f"feedback:  {out / 'feedback'}\nresults:   {out / 'results'}\n"
                  f"report:    {out / 'report.html'}\ncanvas:    {out / 'canvas.csv'}"
                  + (f"\nmoodle:    {out / 'moodle.csv'}" if (out / "moodle.csv").exists() else ""),
                  markup=False, highlight=False)


@main.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--file", "--no-browser", "file_only", is_flag=True,
              help="Only write OUT/review.yaml (score the groups in the file), no review page.")
@click.option("--no-open", is_flag=True, help="Serve the review page but do not open a browser (print its address).")
@click.option("--port", type=int, default=0, help="Port on 127.0.0.1 (default: any free port).")
def review(out: Path, file_only: bool, no_open: bool, port: int) -> None:
    """Score the quiz answers in OUT that need a person: groups of answers that mean the same, on a local
    page (or, with --file, in OUT/review.yaml). Decisions are saved to OUT/review.yaml as they are made."""
    from .quiz import load_quizzes
    from .quiz.review import write_review

    try:
        path, groups, answers, unapplied = write_review(out, load_quizzes(paths.QUIZZES_DIR))
    except (FileNotFoundError, ValueError) as exc:
        show(str(exc), "bold red", soft_wrap=True)
        sys.exit(1)
    again = grade_command(out)
    regrade = f"run `{again}`" if again else "grade again with the same OUT folder"
    if not groups:  # one sentence, and no page to open
        show(f"Nothing to review in {out}: every decision is made in {path}; {regrade} to apply "
             f"{unapplied} of them." if unapplied else
             f"Nothing to review in {out}: no quiz answer waits for a person.", soft_wrap=True)
        return
    show(f"{groups} group(s) of answers ({answers} distinct answers) to review in {path}", soft_wrap=True)
    if file_only:
        show(f"Fill in each group's score, then {regrade} to apply the decisions.", soft_wrap=True)
        return
    from .quiz.review_page.server import serve

    serve(out, port, announce=lambda text: show(text, soft_wrap=True),
          open_browser=not no_open)
    show(f"To apply the decisions, {regrade}.", soft_wrap=True)


def check_quizzes_in_full() -> None:
    """Every quiz checked as `python -m autograder.quiz check` checks it, code answers run in the sandbox (a code
    misconception that computes the key would score a right answer 0): a contradiction is refused before any
    file is written. A quiz whose text passed this check before is not run again (quiz/checked.py)."""
    from .quiz import QuizFormatError, load_quizzes

    if not paths.QUIZZES_DIR.is_dir():
        return
    try:
        load_quizzes(paths.QUIZZES_DIR, code=True)
    except QuizFormatError as exc:
        refuse(str(exc))


@main.command()
@click.option("--check", is_flag=True, help="Only report generated files that are out of date.")
def assignments(check: bool) -> None:
    """Generate notebooks, .py twins, public checks and hidden graders from source/."""
    from .authoring.generate import generate, stale_files
    from .authoring.master import MasterError
    from .course import CourseError, assignments as course_assignments

    try:
        course_assignments()  # the course file read before anything is written: a broken one is refused whole
    except CourseError as exc:
        refuse(f"{exc}.")
    check_quizzes_in_full()
    try:
        if check:
            stale = stale_files()
            for path in stale:
                console.print(f"out of date: {path.relative_to(paths.ROOT)}")
            sys.exit(1 if stale else 0)
        written = generate()  # every file is made before any is written: a refused master leaves all as they were
    except MasterError as exc:
        refuse(str(exc))
    for path in written:
        console.print(f"wrote {path.relative_to(paths.ROOT)}")


@main.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=paths.ROOT / "dist" / "attention-kit-student.zip")
@click.option("--parts", default=None, metavar="PARTS",
              help="Only these parts, comma-separated: assignment names and quiz:<quiz id> (default: the course "
                   "file's `released:`, source/course.yaml). A part not selected appears nowhere.")
def release(out: Path, parts: str | None) -> None:
    """Pack what students get into one archive."""
    from .authoring.release import build_release

    console.print(f"wrote {build_release(out, parts=chosen_parts(parts))}")


@main.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=paths.ROOT / "dist" / "gradescope-autograder.zip")
@click.option("--review", "graded", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="A graded OUT folder: bundle its review.yaml, so that a regrade on Gradescope applies the "
                   "decisions made with `make review`.")
@click.option("--parts", default=None, metavar="PARTS",
              help="Only these parts, comma-separated: assignment names and quiz:<quiz id> (default: the course "
                   "file's `released:`, source/course.yaml). A part not selected appears nowhere.")
def gradescope(out: Path, graded: Path | None, parts: str | None) -> None:
    """Build the Gradescope autograder zip (same engine, graders and sandbox)."""
    from .gradescope.build import ReviewRefused, build_zip, review_decisions

    review = None
    if graded is not None:
        try:
            review, decided, undecided = review_decisions(graded)
        except ReviewRefused as exc:
            refuse(f"{exc}.")
    console.print(f"wrote {build_zip(out, review, chosen_parts(parts))}", markup=False, highlight=False,
                  soft_wrap=True)
    if review is not None and not decided:
        console.print(f"{review} holds no decision yet ({undecided} group(s) to score): the zip applies none; run "
                      f"`{review_command(graded)}` first.", markup=False, highlight=False, soft_wrap=True)
    elif review is not None:
        console.print(f"with {decided} review decision(s) from {review}; "
                      + (f"{undecided} group(s) still undecided stay pending" if undecided
                         else "0 groups stay pending")
                      + ": upload it in the assignment's Configure Autograder, then Manage Submissions > "
                        "Regrade all submissions to apply them.", markup=False, highlight=False, soft_wrap=True)


if __name__ == "__main__":
    from .process_exit import run_command

    run_command(main)  # outputs are written and synced: skip the interpreter's teardown
