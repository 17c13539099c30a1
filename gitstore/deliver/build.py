"""Building recall's index from the store (the slow path: it reads every learning).

One build reads the store through the rules (``gitstore.rules.active`` for the purpose
``instruction``: accepted or auto-active, not replaced, not expired, every piece of evidence
still serving; one whose ``validFrom`` has not come yet is indexed too, since the query
compares validity dates with the clock and no ref moves when that day comes), from the view
``gitstore learnings --active`` judges with: every learning, grant and
withdrawal, and of the evidence only what the learnings that may be in force cite (their
episodes, the events the rules look at, the payloads of the cited ones). It scans every text
an agent could be shown or that scoring reads (title, text, targets, evidence excerpts) with
the safety scanner, and the one line agents get of a learning (``scanned_line``: kept as the
scanner leaves it, redacted, each look-alike word marked: ``marked``), leaves out whatever it
quarantines (recorded by kind only), and writes a fresh SQLite file that replaces the old one
in one rename, so a reader sees the old index or the new one, never half of either. Builds are
serialised by a lock.

Where the cache folder cannot be written (a checkout a sandbox mounts read-only, one of another
user's), a reader builds the same index in memory for itself (``in_memory``): it gets the
learnings a writable checkout gives, paying for a build each time.

It also checks what the agent hook cannot afford to: that git ignores ``okf/.memory/`` and does
not track ``config.json``. If it does, this checkout's gitstore state came from the repository
itself (a repository can commit such files), so the index records that delivery is inert here.
"""

from __future__ import annotations

import bisect
import fcntl
import os
import re
import sqlite3
import threading
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitstore._files import discard, held
from gitstore.deliver import heads
from gitstore.deliver import index as idx
from gitstore.deliver.place import Place
from gitstore.deliver.recall import LOOKALIKE
from gitstore.deliver.terms import target_terms, terms
from gitstore.errors import GitstoreError
from gitstore.records.headline import headline, title_for

if TYPE_CHECKING:
    from gitstore.context import Context

EXCERPT_CHARS = 500
MAX_EXCERPTS = 8
MAX_SOURCES = 3


@dataclass
class Built:
    """What a build indexed and what it left out."""

    path: str
    fingerprint: str
    count: int
    dropped: list[tuple[str, str, str]] = field(default_factory=list)
    inert: str | None = None
    seconds: float = 0.0


def build_lock(place: Place, wait: bool = True) -> AbstractContextManager[bool]:
    """The build lock: yields True when held (False only when ``wait`` is off and it is taken);
    Untrusted where a link stands on the way to it."""
    idx.refuse_links(place)
    os.makedirs(idx.folder(place), exist_ok=True)
    return held(idx.lock_path(place), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))


def fresh(place: Place) -> bool:
    current = heads.fingerprint(place)
    found = idx.open_index(place, current)
    if found is None:
        return False
    found.close()
    return True


def ensure(place: Place) -> Built | None:
    """Build the index unless it is current; returns the build, or None when it was current."""
    if fresh(place):
        return None
    with build_lock(place):
        if fresh(place):  # another process built it while this one waited
            return None
        return build(place)


def current(place: Place) -> idx.Index | None:
    """The index for the store's current state, open: the cache's, built there first unless it
    is current, or, where the cache folder cannot be written, one built in memory for this
    reader. None when the store moved while the cache's was being built (ask again)."""
    if not idx.writable(place):
        return in_memory(place)
    try:
        ensure(place)
    except OSError as exc:  # the lock could be taken, yet the index or the secret (in the git folder) cannot be written
        if exc.errno not in idx.UNWRITABLE:
            raise
        return in_memory(place)
    return idx.open_index(place, heads.fingerprint(place))


def build(place: Place) -> Built:
    """Build the index for the store's current state."""
    started = time.monotonic()
    heads.make_salt(place)
    built, rows, evidence = _read(place, keyed=True)
    _write(place, built, rows, evidence)
    built.seconds = time.monotonic() - started
    return built


