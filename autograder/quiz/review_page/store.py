"""The review page's data: OUT/review.yaml, changed one decision at a time and saved at once (atomically).

The page never holds a decision of its own: each key press that scores, clears or splits a group rewrites
review.yaml before the page shows the change, so killing the server loses nothing the page has shown. Who
wrote which answer comes from the grading's review queue; a group is named by its position and its first
answer, and a request naming a group that is no longer there is refused (the page then reloads).
"""
from __future__ import annotations

from pathlib import Path

import yaml

from ..grade import review_text
from ..review import REVIEW_FILE, read_queue, save_review


class Conflict(ValueError):
    """The request does not match review.yaml as it is now."""


class ReviewStore:
    def __init__(self, out_dir: Path):
        self.path = out_dir / REVIEW_FILE
        self.seen = None
        self._reload()
        try:
            queue = read_queue(out_dir)
        except FileNotFoundError:
            queue = {}
        self.who = {(quiz, question, text): list(entry.get("students", []))
                    for quiz, questions in queue.items() for question, answers in questions.items()
                    for text, entry in answers.items()}

    def _reload(self) -> None:
        """Read review.yaml again if someone else changed it (an editor): their edits are never overwritten."""
        try:
            stat = self.path.stat()
        except OSError as exc:
            raise Conflict(f"{self.path} cannot be read now ({exc.strerror})") from None
        if self.seen != (stat.st_mtime_ns, stat.st_size):
            try:
                self.document = yaml.safe_load(self.path.read_text(encoding="utf-8")) or {}
            except yaml.YAMLError as exc:
                raise Conflict(f"{self.path.name} is not valid YAML now ({exc}); fix it, then reload") from None
            self.seen = (stat.st_mtime_ns, stat.st_size)

    def _save(self) -> None:
        save_review(self.path, self.document)
        stat = self.path.stat()
        self.seen = (stat.st_mtime_ns, stat.st_size)

    # --- what the page shows -------------------------------------------------------------------
    def state(self) -> dict:
        self._reload()
        questions = []
        for quiz_id, block in self.document.items():
            for question_id, data in (block or {}).items():
                groups = [self._group(quiz_id, question_id, i, g) for i, g in enumerate(data.get("groups") or [])]
                questions.append({"quiz": quiz_id, "id": question_id, "prompt": data.get("question", ""),
                                  "points": data.get("points", 0), "expected": data.get("expected", ""),
                                  "groups": groups})
        pending = sum(1 for q in questions for g in q["groups"] if g["score"] is None)
        return {"questions": questions, "pending": pending, "file": str(self.path)}

    def _group(self, quiz_id: str, question_id: str, index: int, group: dict) -> dict:
        members = group.get("students") or []
        answers = [{"text": a, "students": self._students(quiz_id, question_id, a, members)}
                   for a in group.get("answers") or []]
        return {"index": index, "score": group.get("score"), "feedback": group.get("feedback") or "",
                "suggested": group.get("suggested"), "hint": group.get("hint"), "why": group.get("why") or "",
                "students": members, "answers": answers}

    def _students(self, quiz_id, question_id, answer, members) -> list[str]:
        known = self.who.get((quiz_id, question_id, review_text(answer)))
        return sorted(set(known) & set(members)) if known is not None else []

    # --- what the page changes ------------------------------------------------------------------
    def decide(self, quiz_id: str, question_id: str, index: int, first: str, score, feedback=None) -> None:
        block, group = self._find(quiz_id, question_id, index, first)
        if score is not None:
            points = block.get("points", 0)
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= points:
                raise ValueError(f"a score is a number from 0 to {points:g}")
            score = int(score) if float(score).is_integer() else float(score)
        group["score"] = score
        if feedback is not None:
            group["feedback"] = str(feedback).strip()
        self._save()

    def split(self, quiz_id: str, question_id: str, index: int, first: str, answer: int) -> None:
        """Move one answer (and the students who wrote it) out into a group of its own, right after."""
        block, group = self._find(quiz_id, question_id, index, first)
        answers = group.get("answers") or []
        if len(answers) < 2 or not 0 <= answer < len(answers):
            raise ValueError("only an answer of a group of two or more can be split off")
        moved = answers.pop(answer)
        members = group.get("students") or []
        leaving = set(self._students(quiz_id, question_id, moved, members))
        staying = {s for a in answers for s in self._students(quiz_id, question_id, a, members)}
        group["students"] = sorted(staying) if staying else [s for s in members if s not in leaving]
        new = {"score": None, "feedback": "", "students": sorted(leaving), "answers": [moved]}
        for key in ("suggested", "hint", "why"):
            if key in group:
                new[key] = group[key]
        block["groups"].insert(index + 1, new)
        self._save()

    def find(self, quiz_id: str, question_id: str, index: int, first: str) -> tuple[dict, dict]:
        """(question block, group) named by the page, as review.yaml holds them now."""
        return self._find(quiz_id, question_id, index, first)

    def _find(self, quiz_id: str, question_id: str, index: int, first: str) -> tuple[dict, dict]:
        self._reload()
        block = (self.document.get(quiz_id) or {}).get(question_id)
        groups = block.get("groups") if isinstance(block, dict) else None
        if not isinstance(index, int) or not groups or not 0 <= index < len(groups) \
                or (groups[index].get("answers") or [None])[0] != first:
            raise Conflict("that group is no longer where the page thought it was; reload")
        return block, groups[index]
