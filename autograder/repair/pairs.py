"""Which pairs of a definition's single edits the repair search tries, and in which order (repair/search.py).

A pair is two edits at two different places. Pairs are ranked by what each edit did alone on the calls whose result
was wrong (the screen): an edit that made some of those calls right but not all (a partial repair: one slip fixed,
another left) is tried with every other edit first; then the edits that came closest to the right result, each
with the others, the likeliest together first; and a small definition's every pair, when they all fit.
"""
from __future__ import annotations

from .edits import Edit

PAIRS = 120      # pairs tried per definition, at most
PAIR_POOL = 8    # edits that came closest to the right result alone, each paired with the others
PARTIAL = 2      # partial repairs, each paired with every other edit


def pairs_of(near: list[Edit], singles: list[Edit], partial: list[Edit] = ()) -> list[tuple[Edit, ...]]:
    """At most PAIRS pairs of edits at two different places: each of `partial` (the edits that made some wrong
    calls right alone, the closest first) with every edit of `singles` in its order (search: those that changed
    the wrong calls' results first); then one of `near` (the edits that came closest to the right result alone)
    with any edit, the pairs of the earliest first; then, when every pair of the definition fits, the others."""
    found: list[tuple[Edit, ...]] = []
    seen: set = set()

    def add(a: Edit, b: Edit) -> None:
        key = frozenset((id(a), id(b)))
        if a.index != b.index and key not in seen and len(found) < PAIRS:
            seen.add(key)
            found.append(tuple(sorted((a, b), key=lambda e: e.index)))

    for a in list(partial)[:PARTIAL]:
        for b in singles:
            add(a, b)
    ranked = sorted(((rank_a + rank_b, rank_a, rank_b) for rank_b in range(len(singles))
                     for rank_a in range(len(near))))
    for _, rank_a, rank_b in ranked:
        add(near[rank_a], singles[rank_b])
    every = [(a, b) for i, a in enumerate(singles) for b in singles[i + 1:] if a.index != b.index]
    if len(seen) + sum(frozenset((id(a), id(b))) not in seen for a, b in every) <= PAIRS:
        for a, b in every:
            add(a, b)
    return found
