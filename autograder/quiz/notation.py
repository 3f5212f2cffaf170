"""Read an answer written in maths or code notation into a validated Python expression tree.

Students write one formula many ways: `sqrt(d_k)`, `√dₖ`, `\\sqrt{d_k}`, `d_k^(1/2)`, `d_k ** 0.5`,
"square root of the key dimension"; `softmax(QKᵀ/√d_k)V` or `F.softmax(Q @ K.mT / math.sqrt(d_k), -1) @ V`.
`read_expression` turns such text into one Python expression (`ast.Expression`) and checks it against an
allow-list. Nothing here evaluates anything: scalar maths is walked into sympy (`equivalence.py`), tensor
code is sent as text to the sandbox (`code_answers.py`). The text is untrusted, so its length, the tree's
size and the parser's own failures (SyntaxError, RecursionError, MemoryError) are all bounded or caught.

Two readings:
- *code*: text that already is a Python expression (or `name = expression`) with no maths-only marks is
  read as Python: `*` stays element-wise, `@` is the matrix product.
- *maths*: anything else is rewritten first: Unicode and LaTeX marks, words ("square root of", "over"),
  the question's aliases ("key dimension" -> d_k), `^` as a power and `^T`/`ᵀ` as a transpose,
  juxtaposition (`QK`, `2 d_k`, `)V`) and `·`, `×`, `*` as a product. A maths product is written as `@`
  and later read as "matrix product for matrices, plain product otherwise".
"""
from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass, field

MAX_ANSWER_CHARS = 400
MAX_NODES = 120
MAX_CONSTANT = 10**6

# Unicode superscripts and subscripts must be read before NFKC flattens "n²" to "n2" and "dₖ" to "dk".
_SUPERSCRIPTS = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
                 "⁹": "9", "⁻": "-", "⁺": "+", "ᵀ": "T", "ᵗ": "T", "⊤": "T", "ⁿ": "n", "⁽": "(", "⁾": ")"}
_SUBSCRIPTS = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8",
               "₉": "9", "ₐ": "a", "ₑ": "e", "ₒ": "o", "ₓ": "x", "ₕ": "h", "ₖ": "k", "ₗ": "l", "ₘ": "m",
               "ₙ": "n", "ₚ": "p", "ₛ": "s", "ₜ": "t", "ᵢ": "i", "ⱼ": "j", "ᵥ": "v", "ᵩ": "q"}
_SUPER_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]+")
_SUB_RUN = re.compile("[" + "".join(_SUBSCRIPTS) + "]+")
_SYMBOLS = str.maketrans({"−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-", "×": "·", "⋅": "·", "∙": "·",
                          "•": "·", "÷": "/", "⁄": "/", "∕": "/", "√": " sqrt ", "‘": "'", "’": "'",
                          "“": '"', "”": '"', "½": "(1/2)", "¼": "(1/4)", "⅛": "(1/8)"})
# Marks that only maths notation uses: their presence means the text is not meant as Python.
_MATHS_MARKS = re.compile(r"[√·×⋅∙÷ᵀ⊤²³⁻¹½\\^$]|[\u2080-\u209c\u1d62\u2c7c]")

_LATEX_COMMANDS = [
    (re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)\b"), ""), (re.compile(r"\\[,;:! ]"), " "),
    (re.compile(r"\\(?:cdot|times|ast)\b"), "·"), (re.compile(r"\\(?:top|intercal|mathsf\{T\}|mathrm\{T\})"), "T"),
    (re.compile(r"\\(?:operatorname|mathrm|text|mathit|mathbf|textrm|mathsf)\{([^{}]*)\}"), r" \1 "),
    (re.compile(r"\\(exp|ln|log|sqrt|softmax)\b"), r" \1 "), (re.compile(r"\\approx\b"), "≈"),
    (re.compile(r"\\div\b"), "/"),
]
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT_BRACED = re.compile(r"sqrt\s*\{([^{}]*)\}")
_POWER_BRACED = re.compile(r"\^\s*\{([^{}]*)\}")
_SUB_BRACED = re.compile(r"_\s*\{([^{}]*)\}")

