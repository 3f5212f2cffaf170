"""Every mistake the kit can name: a stable id (what reports count students by) and a title in the
lessons' words (what a student reads). A mistake is named only when its trusted model reproduces what
the student's code returned (matcher.py) or an exception proves it (errors.py)."""
from __future__ import annotations

import re

MISTAKE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")

MISTAKES: dict[str, str] = {
    # Score: comparing every query with every key
    "k-at-q": "the scores are K Q^T instead of Q K^T: rows are keys and columns queries",
    "transpose-all-dims": "`.T` on a 3-D tensor reverses all of its dimensions; only the last two should be "
                          "swapped (K.transpose(-2, -1))",
    "batch-crosstalk": "items of a batch mix: every item is scored against the keys of batch item 0 (K[0])",
    "scores-wrong-operand": "the scores compare the wrong tensors (queries with queries, or keys with keys); "
                            "e_ij = q_i . k_j compares each query with each key",
    "k-not-transposed": "the keys are not transposed: the scores are Q @ K instead of Q @ K^T (which runs only "
                        "where T_k equals d_k)",
    "unwanted-scale": "the plain dot-product score is scaled; e_ij = q_i . k_j has no 1/sqrt(d_k)",
    "scale-missing": "the 1/sqrt(d_k) scale is missing",
    "scale-by-dk": "the scores are divided by d_k instead of sqrt(d_k)",
    "scale-sqrt-tk": "the scores are divided by sqrt(T_k), the number of keys, instead of sqrt(d_k)",
    "scale-hardcoded": "the scores are divided by a fixed sqrt(64) = 8 instead of sqrt(d_k) read from the keys",
    "scale-multiplied": "the scores are multiplied by sqrt(d_k) instead of divided by it",
    "scale-power-precedence": "`d_k ** 1/2` is not sqrt(d_k): ** binds before /, so it is d_k / 2 (and "
                              "`x / d_k ** 1/2` is x / d_k / 2); write d_k ** 0.5 or math.sqrt(d_k)",
    "scale-wrong-factor": "the scores are scaled by another factor than 1/sqrt(d_k)",
    "scale-sqrt-dmodel": "the scores are scaled by 1/sqrt(d_model) instead of 1/sqrt(d_k), the projected size",
    "w-transposed": "W is used transposed: nn.Linear keeps its weight as (out_features, in_features), and "
                    "x @ self.W.weight or W applied to the other side computes with W^T (the general score "
                    "becomes q_i^T W^T k_j)",
    "projection-bias": "the linear maps have biases; the lesson's maps are bias-free (bias=False)",
    "additive-no-tanh": "the tanh is missing: v^T (W_q q_i + W_k k_j) is a linear score",
    "additive-relu": "ReLU is used instead of tanh in the additive score",
    "additive-axes-swapped": "queries and keys are broadcast along swapped axes, so the scores come out (B, T_k, T_q)",
    "bare-squeeze": "a bare squeeze() also drops a batch or query axis of size 1; use squeeze(-1)",
    # Mask: score surgery before the softmax
    "mask-inverted": "the mask is inverted: keys with mask 1 (allowed) are hidden and keys with mask 0 kept",
    "mask-zero-fill": "forbidden scores become 0 instead of -inf (the scores multiplied by the mask, or filled with "
                      "a number near 0), so forbidden keys still get weight",
    "mask-added": "the 0/1 mask is added to the scores (as for an additive float mask) instead of filling "
                  "forbidden scores with -inf",
    "mask-not-applied": "the mask has no effect: the scores are used as if no mask were given, so masked keys "
                        "keep their weight",
    "mask-fill-plus-inf": "forbidden scores are filled with +inf instead of -inf, so every row with a forbidden "
                          "key is NaN after the softmax",
    "mask-small-fill": "forbidden scores are filled with a finite number (such as -10) that still leaves them "
                       "weight after the softmax; fill with -inf",
    "mask-after-softmax": "the mask is applied after the softmax: forbidden weights are zeroed afterwards, so "
                          "rows no longer sum to 1",
    "mask-after-softmax-renormalised": "the mask is applied after the softmax and the rows renormalised, "
                                       "instead of filling scores with -inf before it",
    "mask-bitwise-not": "~mask negates only bool masks: on a 0/1 int mask it gives -2/-1 and on a float mask it "
                        "fails; compare instead (mask == 0)",
    "mask-first-row": "only the first query's row of the mask is used, for every query (mask[:, :1, :]), as if every "
                      "mask were a (B, 1, T_k) padding mask",
    "mask-always-causal": "a causal mask is applied whatever mask is given",
    "mask-cached": "a mask is remembered by its shape and reused for later masks of that shape, whatever they say",
    "mask-expanded-square": "the mask is expanded to (B, T_k, T_k), as if there were as many queries as keys",
    "mask-needs-bool": "the code accepts only a bool mask, but a 0/1 int or float mask is allowed too; build the "
                       "condition with mask == 0",
    # Softmax: scores to weights
    "softmax-wrong-dim": "the softmax runs over the queries, not over the keys (dim=-1)",
    "softmax-no-dim": "the softmax runs over dim 0, the batch (what PyTorch picks for 3-D input when softmax is "
                      "given no dim=), not over the keys (dim=-1)",
    "log-softmax": "log_softmax gives the logarithms of the weights; the weights are softmax(scores)",
    "softmax-unstable": "the softmax is exp(s) / sum exp(s) without subtracting the row maximum, which "
                        "overflows for large scores",
    "train-mode-differs": "the layer computes something else in train() mode than in eval() mode, though it has "
                          "no dropout (a mask, a scale or a projection used in one mode only)",
    "random-result": "the result is random: identical calls give different results (dropout left on, or random "
                     "numbers)",
    "dropout-on-weights": "dropout on the attention weights is active: some weights are zeroed at random and the "
                          "rest scaled up",
    # Mix and the layer's projections
    "mix-wrong-operand": "the weights mix the wrong tensor: the output is weights @ V, a weighted sum of the values",
    "projection-swapped": "a tensor in the scores or the mix is made from the wrong input or with the wrong "
                          "weight (Q, K or V built otherwise, or one used in another's place): Q = W_Q x_q, "
                          "K = W_K x_kv, V = W_V x_kv",
    "returns-weights-first": "the result is (weights, output) instead of (output, weights)",
    "keys-values-from-xq": "keys and values are built from x_q instead of x_kv (self-attention assumed)",
    "keys-from-xq": "the keys are built from x_q instead of x_kv",
    "values-from-xq": "the values are built from x_q instead of x_kv",
    "queries-from-xkv": "the roles are swapped: queries come from x_kv, keys and values from x_q",
    "keys-with-wq": "the queries are compared with x_kv projected by W_Q, not with the keys W_K x_kv",
    "kv-cached": "K and V are computed on the first call and reused for later calls, whatever x_kv they pass",
    "values-with-wk": "the weights mix x_kv projected by W_K (the keys), not the values W_V x_kv",
    "lazy-parameters": "nn.LazyLinear has no weights until its first forward pass; the layer's projections are "
                       "nn.Linear(d_model, d_k, bias=False)",
    "graph-cut": "the computation graph is cut (.detach(), torch.no_grad(), .data or a NumPy round trip), so no "
                 "gradient flows back through a right result",
    "backward-differs": "the backward pass does not follow the forward computation: the result is right, but a "
                        "gradient is not its derivative (a hand-written backward that differs from the forward, or "
                        "one of the paths an input takes cut with .detach())",
    "inputs-modified": "the inputs are modified in place (masked_fill_, Q /= ..., item assignment) instead of "
                       "computing new tensors",
    "forbidden-api": "a fused attention kernel (F.scaled_dot_product_attention or nn.MultiheadAttention) is used "
                     "where the assignment asks for the pipeline built by hand",
    # Masks built from lengths and positions
    "causal-inverted": "the causal mask is inverted: True above the diagonal lets each query see the future",
    "causal-diagonal-excluded": "the causal mask leaves out the diagonal: a query may not attend to its own "
                                "position",
    "causal-shifted": "the causal mask is shifted: True one place above the diagonal leaks the next token",
    "causal-not-triangular": "the causal mask allows every key: it is not cut to the lower triangle (torch.tril)",
    "causal-offset": "the causal mask's diagonal is offset by two or more places, so queries see the wrong keys",
    "padding-inverted": "the padding mask is inverted: True marks the padded keys instead of the real ones",
    "padding-off-by-one": "the padding mask lets one padded key through (j <= length instead of j < length)",
    "padding-over-queries": "the padding mask is (B, T_k, 1), which broadcasts over the keys instead of the "
                            "queries",
    # Entropy of the weights
    "entropy-in-bits": "the entropy is in bits (log base 2) instead of nats (natural log)",
    "entropy-missing-minus": "the minus sign is missing: sum_j p_j log p_j is negative",
    "entropy-log10": "the entropy uses log base 10 instead of the natural log (nats)",
    "entropy-mean": "the terms p_j log p_j are averaged over the keys instead of summed",
    "entropy-wrong-dim": "the entropy is summed over the wrong dimension, not over the keys (dim=-1)",
    "entropy-nan-at-zero": "p * log(p) is NaN where p = 0; 0 log 0 must count as 0 (torch.special.xlogy)",
}


def title(mistake: str) -> str:
    return MISTAKES[mistake]
