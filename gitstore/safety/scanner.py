"""The safety scanner: what gitstore refuses, what it redacts, and what it only warns about.

Every text that reaches the store from outside (captured sessions, imports, review comments,
proposals from labelers and consolidators) and every text about to be shown to an agent goes
through a :class:`SafetyScanner`. The scanner is a Protocol so a deployment can plug in its own;
:class:`ConservativeScanner` is the default. Its policy has three levels:

- **quarantine** (blocking): characters that make text read differently from what it says, and
  text that tries to take over an agent. Bidirectional controls; zero-width and other invisible
  characters, outside the few places a script or an emoji sequence needs them; C0/C1 control
  characters other than tab, newline and carriage return; tag characters and runs of variation
  selectors (a hidden payload); prompt-injection override text ("ignore all previous
  instructions", "you are now DAN", chat-template role markers such as ``<|im_start|>``).
  Quarantined text must never be stored, hashed through or used as evidence.
- **redact** (defense in depth; choosing sources that hold no secrets comes first): credentials
  with a recognisable shape (AWS access key ids, GitHub, Slack and bearer tokens, JWTs, PEM
  private key blocks), ``key = value`` credential assignments with a non-trivial value, passwords
  in URLs, and base64 blobs whose decoded text holds any of these. Absolute home paths keep their
  tail and lose the user name (``/home/alice/src`` becomes ``~/src``); project-relative paths are
  left alone. Placeholders, templates, references to variables, names made of words, and
  documented example values are not secrets and stay, and so do the signed, expiring links
  GitHub renders for images in private repositories. A pull_request_target workflow that checks
  out the pull request's head loses that ref (``untrusted-checkout``): memory must not hand an
  agent that pattern to follow.
- **a file's content**: only when the caller says a text is the content of a repository file
  (``scan(text, path=...)``) does its place count. Private key material is left in key files
  named as stand-ins (``dummy.key``, ``stub_key.priv``), in test suites and in installed
  software (``usr/lib64/libssh.so``); a generic credential guess is left on a line its author
  marked (``gitleaks:allow``, ``nosec``, ``notsecret``, ``pragma: allowlist secret``, on the line
  or in a comment just above), never a credential of a known format; and the repository's
  ``.gitstore-allow`` list (:class:`Allowlist`) clears the findings its maintainers declared.
  In free text (comments, transcripts, proposals) none of this applies: whoever wrote a text
  does not decide what the store keeps.
- **warn**: a single word mixing Latin letters with Cyrillic or Greek look-alikes (a homoglyph,
  ``sayНello``). Text written in another script, or in several, is legitimate and gets nothing.

A :class:`ScanResult` carries the redacted text and findings made of kinds and counts only,
never the material that was found. Scanning is linear in the text: patterns start with a
literal so the regex engine can skip ahead, case-insensitive ones run over a lowercased copy.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

QUARANTINE = "quarantine"
REDACT = "redact"
WARN = "warn"
_ACTION_ORDER = {QUARANTINE: 0, REDACT: 1, WARN: 2}


@dataclass(frozen=True)
class Finding:
    """One kind of finding in a text: what it is, what the scanner did, how many times."""

    kind: str
    action: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"kind": self.kind, "action": self.action, "count": self.count}


@dataclass(frozen=True)
class ScanResult:
    """The text with every redaction applied, whether it is quarantined, and the findings."""

    text: str
    quarantined: bool
    findings: tuple[Finding, ...]

    @property
    def redactions(self) -> int:
        """How many redactions were applied."""
        return sum(f.count for f in self.findings if f.action == REDACT)

    def report(self) -> dict[str, Any]:
        """Kinds and counts for a report; never the text or the material found."""
        return {
            "quarantined": self.quarantined,
            "redactions": self.redactions,
            "findings": [f.to_dict() for f in self.findings],
        }


@runtime_checkable
class SafetyScanner(Protocol):
    """Anything that can scan a text; gitstore only ever calls ``scan``."""

    def scan(self, text: str, *, path: str | None = None) -> ScanResult:
        """Scan TEXT and return the redacted text, the quarantine verdict and the findings.

        ``path`` is given only when TEXT is the content of that file of the repository (a
        path relative to its root, ``/``-separated); a scanner may ignore it.
        """
        ...


@dataclass(frozen=True)
class _Text:
    """A text and a lowercased copy of the same length, so positions match in both."""

    raw: str
    low: str

    @classmethod
    def of(cls, text: str) -> _Text:
        low = text.lower()
        if len(low) != len(text):  # a few letters lowercase to two characters: keep those
            low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
        return cls(text, low)


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _starts_word(text: str, i: int, joiners: str = "") -> bool:
    """True when position I is not preceded by a word character (or one of JOINERS)."""
    return i == 0 or (text[i - 1] not in _WORD_CHARS and text[i - 1] not in joiners)


# --- hidden characters ------------------------------------------------------------------------

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\u206a\u206b\u206c\u206d\u206e\u206f"
    "\ufeff\u180e\u3164\uffa0"
)
_HIDDEN = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\ufeff\u180e\u3164\uffa0\U000e0000-\U000e007f\ufe00-\ufe0f\U000e0100-\U000e01ef"
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)
_HIDDEN_RUN = re.compile(_HIDDEN.pattern + "+")
_LONG_RUN = 16  # longer runs of hidden characters are counted in bulk
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,6}\U000e007f")


def _ranges(*spans: tuple[int, int]) -> str:
    """A regex character class body for code point ranges."""
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in spans)


# Scripts that need ZWJ/ZWNJ between their letters (Arabic, Syriac, NKo, Mandaic, the Indic
# scripts, Tibetan, Myanmar, Khmer, Mongolian), and scripts written without spaces that use ZWSP
# between words (Thai, Lao, Tibetan, Myanmar, Khmer, Balinese, Javanese).
_JOINING = _ranges(
    (0x0600, 0x077F), (0x07C0, 0x07FF), (0x0840, 0x085F), (0x08A0, 0x08FF), (0x0900, 0x0DFF),
    (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x18AF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFC),
)
_SPACELESS = _ranges(
    (0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x1B00, 0x1B7F),
    (0xA980, 0xA9DF),
)
# Joiners where their script needs them. They are taken out before the hidden-character scan:
# both their neighbours are letters, so no other hidden character's context changes.
_SCRIPT_JOINERS = re.compile(
    f"(?<=[{_JOINING}])[\u200c\u200d](?=[{_JOINING}])|(?<=[{_SPACELESS}])\u200b(?=[{_SPACELESS}])"
)


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return code >= 0x1F000 or 0x2190 <= code <= 0x2BFF or char in "\ufe0f\u00a9\u00ae"


def _is_ideograph(char: str) -> bool:
    code = ord(char)
    return 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _joiner_kind(text: str, i: int) -> str | None:
    """A zero-width joiner between two emoji builds one emoji; any other joiner is hidden."""
    if text[i] == "\u200d" and 0 < i < len(text) - 1:
        if _is_emoji(text[i - 1]) and _is_emoji(text[i + 1]):
            return None
    return "zero-width"


def _variation_selector_kind(text: str, i: int) -> str | None:
    """One selector after an ordinary character is legitimate; a run of them is a payload."""
    if i == 0 or _is_variation_selector(text[i - 1]):
        return "variation-selector"
    if i + 1 < len(text) and _is_variation_selector(text[i + 1]):
        return "variation-selector"
    if ord(text[i]) >= 0xE0100 and not _is_ideograph(text[i - 1]):
        return "variation-selector"
    return None


def _hidden_kind(text: str, i: int, flags: list[tuple[int, int]]) -> str | None:
    """The quarantine kind of the hidden character at position I, or None where it is legitimate."""
    char = text[i]
    if char in _BIDI:
        return "bidi-control"
    if char in "\u200b\u200c\u200d":
        return _joiner_kind(text, i)
    if char == "\ufeff" and i == 0:
        return None  # a byte order mark
    if char in _INVISIBLE:
        return "zero-width"
    if 0xE0000 <= ord(char) <= 0xE007F:
        return None if any(a <= i < b for a, b in flags) else "tag-char"
    if _is_variation_selector(char):
        return _variation_selector_kind(text, i)
    return "control-char"


@functools.lru_cache(maxsize=512)
def _static_kind(char: str) -> str:
    """The kind of a hidden character with hidden characters on both sides (no legitimate use)."""
    code = ord(char)
    if char in _BIDI:
        return "bidi-control"
    if char in _INVISIBLE:
        return "zero-width"
    if 0xE0000 <= code <= 0xE007F:
        return "tag-char"
    return "variation-selector" if _is_variation_selector(char) else "control-char"


def _hidden_findings(text: str) -> Counter[str]:
    """Counts of hidden, bidirectional and control characters, by kind.

    Short runs are judged one character at a time, in context; a long run of hidden characters
    has no legitimate reading (emoji and flag sequences are short), so it is counted in bulk.
    """
    counts: Counter[str] = Counter()
    if "\u200b" in text or "\u200c" in text or "\u200d" in text:
        text = _SCRIPT_JOINERS.sub("", text)
    runs = list(_HIDDEN_RUN.finditer(text))
    if not runs:
        return counts
    flags = [m.span() for m in _FLAG_TAGS.finditer(text)]
    for run in runs:
        if run.end() - run.start() > _LONG_RUN:
            for char, n in Counter(run.group()).items():
                counts[_static_kind(char)] += n
            if run.start() == 0 and text[0] == "\ufeff":
                counts["zero-width"] -= 1
        else:
            kinds = (_hidden_kind(text, i, flags) for i in range(run.start(), run.end()))
            counts.update(k for k in kinds if k)
    return +counts


# --- prompt injection -------------------------------------------------------------------------


def _each(starts: str, rest: str) -> list[str]:
    """One pattern per leading word, so each begins with a literal the engine can search for."""
    return [word + rest for word in starts.split()]


_EARLIER = r"(?:previous|prior|above|preceding|earlier|foregoing|former|original|initial)"
_ORDERS = r"(?:instructions?|prompts?|directives?)"
# Matched against the lowercased text.
_INJECTION = tuple(
    re.compile(p)
    for p in [
        # "ignore all previous instructions", "disregard the above prompt"
        *_each(
            "ignore disregard forget override",
            rf"\s+(?:(?:all|any|the|your|of|my)\s+)*{_EARLIER}\s+(?:\w+\s+)?{_ORDERS}\b",
        ),
        # "ignore all instructions above", "forget the instructions you were given"
        *_each(
            "ignore disregard forget",
            rf"\s+(?:(?:all|any|the|your)\s+)*{_ORDERS}\s+(?:above|before\s+this|given\s+"
            r"(?:above|before|earlier|previously)|you\s+(?:were|have\s+been)\s+given)\b",
        ),
        # "disregard the system prompt"
        *_each(
            "ignore disregard forget",
            r"\s+(?:(?:all|any|of)\s+)*(?:the|your|these|this)\s+(?:system|developer)\s+"
            r"(?:prompt|message|instructions?)\b",
        ),
        r"forget\s+(?:all\s+|everything\s+)+you(?:'ve|\s+have|\s+were)\s+(?:been\s+)?"
        r"(?:told|taught|instructed)\b",
        # persona takeover: "you are now DAN", "you are now acting as ..."
        r"you\s+are\s+now\s+(?:in\s+)?(?:an?\s+|the\s+)?(?:dan\b|jailbroken|unrestricted|"
        r"unfiltered|uncensored|developer\s+mode|god\s+mode|no\s+longer\s+bound|free\s+from\s+"
        r"(?:all|any|your))",
        r"you\s+are\s+now\s+(?:acting\s+as|playing\s+the\s+role|roleplaying|going\s+to\s+"
        r"(?:act|pretend|roleplay))\b",
        r"you\s+are\s+now\s+an?\s+(?:different|new)\s+(?:ai|assistant|model|persona|agent)\b",
        r"from\s+now\s+on,?\s+you\s+(?:are|will|must|shall)\s+(?:act\s+as|pretend|ignore|"
        r"disregard|no\s+longer)\b",
        r"pretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+(?:restrictions|rules|guidelines)\b",
        # chat-template role markers
        r"<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id)\|>",
        r"<<\s*sys\s*>>",
        r"\[/?inst\]",
        r"<\s*(?:system|system[_-]prompt)\s*>(?![\w .+-]{0,40}</\s*system\s*>)",
    ]
)
# "New instructions:" opening a line.
_NEW_ORDERS = re.compile(r"instructions?\s*:")
_NEW_ORDERS_LEAD = re.compile(r"[ \t>#*_-]{0,8}(?:new|real|actual|true)\s+(?:system\s+)?")
# Matched against the original text: only the shouted form is a marker.
_INJECTION_UPPER = tuple(
    re.compile(p)
    for p in _each(
        "BEGIN START",
        r"\s+(?:OF\s+)?(?:THE\s+)?(?:SYSTEM|DEVELOPER)\s+(?:PROMPT|MESSAGE|INSTRUCTIONS)\b",
    )
)


def _injection_count(text: _Text) -> int:
    """How many prompt-injection override phrases the text holds."""
    count = 0
    for pattern in _INJECTION:
        count += sum(1 for m in pattern.finditer(text.low) if _starts_word(text.low, m.start()))
    for pattern in _INJECTION_UPPER:
        count += sum(1 for m in pattern.finditer(text.raw) if _starts_word(text.raw, m.start()))
    for m in _NEW_ORDERS.finditer(text.low):
        line_start = text.low.rfind("\n", max(0, m.start() - 40), m.start()) + 1
        at_line_start = line_start > 0 or m.start() <= 40
        if at_line_start and _NEW_ORDERS_LEAD.fullmatch(text.low, line_start, m.start()):
            count += 1
    return count


# --- mixed scripts ----------------------------------------------------------------------------

_CG = "\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f"
_LATIN_OR_DIGIT = "A-Za-z0-9_\u00c0-\u024f"
# A Cyrillic or Greek letter touching a Latin letter, digit or underscore: a word may mix scripts.
_SCRIPT_SEAM = re.compile(f"[{_CG}](?:(?<=[{_LATIN_OR_DIGIT}].)|(?=[{_LATIN_OR_DIGIT}]))")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"\w+")
# Cyrillic and Greek letters that look like Latin ones.
_CONFUSABLES = frozenset(
    "АВЕЅІЈКМНОРСТУХЁЇаеорсухѕіјԁһӏԛԝүёї"  # Cyrillic
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορτυχ"  # Greek
)


def _mixed_script_count(text: str) -> int:
    """Words that mix Latin letters with Cyrillic or Greek look-alikes."""
    count, covered = 0, -1
    for seam in _SCRIPT_SEAM.finditer(text):
        if seam.start() < covered:
            continue
        start = seam.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        word = _WORD.match(text, start)
        covered = word.end() if word else seam.end()
        if word and _LATIN.search(word.group()) and any(c in _CONFUSABLES for c in word.group()):
            count += 1
    return count


# --- value checks: what is not a secret ------------------------------------------------------

# Published documentation examples: shown in vendor docs, never live credentials.
_DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    }
)
_DOCUMENTED_FRAGMENTS = ("K7MDENG/bPxRfiCY",)  # the AWS documentation secret key, reused


def _forms(*words: str) -> str:
    """Words as written in lowercase, UPPERCASE and Capitalized, never in random mixed case."""
    return "|".join(f"{w}|{w.upper()}|{w.capitalize()}" for w in words)


# Words and shapes that mark a value as a placeholder. Words match only in one consistent case,
# so random key material, which mixes cases, almost never holds one by chance.
_PLACEHOLDER = re.compile(
    f"{_forms('example', 'placeholder', 'changeme', 'dummy', 'fake', 'sample', 'redacted')}|"
    f"{_forms('quickstart', 'insecure', 'todo', 'fixme', 'replace', 'string', 'notreal')}|"
    f"(?:{_forms('your', 'insert', 'change', 'not')})[_-]|[_-](?:{_forms('here', 'me')})\\b|"
    r"<[^>]*>|\$\{|\{\{|%\(|%s\b|xxxx|XXXX|\*\*\*\*|\.\.\.|(?i:not[_-]a[_-]real)"
)
# For fixed-shape tokens only the loudest fillers count.
_FILLER = re.compile(r"EXAMPLE|[Ee]xample|(.)\1{5}")
_SEQUENCE_LENGTH = 6
_SEQUENCE_GRAMS = frozenset(
    alphabet[i : i + _SEQUENCE_LENGTH]
    for alphabet in ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    for i in range(len(alphabet) - _SEQUENCE_LENGTH + 1)
)
_B64_VALUE = re.compile(r"[A-Za-z0-9+/]{12,}={0,2}")


def _char_classes(value: str) -> int:
    """How many of lower case, upper case, digits and other characters VALUE uses."""
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


def _low_variety(value: str) -> bool:
    distinct = len(set(value))
    return distinct <= 3 or (len(value) >= 16 and distinct <= 5)


def _has_sequence(value: str) -> bool:
    """True when VALUE holds a run like ``012345`` or ``ABCDEF``: typed by hand, not random."""
    return any(value[i : i + _SEQUENCE_LENGTH] in _SEQUENCE_GRAMS for i in range(len(value) - 5))


def _mostly_printable(text: str) -> bool:
    printable = sum(1 for c in text if c.isprintable() or c in "\t\n\r")
    return printable >= 0.95 * len(text)


def _decoded_text(value: str) -> str | None:
    """VALUE decoded from base64 when that gives printable text, else None."""
    if len(value) % 4 or not _B64_VALUE.fullmatch(value):
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded if decoded and _mostly_printable(decoded) else None


def _looks_placeholder(value: str) -> bool:
    """Placeholders, templates, documented examples and low-variety fillers, even base64-wrapped."""
    if value in _DOCUMENTED_EXAMPLES or _PLACEHOLDER.search(value) or _low_variety(value):
        return True
    if any(fragment in value for fragment in _DOCUMENTED_FRAGMENTS):
        return True
    decoded = _decoded_text(value)
    return decoded is not None and _looks_placeholder(decoded.strip())


def _token_is_real(token: str, body: str) -> bool:
    """For fixed-shape tokens: not a documented example, a filler or a typed sequence."""
    if token in _DOCUMENTED_EXAMPLES or _low_variety(body) or _FILLER.search(body):
        return False
    return not _has_sequence(body)


_STOPWORDS = frozenset(
    "true false null none nil undefined string str bytes int required optional hidden masked "
    "secret secrets password passwd passphrase token apikey api_key key bearer basic env vault "
    "empty unset default write read pass pwd x-oauth-basic".split()
)
# Interpolations, substitutions, markup and code: the value is filled in elsewhere.
_TEMPLATE = re.compile(
    r"\$[{(]|\\\$|\$\\\{|#\{|%\{|\{\{|\[\[|\{\.|@@|&lt;|&gt;|\\\(|`|^\$|\$$|^#!"
    r"|\$[A-Z_][A-Z0-9_]{2,}(?![a-z])|^%[A-Za-z_]+%$|^\[.*\]$|^__.*__$|^\{[A-Za-z_]+\}$"
    r"|[A-Za-z_]\w{3,}\(|[\"']\s*\+\s*"
)
# Names: words, possibly joined (kebab, snake, dotted, CamelCase), with a short number. A word is
# lower case, UPPER CASE or Capitalized; random letters, which flip case often, are not words.
_LOWER = r"[^\W\d_A-Z]"
_SEGMENT = (
    rf"(?:(?=[^\W\d_]){_LOWER}*+(?:[A-Z]{_LOWER}{{2,}}+)*+(?![A-Z])|[A-Z]++"
    r"|[A-Za-z]{0,6}\d{1,4}[A-Za-z]{0,6}|\[\*\])"
)
_NAME = re.compile(rf"[-_.]?{_SEGMENT}(?:[-_.|: ]+{_SEGMENT})*[!?.,=]?")
_WORD_WITH_NUMBER = re.compile(r"[A-Za-z]{0,6}\d{1,4}[A-Za-z]{0,6}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_PATH = re.compile(r"(?:[a-z0-9_.:*#!\[\]~-]*/)+[a-z0-9_.:*\[\]-]*")
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:json|ya?ml|txt|tmpl|conf|cfg|ini|env|pem|key|crt|svg|png|jpe?g|xml|toml)"
)
_CREDENTIAL_IN_VALUE = re.compile(r"(?i)passw|secret|token")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9+/]{20,}")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_DOTTED_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)+")
_IDENTIFIER = re.compile(r"[A-Za-z_]+")


def _has_random_run(value: str) -> bool:
    """True when VALUE holds 20+ base64 characters mixing upper case, lower case and digits."""
    return any(_char_classes(run) >= 3 for run in _RANDOM_RUN.findall(value))


def _is_prose(value: str) -> bool:
    """Two or more plain lowercase words: a sentence, not key material."""
    return sum(1 for word in value.split() if word.isalpha() and word.islower()) >= 2


def _looks_like_name(value: str, passwordish: bool) -> bool:
    """Names of things rather than secret material: words, paths, file names, UUIDs."""
    if _UUID.fullmatch(value) or _PATH.fullmatch(value) or _FILE_NAME.fullmatch(value):
        return True
    if not _NAME.fullmatch(value):
        return False
    # A single word with a number is a (weak) password, but a name anywhere else.
    return not (passwordish and _WORD_WITH_NUMBER.fullmatch(value))


def _looks_like_reference(value: str) -> bool:
    """Unquoted values that name something else: a variable, a member, a constant, an env var."""
    if value[0] in "$%&@" or value.startswith(("/", "./", "../", "~/")):
        return True
    if _DOTTED_REFERENCE.fullmatch(value):
        return True
    if _IDENTIFIER.fullmatch(value):
        upper = sum(1 for c in value if c.isupper())
        return "_" in value or (0 < upper <= max(1, len(value) // 4) and not value[0].isupper())
    return False


@functools.lru_cache(maxsize=4096)
def _trivial_value(value: str, key: str, quoted: bool) -> bool:
    """True when an assigned VALUE is not worth redacting: a word, a name, a reference..."""
    value = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value.strip().strip("'\""))
    key = key.lower()
    passwordish = key.endswith(("password", "passwd", "passphrase"))
    if len(value) < (6 if passwordish else 8) or "hash" in key:
        return True
    if value.lower() in _STOPWORDS or value.lower() == key or "://" in value:
        return True
    if _looks_placeholder(value) or _TEMPLATE.search(value) or _has_sequence(value):
        return True
    if _looks_like_name(value, passwordish) or _is_prose(value):
        return True
    if _CREDENTIAL_IN_VALUE.search(value) and not _has_random_run(value):
        return True
    if not quoted and _looks_like_reference(value):
        return True
    return not passwordish and (_char_classes(value) < 2 or value.isdigit())


# --- redaction rules --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hit:
    """A span to replace. PRIORITY decides overlaps (lower wins); INNER counts nested findings."""

    start: int
    end: int
    kind: str
    priority: int
    replacement: str | None = None
    inner: tuple[str, ...] = ()
    keep: bool = False  # a span known not to be a secret: kept as it is, and not looked into

    @property
    def text(self) -> str:
        return self.replacement if self.replacement is not None else f"[REDACTED:{self.kind}]"

    @property
    def kinds(self) -> tuple[str, ...]:
        return () if self.keep else self.inner or (self.kind,)


_PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?: BLOCK)?-----")
_PEM_TAIL = re.compile(r"(?:[A-Za-z0-9+/=\s]|\\[nr]){0,20000}")
_PEM_DECORATION = re.compile(r"^(?:\s|[*#;\"'`+,]|//)+|(?:\s|[\"'`+,;]|\\)+$")
_BASE64_BODY = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_HEX = re.compile(r"[0-9A-Fa-f]+")
_PEM_MAX = 20000


def _pem_body_is_key(body: str) -> bool:
    """True when BODY reads as key material: base64 (not hex), long enough, not a filler.

    Lines may carry comment or string decoration (`` * ``, ``"...\\n" +``) and armor headers.
    """
    kept = []
    for line in body.replace("\\r", "").replace("\\n", "\n").splitlines():
        line = _PEM_DECORATION.sub("", line)
        if line and ":" not in line and not (line.startswith("=") and len(line) <= 5):
            kept.append(line)
    joined = "".join(kept)
    if len(joined) < 40 or not _BASE64_BODY.fullmatch(joined) or _HEX.fullmatch(joined):
        return False
    return not (_low_variety(joined) or "EXAMPLE" in joined)


@functools.lru_cache(maxsize=64)
def _pem_end(label: str) -> re.Pattern[str]:
    return re.compile(rf"-----END {re.escape(label)}PRIVATE KEY(?: BLOCK)?-----")


def _pem_hits(text: _Text) -> Iterator[_Hit]:
    """PEM/OpenSSH/PGP private key blocks, BEGIN through END (or through the body if cut off)."""
    raw = text.raw
    begins = list(_PEM_BEGIN.finditer(raw))
    for n, begin in enumerate(begins):
        label = begin.group("label")
        if _FILLER.search(label):
            continue
        # An END belongs to this BEGIN only if no other BEGIN comes first: scans stay linear.
        next_begin = begins[n + 1].start() if n + 1 < len(begins) else len(raw)
        limit = min(next_begin, begin.end() + _PEM_MAX)
        end = _pem_end(label).search(raw, begin.end(), limit)
        if end:
            stop, body = end.end(), raw[begin.end() : end.start()]
        else:
            tail = _PEM_TAIL.match(raw, begin.end(), limit)
            stop = tail.end() if tail else begin.end()
            body = raw[begin.end() : stop]
        if _pem_body_is_key(body):
            yield _Hit(begin.start(), stop, "pem-private-key", 0)


_AWS_KEY_ID = re.compile(r"(?:AKIA|ASIA)([A-Z2-7]{16})(?![A-Za-z0-9])")
_GITHUB = re.compile(
    r"(?:gh[pousr]_([A-Za-z0-9]{36,255})|github_pat_([A-Za-z0-9_]{22,255}))(?![A-Za-z0-9_])"
)
_SLACK = re.compile(r"x(?:ox[abposr]-([A-Za-z0-9-]{10,250})|app-\d-([A-Za-z0-9-]{10,250}))")
_SLACK_WEBHOOK = re.compile(
    r"hooks\.slack\.com/(?P<v>(?:services|workflows|triggers)/([A-Za-z0-9_/-]{10,200}))"
)
# The lookbehind sits after the literal "eyJ" so the engine still searches for the literal, and a
# long run holding "eyJ" many times is not rescanned from each of them.
_JWT = re.compile(
    r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"(?![A-Za-z0-9_-])"
)

# GitHub renders every image attached to a private repository's issue or pull request as a link
# to private-user-images.githubusercontent.com signed with a jwt that expires five minutes
# later, a new one for each view: a signed link to content, not a credential anyone holds, and
# review comments carry them often. The jwt right after such a link's query stays.
_GITHUB_IMAGE_LINK = re.compile(
    r"https://private-user-images\.githubusercontent\.com/[\w./%-]{1,200}\?(?:[\w.%-]{1,200}=[\w.%-]{0,200}&)*jwt=$"
)


def _shape_hits(text: _Text) -> Iterator[_Hit]:
    """Credentials recognisable by their own shape, wherever they appear."""
    raw = text.raw
    for m in _AWS_KEY_ID.finditer(raw):
        if _starts_word(raw, m.start()) and _token_is_real(m.group(), m.group(1)):
            yield _Hit(m.start(), m.end(), "aws-access-key", 1)
    for m in _GITHUB.finditer(raw):
        if _starts_word(raw, m.start()) and _token_is_real(m.group(), m.group(1) or m.group(2)):
            yield _Hit(m.start(), m.end(), "github-token", 1)
    for m in _SLACK.finditer(raw):
        body = (m.group(1) or m.group(2)).replace("-", "")
        if _starts_word(raw, m.start(), "-") and _token_is_real(m.group(), body):
            if not _looks_placeholder(m.group()):
                yield _Hit(m.start(), m.end(), "slack-token", 1)
    for m in _SLACK_WEBHOOK.finditer(raw):
        if _token_is_real(m.group(), m.group(2).replace("/", "")):
            yield _Hit(m.start("v"), m.end("v"), "slack-webhook", 1)
    for m in _JWT.finditer(raw):
        keep = _GITHUB_IMAGE_LINK.search(raw, max(0, m.start() - 300), m.start()) is not None
        yield _Hit(m.start(), m.end(), "jwt", 0 if keep else 1, replacement=m.group() if keep else None,
                   keep=keep)


_AUTH_SCHEMES = tuple(
    (scheme, re.compile(scheme + r"[ \t]+(?P<v>[a-z0-9._~+/-]{16,}=*)(?![a-z0-9._~+/=-])"))
    for scheme in ("bearer", "token", "basic")
)
_AUTH_CONTEXT = re.compile(r"authori[sz]ation\W{0,4}$")


def _auth_header_hits(text: _Text) -> Iterator[_Hit]:
    """``Bearer <token>`` anywhere; ``token``/``Basic`` schemes after an Authorization name."""
    for scheme, pattern in _AUTH_SCHEMES:
        for m in pattern.finditer(text.low):
            if not _starts_word(text.low, m.start()):
                continue
            context = _AUTH_CONTEXT.search(text.low, max(0, m.start() - 40), m.start())
            if scheme != "bearer" and not context:
                continue
            value = text.raw[m.start("v") : m.end("v")]
            if not _looks_placeholder(value) and _char_classes(value) >= 2:
                kind = "basic-auth" if scheme == "basic" else "bearer-token"
                yield _Hit(m.start("v"), m.end("v"), kind, 2)


# An assignment is a credential word ending a key, a separator, then a quoted or bare value.
_ASSIGNED = (
    r"(?P<kq>[\"'`])?\]?[ \t]*(?P<sep>:=|=>|==|[:=]|,)[ \t]*(?:!!?\w+[ \t]+)?"
    r"(?:(?P<q>[\"'`])(?P<qv>(?:(?!(?P=q))[^\\\r\n]|\\.){1,512})(?P=q)"
    r"|(?P<bv>[^\s\"'`,;<>{}\[\]()]{1,512}))"
)
_ASSIGNMENTS = tuple(
    (word, re.compile(word + _ASSIGNED))
    for word in ("password", "passwd", "passphrase", "secret", "token", "apikey", "key")
)
_QUALIFIERS = r"(?:api|access|secret|private|auth|signing|encryption|master|client)"
_KEY_QUALIFIER = re.compile(_QUALIFIERS + r"[_-]?$")
_KEY_CHARS = re.compile(r"[\w.-]{0,80}")
_XML_ASSIGNMENT = re.compile(
    r"<(?P<tag>[\w.:-]{0,40}?(?:password|passwd|passphrase|secret|token|apikey|"
    + _QUALIFIERS
    + r"[_-]?key))>"
    r"(?P<v>[^<\s]{1,512})</"
)


def _assignment_kind(key: str, value: str) -> str:
    if "aws" in key.lower() and re.fullmatch(r"[A-Za-z0-9/+=]{40}", value):
        return "aws-secret-key"
    return "credential-assignment"


def _key_before(low: str, start: int) -> str:
    """The key characters just before START (matched backwards so each hit costs O(80))."""
    backwards = low[max(0, start - 80) : start][::-1]
    match = _KEY_CHARS.match(backwards)
    return match.group()[::-1] if match else ""


def _assignment_hits(text: _Text) -> Iterator[_Hit]:
    """``key = value``, ``key: value``, ``"key": "value"`` and ``<key>value</key>``."""
    low, raw = text.low, text.raw
    for word, pattern in _ASSIGNMENTS:
        for m in pattern.finditer(low):
            if word == "key" and not _KEY_QUALIFIER.search(low, max(0, m.start() - 12), m.start()):
                continue  # a bare "key" is too common; "api_key", "secret-key"... are not
            quoted = m.group("qv") is not None
            if m.group("sep") == "," and not (m.group("kq") and quoted):
                continue
            group = "qv" if quoted else "bv"
            key = _key_before(low, m.start()) + word
            value = raw[m.start(group) : m.end(group)]
            if not _trivial_value(value, key, quoted):
                yield _Hit(m.start(group), m.end(group), _assignment_kind(key, value), 3)
    for m in _XML_ASSIGNMENT.finditer(low):
        value = raw[m.start("v") : m.end("v")]
        if not _trivial_value(value, m.group("tag"), True):
            yield _Hit(m.start("v"), m.end("v"), _assignment_kind(m.group("tag"), value), 3)


# A workflow run on pull_request_target has the base repository's token and secrets; checking
# out the pull request's head in it runs the fork's code with them (a "pwn request"). Memory
# must not hand that pattern to an agent as one to follow: the checkout's ref goes.
_PR_TARGET = re.compile(r"(?m)^[ \t]*(?:on:[ \t]*\[?(?:[\w-]+[ \t]*,[ \t]*)*|-[ \t]*)?pull_request_target\b")
_CHECKOUT = re.compile(r"\buses:[ \t]*[\"']?actions/checkout@")
_HEAD_REF = re.compile(
    r"\$\{\{[ \t]*(?:github\.event\.pull_request\.head\.(?:sha|ref)|github\.head_ref)[ \t]*\}\}"
)


def _untrusted_checkout_hits(text: _Text) -> Iterator[_Hit]:
    """The head ref a pull_request_target workflow checks out, after ``ref:``."""
    raw = text.raw
    if "pull_request_target" not in raw or not _PR_TARGET.search(raw) or not _CHECKOUT.search(raw):
        return
    for m in _HEAD_REF.finditer(raw):
        line_start = raw.rfind("\n", 0, m.start()) + 1
        if re.match(r"[ \t]*ref:[ \t]*[\"']?$", raw[line_start : m.start()]):
            yield _Hit(m.start(), m.end(), "untrusted-checkout", 1)


_URL_PASSWORD = re.compile(
    r"://(?P<user>[^\s/:@'\"<>]{0,100}):(?P<pw>[^\s/@'\"<>]{1,200})@(?=[\w\[])"
)


def _url_password_hits(text: _Text) -> Iterator[_Hit]:
    """Passwords in ``scheme://user:password@host`` URLs (the user name stays)."""
    for m in _URL_PASSWORD.finditer(text.raw):
        password = m.group("pw")
        if password.lower() in _STOPWORDS or _looks_placeholder(password):
            continue
        if password[0] in "$%{" or len(password) < 3:
            continue
        yield _Hit(m.start("pw"), m.end("pw"), "url-credential", 3)


