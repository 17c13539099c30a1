"""Screening a session's texts before anything of them is stored.

Every text a capture keeps goes through the safety scanner first: quarantined text is withheld
and counted, secrets and home folders are redacted and counted, and what is kept is cut to its
bound. A text is scanned and kept as written: a command ran as written and a message was read as
written, so a control character in one is hidden text like any other. Only a tool's output, which
was written for a terminal, has its terminal codes rendered first (``scan_output``), and only
those that hide nothing. Scanning is deterministic, so a text scanned ahead, in the process that
read the transcript (``gitstore.capture.readahead``), screens here as it would have been
screened had it been scanned here.
"""

from __future__ import annotations

import hashlib
import re

TYPE_CHECKING = False  # typing costs milliseconds in the hook's worker
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from gitstore.capture.transcripts import Transcript, Turn
    from gitstore.safety.scanner import SafetyScanner

MAX_COMMANDS = 200
MAX_FILES = 200
FILE_CHARS = 400
KEY_CHARS = 200
# What terminals are sent besides text: control sequences (colours, cursor moves), titles and
# links (ESC ], whose words are group 1), the choice of a character set (ESC ( B, which ``tput
# sgr0`` prints), saving and restoring the cursor (ESC 7, ESC 8) and the keypad's modes (ESC =,
# ESC >). Every one opens with ESC, so the engine searches for it; the one-byte form of ESC [
# (0x9b) has a pattern of its own, used only in a text holding that byte.
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\]([^\x07\x1b]*)(?:\x07|\x1b\\)|[()*+][ -/]*[0-~]|[78=>])")
_CSI_BYTE = re.compile(r"\x9b[0-9;?]*[ -/]*[@-~]")
# What a backspace may take back, as it hides no word: a character struck over itself (bold in
# man pages), an underscore struck over by a character (underline), a spinner's frame struck
# over by the next, and nothing at all at a line's start. Any other backspace is left in the
# text, where the scanner quarantines it: ``curl ... | sh; #`` and as many backspaces, then
# ``git status``, shows the one and holds the other.
_SAME_STRUCK = re.compile(r"([^\x08\n])\x08(?=\1)")
_UNDERLINED = re.compile(r"_\x08(?=[^\x08\n])")
_SPINNER = re.compile(r"[|/\\-]\x08(?=[^\x08\n])")
_LINE_START = re.compile(r"^\x08+", re.MULTILINE)

# A scanned text: the text with its redactions applied, whether it is quarantined, how many
# redactions were applied.
Scan = tuple[str, bool, int]
# Where each tool output of a turn's text starts and the command it answers (``Turn.answers``).
Answers = tuple[tuple[int, str], ...]


