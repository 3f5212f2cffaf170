from ._snippets import SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "loopfn"
ATTACK = "an infinite loop inside one function (causal_mask), the rest correct"
CODE = solution_text(ASSIGNMENT) + '''

def causal_mask(T):
    total = 0
    while True:
        total += 1
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "s of CPU time (an infinite loop"