_WORDS = [  # (pattern on casefolded text, replacement); order matters
    (r"\bsquare\s*root\s+of\b", " sqrt "), (r"\bsquare\s*root\b", " sqrt "), (r"\bsqrt\s+of\b", " sqrt "),
    (r"\broot\s+of\b", " sqrt "), (r"\broot\b", " sqrt "), (r"\bdivided\s+by\b", " / "), (r"\bover\b", " / "),
    (r"\bmultiplied\s+by\b", " · "), (r"\btimes\b", " · "), (r"\bto\s+the\s+power\s+of\b", " ^ "),
    (r"\bsquared\b", " ^ 2 "), (r"(?<!\.)\btransposed?\b(?!\s*\()", " ^T "),
    (r"\bthree[\s-]+quarters\b", " (3/4) "), (r"\b(?:one|a|an)[\s-]+quarter\b", " (1/4) "),
    (r"\b(?:one|a)[\s-]+fourth\b", " (1/4) "), (r"\b(?:one|an?)[\s-]+eighth\b", " (1/8) "), (r"\b(?:one|a)[\s-]+sixteenth\b", " (1/16) "),
    (r"\b(?:one|a)[\s-]+third\b", " (1/3) "), (r"\bone[\s-]+half\b", " (1/2) "),  # not one minus a quarter
    (r"\bsixty[\s-]four\b", " 64 "), (r"\bone\b", " 1 "),
    (r"\btwo\b", " 2 "), (r"\bfour\b", " 4 "), (r"\beight\b", " 8 "), (r"\bsixteen\b", " 16 "),
    (r"\b(?:a\s+)?half\b", " (1/2) "), (r"\bquarter\b", " (1/4) "),
    (r"\beighth\b", " (1/8) "),
    # The same in the other languages of the course (fr, es, de): numbers and roots as students write them.
    (r"\bracine\s+carr[ée]e\s+de\b", " sqrt "), (r"\bracine\s+de\b", " sqrt "),
    (r"\b(?:la\s+)?ra[íi]z\s+(?:cuadrada|quadrada)\s+de\b", " sqrt "), (r"\b(?:die\s+)?(?:quadrat)?wurzel\s+(?:aus|von)\b", " sqrt "),
    (r"\bun\s+quart\b", " (1/4) "), (r"\bun\s+huiti[èe]me\b", " (1/8) "), (r"\bun\s+cuarto\b", " (1/4) "),
    (r"\bun\s+octavo\b", " (1/8) "), (r"\bein\s+viertel\b", " (1/4) "), (r"\bein\s+achtel\b", " (1/8) "),
    (r"\bsoixante[\s-]quatre\b", " 64 "), (r"\bsesenta\s+y\s+cuatro\b", " 64 "), (r"\bvierundsechzig\b", " 64 "),
    (r"\bseize\b", " 16 "), (r"\bdiecis[ée]is\b", " 16 "), (r"\bsechzehn\b", " 16 "),
    (r"\bhuit\b", " 8 "), (r"\bocho\b", " 8 "), (r"\bacht\b", " 8 "),
    (r"\bquatre\b", " 4 "), (r"\bcuatro\b", " 4 "), (r"\bvier\b", " 4 "),
    (r"\bmultipli[ée]e?s?\s+par\b", " · "), (r"\bdivis[ée]e?s?\s+par\b", " / "), (r"\bfois\b", " · "),
    (r"\bmultiplicad[oa]s?\s+por\b", " · "), (r"\bdividid[oa]s?\s+(?:por|entre)\b", " / "),
    (r"\bmultipliziert\s+mit\b", " · "), (r"\bgeteilt\s+durch\b", " / "), (r"\bmal\b", " · "),
    (r"\b(?:about|approximately|approx|roughly|around|circa|nearly|close\s+to|equals?|is|it)\b", " "),
    (r"^\s*(?:the|la|le|el|die|der|das)\s+(?=sqrt\b)", " "),  # "la racine carrée de d_k": the article says nothing
]
_WORD_PATTERNS = [(re.compile(p), r) for p, r in _WORDS]
_TOKEN = re.compile(r"""
    (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)
  | (?P<string>'[^'\\]{0,40}'|"[^"\\]{0,40}")
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<op>\*\*|==|!=|<=|>=|[-+*/@^·(),\[\]=<>:~])
  | (?P<space>\s+)
""", re.X)
_FUNCTIONS = {"sqrt", "exp", "log", "ln", "softmax", "score", "abs"}


