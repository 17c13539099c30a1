"""The safety scanner: what gitstore refuses, what it redacts, and what it only warns about.

Every text that reaches the store from outside (captured sessions, imports, review comments,
proposals from labelers and consolidators) and every text about to be shown to an agent goes
through a :class:`SafetyScanner`. The scanner is a Protocol so a deployment can plug in its own;
:class:`ConservativeScanner` is the default. Its policy has three levels:

- **quarantine** (blocking): characters that make text read differently from what it says,
  and text that tries to take over an agent. Bidirectional controls, zero-width and other
  invisible characters (outside the few places where a script or an emoji sequence needs them),
  C0/C1 control characters other than tab, newline and carriage return, tag characters and
  runs of variation selectors used as a hidden payload, and prompt-injection override text
  ("ignore all previous instructions", role tags such as ``<|im_start|>``...). Quarantined
  text must never be stored, hashed through or used as evidence.
- **redact** (defense in depth; keeping secrets out by choosing sources comes first): cloud and
  forge credentials with a recognisable shape (AWS access key ids, GitHub, Slack and bearer
  tokens, JWTs, PEM private key blocks), ``key = value`` credential assignments with a
  non-trivial value, passwords in URLs, and base64 blobs whose decoded text holds one of these.
  Absolute home paths keep their tail and lose the user name (``/home/alice/src`` becomes
  ``~/src``); project-relative paths are left alone. Placeholders, templates, references to
  variables and documented example values are not secrets and stay.
- **warn**: a single word mixing Latin letters with Cyrillic or Greek look-alikes (a homoglyph,
  ``sayНello``). Text written in another script, or in several, is legitimate and gets no finding.

A :class:`ScanResult` carries the redacted text and findings made of kinds and counts only,
never the material that was found.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
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

    @property
    def clean(self) -> bool:
        """True when the scanner found nothing at all."""
        return not self.findings

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

    def scan(self, text: str) -> ScanResult:
        """Scan TEXT and return the redacted text, the quarantine verdict and the findings."""
        ...


# --- hidden characters ------------------------------------------------------------------------

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_ZERO_WIDTH = frozenset(
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\u206a\u206b\u206c\u206d\u206e\u206f"
    "\ufeff\u180e\u3164\uffa0"
)
_HIDDEN = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\ufeff\u180e\u3164\uffa0\U000e0000-\U000e007f\ufe00-\ufe0f\U000e0100-\U000e01ef"
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,6}\U000e007f")
# Scripts that need ZWJ/ZWNJ between letters, and scripts written without spaces that use ZWSP.
_JOINING_SCRIPTS = frozenset(
    "ARABIC SYRIAC NKO MANDAIC MONGOLIAN DEVANAGARI BENGALI GURMUKHI GUJARATI ORIYA TAMIL "
    "TELUGU KANNADA MALAYALAM SINHALA MYANMAR KHMER TIBETAN".split()
)
_SPACELESS_SCRIPTS = frozenset("THAI LAO KHMER MYANMAR TIBETAN JAVANESE BALINESE".split())


def _script(char: str) -> str:
    """First word of the character's Unicode name: a cheap stand-in for its script."""
    return unicodedata.name(char, "").split(" ", 1)[0]


def _is_letter_or_mark(char: str) -> bool:
    return unicodedata.category(char)[0] in "LM"


def _in_script_context(text: str, i: int, scripts: frozenset[str]) -> bool:
    """True when the characters either side of position I are letters of one of SCRIPTS."""
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    return all(_is_letter_or_mark(c) and _script(c) in scripts for c in (before, after))


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return code >= 0x1F000 or 0x2190 <= code <= 0x2BFF or char in "\ufe0f\u00a9\u00ae"


def _is_ideograph(char: str) -> bool:
    code = ord(char)
    return 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF


