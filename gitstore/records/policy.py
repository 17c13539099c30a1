"""The team's policy: who may decide, and the keys they sign with.

A policy is two files committed in the repository's code history, under ``.gitstore/``, and
reviewed like code; the store reads them from the default branch (see
``gitstore.providers._policy_git``):

``.gitstore/policy.json``::

    {"schema": "gitstore.policy/v1",
     "people": {"github:583231": ["accept", "reject", "retire", "supersede", "merge",
                                  "withdraw", "grant", "redact"],
                "github:9": ["accept", "reject"]}}

``people`` names each person (a gitstore person id) and the actions they may take (``ACTIONS``;
``auto-accept``, kept for older policies, gives nothing: the auto-safe gate's steps count only
on learnings kept on the clone that ran it, which need no signature). Nothing else is allowed in it.

``.gitstore/allowed_signers``: git's own format for SSH signatures (``gpg.ssh.allowedSignersFile``,
see ssh-keygen(1) "ALLOWED SIGNERS"), one key per line (ended by a line feed only, as ssh-keygen
reads it; a carriage return before it is let go), its principals being gitstore person ids::

    github:583231 namespaces="git" ssh-ed25519 AAAAC3Nza... alice@laptop

Options ``namespaces`` (which must allow ``git``), ``valid-after`` and ``valid-before`` are
honoured (a key's validity is judged at its commit's time, as git does; times are UTC, with
or without a trailing ``Z``, each field in its calendar range and after 1970, as ssh-keygen
reads them); ``cert-authority``
and wildcard principals are refused, so each key names exactly the people it signs for. A key
listed for more than one person (on one line or several) signs for none of them: a signature
cannot say which of them decided (``Policy.shared_keys``; ``policy add`` refuses to list one,
and ``gitstore doctor`` names one found). Keys are compared (and fingerprinted) in their
canonical encoding (``canonical``): an RSA key written with zero bytes before its numbers is
the same key to OpenSSH, and so to gitstore. The
options are read as ssh-keygen reads them: one token of lowercase ``name="value"`` joined by
commas (a space outside quotes ends it), each name once, and ``namespaces`` a pattern list
(``*``, ``?``, ``!`` negating) that must admit ``git``. ssh-keygen skips and splits a line's
fields on spaces and tabs alone, so a line whose fields (up to the key: not the comment after
it, which ssh-keygen never reads) hold any other blank or control character is refused. A line ssh-keygen would pass over is refused here, so no decision is written with a
key whose signatures never count.

``policy.json`` gives each name once in an object: JSON readers differ on which of two wins.
Its people are ids allowed_signers can name as they are: none holds a double quote, a comma or
a pattern character (``*``, ``?``, ``!``), which ssh-keygen would read as another person there.

Both files are parsed strictly: anything off makes the whole policy unusable, and then no
decision counts (fail closed) until it is fixed; ``gitstore status`` says why. The one
exception is a key that is no SSH public key (``key_fault``): ssh-keygen passes over its line,
so it signs for nobody and the rest of the policy stands; ``policy init`` and ``add`` never
write one, and ``gitstore doctor`` names one found.
"""

from __future__ import annotations

import base64
import binascii
import calendar
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gitstore import _jsontext
from gitstore.records.identity import PERSON

SCHEMA = "gitstore.policy/v1"
FOLDER = ".gitstore"
POLICY_FILE = f"{FOLDER}/policy.json"
SIGNERS_FILE = f"{FOLDER}/allowed_signers"
ACTIONS = ("accept", "reject", "retire", "supersede", "merge", "withdraw", "grant", "redact", "auto-accept")
KEY_TYPES = frozenset({
    "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
})
# the fields after the type name in each key type's wire format (RFC 4253 6.6, RFC 5656 3.1,
# RFC 8709 4, OpenSSH PROTOCOL.u2f): ed25519 key; rsa e, n; ecdsa curve, point; sk adds application
_KEY_FIELDS = {
    "ssh-ed25519": 1, "ssh-rsa": 2, "ecdsa-sha2-nistp256": 2, "ecdsa-sha2-nistp384": 2, "ecdsa-sha2-nistp521": 2,
    "sk-ssh-ed25519@openssh.com": 2, "sk-ecdsa-sha2-nistp256@openssh.com": 3,
}
_OPTION = re.compile(r'([a-z-]+)(?:="((?:[^"\\]|\\")*)")?')
_TIME = re.compile(r"^[0-9]{8}([0-9]{4}([0-9]{2})?)?Z?\Z")
MAX_FILE = 1 << 20


