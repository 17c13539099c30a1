"""Which wiki page owns a learning, found the way a reader finds it: ``index.md`` lists the
pages, ``quickstart.md`` routes readers to them, and each page's sections divide its topic.

Deterministic and explainable. A page listed by an index (followed into subfolder indexes) may
own a learning; the reserved ``index.md`` and ``log.md``, ``INSTRUCTIONS.md``, the local
``tooling/`` overlay and pages a process regenerates (``generated.by: process:...``) never do.
A learning that names a page among its targets is owned by that page. Otherwise each page scores:

- 10 for each of the learning's target paths the page mentions;
- 2 for each word the learning shares with what routes a reader to the page: its title,
  description and tags, its headings, and the quickstart's text around links to it;
- 1 for each other word it shares with the page's body, at most 5.

The best page owns the learning when it scores at least ``MIN_SCORE`` and more than any other;
a tie or too low a score leaves it without an owner (a structural change, not a direct edit).
Within the owner, the section whose heading and text share most with the learning (target
mentions first) receives the edit, at the end of its own text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from posixpath import dirname, join, normpath

from gitstore.promote.okf import INDEX_PAGE, RESERVED, body_links, headings, index_entries, is_url, split_front_matter
from gitstore.promote.pages import OVERLAY  # named where the wiki gate reads it, which loads no git
from gitstore.promote.snapshot import Snapshot

WIKI = "okf/wiki"
QUICKSTART = "quickstart.md"
INSTRUCTIONS = "INSTRUCTIONS.md"
MIN_SCORE = 4
NO_INDEX, NO_PAGES = "index", "pages"  # Routing.missing: the commit has no wiki index, or it lists no page
_BODY_CAP = 5
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the and for are but not you all any can had her was one our out has his how its may new now "
    "see two way who did get let put say she too use with this that from they will have been were "
    "what when where which while into than then them there these those each every only also more "
    "most other some such over under about after before because between does done just like make "
    "made many much must need never should still their very would could being both here same "
    "uses used using page pages".split()
)


def words(text: str) -> set[str]:
    """The words of a text that can route it: lowercased, at least three letters, not a common
    word, with a plural's ending taken off."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in _STOP:
            continue
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            word = word[:-1]
        found.add(word)
    return found


@dataclass(frozen=True)
class Owner:
    """Where a direct edit goes: the page, the section (None: the page has no sections), and
    the 0-based line of the page before which the block is inserted."""

    page: str
    section: str | None
    line: int
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Routing:
    """The routing verdict: an owner, or why there is none; and each candidate's score."""

    owner: Owner | None
    problem: str | None
    scores: tuple[tuple[str, int], ...] = ()
    missing: str | None = None  # what the wiki lacks to route at all: NO_INDEX, NO_PAGES


@dataclass
class _Candidate:
    path: str
    text: str
    body: str
    body_start: int  # 0-based line of the page where the body starts
    profile: set[str] = field(default_factory=set)
    score: int = 0
    why: list[str] = field(default_factory=list)


def route(snapshot: Snapshot, title: str, text: str, targets: list[str], wiki: str = WIKI) -> Routing:
    """The owning page and section for a learning, following the wiki's routing at a commit."""
    index = snapshot.text(f"{wiki}/{INDEX_PAGE}")
    if index is None:
        return Routing(None, f"there is no {wiki}/{INDEX_PAGE} to route through", missing=NO_INDEX)
    candidates = [c for path in _listed_pages(snapshot, wiki) if (c := _candidate(snapshot, path))]
    if not candidates:
        return Routing(None, f"{wiki}/{INDEX_PAGE} lists no page that may be edited", missing=NO_PAGES)
    _add_quickstart(snapshot, wiki, candidates)
    direct = [c for c in candidates if c.path in targets]
    if len(direct) > 1:
        return Routing(None, f"its targets name {len(direct)} pages: {', '.join(c.path for c in direct)}")
    if direct:
        direct[0].why.append(f"its targets name {direct[0].path}")
        return Routing(_owner(direct[0], title, text, targets), None, ((direct[0].path, 0),))
    return _best(candidates, title, text, targets)


def _best(candidates: list[_Candidate], title: str, text: str, targets: list[str]) -> Routing:
    learning = words(f"{title} {text} {' '.join(targets)}")
    for candidate in candidates:
        _score(candidate, learning, targets)
    ranked = sorted(candidates, key=lambda c: -c.score)
    scores = tuple((c.path, c.score) for c in ranked)
    best = ranked[0]
    if best.score < MIN_SCORE:
        return Routing(None, f"no page owns it (best: {best.path}, score {best.score} < {MIN_SCORE})", scores)
    if len(ranked) > 1 and ranked[1].score == best.score:
        tied = [c.path for c in ranked if c.score == best.score]
        return Routing(None, f"{len(tied)} pages own it equally ({', '.join(tied)}, score {best.score})", scores)
    return Routing(_owner(best, title, text, targets), None, scores)