_PROCESS_SALT = os.urandom(heads.SALT_BYTES).hex()  # keys what this process keeps in memory; never written
_in_memory_lock = threading.Lock()
_in_memory_kept: dict[str, tuple[str, bytes]] = {}  # root -> (the state it was built for, its bytes): one


def in_memory(place: Place) -> idx.Index:
    """The index for the store's current state built in memory, for this process alone, read
    and checked as ``build`` reads and checks it (nothing is written: no secret, no file). A
    process builds one at a time and keeps the last it built, used while the store's state
    (``heads.state``, keyed by a secret of the process) stays as it was: the MCP server, one
    long reader, answered each call with a build of its own, as many at once as the calls a
    client sent at once (a build of a large store takes seconds and hundreds of megabytes)."""
    with _in_memory_lock:
        key = heads.digest(heads.state(place, _PROCESS_SALT))  # read before the records, as ``build`` reads it
        kept = _in_memory_kept.get(place.root)
        if key is None or kept is None or kept[0] != key:
            kept = (key or "", _built_in_memory(place))
            _in_memory_kept.clear()  # the last one only: a process reads one repository's memory
            if key is not None:
                _in_memory_kept[place.root] = kept
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(kept[1])
    except BaseException:
        db.close()
        raise
    return idx.Index(db)


def _built_in_memory(place: Place) -> bytes:
    """The bytes of an index of the store's current state, built in memory."""
    built, rows, evidence = _read(place, keyed=False)
    db = sqlite3.connect(":memory:")
    try:
        _fill(db, rows, built.fingerprint, built.dropped, built.inert, evidence)
        return db.serialize()
    finally:
        db.close()


def _read(place: Place, keyed: bool) -> tuple[Built, list[dict[str, Any]], frozenset[str] | None]:
    """What an index of the store's current state holds; ``keyed``: it is kept, so it needs
    the fingerprint it is used under (one kept in memory is used once, at once)."""
    from gitstore.context import Context

    inert = _untrusted(place)
    # opened before the key is read: a folder copied whole takes a writer id of its own here,
    # rewriting its configuration, which the key covers (read after, the index is stale at once);
    # and what a plain fetch brought admitted before it too: the first read admits it, moving
    # refs the key covers. Read before the records, the key never makes an index of a state an
    # append left behind look current.
    context = None if inert else Context.open(place.root)
    if context is not None:
        context.store.admit()
    fingerprint = heads.fingerprint(place)
    if place.provider == "memory" or (keyed and fingerprint is None):
        raise RuntimeError(f"the {place.provider} provider keeps no state an index could be keyed to")
    rows, dropped, evidence = ([], [], frozenset[str]()) if context is None else _rows(context)
    return Built(idx.path(place), fingerprint or "", len(rows), dropped, inert), rows, evidence


def _untrusted(place: Place) -> str | None:
    from gitstore.deliver.limits import Untrusted
    from gitstore.deliver.place import check_trusted

    try:
        check_trusted(place)
    except Untrusted as exc:
        return str(exc)
    return None


# -- rows ----------------------------------------------------------------------------------------

def _rows(context: Context) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]], frozenset[str] | None]:
    """The rows, what the scanner left out, and the only episodes whose records the rows
    depend on (None: any episode's)."""
    from gitstore.queries._views import in_force_view
    from gitstore.rules.active import active
    from gitstore.safety.scanner import default_scanner

    view, _ = in_force_view(context.store)
    scanner = default_scanner()
    rows, dropped = [], []
    for status, record in active(view, "instruction", upcoming=True):  # dates are compared when it is read
        row = _row(view, status.trust, record, scanner)
        if isinstance(row, str):
            dropped.append((record["id"], record["contentDigest"], row))
        else:
            rows.append(row)
    return rows, dropped, view.episodes_read


