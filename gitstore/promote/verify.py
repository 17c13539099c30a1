"""Verification before promotion, by a different authority than the consolidator that proposed.

Every check re-derives its verdict from the store's records and from the commit the promotion
lands on; none takes the proposer's word (its audience, its targets) on trust. A check that fails
raises ``Stopped`` naming the claim and the check, before anything is written.

- ``accepted``: the history is intact and its newest version was accepted by a person (the
  auto-safe gate's acceptance is not human review);
- ``review-digest``: the decision names the reviewDigest of the version reviewed, and the
  accepted version's digests are what its content says;
- ``active``: the learning is in force for ``PURPOSE`` (not retired, replaced, expired, and its
  evidence still consented);
- ``audience``: a project claim holds no home path, machine name, credential or harness
  specifics, and neither does its evidence (no home path, machine name or credential);
- ``citations``: every path and symbol the claim cites, and every target, exists at the commit;
- ``safety``: the safety scanner finds nothing in the rendered text (what it only warns of,
  look-alike words, is reported with the checks, not a reason to stop).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from gitstore.errors import Refused
from gitstore.promote import audience
from gitstore.promote.blocks import Citation, marker
from gitstore.promote.snapshot import Snapshot
from gitstore.records.contracts import content_digest, review_digest
from gitstore.records.headline import name_of
from gitstore.records.identity import is_person
from gitstore.rules.active import evaluate
from gitstore.rules.lifecycle import History, checked
from gitstore.rules.view import View
from gitstore.scope import admits, same_scope

PURPOSE = "instruction"  # promoted text is read by agents, as recall is
MAX_SOURCES = 16
MAX_TESTS = 4
_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
# a whole path: an optional leading ``/`` (the repository's root), folders (``.`` and ``..``
# among them), then an optional file name with a type; never a part of a longer token
_BARE_PATH = re.compile(
    r"(?<![\w@:/.~-])(/?(?:(?:\.\.?|\.?[\w-][\w.-]*)/)+(?:[\w-][\w.-]*\.[A-Za-z0-9]{1,8})?)(?![\w/-])")
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s[^)]*)?\)")  # a Markdown link's target: the wiki gate resolves it from the page
_SYMBOL = re.compile(r"^[A-Za-z_]\w*(?:(?:\.|::|#)[A-Za-z_]\w*)*(?:\(\))?\Z")
_LINE_SUFFIX = re.compile(r":\d+(?:-\d+)?$")


class Stopped(Refused):
    """A verification check failed; nothing was written. It names the learning by its id and
    ``name``, the title it is named by (``gitstore.records.headline.name_of``), as the scanner
    lets it be shown (:func:`claim_of`); never by a title as stored, which a clone that ran no
    scanner may have written."""

    def __init__(self, learning: dict[str, Any] | str, check: str, reason: str, name: str | None = None) -> None:
        claim = claim_of(learning["id"], name) if isinstance(learning, dict) else learning
        super().__init__(f"promotion of {claim} stopped at {check}: {reason}; nothing was written")
        self.check = check


def claim_of(learning_id: str, name: str | None) -> str:
    """A learning as a refusal names it: its id and ``name`` screened as ``gitstore learnings``
    shows a title (secrets and home paths redacted; a name the scanner quarantines is replaced
    by the kinds it found), or its id alone when no name is given."""
    if name is None:
        return learning_id
    from gitstore.queries.learnings import screened

    shown, withheld = screened("title", name)
    if withheld is not None:
        return f"{learning_id} (its title withheld: {', '.join(withheld.kinds)})"
    return f"{learning_id} ({shown!r})"


def history_of(view: View, learning_id: str) -> History:
    """The learning's checked history; stops when it is unknown or broken."""
    try:
        return checked(view.learnings, learning_id, view.saw, view.copies)
    except Refused as exc:
        if learning_id not in view.learnings:
            raise
        raise Stopped(learning_id, "accepted", str(exc)) from None


def check_accepted(history: History) -> dict[str, Any]:
    """The accepted version; stops unless a person accepted it and nothing came after."""
    current, name = history.current, name_of(history)
    if current["audience"] == "personal":
        raise Stopped(current, "audience", "it is personal, and personal learnings are never promoted", name)
    if current["state"] != "accepted":
        why = "the auto-safe gate's acceptance is not human review" if current["state"].startswith("auto-") else ""
        raise Stopped(current, "accepted", f"it is {current['state']}, not accepted" + (f" ({why})" if why else ""),
                      name)
    if not is_person(current["decision"]["by"]):
        from gitstore.queries.learnings import screened_name

        by = screened_name("decision.by", current["decision"]["by"])[0]  # a name any clone that can push chose
        raise Stopped(current, "accepted", f"{by} is not a person", name)
    return current


