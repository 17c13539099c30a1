"""The content of a repository file: where a text lives counts only when the caller says so.

When a text is scanned as the content of a file (``scan(text, path=...)``), three things may
clear a redaction, and only there:

- the place: private key material in key files named as stand-ins (``dummy.key``,
  ``stub_key.priv``), in test suites (``test/``, ``tests/``, ``testdata/``, ``fixtures/``) and in
  installed software (``usr/lib64/libssh.so``) is no secret; but not in a file agents read (the
  caller says which: the wiki, any file of a skill), where a key under a ``tests/`` folder is
  handed to an agent like any other text;
- the author's mark: a generic credential guess (``credential-assignment``, ``prose-secret``)
  on a line marked ``gitleaks:allow``, ``nosec``, ``notsecret`` or ``pragma: allowlist secret``
  (on the line, or in a comment line just above it) stays; a credential of a known format
  never does;
- the maintainers' list: the repository's ``.gitstore-allow`` (:class:`Allowlist`): an entry
  pinned to a value (``PATH:KIND:LINE sha256=DIGEST``) clears that value alone on its line; one
  that names no value (``PATH:KIND:LINE``) clears whatever sits on its line, but where the list
  is judged against a base (the gates: HEAD at a commit, the range's start at a push) only the
  text the base holds on that line, so a change that alters an allowed line loses the allowance.

None of them clears a quarantine (hidden, bidirectional, zero-width or control characters,
injected instructions): such text never reaches an agent, whoever declares it harmless, so the
scanner's report on it says so (:data:`NOT_ALLOWED`).

Free text (comments, transcripts, proposals) gets none of this: whoever wrote a text does not
decide what the store keeps.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from gitstore.safety import lazy
from gitstore.safety.spans import Hit

# Places where private key material is not a secret: key files named as stand-ins, test suites,
# and installed software (binaries, libraries and data files that embed key formats).
_KEY_PLACES = lazy.Pattern(
    r"(?i)(?:^|/)[^/]*(?:dummy|example|fake|mock|sample|stub)[^/]*(?:key|\.pem|\.priv)[^/]*$"
    r"|(?:^|/)(?:tests?|testdata|test[-_]data|fixtures)/"
    r"|(?:^|/)usr/(?:s?bin|lib(?:32|64|exec)?|share)/|^/s?bin/|(?:^|/)lib(?:32|64)/"
)
# Secret-scanner markers a file's author puts on a line that only looks like a credential, or
# in a comment line just above it.
_PRAGMA = lazy.Pattern(
    r"(?i)gitleaks:allow|\bnosec\b|\bno[nt][ _-]?secrets?\b|pragma:[ \t]*allowlist[ \t]+(?:nextline[ \t]+)?secret"
)
_COMMENT_LINE = lazy.Pattern(r"[ \t]*(?:#|//|/?\*|<!--|--|;)")
_GUESSES = frozenset({"credential-assignment", "prose-secret"})


NOT_ALLOWED = ("cannot be allowed in .gitstore-allow (quarantined text never reaches an agent): remove "
               "the characters or reword the instructions; keep a file that must hold them out of the scan "
               "(pre-commit's exclude)")


FILE_NAME = ".gitstore-allow"  # the allow list, at the root of a repository
_SUBMODULE = re.compile(r"submodule:[ \t]+(\S(?:.*\S)?)")  # an entry accepting a submodule: ``submodule: PATH``
PIN = "sha256="  # how an entry's value pin begins: ``PATH:KIND:LINE sha256=`` and 16 hex digits
# a pin, after a space or a tab (a colon before it would have the scanner take ``token:2:sha256=...`` for an
# assigned credential, and the list itself would fail the scan)
_PIN = re.compile(r"[ \t]sha256=([0-9a-fA-F]{16})\Z")


def pin(secret: str) -> str:
    """The pin an allow list entry carries for the matched text SECRET: the first 16 hex digits
    of its SHA-256 (``sha256=3f9a...``), enough to tell one value from another and never the
    value itself (the file beside the list holds it anyway). A key spread over lines is pinned
    with its lines ending in a line feed: a checkout that writes CR LF (``core.autocrlf`` on
    Windows) holds the same key, and a scan there must clear what the gate cleared in git."""
    return PIN + hashlib.sha256(secret.replace("\r\n", "\n").encode("utf-8", "surrogatepass")).hexdigest()[:16]


def entry(path: str, kind: str, line: int, secret: str) -> str:
    """The line of ``.gitstore-allow`` that clears SECRET, a finding of KIND on LINE of PATH."""
    return f"{path}:{kind}:{line} {pin(secret)}"


class Base(NamedTuple):
    """What an allow list is judged against: the text each file named by an entry without a pin
    holds there (None: no such file), so that such an entry clears only what the base holds on
    its line."""

    texts: Mapping[str, tuple[str, list[int]] | None]

    @classmethod
    def of(cls, texts: Mapping[str, str | None]) -> Base:
        return cls({path: None if text is None else (text, _line_starts(text)) for path, text in texts.items()})

    def holds(self, path: str, line: int, secret: str) -> bool:
        """Whether the base's file at PATH holds SECRET starting on its 1-based LINE."""
        held = self.texts.get(path)
        if held is None:
            return False
        text, starts = held
        if not secret or line > len(starts):
            return False
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(text)
        found = text.find(secret, start, end + len(secret))  # bounded: never a search of the whole file
        return found != -1 and found < end


