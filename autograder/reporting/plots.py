"""Charts for the class report, each returned as PNG bytes.

Figures are built with matplotlib's object API and rendered by the Agg canvas directly, never through
pyplot: nothing touches the process-wide backend or pyplot's figure registry, so nothing needs closing
and a report can be drawn from any thread or after other code picked a GUI backend. The PNGs carry no
"Software" tag and Agg writes no timestamp, so the same data gives the same bytes.

Every chart with one label per item (tests, mistakes, quiz items) puts the labels on an axis, one row each,
and sizes the figure from the number of rows and the lines per label: labels cannot overlap, however many
there are (tests/test_reports.py measures their boxes with the renderer). Each chart has a `*_figure`
builder for that check and a `*_png` wrapper for the report.
"""
from __future__ import annotations

import io
import textwrap
import warnings
from collections.abc import Sequence

from .matplotlib_home import private_matplotlib_home

private_matplotlib_home()  # before matplotlib is imported: it reads MPLCONFIGDIR once

import matplotlib  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .class_stats import LOW_DISCRIMINATION, ItemStats, MistakeStats

STYLE = {"font.family": "DejaVu Sans", "font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
         "svg.hashsalt": "attention-kit", "figure.dpi": 100}
PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
BAD, GOOD = "#C44E52", "#4C72B0"


def build(draw, width: float, height: float, columns: int = 1) -> Figure:
    with matplotlib.rc_context(STYLE), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a missing glyph must not break a report
        figure = Figure(figsize=(width, height))
        FigureCanvasAgg(figure)
        axes = figure.subplots(1, columns, sharey=True, squeeze=False)[0]
        draw(*axes)
        figure.tight_layout()
    return figure


def png(figure: Figure) -> bytes:
    with matplotlib.rc_context(STYLE), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = io.BytesIO()
        figure.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


def render(draw, width: float, height: float) -> bytes:
    return png(build(draw, width, height))


def wrap(label: str, width: int = 36) -> str:
    return "\n".join(textwrap.wrap(label, width, break_long_words=True)) or " "


def row_height(labels: Sequence[str], per_line: float) -> float:
    """Inches for the rows of a label axis: each row as tall as its label's lines, at least one line."""
    return sum(max(1, label.count("\n") + 1) for label in labels) * per_line
def score_histogram_png(percentages: Sequence[float]) -> bytes:
    def draw(ax):
        ax.hist(list(percentages), bins=[i * 10 for i in range(11)], color=GOOD, edgecolor="white")
        ax.set_xlim(0, 100)
        ax.set_xlabel("total score (% of maximum)")
        ax.set_ylabel("students")
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_title("Score distribution")
    return render(draw, 6.0, 3.0)


def pass_rate_png(labels: Sequence[str], rates: Sequence[float], groups: Sequence[str]) -> bytes:
    return png(pass_rate_figure(labels, rates, groups))


def pass_rate_figure(labels: Sequence[str], rates: Sequence[float], groups: Sequence[str]) -> Figure:
    """Horizontal bars, top to bottom in the given order, coloured by group (the assignment)."""
    colours = {group: PALETTE[i % len(PALETTE)] for i, group in enumerate(dict.fromkeys(groups))}

    def draw(ax):
        positions = range(len(labels))
        ax.barh(list(positions), [100 * r for r in rates], color=[colours[g] for g in groups])
        ax.set_yticks(list(positions), labels=list(labels), fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("students passing (%)")
        handles = [Patch(color=c, label=g) for g, c in colours.items()]
        ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=len(handles), fontsize=7,
                  frameon=False)
    return build(draw, 7.5, 1.2 + 0.22 * len(labels))


def mistakes_png(mistakes: Sequence[MistakeStats]) -> bytes:
    return png(mistakes_figure(mistakes))


def mistakes_figure(mistakes: Sequence[MistakeStats]) -> Figure:
    """Students per diagnosed mistake: those who made it, then (lighter) those who possibly did."""
    labels = [wrap(m.title) for m in mistakes]

    def draw(ax):
        positions = list(range(len(mistakes)))
        made = [len(m.made) for m in mistakes]
        ax.barh(positions, made, color=BAD, label="made it (a check names it alone)")
        ax.barh(positions, [len(m.possible) for m in mistakes], left=made, color="#E8A9AB",
                label="possibly (named together with another mistake)")
        ax.set_yticks(positions, labels=labels, fontsize=8)
        ax.invert_yaxis()
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("students")
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2, fontsize=7, frameon=False)
    return build(draw, 7.5, 1.1 + row_height(labels, 0.2) + 0.08 * len(labels))


def item_statistics_png(items: Sequence[ItemStats]) -> bytes:
    return png(item_statistics_figure(items))


def item_statistics_figure(items: Sequence[ItemStats]) -> Figure:
    """One row per quiz item (its id as the row label): difficulty on the left, discrimination on the right,
    flagged items in red. Items are rows, not scatter points, so no two labels can land on each other."""
    labels = [i.question_id for i in items]
    colours = [BAD if i.flagged else GOOD for i in items]

    def draw(left, right):
        positions = list(range(len(items)))
        left.barh(positions, [i.difficulty or 0.0 for i in items], color=colours)
        left.set_yticks(positions, labels=labels, fontsize=7)
        left.invert_yaxis()
        left.set_xlim(0, 1)
        left.set_xlabel("difficulty (mean score / max)")
        right.axvline(LOW_DISCRIMINATION, color=BAD, linestyle="--", linewidth=1)
        right.axvline(0, color="#888", linewidth=0.8)
        right.barh(positions, [i.discrimination or 0.0 for i in items], color=colours)
        for position, item in zip(positions, items):
            if item.discrimination is None:
                right.text(0.02, position, "undefined", va="center", fontsize=6, color="#666")
        right.set_xlim(-1, 1)
        right.set_xticks([-1, -0.5, 0, 0.5, 1])
        right.set_xlabel("discrimination (corrected point-biserial)")
        right.tick_params(axis="y", left=False)
    return build(draw, 7.5, 1.1 + 0.2 * len(labels), columns=2)
