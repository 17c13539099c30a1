"""Recall's disposable index: SQLite FTS5 under ``okf/.memory/cache/``, and how it is searched.

The index holds, for each learning in force for the purpose ``instruction`` whose text passed
the safety scanner when the index was built, its id, contentDigest, trust label, evidence
sources, validity dates, the one bounded text agents see, and its terms by field (title, text,
applicability: the targets it names, evidence: excerpts of the events it cites), segmented by
``gitstore.deliver.terms``. It is never the only copy of anything: it is rebuilt from the store
whenever its fingerprint (``gitstore.deliver.heads``) differs from the current one, and removing
it loses nothing.

Scoring is BM25F over the four fields with fixed weights (title 3, applicability 2, text 2,
evidence 1; k1 1.2, b 0.75), with the always-positive inverse document frequency
``ln(1 + (N - n + 0.5) / (n + 0.5))``, so a learning matching the query scores above zero
however small the store. A learning the query meets only in its evidence must share two
distinct terms with it: a review comment holds much besides the learning, and one word of it
(``fixed`` for a prompt to fix something) recalls nothing. Targets hold path terms only
(``gitstore.deliver.terms``): a prompt meets them when it names that file or folder. FTS5 finds the candidates from the query's rarest terms (its own bm25
orders them, best 64 kept), so a query of common words costs no more than one of rare ones;
the score is computed here from each candidate's stored terms, for every query term, with the
document frequencies in FTS5's vocabulary table. Scores are integers (hundredths): no floats
leave recall.
"""

from __future__ import annotations

import errno
import math
import os
from stat import S_ISDIR, S_ISREG

from gitstore.deliver import db as sqlite_db

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gitstore.deliver.place import Place

NAME = "recall.sqlite"
LOCK = "recall.lock"
UNWRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})  # a folder mounted read-only, or not ours to write
FIELDS = ("title", "body", "targets", "evidence")
WEIGHTS = {"title": 3.0, "body": 2.0, "targets": 2.0, "evidence": 1.0}
K1 = 1.2
B = 0.75
CANDIDATES = 64
EVIDENCE_ALONE = 2  # distinct query terms a learning must share with its evidence when nothing else matches:
# a review comment says much besides the learning ("a fixed sleep"), and one word of it ("fix") recalls nothing
POSTINGS = 2_000  # the candidate search reads at most about this many postings (rarest terms first)

SCHEMA = """
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE learning(
    n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, digest TEXT NOT NULL, trust TEXT NOT NULL,
    text TEXT NOT NULL, sources TEXT NOT NULL, valid_from TEXT, valid_until TEXT,
    category TEXT NOT NULL, audience TEXT NOT NULL);
CREATE INDEX learning_audience ON learning(audience);
CREATE TABLE dropped(id TEXT NOT NULL, digest TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE evidence(episode TEXT PRIMARY KEY);
CREATE VIRTUAL TABLE doc USING fts5(title, body, targets, evidence, tokenize="unicode61 remove_diacritics 0");
CREATE VIRTUAL TABLE vocab USING fts5vocab(doc, 'row');
"""


def folder(place: Place) -> str:
    return os.path.join(place.state, "cache")


def path(place: Place) -> str:
    return os.path.join(folder(place), NAME)


def lock_path(place: Place) -> str:
    return os.path.join(folder(place), LOCK)


def refuse_links(place: Place) -> None:
    """Raise Untrusted when a symbolic link stands on the way to the index or its lock (the
    state folder, the cache folder, the files): a commit can put one there, and the index,
    which holds learnings' text, would be written wherever it points (a tracked folder of the
    repository, where a commit of everything would share it)."""
    from gitstore.deliver.place import STATE, refuse_links as refuse

    for name in (NAME, LOCK):
        refuse(place.root, STATE, "cache", name)


