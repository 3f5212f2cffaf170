"""One escaping rule per output format: text a student controls is shown as text, never obeyed as markup.

Student-controlled text reaches every output: printed output, exception messages, the repr of a returned
object, traceback file and function names, zip member and folder names, names from a platform's metadata,
quiz answers shown back. Every renderer passes every piece of text it did not write itself through the
function for its format here, whoever wrote the text (a grader's message quotes the student's values):

- `visible`: the base of all of them. Control characters (newlines, ANSI escapes, NUL), bidirectional and
  other invisible format characters (U+202E, U+2066, zero-width spaces, tag characters), line and paragraph
  separators and lone surrogates are written as Python escapes (`\\n`, `\\x1b`, `\\u202e`), so they are seen
  and never act: no forged line, no recoloured terminal, no text shown in reverse, no output that cannot be
  encoded (a byte of a file name in no valid encoding is shown as `\\xNN`, as `results.safe_text` does when
  it stores a result). The joiners U+200C/U+200D stay (scripts and emoji need them).
- `terminal`: what the command line prints (newlines of the kit's own messages kept).
- `markdown_text` / `markdown_lines` / `markdown_block`: feedback/*.md and Gradescope's `output` (rendered as
  Markdown). `<`, `>` and `&` become entities (inert whether the reader renders Markdown or HTML), every other
  character Markdown gives a meaning is backslash-escaped (a line's first character too), and a word that a
  renderer would turn into a link by itself (`http://...`, `www.`, an address with `@`) is put in a code
  span. Multi-line output goes in a fenced block whose fence is longer than any run of backticks in it.
- `html_text`: report.html (`html.escape`, quotes too, after `visible`; newlines kept as the whitespace they
  are in HTML). The review page's script applies the same rule (quiz/review_page/page.js, `esc`).
- `csv_cell`: gradebook.csv, canvas.csv, roster-match.csv: a text cell that a spreadsheet would run as a
  formula (its first character, after any spaces, one of = + - @, a tab or a newline) gets a leading
  apostrophe; a plain number (-3, +1.5) is left a number. Newlines and carriage returns are shown as `\\n`
  and `\\r` like every other control character: a quoted newline is one cell to a spreadsheet but a forged
  line to anyone who reads the file line by line (grep, a diff, an LMS log).
- File names come from `grading.submissions.result_stem` (a safe slug, never the raw text); `file_stems`
  gives each student a distinct one, also on file systems that ignore case.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

KEPT_FORMAT = {"\u200c", "\u200d"}  # zero-width non-joiner and joiner: part of how many scripts and emoji are written
HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(char: str) -> str:
    if char in SHORT:
        return SHORT[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name in no valid encoding, as Python decodes it (as results.py)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in HIDDEN_CATEGORIES and char not in KEPT_FORMAT


def visible(text: object, keep: str = "") -> str:
    """`text` with every character that acts instead of showing (see the module's docstring) written as an
    escape; characters in `keep` (say "\\n") stay as they are."""
    text = str(text)
    if "\n" in keep:
        text = text.replace("\r\n", "\n")  # a Windows line end is a line end
    if text.isprintable():
        return text  # the common case, fast: no character of a hidden category is printable
    return "".join(_shown(c) if _hidden(c) and c not in keep else c for c in text)


def one_line(text: object) -> str:
    """`text` as part of one line: a newline in a name cannot start a line of its own."""
    return visible(text)


def terminal(text: object) -> str:
    """A message for the terminal or summary.txt: the kit's own line breaks kept, nothing else that acts."""
    return visible(text, keep="\n")


# --- Text with code in it ---------------------------------------------------------------------------------
class Coded(str):
    """A message the kit writes around pieces of code (a repair's `old` and `new`, which come from the student):
    `parts` alternate prose and code, code at the odd places. As a plain str it reads with the code in backticks
    (the terminal, the checks of a message's words); a renderer that has code spans shows the code as code,
    escaped by its own rule like any text it did not write (markdown_lines, html_coded)."""

    parts: tuple[str, ...]

    def __new__(cls, *parts: str) -> "Coded":
        made = super().__new__(cls, "".join(f"`{p}`" if i % 2 else p for i, p in enumerate(parts)))
        made.parts = tuple(str(p) for p in parts)
        return made

    @classmethod
    def joined(cls, lines: Iterable[str]) -> str:
        """Lines joined by newlines, keeping the code of those that have it (a plain str if none has)."""
        lines = list(lines)
        if not any(isinstance(line, Coded) for line in lines):
            return "\n".join(lines)
        parts = [""]
        for number, line in enumerate(lines):
            more = line.parts if isinstance(line, Coded) else (str(line),)
            parts[-1] += ("\n" if number else "") + more[0]
            parts += more[1:] if len(more) % 2 else [*more[1:], ""]
        return cls(*parts)

    def lines(self) -> list[tuple[str, ...]]:
        """The parts line by line (code never spans lines: it is shown on one)."""
        found: list[list[str]] = [[]]
        for index, part in enumerate(self.parts):
            if index % 2:
                found[-1].append(one_line(part))
                continue
            pieces = part.split("\n")
            found[-1].append(pieces[0])
            for piece in pieces[1:]:
                found[-1].append("")      # the line ends with prose: an empty code part closes it
                found.append([piece])
        return [tuple(line[:-1] if len(line) % 2 == 0 and not line[-1] else line) for line in found]


# --- Markdown ---------------------------------------------------------------------------------------------
ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
ESCAPED = set("\\`*_[]~|$")  # backslash-escaped anywhere: code, emphasis, links, strike-through, tables, math
LINE_START = ("#", "+", "=", "-")  # at a line's start: a heading, a list item, a setext underline
LINE_START_NUMBER = re.compile(r"\d{1,9}(?=[.)])")  # at a line's start: a numbered list item
LINKED_BY_ITSELF = re.compile(r"://|www\.|@", re.IGNORECASE)  # autolinks (GFM) and linkify
SPACES = re.compile(r"( +)")


def markdown_code(text: object) -> str:
    """`text` (one line) as an inline code span: shown literally by every Markdown renderer."""
    text = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _word(word: str) -> str:
    if "|" in word:  # a table splits its cells at | even inside a code span: never in one
        return "\\|".join(map(_word, word.split("|")))
    if LINKED_BY_ITSELF.search(word):
        return markdown_code(word)
    return "".join(ENTITIES.get(c) or (f"\\{c}" if c in ESCAPED else c) for c in word)


def markdown_text(text: object) -> str:
    """`text` as one line of Markdown prose that renders exactly as `text` reads (escapes shown visibly)."""
    # Spaces around the text go: Markdown never shows them, and four in front would start a code block.
    body = "".join(part if part.startswith(" ") else _word(part) for part in SPACES.split(one_line(text).strip(" ")))
    numbered = LINE_START_NUMBER.match(body)
    if body[:1] in LINE_START:  # a heading, a list item, a setext underline
        return f"\\{body}"
    if numbered:  # "1." or "1)" starts a numbered list: escape its punctuation
        return f"{body[:numbered.end()]}\\{body[numbered.end():]}"
    return body


def markdown_lines(text: object) -> list[str]:
    """Multi-line text as Markdown lines, each escaped as `markdown_text` (for a block quote or paragraphs); the
    code of a Coded message as inline code spans."""
    if isinstance(text, Coded):
        return [markdown_coded(parts) for parts in text.lines()]
    return [markdown_text(line) for line in visible(text, keep="\n").split("\n")]


def markdown_coded(parts: tuple[str, ...]) -> str:
    """One line of prose and code (code at the odd places) as Markdown: the prose escaped as `markdown_text`
    (the spaces between the pieces kept), the code as code spans."""
    shown = []
    for index, part in enumerate(parts):
        if index % 2:
            shown.append(markdown_code(part))
            continue
        lead, body, tail = re.fullmatch(r"( *)(.*?)( *)", one_line(part)).groups()
        body = markdown_text(body) if body else ""
        if index and body.startswith("\\") and body[1:2] in "".join(LINE_START):
            body = body[1:]   # a line-start escape is needed at the start of a line only
        shown.append((lead if index else "") + body + (tail if index + 1 < len(parts) else ""))
    return "".join(shown)


def markdown_block(text: object) -> list[str]:
    """Multi-line text (printed output, a traceback) as the lines of a fenced code block: shown literally."""
    text = visible(text, keep="\n\t")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *text.split("\n"), fence]