def _hidden_kind(text: str, i: int, flag_spans: list[tuple[int, int]]) -> str | None:
    """The quarantine kind of the hidden character at position I, or None where it is legitimate."""
    char = text[i]
    code = ord(char)
    if char in _BIDI:
        return "bidi-control"
    if char == "\ufeff":
        return None if i == 0 else "zero-width"
    if char == "\u200d":
        emoji = 0 < i < len(text) - 1 and _is_emoji(text[i - 1]) and _is_emoji(text[i + 1])
        return None if emoji or _in_script_context(text, i, _JOINING_SCRIPTS) else "zero-width"
    if char == "\u200c":
        return None if _in_script_context(text, i, _JOINING_SCRIPTS) else "zero-width"
    if char == "\u200b":
        return None if _in_script_context(text, i, _SPACELESS_SCRIPTS) else "zero-width"
    if char in _ZERO_WIDTH:
        return "zero-width"
    if 0xE0000 <= code <= 0xE007F:
        return None if any(a <= i < b for a, b in flag_spans) else "tag-char"
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return _variation_selector_kind(text, i)
    return "control-char"


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _variation_selector_kind(text: str, i: int) -> str | None:
    """One selector after an ordinary character is legitimate; runs of them carry a payload."""
    if i == 0 or _is_variation_selector(text[i - 1]):
        return "variation-selector"
    if i + 1 < len(text) and _is_variation_selector(text[i + 1]):
        return "variation-selector"
    if ord(text[i]) >= 0xE0100 and not _is_ideograph(text[i - 1]):
        return "variation-selector"
    return None


def _hidden_findings(text: str) -> Counter[str]:
    """Counts of hidden, bidirectional and control characters, by kind."""
    counts: Counter[str] = Counter()
    matches = list(_HIDDEN.finditer(text))
    if not matches:
        return counts
    flag_spans = [m.span() for m in _FLAG_TAGS.finditer(text)]
    for match in matches:
        kind = _hidden_kind(text, match.start(), flag_spans)
        if kind:
            counts[kind] += 1
    return counts


# --- prompt injection -------------------------------------------------------------------------

_EARLIER = r"(?:previous|prior|above|preceding|earlier|foregoing|former|original|initial)"
_ORDERS = r"(?:instructions?|prompts?|directives?)"
_INJECTION_ANY_CASE = re.compile(
    "|".join(
        [
            # "ignore all previous instructions", "disregard the above prompt"
            rf"\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any|the|your|of|my)\s+)*"
            rf"{_EARLIER}\s+(?:\w+\s+)?{_ORDERS}\b",
            # "ignore all instructions above", "forget the instructions you were given"
            rf"\b(?:ignore|disregard|forget)\s+(?:(?:all|any|the|your)\s+)*{_ORDERS}\s+"
            r"(?:above|before\s+this|given\s+(?:above|before|earlier|previously)|"
            r"you\s+(?:were|have\s+been)\s+given)\b",
            # "disregard the system prompt"
            r"\b(?:ignore|disregard|forget)\s+(?:(?:all|any|of)\s+)*(?:the|your|these|this)\s+"
            r"(?:system|developer)\s+(?:prompt|message|instructions?)\b",
            r"\bforget\s+(?:all\s+|everything\s+)+you(?:'ve|\s+have|\s+were)\s+(?:been\s+)?"
            r"(?:told|taught|instructed)\b",
            # persona takeover: "you are now DAN", "you are now acting as ..."
            r"\byou\s+are\s+now\s+(?:in\s+)?(?:an?\s+|the\s+)?(?:DAN\b|jailbroken|unrestricted|"
            r"unfiltered|uncensored|developer\s+mode|god\s+mode|no\s+longer\s+bound|free\s+from\s+"
            r"(?:all|any|your))",
            r"\byou\s+are\s+now\s+(?:acting\s+as|playing\s+the\s+role|roleplaying|going\s+to\s+"
            r"(?:act|pretend|roleplay))\b",
            r"\byou\s+are\s+now\s+an?\s+(?:different|new)\s+(?:ai|assistant|model|persona|agent)\b",
            r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|shall)\s+(?:act\s+as|pretend|ignore|"
            r"disregard|no\s+longer)\b",
            r"\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+(?:restrictions|rules|guidelines)\b",
            # a new set of orders opening a line: "New instructions:", "Real instructions:"
            r"^[ \t>#*_-]*(?:new|real|actual|true)\s+(?:system\s+)?instructions?\s*:",
            # chat-template role markers
            r"<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id)\|>",
            r"<<\s*SYS\s*>>",
            r"\[/?INST\]",
            r"<\s*(?:system|system[_-]prompt)\s*>(?![\w .+-]{0,40}</\s*system\s*>)",
        ]
    ),
    re.IGNORECASE | re.MULTILINE,
)
_INJECTION_UPPER = re.compile(
    r"\b(?:BEGIN|START)\s+(?:OF\s+)?(?:THE\s+)?(?:SYSTEM|DEVELOPER)\s+(?:PROMPT|MESSAGE|INSTRUCTIONS)\b"
)


