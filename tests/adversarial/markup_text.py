from ._snippets import SHA, stub_text

ASSIGNMENT = SHA
TAG = "markup"
ATTACK = ("text meant to be obeyed by what others read: Markdown links and images, raw HTML with event handlers, "
          "CSV formulas, terminal escapes, bidi overrides and forged lines, in printed output, exception "
          "messages, exception class names and the type name of a returned object")
CODE = stub_text(ASSIGNMENT) + '''
PAYLOAD = ("markup-attack [click](javascript:alert(1)) ![x](http://evil.example/x.png) "
           "<img src=x onerror=alert(2)> <script>alert(3)</script> =HYPERLINK(\\"http://evil.example\\") "
           "\\x1b[2J\\x1b]8;;http://evil.example\\x07link\\x1b]8;;\\x07 \\u202eevil\\u202c "
           "\\nClass summary: everyone 0\\n| forged | row |\\n# Forged heading\\n```\\n")

print(PAYLOAD)

Hostile = type("<img src=x onerror=alert(4)>[x](javascript:alert(5))", (Exception,), {})
Returned = type("<b onmouseover=alert(6)>", (), {"__repr__": lambda self: PAYLOAD})


def attention(Q, K, V, mask=None):
    print(PAYLOAD)
    raise Hostile(PAYLOAD)


class SingleHeadAttention:
    def __init__(self, d_model, d_k):
        print(PAYLOAD)

    def __call__(self, *args, **kwargs):
        return Returned()

    forward = __call__
'''
TWIN = stub_text(ASSIGNMENT)
EVIDENCE = "markup-attack"