class Unreadable(ValueError):
    """The text is not a formula this reader understands (the message says why, for a person)."""


class UnknownName(Unreadable):
    def __init__(self, name: str) -> None:
        super().__init__(f"`{name}` is not defined in this question")
        self.name = name


@dataclass(frozen=True)
class Vocabulary:
    """What a question lets an answer mention.

    names: variables (Q, K, d_k ...); aliases: other spellings and phrases for them ("key dimension",
    "dk", "q"); functions: callables offered by the question (sqrt, softmax, score ...); modules: dotted
    roots allowed in code (torch, F, nn, math)."""
    names: frozenset[str]
    aliases: dict[str, str] = field(default_factory=dict)
    functions: frozenset[str] = frozenset({"sqrt", "exp", "log", "ln"})
    modules: frozenset[str] = frozenset()

    def resolve(self, name: str) -> str | None:
        if name in self.names or name in self.functions or name in self.modules:
            return name
        return self.aliases.get(name.casefold()) or self.aliases.get(name.casefold().replace("_", ""))


@dataclass(frozen=True)
class Reading:
    tree: ast.Expression
    source: str          # canonical Python source of the expression (ast.unparse)
    maths: bool          # read as maths notation (products are "@" = matrix-or-scalar product)

    @property
    def shown(self) -> str:
        """The formula as a person reads it (maths products as *)."""
        return self.source.replace(" @ ", " * ") if self.maths else self.source


