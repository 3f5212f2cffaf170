from ._snippets import SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "loopimp"
ATTACK = "an infinite loop at import time, after every function is defined"
CODE = solution_text(ASSIGNMENT) + '''

while True:  # the file never finishes loading
    pass
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "s of CPU time (an infinite loop"
