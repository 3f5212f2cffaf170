"""How a score is written wherever one is shown: with the quiz points still waiting for review beside it
("51 + 4 pending / 70"), since those are neither earned nor lost yet; and when the work arrived, as the
platform said (Canvas marks late uploads; Gradescope and nbgrader give a time)."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..commands import make_review
from ..results import QuizResult, StudentResult


def pending(result: StudentResult | QuizResult) -> float:
    if isinstance(result, QuizResult):
        return round(result.pending, 6)
    return round(sum(q.pending for q in result.quizzes), 6)


def points(score: float, waiting: float) -> str:
    """"51" or "51 + 4 pending"."""
    return f"{score:g}" + (f" + {waiting:g} pending" if waiting else "")


def mean_points(mean: float, waiting: float, digits: int = 1) -> str:
    """The class mean written as every score is: "45.3" or "45.3 + 0.8 pending", where the mean counts no
    pending point (class_stats.CLASS_MEAN) and the pending part is the mean of every student's pending points."""
    text = f"{mean:.{digits}f}"
    if not waiting:
        return text
    return text + f" + {waiting:.{digits}f} pending" if round(waiting, digits) else text + f" + {waiting:.2g} pending"


def score_text(result: StudentResult | QuizResult) -> str:
    """"51 + 4 pending / 70" (or "51 / 70" once nothing waits)."""
    return f"{points(result.score, pending(result))} / {result.max_score:g}"


def arrival(identities: Mapping | None, student_id: str) -> dict[str, str]:
    """{"submitted_at": ..., "late": "yes"/"no"/""} for one student; empty strings where nothing is known."""
    who = (identities or {}).get(student_id)
    return who.arrival() if who is not None and hasattr(who, "arrival") else {"submitted_at": "", "late": ""}


def arrival_text(identities: Mapping | None, student_id: str) -> str:
    """"late", "late (submitted 2026-11-20T10:00)", "late: ps1 (submitted ...)", "submitted 2026-11-20T10:00"
    or ""."""
    found = arrival(identities, student_id)
    when = f"submitted {found['submitted_at']}" if found["submitted_at"] else ""
    if found["late"] == "yes":
        late = late_label(identities, student_id)
        return f"{late} ({when})" if when else late
    return when


def late_students(identities: Mapping | None) -> list[str]:
    return sorted(sid for sid, who in (identities or {}).items() if getattr(who, "late", None))


def late_label(identities: Mapping | None, student_id: str) -> str:
    """"late", or "late: ps1" where the platform dates each part and only some were late."""
    who = (identities or {}).get(student_id)
    parts = who.late_parts() if hasattr(who, "late_parts") else []
    return f"late: {', '.join(parts)}" if parts and len(parts) < len(who.parts) else "late"


def arrival_lists(identities: Mapping | None, students: list[str] | None = None,
                  limit: int | None = None) -> list[tuple[str, str]]:
    """What the teacher reads about arrivals, as (label, text) with every name quoted: who was late (and which
    part, where parts are dated apart), who had an extension (and until when), whose resubmission was graded
    (which upload). `students`: only these (the graded ones); `limit`: past so many names, "and N more"."""
    from .names import quoted

    who = {sid: w for sid, w in (identities or {}).items() if students is None or sid in students}
    late = [sid for sid in late_students(who)]
    shown = late if limit is None else late[:limit]
    marked = ", ".join(quoted([sid]) + (f" ({label.removeprefix('late: ')})" if (label := late_label(who, sid))
                                         != "late" else "") for sid in shown)
    marked += f" and {len(late) - len(shown)} more" if len(shown) < len(late) else ""
    extended = {sid: "; ".join(p.text() for p in w.parts if p.extension) for sid, w in sorted(who.items())
                if any(p.extension for p in getattr(w, "parts", ()))}
    uploads = {sid: "; ".join(w.notes) for sid, w in sorted(who.items()) if getattr(w, "notes", ())}
    lists = []
    if late:
        lists.append((f"Submitted late ({len(late)})", marked))
    if extended:
        lists.append((f"With an extension ({len(extended)})",
                      ", ".join(f"{quoted([sid])} ({text})" for sid, text in extended.items())))
    if uploads:
        lists.append((f"Graded a later upload ({len(uploads)})",
                      ", ".join(f"{quoted([sid])} ({text})" for sid, text in uploads.items())))
    return lists


def review_banner_text(results: list[StudentResult], out: Path | None = None) -> str:
    """The sentence saying scores are provisional, or "" once every answer is reviewed; `out`: the output
    folder, so that the sentence names the command that reviews it."""
    waiting = [r for r in results if pending(r)]
    if not waiting:
        return ""
    total = sum(pending(r) for r in waiting)
    review = make_review(out) if out is not None else "make review OUT=<this output folder>"
    return (f"Review unfinished: {total:g} quiz point(s) of {len(waiting)} student(s) wait for your review, so "
            f"their totals are provisional (shown as \"score + pending\"). Score those answers on the review page "
            f"({review}), then grade again with the same OUT (the review prints the command).")
