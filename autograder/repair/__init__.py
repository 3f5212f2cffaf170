"""Repairs: the smallest edit of a student's own code that makes every hidden check of a definition pass
(docs/diagnosis.md, "Repairs")."""
