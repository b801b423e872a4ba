"""A strict little DOM for tests: html.parser builds the tree and refuses mismatched tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """All text inside, in document order (as a browser's textContent)."""
        return "".join(self.parts)

    def iter(self):
        yield self
        for child in self.children:
            yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag)
            and all(n.attrs.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items())
        ]

    def find(self, tag: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag}> with {attrs}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        open_tag = self.stack[-1].tag
        if open_tag != tag:
            raise AssertionError(f"</{tag}> closes <{open_tag}> at line {self.getpos()[0]}")
        self.stack.pop()

    def handle_data(self, data):
        for node in self.stack:
            node.parts.append(data)


def parse(page: str) -> Node:
    """The document tree; raises AssertionError when the markup is not well nested."""
    builder = _Builder()
    builder.feed(page)
    builder.close()
    if len(builder.stack) != 1:
        raise AssertionError(f"unclosed elements: {[n.tag for n in builder.stack[1:]]}")
    if builder.doctype.lower() != "doctype html":
        raise AssertionError(f"doctype is {builder.doctype!r}")
    return builder.root