def markdown_paragraphs(texts: Iterable[str]) -> str:
    """Lines of text as Markdown paragraphs, one per line (a single newline would join them in one)."""
    return "\n\n".join(line for text in texts for line in markdown_lines(text) if line.strip())


# --- HTML -------------------------------------------------------------------------------------------------
def html_text(text: object) -> str:
    """Text for an HTML element or a quoted attribute value."""
    import html

    return html.escape(visible(text, keep="\n\t"), quote=True)


def html_coded(text: object) -> str:
    """Text for an HTML element, the code of a Coded message in <code> elements (escaped as any text)."""
    if not isinstance(text, Coded):
        return html_text(text)
    return "".join(f"<code>{html_text(one_line(p))}</code>" if i % 2 else html_text(p) for i, p in enumerate(text.parts))


# --- CSV --------------------------------------------------------------------------------------------------
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def csv_cell(text: object) -> str:
    """A text cell a spreadsheet shows as text and never runs as a formula; a plain number stays a number."""
    text = visible(text, keep="\t")  # no line breaks: one row is one line, read by a spreadsheet or by grep
    stripped = text.lstrip(" ")
    if stripped.startswith(FORMULA_STARTS) and not NUMBER.match(text.strip()):
        return "'" + text
    return text


# --- file names -------------------------------------------------------------------------------------------
SLUG = re.compile(r"[^\w.-]+")


def file_stems(student_ids: Iterable[str]) -> dict[str, str]:
    """A distinct file name (without extension) per student, from the safe slug of its id: two ids whose
    slugs meet, also only where case or Unicode normalisation is ignored (macOS, Windows), each keep a name of
    their own."""
    from ..grading.submissions import result_stem

    def key(stem: str) -> str:
        return unicodedata.normalize("NFC", stem).casefold()

    stems: dict[str, str] = {}
    taken: set[str] = set()
    for student_id in student_ids:
        stem = result_stem(student_id)
        if key(stem) in taken:
            digest = hashlib.sha256(student_id.encode("utf-8", "surrogatepass")).hexdigest()
            stem = f"{SLUG.sub('_', stem)[:40]}-{digest[:12]}"
            number = 2
            while key(stem) in taken:
                stem, number = f"{stem}-{number}", number + 1
        taken.add(key(stem))
        stems[student_id] = stem
    return stems