def _score(candidate: _Candidate, learning: set[str], targets: list[str]) -> None:
    mentioned = [t for t in targets if t in candidate.text]
    shared = sorted(learning & candidate.profile)
    body = (learning & words(candidate.body)) - candidate.profile
    candidate.score = 10 * len(mentioned) + 2 * len(shared) + min(len(body), _BODY_CAP)
    if mentioned:
        candidate.why.append(f"it mentions {', '.join(mentioned)}")
    if shared:
        candidate.why.append(f"its routing shares {', '.join(shared[:8])}")
    candidate.why.append(f"score {candidate.score}")


def _listed_pages(snapshot: Snapshot, wiki: str) -> list[str]:
    """Pages reachable from the wiki's index through subfolder indexes, in index order."""
    found: list[str] = []
    seen_indexes: set[str] = set()
    queue = [f"{wiki}/{INDEX_PAGE}"]
    while queue:
        index = queue.pop(0)
        if index in seen_indexes:
            continue
        seen_indexes.add(index)
        text = snapshot.text(index) or ""
        for _, link, _ in index_entries(text):
            target = _resolve(index, link, wiki)
            if target is None:
                continue
            if target.endswith("/") or target.endswith(f"/{INDEX_PAGE}"):
                queue.append(target if target.endswith(INDEX_PAGE) else f"{target}{INDEX_PAGE}")
            elif target.endswith(".md") and _may_own(target, wiki) and target not in found:
                found.append(target)
    return found


def _resolve(page: str, link: str, wiki: str) -> str | None:
    if is_url(link):
        return None
    name = link.partition("#")[0]
    if not name:
        return None
    trailing = "/" if name.endswith("/") else ""
    path = normpath(join(wiki, name.lstrip("/")) if name.startswith("/") else join(dirname(page), name))
    if path.startswith("../") or not (path + "/").startswith(wiki + "/"):
        return None
    return path + trailing


def _may_own(path: str, wiki: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    inside = path[len(wiki) + 1:]
    return name not in RESERVED and name != INSTRUCTIONS and not inside.startswith(f"{OVERLAY}/")


def _candidate(snapshot: Snapshot, path: str) -> _Candidate | None:
    text = snapshot.text(path)
    if text is None:
        return None
    meta, body, problems = split_front_matter(text)
    if problems or not isinstance(meta, dict):
        return None
    generated = meta.get("generated")
    if isinstance(generated, dict) and str(generated.get("by", "")).startswith("process:"):
        return None  # a process rewrites this page: an edit would not survive
    start = text.count("\n", 0, len(text) - len(body))
    profile_text = " ".join(str(meta.get(k, "")) for k in ("title", "description"))
    tags = meta.get("tags") if isinstance(meta.get("tags"), list) else []
    profile = words(profile_text + " " + " ".join(map(str, tags)) + " " + " ".join(h for _, _, h in headings(body)))
    return _Candidate(path, text, body, start, profile)


def _add_quickstart(snapshot: Snapshot, wiki: str, candidates: list[_Candidate]) -> None:
    """The quickstart's words around each link count as routing for the page it links to."""
    path = f"{wiki}/{QUICKSTART}"
    text = snapshot.text(path)
    if text is None:
        return
    _, body, _ = split_front_matter(text)
    by_path = {c.path: c for c in candidates}
    for paragraph in re.split(r"\n\s*\n", body):
        for link in body_links(paragraph):
            target = _resolve(path, link, wiki)
            if target in by_path:
                by_path[target].profile |= words(re.sub(r"\]\([^)]*\)", "]", paragraph))


def _owner(page: _Candidate, title: str, text: str, targets: list[str]) -> Owner:
    learning = words(f"{title} {text}")
    lines = page.text.split("\n")
    sections = _sections(page, len(lines))
    if not sections:
        return Owner(page.path, None, _end_of(lines, len(lines)), tuple(page.why) + ("the page has no sections: its end",))

    def score(section: tuple[str, int, int]) -> int:
        heading, start, end = section
        own = "\n".join(lines[start + 1:end])
        mentioned = sum(target in own for target in targets)
        return 10 * mentioned + 2 * len(learning & words(heading)) + min(len(learning & words(own)), _BODY_CAP)

    heading, start, end = max(sections, key=lambda s: (score(s), -s[1]))
    return Owner(page.path, heading, _end_of(lines, end), tuple(page.why) + (f"section {heading!r}",))


def _sections(page: _Candidate, total: int) -> list[tuple[str, int, int]]:
    """(heading, its line, the line where its own text ends) for each section, in page lines.
    A lone top-level heading (the page's title) is not a section when others follow it."""
    found = headings(page.body)
    if len(found) > 1 and found[0][1] == 1 and all(level > 1 for _, level, _ in found[1:]):
        found = found[1:]
    sections = []
    for index, (number, _, heading) in enumerate(found):
        start = page.body_start + number
        end = page.body_start + found[index + 1][0] if index + 1 < len(found) else total
        sections.append((heading, start, end))
    return sections


def _end_of(lines: list[str], end: int) -> int:
    """The line before which text added at the end of lines[..end] goes: after its last
    non-blank line (a final empty string of a text ending in a newline counts as blank)."""
    line = end
    while line > 0 and not lines[line - 1].strip():
        line -= 1
    return line