def refuse_folders(place: Place) -> None:
    """Raise a gitstore error naming it, and what mends it, when a folder stands where the index
    or its lock belongs, or a file where the cache folder does: nothing gitstore makes, and no
    build could ever replace it (each failed naming only its temporary file, the lock or the
    folder, on every prompt). A disposable cache's place, yet a folder or a file may be someone's:
    it is named, never removed. (A FIFO or a device at the index or the lock is never read:
    ``_stamp``, ``_building``; a build's rename replaces one at the index.)"""
    cache = folder(place)
    places: list[tuple[str, str, str, Callable[[int], bool]]] = [
        (cache, "a file", "recall's cache folder", lambda mode: not S_ISDIR(mode))]
    places += [(os.path.join(cache, name), "a folder", what, S_ISDIR)
               for name, what in ((NAME, "recall's index"), (LOCK, "the lock of recall's index"))]
    for file, stands, what, wrong in places:
        try:
            found = os.lstat(file)
        except OSError:
            continue
        if wrong(found.st_mode):
            from gitstore.errors import GitstoreError

            error = GitstoreError(f"{file}: {stands} stands where {what} belongs; move it away, and the next "
                                  "delivery builds the index (a disposable cache) again")
            error.loggable = True  # type: ignore[attr-defined] # a path gitstore made: the hook's log says it
            raise error


def writable(place: Place) -> bool:
    """Whether the cache folder can keep an index: False in a checkout mounted read-only (a
    sandbox's) or not this user's to write, where a reader builds one in memory for itself
    (``gitstore.deliver.build.in_memory``). Asked by opening the build lock for writing, the
    first thing a build writes; never through a link (Untrusted), nor where a folder stands in
    a file's place (``refuse_folders``)."""
    refuse_links(place)
    refuse_folders(place)
    try:
        os.makedirs(folder(place), exist_ok=True)
        os.close(os.open(lock_path(place), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644))
    except OSError as exc:
        if exc.errno in UNWRITABLE:
            return False
        raise
    return True


class Damaged(Exception):
    """An index whose fingerprint is current but which SQLite cannot read through. ``damaged``:
    the file is (garbage or a cut where its pages were: SQLite's own ``DatabaseError``, neither
    an operational one, such as an I/O error or a lock, nor a misuse). Nothing would ever build
    a damaged one again, its fingerprint matching: being a disposable cache, it is removed
    (``discard``) and built again."""

    def __init__(self, file: str | None, stamp: tuple[int, int] | None, exc: Exception) -> None:
        super().__init__(f"recall's index cannot be read ({' '.join(str(exc).split())[:120]})")
        self.file, self.stamp = file, stamp
        self.damaged = type(exc) is sqlite_db.DatabaseError  # SQLITE_CORRUPT, SQLITE_NOTADB

    def discard(self) -> None:
        """Remove the damaged file, unless another one (a build's) took its place meanwhile."""
        if not self.damaged or self.file is None or self.stamp is None or _stamp(self.file) != self.stamp:
            return
        try:
            os.unlink(self.file)
        except OSError:  # gone already, or not to be removed (a checkout mounted read-only since)
            pass


def _stamp(file: str) -> tuple[int, int] | None:
    """Which file stands at ``file`` (a build renames a new one over it), None when no regular
    file does (a symbolic link, a FIFO, a device: SQLite's read of one can block past any time
    limit, a terminal's taking what the user types)."""
    try:
        found = os.lstat(file)
    except OSError:
        return None
    if not S_ISREG(found.st_mode):
        return None
    return found.st_ino, found.st_mtime_ns


