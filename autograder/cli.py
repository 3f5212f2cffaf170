"""Command line: a thin layer over the authoring, grading and reporting stages."""
from __future__ import annotations

import errno
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import paths

console = Console(stderr=True)


@click.group()
def main() -> None:
    """Attention kit: exercises, hidden graders and reports for the attention lessons."""


@main.command()
@click.argument("submissions", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
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
def grade(submissions: Path | None, out: Path | None, workers: int | None, isolation: str, allow_weak: bool,
          roster: Path | None) -> None:
    """Grade every student folder in SUBMISSIONS (default: the bundled demo class)."""
    from . import profiling
    from .grading.runner import DiskFull, grade_class
    from .reporting.roster import join_roster, read_canvas_export
    from .sandbox import SandboxUnavailable

    profiling.event("cli: grade command")

    export = None
    if roster is not None:
        try:
            export = read_canvas_export(roster.read_text(encoding="utf-8-sig"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise click.BadParameter(str(exc), param_hint="--roster") from None

    submissions = submissions or paths.DEMO_CLASS_DIR
    out = out or paths.ROOT / "out" / ("demo" if submissions == paths.DEMO_CLASS_DIR else submissions.name)
    warnings: list[str] = []
    with Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bar:
        task = bar.add_task("grading", total=None)

        def progress(event: str, done: int, total: int) -> None:
            if event == "start":
                preload_reports()
                bar.update(task, total=total, completed=done)
            else:
                bar.advance(task)

        def warn(text: str) -> None:
            warnings.append(text)
            bar.console.print(text, markup=False, highlight=False, style="bold red")

        def announce(text: str) -> None:
            bar.console.print(text, markup=False, highlight=False)

        try:
            results = grade_class(submissions, out, workers=workers, isolation=isolation, progress=progress,
                                  warn=warn, allow_weak=allow_weak, announce=announce)
        except (SandboxUnavailable, DiskFull) as exc:
            bar.stop()
            console.print(str(exc), style="bold red", markup=False, highlight=False)
            sys.exit(3)
    joined = None
    if export is not None:
        joined = join_roster([r.student_id for r in results], export[0])
        joined.assignment_ids = export[1]
        report_roster(joined, out)
    profiling.event("cli: graded")
    from .reporting.outputs import write_outputs  # matplotlib: after the grading, not in front of it

    try:
        write_outputs(out, results, joined)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        console.print(str(DiskFull(out)), style="bold red", markup=False, highlight=False)
        sys.exit(3)
    profiling.event("cli: outputs written")
    summarize(results, out, warnings)
    profiling.event("cli: summary printed")
    if any(r.grader_errors for r in results):
        sys.exit(2)


def preload_reports() -> None:
    """Import the report renderers (matplotlib) in the background while grading waits for the sandbox
    and for the students' code, so that writing the outputs afterwards is not also paying for the import."""
    import threading

    threading.Thread(target=__import__, args=("autograder.reporting.outputs",), daemon=True).start()


def report_roster(joined, out: Path) -> None:
    console.print(f"roster: {len(joined.matched)} submission folder(s) matched to Canvas students "
                  f"(details in {out / 'roster-match.csv'})")
    for folder in joined.unmatched:
        console.print(f"[bold red]roster: no Canvas student for folder {folder!r}; left out of canvas.csv[/]")
    for folder, names in joined.ambiguous.items():
        console.print(f"[bold red]roster: folder {folder!r} matches {', '.join(names)}; left out of canvas.csv[/]")
    if joined.without_submission:
        console.print(f"roster: {len(joined.without_submission)} Canvas student(s) without a submission folder: "
                      + ", ".join(e.name for e in joined.without_submission[:10]))


def summarize(results, out: Path, warnings: list[str]) -> None:
    table = Table(title=f"{len(results)} students graded")
    for column in ("student", "score", "problems"):
        table.add_column(column)
    for result in results:
        problems = "; ".join(result.problems) or ("grader errors" if result.grader_errors else "")
        table.add_row(result.student_id, f"{result.score:g} / {result.max_score:g}", problems)
    console.print(table)
    pending = sum(q.pending for r in results for q in r.quizzes)
    if pending:
        console.print(f"{pending:g} quiz point(s) wait for review (pending, not 0): run `attnkit review {out}`")
    errors = sum(len(r.grader_errors) for r in results)
    if errors:
        console.print(f"[bold red]{errors} checks hit a grader problem (not the students' fault); "
                      f"see {out / 'logs'} and the grader_detail fields in {out / '.state'}[/]")
    for text in warnings:
        console.print(text, style="bold red", markup=False, highlight=False)
    from .reporting.summary import plain_summary

    console.print(plain_summary(results), markup=False, highlight=False, end="")  # test names hold [brackets]
    console.print(f"gradebook: {out / 'gradebook.csv'}\nfeedback:  {out / 'feedback'}\nresults:   {out / 'results'}\n"
                  f"report:    {out / 'report.html'}\ncanvas:    {out / 'canvas.csv'}")


@main.command()
@click.argument("out", type=click.Path(exists=True, file_okay=False, path_type=Path))
def review(out: Path) -> None:
    """Gather the quiz answers in OUT that need a person into OUT/review.yaml, one group per wording."""
    from .quiz import load_quizzes
    from .quiz.review import write_review

    try:
        path, groups, answers = write_review(out, load_quizzes(paths.QUIZZES_DIR))
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[bold red]{exc}[/]")
        sys.exit(1)
    console.print(f"{groups} group(s) of answers ({answers} distinct answers) to review in {path}\n"
                  "Fill in each group's score, then grade again with the same --out folder.")


@main.command()
@click.option("--check", is_flag=True, help="Only report generated files that are out of date.")
def assignments(check: bool) -> None:
    """Generate notebooks, .py twins, public checks and hidden graders from source/."""
    from .authoring.generate import generate, stale_files

    if check:
        stale = stale_files()
        for path in stale:
            console.print(f"out of date: {path.relative_to(paths.ROOT)}")
        sys.exit(1 if stale else 0)
    for path in generate():
        console.print(f"wrote {path.relative_to(paths.ROOT)}")


@main.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=paths.ROOT / "dist" / "attention-kit-student.zip")
def release(out: Path) -> None:
    """Pack what students get into one archive."""
    from .authoring.release import build_release

    console.print(f"wrote {build_release(out)}")


@main.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=paths.ROOT / "dist" / "gradescope-autograder.zip")
def gradescope(out: Path) -> None:
    """Build the Gradescope autograder zip (same engine, graders and sandbox)."""
    from .gradescope.build import build_zip

    console.print(f"wrote {build_zip(out)}")


if __name__ == "__main__":
    from .process_exit import run_command

    run_command(main)  # outputs are written and synced: skip the interpreter's teardown
