"""Markdown as its readers see it, for tests that read feedback/*.md and Gradescope's outputs: rendered by a
CommonMark parser with GitHub's tables and strike-through (markdown-it-py), then read as text or as tokens."""
from __future__ import annotations

from markdown_it import MarkdownIt

from tests.html_tree import parse_html

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def rendered(markdown: str) -> str:
    return PARSER.render(markdown)


def shown_text(markdown: str) -> str:
    """The text a reader sees: the rendered page's text, paragraphs on lines of their own."""
    return parse_html(rendered(markdown)).text()


def tokens(markdown: str):
    """Every token, the inline ones (links, images, HTML, code spans) included."""
    for token in PARSER.parse(markdown):
        yield token
        yield from token.children or ()