class Allowlist(NamedTuple):
    """Findings a repository's maintainers have declared are not secrets (redactions only, never
    a quarantine), one per entry ``PATH:KIND:LINE`` (a file of the repository, a finding kind,
    the 1-based line where the finding starts) or ``PATH:KIND:LINE sha256=DIGEST`` (pinned: the
    :func:`pin` of the one value it clears there), as kept in the repository's
    ``.gitstore-allow``; and the submodules they accept though no gate can read what they hold,
    one per entry ``submodule: PATH`` (the promotion gate's, which refuses any other submodule
    a commit adds or moves).

    A pinned entry clears its value alone, on its line (on any line of its file for the values
    ``anywhere`` holds: a history's versions of a file, each with the value where it put it).
    One without a pin clears any finding of its kind on its line, except where the list is judged against a ``base`` (the gates): there only the
    text the base holds starting on that line, so a change that puts another value on an
    allowed line (or a line shifted onto it) loses the allowance, and the finding says which
    pinned line to list."""

    entries: frozenset[tuple[str, str, int]] = frozenset()
    submodules: frozenset[str] = frozenset()
    pinned: frozenset[tuple[str, str, int, str]] = frozenset()
    base: Base | None = None
    # (path, kind, digest) of values cleared on any line of their file: a history's blobs, which
    # no change can renumber, hold a pinned value on the line each version put it on
    anywhere: frozenset[tuple[str, str, str]] = frozenset()

    @classmethod
    def parse(cls, text: str, name: str = FILE_NAME) -> Allowlist:
        """Read an allow list; a malformed entry is an error naming its line. Lines end at a
        line feed alone (a carriage return before it is dropped), as git and a review show them:
        a form feed or a Unicode line separator inside a comment hides no entry there. A byte
        order mark first (Notepad and other Windows editors save UTF-8 with one) is no part of the
        first line, as git and a review show it: read into the path, it left the first entry
        clearing nothing, without a word."""
        from gitstore.errors import InvalidInput  # the scanner imports no other part of gitstore

        entries = set()
        submodules = set()
        pinned = set()
        for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
            line = line.strip(" \t\r")
            if not line or line.startswith("#"):
                continue
            submodule = _SUBMODULE.fullmatch(line)
            if submodule:
                submodules.add(submodule.group(1).strip("/"))
                continue
            digest = _PIN.search(line)
            path, _, rest = (line[:digest.start()].rstrip(" \t") if digest else line).rpartition(":")
            path, _, kind = path.rpartition(":")
            if not path or not re.fullmatch(r"[a-z0-9-]+", kind) or not re.fullmatch(r"[0-9]{1,18}", rest) \
                    or int(rest) < 1:  # ASCII digits: int() refuses some Unicode digits (``²``) and long numbers
                pinning = " (a pinned entry ends with a space, sha256= and 16 hex digits)" if PIN in line else ""
                raise InvalidInput(f"{name}:{number}: expected PATH:KIND:LINE or submodule: PATH, got "
                                   f"{line[:80]!r}{pinning}")
            if digest:
                pinned.add((path, kind, int(rest), PIN + digest.group(1).lower()))
            else:
                entries.add((path, kind, int(rest)))
        return cls(frozenset(entries), frozenset(submodules), frozenset(pinned))

    @classmethod
    def read(cls, root: Path | None) -> Allowlist:
        """The ``.gitstore-allow`` at a repository's ROOT (empty when there is none or no root,
        or a symbolic link there: git holds only the path it leads to, so no clone holds such a
        list, and what it leads to, anything on the machine, is never read); a file that is not
        UTF-8 text is an error naming it."""
        from gitstore.errors import InvalidInput

        path = root / FILE_NAME if root is not None else None
        if path is None or path.is_symlink() or not path.is_file():
            return cls()
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{FILE_NAME}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise InvalidInput(f"{FILE_NAME}: cannot read ({exc.strerror})") from None
        return cls.parse(text, FILE_NAME)

    def covers(self, path: str, kinds: Iterable[str], line: int, secret: str) -> bool:
        """Whether the list clears SECRET, a finding of one of KINDS starting on LINE of PATH."""
        kinds = tuple(kinds)
        if self.pinned:
            digest = pin(secret)
            if any((path, kind, line, digest) in self.pinned or (path, kind, digest) in self.anywhere for kind in kinds):
                return True
        if not any((path, kind, line) in self.entries for kind in kinds):
            return False
        return self.base is None or self.base.holds(path, line, secret)


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _marked(text: str, starts: list[int], line: int, after: int) -> bool:
    """Whether 1-based LINE carries a not-a-secret marker after position AFTER, or the line
    above it is a comment carrying one."""
    end = starts[line] if line < len(starts) else len(text)
    if _PRAGMA.search(text, after, end):
        return True
    if line < 2:
        return False
    above = text[starts[line - 2] : starts[line - 1]]
    return bool(_COMMENT_LINE.match(above) and _PRAGMA.search(above))