def _injection_count(text: str) -> int:
    """How many prompt-injection override phrases the text holds."""
    return sum(1 for _ in _INJECTION_ANY_CASE.finditer(text)) + sum(
        1 for _ in _INJECTION_UPPER.finditer(text)
    )


# --- mixed scripts ----------------------------------------------------------------------------

_CYRILLIC_OR_GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"\w+")
# Cyrillic and Greek letters that look like Latin ones.
_CONFUSABLES = frozenset(
    "АВЕЅІЈКМНОРСТУХЁЇаеорсухѕіјԁһӏԛԝүёї"
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορτυχ"
)


def _mixed_script_count(text: str) -> int:
    """Words that mix Latin letters with Cyrillic or Greek look-alikes."""
    count = 0
    covered = -1
    for match in _CYRILLIC_OR_GREEK.finditer(text):
        i = match.start()
        if i < covered:
            continue
        start = i
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        word_match = _WORD.match(text, start)
        word = word_match.group() if word_match else text[i]
        covered = start + len(word)
        if _LATIN.search(word) and any(c in _CONFUSABLES for c in word):
            count += 1
    return count


# --- redaction: shared value checks -----------------------------------------------------------

# Published documentation examples: shown in vendor docs, never live credentials.
_DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    }
)

def _forms(*words: str) -> str:
    """A word as written in lowercase, UPPERCASE and Capitalized, never in random mixed case."""
    return "|".join(f"{w}|{w.upper()}|{w.capitalize()}" for w in words)


# Words and shapes that mark a value as a placeholder. Words match only in one consistent case,
# so random key material (mixed case) almost never contains one by chance.
_DOCUMENTED_FRAGMENTS = ("K7MDENG/bPxRfiCY",)  # the AWS documentation secret key, reused
_PLACEHOLDER = re.compile(
    f"(?:{_forms('example', 'placeholder', 'changeme', 'dummy', 'fake', 'sample', 'redacted')})|"
    f"(?:{_forms('quickstart', 'insecure', 'todo', 'fixme', 'replace', 'string', 'notreal')})|"
    f"(?:{_forms('your', 'insert', 'change', 'not')})[_-]|[_-](?:{_forms('here', 'me')})\\b|"
    r"<[^>]*>|\$\{|\{\{|%\(|%s\b|xxxx|XXXX|\*\*\*\*|\.\.\.|(?i:not[_-]a[_-]real)"
)
# For fixed-shape tokens and key blocks only the loudest fillers count.
_FILLER = re.compile(r"EXAMPLE|[Ee]xample|(.)\1{5}")
_B64_VALUE = re.compile(r"[A-Za-z0-9+/]{12,}={0,2}")
_SEQUENCES = ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _decoded_text(value: str) -> str | None:
    """VALUE decoded from base64 when that gives printable text, else None."""
    if len(value) % 4 or not _B64_VALUE.fullmatch(value):
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded if decoded and _mostly_printable(decoded) else None