def screened(view: Any, record: dict[str, Any], scanner: Any) -> dict[str, str] | str:
    """A learning's texts as the scanner leaves them (title, text, targets, each evidence
    excerpt, secrets redacted), or why it quarantined one: then the learning is unsafe and
    reaches no agent. The title is the one the learning is named by (``name_in``): a title an
    edit at accept left behind names nothing and is given to no one, so its words keep no
    accepted text from agents."""
    texts = _texts(record, name_in(view, record))
    excerpts = _excerpts(view, record)
    return _screened_texts({**texts, **{f"evidence {i + 1}": t for i, t in enumerate(excerpts)}}, scanner)


def _texts(record: dict[str, Any], name: str) -> dict[str, str]:
    """The texts of ``record``, named ``name``, an agent may be shown, its evidence aside."""
    return {"title": name, "text": record["content"]["text"], "targets": "\n".join(record["targets"])}


def _screened_texts(texts: dict[str, str], scanner: Any) -> dict[str, str] | str:
    found: dict[str, str] = {}
    for name, text in texts.items():
        result = scanner.scan(text)
        if result.quarantined:
            kinds = sorted({f.kind for f in result.findings if f.action == "quarantine"})
            return f"unsafe {name.split()[0]}: {', '.join(kinds)}"
        found[name] = result.text
    return found


def withheld_why(record: dict[str, Any], name: str) -> str | None:
    """Why recall, the context hook, the MCP server and publishing would give agents none of
    ``record``, named ``name`` (``gitstore.records.headline.title_for``), its evidence aside:
    what the scan of its texts (``screened``) or of its line read with its name
    (``scanned_line``) quarantines, by kind only; None when both pass it. ``gitstore accept``
    says so before a person takes it that agents get what they accepted."""
    from gitstore.safety.scanner import default_scanner

    scanner = default_scanner()
    texts = _screened_texts(_texts(record, name), scanner)
    if isinstance(texts, str):
        return texts
    line = scanned_line(scanner, texts["text"], texts["title"])
    return line if isinstance(line, str) else None


def _row(view: Any, trust: str, record: dict[str, Any], scanner: Any) -> dict[str, Any] | str:
    """The index row of one learning, or why the scanner left it out."""
    texts = screened(view, record, scanner)
    if isinstance(texts, str):
        return texts
    line = scanned_line(scanner, texts["text"], texts["title"])
    if isinstance(line, str):
        return line
    found = row(record["id"], record["contentDigest"], trust, named(view, record, texts), texts["text"],
                texts["targets"],
                [v for k, v in texts.items() if k.startswith("evidence")], _sources(view, record),
                record["validFrom"], record["validUntil"], record["category"], record["audience"])
    if line[0] != found["text"]:  # redacted on the line agents get: none of what went stays a search term
        kept = set(terms(line[0]))
        for part in ("title", "body"):
            found["terms"][part] = [term for term in found["terms"][part] if term in kept]
        found["text"] = line[0]
    found["text"] = marked(found["text"])
    return found


def named(view: Any, record: dict[str, Any], texts: dict[str, str]) -> str:
    """The title recall scores a learning by, as the scanner leaves it: the one it is named by
    (``gitstore.records.headline.title_for``): its own, or, once a person edited its text at
    accept, the headline of the text they accepted. A title stays as proposed when the text is
    edited, so its words can state what the edit corrected: weighed as the title, they would
    recall the learning on a claim a person took out of it, and the accepted text's first words
    would get no title weight."""
    if name_in(view, record) == record["content"]["title"]:
        return texts["title"]
    return headline(texts["text"])  # the scanned text's, so nothing the scanner redacted becomes a term


def name_in(view: Any, record: dict[str, Any]) -> str:
    """The title ``record`` is named by (``gitstore.records.headline.title_for``), its proposed
    text read from its history in ``view`` (its own text when ``view`` holds none)."""
    content = record["content"]
    history = view.histories().get(record["id"])
    proposed = history.chain[0].record["content"]["text"] if history is not None and history.chain else content["text"]
    return title_for(content, proposed)