def _reads(method: Any) -> Any:
    """``method`` of an open index, a read SQLite fails raising ``Damaged``."""
    def read(self: Index, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite_db.Error as exc:
            raise Damaged(self.file, self.stamp, exc) from None
    read.__doc__ = method.__doc__
    return read


class Candidate:
    """A learning the query matched, with its score."""

    __slots__ = ("n", "id", "digest", "trust", "text", "sources", "score")

    def __init__(self, row: tuple, score: int) -> None:  # type: ignore[type-arg]
        self.n, self.id, self.digest, self.trust, self.text, self.sources = row[:6]
        self.score = score


class Index:
    """An open, read-only index."""

    def __init__(self, connection: Any, file: str | None = None, stamp: tuple[int, int] | None = None) -> None:
        self.db = connection
        self.file, self.stamp = file, stamp  # the file it was read from (None: built in memory)
        self.meta = dict(connection.execute("SELECT name, value FROM meta"))

    def close(self) -> None:
        self.db.close()

    @property
    def count(self) -> int:
        return int(self.meta.get("count", "0"))

    @_reads
    def search(self, query: list[str], now: str, exclude: frozenset[str] | set[str] = frozenset()) -> list[Candidate]:
        """Learnings matching ``query`` terms, valid at ``now``, best first, zero scores left out;
        learnings whose contentDigest is in ``exclude`` are skipped."""
        if not query or not self.count:
            return []
        frequency = self._document_frequency(query)
        chosen = _selective(query, frequency)
        if not chosen:
            return []
        match = " OR ".join('"' + term.replace('"', '""') + '"' for term in chosen)
        rows = self.db.execute(
            "SELECT rowid, title, body, targets, evidence FROM doc WHERE doc MATCH ? "
            "ORDER BY bm25(doc, 3.0, 2.0, 2.0, 1.0) LIMIT ?", (match, CANDIDATES + len(exclude)),
        ).fetchall()
        if not rows:
            return []
        averages = {f: float(self.meta.get(f"avg_{f}", "1")) or 1.0 for f in FIELDS}
        scored = []
        wanted = set(query)
        for rowid, *fields in rows:
            score = _score(wanted, dict(zip(FIELDS, fields)), frequency, self.count, averages)
            if score > 0:
                scored.append((rowid, score))
        return self._learnings(scored, now, exclude)

    def _document_frequency(self, query: list[str]) -> dict[str, int]:
        marks = ",".join("?" * len(query))
        return dict(self.db.execute(f"SELECT term, doc FROM vocab WHERE term IN ({marks})", query))

    def _learnings(self, scored: list[tuple[int, int]], now: str, exclude: frozenset[str] | set[str]) -> list[Candidate]:
        if not scored:
            return []
        marks = ",".join("?" * len(scored))
        rows = {row[0]: row for row in self.db.execute(
            f"SELECT n, id, digest, trust, text, sources, valid_from, valid_until FROM learning WHERE n IN ({marks})",
            [n for n, _ in scored])}
        found = []
        for n, score in scored:
            row = rows.get(n)
            if row is None or row[2] in exclude:
                continue
            if (row[6] and now < row[6]) or (row[7] and now > row[7]):
                continue
            found.append(Candidate(row, score))
        found.sort(key=lambda c: (-c.score, c.id))
        return found

    @_reads
    def for_other_harnesses(self, harness: str) -> frozenset[str]:
        """The digests of the user-tooling learnings that name another agent harness and not
        ``harness`` ("Claude Code reads CLAUDE.md, so ..."): advice about one harness's
        behaviour, which another harness's agent would follow to no end (``_HARNESS_NAMES``)."""
        found = set()
        for digest, text in self.db.execute("SELECT digest, text FROM learning WHERE audience = 'user-tooling'"):
            named = _harnesses_named(text.lower())
            if named and harness not in named:
                found.add(digest)
        return frozenset(found)

    @_reads
    def learning(self, learning_id: str, now: str) -> Candidate | None:
        """One indexed learning by id (valid now), scored 0: what ``show`` may hand an agent."""
        row = self.db.execute(
            "SELECT n, id, digest, trust, text, sources, valid_from, valid_until FROM learning WHERE id = ?",
            (learning_id,)).fetchone()
        if row is None or (row[6] and now < row[6]) or (row[7] and now > row[7]):
            return None
        return Candidate(row, 0)

    @_reads
    def dropped(self) -> list[tuple[str, str, str]]:
        return list(self.db.execute("SELECT id, digest, reason FROM dropped ORDER BY id"))

    @_reads
    def evidence(self) -> frozenset[str] | None:
        """The only episodes whose records the rows depend on; None: any episode's."""
        if self.meta.get("evidence") != "listed":
            return None
        return frozenset(e for (e,) in self.db.execute("SELECT episode FROM evidence"))


# How a learning names each harness a hook delivers to (lowercased text): its product name as
# people write it (spaced, as its package and command are spelled, joined), its own instructions
# file, its folder (in the project or the home directory: ``.claude/``, ``~/.claude``); each as a
# word of its own. ``AGENTS.md`` is Codex's and OpenCode's own instructions file: advice about it
# is theirs too. A bare "Claude" or "Gemini" names a model other harnesses run as well.
_HARNESS_NAMES = {
    "claude-code": ("claude code", "claude-code", "claudecode", "claude.md", ".claude"),
    "codex": ("codex", "agents.md"),
    "gemini-cli": ("gemini cli", "gemini-cli", "gemini.md", ".gemini"),
    "opencode": ("opencode", "agents.md"),
}
# Advice that says it holds for every agent is about none of them alone.
_EVERY_AGENT = ("every agent", "all agents", "any agent", "each agent")


def _harnesses_named(low: str) -> set[str]:
    """The harnesses a (lowercased) text names, each name standing as a word (string searches:
    a prompt's hook loads no pattern engine for it); none when it speaks to every agent."""
    if any(_as_word(low, words) for words in _EVERY_AGENT):
        return set()
    return {harness for harness, names in _HARNESS_NAMES.items() if any(_as_word(low, name) for name in names)}


def _as_word(low: str, name: str) -> bool:
    at = low.find(name)
    while at != -1:
        end = at + len(name)
        if (at == 0 or not low[at - 1].isalnum()) and (end == len(low) or not low[end].isalnum()):
            return True
        at = low.find(name, at + 1)
    return False


def _selective(query: list[str], frequency: dict[str, int]) -> list[str]:
    """The query terms the candidate search uses: those the index knows, rarest first, until
    their postings add up to ``POSTINGS`` (at least one term). The rarest terms weigh most in
    the score, so the best learnings are among the candidates; every query term still counts
    when the candidates are scored."""
    known = sorted((t for t in query if frequency.get(t)), key=lambda t: (frequency[t], t))
    chosen: list[str] = []
    total = 0
    for term in known:
        if chosen and total + frequency[term] > POSTINGS:
            break
        chosen.append(term)
        total += frequency[term]
    return chosen


def _score(query: set[str], fields: dict[str, str], frequency: dict[str, int], total: int,
           averages: dict[str, float]) -> int:
    """BM25F of one learning for the query terms, in hundredths."""
    weighted: dict[str, float] = {}
    beyond_evidence = False
    for name, text in fields.items():
        words = text.split()
        if not words:
            continue
        norm = 1.0 - B + B * len(words) / averages[name]
        weight = WEIGHTS[name]
        for word in words:
            if word in query:
                weighted[word] = weighted.get(word, 0.0) + weight / norm
                beyond_evidence = beyond_evidence or name != "evidence"
    if not beyond_evidence and len(weighted) < EVIDENCE_ALONE:
        return 0
    score = 0.0
    for term, tf in weighted.items():
        n = frequency.get(term, 0)
        idf = math.log(1.0 + (total - n + 0.5) / (n + 0.5))
        score += idf * tf * (K1 + 1.0) / (tf + K1)
    return round(score * 100)


def open_index(place: Place, fingerprint: str | None) -> Index | None:
    """The index if it exists and was built from exactly the current state, else None; never
    read through a symbolic link (Untrusted): a plain ``git pull`` checks one a commit added
    out over the clone's own ignored index without a word, and SQLite's read through one to a
    FIFO held the agent hook past its time limit (one to ``/dev/tty`` waits for what the user
    types)."""
    refuse_links(place)
    return open_file(path(place), fingerprint)


def open_file(file: str, fingerprint: str | None) -> Index | None:
    """The index in ``file`` if it was built for ``fingerprint``, else None."""
    if fingerprint is None:
        return None
    stamp = _stamp(file)
    if stamp is None:
        return None
    try:
        index = Index(sqlite_db.connect(file, readonly=True, immutable=True), file, stamp)
    except sqlite_db.Error:
        return None
    if index.meta.get("fingerprint") != fingerprint:
        index.close()
        return None
    return index