def read_expression(text: object, vocabulary: Vocabulary) -> Reading:
    """One validated expression from an answer; raises Unreadable (or UnknownName) with a reason."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise Unreadable("write the answer as text")
    text = str(text).strip()
    if not text:
        raise Unreadable("no answer")
    if len(text) > MAX_ANSWER_CHARS:
        raise Unreadable(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    text = text.strip("`").strip()
    if text.endswith(".") and not re.search(r"\d\.$", text):
        text = text[:-1].rstrip()
    # Words alone ("sixty-four", "vierundsechzig") are a number or maths in words, unless they are one name.
    in_words = re.fullmatch(r"[^\W\d_]+(?:[\s-]+[^\W\d_]+)*", text) and vocabulary.resolve(text) is None
    python = None if _MATHS_MARKS.search(text) or in_words else _parse_python(text)
    if python is not None:
        return _finish(python, vocabulary, maths=False)
    return _finish(_parse(_to_python(_last_side(text), vocabulary)), vocabulary, maths=True)


def _last_side(text: str) -> str:
    """`Attention(Q, K, V) = softmax(...) V` or `var = 64`: the answer is the right-hand side."""
    depth, cut = 0, -1
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "≈" and depth == 0 or char == "=" and depth == 0 \
                and text[index - 1:index] not in ("=", "!", "<", ">") and text[index + 1:index + 2] != "=":
            cut = index
    return text[cut + 1:] if cut >= 0 and text[cut + 1:].strip() else text


def _parse(source: str) -> ast.Expression:
    try:
        return ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        raise Unreadable("this is not a formula the grader can read") from None


def _parse_python(text: str) -> ast.Expression | None:
    """The text as a Python expression, or `name = expression`; None if it is not Python."""
    try:
        module = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    if len(module.body) != 1:
        return None
    statement = module.body[0]
    if isinstance(statement, ast.Expr):
        return ast.Expression(statement.value)
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return ast.Expression(statement.value)
    if isinstance(statement, ast.Return) and statement.value is not None:
        return ast.Expression(statement.value)
    return None


# --- maths notation -> Python source -----------------------------------------------------------

def _unicode(text: str) -> str:
    text = _SUPER_RUN.sub(lambda m: "^(" + "".join(_SUPERSCRIPTS[c] for c in m.group()) + ")", text)
    text = _SUB_RUN.sub(lambda m: "_" + "".join(_SUBSCRIPTS[c] for c in m.group()), text)
    text = unicodedata.normalize("NFKC", text).translate(_SYMBOLS)
    return text.replace("^(T)", "^T")


def _latex(text: str) -> str:
    text = text.replace("$", " ")
    for pattern, replacement in _LATEX_COMMANDS:
        text = pattern.sub(replacement, text)
    for _ in range(8):  # innermost first; nesting deeper than this is not an answer
        before = text
        text = _FRAC.sub(r"((\1)/(\2))", text)
        text = _SQRT_BRACED.sub(r"sqrt(\1)", text)
        text = _POWER_BRACED.sub(r"^(\1)", text)
        text = _SUB_BRACED.sub(r"_\1", text)
        if text == before:
            break
    if "\\" in text:
        raise Unreadable("uses a LaTeX command the grader does not know")
    return text.replace("{", "(").replace("}", ")")


def _words(text: str, vocabulary: Vocabulary) -> str:
    lowered = text.casefold()
    for phrase in sorted((a for a in vocabulary.aliases if " " in a), key=len, reverse=True):
        lowered = re.sub(rf"\b(?:the\s+)?{re.escape(phrase)}\b", f" {vocabulary.aliases[phrase]} ", lowered)
    for pattern, replacement in _WORD_PATTERNS:
        lowered = pattern.sub(replacement, lowered)
    lowered = re.sub(r"\b(?:the|a|an|of)\b", " ", lowered)
    # Case matters for names (Q and q may differ), so put the original spelling back where only words changed.
    return _restore_case(text, lowered)


def _restore_case(original: str, lowered: str) -> str:
    """Keep the student's capitals for every token that survived the word rewriting unchanged."""
    originals = {token.casefold(): token for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", original)}
    return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: originals.get(m.group(), m.group()), lowered)


def _to_python(text: str, vocabulary: Vocabulary) -> str:
    text = _unicode(text)
    text = _latex(text).replace("^(T)", "^T")
    text = text.replace("≈", " ").replace("~", " ")
    text = re.sub(r"\^\s*(\d+(?:\.\d+)?\s*/\s*\d+(?:\.\d+)?)", r"^(\1)", text)  # d_k^1/2 means d_k^(1/2)
    text = _words(text, vocabulary)
    tokens = _tokens(text)
    tokens = _split_names(tokens, vocabulary)
    return "".join(_emit(tokens, vocabulary))


def _whole_words(text: str, position: int, width: int = 12) -> str:
    """About `width` characters of `text` from `position`, widened to whole words: a message quotes what the
    student wrote ('raíz de d_k'), never a piece of a word ('íz de d_k')."""
    start, end = position, min(len(text), position + width)
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end]


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise Unreadable(f"cannot read {_whole_words(text, position)!r}")
        position = match.end()
        kind = match.lastgroup
        if kind != "space":
            value = re.sub(r"\s+", "", match.group()) if kind == "name" else match.group()
            tokens.append((kind, value))
    return tokens