def check_review(history: History) -> None:
    """The decision names what was reviewed, and the accepted version says what its digests say."""
    current, name = history.current, name_of(history)
    prior = history.chain[history.intact - 2].record
    if current["decision"]["reviewDigest"] != prior["reviewDigest"]:
        raise Stopped(current, "review-digest", "the acceptance names a reviewDigest that was never shown", name)
    if current["reviewDigest"] != review_digest(current) or current["contentDigest"] != content_digest(current):
        raise Stopped(current, "review-digest", "its digests do not match what it says", name)


def check_active(view: View, learning: dict[str, Any], name: str) -> None:
    """Stops unless the learning (named ``name``) is in force for ``PURPOSE``."""
    status = evaluate(view, PURPOSE)[learning["id"]]
    if not status.usable:
        raise Stopped(learning, "active", f"it is not in force for {PURPOSE}: {'; '.join(status.reasons)}", name)


def check_audience(view: View, learning: dict[str, Any], name: str) -> None:
    """A project claim must stand on the repository alone: its text, the title it is named by
    (``name``: ``gitstore.records.headline.name_of``; a title an edit at accept left behind is
    promoted nowhere) and its evidence."""
    if learning["audience"] != "project":
        return
    found = audience.claim_traces(name, learning["content"]["text"])
    found += audience.evidence_traces(_evidence_texts(view, learning))
    home = view.home if view.home is not None else view.scope  # with the former scopes declared: this repository
    foreign = sorted({r["pin"]["repository"] for r in learning["evidence"]
                      if not same_scope(r["pin"]["repository"], learning["scope"])
                      and not admits(home, r["pin"]["repository"])})
    if foreign:
        found.append(f"evidence pinned to another repository ({', '.join(foreign)})")
    if found:
        raise Stopped(learning, "audience", "a project claim must stand on the repository alone, but "
                      + "; ".join(found[:4]) + " (promote it as user-tooling)", name)


def _evidence_texts(view: View, learning: dict[str, Any]) -> list[tuple[str, str]]:
    texts = []
    for ref in learning["evidence"]:
        for event_id in ref["events"]:
            payload = (view.events.get(event_id) or {}).get("payload") or {}
            parts = [payload.get("text", ""), payload.get("command", ""), payload.get("path", "")]
            texts.append((event_id, "\n".join(p for p in parts if p)))
    return texts


def cited_names(text: str) -> tuple[list[str], list[str]]:
    """The paths and the symbols a claim cites: code spans that look like a path or an
    identifier, and bare paths (a/b/ or a/b.ext, /a/b.ext, a/./b.ext) outside code spans and
    link targets, each read whole."""
    paths: list[str] = []
    symbols: list[str] = []
    for _, span in _SPAN.findall(text):
        name = _LINE_SUFFIX.sub("", span.strip())
        if not name or " " in name:
            continue
        if "/" in name or name.rsplit(".", 1)[-1] in _FILE_TYPES and "." in name:
            paths.append(name)
        elif _SYMBOL.match(name):
            symbols.append(name)
    for token in _BARE_PATH.findall(_LINK_TARGET.sub("]", _SPAN.sub(" ", text))):
        first = token.lstrip("/").split("/", 1)[0]
        if "." in first.lstrip("."):
            continue  # a host name (example.com/x), not a path of the repository
        paths.append(token)
    return list(dict.fromkeys(paths)), list(dict.fromkeys(symbols))


_FILE_TYPES = frozenset(
    "py md txt json jsonl toml yaml yml cfg ini sh js ts tsx jsx go rs c h cc cpp hpp java kt rb php cs "
    "sql html css scss lock mk rst xml csv proto swift gradle".split()
)


def check_citations(snapshot: Snapshot, view: View, learning: dict[str, Any], name: str) -> list[Citation]:
    """Stops when a target, or a path or symbol the text or ``name`` (the title the learning is
    named by) cites, is missing at the commit; returns the citations a reader can check: files
    at the commit, observed test runs, the learning."""
    base = snapshot.id
    missing = [t for t in learning["targets"] if not snapshot.exists(t)]
    cited, symbols = cited_names(f"{name}\n{learning['content']['text']}")
    cited = [p for p in cited if not _off_the_repository(snapshot, p)]
    leaving = [p for p in cited if in_repository(p) is None]
    if leaving:
        raise Stopped(learning, "citations", f"it cites {', '.join(leaving)}, which "
                      f"{'leads' if len(leaving) == 1 else 'lead'} outside the repository", name)
    paths = [in_repository(p) or "" for p in cited]
    missing += [c for c, p in zip(cited, paths) if not _path_exists(snapshot, c, p)]
    if missing:
        raise Stopped(learning, "citations", f"it cites {', '.join(missing)}, which "
                      f"{'does' if len(missing) == 1 else 'do'} not exist at {base[:12]}", name)
    files = [t for t in learning["targets"] if snapshot.read(t) is not None]
    where = files or None
    absent = [s for s in symbols if not snapshot.has_word(_symbol_word(s), where)]
    if absent and where:
        absent = [s for s in absent if not snapshot.has_word(_symbol_word(s))]
    if absent:
        raise Stopped(learning, "citations", f"it cites {', '.join(absent)}, found nowhere at {base[:12]}", name)
    found = [p.rstrip("/") for c, p in zip(cited, paths) if "/" in c]
    sources = [p for p in dict.fromkeys(files + found) if snapshot.read(p) is not None]
    citations = [Citation("source", f"{p}@{base}") for p in sources[:MAX_SOURCES]]
    citations += _tests(view, learning)
    citations.append(Citation("learning", f"{learning['id']}@{learning['contentDigest']}"))
    return citations