def marked(line: str) -> str:
    """``line`` with each word mixing Latin letters with look-alikes of another alphabet or
    small capitals (the scanner's ``mixed-script`` warning) followed by a mark naming the
    letters to doubt: ``sayНello (look-alike: U+041D CYRILLIC CAPITAL LETTER EN)``. On a
    screen, and to an agent copying it, ``sayНello()`` is ``sayHello()``; the scanner only
    warns of it (text in several scripts is legitimate), so what agents read says so. Plain
    text, the same for the same line; the learning's own text, which its contentDigest binds,
    is never changed: only the line agents are given (recall, the context hook, the MCP server,
    a published section)."""
    from gitstore.safety.hidden import lookalike_letters, mixed_script_spans

    parts, position = [], 0
    for start, end in mixed_script_spans(line):
        word = line[start:end]
        parts += [line[position:end], f"{LOOKALIKE}{', '.join(lookalike_letters(word))})"]
        position = end
    return "".join(parts) + line[position:] if parts else line


def line_of(text: str) -> str:
    """A learning on the one line agents read it (recall, the context hook, the MCP server, a
    published section): its text, every run of white space, line breaks too, one space, naming
    no learning as a citation does (``uncited``). The text alone: it is what a person accepted
    (an edit at accept changes it, and only it), while the title is a label for people listing
    learnings, one a person may never have changed, so it never stands before the text as fact."""
    return uncited(" ".join(text.split()))


def legacy_line(title: str, text: str) -> str:
    """The line gitstore wrote for a learning before it gave agents the text alone (``title:
    text``): a published entry holding it is gitstore's own, brought up to date, never one
    changed by hand."""
    return uncited(" ".join(f"{title.strip()}: {text.strip()}".split()))


# a bracket a learning's id opens, spaces aside: the shape of the list ending a published line
# (``[lrn_...]``) and of the provenance after a delivered item (``(lrn_...; accepted by ...)``),
# full-width and other brackets as a reader takes them too; or one holding, before it closes,
# the words of that provenance that vouch for a learning: who accepted it (``accepted by a
# person``; an auto-safe one's label says ``not reviewed by a person``) and ``evidence:``
_OPEN, _CLOSE = "[({\uff3b\uff08\uff5b\u3010\u3014\u27e6", ")]}\uff3d\uff09\uff5d\u3011\u3015\u27e7"
_OPENING = re.compile(rf"[{re.escape(_OPEN)}]\s*")
_CLOSING = re.compile(rf"[{re.escape(_CLOSE)}]")
_ID = re.compile(r"lrn_[0-9a-f]{32}", re.IGNORECASE)
_PROVENANCE = re.compile(r"(?:accepted|reviewed)\s+by\s+a\s+person|evidence\s*[:\uff1a]", re.IGNORECASE)
_QUOTED = "quoted: "


def uncited(line: str) -> str:
    """``line`` with every bracket a learning's id opens read as prose (``[see lrn_...]``), and
    every one holding a word of a delivered item's provenance read as the text's own words
    (``(quoted: accepted by a person; ...)``): only gitstore writes a learning's id in that
    place, after a line, to say which learnings the line comes from, and only gitstore says, after
    a learning's text, who accepted it and where its evidence came from. A title or text in
    that shape would have its line seem to cite a learning it does not, and go on naming one
    retired since as if it still gave it, or have an auto-safe learning read as accepted by a
    person before its real provenance. Other brackets are left as they are, and a line read
    again is left as it is."""
    words = [m.start() for m in _PROVENANCE.finditer(line)]
    closes = [m.start() for m in _CLOSING.finditer(line)]
    parts, position = [], 0
    for opening in _OPENING.finditer(line):
        at = opening.end()
        if _ID.match(line, at):
            said = "see "
        elif line[at:at + len(_QUOTED)].lower() != _QUOTED and _holds(words, closes, at):
            said = _QUOTED
        else:
            continue
        parts += [line[position:opening.start() + 1], said]
        position = at
    return "".join(parts) + line[position:] if parts else line


