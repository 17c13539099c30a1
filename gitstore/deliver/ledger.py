"""The delivery ledger: which learnings went to which agent session, so none is sent twice.

Local state in ``okf/.memory/deliveries.sqlite`` (SQLite, write-ahead log). Each entry is one
event of one session (harness and session id):

- ``delivery``: what one hook answer injected (each learning's id, contentDigest, trust and
  score), the event that asked, the compaction epoch, the number of characters and the SHA-256
  of the exact text the agent received;
- ``compaction``: the harness compacted or cleared the conversation, so what was delivered
  before is gone from the agent's context and may be delivered once more (a new epoch).

A learning (by contentDigest: an edited learning is new content) is delivered at most once per
epoch of a session. Reading what the session had, choosing and recording happen in one write
transaction, so two hooks of one session racing cannot both deliver the same learning. Where the
ledger cannot be written (a checkout mounted read-only) it is only read: what is delivered there
is not recorded.

A session id is whatever string the harness sent, and valid JSON can spell half a UTF-16 pair
(``\\ud83d``: a cut emoji), which SQLite cannot take as text. Such an id (and such a compaction
source) is kept as a blob of its UTF-8 bytes with the surrogate written as is (``stored``): a
blob never equals a text, so it cannot meet any other id's entries, and every other id is kept
as the text it always was.
"""

from __future__ import annotations

import os
import stat
import time

from gitstore.deliver import db as sqlite_db

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "deliveries.sqlite"
SCHEMA = """
CREATE TABLE entry(n INTEGER PRIMARY KEY, harness TEXT NOT NULL, session TEXT NOT NULL, kind TEXT NOT NULL,
                   at TEXT NOT NULL, event TEXT, source TEXT, epoch INTEGER NOT NULL, chars INTEGER, context TEXT);
CREATE INDEX entry_session ON entry(harness, session);
CREATE TABLE item(entry INTEGER NOT NULL REFERENCES entry(n), id TEXT NOT NULL, digest TEXT NOT NULL,
                  trust TEXT NOT NULL, score INTEGER NOT NULL);
CREATE INDEX item_entry ON item(entry);
PRAGMA user_version = 1;
"""


def now() -> str:
    """The current UTC time as gitstore writes times (six fractional digits and ``Z``)."""
    moment = time.time()
    seconds = int(moment)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int((moment - seconds) * 1e6):06d}Z"


