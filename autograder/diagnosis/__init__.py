"""Diagnosis: why a student's code failed, said only when the evidence shows it. Trusted: runs in the grading
process, never in the sandboxed child.

- catalog:    every mistake the kit can name (stable id, title in the lessons' words)
- pipeline, scores_models, attention_models, fits: float64 models of each mistake, per target
- matcher:    Diagnoser, which names a mistake when its model reproduces the student's wrong result
- symptoms:   what exactly is wrong when no model explains it (no cause)
- errors:     an exception from student code, translated where its cause is proven
- structural: mistakes seen in parameters, gradients and changed inputs
"""
from ..results import Diagnosis
from .catalog import MISTAKES
from .errors import Translation, translate
from .matcher import Diagnoser, diagnose
from .probe import Observation, Probe
from .symptoms import describe

__all__ = ["MISTAKES", "Diagnoser", "Diagnosis", "Observation", "Probe", "Translation", "describe", "diagnose",
           "translate"]