SHARED_KEY = "is signed with a key the policy lists for more than one person"


class PolicyError(ValueError):
    """A policy file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class SignerKey:
    """One line of allowed_signers: the people a key signs for, the key, its options."""

    principals: tuple[str, ...]
    key_type: str
    key: str  # base64 blob
    valid_after: str | None = None
    valid_before: str | None = None

    @cached_property
    def public(self) -> str:
        """The key as ``type base64``, in its one canonical encoding (``canonical``)."""
        return canonical(f"{self.key_type} {self.key}")

    def valid_at(self, when: str) -> bool:
        """Whether the key may sign at ``when`` (``YYYYMMDDHHMMSS``, UTC)."""
        moment = _seconds(when)
        return ((self.valid_after is None or moment >= _seconds(self.valid_after))
                and (self.valid_before is None or moment < _seconds(self.valid_before)))


@dataclass(frozen=True)
class Policy:
    """Who may take which action, and with which keys."""

    people: dict[str, frozenset[str]] = field(default_factory=dict)
    keys: tuple[SignerKey, ...] = ()

    def actions(self, person: str) -> frozenset[str]:
        return self.people.get(person, frozenset())

    def keys_of(self, person: str) -> list[SignerKey]:
        return [k for k in self.keys if person in k.principals]

    def holds(self, person: str, public: str) -> SignerKey | None:
        """The line of ``person``'s key ``public`` (``type base64``), or None; None too for a key
        listed for someone else as well (``shared_keys``): it signs for none of them."""
        public = canonical(public)
        if public in self.shared_keys():
            return None
        return next((k for k in self.keys_of(person) if k.public == public), None)

    def valid_for(self, person: str, public: str, when: str) -> bool:
        """Whether ``person``'s key ``public`` may sign at ``when`` (``YYYYMMDDHHMMSS``, UTC):
        any line listing it for them valid then, as ssh-keygen tries each line in turn (one
        kept with a ``valid-before`` passed, another for the same key, and the key signs)."""
        public = canonical(public)
        return (self.holds(person, public) is not None
                and any(k.valid_at(when) for k in self.keys_of(person) if k.public == public))

    def shared_keys(self) -> dict[str, tuple[str, ...]]:
        """Each key listed for more than one person (on one line or several), with those people:
        a signature by it cannot say which of them decided, so it counts for none of them. Keys
        are told apart by their canonical text: one key written two ways is one key."""
        people: dict[str, set[str]] = {}
        for key in self.keys:
            people.setdefault(key.public, set()).update(key.principals)
        return {public: tuple(sorted(who)) for public, who in people.items() if len(who) > 1}

    def listed_for(self, public: str) -> tuple[str, ...]:
        """The people the policy lists key ``public`` (``type base64``) for."""
        public = canonical(public)
        return tuple(sorted({p for k in self.keys if k.public == public for p in k.principals}))

    def keyless(self) -> list[str]:
        """People the policy lets decide who have no key to sign with (they cannot decide)."""
        return sorted(p for p in self.people if not self.keys_of(p))

    def to_json(self) -> dict[str, Any]:
        return {"people": {p: sorted(a) for p, a in sorted(self.people.items())},
                "keys": [{"principals": list(k.principals), "key": f"{k.key_type} {k.key[:16]}..."}
                         for k in self.keys]}


def parse(policy: bytes, signers: bytes) -> Policy:
    """Both files' bytes as a Policy, or PolicyError naming what is wrong."""
    return Policy(parse_people(policy), parse_signers(signers))


