# %% [markdown]
# # Temperature: how sharp attention is
#
# *A third assignment, written from docs/authoring.md alone.* Dividing the scores by a temperature $\tau$ before
# the softmax sharpens the weights ($\tau < 1$) or flattens them ($\tau > 1$).
#
# - What the grader expects where the lesson is silent: scores are float32 of shape `(..., T_k)` with 1 to 3
#   leading dimensions, $T_k$ up to 16; $\tau$ is a positive Python float; the softmax runs over the last dim.

# %% role="setup"
import torch

# %% role="hidden-setup"
import pytest
import torch

from autograder.grading import expect, tolerance as tol
from autograder.grading.calls import Call, judge_sequence
from autograder.grading.student import seeded_inputs as inputs

pytestmark = pytest.mark.assignment("temperature")

# %% [markdown] exercise="sharpen"
# ## 1. Softmax with a temperature
#
# $$\alpha_{ij} = \frac{\exp(e_{ij} / \tau)}{\sum_{j'} \exp(e_{ij'} / \tau)}$$

# %% exercise="sharpen" role="solution"
def sharpen(scores, tau):
    """softmax(scores / tau) over the last dim."""
    # BEGIN SOLUTION
    return torch.softmax(scores / tau, dim=-1)
    # END SOLUTION

# %% exercise="sharpen" role="public"
@test_case(points=None, hidden=False)
def test_sharpen(sharpen):
    import torch
    weights = sharpen(torch.tensor([[2.0, 0.0]]), 2.0)
    expected = torch.softmax(torch.tensor([[1.0, 0.0]]), dim=-1)
    assert torch.allclose(weights, expected, atol=1e-6), (
        f"with tau = 2 the scores [2, 0] become [1, 0] before the softmax: expected {expected.tolist()}, "
        f"got {weights.tolist()}")

# %% exercise="sharpen" role="hidden"
def sharpen_reference(scores, tau):
    scaled = tol.f64(scores) / tau
    return tol.softmax(scaled, 2 * tol.U * scaled.abs())


def check_sharpen(got, args, what):
    expect.within(got, sharpen_reference(*args), what, "alpha = softmax(scores / tau) over the last dim: divide "
                  "by the temperature, do not multiply.")


@pytest.mark.question("sharpen")
@pytest.mark.points(2)
@pytest.mark.tags("temperature applied the wrong way")
def test_sharpen_values(student):
    """sharpen divides the scores by tau before a softmax over the keys, for tau below and above 1"""
    shapes = [(3, 5), (2, 4, 7), (1, 1, 2, 16)]
    calls = [(Call("sharpen", (inputs(40 + n, shape)[0] * 3, tau)), check_sharpen)
             for n, shape in enumerate(shapes) for tau in (0.5, 2.0)]
    judge_sequence(student, calls)

# %% exercise="sharpen" role="explore"
import matplotlib.pyplot as plt

try:
    scores = torch.tensor([2.0, 1.0, 0.0, -1.0])
    fig, ax = plt.subplots(figsize=(5, 3))
    for tau in (0.25, 1.0, 4.0):
        ax.plot(sharpen(scores, tau).tolist(), marker="o", label=f"tau = {tau:g}")
    ax.set_xlabel("key j")
    ax.set_ylabel("weight")
    ax.legend()
    plt.show()
except NotImplementedError as missing:
    print("Finish sharpen first:", missing)
