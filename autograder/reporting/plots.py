"""Charts for the class report, each returned as PNG bytes.

Figures are built with matplotlib's object API and rendered by the Agg canvas directly, never through
pyplot: nothing touches the process-wide backend or pyplot's figure registry, so nothing needs closing
and a report can be drawn from any thread or after other code picked a GUI backend. The PNGs carry no
"Software" tag and Agg writes no timestamp, so the same data gives the same bytes.
"""
from __future__ import annotations

import io
import warnings
from collections.abc import Sequence

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .class_stats import LOW_DISCRIMINATION, ItemStats

STYLE = {"font.family": "DejaVu Sans", "font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
         "svg.hashsalt": "attention-kit", "figure.dpi": 100}
PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
BAD, GOOD = "#C44E52", "#4C72B0"


def render(draw, width: float, height: float) -> bytes:
    with matplotlib.rc_context(STYLE), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a missing glyph must not break a report
        figure = Figure(figsize=(width, height))
        FigureCanvasAgg(figure)
        draw(figure.add_subplot())
        figure.tight_layout()
        out = io.BytesIO()
        figure.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


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
        ax.legend(handles=handles, loc="lower right", fontsize=7)
        ax.set_title("Pass rate of every grader test")
    return render(draw, 7.5, 1.2 + 0.22 * len(labels))


def misconception_png(tags: Sequence[str], counts: Sequence[int]) -> bytes:
    def draw(ax):
        positions = range(len(tags))
        ax.barh(list(positions), list(counts), color=BAD)
        ax.set_yticks(list(positions), labels=list(tags), fontsize=8)
        ax.invert_yaxis()
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("students with a failing test on it")
        ax.set_title("Most common misconceptions")
    return render(draw, 6.5, 1.0 + 0.25 * len(tags))


def item_analysis_png(items: Sequence[ItemStats]) -> bytes:
    """Difficulty against discrimination, one point per quiz item that has both."""
    shown = [i for i in items if i.difficulty is not None and i.discrimination is not None]

    def draw(ax):
        ax.axhline(LOW_DISCRIMINATION, color=BAD, linestyle="--", linewidth=1)
        ax.scatter([i.difficulty for i in shown], [i.discrimination for i in shown],
                   c=[BAD if i.flagged else GOOD for i in shown], s=18)
        for item in (i for i in shown if i.flagged):  # label only what needs a look; the rest would overlap
            ax.annotate(item.question_id, (item.difficulty, item.discrimination), fontsize=7,
                        xytext=(3, 2), textcoords="offset points")
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-1.05, 1.05)
        ax.set_xlabel("difficulty (mean score / max; higher is easier)")
        ax.set_ylabel("discrimination (corrected point-biserial)")
        ax.set_title(f"Quiz items (below the dashed line: discrimination < {LOW_DISCRIMINATION})")
    return render(draw, 6.5, 4.0)