def parse_people(data: bytes) -> dict[str, frozenset[str]]:
    """``policy.json``: the people and their actions."""
    if len(data) > MAX_FILE:
        raise PolicyError(f"{POLICY_FILE}: larger than {MAX_FILE} bytes")
    try:
        value = _jsontext.loads(data.decode("utf-8"), object_pairs_hook=_once_each)
    except PolicyError:
        raise
    except (UnicodeDecodeError, ValueError) as exc:
        raise PolicyError(f"{POLICY_FILE}: not JSON ({exc})") from None
    if not isinstance(value, dict) or set(value) != {"schema", "people"}:
        raise PolicyError(f'{POLICY_FILE}: must be {{"schema": "{SCHEMA}", "people": {{...}}}} and nothing else')
    if value["schema"] != SCHEMA:
        raise PolicyError(f"{POLICY_FILE}: unknown schema {value['schema']!r} (this version reads {SCHEMA})")
    if not isinstance(value["people"], dict):
        raise PolicyError(f"{POLICY_FILE}: people must map person ids to lists of actions")
    people = {}
    for who, actions in value["people"].items():
        if not isinstance(who, str) or not PERSON.match(who) or who.startswith("bot:"):
            raise PolicyError(f"{POLICY_FILE}: {who!r} is not a person id like github:583231")
        if any(c in who for c in _NOT_PRINCIPAL):
            raise PolicyError(f"{POLICY_FILE}: {who!r} cannot be named in {SIGNERS_FILE}, where ssh-keygen reads a "
                              "double quote as none, a comma as between two people, and * ? ! as patterns")
        if not isinstance(actions, list) or not actions or any(a not in ACTIONS for a in actions):
            raise PolicyError(f"{POLICY_FILE}: {who}'s actions must be a list of {', '.join(ACTIONS)}")
        people[who] = frozenset(actions)
    return people


# what an allowed_signers principal cannot hold as it is: ssh-keygen leaves a double quote out,
# reads a comma as between two people and * ? ! as patterns. A policy.json person holding one
# would be someone else there: 'github:"9"' may accept, with no key, while the line written for
# them lists a key for github:9, with all github:9 may do
_NOT_PRINCIPAL = '",*?!'


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose names are each given once: readers differ on a name given twice
    (one keeps the first, another the last), so a reviewer's tool and gitstore could disagree
    on who may decide."""
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise PolicyError(f"{POLICY_FILE}: {name!r} is given twice in one object")
        found[name] = value
    return found


def parse_signers(data: bytes) -> tuple[SignerKey, ...]:
    """``allowed_signers``: each key with its principals and validity."""
    if len(data) > MAX_FILE:
        raise PolicyError(f"{SIGNERS_FILE}: larger than {MAX_FILE} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PolicyError(f"{SIGNERS_FILE}: not UTF-8") from None
    keys = []
    for number, line in enumerate(text.split("\n"), 1):  # ssh-keygen ends a line at a line feed only
        where = f"{SIGNERS_FILE}:{number}"
        line = line.rstrip("\r").strip(_SPACES)  # CRLF endings: ssh-keygen's key decoding skips the \r
        if line and not line.startswith("#"):  # a comment line: ssh-keygen reads nothing of it
            keys.append(_signer_line_read_plainly(line, where))
    return tuple(keys)


def _signer_line_read_plainly(line: str, where: str) -> SignerKey:
    """A key line, its fields (up to the key) holding no blank or control character but spaces
    and tabs (``_plain_blanks``). What follows the key is a comment ssh-keygen never reads: a
    person's name with a no-break space or an emoji's joiner is theirs to write."""
    try:
        key = _signer_line(line, where)
    except PolicyError:
        _plain_blanks(line, where)  # the likelier cause, named first
        raise
    _plain_blanks(line[:line.index(key.key, line.index(key.key_type)) + len(key.key)], where)
    return key


_SPACES = " \t"  # the blanks ssh-keygen skips before a line and splits its fields at


def _plain_blanks(line: str, where: str) -> None:
    """Refuse a line holding any blank or control character but a space or a tab. ssh-keygen
    skips and splits on spaces and tabs alone: a line starting with a vertical tab, or a key
    type set apart from its key by a no-break space, names nobody to it, so a reading that took
    such a character for a space would give the key to someone ssh-keygen does not."""
    for char in line:
        if char not in _SPACES and (char.isspace() or unicodedata.category(char) in _ODD):
            raise PolicyError(f"{where}: holds the character U+{ord(char):04X} (only spaces and tabs "
                              "may part the fields, as ssh-keygen reads them)")


_ODD = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})  # control and format characters, and Unicode blanks


def _signer_line(line: str, where: str) -> SignerKey:
    principals, rest = _principals_token(line, where)
    names = tuple(principals.split(","))
    for name in names:
        if not PERSON.match(name) or name.startswith("bot:") or any(c in name for c in _NOT_PRINCIPAL):
            raise PolicyError(f"{where}: principal {name!r} is not a person id (no patterns)")
    rest = rest.lstrip(_SPACES)
    options: dict[str, str | None] = {}
    first = _split_fields(rest)[:1]
    if first and first[0] not in KEY_TYPES:  # as ssh-keygen, a key first, else options then a key
        token, rest = _options_token(rest, where)
        options = _options(token, where)
    parts = _split_fields(rest)
    if len(parts) < 2 or parts[0] not in KEY_TYPES:
        raise PolicyError(f"{where}: expected a key type ({', '.join(sorted(KEY_TYPES))}) and a key"
                          + (" after the options, which are one token: name=\"value\" joined by commas, no spaces"
                             if options else ""))
    return SignerKey(names, parts[0], parts[1], *_validity(options, where))


def _split_fields(text: str) -> list[str]:
    """``text`` cut at runs of spaces and tabs, as ssh-keygen cuts a key's fields."""
    return [part for part in re.split(r"[ \t]+", text) if part]