class Screen:
    """Runs every text through the scanner and counts what it withheld and redacted. A text in
    ``known`` (scanned ahead, see ``scan``) is not scanned again."""

    __slots__ = ("known", "quarantined", "redactions")

    def __init__(self, known: Mapping[str, Scan] | None = None) -> None:
        self.known: Mapping[str, Scan] = {} if known is None else known
        self.quarantined = 0
        self.redactions = 0

    def text(self, value: str, limit: int) -> str | None:
        """VALUE, as written, screened and cut to LIMIT characters; None when it is quarantined."""
        return self._kept(self.known.get(value) or scan(value), limit)

    def _kept(self, scanned: Scan, limit: int) -> str | None:
        """A text SCANNED, counted and cut to LIMIT characters; None when it is quarantined."""
        text, quarantined, redactions = scanned
        if quarantined:
            self.quarantined += 1
            return None
        self.redactions += redactions
        return _bounded(text, limit)

    def outputs(self, value: str, answers: Answers, limit: int, tool: bool = False) -> str | None:
        """VALUE, a turn's text holding tool outputs, screened as ``text`` screens one, but
        each output whose command could tell what it holds (``_telling``) scanned first on its
        own after that command (ANSWERS, see ``Turn.answers``): a token a command prints alone
        is one only by the command just before it, and the other calls and outputs of the turn
        between the two would hide it. The turn so screened is then scanned whole, as a reader
        of the stored turn (a reviewer, a labeler) has it scanned, so what that finds across
        the outputs is redacted before it is stored too. The turn is quarantined when any of
        it is, and is counted once. TOOL says VALUE is a tool turn's, all of it what tools
        printed for a terminal: it is screened as a terminal shows it (``scan_output``). In any
        other turn only an output read with the command that printed it (what a person's shell
        mode printed, in a user turn) is so screened; the rest is screened as written."""
        if tool and _hiding(value):
            self.quarantined += 1
            return None
        if not answers:
            scanned = scan(without_terminal_codes(value)) if tool else self.known.get(value) or scan(value)
            return self._kept(scanned, limit)
        pieces = list(_pieces(value, answers))
        if not tool and any(command and _hiding(piece) for piece, command in pieces):
            self.quarantined += 1
            return None
        pieces = [(without_terminal_codes(piece) if tool or command else piece, command) for piece, command in pieces]
        scans = [scan(piece, command) if _telling(command) else (piece, False, 0) for piece, command in pieces]
        if any(quarantined for _, quarantined, _ in scans):
            self.quarantined += 1
            return None
        joined, quarantined, more = scan("".join(text for text, _, _ in scans))
        if quarantined:
            self.quarantined += 1
            return None
        self.redactions += sum(redactions for _, _, redactions in scans) + more
        return _bounded(joined, limit)

    def name(self, value: str | None, limit: int | None = None) -> str | None:
        """VALUE, a name such as the session's branch or a file's path, kept whole when the
        scanner changes nothing in it (see ``clean_name``) and it has at most LIMIT characters
        (a cut name names nothing, and its cut end could be part of a secret); a name dropped
        for a secret counts as a redaction, one the scanner quarantines as quarantined."""
        if not value or (limit is not None and len(value) > limit):
            return None
        text, quarantined, redactions = self.known.get(value) or scan(value)
        if text == value and not quarantined:
            return value
        if quarantined:
            self.quarantined += 1
        else:
            self.redactions += redactions
        return None


    def key(self, value: str | None) -> str:
        """VALUE, an id such as a session's, without whitespace, kept when ``name`` keeps it
        within ``KEY_CHARS`` and keeps VALUE as it came (taking the blanks out can hide a
        secret from the scanner: ``Bearer TOKEN`` joined is no credential it knows); else a
        stand-in made from it alone (``withheld:`` and its sha256), so the same id still names
        the same episode and nothing of it is stored."""
        key = compact(value or "")
        if not key:
            return "unknown"
        if self.name(key, KEY_CHARS) == key and (key == value or self.name(value) == value):
            return key
        return "withheld:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def across_turns(turns: Sequence[Turn]) -> tuple[list[tuple[str, Answers]], int]:
    """Each turn's text and answers, with a token cut between one turn and the next (two
    messages in a row, the first ending with half of it, the next opening with the rest)
    redacted in both, and how many such tokens there were. Each turn is scanned alone, where
    neither half is long enough to be a token of its shape, yet the two stored side by side
    give it back whole."""
    from gitstore.safety.broken import broken_between  # imported with the scanner, once needed

    texts = [(turn.text, turn.answers) for turn in turns]
    found = 0
    for i in range(len(texts) - 1):
        (before, answers), (after, after_answers) = texts[i], texts[i + 1]
        cut = broken_between(before, after)
        if cut is None:
            continue
        start, end, kind = cut
        marker = f"[REDACTED:{kind}]"
        texts[i] = before[:start] + marker, tuple((min(at, start), command) for at, command in answers)
        shift = len(marker) - end
        texts[i + 1] = marker + after[end:], tuple((at and max(at + shift, len(marker)), command)
                                                   for at, command in after_answers)
        found += 1
    return texts, found


def _bounded(text: str, limit: int) -> str:
    """TEXT cut to LIMIT characters, saying so."""
    return text if len(text) <= limit else text[: limit - 20] + " [gitstore: cut]"