def _mostly_printable(text: str) -> bool:
    printable = sum(1 for c in text if c.isprintable() or c in "\t\n\r")
    return printable >= 0.95 * len(text)


def _looks_placeholder(value: str) -> bool:
    """Placeholders, templates, documented examples and low-variety fillers are not secrets."""
    if value in _DOCUMENTED_EXAMPLES or _PLACEHOLDER.search(value) or _low_variety(value):
        return True
    if any(fragment in value for fragment in _DOCUMENTED_FRAGMENTS):
        return True
    decoded = _decoded_text(value)
    return decoded is not None and _looks_placeholder(decoded.strip())


def _has_sequence(value: str, length: int = 6) -> bool:
    """True when VALUE holds a run like ``012345`` or ``ABCDEF``: a typed filler, not random."""
    for alphabet in _SEQUENCES:
        for start in range(len(alphabet) - length + 1):
            if alphabet[start : start + length] in value:
                return True
    return False


def _low_variety(value: str) -> bool:
    distinct = len(set(value))
    return distinct <= 3 or (len(value) >= 16 and distinct <= 5)


def _token_is_real(token: str, body: str) -> bool:
    """For fixed-shape tokens: not a documented example, a filler or a typed sequence."""
    if token in _DOCUMENTED_EXAMPLES or _low_variety(body) or _FILLER.search(body):
        return False
    return not _has_sequence(body)


def _char_classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


# --- redaction: candidates --------------------------------------------------------------------


@dataclass(frozen=True)
class _Hit:
    """A span to replace. PRIORITY decides overlaps (lower wins); INNER counts nested findings."""

    start: int
    end: int
    kind: str
    priority: int
    replacement: str | None = None
    inner: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return self.replacement if self.replacement is not None else f"[REDACTED:{self.kind}]"

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.inner or (self.kind,)


_PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?: BLOCK)?-----")
_PEM_TAIL = re.compile(r"(?:[A-Za-z0-9+/=\s]|\\[nr]){0,20000}")
_PEM_DECORATION = re.compile(r"^(?:\s|[*#;\"'`+,]|//)+|(?:\s|[\"'`+,;]|\\)+$")
_BASE64_BODY = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_HEX = re.compile(r"[0-9A-Fa-f]+")
_PEM_MAX = 20000


def _pem_body_is_key(body: str) -> bool:
    """True when BODY reads as key material: base64, long enough, not hex, not a filler."""
    lines = body.replace("\\r", "").replace("\\n", "\n").splitlines()
    kept = []
    for line in lines:
        line = _PEM_DECORATION.sub("", line)
        if not line or ":" in line or (line.startswith("=") and len(line) <= 5):
            continue
        kept.append(line)
    joined = "".join(kept)
    if len(joined) < 40 or not _BASE64_BODY.fullmatch(joined) or _HEX.fullmatch(joined):
        return False
    return not (_low_variety(joined) or "EXAMPLE" in joined)


def _pem_hits(text: str) -> Iterator[_Hit]:
    """PEM/OpenSSH/PGP private key blocks, BEGIN through END (or through the body if cut off)."""
    for begin in _PEM_BEGIN.finditer(text):
        label = begin.group("label")
        if _FILLER.search(label):
            continue
        end_marker = re.compile(rf"-----END {re.escape(label)}PRIVATE KEY(?: BLOCK)?-----")
        end = end_marker.search(text, begin.end(), begin.end() + _PEM_MAX)
        if end:
            body, stop = text[begin.end() : end.start()], end.end()
        else:
            tail = _PEM_TAIL.match(text, begin.end())
            stop = tail.end() if tail else begin.end()
            body = text[begin.end() : stop]
        if _pem_body_is_key(body):
            yield _Hit(begin.start(), stop, "pem-private-key", 0)