def _split_names(tokens: list[tuple[str, str]], vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """`QK` means Q times K when both are names of the question and `QK` is not."""
    out = []
    for kind, value in tokens:
        if kind == "name" and "." not in value and vocabulary.resolve(value) is None:
            parts = _split_into_names(value, vocabulary)
            if parts:
                out += [("name", p) for p in parts]
                continue
        out.append((kind, value))
    return out


def _split_into_names(word: str, vocabulary: Vocabulary) -> list[str] | None:
    known = sorted({*vocabulary.names, *vocabulary.aliases}, key=len, reverse=True)
    parts, rest = [], word
    while rest:
        match = next((k for k in known if k and rest.startswith(k) and " " not in k), None)
        if match is None:
            return None
        parts.append(match)
        rest = rest[len(match):].lstrip("_")
    return parts if len(parts) > 1 else None


_OPERAND_END = {"number", "name", "string", ")", "]", "T"}


def _emit(tokens: list[tuple[str, str]], vocabulary: Vocabulary) -> list[str]:
    out: list[str] = []
    previous = None      # kind of the last emitted operand-ish token
    pending_sqrt = 0     # `sqrt x` without parentheses: close after the next atom
    for index, (kind, value) in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if kind == "op" and value == "^" and following in (("name", "T"), ("name", "t")):
            continue  # handled when the T arrives
        if kind == "name" and value in ("T", "t") and index and tokens[index - 1] == ("op", "^"):
            out.append(".mT")
            previous = "T"
            continue
        is_call = kind == "name" and following == ("op", "(") and (
            "." in value or value.casefold() in _FUNCTIONS or value in vocabulary.functions)
        starts_operand = kind in ("number", "name", "string") or value == "("
        if starts_operand and previous in _OPERAND_END:
            out.append("@")  # juxtaposition: a product
        if kind == "op":
            out.append({"^": "**", "·": "@", "*": "@"}.get(value, value))
            previous = value if value in (")", "]") else None
        else:
            name = value
            if kind == "name" and "." not in value:
                name = vocabulary.resolve(value) or (value.casefold() if value.casefold() in _FUNCTIONS else value)
            if name == "sqrt" and following is not None and following != ("op", "("):
                out.append("sqrt(")
                pending_sqrt += 1
                previous = None
                continue
            out.append(name)
            previous = None if is_call else kind
        if pending_sqrt and previous in _OPERAND_END:
            out.append(")" * pending_sqrt)
            pending_sqrt = 0
    if pending_sqrt:
        out.append(")" * pending_sqrt)
    return out


# --- validation --------------------------------------------------------------------------------

_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.keyword, ast.Attribute, ast.Name, ast.Load,
            ast.Constant, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.Compare,
            ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult, ast.USub, ast.UAdd, ast.FloorDiv,
            ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _finish(tree: ast.Expression, vocabulary: Vocabulary, maths: bool) -> Reading:
    nodes = 0
    try:
        for node in ast.walk(tree):
            nodes += 1
            if nodes > MAX_NODES:
                raise Unreadable("the formula is too long")
            if not isinstance(node, _ALLOWED):
                raise Unreadable(f"uses {type(node).__name__}, which an answer does not need")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise Unreadable("uses a name that starts with an underscore")
            if isinstance(node, ast.Constant):
                _check_constant(node.value)
            if isinstance(node, ast.keyword) and node.arg is None:
                raise Unreadable("uses ** keyword unpacking")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                resolved = vocabulary.resolve(node.id)
                if resolved is None:
                    raise UnknownName(node.id)
                node.id = resolved
        source = ast.unparse(tree)
    except RecursionError:
        raise Unreadable("the formula is nested too deeply") from None
    return Reading(tree, source, maths)


def _check_constant(value: object) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        if abs(value) > MAX_CONSTANT:
            raise Unreadable("uses a number larger than the question needs")
        return
    if isinstance(value, str) and len(value) <= 40:
        return
    raise Unreadable("uses a constant an answer does not need")
