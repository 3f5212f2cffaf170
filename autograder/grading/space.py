"""The documented input space of the exercises, described once as hypothesis strategies, and the hidden probes
drawn from it.

What the handouts promise is a range, not a list of points: any B, T_q, T_k, d (B = 1, T = 1, T_q != T_k, and
coincidences such as T_q = B or T_k = d included); a mask that is bool or 0/1 of any dtype (int or float), of any
shape that broadcasts to the scores, contiguous, expanded or not contiguous, each row keeping at least one
allowed key (fully masked rows are out of scope, as the handouts say); allowed scores anywhere in |s| <= 1e4.

Scores are drawn row by row: a probe's rows sit at different depths inside ONE tensor (some rows or batch
items near -9000, others near 0 or far above it, masked entries in rows of every kind), or all at one depth
from -20 to -9000. No statistic of the whole tensor (min, max, mean, spread) nor the mask's dtype, shape or
layout then tells a probe from an ordinary call: code that fills masked keys with a small number unless it
recognises a probe still leaks weight on one of them (tests/probe_detecting_cheats.py).

A probe is drawn as plain numbers (sizes, seeds, choices) and built into tensors here, so the same draw gives the
same tensors in the grader and in the child. Draws are made once per process with a fixed hypothesis seed
(generation only: no shrinking, no example database), so a regrade sees exactly the same probes; the seed goes
through probe_seed, so the seed sweep (ATTNKIT_SEED_SHIFT) moves them with every other probe.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import torch
from hypothesis import HealthCheck, Phase, given, seed as hypothesis_seed, settings, strategies as st

from .student import probe_seed

SCORE_LIMIT = 1e4                       # the handouts' range of allowed scores
MASK_DTYPES = ("bool", "int64", "float32", "float64")
MASK_FORMS = ("B,T_q,T_k", "T_q,T_k", "B,1,T_k", "1,T_q,T_k", "T_k", "1,1,T_k")
LAYOUTS = ("contiguous", "expanded", "strided")
DEPTHS = (0.0, -20.0, -50.0, -120.0, -300.0, -1000.0, -3000.0, -9000.0)  # how far rows sit below zero
SPREADS = (1.0, 30.0, 300.0)             # score spreads: from ordinary to nearly one-hot rows
# How the rows of one probe share its depth D: all of them; each row at D or 0; each batch item at D or 0;
# one row at D, the others at 0; each row at D or -D (so that the mean stays near 0).
PROFILES = ("uniform", "rows", "batches", "single", "balanced")
# Probes every run includes (besides the drawn ones): each profile at depths where a fill of -120 or -1000
# leaks, so that every whole-tensor statistic looks ordinary on one of them while a row still leaks.
# The first comes first in its test, where it is the call made with gradients: deep enough for a -1000 fill.
COVERING_DEPTHS = (("single", -9000.0, 1.0), ("uniform", -50.0, 1.0), ("uniform", -300.0, 1.0),
                   ("uniform", -3000.0, 30.0), ("rows", -9000.0, 30.0), ("batches", -1000.0, 1.0),
                   ("balanced", -3000.0, 1.0), ("balanced", -120.0, 1.0))


@st.composite
def sizes(draw, max_batch: int = 4, max_len: int = 7, max_dim: int = 12):
    """(B, T_q, T_k, d): small, with the edge sizes and the coincidences that hide a swapped axis on purpose."""
    B, T_q, T_k = draw(st.integers(1, max_batch)), draw(st.integers(1, max_len)), draw(st.integers(1, max_len))
    d = draw(st.integers(1, max_dim))
    tie = draw(st.sampled_from(("none", "T_q=B", "T_k=d", "T_q=T_k", "T_q=1", "B=1")))
    if tie == "T_q=B":
        T_q = B
    elif tie == "T_k=d":
        T_k = min(d, max_len)
        d = T_k
    elif tie == "T_q=T_k":
        T_q = T_k
    elif tie == "T_q=1":
        T_q = 1
    elif tie == "B=1":
        B = 1
    return B, T_q, T_k, d


@dataclass(frozen=True)
class MaskProbe:
    """One drawn point of the mask space (plain numbers; `build` makes the tensors)."""
    B: int
    T_q: int
    T_k: int
    form: str
    dtype: str
    layout: str
    pattern_seed: int
    score_seed: int
    spread: float
    depth: float
    profile: str = "uniform"

    def shape(self) -> tuple[int, ...]:
        sizes_ = {"B": self.B, "T_q": self.T_q, "T_k": self.T_k, "1": 1}
        return tuple(sizes_[part] for part in self.form.split(","))

    def build(self):
        """(scores (B, T_q, T_k) float32, mask as handed over (contiguous), allowed (B, T_q, T_k) bool)."""
        generator = torch.Generator().manual_seed(self.pattern_seed)
        pattern = torch.rand(self.shape(), generator=generator) > 0.4
        keep = torch.randint(self.T_k, pattern.shape[:-1] + (1,), generator=generator)
        if self.T_k > 1:  # every row forbids a key, so that every row can show a leak
            drop = (keep + 1 + torch.randint(self.T_k - 1, keep.shape, generator=generator)) % self.T_k
            pattern.scatter_(-1, drop, False)
        pattern.scatter_(-1, keep, True)  # every row keeps a key, whatever the mask's shape
        allowed = pattern.expand(self.B, self.T_q, self.T_k)
        generator = torch.Generator().manual_seed(self.score_seed)
        scores = torch.randn(self.B, self.T_q, self.T_k, generator=generator, dtype=torch.float64) * self.spread
        scores = (scores + self.row_depths().unsqueeze(-1)).clamp(-SCORE_LIMIT, SCORE_LIMIT).float()
        return scores, pattern.to(getattr(torch, self.dtype)), allowed

    def row_depths(self) -> torch.Tensor:
        """(B, T_q) float64: where each row's scores sit, by the profile (one row at least at the depth)."""
        generator = torch.Generator().manual_seed(self.score_seed + 1)
        B, T_q, D = self.B, self.T_q, self.depth
        if self.profile == "uniform":
            return torch.full((B, T_q), D, dtype=torch.float64)
        if self.profile == "batches":
            chosen = torch.rand(B, 1, generator=generator) < 0.5
            chosen[torch.randint(B, (1,), generator=generator)] = True
            return torch.where(chosen.expand(B, T_q), D, 0.0).double()
        chosen = torch.rand(B, T_q, generator=generator) < (0.0 if self.profile == "single" else 0.5)
        chosen.view(-1)[torch.randint(B * T_q, (1,), generator=generator)] = True
        other = -D if self.profile == "balanced" else 0.0
        return torch.where(chosen, D, other).double()

    def child_layout(self) -> str | None:
        """How the child hands the mask to the student (sandbox/child/inputs.py: laid_out)."""
        if self.layout == "expanded":
            return f"expanded:{self.B},{self.T_q},{self.T_k}"
        return "strided" if self.layout == "strided" else None

    def describe(self) -> str:
        where = {"uniform": f"around {self.depth:g}", "rows": f"around {self.depth:g} in some rows, 0 in the others",
                 "batches": f"around {self.depth:g} in some batch items, 0 in the others",
                 "single": f"around {self.depth:g} in one row, 0 in the others",
                 "balanced": f"around {self.depth:g} in some rows, {-self.depth:g} in the others"}[self.profile]
        return (f"a {self.dtype} ({self.form}) mask, {self.layout}, B={self.B}, T_q={self.T_q}, T_k={self.T_k}, "
                f"allowed scores {where} (spread {self.spread:g})")