_HOME_POSIX = re.compile(r"/(?:Users|home)/[A-Za-z0-9._-]{1,64}(?![A-Za-z0-9._-])")
_HOME_WINDOWS = re.compile(
    r":(?P<sep>\\\\|\\|/)(?:users|documents and settings)(?P=sep)[^\\/\s\"'<>|:*?]{1,64}"
    r"(?![^\\/\s\"'<>|:*?])"
)


def _home_hits(text: _Text) -> Iterator[_Hit]:
    """Absolute home paths: the user part becomes ``~``, the rest of the path stays."""
    raw = text.raw
    for m in _HOME_POSIX.finditer(raw):
        i = m.start()
        if _starts_word(raw, i, ".~/-") or raw[i - 2 : i] == "//":
            yield _Hit(i, m.end(), "home-path", 5, replacement="~")
    for m in _HOME_WINDOWS.finditer(text.low):
        i = m.start() - 1
        if i >= 0 and raw[i].isascii() and raw[i].isalpha() and _starts_word(raw, i):
            yield _Hit(i, m.end(), "home-path", 5, replacement="~")


_B64_BLOB = re.compile(
    r"[A-Za-z0-9+/]{40,}={0,2}"
    r"(?:(?:\r?\n|\\n)[A-Za-z0-9+/]{4,}={0,2}(?=\r?\n|\\n|[\"'\s]|$))*(?![A-Za-z0-9+/=])"
)
_LINE_BREAKS = re.compile(r"\r?\n|\\n")
_MAX_DEPTH = 2
_B64_MIN = 40
_B64_MARKS = bytes(
    65 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/") else 32 for b in range(256)
)