def standing_in_file(text: str, path: str, hits: list[Hit], allow: Allowlist,
                     read_by_agents: Callable[[], bool] | None = None, lines_before: int = 0) -> list[Hit]:
    """The hits that stand once TEXT is known to be the content of the file at PATH; agents
    read the file when ``read_by_agents()`` says so (asked only of a key in a place that would
    clear it), and then its place clears nothing. TEXT starts after LINES_BEFORE lines of the
    file (the allow list names the file's lines)."""
    if not hits:
        return hits
    key_place = _KEY_PLACES.search(path) is not None and any(set(hit.kinds) <= {"pem-private-key"} for hit in hits) \
        and not (read_by_agents is not None and read_by_agents())
    starts = _line_starts(text)
    kept = []
    for hit in hits:
        if hit.keep:
            kept.append(hit)
            continue
        kinds = set(hit.kinds)
        if key_place and kinds <= {"pem-private-key"}:
            continue
        line = bisect.bisect_right(starts, hit.start)
        if kinds <= _GUESSES and _marked(text, starts, line, hit.end):
            continue
        if allow.covers(path, hit.kinds, line + lines_before, text[hit.start:hit.end]):
            continue
        kept.append(hit)
    return kept



__all__ = ["Allowlist", "Base", "entry", "pin", "standing_in_file"]