@st.composite
def mask_probes(draw, max_batch: int = 4, max_len: int = 7):
    B, T_q, T_k, _ = draw(sizes(max_batch, max_len))
    return MaskProbe(B, T_q, T_k, draw(st.sampled_from(MASK_FORMS)), draw(st.sampled_from(MASK_DTYPES)),
                     draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2 ** 31 - 1)),
                     draw(st.integers(0, 2 ** 31 - 1)), draw(st.sampled_from(SPREADS)), draw(st.sampled_from(DEPTHS)),
                     draw(st.sampled_from(PROFILES)))


@st.composite
def covering_mask(draw, number: int, max_batch: int = 4, max_len: int = 7):
    """The `number`-th covering probe: its profile, depth and spread fixed (COVERING_DEPTHS), its mask dtype,
    form and layout and some of its sizes taken in turn, so that each of them meets rows deep enough to leak."""
    profile, depth, spread = COVERING_DEPTHS[number]
    B, T_q, T_k, _ = draw(sizes(max_batch, max_len))
    T_q, T_k = max(T_q, 2), max(T_k, 3)  # room for rows of two kinds, and for masked keys
    # in turn: one batch item or several, square scores or not, every mask form
    B = max(B, 2) if number % 2 == 0 or profile == "batches" else 1
    T_q = T_k if number % 3 == 0 else T_q
    return MaskProbe(B, T_q, T_k, MASK_FORMS[number % len(MASK_FORMS)], MASK_DTYPES[number % len(MASK_DTYPES)],
                     LAYOUTS[(number // 2) % len(LAYOUTS)], draw(st.integers(0, 2 ** 31 - 1)),
                     draw(st.integers(0, 2 ** 31 - 1)), spread, depth, profile)


@st.composite
def coincident_mask(draw, form: str, max_len: int = 7):
    """A probe of one mask form where T_q = B > 1 and the mask's rows differ: there a (T_q, T_k) mask read as
    (B, T_k), or any mask broadcast over the wrong axis, gives other weights, which sizes drawn at random
    rarely show (a coincidence of two sizes and one form)."""
    B = draw(st.integers(2, 4))
    T_k = draw(st.integers(2, max_len))
    return MaskProbe(B, B, T_k, form, draw(st.sampled_from(MASK_DTYPES)), draw(st.sampled_from(LAYOUTS)),
                     draw(st.integers(0, 2 ** 31 - 1)), draw(st.integers(0, 2 ** 31 - 1)),
                     draw(st.sampled_from(SPREADS)), draw(st.sampled_from(DEPTHS)), draw(st.sampled_from(PROFILES)))


def mask_draws(count: int, seed: int) -> tuple:
    """The covering probes first (COVERING_DEPTHS: every profile deep enough to leak, every mask dtype and
    layout), then `count` probes drawn from the whole mask space, then one per mask form with T_q = B > 1."""
    # the last of a few examples: hypothesis tends to start with the smallest sizes
    covering = tuple(draw_examples(strategy, 4, seed + 101 + n)[-1] for n, strategy in enumerate(COVERING))
    coincident = tuple(draw_examples(strategy, 1, seed + 1 + n)[0] for n, strategy in enumerate(COINCIDENT))
    return covering + draw_examples(MASKS, count, seed) + coincident


def draw_examples(strategy, count: int, seed: int) -> tuple:
    """`count` examples of `strategy`, the same ones on every run for one seed (moved by the seed sweep)."""
    return _drawn(strategy, count, probe_seed(seed))


@functools.lru_cache(maxsize=64)
def _drawn(strategy, count: int, seed: int) -> tuple:
    examples: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example):
        examples.append(example)

    collect()
    return tuple(examples[:count])


MASKS = mask_probes()
COINCIDENT = tuple(coincident_mask(form) for form in MASK_FORMS)
COVERING = tuple(covering_mask(number) for number in range(len(COVERING_DEPTHS)))
SIZES = sizes()