def stored(text: str | None) -> str | bytes | None:
    """``text`` as SQLite can keep it (see the module's docstring): itself, or where it holds a
    lone surrogate the blob of its bytes (``surrogatepass``), which stands for no other text."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
    return text


def read(value: str | bytes | None) -> str | None:
    """A value ``stored`` wrote, as the text it was."""
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


def path(state: str) -> str:
    return os.path.join(state, NAME)


def refuse_links(state: str) -> None:
    """Raise Untrusted when a symbolic link stands on the way to the ledger or the files SQLite
    keeps beside it: a commit can put one there (git checks it out over the clone's own ignored
    file), and the session's deliveries would be written into whatever file it names. Asked on
    every open, since a prompt served from a current index asks git nothing (Python's sqlite3
    cannot ask SQLite itself to refuse a link: it takes no open flags)."""
    from gitstore.deliver.place import refuse_links as refuse

    root = os.path.dirname(os.path.dirname(state))  # the state folder is okf/.memory of the work tree
    for name in (NAME, f"{NAME}-wal", f"{NAME}-shm", f"{NAME}-journal"):
        refuse(root, os.path.relpath(state, root), name)


class NotAFile(Exception):
    """Something other than a regular file stands where the ledger belongs: a folder, a FIFO, a
    device, a socket. SQLite opening a FIFO for reading waits for a writer that never comes
    (``gitstore deliveries`` and ``gitstore context`` hung there), so it is never handed one."""


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def refuse_other_files(state: str) -> None:
    """Raise NotAFile, naming what it is, when anything but a regular file stands at the ledger's
    path (a link is ``refuse_links``'s)."""
    try:
        mode = os.lstat(path(state)).st_mode
    except OSError:
        return  # none there (it is made), or out of reach: SQLite says so
    if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
        raise NotAFile(f"{next((said for test, said in _KINDS if test(mode)), 'no file')}, not a file")


def _open(state: str) -> Any:
    db = sqlite_db.connect(path(state))
    if db.execute("PRAGMA user_version").fetchone()[0] == 0:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("BEGIN IMMEDIATE")
        if db.execute("PRAGMA user_version").fetchone()[0] == 0:  # another hook may have made it meanwhile
            for statement in SCHEMA.strip().split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute("COMMIT")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


def writable(state: str) -> bool:
    """Whether the ledger can be written: False in a checkout mounted read-only (a sandbox's)
    or not this user's to write. There the hook still delivers, but cannot record what it gave,
    so a session may be given a learning again at a later prompt."""
    file = path(state)
    # the folder too: SQLite writes its write-ahead log beside the file
    return os.access(state, os.W_OK) and (not os.path.exists(file) or os.access(file, os.W_OK))


class Session:
    """One session's part of the ledger; with ``write`` a write transaction is held while open.
    With ``unread_ok`` (a preview, which writes nothing), a ledger that cannot be read is no
    error: the session is read as one given nothing yet, and ``unread`` says why."""

    def __init__(self, state: str, harness: str, session: str, *, write: bool = True,
                 unread_ok: bool = False) -> None:
        self.state = state
        self.harness = harness
        self.session = session
        self.write = write
        self.unread_ok = unread_ok
        self.unread: str | None = None
        self.db: Any = None
        self.epoch = 0
        self.delivered: set[str] = set()

    def __enter__(self) -> Session:
        refuse_links(self.state)
        kept = writable(self.state)
        self.write = self.write and kept  # where nothing can be kept, what was delivered is read, not recorded
        try:
            refuse_other_files(self.state)
            if self.write:
                os.makedirs(self.state, exist_ok=True)
                self.db = _open(self.state)
                self.db.execute("BEGIN IMMEDIATE")
            elif os.path.exists(path(self.state)):  # in a folder no one can write, no one changes it meanwhile
                self.db = sqlite_db.connect(path(self.state), readonly=True, immutable=not kept)
            if self.db is not None:
                self._read()
        except (sqlite_db.Error, NotAFile) as exc:
            if self.db is not None:
                self.db.close()
                self.db = None
            problem = unreadable(self.state, exc)
            if not self.unread_ok:
                raise problem from None
            self.write, self.unread = False, str(problem)
            self.epoch, self.delivered = 0, set()
        return self

    def _read(self) -> None:
        key = self._key()
        self.epoch = self.db.execute("SELECT count(*) FROM entry WHERE harness = ? AND session = ? "
                                     "AND kind = 'compaction'", key).fetchone()[0]
        self.delivered = {digest for (digest,) in self.db.execute(
            "SELECT item.digest FROM item JOIN entry ON item.entry = entry.n WHERE entry.harness = ? "
            "AND entry.session = ? AND entry.kind = 'delivery' AND entry.epoch = ?", (*key, self.epoch))}

    def _key(self) -> tuple[str | bytes | None, ...]:
        """The session's key in the ledger: its harness and id as SQLite can keep them."""
        return stored(self.harness), stored(self.session)

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if self.db is None:
            return
        if self.write:
            self.db.execute("ROLLBACK" if error is not None else "COMMIT")
        self.db.close()
        self.db = None

    def compaction(self, event: str | None, source: str | None) -> None:
        """Record that the session's context was compacted or cleared: a new epoch begins."""
        self.epoch += 1
        self.delivered = set()
        if self.write:
            self.db.execute("INSERT INTO entry(harness, session, kind, at, event, source, epoch) VALUES "
                            "(?, ?, 'compaction', ?, ?, ?, ?)",
                            (*self._key(), now(), stored(event), stored(source), self.epoch))

    def delivery(self, event: str, items: list[dict[str, Any]], chars: int, context: str) -> None:
        """Record what one answer injected."""
        self.delivered.update(i["contentDigest"] for i in items)
        if not self.write:
            return
        cursor = self.db.execute("INSERT INTO entry(harness, session, kind, at, event, epoch, chars, context) "
                                 "VALUES (?, ?, 'delivery', ?, ?, ?, ?, ?)",
                                 (*self._key(), now(), stored(event), self.epoch, chars, context))
        self.db.executemany("INSERT INTO item VALUES (?, ?, ?, ?, ?)",
                            [(cursor.lastrowid, i["id"], i["contentDigest"], i["trust"], i["score"]) for i in items])


def unreadable(state: str, exc: Exception) -> Exception:
    """The error for a ledger SQLite cannot read, naming the file: out of reach (exit 1: its
    folder read-only, the file another user's, locked), or damaged (exit 3)."""
    from gitstore.errors import GitstoreError, IntegrityError

    if isinstance(exc, NotAFile):
        found: GitstoreError = GitstoreError(f"{path(state)}: cannot open the delivery ledger ({exc}); move it "
                                             "aside and the next delivery starts a new one")
    elif isinstance(exc, sqlite_db.OperationalError):
        found = GitstoreError(f"{path(state)}: cannot open the delivery ledger ({exc})")
    else:
        found = IntegrityError(f"{path(state)}: the delivery ledger is damaged ({exc}); move it aside "
                               f"and the next delivery starts a new one")
    found.loggable = True  # type: ignore[attr-defined] # a path gitstore made and SQLite's reason: the hook's log says it
    return found


def sessions(state: str) -> list[list[dict[str, Any]]]:
    """Every session's entries in order, the most recently active session first."""
    if not os.path.exists(path(state)):
        return []
    refuse_links(state)
    try:
        refuse_other_files(state)
        return _sessions(sqlite_db.connect(path(state), readonly=True, immutable=not writable(state)))
    except (sqlite_db.Error, NotAFile) as exc:
        raise unreadable(state, exc) from None


def _sessions(db: Any) -> list[list[dict[str, Any]]]:
    try:
        items: dict[int, list[dict[str, Any]]] = {}
        for entry, lid, digest, trust, score in db.execute("SELECT entry, id, digest, trust, score FROM item"):
            items.setdefault(entry, []).append({"id": lid, "contentDigest": digest, "trust": trust, "score": score})
        found: dict[tuple[str | None, str | None], list[dict[str, Any]]] = {}
        for n, harness, session, kind, at, event, source, epoch, chars, context in db.execute(
                "SELECT n, harness, session, kind, at, event, source, epoch, chars, context FROM entry ORDER BY n"):
            harness, session = read(harness), read(session)
            entry = {"kind": kind, "at": at, "harness": harness, "session": session, "event": read(event),
                     "epoch": epoch}
            if kind == "compaction":
                entry["source"] = read(source)
            else:
                entry.update(chars=chars, context=context, items=items.get(n, []))
            found.setdefault((harness, session), []).append(entry)
    finally:
        db.close()
    return sorted(found.values(), key=lambda entries: str(entries[-1]["at"]), reverse=True)