# What a command that could tell what its output holds has in it: a credential word's stem, or
# a word of the commands that print secrets (``heroku auth:token``, ``pass show``, ``vault``,
# ``op read``, ``sops``, ``.pgpass``, ``aws ssm``, ``gpg``). Any other command's output is read
# with the turn alone.
_TELLING = ("secret", "passw", "passphrase", "passcode", "token", "credential", "key", "auth", "pass",
            "vault", "op read", "sops", "pgpass", "env", "ssm", "gpg")


def _telling(command: str) -> bool:
    low = command.lower()
    return bool(command) and any(word in low for word in _TELLING)


def _pieces(text: str, answers: Answers) -> Iterator[tuple[str, str]]:
    """TEXT in the pieces a scan reads alone, each with the command it is read after: an output
    that answers a command, with it; a run of outputs that answer none (and anything before the
    first output), with nothing. An output's piece runs to where the next one starts, so the
    pieces make up TEXT, a truncation note at its end included."""
    starts = [(0, "")] if answers[0][0] else []
    for start, command in answers:
        if command or not starts or starts[-1][1]:
            starts.append((start, command))
    for (start, command), (end, _) in zip(starts, [*starts[1:], (len(text), "")]):
        yield text[start:end], command


def compact(value: str) -> str:
    """An id as records hold it: without whitespace."""
    return "".join(value.split())


def file_name(name: str) -> str:
    """A file's name as a record holds it, before screening: a backslash (a legal name on
    Linux, no name in the contract) as ``_``, a byte that was no UTF-8 (read as a lone
    surrogate) as U+FFFD, ``_`` for none: an odd name never costs the session its capture."""
    name = name.replace("\\", "_")
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace") or "_"


def scan(value: str, context: str = "") -> Scan:
    """VALUE as written through the capture's scanner (``scanner``); read after CONTEXT (the
    commands a tool's output answers, screened on their own) when there is one."""
    result = scanner().scan(value, context=context) if context else scanner().scan(value)
    return result.text, result.quarantined, result.redactions


_SCANNERS: dict[tuple[str, ...], SafetyScanner] = {}


def scanner() -> SafetyScanner:
    """The scanner a capture or an import screens with: the default one told of the capturing
    user's home folder too (``own_homes``), as written and resolved, so it goes as ``~`` even
    outside the layouts the scanner knows (``/var/lib/jenkins``); the default one where there
    is no such home to tell it of. Other scans (the gates, ``gitstore scan``) are not told, so
    their verdicts are the same on every machine."""
    from gitstore.safety.paths import own_homes
    from gitstore.safety.scanner import ConservativeScanner, default_scanner  # some 10 ms: only once needed

    homes = own_homes()
    if not homes:
        return default_scanner()
    if homes not in _SCANNERS:
        _SCANNERS[homes] = ConservativeScanner(homes=homes)
    return _SCANNERS[homes]


def scan_output(value: str, context: str = "") -> Scan:
    """VALUE, a tool's output, as a terminal shows it (``without_terminal_codes``) through the
    capture's scanner, read after CONTEXT as ``scan`` reads it; quarantined, too, when what its
    codes would hide is text the scanner quarantines (``_hiding``): what the rendering takes
    out was read by the agent all the same."""
    if _hiding(value):
        return "", True, 0
    return scan(without_terminal_codes(value), context)


def _hiding(text: str) -> bool:
    """Whether TEXT's terminal codes hide words the scanner quarantines: TEXT scanned with the
    codes that carry no words taken out (colours, cursor moves) and every character the others
    carry or strike over kept (a title's or a link's words, each between spaces; a spinner's
    frame, a letter a backspace strikes), so a pipe struck out of ``curl ... |\\b sh`` is a
    pipe again. Only a text holding such a code is scanned twice."""
    if "\x1b]" not in text and "\b" not in text:
        return False
    text = _ANSI.sub(lambda code: f" {code[1]} " if code[1] is not None else "", text)
    if "\x9b" in text:
        text = _CSI_BYTE.sub("", text)
    return scanner().scan(text.replace("\b", "")).quarantined