_BLANKS = " \t\r\n"  # what ends a token where ssh-keygen reads one


def _principals_token(line: str, where: str) -> tuple[str, str]:
    """The principals a line begins with, and what follows them. As ssh-keygen reads them,
    they end at the first space or tab, and a double quote opens a part read up to the next
    one, without the quotes: ``"github:9,github:10"`` lists two people."""
    end = next((at for at, char in enumerate(line) if char in _BLANKS + '"'), None)
    if end is None:
        raise PolicyError(f"{where}: expected principals, then a key")
    if line[end] != '"':
        return line[:end], line[end:].lstrip(_BLANKS)
    close = line.find('"', end + 1)
    if close < 0:
        raise PolicyError(f"{where}: a quote in the principals is never closed")
    return line[:end] + line[end + 1:close], line[close + 1:].lstrip(_BLANKS)


def _options_token(rest: str, where: str) -> tuple[str, str]:
    """The options before the key and what follows them. As ssh-keygen reads them, they are
    one token: a space or tab outside double quotes ends it, so options set apart by spaces
    leave the next one where the key should be, and ssh-keygen passes over the line."""
    quoted, at = False, 0
    while at < len(rest) and (quoted or rest[at] not in " \t"):
        if rest.startswith('\\"', at):
            at += 1
        elif rest[at] == '"':
            quoted = not quoted
        at += 1
    if quoted:
        raise PolicyError(f"{where}: a quote in the options is never closed")
    return rest[:at], rest[at:].lstrip(" \t")


def _options(token: str, where: str) -> dict[str, str | None]:
    """The options of one token, read as ssh-keygen reads a key's options: ``name="value"``
    joined by commas, each name once (ssh-keygen refuses the line otherwise)."""
    options: dict[str, str | None] = {}
    for option in _split_options(token, where):
        match = _OPTION.fullmatch(option)
        if not match:
            raise PolicyError(f"{where}: cannot read the option {option!r} (options are name=\"value\", in lowercase, "
                              "joined by commas)")
        name = match.group(1)
        if name in options:
            raise PolicyError(f"{where}: option {name} is given twice (ssh-keygen passes over such a line)")
        options[name] = match.group(2)
    return options


def _split_options(token: str, where: str) -> list[str]:
    """``token`` cut at each comma outside double quotes; an empty option is refused."""
    found, start, quoted = [], 0, False
    for at, char in enumerate(token):
        if char == '"' and token[at - 1:at] != "\\":  # \" is a quote inside the value
            quoted = not quoted
        elif char == "," and not quoted:
            found.append(token[start:at])
            start = at + 1
    found.append(token[start:])
    if any(not option for option in found):
        raise PolicyError(f"{where}: an empty option in {token!r} (options are joined by single commas)")
    return found