def _holds(words: list[int], closes: list[int], at: int) -> bool:
    """Whether a word of provenance (its starts: ``words``) begins at ``at`` or after it, before
    the next closing bracket (``closes``): both lists sorted, so each bracket costs a lookup."""
    word = bisect.bisect_left(words, at)
    if word == len(words):
        return False
    close = bisect.bisect_left(closes, at)
    return close == len(closes) or words[word] < closes[close]


# a comment of gitstore's own (a published section's begin and end, a promoted block's marker),
# however spaced or cased: only gitstore writes one, on a line of its own, in a file
_MARKER = re.compile(r"<!--[\s-]*gitstore:", re.IGNORECASE)


def scanned_line(scanner: Any, text: str, title: str | None = None) -> tuple[str, set[str]] | str:
    """``line_of(text)`` as the scanner leaves it and the kinds it redacted there, or why it
    quarantined it. The text is read whole twice: with its own line breaks, then on one line, as
    agents get it (a key and its value a line break parted, which the scanner reads apart, meet
    there). Given the learning's ``title``, the learning is also read whole, ``title: text``: a
    title is never given to agents, but it can name what the text holds (``Deploy password`` over
    a bare value), so what the scanner finds only with both (anything quarantined, or more to
    redact than in each alone) makes the learning unsafe, never a line to cut. A text or title
    holding a gitstore marker comment (``<!-- gitstore:learnings:end -->``, even in a code span,
    which the scanner lets pass as shown) is unsafe too: written into a published section, it
    would close the section for an agent reading the file raw, and what follows would read as the
    file's own text."""
    if _MARKER.search(text) or (title is not None and _MARKER.search(title)):
        return "unsafe text: it holds a gitstore marker (<!-- gitstore:... -->)"
    found = _scanned(scanner, text.strip())
    if isinstance(found, str):
        return found
    if title is not None:
        together = _scanned(scanner, f"{title.strip()}: {text.strip()}")
        if isinstance(together, str):
            return f"{together} when read with its title"
        alone = _scanned(scanner, title.strip())
        if isinstance(alone, str):
            return "unsafe title"
        if len(together[1]) > len(alone[1]) + len(found[1]):
            return f"unsafe text: {', '.join(sorted(set(together[1])))} when read with its title"
    return found[0], set(found[1])


def _scanned(scanner: Any, text: str) -> tuple[str, list[str]] | str:
    """``text`` read as ``scanned_line`` reads it: what the scanner leaves and the kind of each
    finding it redacted, or why it quarantined it."""
    redacted: list[str] = []
    found = text
    for on_one_line in (False, True):
        result = scanner.scan(uncited(" ".join(found.split())) if on_one_line else found)
        if result.quarantined:
            kinds = sorted({f.kind for f in result.findings if f.action == "quarantine"})
            return f"unsafe text: {', '.join(kinds)}"
        redacted += [f.kind for f in result.findings if f.action == "redact"]
        found = result.text
    return found, redacted


def row(learning_id: str, digest: str, trust: str, title: str, text: str, targets: str, excerpts: list[str],
        sources: list[str], valid_from: str | None = None, valid_until: str | None = None,
        category: str = "convention", audience: str = "project") -> dict[str, Any]:
    """An index row from texts the scanner already passed; ``targets`` one a line."""
    return {
        "id": learning_id, "digest": digest, "trust": trust, "text": line_of(text),
        "sources": "\n".join(s.replace("\n", " ") for s in sources), "valid_from": valid_from, "valid_until": valid_until,
        "category": category, "audience": audience,
        "terms": {"title": terms(title), "body": terms(text), "targets": target_terms(targets.splitlines()),
                  "evidence": terms(" ".join(excerpts))},
    }