def _base64_run_starts(text: str) -> Iterator[int]:
    """Where runs of 40+ base64 characters start: found with bytes.find, not a regex walk."""
    marks = text.encode("latin-1", "replace").translate(_B64_MARKS)  # one byte per character
    needle, position = b"A" * _B64_MIN, 0
    while (start := marks.find(needle, position)) != -1:
        yield start
        end = marks.find(b" ", start + _B64_MIN)
        if end == -1:
            return
        position = end


def _decode_blob(blob: str) -> str | None:
    """A base64 blob (possibly wrapped over lines) decoded to printable text, else None."""
    for candidate in (_LINE_BREAKS.sub("", blob), _LINE_BREAKS.split(blob)[0]):
        candidate = candidate.rstrip("=")
        candidate += "=" * (-len(candidate) % 4)
        try:
            decoded = base64.b64decode(candidate, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded and _mostly_printable(decoded):
            return decoded
    return None


# --- the default scanner ----------------------------------------------------------------------

_Rule = Callable[[_Text], Iterable[_Hit]]
_RULES: tuple[_Rule, ...] = (
    _pem_hits,
    _shape_hits,
    _untrusted_checkout_hits,
    _auth_header_hits,
    _assignment_hits,
    _url_password_hits,
    _home_hits,
)


def _resolve(hits: Iterable[_Hit]) -> list[_Hit]:
    """Non-overlapping hits: the lower priority first, then the earlier and longer."""
    starts: list[int] = []
    accepted: list[_Hit] = []  # sorted by start, never overlapping
    for hit in sorted(hits, key=lambda h: (h.priority, h.start, h.start - h.end)):
        i = bisect.bisect_right(starts, hit.start)
        if i and accepted[i - 1].end > hit.start:
            continue
        if i < len(accepted) and accepted[i].start < hit.end:
            continue
        starts.insert(i, hit.start)
        accepted.insert(i, hit)
    return accepted


def _apply(text: str, hits: list[_Hit]) -> str:
    """TEXT with every hit replaced."""
    parts, position = [], 0
    for hit in hits:
        parts += [text[position : hit.start], hit.text]
        position = hit.end
    parts.append(text[position:])
    return "".join(parts)


def _findings(counts: Counter[tuple[str, str]]) -> tuple[Finding, ...]:
    """Findings in a stable order: quarantine, redact, warn, then by kind."""
    ordered = sorted(counts.items(), key=lambda item: (_ACTION_ORDER[item[0][1]], item[0][0]))
    return tuple(Finding(kind, action, count) for (kind, action), count in ordered)


# --- the content of a repository file ----------------------------------------------------------
#
# Only when a text is known to be the content of a file does where it lives count, and only
# through rules written here or lists the repository's maintainers keep; never through what the
# text says of itself, except for the generic credential guess on a line whose author marked it.

# Places where private key material is not a secret: key files named as stand-ins, test suites,
# and installed software (binaries, libraries and data files that embed key formats).
_KEY_PLACES = re.compile(
    r"(?i)(?:^|/)[^/]*(?:dummy|example|fake|mock|sample|stub)[^/]*(?:key|\.pem|\.priv)[^/]*$"
    r"|(?:^|/)(?:tests?|testdata|test[-_]data|fixtures)/"
    r"|(?:^|/)usr/(?:s?bin|lib(?:32|64|exec)?|share)/|^/s?bin/|(?:^|/)lib(?:32|64)/"
)
# Secret-scanner markers a file's author puts on a line that only looks like a credential, or
# in a comment line just above it.
_PRAGMA = re.compile(
    r"(?i)gitleaks:allow|\bnosec\b|\bno[nt][ _-]?secrets?\b|pragma:[ \t]*allowlist[ \t]+(?:nextline[ \t]+)?secret"
)
_COMMENT_LINE = re.compile(r"[ \t]*(?:#|//|/?\*|<!--|--|;)")
_GUESSES = frozenset({"credential-assignment"})


@dataclass(frozen=True)
class Allowlist:
    """Findings a repository's maintainers have declared are not secrets, one per entry
    ``PATH:KIND:LINE`` (a file of the repository, a finding kind, the 1-based line where the
    finding starts), as kept in the repository's ``.gitstore-allow``."""

    entries: frozenset[tuple[str, str, int]] = frozenset()

    FILE_NAME = ".gitstore-allow"

    @classmethod
    def parse(cls, text: str, name: str = FILE_NAME) -> Allowlist:
        """Read an allow list; a malformed entry is an error naming its line."""
        from gitstore.errors import InvalidInput  # the scanner itself imports nothing from gitstore

        entries = set()
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            path, _, rest = line.rpartition(":")
            path, _, kind = path.rpartition(":")
            if not path or not re.fullmatch(r"[a-z0-9-]+", kind) or not rest.isdigit() or int(rest) < 1:
                raise InvalidInput(f"{name}:{number}: expected PATH:KIND:LINE, got {line[:80]!r}")
            entries.add((path, kind, int(rest)))
        return cls(frozenset(entries))

    def covers(self, path: str, kinds: Iterable[str], line: int) -> bool:
        return any((path, kind, line) in self.entries for kind in kinds)


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


def _standing_in_file(text: str, path: str, hits: list[_Hit], allow: Allowlist) -> list[_Hit]:
    """The hits that stand once TEXT is known to be the content of the file at PATH."""
    if not hits:
        return hits
    key_place = _KEY_PLACES.search(path) is not None
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
        if allow.covers(path, hit.kinds, line):
            continue
        kept.append(hit)
    return kept


class ConservativeScanner:
    """The default scanner: quarantines hidden text and injections, redacts secrets and homes.

    ``allow`` holds what the repository's maintainers declared is not a secret; it and the
    rules for key material by place apply only to a text scanned as a file's content.
    """

    def __init__(self, allow: Allowlist | None = None) -> None:
        self.allow = allow or Allowlist()

    def scan(self, text: str, *, path: str | None = None) -> ScanResult:
        """Scan TEXT (the content of the file at ``path``, when given); the module
        documentation states the policy."""
        view = _Text.of(text)
        counts: Counter[tuple[str, str]] = Counter()
        for kind, count in _hidden_findings(text).items():
            counts[(kind, QUARANTINE)] = count
        if injections := _injection_count(view):
            counts[("prompt-injection", QUARANTINE)] = injections
        hits = self._redactions(view, 0)
        if path is not None:
            hits = _standing_in_file(text, path, hits, self.allow)
        counts.update((kind, REDACT) for hit in hits for kind in hit.kinds)
        if mixed := _mixed_script_count(text):
            counts[("mixed-script", WARN)] = mixed
        findings = _findings(counts)
        quarantined = any(f.action == QUARANTINE for f in findings)
        return ScanResult(_apply(text, hits), quarantined, findings)

    def _redactions(self, text: _Text, depth: int) -> list[_Hit]:
        """Every redaction in TEXT, including inside base64 blobs down to a fixed depth."""
        hits = [hit for rule in _RULES for hit in rule(text)]
        if depth < _MAX_DEPTH:
            hits.extend(self._blob_hits(text.raw, depth))
        return _resolve(hits)

    def _blob_hits(self, text: str, depth: int) -> Iterator[_Hit]:
        """Base64 blobs whose decoded text needs a redaction: the whole blob goes."""
        covered = 0
        for run in _base64_run_starts(text):
            m = _B64_BLOB.match(text, run) if run >= covered else None
            if m is None:
                continue
            covered, start = m.end(), m.start()
            if start and text[start - 1] == "\\" and text[start] in "nrt":
                start += 1  # the blob follows an escaped line break: "...\\nb3Bl..."
            elif not _starts_word(text, start, "+/="):
                continue
            decoded = _decode_blob(text[start : m.end()])
            if decoded is None:
                continue
            inner = self._redactions(_Text.of(decoded), depth + 1)
            kinds = tuple(k for hit in inner for k in hit.kinds if k != "home-path")
            if kinds:
                yield _Hit(start, m.end(), kinds[0], 4, inner=kinds)


_DEFAULT = ConservativeScanner()


def default_scanner() -> SafetyScanner:
    """The scanner gitstore uses unless told otherwise."""
    return _DEFAULT


__all__ = [
    "QUARANTINE",
    "REDACT",
    "WARN",
    "Allowlist",
    "ConservativeScanner",
    "Finding",
    "SafetyScanner",
    "ScanResult",
    "default_scanner",
]