_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)([A-Z2-7]{16})(?![A-Za-z0-9])")
_GITHUB = re.compile(
    r"(?<![A-Za-z0-9_])(?:gh[pousr]_([A-Za-z0-9]{36,255})|github_pat_([A-Za-z0-9_]{22,255}))"
    r"(?![A-Za-z0-9_])"
)
_SLACK = re.compile(
    r"(?<![A-Za-z0-9-])(?:xox[abposr]-([A-Za-z0-9-]{10,250})|xapp-\d-([A-Za-z0-9-]{10,250}))"
)
_SLACK_WEBHOOK = re.compile(
    r"(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/([A-Za-z0-9_/-]{10,200})"
)
_JWT = re.compile(
    r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"(?![A-Za-z0-9_-])"
)
_AUTH_HEADER = re.compile(
    r"(?i)\b(?P<scheme>bearer|token|basic)[ \t]+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)"
    r"(?![A-Za-z0-9._~+/=-])"
)
_AUTH_CONTEXT = re.compile(r"(?i)authori[sz]ation\W{0,4}$")


def _shape_hits(text: str) -> Iterator[_Hit]:
    """Credentials recognisable by their own shape, wherever they appear."""
    for m in _AWS_KEY_ID.finditer(text):
        if _token_is_real(m.group(), m.group(1)):
            yield _Hit(m.start(), m.end(), "aws-access-key", 1)
    for m in _GITHUB.finditer(text):
        if _token_is_real(m.group(), m.group(1) or m.group(2)):
            yield _Hit(m.start(), m.end(), "github-token", 1)
    for m in _SLACK.finditer(text):
        body = (m.group(1) or m.group(2)).replace("-", "")
        if _token_is_real(m.group(), body) and not _looks_placeholder(m.group()):
            yield _Hit(m.start(), m.end(), "slack-token", 1)
    for m in _SLACK_WEBHOOK.finditer(text):
        if _token_is_real(m.group(), m.group(1).replace("/", "")):
            yield _Hit(m.start(), m.end(), "slack-webhook", 1)
    for m in _JWT.finditer(text):
        yield _Hit(m.start(), m.end(), "jwt", 1)
    yield from _auth_header_hits(text)


def _auth_header_hits(text: str) -> Iterator[_Hit]:
    """``Bearer <token>`` anywhere; ``token``/``Basic`` schemes after an Authorization name."""
    for m in _AUTH_HEADER.finditer(text):
        scheme, value = m.group("scheme").lower(), m.group("value")
        if scheme != "bearer" and not _AUTH_CONTEXT.search(text, max(0, m.start() - 40), m.start()):
            continue
        if _looks_placeholder(value) or _char_classes(value) < 2:
            continue
        kind = "basic-auth" if scheme == "basic" else "bearer-token"
        yield _Hit(m.start("value"), m.end("value"), kind, 2)