def _off_the_repository(snapshot: Snapshot, cited: str) -> bool:
    """Whether a path from a root names the machine's files or a URL's (``/etc/app.conf``,
    ``/var/log/app.log``, ``/api/users/1.json``), not the repository's: its first folder is none
    of the commit's. ``/src/x.py`` where ``src/`` is one is the repository's, and is checked."""
    if not cited.startswith("/"):
        return False
    first = cited.lstrip("/").split("/", 1)[0]
    return first not in (".", "..") and not snapshot.exists(f"{first}/")


def in_repository(path: str) -> str | None:
    """A cited path as the repository's root reads it (a leading ``/`` is that root, ``.`` and
    ``..`` segments resolved, a trailing ``/`` kept), or None when it leads outside the
    repository. A name without ``/`` stays as it is: it names a file in any folder."""
    if "/" not in path:
        return path
    folder = path.endswith("/")
    resolved = posixpath.normpath(path.lstrip("/"))
    if resolved == ".." or resolved.startswith("../"):
        return None
    if resolved == ".":
        return ""
    return resolved + "/" if folder else resolved


def _path_exists(snapshot: Snapshot, cited: str, path: str) -> bool:
    """Whether ``path`` (``cited`` as the root reads it) is at the commit: a bare file name may
    be in any folder."""
    return snapshot.exists(path) if "/" in cited else snapshot.has_file_named(path)


def _symbol_word(symbol: str) -> str:
    return re.split(r"\.|::|#", symbol.removesuffix("()"))[-1]


def _tests(view: View, learning: dict[str, Any]) -> list[Citation]:
    found = []
    for ref in learning["evidence"]:
        for event_id in ref["events"]:
            payload = (view.events.get(event_id) or {}).get("payload") or {}
            command, code = payload.get("command"), payload.get("exitCode")
            if isinstance(command, str) and isinstance(code, int) and "\n" not in command and len(command) < 400:
                found.append(Citation("test", f"{command} -> exit {code}"))
    return list(dict.fromkeys(found))[:MAX_TESTS]


def check_safety(learning: dict[str, Any], texts: list[str], name: str | None = None) -> str | None:
    """Stops when delivery would give agents none of the learning (``withheld_why``: what the
    scanner finds only in its title and text read together, such as a password its title names
    over a bare value, which a skill's description writes side by side), or when the safety
    scanner finds anything (hidden text, injection, secret) in what would be written; returns
    what it only warns of (look-alike words, spelled out), or None. A warning does not stop a
    promotion, as the ``gitstore-scan`` gate passes a file it only warns of: the person
    reviewing the promotion is told instead."""
    from gitstore.deliver.build import withheld_why
    from gitstore.safety.hidden import mixed_script_warning
    from gitstore.safety.scanner import WARN, default_scanner

    withheld = withheld_why(learning, name) if name is not None else None
    if withheld:
        raise Stopped(learning, "safety", f"agents are given none of it ({withheld}), and a promoted file would give "
                      "it to every agent reading the repository", name)
    scanner = default_scanner()
    warned: set[str] = set()
    own = marker(learning["id"], learning["contentDigest"]) if "contentDigest" in learning else None
    for text in texts:
        # the block's marker is promote's own, holding ids alone; any other gitstore marker, in
        # the learning's text, is words hidden from the people reading the page (hidden-markup)
        result = scanner.scan(text.replace(own, "") if own else text)
        found = sorted({f"{f.action} {f.kind}" for f in result.findings if f.action != WARN})
        if found:
            raise Stopped(learning, "safety", f"the safety scanner found {', '.join(found)} in the rendered text",
                          name)
        warned.update(f.kind for f in result.findings if f.action == WARN)
    lines = [mixed_script_warning(*texts) if kind == "mixed-script" else kind for kind in sorted(warned)]
    return "; ".join(line for line in lines if line) or None
