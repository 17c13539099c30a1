"""Telling a secret from what only sits where a secret could: the value checks.

A credential rule finds a place a secret could be (``password = ...``, a token's shape); these
checks say whether the value there is one. Not secrets: placeholders and templates
(``<your-token>``, ``${DB_PASSWORD}``, ``{{ secrets.X }}``, ``changeme``), references to
variables and members, names made of words (kebab, snake, dotted, CamelCase), paths, file
names, UUIDs (except under a key naming a credential), prose, values typed by hand
(``123456``, ``abcdef``, ``xxxx``), low-variety fillers, and the example values vendors publish
in their documentation (``AKIAIOSFODNN7EXAMPLE``), even when base64-wrapped.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re

from gitstore.safety import lazy

# Published documentation examples: shown in vendor docs, never live credentials.
DOCUMENTED_EXAMPLES = frozenset(
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
# so random key material, which mixes cases, almost never holds one by chance. A value holds
# ``<...>`` when its last ``<`` before a ``>`` opens one: each ``<`` is read up to the next, not
# to the end of a value that never closes it.
_PLACEHOLDER = lazy.Pattern(
    f"{_forms('example', 'placeholder', 'changeme', 'dummy', 'fake', 'sample', 'redacted')}|"
    f"{_forms('quickstart', 'insecure', 'todo', 'fixme', 'replace', 'string', 'notreal')}|"
    f"(?:{_forms('your', 'insert', 'change', 'not')})[_-]|[_-](?:{_forms('here', 'me')})\\b|"
    r"<[^<>]*>|\$\{|\{\{|%\(|%s\b|xxxx|XXXX|\*\*\*\*|\.\.\.|(?i:not[_-]a[_-]real)"
)
# What any match of it holds: one of its words (in lower case once the value is), or one of
# these characters. Looked for first, by substring and by a class of characters: the pattern's
# alternatives tried one by one at each position of a value cost more than all its other
# checks, and a random value holds none of them.
_PLACEHOLDER_WORDS = (
    "example", "placeholder", "changeme", "dummy", "fake", "sample", "redacted",
    "quickstart", "insecure", "todo", "fixme", "replace", "string", "notreal", "xxxx",
)
_PLACEHOLDER_MARK = lazy.Pattern(r"[<$%{*._-]")
# For fixed-shape tokens only the loudest fillers count.
FILLER = lazy.Pattern(r"EXAMPLE|[Ee]xample|(.)\1{5}")
_SEQUENCE_LENGTH = 6
_SEQUENCE_GRAMS = frozenset(
    alphabet[i : i + _SEQUENCE_LENGTH]
    for alphabet in ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    for i in range(len(alphabet) - _SEQUENCE_LENGTH + 1)
)
# any of them, searched for in one pass of the engine (half the time of a slice per position)
_SEQUENCE = lazy.Pattern("|".join(sorted(_SEQUENCE_GRAMS)))
_WHOLE_READING = 16  # characters from which a value is read whole for a typed run
_STEPS = bytes(_SEQUENCE_LENGTH - 1)  # the zero bytes of a run's steps
# each character of those alphabets as the byte of the one after it; NUL after the last, or none
_NEXT = bytes(
    next((ord(alphabet[alphabet.index(chr(c)) + 1]) for alphabet in ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
          "abcdefghijklmnopqrstuvwxyz") if chr(c) in alphabet[:-1]), 0)
    for c in range(256)
)
_B64_VALUE = lazy.Pattern(r"[A-Za-z0-9+/]{12,}={0,2}")


_ASCII_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_DIGITS = frozenset("0123456789")
_ASCII_ALNUM = _ASCII_LOWER | _ASCII_UPPER | _ASCII_DIGITS


def char_classes(value: str) -> int:
    """How many of lower case, upper case, digits and other characters VALUE uses. An ASCII
    value is read as a set of its characters: asking each character four questions in Python
    cost more than all the patterns judging a value."""
    if value.isascii():
        chars = set(value)
        return ((not chars.isdisjoint(_ASCII_LOWER)) + (not chars.isdisjoint(_ASCII_UPPER))
                + (not chars.isdisjoint(_ASCII_DIGITS)) + (not chars <= _ASCII_ALNUM))
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


def low_variety(value: str) -> bool:
    distinct = len(set(value))
    return distinct <= 3 or (len(value) >= 16 and distinct <= 5)


def has_sequence(value: str) -> bool:
    """True when VALUE holds a run like ``012345`` or ``ABCDEF``: typed by hand, not random.
    An ASCII value of some length is read whole, not run by run at each position: each
    character shifted to the next of its alphabet equals the character after it all along a
    run, so the value holds one exactly where the two, XORed, hold as many zero bytes in a row
    as a run has steps. A short value, whose few positions the pattern tries sooner than
    the bytes are made, and a value holding NUL (which would equal a shifted character with
    none after it) are read by the pattern."""
    if len(value) < _WHOLE_READING or not value.isascii() or "\0" in value:
        return _SEQUENCE.search(value) is not None
    data = value.encode("ascii")
    steps = int.from_bytes(data.translate(_NEXT)[:-1], "big") ^ int.from_bytes(data[1:], "big")
    return _STEPS in steps.to_bytes(len(data) - 1, "big")


# the ASCII characters ``mostly_printable`` counts: what ``str.isprintable`` takes, and tab and line breaks
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def mostly_printable(text: str) -> bool:
    """Whether at least 95% of TEXT's characters are printable (``str.isprintable``), tabs and
    line breaks counted as printable. Decoded blobs are judged by it, inflated ones among them
    (64 KiB each): ASCII text is counted by bytes in C, not character by character."""
    if text.isprintable():
        return True
    if text.isascii():
        unprintable = len(text.encode("ascii").translate(None, _PRINTABLE_ASCII))
    else:
        unprintable = sum(1 for c in text if not (c.isprintable() or c in "\t\n\r"))
    return len(text) - unprintable >= 0.95 * len(text)


def _decoded_text(value: str) -> str | None:
    """VALUE decoded from base64 when that gives printable text, else None."""
    if len(value) % 4 or not _B64_VALUE.fullmatch(value):
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded if decoded and mostly_printable(decoded) else None


def _placeholder_in(value: str) -> bool:
    """Whether VALUE holds a placeholder's word or shape (:data:`_PLACEHOLDER`), the pattern
    searched only where a word or a character it needs is there."""
    if _PLACEHOLDER_MARK.search(value) is None:
        low = value.lower()
        for word in _PLACEHOLDER_WORDS:  # a loop, not any() over a generator: half the time
            if word in low:
                break
        else:
            return False
    return _PLACEHOLDER.search(value) is not None


def looks_placeholder(value: str) -> bool:
    """Placeholders, templates, documented examples and low-variety fillers, even base64-wrapped."""
    if value in DOCUMENTED_EXAMPLES or _placeholder_in(value) or low_variety(value):
        return True
    for fragment in _DOCUMENTED_FRAGMENTS:
        if fragment in value:
            return True
    decoded = _decoded_text(value)
    return decoded is not None and looks_placeholder(decoded.strip())


def token_is_real(token: str, body: str) -> bool:
    """For fixed-shape tokens: not a documented example, a filler or a typed sequence."""
    if token in DOCUMENTED_EXAMPLES or low_variety(body) or FILLER.search(body):
        return False
    return not has_sequence(body)


STOPWORDS = frozenset(
    "true false null none nil undefined string str bytes int required optional hidden masked "
    "secret secrets password passwd passphrase token apikey api_key key bearer basic env vault "
    "empty unset default write read pass pwd x-oauth-basic".split()
)
# Interpolations, substitutions, markup and code: the value is filled in elsewhere. A call
# (``name(``, a name of four characters or more) is read from the start of its run of word
# characters, the first letter or underscore opening the name: read from each character of
# the run instead, a long run without a parenthesis cost time quadratic in its length.
_TEMPLATE = lazy.Pattern(
    r"\$[{(]|\\\$|\$\\\{|#\{|%\{|\{\{|\[\[|\{\.|@@|&lt;|&gt;|\\\(|`|^\$|\$$|^#!"
    r"|\$[A-Z_][A-Z0-9_]{2,}(?![a-z])|^%[A-Za-z_]+%$|^\[.*\]$|^__.*__$|^\{[A-Za-z_]+\}$"
    r"|(?<!\w)[^\WA-Za-z_]*+[A-Za-z_]\w{3,}+\(|[\"']\s*\+\s*"
)
# Names: words, possibly joined (kebab, snake, dotted, CamelCase), with a short number. A word is
# lower case, UPPER CASE or Capitalized; random letters, which flip case often, are not words.
# CamelCase may open with an acronym (``HTTPBasicAuth``), and after a lowercase letter hold an
# acronym with a version or number (``AwsS3Client``, ``CompareTokensV2``) or end in an acronym
# (``parseHTML``): upper case and digits alone (``JBSWY3DPEHPK3PXP``) make no such word.
_LOWER = r"[^\W\d_A-Z]"
_CAMEL = (
    rf"(?=[^\W\d_])(?:[A-Z]{{2,8}}(?=[A-Z]{_LOWER}{{2}}))?{_LOWER}*+"
    rf"(?:[A-Z]{_LOWER}{{2,}}+|(?<={_LOWER})[A-Z]{{1,3}}\d{{1,4}})*+(?:(?<={_LOWER})[A-Z]{{1,4}}(?![A-Za-z\d]))?(?![A-Z])"
)
# A segment is read once, as a whole run of letters and digits (only such a run can be followed
# by a separator or end a name): a run several readings fit (``xY9``: a CamelCase word, or a
# word with a number) is not read again each way when the name fails later, which took time
# exponential in the number of segments.
_SEGMENT = rf"(?>(?:{_CAMEL}|[A-Z]++|[A-Za-z]{{0,6}}\d{{1,4}}[A-Za-z]{{0,6}}|\[\*\])(?![A-Za-z\d]))"
_NAME = lazy.Pattern(rf"[-_.]?{_SEGMENT}(?:[-_.|: ]+{_SEGMENT})*[!?.,=]?")
_WORD_WITH_NUMBER = lazy.Pattern(r"[A-Za-z]{0,6}\d{1,4}[A-Za-z]{0,6}")
_ONE_WORD_WITH_NUMBER = lazy.Pattern(r"[A-Za-z]*\d[A-Za-z\d]*")
_UUID = lazy.Pattern(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_UUID_LENGTH = 36
_PATH = lazy.Pattern(r"(?:[a-z0-9_.:*#!\[\]~-]*/)+[a-z0-9_.:*\[\]-]*")
# A path written with capitals (``src/components/Button.test.tsx``, ``/Users/alice/src/App``,
# ``C:\\Users\\alice``): a root or a folder, then folders and a file (backslashes doubled in a
# JSON string), each of them a name.
_MIXED_PATH = lazy.Pattern(r"(?P<root>/|~/|\.{1,2}/|[A-Za-z]:\\{1,2})?(?P<parts>[^/\\]+(?:(?:/|\\{1,2})[^/\\]*)*)")
_PATH_PART = lazy.Pattern(r"[/\\]+")
_FOLDER_CHARS = lazy.Pattern(r"[\w .@~-]+")
# a folder's or file's name: words with numbers, in CamelCase (a first word may have two
# letters: ``MyService``; an acronym one to four: ``OAuth2Client``, ``AuthTokenV2``), joined by
# dots, dashes, underscores and spaces, any of them anywhere. A word is read once, as a whole run
# of letters and digits, and its capitals and digits one at a time (a run of acronyms is a run
# of capitals, a run of numbers one of digits): a run that splits into acronyms or numbers many
# ways was otherwise tried each way when the name failed, in time exponential in its length.
_PATH_ACRONYM = r"[A-Z]{1,4}(?![a-z])"
_PATH_WORD = (
    rf"(?=[A-Za-z\d])(?>(?:[A-Z][a-z](?![a-z])|{_PATH_ACRONYM}(?=[A-Z][a-z]))?[a-z]*+"
    rf"(?:[A-Z][a-z]{{2,}}+|[A-Z](?![a-z])|\d++)*+(?![A-Za-z\d]))"
)
_PATH_NAME = lazy.Pattern(rf"[-_. ]*+(?:{_PATH_WORD}[-_. ]*+)*+")
# what a named path is written with: its names' characters, its separators, and those of a
# root (``~/``, ``C:\\``) or a part passed over (``.``, ``~``)
_PATH_CHARS = lazy.Pattern(r"[A-Za-z\d ._/\\~:-]*")
_EXTENSION = lazy.Pattern(r".+\.[a-z][a-z0-9]{0,5}")
_FILE_NAME = lazy.Pattern(
    r"[\w.-]+\.(?:json|ya?ml|txt|tmpl|conf|cfg|ini|env|pem|key|crt|svg|png|jpe?g|xml|toml)"
)
# Tokens that name a request, a page or a trace: ids a client and a service hand back and forth
# (AWS's idempotency ClientToken, paging and sync cursors), not credentials. A session's or a
# form's (CSRF) token is a secret of its holder's and stays one.
_ID_TOKEN_KEY = lazy.Pattern(
    r"(?:request|client|idempotency|continuation|page|next|starting|pagination|resume|sync|correlation|"
    r"cancellation|trace|cursor)[ _.-]?token$"
)


def names_exchanged_token(key: str) -> bool:
    """Whether KEY (in lower case) names a token a client and a service hand back and forth (a
    page's, a request's: ``_ID_TOKEN_KEY``), not a credential."""
    return _ID_TOKEN_KEY.search(key) is not None
# What any match of :data:`_TEMPLATE` holds: one of these characters (an escaped dollar or
# parenthesis, ``\$`` or ``\(``, holds it). Looked for first, as :data:`_PLACEHOLDER_MARK` is.
_TEMPLATE_MARK = lazy.Pattern(r"[$#%{\[@&`_(\"']")
_CREDENTIAL_IN_VALUE = lazy.Pattern(r"(?i)passw|secret|token")
_RANDOM_RUN = lazy.Pattern(r"[A-Za-z0-9+/]{20,}")
_UNICODE_ESCAPE = lazy.Pattern(r"\\u([0-9a-fA-F]{4})")
_DOTTED_REFERENCE = lazy.Pattern(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)+")
_MEMBER_SEPARATOR = lazy.Pattern(r"\.|->|::")
_DIGITS = lazy.Pattern(r"\d+")
_IDENTIFIER = lazy.Pattern(r"[A-Za-z_]+")
# A pointer to a named type (``*rsa.PrivateKey``, ``**oauth2.Token``, ``*Config``) or member
# (``*config.key``): lowercase packages or values, then a CamelCase type or a lowercase member.
_POINTER = lazy.Pattern(
    r"\*{1,2}(?:[a-z][a-z0-9_]*(?:\.|::))*(?:[A-Z][A-Za-z0-9_]*|[a-z][a-z_]*)"
)
# A type with its arguments (``Optional[str]``, ``Dict[str, Any]``, ``Map<String, Object>``):
# the innermost ``Name[arguments]`` is read as one name, again until none is left.
_TYPE_NAME = r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*"
# a type's argument in brackets: a type, an ellipsis, or a word in quotes (``Literal["basic"]``)
_TYPE_ARGUMENT = rf"(?:{_TYPE_NAME}|\.\.\.|\"[\w.-]*\"|'[\w.-]*')"
_TYPE_ARGUMENTS = lazy.Pattern(
    rf"(?<![\w.:])([A-Za-z_]+(?:(?:\.|::)[A-Za-z_]+)*)(?:\[\s*{_TYPE_ARGUMENT}"
    rf"(?:\s*,\s*{_TYPE_ARGUMENT})*\s*\]|<\s*{_TYPE_NAME}(?:\s*,\s*{_TYPE_NAME})*\s*>)"
)
_MOST_ARGUMENT_LISTS = 64  # brackets a type opens at most (``Dict[str, List[int]]``: 2)
_DEEPEST_TYPE = 16  # levels of arguments a type nests at most (``Optional[List[Dict[str, Any]]]``: 3)
_TYPE_UNION = lazy.Pattern(rf"{_TYPE_NAME}(?:\s*\\?\|\s*{_TYPE_NAME})*")
_TYPE_WORD = lazy.Pattern(r"[A-Za-z_]\w*")


def _named_path(value: str) -> bool:
    """Whether VALUE is a path whose folders and file are each a name, rooted or ending in a
    file name with an extension. A random key's slashes (base64's) part no such names, and
    words with a slash between them (``Summer/Fall2024``) may be a password. A value with no
    slash has a part alone, nor is one holding a character no name, separator or root holds: they
    are not matched and split to find so."""
    if ("/" not in value and "\\" not in value) or not _PATH_CHARS.fullmatch(value):
        return False
    path = _MIXED_PATH.fullmatch(value)
    parts = _path_parts(path)
    if len(parts) < 2 or not all(_PATH_NAME.fullmatch(part) for part in parts):
        return False
    return bool(path.group("root")) or _EXTENSION.fullmatch(parts[-1]) is not None


def _names_folder(value: str, key: str) -> bool:
    """Whether VALUE, under a key ending in ``pwd``, is a folder: the shell's working folder
    (``PWD``, ``OLDPWD`` in an environment dump) is a path from the root, one of its parts
    perhaps no name (a build's or a checkout's: ``/tmp/build-x8Kq2/App``)."""
    path = _MIXED_PATH.fullmatch(value) if key.endswith("pwd") else None
    if path is None:
        return False
    parts = _path_parts(path)
    if len(parts) < 2 or not path.group("root") or not all(_FOLDER_CHARS.fullmatch(part) for part in parts):
        return False
    return sum(1 for part in parts if not _PATH_NAME.fullmatch(part)) <= 1


def _path_parts(path: re.Match[str] | None) -> list[str]:
    """The folders and file of a path :data:`_MIXED_PATH` matched (``.`` and ``..`` aside)."""
    if path is None:
        return []
    return [part for part in _PATH_PART.split(path.group("parts")) if part.strip(".~")]


def _templated(value: str) -> bool:
    """Whether VALUE holds a template, a substitution, markup or code (:data:`_TEMPLATE`)."""
    return _TEMPLATE_MARK.search(value) is not None and _TEMPLATE.search(value) is not None


def _has_random_run(value: str) -> bool:
    """True when VALUE holds 20+ base64 characters mixing upper case, lower case and digits."""
    return any(char_classes(run) >= 3 for run in _RANDOM_RUN.findall(value))


def _is_prose(value: str) -> bool:
    """Two or more plain lowercase words: a sentence, not key material."""
    return sum(1 for word in value.split() if word.isalpha() and word.islower()) >= 2


def _is_type(value: str) -> bool:
    """A type with its arguments, as an API's documentation writes a parameter's
    (``Optional[str]``, ``list[str]``, ``Dict[str, Any]``, ``Optional[str] | None``), each of its
    names a word. Read from the innermost arguments out, so nesting costs a pass a level: a
    value nesting deeper than :data:`_DEEPEST_TYPE`, or opening more than
    :data:`_MOST_ARGUMENT_LISTS` brackets, is no type, and is not read again for each level."""
    if "[" not in value and "<" not in value:
        return False
    if value.count("[") + value.count("<") > _MOST_ARGUMENT_LISTS:
        return False
    reduced, count = _TYPE_ARGUMENTS.subn(r"\1", value)
    if not count:
        return False
    for _ in range(_DEEPEST_TYPE):
        reduced, count = _TYPE_ARGUMENTS.subn(r"\1", reduced)
        if not count:
            break
    else:
        return False
    if not _TYPE_UNION.fullmatch(reduced):
        return False
    return all(_NAME.fullmatch(name) for name in _TYPE_WORD.findall(value))


def _looks_like_name(value: str, passwordish: bool, uuid_names: bool = True) -> bool:
    """Names of things rather than secret material: words, paths, file names, UUIDs (unless
    UUID_NAMES is false), and in code a type with its arguments (``Optional[str]``) or a
    pointer to a named type or value (``*rsa.PrivateKey``, ``*config.key``); a star before
    other characters hides nothing. Each shape is matched only in a value holding what every
    match of it holds (a star first, a slash, a dot, a UUID's length): most values are none of
    them, and matching each was a good part of judging a value."""
    if _is_type(value):
        return True
    if value.startswith("*") and _POINTER.fullmatch(value):
        value = value.lstrip("*")  # then judged as the name it points to
    if ("/" in value and _PATH.fullmatch(value)) or ("." in value and _FILE_NAME.fullmatch(value)):
        return True
    if _named_path(value):
        return True
    if len(value) == _UUID_LENGTH and _UUID.fullmatch(value):
        return uuid_names
    if not _NAME.fullmatch(value):
        return False
    # A single word with a number (``Winter2024``, ``CorrectHorseV2``) is a (weak) password, but
    # a name anywhere else.
    return not (passwordish and (_WORD_WITH_NUMBER.fullmatch(value) or _ONE_WORD_WITH_NUMBER.fullmatch(value)))


def _looks_random(part: str) -> bool:
    """A part of a dotted value no one names a member with: letters of both cases and digits
    that do not read as words with numbers between them (``Xk9mQ2vL7pR4``, not ``utf8Decoder``
    or ``s3Bucket``), as a bare value of that shape is judged a secret. So ``prod.Xk9mQ...``
    and ``ya29.a0AfB...`` are values, ``self.secret_key`` a reference."""
    mixed = any(c.islower() for c in part) and any(c.isupper() for c in part)
    if not (mixed and any(c.isdigit() for c in part)):
        return False
    return not _NAME.fullmatch(_DIGITS.sub("-", part).strip("-"))


def _looks_like_reference(value: str) -> bool:
    """Unquoted values that name something else: a variable, a member, a constant, an env var."""
    if value[0] in "$%&@" or value.startswith(("/", "./", "../", "~/")):
        return True
    if _DOTTED_REFERENCE.fullmatch(value):
        return not any(_looks_random(part) for part in _MEMBER_SEPARATOR.split(value))
    if _IDENTIFIER.fullmatch(value):
        upper = sum(1 for c in value if c.isupper())
        return "_" in value or (0 < upper <= max(1, len(value) // 4) and not value[0].isupper())
    return False


def names_something(value: str) -> bool:
    """True when VALUE is shaped like something other than key material whatever words it
    holds: a name, a path, a file name, a UUID, a URL, a template, a typed sequence, a filler.
    (Unlike :func:`trivial_value`, a placeholder word inside a random string does not save it.)"""
    if "://" in value or _templated(value) or has_sequence(value) or low_variety(value):
        return True
    return _looks_like_name(value, False) or _is_prose(value)


SHORTEST_PASSWORD = 6  # an assigned value shorter than this is no secret, whatever its key
_SHORTEST_SECRET = 8  # nor one shorter than this, unless its key names a password
_PASSWORD_ENDINGS = ("password", "passwd", "passphrase", "pass", "pwd", "pw")


def shortest_secret(key: str) -> int:
    """How long a value assigned to KEY (in lower case) must be to be a secret: a password may
    be shorter than other secrets. A key is told by how it ends, so a credential word ending
    a key tells it alone."""
    return SHORTEST_PASSWORD if key.endswith(_PASSWORD_ENDINGS) else _SHORTEST_SECRET


_LONG_OPTION = lazy.Pattern(r"--[a-z][a-z0-9]*+(?:-[a-z0-9]++)*+")


@functools.lru_cache(maxsize=4096)
def trivial_value(value: str, key: str, quoted: bool) -> bool:
    """True when an assigned VALUE is not worth redacting: a word, a name, a reference..."""
    value = value.strip().strip("'\"")
    if "\\u" in value:  # what every escape opens with: the rest are spared the search
        value = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value)
    key = key.lower()
    passwordish = key.endswith(_PASSWORD_ENDINGS)
    if len(value) < shortest_secret(key) or "hash" in key:
        return True
    if value.lower() in STOPWORDS or value.lower() == key or "://" in value or _names_folder(value, key):
        return True
    if _LONG_OPTION.fullmatch(value):
        return True  # a program's option named in a list of them (`--passwd`, `--passphrase`): no value
    if looks_placeholder(value) or _templated(value) or has_sequence(value):
        return True
    # Every key judged here names a credential (``_authToken``, ``HEROKU_API_KEY``,
    # ``client_secret``): under such a key a UUID is the token a service issued in that shape
    # (npm's legacy tokens, Heroku's API keys), not an id, unless the token names a request or
    # a page (``ClientToken``, ``pageToken``); an id's key (``client_id``) ends in no
    # credential word and is never judged here.
    uuid_names = names_exchanged_token(key)
    if _looks_like_name(value, passwordish, uuid_names=uuid_names) or _is_prose(value):
        return True
    if _CREDENTIAL_IN_VALUE.search(value) and not _has_random_run(value):
        return True
    if not quoted and _looks_like_reference(value):
        return True
    return not passwordish and (char_classes(value) < 2 or value.isdigit())


__all__ = [
    "DOCUMENTED_EXAMPLES",
    "FILLER",
    "SHORTEST_PASSWORD",
    "STOPWORDS",
    "char_classes",
    "has_sequence",
    "looks_placeholder",
    "low_variety",
    "mostly_printable",
    "names_exchanged_token",
    "names_something",
    "shortest_secret",
    "token_is_real",
    "trivial_value",
]
