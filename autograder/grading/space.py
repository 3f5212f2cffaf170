"""The documented input space of the exercises, described once as hypothesis strategies, and the hidden probes
drawn from it.

What the handouts promise is a range, not a list of points: any B, T_q, T_k, d (B = 1, T = 1, T_q != T_k, and
coincidences such as T_q = B or T_k = d included); a mask that is bool or 0/1 of any dtype (int or float), of any
shape that broadcasts to the scores, contiguous, expanded or not contiguous, each row keeping at least one
allowed key (fully masked rows are out of scope, as the handouts say); allowed scores anywhere in |s| <= 1e4.

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
DEPTHS = (0.0, -300.0, -3000.0, -9000.0)  # shifts of every allowed score: a -30 or -1000 fill loses to them
SPREADS = (1.0, 30.0, 300.0)             # score spreads: from ordinary to nearly one-hot rows


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

    def shape(self) -> tuple[int, ...]:
        sizes_ = {"B": self.B, "T_q": self.T_q, "T_k": self.T_k, "1": 1}
        return tuple(sizes_[part] for part in self.form.split(","))

    def build(self):
        """(scores (B, T_q, T_k) float32, mask as handed over (contiguous), allowed (B, T_q, T_k) bool)."""
        generator = torch.Generator().manual_seed(self.pattern_seed)
        pattern = torch.rand(self.shape(), generator=generator) > 0.4
        keep = torch.randint(self.T_k, pattern.shape[:-1] + (1,), generator=generator)
        pattern.scatter_(-1, keep, True)  # every row keeps a key, whatever the mask's shape
        allowed = pattern.expand(self.B, self.T_q, self.T_k)
        generator = torch.Generator().manual_seed(self.score_seed)
        scores = torch.randn(self.B, self.T_q, self.T_k, generator=generator, dtype=torch.float64) * self.spread
        scores = (scores + self.depth).clamp(-SCORE_LIMIT, SCORE_LIMIT).float()
        return scores, pattern.to(getattr(torch, self.dtype)), allowed

    def child_layout(self) -> str | None:
        """How the child hands the mask to the student (sandbox/child/inputs.py: laid_out)."""
        if self.layout == "expanded":
            return f"expanded:{self.B},{self.T_q},{self.T_k}"
        return "strided" if self.layout == "strided" else None

    def describe(self) -> str:
        return (f"a {self.dtype} ({self.form}) mask, {self.layout}, B={self.B}, T_q={self.T_q}, T_k={self.T_k}, "
                f"allowed scores around {self.depth:g} (spread {self.spread:g})")


@st.composite
def mask_probes(draw, max_batch: int = 4, max_len: int = 7):
    B, T_q, T_k, _ = draw(sizes(max_batch, max_len))
    return MaskProbe(B, T_q, T_k, draw(st.sampled_from(MASK_FORMS)), draw(st.sampled_from(MASK_DTYPES)),
                     draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2 ** 31 - 1)),
                     draw(st.integers(0, 2 ** 31 - 1)), draw(st.sampled_from(SPREADS)), draw(st.sampled_from(DEPTHS)))


@st.composite
def coincident_mask(draw, form: str, max_len: int = 7):
    """A probe of one mask form where T_q = B > 1 and the mask's rows differ: there a (T_q, T_k) mask read as
    (B, T_k), or any mask broadcast over the wrong axis, gives other weights, which sizes drawn at random
    rarely show (a coincidence of two sizes and one form)."""
    B = draw(st.integers(2, 4))
    T_k = draw(st.integers(2, max_len))
    return MaskProbe(B, B, T_k, form, draw(st.sampled_from(MASK_DTYPES)), draw(st.sampled_from(LAYOUTS)),
                     draw(st.integers(0, 2 ** 31 - 1)), draw(st.integers(0, 2 ** 31 - 1)),
                     draw(st.sampled_from(SPREADS)), draw(st.sampled_from(DEPTHS)))


def mask_draws(count: int, seed: int) -> tuple:
    """`count` probes drawn from the whole mask space, then one per mask form with T_q = B > 1."""
    covering = tuple(draw_examples(strategy, 1, seed + 1 + n)[0] for n, strategy in enumerate(COINCIDENT))
    return draw_examples(MASKS, count, seed) + covering


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
SIZES = sizes()