def _excerpts(view: Any, record: dict[str, Any]) -> list[str]:
    found = []
    for ref in record["evidence"]:
        for event_id in ref["events"]:
            payload = view.events.get(event_id, {}).get("payload") or {}
            text = payload.get("text") if isinstance(payload, dict) else None
            if isinstance(text, str) and text.strip():
                found.append(text[:EXCERPT_CHARS])
    return found[:MAX_EXCERPTS]


def _sources(view: Any, record: dict[str, Any]) -> list[str]:
    """Where the evidence came from, shortest first: ``review-thread #42``, ``agent-session``."""
    found: list[str] = []
    for ref in record["evidence"]:
        episode = view.episodes.get(ref["episode"], {})
        kind = episode.get("source", {}).get("kind", "evidence")
        pull = ref["pin"].get("pullRequest")
        name = f"{kind} #{pull}" if pull else kind
        if name not in found:
            found.append(name)
    return found[:MAX_SOURCES]


# -- writing -------------------------------------------------------------------------------------

def _write(place: Place, built: Built, rows: list[dict[str, Any]], evidence: frozenset[str] | None) -> None:
    idx.refuse_links(place)  # checked again: the lock's holder may have waited while a checkout changed it
    os.makedirs(idx.folder(place), exist_ok=True)
    write_index(built.path, rows, built.fingerprint, built.dropped, built.inert, evidence)


def write_index(path: str, rows: list[dict[str, Any]], fingerprint: str,
                dropped: list[tuple[str, str, str]] | None = None, inert: str | None = None,
                evidence: frozenset[str] | None = None) -> None:
    """Write an index file (to a temporary name, then renamed over ``path``). ``evidence``:
    the only episodes whose records the rows depend on (None: any episode's); see
    ``gitstore.deliver.carry``."""
    temp = f"{path}.{os.getpid()}.tmp"
    if os.path.exists(temp):
        os.unlink(temp)
    try:
        # made first: a folder that cannot take it says why (read-only, not ours), SQLite only "unable to open"
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644))
        db = sqlite3.connect(temp)
        try:
            _fill(db, rows, fingerprint, dropped, inert, evidence)
        finally:
            db.close()
        os.replace(temp, path)
    except BaseException as exc:
        discard(temp)
        if isinstance(exc, sqlite3.Error):  # the disk full, the folder read-only
            raise GitstoreError(f"{path}: cannot write recall's index ({exc})") from None
        raise


def _fill(db: sqlite3.Connection, rows: list[dict[str, Any]], fingerprint: str,
          dropped: list[tuple[str, str, str]] | None, inert: str | None, evidence: frozenset[str] | None) -> None:
    """Fill an empty database ``db`` with the index."""
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + idx.SCHEMA)
    lengths = {f: 0 for f in idx.FIELDS}
    for n, entry in enumerate(rows, start=1):
        db.execute("INSERT INTO learning VALUES (?,?,?,?,?,?,?,?,?,?)",
                   (n, entry["id"], entry["digest"], entry["trust"], entry["text"], entry["sources"],
                    entry["valid_from"], entry["valid_until"], entry["category"], entry["audience"]))
        db.execute("INSERT INTO doc(rowid, title, body, targets, evidence) VALUES (?,?,?,?,?)",
                   (n, *(" ".join(entry["terms"][f]) for f in idx.FIELDS)))
        for f in idx.FIELDS:
            lengths[f] += len(entry["terms"][f])
    db.executemany("INSERT INTO dropped VALUES (?,?,?)", dropped or [])
    db.executemany("INSERT INTO evidence VALUES (?)", [(e,) for e in sorted(evidence or ())])
    meta = {"fingerprint": fingerprint, "count": str(len(rows)),
            "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    meta.update({f"avg_{f}": repr(max(lengths[f] / len(rows), 1.0) if rows else 1.0) for f in idx.FIELDS})
    if inert:
        meta["inert"] = inert
    if evidence is not None:
        meta["evidence"] = "listed"
    db.executemany("INSERT INTO meta VALUES (?,?)", sorted(meta.items()))
    db.commit()
