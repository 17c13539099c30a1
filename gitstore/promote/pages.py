"""The rules one page of the wiki breaks by itself, as the wiki gate (``gitstore-okf``) judges
a page and as promote judges one before it writes it: the OKF page rules, the problems in its
links, the local tooling overlay's links, its promoted claims' citations."""

from __future__ import annotations

import re
from collections.abc import Callable
from posixpath import dirname, join, normpath

from gitstore.promote import blocks
from gitstore.promote.findings import Finding, line_of
from gitstore.promote.okf import Page, file_name, is_url, page_problems, read_as

OVERLAY = "tooling"  # the local tooling overlay's folder in the wiki (route 0): git ignores it

_KEY = re.compile(r"^([a-z_]+)\b")
_LINE_IN = re.compile(r"^(?:index|log) line (\d+):")


Sources = Callable[[list[str]], dict[str, str]]  # ``path@commit`` citations -> why each does not resolve


def page_findings(page: Page, rel: str, wiki_rel: str, links: Callable[[Page], list[str]],
                  sources: Sources | None = None) -> list[Finding]:
    """Every rule one page of the wiki (``rel`` from the repository's root) breaks by itself:
    the OKF rules, the problems ``links`` finds in its links, the overlay's links, its promoted
    claims, whose ``path@commit`` citations ``sources`` resolves when given (the gate, in a git
    repository). Promote runs it on a page it is about to write, its links read in the commit's
    tree."""
    text = page.text or ""
    at_root = dirname(rel) == wiki_rel
    found = [Finding(rel, _line(problem, text), problem) for problem in page_problems(page, at_root=at_root)]
    if page.text is None or page.problems:
        return found
    line = LinkLines(text)
    found += [Finding(rel, line(problem), problem) for problem in links(page)]
    inside = rel[len(wiki_rel) + 1:]
    if inside.startswith(f"{OVERLAY}/"):
        found += _overlay_links(page, rel, wiki_rel)
    else:
        found += _links_into_overlay(page, rel, wiki_rel)
    return found + _promoted(rel, text, sources)


def _line(problem: str, text: str) -> int:
    """The line a page problem is about: the front matter key it names, else the first line."""
    if match := _LINE_IN.match(problem):
        offset = text.count("\n", 0, len(text) - len(read_body(text)))
        return int(match.group(1)) + offset
    if match := re.search(r"footnote (\[\^[^\]]+\])", problem):
        return line_of(text, match.group(1))
    head = text[:len(text) - len(read_body(text))]
    if (match := _KEY.match(problem)) and f"\n{match.group(1)}:" in head:
        return line_of(head, f"\n{match.group(1)}:") + 1
    return 1


def read_body(text: str) -> str:
    from gitstore.promote.okf import split_front_matter

    return split_front_matter(text)[1]