def clean_name(value: object) -> str | None:
    """VALUE, a name copied from outside (a branch, a file path), when the scanner would change
    nothing in it; None otherwise. A name is kept whole or not at all: one with a part redacted
    names nothing, and names often sit outside the payload that redaction removes (an episode's
    pin), where a secret could never be taken back."""
    if not isinstance(value, str) or not value:
        return None
    text, quarantined, _ = scan(value)
    return value if text == value and not quarantined else None


# The contracts' ``relpath`` (``defs.schema.json``): a repository-relative POSIX path, no ``.``
# or ``..`` segment, no control character or backslash, at most 400 characters.
RELPATH_PATTERN = r"^(?!/)(?!.*(^|/)\.\.?(/|$))[^\u0000-\u001f\\]+$"
RELPATH_LIMIT = 400
_RELPATH = re.compile(RELPATH_PATTERN)


def clean_path(value: object) -> str | None:
    """VALUE, a file path copied from outside (a review comment's), when it is a clean name
    (``clean_name``) and a path of the repository as the contracts have one; None otherwise:
    a backslash, a leading ``/`` or a ``..`` segment names no file of the repository."""
    name = clean_name(value)
    return name if name is not None and len(name) <= RELPATH_LIMIT and _RELPATH.fullmatch(name) else None


def without_terminal_codes(text: str) -> str:
    """TEXT, a tool's output, as a terminal shows it: without its colour, title, link, cursor and
    character set codes, and with what a backspace takes back that hides no word (``_SAME_STRUCK``
    and the patterns after it: bold and underline in man pages, a spinner's frames) taken back.
    Tool output's formatting, not hidden text; any other backspace stays, and the scanner
    quarantines it. What the rendering takes out of titles and links, ``scan_output`` scans too."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\x9b" in text:
        text = _CSI_BYTE.sub("", text)
    if "\b" not in text:
        return text
    text = _UNDERLINED.sub("", text)
    text = _SAME_STRUCK.sub("", text)
    text = _SPINNER.sub("", text)
    return _LINE_START.sub("", text)


def summary_texts(transcript: Transcript) -> tuple[str | None, str | None, tuple[str, ...]]:
    """What a summary screens: the task (the first user turn with text), the outcome (the last
    assistant turn with text) and the commands (the first ``MAX_COMMANDS``)."""
    task = next((t.text for t in transcript.turns if t.role == "user" and t.text.strip()), None)
    outcome = next((t.text for t in reversed(transcript.turns) if t.role == "assistant" and t.text.strip()), None)
    return task, outcome, transcript.commands[:MAX_COMMANDS]


def file_names(transcript: Transcript) -> list[str]:
    """The paths a summary may list of the files the session touched, before screening:
    relative to the session's folder, none outside it, each once, the first ``MAX_FILES``. A
    path longer than ``FILE_CHARS`` is left out rather than cut: a cut path names no file, and
    its cut end could be part of a secret the scanner no longer recognizes."""
    return _listable(transcript)[:MAX_FILES]


def summary_left_out(transcript: Transcript) -> int:
    """How many commands and files a summary leaves out for its bounds (``MAX_COMMANDS``,
    ``MAX_FILES``): a capture that leaves any out says so (``truncated``)."""
    return max(0, len(transcript.commands) - MAX_COMMANDS) + max(0, len(_listable(transcript)) - MAX_FILES)


def _listable(transcript: Transcript) -> list[str]:
    found: dict[str, None] = {}
    for path in transcript.files_touched:
        relative = _relative(path, transcript.cwd)
        if relative is not None:
            found.setdefault(relative, None)
    return list(found)


def _relative(path: str, cwd: str | None) -> str | None:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        path = path[len(cwd.rstrip("/")) + 1:]
    if path.startswith("/") or ".." in path.split("/") or not path or "\\" in path or len(path) > FILE_CHARS:
        return None
    return path