def _admits_git(patterns: str) -> bool:
    """Whether ssh-keygen's pattern list ``patterns`` (comma-separated, ``*`` and ``?``
    wildcards, ``!`` negating) lets a signature of the git namespace count: a pattern that
    matches admits it, unless a negated one matches too."""
    admitted = False
    for pattern in patterns.split(","):
        negated = pattern.startswith("!")
        wanted = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern[negated:])
        if re.fullmatch(wanted, "git", re.S):
            if negated:
                return False
            admitted = True
    return admitted


def fingerprint(public: str) -> str:
    """Key ``public`` (``type base64``) as ``ssh-keygen -l`` names it (``SHA256:...``), the
    hash of its canonical encoding as ssh-keygen hashes the key it read; its text when the key
    is not base64."""
    try:
        blob = base64.b64decode(canonical(public).split(" ", 1)[1], validate=True)
    except (binascii.Error, ValueError, IndexError):
        return public
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def canonical(public: str) -> str:
    """Key ``public`` (``type base64``) in the one encoding OpenSSH writes it in: an RSA key's
    numbers (mpints) without superfluous leading zero bytes. OpenSSH skips such bytes when it
    reads a key, so ``e`` written as ``00 00 01 00 01`` is the same key as ``01 00 01``: the
    same fingerprint, and a signature by one verifies for a line listing the other. Keys are
    compared in this form, so one key written two ways is never taken for two people's.
    Anything that does not read as a key is returned as it is."""
    key_type, _, key = public.partition(" ")
    if key_type != "ssh-rsa":  # the other types hold no numbers: strings of fixed form only
        return public
    fields = _wire_fields(key)
    if fields is None or len(fields) != 3 or fields[0] != b"ssh-rsa":
        return public
    numbers = [_minimal(number) for number in fields[1:]]
    if numbers == fields[1:]:
        return public
    blob = b"".join(len(part).to_bytes(4, "big") + part for part in (fields[0], *numbers))
    return f"{key_type} {base64.b64encode(blob).decode('ascii')}"


def _minimal(number: bytes) -> bytes:
    """An mpint's bytes without the zero bytes before its first significant one (one is kept
    where the next byte's top bit is set, so the number stays positive). A number written
    without a leading zero is left as it is (a negative one, which OpenSSH refuses)."""
    if not number.startswith(b"\0"):
        return number
    trimmed = number.lstrip(b"\0")
    return b"\0" + trimmed if trimmed and trimmed[0] & 0x80 else trimmed


def _wire_fields(key: str) -> list[bytes] | None:
    """The length-prefixed strings of key blob ``key`` (base64), or None when it does not read
    as such strings end to end."""
    try:
        blob = base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        return None
    fields = []
    while blob:
        size = int.from_bytes(blob[:4], "big")
        if len(blob) < 4 + size:
            return None
        fields.append(blob[4:4 + size])
        blob = blob[4 + size:]
    return fields


def key_fault(key_type: str, key: str) -> str | None:
    """Why ``key`` (base64) is no public key of ``key_type``, or None. The blob is SSH's wire
    format: length-prefixed strings, the first the type name. ssh-keygen passes over a line
    whose key does not read, so such a key signs for nobody."""
    try:
        blob = base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        return "its key is not base64"
    fields = []
    while blob:
        size = int.from_bytes(blob[:4], "big")
        if len(blob) < 4 + size:
            return "its key is cut short"
        fields.append(blob[4:4 + size])
        blob = blob[4 + size:]
    if not fields or fields[0] != key_type.encode():
        found = fields[0].decode("ascii", "replace")[:40] if fields else "nothing"
        return f"its key holds a {found} key, not {key_type}"
    expected = _KEY_FIELDS.get(key_type)  # a type gitstore does not read is refused where the line is parsed
    if expected is not None and (len(fields) != 1 + expected
                                 or (key_type.endswith("ed25519") and len(fields[1]) != 32)):
        return f"its key is not one {key_type} key"
    return None