class LinkLines:
    """The line of each problem of one page's links (where the link it names, as written, is
    found: ``(link`` first), the problems given in the order the page holds
    its links: each link is looked for from where the one before it was found (then, if it is
    not there, from the start), and lines are counted on from there, so a page costs one
    reading of its text however many of its links fail, not one reading each (20,000 broken
    links of one page took half a minute). A link that fails twice is named on each line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0  # where the last link was found
        self.line = 1  # its line
        self.next = 0  # where the next one is looked for first

    def __call__(self, problem: str) -> int:
        target = problem.split(" ", 2)[1].rstrip(":") if problem.count(" ") >= 2 else ""
        for needle in (f"({target}", target):
            if not needle:
                continue
            found = self.text.find(needle, self.next)
            if found < 0:
                found = self.text.find(needle)
            if found >= 0:
                if found < self.at:
                    self.at, self.line = 0, 1
                self.line += self.text.count("\n", self.at, found)
                self.at, self.next = found, found + 1
                return self.line
        return 1


def resolve_link(rel: str, target: str, wiki_rel: str) -> str:
    """Where a link of the page ``rel`` leads, from the repository's root (``/`` is the wiki's)."""
    name = file_name(target.partition("#")[0])
    if name.startswith("/"):
        return normpath(join(wiki_rel, name.lstrip("/")))
    return normpath(join(dirname(rel), name))


def _overlay_links(page: Page, rel: str, wiki_rel: str) -> list[Finding]:
    """An overlay page links exactly once, to project knowledge outside the overlay."""
    links = page.links
    if len(links) != 1:
        return [Finding(rel, 1, f"a page of the tooling overlay has exactly one outgoing link, to project "
                                f"knowledge; this one has {len(links)}")]
    target, written, line = links[0], page.written[0], page.lines[0]
    if is_url(target):
        return [Finding(rel, line, f"the overlay's one link must lead to project knowledge in the repository, "
                                   f"not to {written}")]
    resolved = resolve_link(rel, target, wiki_rel)
    if resolved.startswith(f"{wiki_rel}/{OVERLAY}/") or resolved == f"{wiki_rel}/{OVERLAY}":
        return [Finding(rel, line, "the overlay's one link must lead out of the overlay, to project knowledge")]
    return []


def _links_into_overlay(page: Page, rel: str, wiki_rel: str) -> list[Finding]:
    """No page outside the overlay (no index, no project page) links into it."""
    found = []
    for target, written, line in zip(page.links, page.written, page.lines):
        # a link leads into the overlay only through a segment of its own naming it: this
        # page's folder, outside the overlay, has another segment there, and ``..`` only drops
        if OVERLAY not in target or is_url(target) or not target.partition("#")[0]:
            continue
        resolved = resolve_link(rel, target, wiki_rel)
        if resolved.startswith(f"{wiki_rel}/{OVERLAY}/") or resolved == f"{wiki_rel}/{OVERLAY}":
            found.append(Finding(rel, line, f"links into the local tooling overlay ({written}), which no other clone "
                                            f"has; never list or link it{read_as(written, target)}"))
    return found


def _promoted(rel: str, text: str, sources: Sources | None = None) -> list[Finding]:
    """Every promoted claim carries a readable citation; the citation of its own learning names
    the version its marker names; each ``path@commit`` names a file at a commit of the
    repository, where ``sources`` says which do not."""
    found = [Finding(rel, n, "a gitstore:promoted marker that does not follow its form "
                             "(<!-- gitstore:promoted lrn_<id> sha256:<digest> -->)")
             for n in blocks.markers_without_shape(text)]
    promoted = blocks.find(text)
    for block in promoted:
        if not block.statement.strip():
            found.append(Finding(rel, block.line, f"promoted claim {block.learning} has no text"))
        if block.cited_line is None:
            found.append(Finding(rel, block.line, f"promoted claim {block.learning} has no citation "
                                                  "(a 'Cited:' line right after its text)"))
            continue
        if not block.citations:
            found.append(Finding(rel, block.cited_line, f"promoted claim {block.learning} cites nothing "
                                                        "a reader can check"))
        for item in block.unreadable:
            found.append(Finding(rel, block.cited_line, f"citation {item[:80]!r} of {block.learning} follows no "
                                                        "known form (`path@commit`, `lrn_<id>@sha256:<digest>`, "
                                                        "`command` exited N, <URL> (accessed YYYY-MM-DD))"))
        for citation in block.citations:
            learning, _, digest = citation.ref.partition("@")
            if citation.kind == "learning" and learning == block.learning and digest != block.content_digest:
                found.append(Finding(rel, block.cited_line, f"citation `{citation.ref}` of {block.learning} names "
                                                            f"another version than its marker ({block.content_digest}): "
                                                            "the Cited: line is promote's, never edited by hand"))
        if block.continued:
            found.append(Finding(rel, block.cited_line + 1, f"{blocks.CONTINUED} {block.learning}: leave a blank "
                                                            "line after it"))
    cited = sorted({c.ref for b in promoted for c in b.citations if c.kind == "source"})
    unresolved = sources(cited) if sources is not None and cited else {}
    for block in promoted if unresolved else []:
        for ref in dict.fromkeys(c.ref for c in block.citations if c.kind == "source" and c.ref in unresolved):
            found.append(Finding(rel, block.cited_line, f"citation `{ref}` of {block.learning} "
                                                        f"{unresolved[ref]}"))
    return found


__all__ = ["OVERLAY", "LinkLines", "page_findings", "read_body", "resolve_link"]
