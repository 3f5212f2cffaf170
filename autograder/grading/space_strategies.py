"""The documented input space (grading/space.py) as hypothesis strategies: sizes, masks, and the covering and
coincident probes every grader adds. Imported only to draw (at `make assignments`, for a draw not stored, and by
the property tests), so that grading does not import hypothesis."""
from __future__ import annotations

import contextlib
import functools

from hypothesis import HealthCheck, Phase, given, seed as hypothesis_seed, settings, strategies as st

from .space import COVERING_DEPTHS, DEPTHS, LAYOUTS, MASK_DTYPES, MASK_FORMS, PROFILES, SPREADS, MaskProbe


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


@functools.lru_cache(maxsize=64)
def drawn(name: str, count: int, seed: int) -> tuple:
    """`count` examples of NAMED[name] with hypothesis seed `seed`: generation only, no shrinking, no database."""
    examples: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(NAMED[name])
    def collect(example):
        examples.append(example)

    with _without_local_constants():
        collect()
    return tuple(examples[:count])


@contextlib.contextmanager
def _without_local_constants():
    """hypothesis mixes into its draws constants found in the local modules this process has loaded, so one seed
    would give other probes in a process that loaded other modules (a test run, a worker); the graders' probes
    must depend on the seed only. Where this hypothesis has no such pool, there is nothing to switch off."""
    try:
        from hypothesis.internal.conjecture import providers  # noqa: PLC0415
        empty, saved, cache = providers.Constants(), providers._get_local_constants, providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError):
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        cache.clear()


MASKS = mask_probes()
SIZES = sizes()
NAMED = {"sizes": SIZES, "masks": MASKS,
         **{f"covering:{n}": covering_mask(n) for n in range(len(COVERING_DEPTHS))},
         **{f"coincident:{form}": coincident_mask(form) for form in MASK_FORMS}}