def _validity(options: dict[str, str | None], where: str) -> tuple[str | None, str | None]:
    unknown = sorted(set(options) - {"namespaces", "valid-after", "valid-before"})
    if unknown:
        raise PolicyError(f"{where}: option {unknown[0]} is not supported here")
    if "namespaces" in options and not _admits_git(options["namespaces"] or ""):
        raise PolicyError(f"{where}: namespaces does not let a signature of the git namespace count")
    for name in ("valid-after", "valid-before"):
        value = options.get(name)
        if name in options and (value is None or not _TIME.match(value)):
            raise PolicyError(f"{where}: {name} must be YYYYMMDD[HHMM[SS]][Z]")
        if value is not None and not _in_range(value):
            raise PolicyError(f"{where}: {name} {value} is no time after 1970 (month 1-12, day 1-31, "
                              "hour 0-23, minute 0-59; ssh-keygen passes over such a line)")
    return options.get("valid-after"), options.get("valid-before")


def _fields(value: str) -> tuple[int, ...]:
    """A validity time's year, month, day, hour, minute and second (those left out are 0)."""
    digits = value.rstrip("Z").ljust(14, "0")
    return tuple(int(digits[at:at + size]) for at, size in ((0, 4), (4, 2), (6, 2), (8, 2), (10, 2), (12, 2)))


def _in_range(value: str) -> bool:
    """Whether ssh-keygen reads the validity time ``value`` (its digits checked already): each
    field in its calendar range (a second up to 61, for leap seconds), and after the first
    second of 1970. A day past its month's end is taken, as ssh-keygen runs it on into the
    next month."""
    year, month, day, hour, minute, second = _fields(value)
    return (1970 <= year and 1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59
            and second <= 61 and _seconds(value) > 0)


def _seconds(value: str) -> int:
    """A validity time (or a commit's, ``YYYYMMDDHHMMSS``) as seconds since 1970, UTC; a day
    past its month's end or a leap second runs on, as ssh-keygen counts them."""
    return calendar.timegm(_fields(value))


def policy_text(people: dict[str, list[str]]) -> str:
    """``policy.json`` for these people, as ``gitstore policy`` writes it."""
    body = {"schema": SCHEMA, "people": {p: [a for a in ACTIONS if a in people[p]] for p in sorted(people)}}
    return json.dumps(body, indent=2) + "\n"


def required_actions(record: dict[str, Any], extends: bool = False) -> frozenset[str]:
    """The actions a person needs to have written ``record`` (empty: anyone may write it).
    ``extends``: the version before it was accepted already (it only adds ``supersedes``)."""
    schema = record.get("schema")
    if schema == "gitstore.grant/v1":
        return frozenset({"grant"})
    if schema == "gitstore.withdrawal/v1":
        return frozenset({"withdraw"})
    if schema != "gitstore.learning/v1" or "decision" not in record:
        return frozenset()
    state = record["state"]
    if state in ("auto-accepted", "auto-active"):
        return frozenset({"auto-accept"})
    if state == "rejected":
        return frozenset({"reject"})
    if state == "retired":
        return frozenset({"retire"})
    needed = set() if extends else {"accept"}
    if record.get("supersedes"):
        needed.add("merge" if len(record.get("replaces", ())) > 1 else "supersede")
    return frozenset(needed)


def actor_of(record: dict[str, Any]) -> str | None:
    """Who a record says took its action: a decision's, grant's or withdrawal's ``by``."""
    if "decision" in record:
        return str(record["decision"]["by"])
    if record.get("schema") in ("gitstore.grant/v1", "gitstore.withdrawal/v1"):
        return str(record["by"])
    return None


__all__ = [
    "ACTIONS", "FOLDER", "POLICY_FILE", "SCHEMA", "SHARED_KEY", "SIGNERS_FILE", "Policy", "PolicyError", "SignerKey",
    "actor_of", "canonical", "fingerprint", "key_fault", "parse", "parse_people", "parse_signers", "policy_text", "required_actions",
]