_CREDENTIAL_WORD = (
    r"(?:password|passwd|passphrase|secret|token|apikey|"
    r"(?:api|access|secret|private|auth|signing|encryption|master|client)[_-]?key)"
)
_ASSIGNMENT = re.compile(
    rf"(?i){_CREDENTIAL_WORD}(?P<kq>[\"'`])?\]?[ \t]*(?P<sep>:=|=>|==|[:=]|,)[ \t]*(?:!!?\w+[ \t]+)?"
    r"(?:(?P<q>[\"'`])(?P<qv>(?:(?!(?P=q))[^\\\r\n]|\\.){1,512})(?P=q)"
    r"|(?P<bv>[^\s\"'`,;<>{}\[\]()]{1,512}))"
)
_XML_ASSIGNMENT = re.compile(
    rf"(?i)<(?P<tag>[\w.:-]{{0,40}}?{_CREDENTIAL_WORD})>(?P<v>[^<\s]{{1,512}})</(?P=tag)>"
)
_KEY_CHARS = re.compile(r"[\w.-]{0,80}$")
_PASSWORDISH = re.compile(r"(?i)(?:password|passwd|passphrase)$")
_STOPWORDS = frozenset(
    "true false null none nil undefined string str bytes int required optional hidden masked "
    "secret secrets password passwd passphrase token apikey api_key key bearer basic env vault "
    "empty unset default write read pass pwd x-oauth-basic".split()
)
# Interpolations, substitutions and markup: the value is filled in elsewhere.
_TEMPLATE = re.compile(
    r"\$[{(]|\\\$|\$\\\{|#\{|%\{|\{\{|\[\[|\{\.|@@|&lt;|&gt;|\\\(|`|^\$|\$$|^#!"
    r"|\$[A-Z_][A-Z0-9_]{2,}(?![a-z])|^%[A-Za-z_]+%$|^\[.*\]$|^__.*__$|^\{[A-Za-z_]+\}$"
    r"|[A-Za-z_]\w{3,}\(|[\"']\s*\+\s*"
)
# Names: words, possibly joined (kebab, snake, dotted, CamelCase), with a short number.
_SEGMENT = r"(?:[^\W\d_]{1,40}|[A-Za-z]{0,6}\d{1,4}[A-Za-z]{0,6}|\[\*\])"
_NAME = re.compile(rf"[-_.]?{_SEGMENT}(?:[-_.|: ]+{_SEGMENT})*[!?.,=]?")
_WORD_WITH_NUMBER = re.compile(r"[A-Za-z]{0,6}\d{1,4}[A-Za-z]{0,6}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_PATH = re.compile(r"(?:[a-z0-9_.:*#!\[\]~-]*/)+[a-z0-9_.:*\[\]-]*")
_FILE_NAME = re.compile(r"[\w.-]+\.(?:json|ya?ml|txt|tmpl|conf|cfg|ini|env|pem|key|crt|svg|png|jpe?g|xml|toml)")
_WORD_IN_VALUE = re.compile(r"(?i)passw|secret|token")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9+/]{20,}")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_DOTTED_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)+")
_IDENTIFIER = re.compile(r"[A-Za-z_]+")
_PROSE = re.compile(r"[A-Za-z][A-Za-z' ,.!?:-]*")


def _has_random_run(value: str) -> bool:
    """True when VALUE holds 20+ base64 characters mixing upper, lower case and digits."""
    return any(_char_classes(run) >= 3 for run in _RANDOM_RUN.findall(value))


def _looks_like_name(value: str, passwordish: bool) -> bool:
    """Names of things rather than secret material: words, paths, file names, UUIDs."""
    if _UUID.fullmatch(value) or _PATH.fullmatch(value) or _FILE_NAME.fullmatch(value):
        return True
    if not _NAME.fullmatch(value):
        return False
    # A single word with a number is a (weak) password, but a name anywhere else.
    return not (passwordish and _WORD_WITH_NUMBER.fullmatch(value))


def _looks_like_reference(value: str) -> bool:
    """Bare values that name something else: a variable, a member, a constant, an env var."""
    if value[0] in "$%&@" or value.startswith(("/", "./", "../", "~/")) or "://" in value:
        return True
    if _DOTTED_REFERENCE.fullmatch(value):
        return True
    if _IDENTIFIER.fullmatch(value):
        upper = sum(1 for c in value if c.isupper())
        return "_" in value or (0 < upper <= max(1, len(value) // 4) and not value[0].isupper())
    return False


def _trivial_value(value: str, key: str, quoted: bool) -> bool:
    """True when an assigned VALUE is not worth redacting (empty, a word, a reference...)."""
    value = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value.strip().strip("'\""))
    passwordish = bool(_PASSWORDISH.search(key))
    if len(value) < (6 if passwordish else 8):
        return True
    lowered = value.lower()
    if lowered in _STOPWORDS or lowered == key.lower() or "://" in value:
        return True
    if _looks_placeholder(value) or _TEMPLATE.search(value) or _has_sequence(value):
        return True
    if _looks_like_name(value, passwordish) or (" " in value and _PROSE.fullmatch(value)):
        return True
    if _WORD_IN_VALUE.search(value) and not _has_random_run(value):
        return True
    if not quoted and _looks_like_reference(value):
        return True
    return not passwordish and (_char_classes(value) < 2 or value.isdigit())


def _assignment_kind(key: str, value: str) -> str:
    if "aws" in key.lower() and re.fullmatch(r"[A-Za-z0-9/+=]{40}", value):
        return "aws-secret-key"
    return "credential-assignment"


def _assignment_hits(text: str) -> Iterator[_Hit]:
    """``key = value`` / ``key: value`` / ``<key>value</key>`` with a credential-like key."""
    for m in _ASSIGNMENT.finditer(text):
        quoted = m.group("qv") is not None
        if m.group("sep") == "," and not (m.group("kq") and quoted):
            continue
        name = "qv" if quoted else "bv"
        key = _key_name(text, m)
        value = m.group(name)
        if not _trivial_value(value, key, quoted):
            yield _Hit(m.start(name), m.end(name), _assignment_kind(key, value), 3)
    for m in _XML_ASSIGNMENT.finditer(text):
        value = m.group("v")
        if not _trivial_value(value, m.group("tag"), True):
            yield _Hit(m.start("v"), m.end("v"), _assignment_kind(m.group("tag"), value), 3)


def _key_before(text: str, start: int) -> str:
    match = _KEY_CHARS.search(text, max(0, start - 80), start)
    return match.group() if match else ""


def _key_name(text: str, m: re.Match[str]) -> str:
    """The whole key an assignment match ends in: the credential word and what precedes it."""
    word = re.match(_CREDENTIAL_WORD, m.group(), re.IGNORECASE)
    return _key_before(text, m.start()) + (word.group() if word else "")


_URL_PASSWORD = re.compile(r"://(?P<user>[^\s/:@'\"<>]{0,100}):(?P<pw>[^\s/@'\"<>]{1,200})@(?=[\w\[])")


def _url_password_hits(text: str) -> Iterator[_Hit]:
    """Passwords in ``scheme://user:password@host`` URLs (the user name stays)."""
    for m in _URL_PASSWORD.finditer(text):
        password = m.group("pw")
        if password.lower() in _STOPWORDS or password.lower() in {"pass", "pwd", "x-oauth-basic"}:
            continue
        if _looks_placeholder(password) or password.startswith(("$", "%", "{")):
            continue
        yield _Hit(m.start("pw"), m.end("pw"), "url-credential", 3)


_HOME_POSIX = re.compile(
    r"(?:(?<=//)|(?<![\w.~/-]))/(?:Users|home)/(?P<user>[A-Za-z0-9._-]{1,64})(?![A-Za-z0-9._-])"
)
_HOME_WINDOWS = re.compile(
    r"(?<![\w])[A-Za-z]:(?P<sep>\\\\|\\|/)(?i:users|documents and settings)(?P=sep)"
    r"(?P<user>[^\\/\s\"'<>|:*?]{1,64})(?![^\\/\s\"'<>|:*?])"
)


def _home_hits(text: str) -> Iterator[_Hit]:
    """Absolute home paths: the user part becomes ``~``, the rest of the path stays."""
    for pattern in (_HOME_POSIX, _HOME_WINDOWS):
        for m in pattern.finditer(text):
            yield _Hit(m.start(), m.end(), "home-path", 5, replacement="~")


_B64_BLOB = re.compile(
    r"(?:(?<=\\n)|(?<![A-Za-z0-9+/=]))[A-Za-z0-9+/]{40,}={0,2}"
    r"(?:(?:\r?\n|\\n)[A-Za-z0-9+/]{4,}={0,2}(?=\r?\n|\\n|[\"'\s]|$))*(?![A-Za-z0-9+/=])"
)
_LINE_BREAKS = re.compile(r"\r?\n|\\n")
_MAX_DEPTH = 2


def _decode_blob(blob: str) -> str | None:
    """A base64 blob (possibly wrapped over lines) decoded to printable text, else None."""
    joined = _LINE_BREAKS.sub("", blob)
    for candidate in (joined, _LINE_BREAKS.split(blob)[0]):
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

_Rule = Callable[[str], Iterable[_Hit]]
_RULES: tuple[_Rule, ...] = (
    _pem_hits,
    _shape_hits,
    _assignment_hits,
    _url_password_hits,
    _home_hits,
)


def _resolve(hits: Iterable[_Hit]) -> list[_Hit]:
    """Non-overlapping hits, the lower priority first, then the earlier and longer."""
    accepted: list[_Hit] = []
    taken: list[tuple[int, int]] = []
    for hit in sorted(hits, key=lambda h: (h.priority, h.start, h.start - h.end)):
        if any(hit.start < end and start < hit.end for start, end in taken):
            continue
        accepted.append(hit)
        taken.append((hit.start, hit.end))
    return sorted(accepted, key=lambda h: h.start)


def _apply(text: str, hits: list[_Hit]) -> str:
    parts, position = [], 0
    for hit in hits:
        parts.append(text[position : hit.start])
        parts.append(hit.text)
        position = hit.end
    parts.append(text[position:])
    return "".join(parts)


class ConservativeScanner:
    """The default scanner: quarantines hidden text and injections, redacts secrets and homes."""

    def scan(self, text: str) -> ScanResult:
        """Scan TEXT; see the module documentation for the policy."""
        counts: Counter[tuple[str, str]] = Counter()
        for kind, count in _hidden_findings(text).items():
            counts[(kind, QUARANTINE)] += count
        injections = _injection_count(text)
        if injections:
            counts[("prompt-injection", QUARANTINE)] += injections
        hits = self._redactions(text, 0)
        for hit in hits:
            for kind in hit.kinds:
                counts[(kind, REDACT)] += 1
        mixed = _mixed_script_count(text)
        if mixed:
            counts[("mixed-script", WARN)] += mixed
        findings = tuple(
            Finding(kind, action, count)
            for (kind, action), count in sorted(counts.items(), key=lambda i: (_ACTION_ORDER[i[0][1]], i[0][0]))
        )
        quarantined = any(f.action == QUARANTINE for f in findings)
        return ScanResult(_apply(text, hits), quarantined, findings)

    def _redactions(self, text: str, depth: int) -> list[_Hit]:
        """Every redaction in TEXT, including inside base64 blobs down to a fixed depth."""
        hits: list[_Hit] = [hit for rule in _RULES for hit in rule(text)]
        if depth < _MAX_DEPTH:
            hits.extend(self._blob_hits(text, depth))
        return _resolve(hits)

    def _blob_hits(self, text: str, depth: int) -> Iterator[_Hit]:
        """Base64 blobs whose decoded text needs a redaction: the whole blob goes."""
        for m in _B64_BLOB.finditer(text):
            decoded = _decode_blob(m.group())
            if decoded is None:
                continue
            inner = self._redactions(decoded, depth + 1)
            kinds = tuple(k for hit in inner for k in hit.kinds if k != "home-path")
            if kinds:
                yield _Hit(m.start(), m.end(), kinds[0], 4, inner=kinds)


_DEFAULT = ConservativeScanner()


def default_scanner() -> SafetyScanner:
    """The scanner gitstore uses unless told otherwise."""
    return _DEFAULT


__all__ = [
    "QUARANTINE",
    "REDACT",
    "WARN",
    "ConservativeScanner",
    "Finding",
    "SafetyScanner",
    "ScanResult",
    "default_scanner",
]
