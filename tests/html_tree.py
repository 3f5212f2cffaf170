"""A document tree from the standard library's HTML parser, for tests that read generated HTML."""
from __future__ import annotations

from html.parser import HTMLParser


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs, self.children = tag, attrs, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def matches(self, tag: str | None, attrs: dict[str, str]) -> bool:
        """class_="x": x is one of the classes; any other name_with_underscores is the attribute name-with-dashes."""
        return (tag is None or self.tag == tag) and all(
            value in self.classes() if name == "class_" else self.attrs.get(name.replace("_", "-")) == value
            for name, value in attrs.items())

    def iter(self, tag: str | None = None, **attrs: str):
        for child in self.children:
            if isinstance(child, Node):
                if child.matches(tag, attrs):
                    yield child
                yield from child.iter(tag, **attrs)

    def find(self, tag: str | None = None, **attrs: str) -> "Node":
        found = next(self.iter(tag, **attrs), None)
        assert found is not None, f"no <{tag}> with {attrs}"
        return found

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())


class TreeBuilder(HTMLParser):
    """A document tree from the standard library's HTML parser, insisting that every element is closed in
    order: a report that only renders because browsers forgive broken markup fails here."""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):  # `<br />`: a void element written self-closed, XHTML style
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse_html(text: str) -> Node:
    builder = TreeBuilder()
    builder.feed(text)
    builder.close()
    assert builder.stack == [builder.root], f"unclosed: {[n.tag for n in builder.stack[1:]]}"
    return builder.root
