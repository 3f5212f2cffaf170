from ._snippets import SCORES, solution_text

ASSIGNMENT = SCORES
TAG = "unencer"
ATTACK = ("errors the trusted side cannot store as is: exceptions whose message, type name and __str__ hold lone "
          "surrogates, NUL and escapes; a huge message; a load error in a cell with such text; names in no encoding")
CODE = solution_text(ASSIGNMENT) + '''

class \u00c9rreur\u00b5(Exception):
    def __str__(self):
        return "surrogate-error \\ud800 \\x00 \\x1b[2J" + "\\udfff" * 200_000


_real_scaled = scaled_dot_scores


def scaled_dot_scores(Q, K):
    raise \u00c9rreur\u00b5()


def padding_mask(lengths, T_k):
    raise ValueError("surrogate-error in padding_mask \\udc80\\udcff " + "\\u202e" * 1000)


globals()["bad\\udcffname"] = lambda *a: None
raise RuntimeError("surrogate-error at import \\ud83d")
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "surrogate-error"
