"""Secrets: credentials in a text, found to be redacted (the rest of the text is kept).

Each rule yields :class:`~gitstore.safety.spans.Hit` spans whose kind names what was found:

- ``pem-private-key``: PEM, OpenSSH and PGP private key blocks, BEGIN through END (or through
  the body when cut off), when the body reads as key material, however its lines are decorated
  (a gutter of line numbers, a reply's quote marks, lines joined by spaces); an encrypted key's
  body after its armor headers.
- credentials with a shape of their own, wherever they stand: ``aws-access-key`` (AKIA, ASIA,
  ABIA and ACCA ids), ``github-token`` (``ghp_``... and ``github_pat_``), ``slack-token``,
  ``slack-webhook``, ``discord-webhook`` and ``teams-webhook`` (a webhook URL's path),
  API keys (``openai-key``, ``anthropic-key``, ``gitlab-token``, ``stripe-key``, ``npm-token``,
  ``google-api-key``, ``google-oauth-token``, ``huggingface-token``, ``sendgrid-key``,
  ``pypi-token``, ``vault-token``, ``terraform-token``, ``shopify-token``,
  ``digitalocean-token``, ``linear-key``, ``doppler-token``, ``databricks-token``,
  ``grafana-token``, ``age-secret-key``, ``postman-key``, ``telegram-bot-token``,
  ``mailgun-key``, ``atlassian-token``, ``mapbox-token``, ``putty-private-key``; cloud
  providers' (``aws-bedrock-key``, ``azure-client-secret``, ``alibaba-key``,
  ``cloudflare-key``, ``heroku-token``, ``flyio-token``, ``openshift-token``,
  ``scalingo-token``, ``dynatrace-token``, ``1password-key``, ``azure-devops-token``: the newer
  form, ending ``AZDO`` and four characters), CI/CD and package registries'
  (``docker-token``, ``buildkite-token``, ``circleci-token``, ``harness-token``,
  ``pulumi-token``, ``prefect-token``, ``octopus-key``, ``sourcegraph-token``, ``sonar-token``,
  ``sentry-token``, ``infracost-token``, ``readme-token``, ``rubygems-token``,
  ``clojars-token``, ``artifactory-token``), AI providers' (``perplexity-key``, ``groq-key``,
  ``xai-key``, ``replicate-token``), payment (``square-token``, ``shippo-token``,
  ``flutterwave-key``, ``duffel-token``, ``easypost-key``, ``plaid-token``), chat and mail
  (``twitter-bearer-token``, ``facebook-token``, ``brevo-key``, ``notion-token``), databases as a service
  (``planetscale-token``, ``supabase-token``, ``clickhouse-key``, ``airtable-token``),
  ``newrelic-key``, ``adobe-secret``, ``mailchimp-key`` (32 hex digits and the data centre,
  ``-us6``), ``twilio-key``, and ``twilio-secret``: the secret or auth token within two lines of a Twilio
  API key's or account's SID, the auth token told so by its name or its place beside the SID) and ``jwt``
  (except the signed, expiring links GitHub renders for images in private repositories, which
  stay).
- ``session-cookie``: the value of a cookie named for a session (``sessionid``, ``PHPSESSID``,
  ``connect.sid``) where cookies are given: a Cookie or Set-Cookie header, curl's ``-b``, a HAR
  file's cookies.
- ``bearer-token`` and ``basic-auth``: ``Bearer <token>`` anywhere, the ``token`` and ``Basic``
  schemes after an Authorization header name, the password of ``curl -u user:password`` (the
  ``-u`` an argument of that very curl command).
- ``credential-assignment`` (``aws-secret-key`` when the key names AWS and the value has its
  shape, ``azure-storage-key`` for a storage connection string's ``AccountKey``): ``key =
  value``, ``key: value``, ``"key": "value"``, ``<key>value</key>``, ``| key | value |`` (a
  table's adjacent cells, the value all of its cell) and a key and value a tab or several
  spaces apart (columns), where the key ends in a credential word and the value is not trivial
  (:mod:`gitstore.safety.values`), or names a vendor and the value has the shape of its keys
  (``codecovKey``, ``DD_APP_KEY``, ``AZURE_DEVOPS_PAT``: :func:`_vendor_key_hit`), or is a
  vendor's name alone, or one before a bare ``key``, holding a random value (``openai = "..."``,
  ``twilio: <32 hex>``, ``MAILGUN_KEY=...``: :func:`_vendor_named_hits`); a value given in the
  field after one naming a credential in the same object (``- name: DB_PASSWORD`` then ``value:
  ...``, ``{"Name": "/prod/db/password", ..., "Value": ...}``), or in an object under a
  credential's key (``"adminPassword": {"value": ...}``: :func:`_named_value_hits`).
- ``command-password``: a password given on the command line of a command that takes one
  there (``mysql -pPASSWORD``, ``sshpass -p``, a registry's ``login -p``, ``redis-cli -a``,
  ``kubeadm join --token``, ``twine upload -p``, ``doctl auth init -t``, ``ldapsearch -w``,
  ``sqlcmd -P``, ``ssh-keygen -N``, Windows' ``net use \\\\server\\share PASSWORD``, ``psexec -p``,
  ``schtasks /RP``... :data:`_COMMAND_PASSWORDS`), the value of a long option
  naming a credential (``--password VALUE``, ``--api-key VALUE``, ``-storepass VALUE``), a
  secret echoed into a command reading one (``echo X | sudo -S``); ``command-token``:
  the token ``heroku auth:token`` or ``npm config get ...:_authToken`` prints.
- ``url-credential``: the password of ``scheme://user:password@host`` (all of it where it holds an
  ``@``, the slashes perhaps escaped: ``https:\\/\\/``), of an Oracle JDBC URL
  (``jdbc:oracle:thin:scott/PASSWORD@db``), and an Azure DevOps token
  given as the user (``https://TOKEN@dev.azure.com/...``).
- ``sas-signature``: the ``sig`` of an Azure shared access signature; ``url-signature``: the
  signature of an S3 or Cloud Storage presigned URL (``X-Amz-Signature``, ``X-Goog-Signature``).
- ``prose-secret`` (``aws-secret-key`` for a 40-character AWS secret): a random-looking string
  written in a sentence just after a credential word (``the secret is wJalr...``, ``token:
  <value>`` in a chat), where no assignment syntax marks it; and a password typed by hand,
  shorter or more regular than a random string, told by a linking word between it and the
  credential word (``the staging DB password is Zq8!rT2#pL9w``, ``Connected with the password
  ...``, ``Das Passwort lautet ...``): one value of 8 characters or more, letters with a digit
  or a symbol, not a word, a size, a name, a path, a reference or a placeholder
  (:func:`_typed_password_hits`); and one written after a user with no credential word at all
  (``the login is admin / ...``, ``log in as admin with ...``, ``user root pass ...``:
  :func:`_login_hits`). A bare ``key`` after a vendor's name is a credential word in a sentence
  too (``the mailgun key is 3f9c...``, ``cohere's key was ...``: :func:`_with_vendor_keys`).
- base64 blobs: a blob whose decoded text holds any of the above goes whole, under the kind of
  what it holds (:func:`blob_hits`; the scanner decides how deep to look); one that is no base64
  of UTF-8 text is read as hex, base32, or base64 of UTF-16 or gzip. A GitHub token written
  backwards is a ``github-token``.
- escapes: a text whose ASCII characters are partly percent-encoded or JSON-escaped
  (``%67hp_...``, ``\\u0067hp_...``, the quotes of JSON inside a JSON string) is read again
  decoded, and what is found there holding an escape is redacted where it stands
  (:func:`escaped_hits`).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import bz2
import codecs
import collections
import functools
import math
import re
import zlib
from collections.abc import Callable, Iterator
from urllib.parse import unquote

from gitstore.safety import lazy
from gitstore.safety.hidden import latin_skeleton
from gitstore.safety.spans import Hit, Text, starts_word
from gitstore.safety.values import (
    DOCUMENTED_EXAMPLES,
    FILLER,
    STOPWORDS,
    char_classes,
    looks_placeholder,
    low_variety,
    mostly_printable,
    names_exchanged_token,
    names_something,
    shortest_secret,
    token_is_real,
    trivial_value,
)

# Headers are matched in either case: some tools print a key lowercased.
_PEM_BEGIN = lazy.Pattern(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?: BLOCK)?-----", re.IGNORECASE
)
# A line's gutter, as tools showing a file print it: a line number (a file reader's
# ``     2→``, ``cat -n``'s tab, bat's ``  2 │``), ``grep -n``'s ``path:2:``, a reply's ``> ``.
_PEM_GUTTER = r"(?:[ \t]*\d{1,9}[ \t]*[\u2192\u2502:]|[^\s:]{1,200}:\d{1,9}[:-]|(?:>[ \t]?)+)"
# A body cut off before its END: base64 lines, decorated as a comment, a string or a table's row
# (``| MIIE... |``), each perhaps after a gutter, or joined by ``<br>``.
_PEM_TAIL = lazy.Pattern(
    rf"(?:(?:(?<=\n)|(?<=\\n)){_PEM_GUTTER}|[A-Za-z0-9+/=\s|]|\\[nr]|<br[ \t]*/?>){{0,20000}}"
)
# what decorates a body's line as a comment, a string, a list's item or a table's row, or marks it
# in a diff (``+``, ``-``): before it, and after it
_PEM_OPENING = "*#;\"'`+,|-"
_PEM_CLOSING = "\"'`+,;|\\"
_BASE64_BODY = lazy.Pattern(r"[A-Za-z0-9+/]+={0,2}")
# a run of base64 standing as a word of its own (one holding ``_`` or ``-`` is no base64), or
# after the ``-`` a diff marks a removed line with
_BASE64_RUN = lazy.Pattern(r"(?:(?<![\w+/-])|(?<=^-))[A-Za-z0-9+/]{40,}+={0,2}(?![\w+/=-])", re.MULTILINE)
_HEX = lazy.Pattern(r"[0-9A-Fa-f]+")
_PEM_MAX = 20000


def _undecorated(line: str) -> str:
    """A key body's LINE without the blanks and decoration before and after it (``//`` opens a
    comment, a single ``/`` is base64). Stripped, not searched for: a search for decoration
    ending the line read a long run of blanks inside it again from each of them."""
    start, end = 0, len(line)
    while start < end:
        if line[start].isspace() or line[start] in _PEM_OPENING:
            start += 1
        elif line.startswith("//", start):
            start += 2
        else:
            break
    while end > start and (line[end - 1].isspace() or line[end - 1] in _PEM_CLOSING):
        end -= 1
    return line[start:end]


def _pem_body_is_key(body: str) -> bool:
    """True when BODY reads as key material: base64 (not hex), long enough, not a filler.

    Lines may carry comment, string or table decoration (`` * ``, ``"...\\n" +``, ``| ... |``)
    and armor headers. A body decorated otherwise (a gutter before each line, lines joined by
    spaces or ``<br>``) is key material when it holds a run of base64 as long as a key's line.
    """
    kept = []
    for line in body.replace("\\r", "").replace("\\n", "\n").splitlines():
        line = _undecorated(line)
        if line and ":" not in line and not (line.startswith("=") and len(line) <= 5):
            kept.append(line)
    joined = "".join(kept)
    if len(joined) >= 40 and _BASE64_BODY.fullmatch(joined) and not _HEX.fullmatch(joined):
        return not (low_variety(joined) or "EXAMPLE" in joined)
    return any(_key_line(run.group()) for run in _BASE64_RUN.finditer(body))


def _key_line(run: str) -> bool:
    """Whether RUN, 40 base64 characters or more, reads as a line of key material: three of
    lower case, upper case, digits and ``+/`` mixed (not hex, not a filler)."""
    return char_classes(run) >= 3 and not (_HEX.fullmatch(run) or low_variety(run) or "EXAMPLE" in run)


@functools.lru_cache(maxsize=64)
def _pem_end(label: str) -> re.Pattern[str]:
    return re.compile(rf"-----END {re.escape(label)}PRIVATE KEY(?: BLOCK)?-----", re.IGNORECASE)


def pem_hits(text: Text) -> Iterator[Hit]:
    """PEM/OpenSSH/PGP private key blocks, BEGIN through END (or through the body if cut off)."""
    raw = text.raw
    begins = list(_PEM_BEGIN.finditer(raw))
    for n, begin in enumerate(begins):
        label = begin.group("label")
        if FILLER.search(label):
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
            yield Hit(begin.start(), stop, "pem-private-key", 0)
    yield from _encrypted_key_hits(raw)
    yield from _headless_key_hits(text, [begin.start() for begin in begins])
    yield from _key_file_diff_hits(text)


_PEM_END = lazy.Pattern(r"-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----", re.IGNORECASE)
# a line's gutter as any tool prints it: those above, ``cat -n``'s and ``nl``'s number and tab, or
# the header of a diff's hunk, which git ends with a line of the file before the hunk
_PEM_LINE_GUTTER = (
    rf"(?:{_PEM_GUTTER}|[ \t]*\d{{1,9}}\t|@@ -\d{{1,9}}(?:,\d{{1,9}})? \+\d{{1,9}}(?:,\d{{1,9}})? @@)")
# one line of a key's body, as tools print it: a gutter perhaps, decoration, a run of base64 (a
# full line's, but for the last line of a body, which may be as short as a few characters), and
# the escapes that end it in a string (``"...\\n" +``)
_PEM_BODY_LINES = tuple(lazy.Pattern(
    rf"{_PEM_LINE_GUTTER}?[ \t{re.escape(_PEM_OPENING)}]*[A-Za-z0-9+/]{{{least},}}={{0,2}}"
    rf"(?:\\r)?(?:\\n)?[ \t{re.escape(_PEM_CLOSING)}]*") for least in (1, 16))
_FULL_LINE = 16
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _headless_key_hits(text: Text, begins: list[int]) -> Iterator[Hit]:
    """Key bodies shown without their BEGIN line (``tail -n +2 key.pem``, or the second of two
    commands that print a key half each): the body lines right before an END line that no
    BEGIN opens, and the END line. Each END reads back no further than the one before it, so
    scans stay linear."""
    if "private key" not in text.low:
        return
    raw, floor = text.raw, 0
    for end in _PEM_END.finditer(raw):
        opened = bisect.bisect_left(begins, end.start()) > bisect.bisect_left(begins, floor)
        if not opened:
            start = _body_start(raw, max(floor, end.start() - _PEM_MAX), end.start())
            if start < end.start() and _pem_body_is_key(raw[start:end.start()]):
                yield Hit(start, end.end(), "pem-private-key", 0)
        floor = end.end()


# what may stand before an END on its line: a gutter, blanks, and a body line's decoration (a diff's
# ``+`` or ``-``, a list's ``- ``, a quote opening a string, a table's ``|``)
_PEM_GUTTER_ONLY = lazy.Pattern(rf"{_PEM_LINE_GUTTER}?[ \t{re.escape(_PEM_OPENING)}]*")
_BLANK_LINE = lazy.Pattern(r"[ \t\r]*")


def _body_start(raw: str, floor: int, at: int) -> int:
    """Where the run of key body lines right before AT (an END line's start, perhaps after a
    gutter or a diff's marker on its line) begins, no earlier than FLOOR; AT when no such line is
    there. A blank line may stand between two body lines, or before the END. Lines joined on one
    line (by ``\\n`` escapes in a string, ``<br>``, blanks, a list's quotes and commas) are read too."""
    line = _line_start(raw, floor, at)
    if _PEM_GUTTER_ONLY.fullmatch(raw, line, at) is None:
        return _joined_body_start(raw, line, at)  # other text stands before the END on its line
    start = line
    while start > floor:
        previous, stop = _line_start(raw, floor, start - 1), _line_end(raw, start - 1)
        if _BLANK_LINE.fullmatch(raw, previous, stop) is not None and previous > floor:
            before = _line_start(raw, floor, previous - 1)  # the line before the blank one decides
            if _PEM_BODY_LINES[start < line].fullmatch(raw, before, _line_end(raw, previous - 1)) is None:
                break
            start = before
            continue
        if _PEM_BODY_LINES[start < line].fullmatch(raw, previous, stop) is None:
            break
        start = previous
    return start if start < line else at


def _line_end(raw: str, newline: int) -> int:
    """Where the line ended by the line break at NEWLINE ends, its carriage return left out."""
    return newline - 1 if newline > 0 and raw[newline - 1] == "\r" else newline


# what joins a body's lines on one line: escapes in a string, HTML's line breaks, and (one
# character each) blanks, a list's quotes and commas, a table's bars
_JOINS = ("\\r\\n", "\\n", "\\r", "<br>", "<br/>", "<br />")
_JOINING = frozenset(" \t\"'`,;|")


def _joined_body_start(raw: str, floor: int, at: int) -> int:
    """Where the base64 lines right before AT, joined on one line (``"...\\n..."``, ``<br>``,
    ``['...', '...']``, blanks), begin, no earlier than FLOOR; AT when none is there. Each
    character is read once."""
    start = at
    while True:
        join = start
        while join > floor:
            if raw[join - 1] in _JOINING:
                join -= 1
                continue
            joined = next((j for j in _JOINS if raw.endswith(j, floor, join)), None)
            if joined is None:
                break
            join -= len(joined)
        if join == start:
            break
        segment = join
        while segment > floor and raw[segment - 1] in _BASE64_CHARS and not (
                raw.endswith("\\n", floor, segment) or raw.endswith("\\r", floor, segment)):
            segment -= 1  # back to the escape that ends the line before (its n is no base64)
        if join - segment < (_FULL_LINE if start < at else 1):
            break
        start = segment
    return start


# A diff's file headers (``--- a/path``, ``+++ b/path``, a date after a tab as ``diff -u`` writes
# it), the lines of its hunks (up to the next file's headers), and a run of those holding base64
# alone: a line marked ``+``, ``-`` or `` ``, or a hunk's header, which git ends with the line of
# the file before the hunk.
_DIFF_FILES = lazy.Pattern(r"^--- ([^\n]{1,4096})\n\+\+\+ ([^\n]{1,4096})(?:\n|\Z)", re.MULTILINE)
_HUNK_LINES = lazy.Pattern(r"(?:(?!--- |\+\+\+ |diff )[-+ @\\][^\n]*+(?:\n|\Z))*+")
_DIFFED_BODY = lazy.Pattern(
    r"(?:^(?:[-+ ]|@@ -\d{1,9}(?:,\d{1,9})? \+\d{1,9}(?:,\d{1,9})? @@ )[A-Za-z0-9+/]++={0,2}[ \t\r]*+(?:\n|\Z))++",
    re.MULTILINE)
_KEY_FILES = frozenset({"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"})
_PUBLIC = lazy.Pattern(r"CERTIFICATE|PUBLIC KEY", re.IGNORECASE)


def _key_file(header: str) -> bool:
    """Whether a diff's file HEADER (``a/path``, perhaps a tab and a date after it) names a file
    that holds a private key: ``*.pem``, ``*.key``, an SSH key's ``id_rsa``."""
    name = header.split("\t", 1)[0].rstrip().rsplit("/", 1)[-1].lower()
    return name.endswith((".pem", ".key")) or name in _KEY_FILES


def _key_file_diff_hits(text: Text) -> Iterator[Hit]:
    """A key file's lines in a diff's hunks, where neither its BEGIN nor its END line shows
    (``git diff -U0`` of a key rotated in place): each run of lines holding base64 alone that
    reads as key material. A file whose hunks speak of a certificate or a public key is left
    alone. The hunks of each file are read once, up to the next file's headers."""
    raw = text.raw
    if "\n+++ " not in raw or "@@ -" not in raw:
        return
    for files in _DIFF_FILES.finditer(raw):
        if not (_key_file(files.group(1)) or _key_file(files.group(2))):
            continue
        hunks = _HUNK_LINES.match(raw, files.end())
        stop = hunks.end() if hunks else files.end()
        if _PUBLIC.search(raw, files.end(), stop):
            continue
        for run in _DIFFED_BODY.finditer(raw, files.end(), stop):
            if _pem_body_is_key(run.group()):
                yield Hit(run.start(), run.end() - (1 if run.group().endswith("\n") else 0), "pem-private-key", 0)


def _line_start(raw: str, floor: int, at: int) -> int:
    """Where the line that AT ends (or stands in) starts, no earlier than FLOOR."""
    found = raw.rfind("\n", floor, at)
    return found + 1 if found >= 0 else floor


# The armor headers of a passphrase-encrypted PEM key (RFC 1421), which only such a key carries:
# a body after them is key material even where the BEGIN and END lines were left out.
_ENCRYPTED_ARMOR = lazy.Pattern(r"Proc-Type:[ \t]*4,ENCRYPTED[ \t]*\r?\nDEK-Info:[^\n]{1,200}\n")


def _encrypted_key_hits(raw: str) -> Iterator[Hit]:
    """Encrypted PEM key bodies after their armor headers, headers and all."""
    if "Proc-Type" not in raw:
        return
    armors = list(_ENCRYPTED_ARMOR.finditer(raw))
    for n, armor in enumerate(armors):
        # a body ends before the next armor at the latest: scans stay linear
        limit = min(armors[n + 1].start() if n + 1 < len(armors) else len(raw), armor.end() + _PEM_MAX)
        tail = _PEM_TAIL.match(raw, armor.end(), limit)
        body = raw[armor.end() : tail.end() if tail else armor.end()].rstrip()  # the line break after it stays
        if _pem_body_is_key(body):
            yield Hit(armor.start(), armor.end() + len(body), "pem-private-key", 0)


# AWS key ids: a user's or a role's long-term key (AKIA), a temporary one (ASIA), a bearer token
# (ABIA) and a context-specific key (ACCA)
_AWS_KEY_ID = lazy.Pattern(r"A(?:KIA|SIA|BIA|CCA)([A-Z2-7]{16})(?![A-Za-z0-9])")
_GITHUB = lazy.Pattern(
    r"(?:gh[pousr]_([A-Za-z0-9]{36,}+)|github_pat_([A-Za-z0-9_]{22,}+))(?![A-Za-z0-9_])"
)
# Slack bot, user, app and configuration tokens, and the refresh tokens (xoxe) that rotate them
_SLACK_RANDOM = 16  # a token's random part, the last of its parts, is at least this long
_SLACK = lazy.Pattern(r"x(?:ox[abposre](?:\.xox[bp])?-([A-Za-z0-9-]{10,}+)|app-\d-([A-Za-z0-9-]{10,}+))")
_SLACK_WEBHOOK = lazy.Pattern(
    r"hooks\.slack\.com/(?P<v>(?:services|workflows|triggers)/([A-Za-z0-9_/-]{10,}+))"
)
# Other chat services' incoming webhooks, whose URL is the credential: Discord's (the webhook's id
# and its token after /api/webhooks/) and Microsoft Teams' (Office 365 connectors: the path after
# /webhookb2/, the team's and the connector's ids and the connector's key); the group ``v`` goes,
# the host stays. Each is looked for only in a text holding its literal.
_WEBHOOKS = tuple(
    (kind, needs, lazy.Pattern(pattern))
    for kind, needs, pattern in (
        ("discord-webhook", "/api/webhooks/",
         r"discord(?:app)?\.com/api/webhooks/(?P<v>\d{17,20}/(?P<s>[A-Za-z0-9_-]{60,80}+))"),
        ("teams-webhook", "/webhookb2/",
         r"\.webhook\.office\.com/(?P<v>webhookb2/(?P<s>[A-Za-z0-9@/-]{60,400}+))"),
    )
)
# The lookbehind sits after the literal "eyJ" so the engine still searches for the literal, and a
# long run holding "eyJ" many times is not rescanned from each of them.
_JWT = lazy.Pattern(
    r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"(?![A-Za-z0-9_-])"
)

# API keys in their vendors' documented shapes (the prefixes and lengths secret scanners such as
# gitleaks and GitHub's push protection look for); the group is the random part. Each is looked
# for only in a text holding the literal every key of its shape holds (a substring test is far
# cheaper than a pattern that opens with a choice of letters, as Stripe's does).
_API_KEYS = tuple(
    (kind, needs, lazy.Pattern(pattern))
    for kind, needs, pattern in (
        # Anthropic: sk-ant-api03-<93>AA, sk-ant-admin01-..., before OpenAI's sk-
        ("anthropic-key", "sk-ant-", r"sk-ant-(?:api|admin|oat|sid)\d\d-([A-Za-z0-9_-]{32,}+)"),
        # OpenAI: sk-proj-..., sk-svcacct-..., sk-admin-... (over 150 characters), sk-<48>
        ("openai-key", "sk-", r"sk-(?:proj|svcacct|admin|None)-([A-Za-z0-9_-]{32,}+)|sk-([A-Za-z0-9]{32,}+)"),
        # GitLab personal, deploy, runner, project trigger, feed and OAuth tokens
        ("gitlab-token", "gl", r"gl(?:pat|dt|rt|ptt|ft|soat|oas|cbt|imt|ffct|agent)-([A-Za-z0-9_-]{20,}+)(?:\.[A-Za-z0-9_-]+)*"),
        # GitLab runner registration tokens, and the session cookie of a signed-in user
        ("gitlab-token", "GR1348941", r"GR1348941([A-Za-z0-9_-]{20,}+)"),
        ("gitlab-token", "_gitlab_session=", r"_gitlab_session=([a-f0-9]{32})"),
        # Stripe secret and restricted keys, live and test
        ("stripe-key", "k_", r"[sr]k_(?:live|test|prod)_([A-Za-z0-9]{20,}+)"),
        ("npm-token", "npm_", r"npm_([A-Za-z0-9]{36})"),
        ("google-api-key", "AIza", r"AIza([0-9A-Za-z_-]{35})"),
        # Google OAuth access tokens: ya29. and a random run (of up to 2,048 characters)
        ("google-oauth-token", "ya29.", r"ya29\.([0-9A-Za-z_-]{20,}+)"),
        # Hugging Face user access tokens (hf_ and 34 letters) and organisation tokens
        ("huggingface-token", "hf_", r"hf_([A-Za-z0-9]{34})"),
        ("huggingface-token", "api_org_", r"api_org_([A-Za-z0-9]{34})"),
        # SendGrid API keys: SG., a 22-character id, a dot, a 43-character secret
        ("sendgrid-key", "SG.", r"SG\.([A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"),
        # PyPI API tokens: pypi- and a macaroon whose base64 opens with the issuer, pypi.org
        ("pypi-token", "pypi-AgEIcHlwaS5vcmc", r"pypi-AgEIcHlwaS5vcmc([A-Za-z0-9_-]{50,}+)"),
        # HashiCorp Vault service and batch tokens, and Terraform Cloud API tokens
        ("vault-token", "hvs.", r"hvs\.([A-Za-z0-9_-]{90,}+)"),
        ("vault-token", "hvb.", r"hvb\.([A-Za-z0-9_-]{138,}+)"),
        ("terraform-token", ".atlasv1.", r"([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})"),
        # Stripe webhook signing secrets
        ("stripe-key", "whsec_", r"whsec_([A-Za-z0-9+/]{32,88}={0,2})"),
        # Shopify access tokens, shared secrets, custom and private app tokens: 32 hex digits
        ("shopify-token", "shp", r"shp(?:at|ss|ca|pa)_([a-fA-F0-9]{32})"),
        # DigitalOcean personal access, OAuth and refresh tokens
        ("digitalocean-token", "_v1_", r"do[opr]_v1_([a-f0-9]{64})"),
        ("linear-key", "lin_api_", r"lin_api_([A-Za-z0-9]{40})"),
        # Doppler personal, service, CLI, service account, SCIM and audit tokens
        ("doppler-token", "dp.", r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]{1,35}\.)?([A-Za-z0-9]{40,44})"),
        ("databricks-token", "dapi", r"dapi([a-f0-9]{32})(?:-\d)?"),
        # Grafana service account tokens and Grafana Cloud API keys
        ("grafana-token", "glsa_", r"glsa_([A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"),
        ("grafana-token", "glc_", r"glc_([A-Za-z0-9+/]{32,}+={0,2})"),
        # age secret keys: Bech32, upper case
        ("age-secret-key", "AGE-SECRET-KEY-1", r"AGE-SECRET-KEY-1([QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})"),
        ("postman-key", "PMAK-", r"PMAK-([a-f0-9]{24}-[a-f0-9]{34})"),
        # Telegram bot tokens: the bot's id, a colon, AA and 33 characters (in the Bot API's URLs
        # after /bot, which goes with it)
        ("telegram-bot-token", ":AA", r"(?:bot)?\d{5,16}:(AA[A-Za-z0-9_-]{33})"),
        ("mailgun-key", "key-", r"key-([a-f0-9]{32})"),
        # Twilio API key SIDs: SK and 32 hex digits (the key's secret beside it: _twilio_hits)
        ("twilio-key", "SK", r"SK([0-9a-fA-F]{32})"),
        ("atlassian-token", "ATATT3", r"ATATT3([A-Za-z0-9_=-]{186})"),
        # Mapbox secret tokens: sk. and a JWT-like body whose payload opens with {"u":
        ("mapbox-token", "sk.eyJ1", r"sk\.eyJ1([A-Za-z0-9_-]{30,}+\.[A-Za-z0-9_-]{20,30})"),
        # Cloud providers. AWS Bedrock API keys: long-term (ABSK and base64), short-term (the base64
        # of the Bedrock endpoint's signed URL after bedrock-api-key-)
        ("aws-bedrock-key", "ABSK", r"ABSK([A-Za-z0-9+/]{100,}+={0,2})"),
        ("aws-bedrock-key", "bedrock-api-key-",
         r"bedrock-api-key-(YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]{40,}+={0,2})(?:&Version=\d+)?"),
        # Microsoft Entra (Azure AD) client secrets: three characters, a digit, Q~, 31 to 34 more
        ("azure-client-secret", "Q~", r"[A-Za-z0-9_~.]{3}\dQ~([A-Za-z0-9_~.-]{31,34})"),
        ("alibaba-key", "LTAI", r"LTAI([A-Za-z0-9]{12,20})"),
        # Cloudflare Origin CA keys
        ("cloudflare-key", "v1.0-", r"v1\.0-([a-f0-9]{24}-[a-f0-9]{146})"),
        ("heroku-token", "HRKU-", r"HRKU-(AA[A-Za-z0-9_-]{58})"),
        # Fly.io organisation tokens (fo1_) and macaroons (fm1a_, fm1r_, fm2_)
        ("flyio-token", "fo1_", r"fo1_([A-Za-z0-9_-]{43})"),
        ("flyio-token", "fm", r"fm(?:1[ar]|2)_([A-Za-z0-9+/]{100,}+={0,3})"),
        # OpenShift user tokens, Scalingo API tokens, Dynatrace API tokens
        ("openshift-token", "sha256~", r"sha256~([A-Za-z0-9_-]{43})"),
        ("scalingo-token", "tk-us-", r"tk-us-([A-Za-z0-9_-]{48})"),
        ("dynatrace-token", "dt0c01.", r"dt0c01\.([A-Za-z0-9]{24}\.[A-Za-z0-9]{64})"),
        # 1Password account secret keys and service account tokens
        ("1password-key", "A3-",
         r"A3-([A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})"),
        ("1password-key", "ops_eyJ", r"ops_(eyJ[A-Za-z0-9+/]{200,}+={0,3})"),
        # CI/CD and package registries: Docker Hub personal and organisation access tokens,
        # Buildkite, CircleCI, Harness, Pulumi, Prefect, Octopus Deploy, Sourcegraph, SonarQube,
        # Sentry, Infracost, ReadMe, RubyGems, Clojars and JFrog Artifactory tokens
        ("docker-token", "dckr_", r"dckr_(?:pat|oat)_([A-Za-z0-9_-]{27,}+)"),
        ("buildkite-token", "bkua_", r"bkua_([a-f0-9]{40})"),
        ("circleci-token", "CCIPAT_", r"CCIPAT_([A-Za-z0-9]{22}_[a-fA-F0-9]{40})"),
        ("harness-token", "at.", r"[ps]at\.([A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})"),
        ("pulumi-token", "pul-", r"pul-([a-f0-9]{40})"),
        ("prefect-token", "pnu_", r"pnu_([A-Za-z0-9]{36})"),
        ("octopus-key", "API-", r"API-([A-Z0-9]{26})"),
        ("sourcegraph-token", "sgp_", r"sgp_((?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40})"),
        ("sonar-token", "sq", r"sq[upa]_([a-f0-9]{40})"),
        ("sentry-token", "sntryu_", r"sntryu_([a-f0-9]{64})"),
        ("sentry-token", "sntrys_eyJ", r"sntrys_(eyJ[A-Za-z0-9+/]{20,}+={0,2}_[A-Za-z0-9+/]{43})"),
        # (letters of both cases: a file name's ``.ico-`` and a digest, hex, is none)
        ("infracost-token", "ico-", r"ico-(?=[a-z0-9]{0,31}[A-Z])([A-Za-z0-9]{32})"),
        ("readme-token", "rdme_", r"rdme_([a-z0-9]{70})"),
        ("rubygems-token", "rubygems_", r"rubygems_([a-f0-9]{48})"),
        ("clojars-token", "CLOJARS_", r"CLOJARS_([A-Za-z0-9]{60})"),
        ("artifactory-token", "AKCp", r"AKCp([A-Za-z0-9]{69})"),
        ("artifactory-token", "cmVmd", r"cmVmd([A-Za-z0-9]{59})"),
        # AI providers: Perplexity, Groq, xAI and Replicate API keys
        ("perplexity-key", "pplx-", r"pplx-([A-Za-z0-9]{48})"),
        ("groq-key", "gsk_", r"gsk_([A-Za-z0-9]{52})"),
        ("xai-key", "xai-", r"xai-([A-Za-z0-9_]{80})"),
        ("replicate-token", "r8_", r"r8_([A-Za-z0-9_-]{37})"),
        # Payment: Square access tokens and OAuth secrets, Shippo, Flutterwave (secret and
        # encryption keys), Duffel, EasyPost and Plaid access tokens
        ("square-token", "sq0", r"sq0(?:atp|csp)-([A-Za-z0-9_-]{22,60})"),
        ("square-token", "EAAA", r"EAAA([A-Za-z0-9_+-]{60})"),
        # Facebook (Meta) Graph API access tokens: EAA and a random run (no base64's + or /) of a
        # length Meta does not fix (user, page and system user tokens run to some two hundred
        # characters, shorter ones are seen too); one shorter than _FACEBOOK_LONG mixes cases and digits
        ("facebook-token", "EAA", r"EAA(?<![+/]EAA)([A-Za-z0-9]{20,}+)(?![+/=])"),
        ("shippo-token", "shippo_", r"shippo_(?:live|test)_([a-fA-F0-9]{40})"),
        ("flutterwave-key", "FLWSECK", r"FLWSECK(?:_TEST)?-?([a-fA-F0-9]{32}-X|[a-fA-F0-9]{12})"),
        ("duffel-token", "duffel_", r"duffel_(?:test|live)_([A-Za-z0-9_=-]{43})"),
        ("easypost-key", "EZ", r"EZ[AT]K([A-Za-z0-9]{54})"),
        ("plaid-token", "access-",
         r"access-((?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"),
        # Chat and mail: the bearer tokens of Twitter's (X's) API, Brevo (Sendinblue) API and SMTP
        # keys, Notion integration tokens
        # (21 A's, a short id, a run of A's, then the random part, URL-encoded); the A's open a
        # word, told after them (a long run of A's is not read again from each of its A's)
        ("twitter-bearer-token", "A" * 21,
         "A" * 21 + r"(?<![A-Za-z0-9]A{21})A?+(?:[A-Za-z0-9]{1,16}?A{4,}+)?+([A-Za-z0-9%]{60,}+)"),
        ("brevo-key", "sib-", r"x(?:keysib|smtpsib)-([a-f0-9]{64}-[A-Za-z0-9]{16})"),
        ("notion-token", "ntn_", r"ntn_(\d{11}[A-Za-z0-9]{35})"),
        # Databases as a service: PlanetScale, Supabase, ClickHouse Cloud and Airtable
        ("planetscale-token", "pscale_", r"pscale_(?:tkn|oauth|pw)_([A-Za-z0-9_=.-]{31,63}[A-Za-z0-9_=-])"),
        ("supabase-token", "sbp_", r"sbp_([a-f0-9]{40})"),
        ("supabase-token", "sb_secret_", r"sb_secret_([A-Za-z0-9_-]{31,}+)"),
        ("clickhouse-key", "4b1d", r"4b1d([A-Za-z0-9]{38})"),
        ("airtable-token", "pat", r"pat([A-Za-z0-9]{14}\.[a-f0-9]{64})"),
        # Observability: Grafana's older API keys (base64 of {"k":"...), New Relic user API keys,
        # Adobe client secrets
        ("grafana-token", "eyJrIjoi", r"eyJrIjoi([A-Za-z0-9]{70,}+={0,3})"),
        ("newrelic-key", "NRAK-", r"NRAK-([A-Z0-9]{27})"),
        ("adobe-secret", "p8e-", r"p8e-([A-Za-z0-9]{32})"),
        # a PuTTY key file's private lines, base64, a line at a time
        ("putty-private-key", "Private-Lines:",
         r"Private-Lines:[ \t]*\d{1,3}\r?\n([A-Za-z0-9+/]{4,80}={0,2}(?:\r?\n[A-Za-z0-9+/]{4,80}={0,2}){0,200})"
         r"(?![A-Za-z0-9+/=-])"),
    )
)
_KEY_END = lazy.Pattern(r"[A-Za-z0-9_-]")
_FACEBOOK_LONG = 80
# A token is judged by its first characters (so a long one costs no more to judge); all of it goes.
_JUDGED = 512


# Every key of those shapes but a PuTTY file's lines is a run of 16 of these characters or more,
# its literal inside it: the literals are looked for in a text's runs that long alone, found in
# one pass (some quarter of a transcript, none of most decoded blobs and short texts; looked for
# in all of a text, a hundred literals took longer than the patterns).
_KEY_RUN = lazy.Pattern(r"[^A-Za-z0-9_.~+/%=:-][A-Za-z0-9_.~+/%=:-]{16,}+")
_UNRUN = frozenset({"putty-private-key"})
_UNRUN_KEYS = tuple(entry for entry in _API_KEYS if entry[0] in _UNRUN)


def _api_key_hits(raw: str) -> Iterator[Hit]:
    """API keys of the vendors in :data:`_API_KEYS` (and Azure DevOps' newer tokens, found in the
    same runs), standing as a word of their own."""
    runs = " ".join(_KEY_RUN.findall(" " + raw))
    if "AZDO" in runs:
        yield from _azure_devops_hits(raw)
    for kind, needs, pattern in _API_KEYS if runs else _UNRUN_KEYS:
        if needs not in (raw if kind in _UNRUN else runs):
            continue
        for m in pattern.finditer(raw):
            if not starts_word(raw, m.start(), "-") or _KEY_END.match(raw, m.end()):
                continue
            body = next(group for group in m.groups() if group)[:_JUDGED]
            if kind == "facebook-token" and len(body) < _FACEBOOK_LONG and (
                    char_classes(body) < 3 or body.startswith("A") or "AAAA" in body):
                continue  # a short run of one case and digits (a word's, an id's), or base64 of zero bytes
            if (token_is_real(m.group(), body) and char_classes(body) >= 2
                    and not looks_placeholder(m.group()[:_JUDGED]) and not names_something(body)):
                yield Hit(m.start(), m.end(), kind, 1)


# GitHub renders every image attached to a private repository's issue or pull request as a link
# to private-user-images.githubusercontent.com signed with a jwt that expires five minutes
# later, a new one for each view: a signed link to content, not a credential anyone holds, and
# review comments carry them often. The jwt right after such a link's query stays.
_GITHUB_IMAGE_LINK = lazy.Pattern(
    r"https://private-user-images\.githubusercontent\.com/[\w./%-]{1,200}\?(?:[\w.%-]{1,200}=[\w.%-]{0,200}&)*jwt=$"
)


def shape_hits(text: Text) -> Iterator[Hit]:
    """Credentials recognisable by their own shape, wherever they appear."""
    raw = text.raw
    for m in _AWS_KEY_ID.finditer(raw):
        if starts_word(raw, m.start()) and token_is_real(m.group(), m.group(1)):
            yield Hit(m.start(), m.end(), "aws-access-key", 1)
    for m in _GITHUB.finditer(raw):
        if starts_word(raw, m.start()) and token_is_real(m.group(), (m.group(1) or m.group(2))[:_JUDGED]):
            yield Hit(m.start(), m.end(), "github-token", 1)
    for m in _SLACK.finditer(raw):
        body = (m.group(1) or m.group(2))[:_JUDGED]
        joined, last = body.replace("-", ""), body.rsplit("-", 1)[-1]
        if starts_word(raw, m.start(), "-") and token_is_real(m.group(), joined):
            # a name is a placeholder's (xoxb-my-bot-token), and so is one as long as a token's
            # random part where that part ends it (xoxp-1-YourUserAccessTokenGoesHere)
            if not (looks_placeholder(m.group()[:_JUDGED]) or names_something(joined)
                    or (len(last) >= _SLACK_RANDOM and names_something(last))):
                yield Hit(m.start(), m.end(), "slack-token", 1)
    yield from _api_key_hits(raw)
    for m in _SLACK_WEBHOOK.finditer(raw):
        if token_is_real(m.group(), m.group(2)[:_JUDGED].replace("/", "")):
            yield Hit(m.start("v"), m.end("v"), "slack-webhook", 1)
    for kind, needs, pattern in _WEBHOOKS:
        if needs in raw:
            for m in pattern.finditer(raw):
                if token_is_real(m.group(), m.group("s")[:_JUDGED].replace("/", "").replace("-", "")):
                    yield Hit(m.start("v"), m.end("v"), kind, 1)
    for m in _JWT.finditer(raw):
        keep = _GITHUB_IMAGE_LINK.search(raw, max(0, m.start() - 300), m.start()) is not None
        yield Hit(m.start(), m.end(), "jwt", 0 if keep else 1, replacement=m.group() if keep else None,
                   keep=keep)

    yield from _reversed_github_hits(raw)
    yield from _twilio_hits(raw)
    yield from _mailchimp_hits(raw)


# Mailchimp's API keys: 32 lower-case hex digits, a dash and the account's data centre (``-us6``,
# ``-us21``), looked for from the data centre, the one literal a key holds (a search for 32 hex
# digits would be tried at every character)
_MAILCHIMP_CENTRE = lazy.Pattern(r"-us\d{1,2}(?![\w-])")
_HEX_32 = lazy.Pattern(r"[0-9a-f]{32}")


def _mailchimp_hits(raw: str) -> Iterator[Hit]:
    if "-us" not in raw:
        return
    for m in _MAILCHIMP_CENTRE.finditer(raw):
        start = m.start() - 32
        if start >= 0 and _HEX_32.fullmatch(raw, start, m.start()) and starts_word(raw, start) \
                and token_is_real(raw[start : m.end()], raw[start : m.start()]):
            yield Hit(start, m.end(), "mailchimp-key", 1)


# Azure DevOps personal access tokens in their newer form: 84 letters and digits, 52 random ones,
# ``JQQJ``, 20 more, ``AZDO`` and four: looked for from ``JQQJ``, the random part before it judged
# as any token's (the older form, 52 lower-case base32 characters, has no shape of its own: it is
# told by its key, :func:`_vendor_key_hit`)
_AZURE_DEVOPS_TAIL = lazy.Pattern(r"JQQJ[0-9A-Za-z]{20}AZDO[0-9A-Za-z]{4}(?![\w-])")
_AZURE_DEVOPS_RANDOM = lazy.Pattern(r"[0-9A-Za-z]{52}")


def _azure_devops_hits(raw: str) -> Iterator[Hit]:
    for m in _AZURE_DEVOPS_TAIL.finditer(raw):
        start = m.start() - 52
        if start >= 0 and _AZURE_DEVOPS_RANDOM.fullmatch(raw, start, m.start()) and starts_word(raw, start, "-") \
                and token_is_real(raw[start : m.end()], raw[start : m.start()]):
            yield Hit(start, m.end(), "azure-devops-token", 1)


# Twilio's credentials come in pairs: an API key's SID (SK and 32 hex digits, a ``twilio-key``
# itself) with its secret, 32 letters of both cases and digits; an account's SID (AC and 32 hex
# digits, which every API URL of the account shows: it stays) with its auth token, 32 lower-case
# hex digits. Passed as a client's arguments (``Client("SK...", "<secret>", "AC...")``) or set
# on lines of their own without a credential word (``TWILIO_API_KEY_SID``), the secret has no
# key and no shape to tell it by but the SID beside it: a run of that shape on the SID's line or
# within two lines of it is the ``twilio-secret``. A SID in a URL's path is a request's, not a
# credential's: what stands near it (an ETag, a message's hash) is not looked at. An auth
# token's shape is any hex digest's (an MD5, an ETag, a dash-less id), and the account's SID is
# public, so a run of it counts only where it is told to be the token: named so (``auth_token``,
# ``authToken``, ``TWILIO_AUTH_TOKEN``, ``TWILIO_KEY``, a password, a secret; not an ``md5``,
# ``sha``, ``etag``, ``hash``, ``checksum``, ``digest`` or ``id``, even named a key), the SID's
# pair (``AC...:<token>``), or the argument after the SID in a call given the SID first: a
# client's constructor, however spelled (``Client("AC...", "<token>")``, Node's
# ``require('twilio')('AC...', '<token>')``, C#'s ``TwilioClient.Init("AC...", "<token>")``).
_TWILIO_SID = lazy.Pattern(r"(?<![A-Za-z0-9_])(?P<kind>SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9_])")
_TWILIO_SECRET = lazy.Pattern(r"(?<![A-Za-z0-9_])[A-Za-z0-9]{32}(?![A-Za-z0-9_])")
_TWILIO_TOKEN = lazy.Pattern(r"[0-9a-f]{32}")
_TWILIO_NAME = lazy.Pattern(r"(?P<name>[A-Za-z_][\w.-]{0,63})[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*[\"']?\Z")
_TWILIO_NAME_PARTS = lazy.Pattern(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_TWILIO_TOKEN_NAMES = frozenset((
    "auth", "token", "tok", "authtoken", "password", "passwd", "pwd", "pass", "secret", "key",
))
_TWILIO_LABELS = frozenset((
    "md5", "sha", "sha1", "sha256", "etag", "hash", "checksum", "digest", "id", "sid", "uuid", "guid",
))
_TWILIO_CALL = lazy.Pattern(r"\([ \t\r\n]*[\"']?\Z")
_TWILIO_NEXT_ARGUMENT = lazy.Pattern(r"[\"']?\s*,\s*[\"']?")
_TWILIO_LINES = 2  # lines either side of a SID its secret may stand on
_TWILIO_REACH = 400  # characters either side, at most


def _twilio_hits(raw: str) -> Iterator[Hit]:
    """Each run of a secret's shape near a SID of its kind (:data:`_TWILIO_SID`), judged once
    however many SIDs stand near it."""
    if "SK" not in raw and "AC" not in raw:
        return
    sids: dict[str, list[tuple[int, int]]] = {"SK": [], "AC": []}
    for sid in _TWILIO_SID.finditer(raw):
        if raw[sid.start() - 1 : sid.start()] != "/" and raw[sid.end() : sid.end() + 1] != "/":
            sids[sid.group("kind")].append((sid.start(), sid.end()))
    if not sids["SK"] and not sids["AC"]:
        return
    for m in _TWILIO_SECRET.finditer(raw):
        value = m.group()
        if value.lower() != value and value.upper() != value:
            near = sids["SK"]
        elif _TWILIO_TOKEN.fullmatch(value) is not None and char_classes(value) == 2:
            near = sids["AC"]
        else:
            continue
        at = bisect.bisect(near, (m.start(), m.start()))
        beside = [near[i] for i in (at - 1, at) if 0 <= i < len(near) and _near(raw, *near[i], m.start(), m.end())]
        if not beside or (near is sids["AC"] and not _told_auth_token(raw, m.start(), beside)):
            continue
        if token_is_real(value, value) and not names_something(value):
            yield Hit(m.start(), m.end(), "twilio-secret", 1)


def _told_auth_token(raw: str, start: int, sids: list[tuple[int, int]]) -> bool:
    """Whether the hex run at START is told to be the auth token of an account SID in SIDS (each
    near it): by its name, as the SID's pair, or as the argument after it in a call given the
    SID first (the comment on :data:`_TWILIO_SID` says which)."""
    name = _TWILIO_NAME.search(raw, max(0, start - 80), start)
    if name is not None:
        parts = {part.lower() for part in _TWILIO_NAME_PARTS.findall(name.group("name"))}
        if not parts & _TWILIO_LABELS and parts & _TWILIO_TOKEN_NAMES:
            return True
    for sid_start, sid_end in sids:
        if sid_end > start:
            continue
        if raw[sid_end:start] == ":":
            return True
        if (_TWILIO_NEXT_ARGUMENT.fullmatch(raw, sid_end, start) is not None
                and _TWILIO_CALL.search(raw, max(0, sid_start - 80), sid_start) is not None):
            return True
    return False


def _near(raw: str, sid_start: int, sid_end: int, start: int, end: int) -> bool:
    """Whether the run from START to END stands within reach of the SID (:data:`_TWILIO_LINES`,
    :data:`_TWILIO_REACH`)."""
    left, right = (sid_end, start) if sid_end <= start else (end, sid_start)
    return right - left <= _TWILIO_REACH and raw.count("\n", left, right) <= _TWILIO_LINES


# A GitHub token written backwards (``rev``): its prefix read from the end, ``_phg``. Only
# GitHub's prefixes, which no word ends with, are looked for; the run before one, turned
# round, must be a real token by the very checks a token written forwards passes.
_REVERSED_PREFIXES = ("_phg", "_ohg", "_uhg", "_shg", "_rhg", "_tap_buhtig")
_WORD_RUN = lazy.Pattern(r"[A-Za-z0-9_]*")


def _reversed_github_hits(raw: str) -> Iterator[Hit]:
    if "hg" not in raw and "buhtig" not in raw:
        return
    for suffix in _REVERSED_PREFIXES:
        position = 0
        while (found := raw.find(suffix, position)) != -1:
            position = end = found + len(suffix)
            if end < len(raw) and raw[end] in _WORD:
                continue
            start = found - len(_WORD_RUN.match(raw[max(0, found - 1024) : found][::-1]).group())
            if found - start < 22:
                continue
            turned = raw[start:end][::-1]
            m = _GITHUB.match(turned)
            if m is not None and m.end() == len(turned) and token_is_real(turned, (m.group(1) or m.group(2))[:_JUDGED]):
                yield Hit(start, end, "github-token", 1)


_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


_AUTH_SCHEMES = tuple(
    (scheme, lazy.Pattern(scheme + r"[ \t]+(?P<v>[a-z0-9._~+/-]{16,}=*)(?![a-z0-9._~+/=-])"))
    for scheme in ("bearer", "token", "basic")
)
# after an Authorization header's name, or its name's field (a HAR file's ``{"name":
# "Authorization", "value": "Basic ..."}``, Kubernetes' and Postman's name and value)
_AUTH_CONTEXT = lazy.Pattern(r"authori[sz]ation(?:\W{0,4}|[\"']?[ \t]*,?\s*[\"']?value[\"']?[ \t]*[:=][ \t]*[\"']?)$")


# A session's cookie, which signs its holder in as the user: the value of a cookie named for a
# session (``sessionid``, ``PHPSESSID``, ``JSESSIONID``, ``connect.sid``, ``_gitlab_session``,
# ``laravel_session``, ``_gh_sess``) where cookies are given: a Cookie or Set-Cookie header, curl's
# ``-b``/``--cookie``, a HAR file's ``{"name": "sessionid", "value": ...}``. A cookie named for a
# token or a password is an assignment already. The value must be random as a session's id is
# (sixteen characters or more, not a name, a word, a filler or a placeholder).
_COOKIES = lazy.Pattern(
    r"(?:(?<![\w-])(?:set-)?cookie[\"']?(?:[ \t]*+,\s*+[\"']?value[\"']?)?[ \t]*+[:=][ \t]*+[\"']?"
    r"|(?<!\S)(?:-b|--cookie)[ \t]++[\"']?)"
    r"(?P<c>[^\n\"']{1,4096})")
_COOKIE = lazy.Pattern(r"(?<![^;\s\"'])(?P<n>[^=;\s]{1,100}+)=(?P<v>[^;\s]++)")
_SESSION_NAME = lazy.Pattern(r"sess|(?<![a-z])sid\Z|sid\Z")
_HAR_COOKIE = lazy.Pattern(r"[\"']name[\"'][ \t]*+:[ \t]*+[\"'](?P<n>[^\"'\n]{1,100}+)[\"'][ \t]*+,\s*+[\"']value[\"']"
                           r"[ \t]*+:[ \t]*+[\"'](?P<v>[^\"'\s]++)[\"']")


def _session_cookie(name: str, value: str) -> bool:
    """Whether VALUE, a cookie named NAME, is a session's (above)."""
    return (len(value) >= 16 and _SESSION_NAME.search(name.lower()) is not None and char_classes(value) >= 2
            and token_is_real(value, value[:_JUDGED]) and not looks_placeholder(value) and not names_something(value))


def session_cookie_hits(text: Text) -> Iterator[Hit]:
    """The values of session cookies where cookies are given (above)."""
    if "cookie" not in text.low and "sess" not in text.low and "sid" not in text.low:
        return
    raw = text.raw
    if "cookie" in text.low or "-b" in text.low:
        for m in _COOKIES.finditer(text.low):
            for cookie in _COOKIE.finditer(raw, m.start("c"), m.end("c")):
                if _session_cookie(cookie.group("n"), cookie.group("v")):
                    yield Hit(cookie.start("v"), cookie.end("v"), "session-cookie", 2)
    if '"value"' in raw or "'value'" in raw:
        for m in _HAR_COOKIE.finditer(raw):
            if _session_cookie(m.group("n"), m.group("v")):
                yield Hit(m.start("v"), m.end("v"), "session-cookie", 2)


def auth_header_hits(text: Text) -> Iterator[Hit]:
    """``Bearer <token>`` anywhere; ``token``/``Basic`` schemes after an Authorization name."""
    for scheme, pattern in _AUTH_SCHEMES:
        if scheme not in text.low:  # every match opens with it
            continue
        for m in pattern.finditer(text.low):
            if not starts_word(text.low, m.start()):
                continue
            context = _AUTH_CONTEXT.search(text.low, max(0, m.start() - 40), m.start())
            if scheme != "bearer" and not context:
                continue
            value = text.raw[m.start("v") : m.end("v")]
            if not looks_placeholder(value) and char_classes(value) >= 2:
                kind = "basic-auth" if scheme == "basic" else "bearer-token"
                yield Hit(m.start("v"), m.end("v"), kind, 2)


# An assignment is a credential word ending a key, a separator, then a quoted or bare value.
# Tables and columns write the separator otherwise: a Markdown table's pipe between a key's
# cell and its value's (``| DB_PASSWORD | Xk9... |``, the key in emphasis, with a colon or a
# word in parentheses after it: ``| **Password:** |``, ``| password (prod) |``), or the gap of a
# tab or several spaces between a key and its value in tab-separated or aligned columns. A value's
# cell may open with a few notes in parentheses or brackets before the value:
# ``| password | (prod) (eu) Xk9... |``, ``| password | [prod] Xk9... |``.
# Its runs of blanks are possessive (blanks one gave back only the next could take): a gap after
# a key with no pipe closing it was otherwise split between them every way before it failed.
_KEY_CELL_END = r"[*_~]{0,3}(?:[ \t]*+\([^()|\n]{1,40}\))?[ \t]*+:?[*_~]{0,3}[ \t]*+\|"
_ASSIGNED = (
    rf"(?P<kq>[\"'`])?\]?(?:(?P<cell>{_KEY_CELL_END})|[ \t]*(?P<sep>:=|=>|==|[:=]|,)|(?P<gap>[ \t]{{2}}|\t))"
    r"[ \t]*(?:!!?\w+[ \t]+)?(?(cell)(?P<note>(?:(?:\([^()|\n]{1,40}\)|\[[^\[\]|\n]{1,40}\])[ \t]*){1,4})?)"
    r"(?:(?P<q>[\"'`])(?P<qv>(?:(?!(?P=q))[^\\\r\n]|\\.)++)(?P=q)"
    r"|(?P<bv>[^\s\"'`,;<>{}\[\]()]++|>[-+]?[1-9]?[-+]?(?=[ \t]*+(?:#|\r?\n|$))))"
)
_ASSIGNMENTS = tuple(
    (word, lazy.Pattern(word + _ASSIGNED))
    for word in ("password", "passwd", "passphrase", "secret", "token", "apikey", "key", "auth", "pass", "pwd",
                 "pw", "credentials", "creds", "secret_key_base", "secretid", "secret_id", "secretstring", "psk")
)
# Words that end many other words (``compass``, ``bypass``, ``oauth``): a key only when they stand
# alone or end a key after a separator or as a CamelCase word (``DB_PASS``, ``dbPass``, ``_auth``,
# WPA's ``psk``).
_WHOLE_WORD_KEYS = frozenset({"auth", "pass", "pwd", "pw", "credentials", "creds", "psk"})
# keys in which such a word runs on from another, yet that name a password: sshpass's environment
# variable (``SSHPASS=... sshpass -e``)
_JOINED_KEYS = frozenset({"sshpass"})
_QUALIFIERS = r"(?:api|access|secret|private|auth|signing|encryption|master|client|account)"
_KEY_QUALIFIER = lazy.Pattern(_QUALIFIERS + r"[_-]?$")
_KEY_CHARS = lazy.Pattern(r"[\w.-]{0,80}")
# an Amazon Resource Name up to its resource type (``arn:aws:secretsmanager:<region>:<account>:``)
_ARN_BEFORE = lazy.Pattern(r"\barn:[\w-]{1,20}:[\w-]{1,40}:[\w-]{0,30}:(?:\d{12}|aws)?:$")
_XML_ASSIGNMENT = lazy.Pattern(
    r"<(?P<tag>[\w.:-]{0,40}?(?:password|passwd|passphrase|secret|token|apikey|"
    + _QUALIFIERS
    + r"[_-]?key))>"
    r"(?P<v>[^<\s]++)</"
)


def _ends_key(raw: str, start: int) -> bool:
    """Whether the word at START is a key of its own or ends one after a separator or as a
    CamelCase word (npm's ``_auth``, ``basicAuth``, ``DB_PASS``, ``dbPass``, ``ADMIN_PW``), not
    the end of a longer word (``oauth``, ``OAuth``, ``compass``, ``bypass``)."""
    if start == 0 or not raw[start - 1].isalnum():
        return True
    return raw[start].isupper() and raw[start - 1].islower()


# Short password words that, standing alone as a key, are also words of their own: a test
# runner's PASS, a shell's PWD.
_BARE_SHORT_KEYS = frozenset({"pass", "pwd", "pw"})
_KEY_NAME = lazy.Pattern(r"[a-z0-9]")
_ASSIGNING = frozenset({"=", ":=", "=>"})


def _bare_key_assigned(raw: str, m: re.Match[str]) -> bool:
    """Whether a bare ``pass``, ``pwd`` or ``pw`` (nothing before it in its key) at M is a key
    given its value: with ``=`` or quoted (``pass = ...``, ``"pass": ...``), or before a colon
    or a table's cell when not an uppercase ``PASS`` (``pass: ...`` in YAML). Test runners
    print PASS and FAIL before a test's name, a colon or a column's gap apart (``--- PASS:
    TestParseV2``, `` PASS  src/App.test.js``), so a bare key's gap never assigns, nor does
    the colon after an uppercase PASS."""
    if m.group("kq") or m.group("sep") in _ASSIGNING:
        return True
    if m.group("gap") is not None:
        return False
    return not raw.startswith("PASS", m.start())


def _assignment_kind(key: str, value: str) -> str:
    if "aws" in key.lower() and re.fullmatch(r"[A-Za-z0-9/+=]{40}", value):
        return "aws-secret-key"
    if key.lower().endswith("accountkey") and re.fullmatch(r"[A-Za-z0-9/+]{86}==", value):
        return "azure-storage-key"  # AccountKey= of a storage connection string: 64 bytes, base64
    return "credential-assignment"


def _key_before(low: str, start: int) -> str:
    """The key characters just before START (matched backwards so each hit costs O(80))."""
    backwards = low[max(0, start - 80) : start][::-1]
    match = _KEY_CHARS.match(backwards)
    return match.group()[::-1] if match else ""


_WORD_BEFORE = lazy.Pattern(r"[a-z]{2,20}[ \t]$")


def _word_before(low: str, start: int) -> str:
    """The word a space before a bare key at START, with that space: a key written as words
    (``trace token: ...``, ``session token: ...``) says what it names with them."""
    match = _WORD_BEFORE.search(low, max(0, start - 21), start)
    return match.group()[:-1] + " " if match else ""


# a table cell that is one code span, and what it shows
_CODE_CELL = lazy.Pattern(r"(?P<ticks>`++)[ \t]*+(?P<v>[^`\n]+?)[ \t]*+(?P=ticks)")
# a cell's words as a reader reads them: a struck-out or parenthesised run of words is one, so
# is a type with its arguments (``Dict[str, Any]``); and a word or cell in emphasis or struck out
_CELL_WORD = lazy.Pattern(r"(?:~~[^~\n]+~~|\([^()\n]*\)|(?<=\w)[\[<][^\]>\n]*[\]>]|\S)+")
# a bracket no closing one follows reads as any other character (NUL: no space, word or bracket)
_UNCLOSED = str.maketrans("[<", "\0\0")
_MARKS = "*_~"
_WORD_REST = lazy.Pattern(r"[^\s|]*+")
_SPACE = lazy.Pattern(r"\s")


def _cell_value(raw: str, start: int) -> tuple[int, int, str]:
    """A table cell's value from START: the whole cell up to the pipe closing it (a pipe inside
    a cell is written ``\\|``) or the end of its line, or what the code span making up the cell
    shows. Returns its span and its text."""
    window = min(len(raw), start + 512)
    limit = raw.find("\n", start, window)
    limit = window if limit == -1 else limit
    end = raw.find("|", start, limit)
    while end > start and raw[end - 1] == "\\":
        end = raw.find("|", end + 1, limit)
    end = limit if end == -1 else end
    if end == window:  # a cell longer than is looked at for its end: the word there goes whole
        end = _WORD_REST.match(raw, end).end()
    while end > start and raw[end - 1] in " \t\r":
        end -= 1
    if raw.startswith("`", start) and (code := _CODE_CELL.fullmatch(raw, start, end)) is not None:
        return code.start("v"), code.end("v"), code.group("v")
    return start, end, raw[start:end]


def _secret_cell(value: str, key: str, quoted: bool) -> bool:
    """Whether a key's cell VALUE is a secret, read as a reader sees it (emphasis and
    strike-through marks aside, a note by what it says): its first word judged as any assigned
    value is (a secret with a note after it is one), or a later word when the cell as a whole
    is no sentence or name (``~~OldPass#2023~~ NewPass#2024x``, not ``rotated on
    2024-01-01T10:00Z``). Words that only lead in to a value (a placeholder, notes saying
    nothing secret, linking words: ``~~changeme~~ NewPass#2024x``, ``(prod) (eu) Xk9...``,
    ``(optional) string``, ``changed to Xk9...``) are passed over: the word after them is judged
    as a first word is."""
    marked = _cell_words(_unmarked(value))
    words = [_read(word) for word in marked]
    if not words:
        return False
    first = 0  # the first word that is not a trivial one leading in
    while first < len(words) - 1 and trivial_value(words[first], key, quoted) and _leads_in(marked[first]):
        first += 1
    if not trivial_value(words[first], key, quoted):
        return True
    if len(words) == 1 or trivial_value(" ".join(words), key, quoted):
        return False
    return any(not trivial_value(word, key, quoted) for word in words[1:])


def _cell_words(value: str) -> list[str]:
    """VALUE's words as :data:`_CELL_WORD` reads them. A bracket after the last closing one
    opens no arguments; read so before the search, each was otherwise looked for a closing
    bracket to the end of the line, in time quadratic in how many there are. A value with no
    space is one word, as the pattern would read it (each of its characters is one it takes)."""
    if _SPACE.search(value) is None:
        return [value] if value else []
    closed = max(value.rfind("]"), value.rfind(">")) + 1
    reading = value[:closed] + value[closed:].translate(_UNCLOSED)
    return [value[word.start() : word.end()] for word in _CELL_WORD.finditer(reading)]


def _unmarked(text: str) -> str:
    """TEXT without the emphasis or strike-through marks around it, if it has them both sides
    (marks alone keep their last but one, as the text between the others). Stripped, not matched: a
    pattern's marks around text that ends the shortest way were retried from each mark of a
    long run, in time quadratic in its length."""
    if len(text) < 3 or text[0] not in _MARKS or text[-1] not in _MARKS or "\n" in text:
        return text
    return text.strip(_MARKS) or text[-2]


def _note(word: str) -> str | None:
    """What a cell's WORD says if it is a note (struck out, or in parentheses, brackets or angle
    brackets, emphasis aside: ``(optional)``, ``*(required)*``, ``~~(prod)~~``), else None. A
    note is judged by its words, not its marks: ``(optional)`` is as plain a word as ``optional``."""
    text = _unmarked(word)
    if len(text) >= 2 and text[0] + text[-1] in ("()", "[]", "<>"):
        return text[1:-1]
    return text if word.startswith("~~") else None


def _read(word: str) -> str:
    """A cell's WORD as a reader reads it: a note's words, any other word without its marks
    and without a comma or semicolon ending it, which only parts it from the next
    (``Optional[str], default None``)."""
    note = _note(word.rstrip(",;"))
    return _unmarked(word.rstrip(",;")) if note is None else note


def _leads_in(word: str) -> bool:
    """Whether a cell's WORD (a trivial one, marks and all) may only lead in to a value after
    it: a note, a linking word, a placeholder (not a short word that only looks like one for its
    few letters)."""
    if _note(word) is not None:
        return True
    word = _unmarked(word)
    return word.lower() in _LINKS or (len(word) >= 4 and looks_placeholder(word))


# A YAML block scalar's indicator (``|``, ``>-``, ``|2+``) ending its line, and the first line of the
# block: the value a key given one holds (``password: |`` and ``  Zq3k!...`` on the line after).
_BLOCK_SCALAR = lazy.Pattern(r"[|>][-+]?[1-9]?[-+]?[ \t]*+(?:#[^\n]*+)?\r?\n[ \t]++(?P<v>[^\s#][^\n]*?)[ \t\r]*+(?=\n|\Z)")


_NEXT_PARAMETER = lazy.Pattern(r"&[A-Za-z_][\w.-]{0,40}=")


def assignment_hits(text: Text) -> Iterator[Hit]:
    """``key = value``, ``key: value``, ``"key": "value"``, ``<key>value</key>``, and a key
    and its value in a table's adjacent cells or a tab or several spaces apart."""
    low, raw = text.low, text.raw
    for word, pattern in _ASSIGNMENTS:
        if word not in low:  # every match opens with it: a substring test, not a search
            continue
        shortest = shortest_secret(word)  # under any key ending in WORD
        for m in pattern.finditer(low):
            at = m.start()
            if word == "key" and not _KEY_QUALIFIER.search(low, max(0, at - 12), at):
                yield from _vendor_key_hit(low, raw, m, word)  # "codecovKey", "DD_APP_KEY"
                continue  # a bare "key" is too common; "api_key", "secret-key"... are not
            if word in _WHOLE_WORD_KEYS and not _ends_key(raw, at) and _key_before(low, at) + word not in _JOINED_KEYS:
                continue  # "oauth", "compass", "bypass": another word
            if low[at - 1 : at] == ":" and _ARN_BEFORE.search(low, max(0, at - 120), at):
                continue  # arn:aws:secretsmanager:...:123456789012:secret:prod/db names a secret
            if word in _BARE_SHORT_KEYS and not _bare_key_assigned(raw, m) and not _KEY_NAME.search(
                    _key_before(low, at)):
                continue  # a test runner's "PASS  src/App.test.js", "--- PASS: TestParse"
            quote, separator, cell, note, quoted_value = m.group("kq", "sep", "cell", "note", "qv")
            quoted = quoted_value is not None
            if separator == "," and not (quote and quoted):
                continue
            indicator = m.end("cell") - 1 if cell is not None else -1 if quoted else m.start("bv")
            if raw[indicator : indicator + 1] in ("|", ">") and (block := _BLOCK_SCALAR.match(raw, indicator)):
                start, end = block.span("v")  # YAML's ``password: |`` and the value on the line after
                value, quoted, cell = raw[start:end], True, None
            elif cell is not None:
                start, end, value = _cell_value(raw, m.start("note" if note else "q" if quoted else "bv"))
            else:
                start, end = m.span("qv" if quoted else "bv")
                if not quoted and (parameter := _NEXT_PARAMETER.search(raw, start, end)) is not None:
                    end = parameter.start()  # a query's next parameter: ``password=X&ssl=true``
                value = raw[start:end]
            if len(value) < shortest:
                continue  # no value so short is a secret under its key: spare looking for the key
            key = (_key_before(low, at) or _word_before(low, at)) + word
            secret = _secret_cell(value, key, quoted) if cell is not None else not trivial_value(value, key, quoted)
            if secret:
                yield Hit(start, end, _assignment_kind(key, value), 3)
    for m in _XML_ASSIGNMENT.finditer(low):
        value = raw[m.start("v") : m.end("v")]
        if not trivial_value(value, m.group("tag"), True):
            yield Hit(m.start("v"), m.end("v"), _assignment_kind(m.group("tag"), value), 3)
    yield from _vendor_pat_hits(low, raw)
    yield from _netrc_hits(low, raw)
    yield from _pgpass_hits(low, raw)
    yield from _code_credential_hits(low, raw)
    yield from _xml_named_hits(low, raw)
    yield from _vendor_named_hits(low, raw)
    yield from _named_value_hits(low, raw)
    if "={" in low:
        yield from _braced_password_hits(low, raw)
    if "identified" in low or "password" in low:
        yield from _sql_password_hits(low, raw)


# Keys told by their vendor's name: a key ending in a bare ``key`` (too common a word to tell a
# secret by) or ``pat`` after the vendor's name (``codecovKey``, ``DD_APP_KEY``, ``fb_app_key``,
# ``AZURE_DEVOPS_EXT_PAT``), assigned a value of the shape the vendor issues: Datadog's API and
# application keys (32 and 40 hex digits), Codecov's upload tokens (32 hex digits or a UUID),
# Zendesk's API tokens (40 letters and digits), a Facebook app's secret (32 hex digits), an Azure
# DevOps personal access token (52 lower-case base32 characters). A short name (``dd``, ``fb``,
# ``ado``) counts only as a whole word of the key (``DD_APP_KEY``, ``ddAppKey``, not ``add_key``).
# The value is judged as any token's random part (a sequence, a filler, digits alone stay:
# ``"accountKey": "483920175563"`` is an id). Looked at where the assignment rule finds a bare
# ``key`` (no other read of the text), and after ``pat``.
_HEX_32_40 = r"[0-9a-f]{32}|[0-9a-f]{40}"
_VENDOR_SHAPES = {
    name: lazy.Pattern(shape)
    for names, shape in (
        (("datadog", "dd"), _HEX_32_40),
        (("codecov",), r"[0-9a-f]{32}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"),
        (("zendesk",), r"[A-Za-z0-9]{40}"),
        (("facebook", "fb"), r"[0-9a-f]{32}"),
        (("azure", "ado", "devops", "vsts"), r"[a-z2-7]{52}"),
    )
    for name in names
}
_LONG_VENDORS = tuple(name for name in _VENDOR_SHAPES if len(name) > 3)  # read inside a key's words too
_NAME_PARTS = lazy.Pattern(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_PAT_ASSIGNMENT = lazy.Pattern("pat" + _ASSIGNED)


def _vendor_shape(key: str) -> lazy.Pattern | None:
    """The shape of the keys the vendor KEY (a key as written) names issues; None if it names none."""
    low = key.lower()
    for name in _LONG_VENDORS:
        if name in low:
            return _VENDOR_SHAPES[name]
    for part in _NAME_PARTS.findall(key):
        if (shape := _VENDOR_SHAPES.get(part.lower())) is not None:
            return shape
    return None


def _vendor_key_hit(low: str, raw: str, m: re.Match[str], word: str) -> Iterator[Hit]:
    """The value M (an assignment to a key ending in WORD) gives, if a vendor named in the key
    issues keys of its shape (above)."""
    at = m.start()
    before = raw[at - len(_key_before(low, at) or _word_before(low, at)) : at]  # "mailgun key: ..." too
    shape = _vendor_shape(before + raw[at : at + len(word)])
    if shape is None and _named_vendor(before) is not None:
        shape = _ANY_SHAPE  # a vendor whose keys have no shape of their own: a random value tells it
    if shape is None or m.group("sep") == ",":
        return
    quoted = m.group("qv") is not None
    if m.group("cell") is not None:
        start, end, value = _cell_value(raw, m.start("note" if m.group("note") else "q" if quoted else "bv"))
    else:
        start, end = m.span("qv" if quoted else "bv")
        value = raw[start:end]
    if shape is _ANY_SHAPE:
        if _vendor_secret(value, None):
            yield Hit(start, end, "credential-assignment", 3)
    elif shape.fullmatch(value) and char_classes(value) >= 2 and token_is_real(value, value) \
            and not looks_placeholder(value):
        yield Hit(start, end, "credential-assignment", 3)


def _vendor_pat_hits(low: str, raw: str) -> Iterator[Hit]:
    """Values assigned to a key ending in ``pat`` (``AZURE_DEVOPS_PAT``, not ``compat``) after a
    vendor's name (above)."""
    if "pat" not in low:
        return
    for m in _PAT_ASSIGNMENT.finditer(low):
        if _ends_key(raw, m.start()):
            yield from _vendor_key_hit(low, raw, m, "pat")


# Vendors whose API keys have no prefix or shape of their own (or have one a user may leave out),
# told by a key that names the vendor and nothing else: the vendor's name alone (``openai =
# "..."``, ``twilio: <32 hex>``, ``{"cohere": "..."}``, ``MAILGUN=...``, ``keys.sendgrid: ...``), or
# before a bare ``key`` or ``pat`` (``MAILGUN_KEY``, ``sendgridKey``: :func:`_vendor_key_hit`). A
# name of several words is read joined (``NEW_RELIC``, ``HuggingFace``, ``openAI``). Names that are
# common words (``segment``, ``square``, ``notion``, ``render``) are left out: under them a random
# value is no more a key than under any other word. The value must look random as a generated key
# does (:func:`_random_looking`: 32 hex digits or more, or 20 characters or more mixing cases and
# digits), and not be a name, a path, a placeholder, a filler or a sequence; a vendor's public ids
# stay (Stripe's publishable ``pk_`` keys, Mapbox's public ``pk.`` tokens, OpenAI's ``org-`` and
# ``proj_`` ids, Stripe's ``acct_`` ids, a Twilio account's ``AC`` SID), and so does a git object id
# under a code host's name alone (``github: <40 hex>`` is a commit). A table's cells and a column's
# gap are not read (no key word tells them from a list of names and ids).
_VENDORS = frozenset("""
    openai anthropic cohere mistral mistralai groq perplexity huggingface deepseek gemini fireworks
    deepgram assemblyai elevenlabs pinecone weaviate langsmith openrouter anyscale replicate voyageai
    togetherai stripe braintree paypal plaid adyen razorpay twilio sendgrid mailgun mailchimp mandrill
    postmark mailjet sparkpost mailersend sendinblue brevo nexmo vonage messagebird plivo telnyx
    pusher slack discord telegram github gitlab bitbucket circleci travis codecov snyk sonarcloud
    dockerhub buildkite jfrog artifactory aws azure digitalocean heroku vercel netlify cloudflare
    linode vultr hetzner scaleway fastly supabase upstash algolia mapbox contentful shopify okta auth0
    hubspot salesforce zendesk intercom freshdesk airtable asana trello jira atlassian clickup
    datadog newrelic sentry rollbar bugsnag honeycomb logdna loggly papertrail pagerduty opsgenie
    splunk grafana dynatrace mixpanel posthog launchdarkly facebook twitter instagram linkedin
    tiktok spotify dropbox
""".split())
_CODE_HOSTS = frozenset({"github", "gitlab", "bitbucket"})
_PUBLIC_IDS = ("pk_", "pk.", "org-", "proj_", "acct_")
_TWILIO_ACCOUNT = lazy.Pattern(r"AC[0-9a-f]{32}")
_DASHED_HEX = lazy.Pattern(r"[0-9a-f]{32}(?:-[0-9a-f]{8}){2}")
_DIGIT_RUN = lazy.Pattern(r"\d+")
_ANY_SHAPE = lazy.Pattern("")  # a vendor's key of no shape of its own (a random value tells it)
# A separator and a value long enough to be a key after it; the key before it is read backwards.
_VENDOR_VALUE = lazy.Pattern(r"(?::=|=>|[:=])[ \t]*+(?P<q>[\"'`]?)(?P<v>[A-Za-z0-9+/=_~-]{20,}+)")
_VALUE_AFTER = frozenset(" \t\r\n,;)}]")
_KEY_CLOSE = " \t\"'`"


def _named_vendor(key: str) -> str | None:
    """The vendor KEY (as written: ``MAILGUN``, ``keys.sendgrid``, ``HuggingFace``) names by its
    last word or two, joined; None when it names none."""
    parts = _NAME_PARTS.findall(key[-40:])
    for words in (1, 2):
        if len(parts) >= words and (name := "".join(parts[-words:]).lower()) in _VENDORS:
            return name
    return None


def _vendor_secret(value: str, vendor: str | None) -> bool:
    """Whether VALUE, under a key naming a vendor (VENDOR, when the key is the vendor's name
    alone), reads as a key the vendor issued (above)."""
    if value in DOCUMENTED_EXAMPLES or value.startswith(_PUBLIC_IDS) or _TWILIO_ACCOUNT.fullmatch(value):
        return False
    if _DASHED_HEX.fullmatch(value):
        value = value.replace("-", "")  # Mailgun's newer keys: 32 hex digits, then two runs of 8
    if not _random_looking(value) or (vendor in _CODE_HOSTS and _OBJECT_ID.fullmatch(value)):
        return False
    if not token_is_real(value, value) or looks_placeholder(value) or names_something(value):
        return False
    # words with numbers between them (``DatadogExporter2024``), folders of them
    # (``HuggingFaceH4/zephyr-7b-beta``, a model's repository): names, not keys
    return _HEX_VALUE.fullmatch(value) is not None or not all(
        _names_with_numbers(part) for part in value.split("/") if part)


def _names_with_numbers(value: str) -> bool:
    """Whether VALUE reads as a name once its numbers are read as separators (``Exporter2024``)."""
    return names_something(_DIGIT_RUN.sub("-", value).strip("-") or value)


def _vendor_named_hits(low: str, raw: str) -> Iterator[Hit]:
    """Values assigned to a key that is a vendor's name alone (above): found from the separator
    before a long enough value, the key read back from it."""
    if ":" not in low and "=" not in low:
        return
    for m in _VENDOR_VALUE.finditer(raw):
        start, end = m.span("v")
        quote = m.group("q")
        if (raw[end : end + 1] != quote) if quote else (end < len(raw) and raw[end] not in _VALUE_AFTER):
            continue  # the value runs on past what a key's characters are: a URL, a path, a sentence
        at = m.start()
        while at > 0 and raw[at - 1] in _KEY_CLOSE:
            at -= 1
        key = _key_before(low, at)
        if not key or (vendor := _named_vendor(raw[at - len(key) : at])) is None:
            continue
        if _vendor_secret(raw[start:end], vendor):
            yield Hit(start, end, "credential-assignment", 3)


# An XML element naming a credential in an attribute and giving its value in another, or as its
# text: .NET's ``<add key="DbPassword" value="..."/>`` (web.config's appSettings, nuget.config's
# ``ClearTextPassword``), Spring's and Ant's ``<property name="password" value="..."/>``,
# ``<param name="apiKey" value="..."/>``, Java's XML properties ``<entry key="jdbc.password">...
# </entry>`` and .NET's ``<setting name="SmtpPassword"><value>...</value></setting>``. The name is
# judged as a key is (it ends in a credential word), the value as an assigned one is.
_XML_NAMED = lazy.Pattern(
    r"<[a-z][\w:.-]{0,40}+\s[^<>]{0,300}?(?<![\w-])(?:key|name)\s*=\s*(?P<kq>[\"'])(?P<key>[^\"'<>\n]{1,100}+)(?P=kq)"
    r"(?:[^<>]{0,300}?(?<![\w-])value\s*=\s*(?P<q>[\"'])(?P<v>[^\"'<>\n]++)(?P=q)"
    r"|[^<>]{0,300}?(?<!/)>\s*+(?:<value>\s*+)?(?P<t>[^<\s][^<\n]{0,500}?)\s*+<)"
)


def _xml_named_hits(low: str, raw: str) -> Iterator[Hit]:
    """Values of XML elements naming a credential (above)."""
    if ("key=" not in low and "name=" not in low and "key =" not in low and "name =" not in low) or "<" not in low:
        return
    for m in _XML_NAMED.finditer(low):
        if not _CREDENTIAL_KEY.search(m.group("key")):
            continue
        group = "v" if m.group("v") is not None else "t"
        value = raw[m.start(group) : m.end(group)]
        if not trivial_value(value, m.group("key"), True):
            yield Hit(m.start(group), m.end(group), "credential-assignment", 3)


# A credential named in one field of an object and given in another, as configuration and the
# tools that print it write an environment variable or a parameter: a Kubernetes container's env
# (``- name: DB_PASSWORD`` then ``value: ...``), an ECS task definition's or a HAR file's ``{"name":
# "password", "value": "..."}``, AWS Systems Manager's ``get-parameter --with-decryption`` (``"Name":
# "/prod/db/password", ..., "Value": "..."``), CloudFormation's ``ParameterKey`` and
# ``ParameterValue``, an Azure pipeline's variables, Terraform's ``env { name = ... value = ... }``;
# and a credential's key whose value is an object holding it (an ARM template's parameters file:
# ``"adminPassword": {"value": "..."}``). The name is judged as a key is (it ends in a credential
# word, :data:`_CREDENTIAL_KEY`), the value as one assigned to it is. The value field is looked for
# in the same object only: after the name, before any brace or bracket and before the next name.
_FIELD_VALUE = r"(?:\"(?P<dq>[^\"\n]++)\"|'(?P<sq>[^'\n]++)'|(?P<bv>[^\s\"',{}\[\]]++))"
_NAME_FIELD = lazy.Pattern(
    r"(?:name|parameterkey|key)[\"']?[ \t]*+[:=][ \t]*+(?P<kq>[\"']?)(?P<key>[^\"'\s,{}\[\]]{1,100}+)(?P=kq)")
_VALUE_FIELD = lazy.Pattern(
    r"(?:(?!(?:name|key)[\"']?[ \t]*[:=])[^{}\[\]]){0,300}?(?<![\w-])[\"']?(?:value|parametervalue)[\"']?"
    rf"[ \t]*+[:=][ \t]*+{_FIELD_VALUE}")
_WRAPPED_FIELD = lazy.Pattern(r"\{\s*+[\"']?value[\"']?[ \t]*+:[ \t]*+" + _FIELD_VALUE)
_BEFORE_OBJECT = lazy.Pattern(r"[\"']?[ \t]*+:[ \t]*+\Z")


def _named_value_hits(low: str, raw: str) -> Iterator[Hit]:
    """Values given in a field after one naming a credential, or in an object under its key (above)."""
    if "value" not in low:
        return
    found: list[tuple[re.Match[str], str]] = []
    for m in _NAME_FIELD.finditer(low):
        if not _starts_name(low, m.start()) or not _CREDENTIAL_KEY.search(key := m.group("key")):
            continue
        value = _VALUE_FIELD.match(low, m.end())
        if value is not None:
            found.append((value, key))
    if "{" in low:
        for m in _WRAPPED_FIELD.finditer(low):
            before = _BEFORE_OBJECT.search(low, max(0, m.start() - 8), m.start())
            key = _key_before(low, before.start()) if before is not None else ""
            if key and _CREDENTIAL_KEY.search(key):
                found.append((m, key))
    for m, key in found:
        group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "bv"
        start, end = m.span(group)
        if not trivial_value(raw[start:end], key, group != "bv"):
            yield Hit(start, end, "credential-assignment", 3)


# An ODBC connection string's password in braces, as one holding a ``;`` must be written
# (``Pwd={Zq3k;!P9x}``, a ``}`` in it doubled): the assignment rule reads a brace as no value's.
_BRACED_PASSWORD = lazy.Pattern(r"(?<![\w-])(?:pwd|password)[ \t]*=\{(?P<v>(?:[^}\n]|\}\})++)\}(?![\w}])")


def _braced_password_hits(low: str, raw: str) -> Iterator[Hit]:
    for m in _BRACED_PASSWORD.finditer(low):
        if not trivial_value(raw[m.start("v") : m.end("v")], "password", True):
            yield Hit(m.start("v"), m.end("v"), "credential-assignment", 3)


# A password SQL sets for a user or a role: MySQL's and Oracle's ``IDENTIFIED BY 'X'`` (``IDENTIFIED
# WITH plugin BY``; Oracle's may be unquoted), PostgreSQL's ``[WITH] [ENCRYPTED] PASSWORD 'X'`` among
# a role's options, MySQL's ``SET PASSWORD ... = PASSWORD('X')`` (a doubled quote is one inside a
# literal). A password's word counts only before a quoted literal, so a sentence's "password" is
# not read; the value is judged as an assigned password is.
_SQL_PASSWORD = lazy.Pattern(
    r"(?:identified[ \t]++(?:with[ \t]++\w++[ \t]++)?by|(?<![\w.-])password)"
    r"[ \t]++(?:'(?P<sq>(?:[^'\n]|'')++)'|\"(?P<dq>[^\"\n]++)\"|(?<=by[ \t])(?P<bv>[\w$#!%^&*+=.@-]++))"
    r"|(?<![\w.-])password[ \t]*+\([ \t]*+'(?P<fq>(?:[^'\n]|'')++)'[ \t]*+\)"
)
_SQL_GROUPS = ("sq", "dq", "bv", "fq")


def _sql_password_hits(low: str, raw: str) -> Iterator[Hit]:
    """Passwords SQL sets for a user or a role (above)."""
    for m in _SQL_PASSWORD.finditer(low):
        group = next(g for g in _SQL_GROUPS if m.group(g) is not None)
        start, end = m.span(group)
        if not trivial_value(raw[start:end], "password", group != "bv"):
            yield Hit(start, end, "credential-assignment", 3)


# Credentials code and configuration commands give by place, not by a key's ``=``:
# - a user and password pair (``auth=("bob", "PASSWORD")`` in Python's requests and httpx,
#   ``HTTPBasicAuth``/``HTTPDigestAuth``/aiohttp's ``BasicAuth``, .NET's ``NetworkCredential``,
#   Java's ``UsernamePasswordCredentials``/``PasswordAuthentication``): the second string;
# - PowerShell's ``ConvertTo-SecureString "PASSWORD" -AsPlainText``;
# - a Terraform variable named for a credential and its ``default = "VALUE"``;
# - a configuration command's key naming a credential and its value a space apart (``aws
#   configure set aws_secret_access_key VALUE``, ``npm config set //host/:_authToken VALUE``,
#   ``yarn config set npmAuthToken VALUE``, ``git config KEY VALUE``, ``dotnet user-secrets set
#   "Db:Password" VALUE``), and a ``http-basic.HOST USER PASSWORD`` of ``poetry config`` and
#   ``composer config``.
# Each value is judged as one assigned to a password (a variable, a word or a placeholder stays).
_QUOTED = r"(?P<q>[\"'])(?P<v>(?:(?!(?P=q))[^\\\n]|\\.)++)(?P=q)"
_PAIR = r"[ \t]*(?P<uq>[\"'])[^\"'\n]{0,200}(?P=uq)[ \t]*,[ \t]*" + _QUOTED
_PAIR_CALLS = (  # each opens with its letters, so that the engine searches for them, and only where they are
    (("auth",), lazy.Pattern(r"auth[ \t]*=[ \t]*\(?" + _PAIR)),
    (("basicauth", "digestauth", "networkcredential", "passwordcredentials", "passwordauthentication"),
     lazy.Pattern(r"(?:httpbasicauth|httpdigestauth|basicauth|networkcredential|usernamepasswordcredentials"
                  r"|passwordauthentication)[ \t]*\(" + _PAIR)),
)
_SECURE_STRING = lazy.Pattern(r"convertto-securestring(?:[ \t]+-string)?[ \t]+" + _QUOTED + r"[^\n]{0,80}-asplaintext")
_TF_DEFAULT = lazy.Pattern(
    r"variable[ \t]+\"(?P<name>[\w-]{1,100})\"[ \t]*\{(?:[^{}\n]*\n){0,12}?[ \t]*default[ \t]*=[ \t]*" + _QUOTED
)
_CONFIG_SET = lazy.Pattern(
    r"(?:config(?:ure)?|user-secrets)(?:[ \t]+(?:set|--global|--local|--user|--system|--project|-g|--json))*"
    r"[ \t]+(?P<kq>[\"']?)(?P<key>[^\s\"'=]{1,200})(?P=kq)(?P<user>[ \t]+[^\s\"'-][^\s]{0,100})?[ \t]+"
    r"(?:(?P<cq>[\"'])(?P<cv>[^\"'\n]++)(?P=cq)|(?P<bv>[^\s\"'`;|&]++))"
)
_CREDENTIAL_KEY = lazy.Pattern(
    r"(?:password|passwd|passphrase|secret|token|(?:api|access|secret|private|auth|signing|encryption|master|client"
    r"|account)[_.:-]?key|(?<![a-z])(?:pass|pwd))\Z"
)
_CODE_LITERALS = ("auth", "credential", "securestring", "default", "config", "user-secrets", "set", "requirepass")
# A setting given its value a space apart: Redis' ``requirepass`` and ``masterauth`` (redis.conf,
# ``CONFIG SET``), Windows' ``setx NAME VALUE`` and fish's ``set [-gx] NAME VALUE``, the name ending
# in a credential word (``setx DB_PASSWORD ...``, ``set -x API_TOKEN ...``).
_SETTING_VALUE = r"(?:\"(?P<dq>[^\"\n]++)\"|'(?P<sq>[^'\n]++)'|(?P<bv>[^\s\"'`;|&]++))"
_SPACED_SETTINGS = (
    ("requirepass", lazy.Pattern(r"(?:requirepass|masterauth)[ \t]++()" + _SETTING_VALUE)),
    ("set", lazy.Pattern(r"set(?:x|(?:[ \t]++-[a-z]{1,6}+)*+)[ \t]++(?P<key>[a-z_]\w{0,100}+)[ \t]++" + _SETTING_VALUE)),
)


def _spaced_setting_hits(low: str, raw: str) -> Iterator[Hit]:
    """Values of the settings :data:`_SPACED_SETTINGS` find."""
    for literal, pattern in _SPACED_SETTINGS:
        if literal not in low and (literal != "requirepass" or "masterauth" not in low):
            continue
        for m in pattern.finditer(low):
            key = m.groupdict().get("key") or "password"
            if not _starts_name(low, m.start()) or not _CREDENTIAL_KEY.search(key):
                continue
            group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "bv"
            start, end = m.span(group)
            if not trivial_value(raw[start:end], key, group != "bv"):
                yield Hit(start, end, "credential-assignment", 3)


def _starts_name(low: str, at: int) -> bool:
    """Whether a name starts at AT: no letter, digit, ``_``, ``.`` or ``-`` before it."""
    return at == 0 or not (low[at - 1].isalnum() or low[at - 1] in "_.-")


def _code_credential_hits(low: str, raw: str) -> Iterator[Hit]:
    """Credentials given by place (above)."""
    if not any(literal in low for literal in _CODE_LITERALS):
        return
    found: list[re.Match[str]] = []
    for literals, pattern in _PAIR_CALLS:
        if any(literal in low for literal in literals):
            found += (m for m in pattern.finditer(low) if _starts_name(low, m.start()))
    if "securestring" in low:
        found += _SECURE_STRING.finditer(low)
    if "default" in low and "variable" in low:
        found += (m for m in _TF_DEFAULT.finditer(low)
                  if _starts_name(low, m.start()) and _CREDENTIAL_KEY.search(m.group("name")))
    for m in found:
        value = raw[m.start("v") : m.end("v")]
        if not trivial_value(value, "password", True):
            yield Hit(m.start("v"), m.end("v"), "credential-assignment", 3)
    if "set" in low or "requirepass" in low or "masterauth" in low:
        yield from _spaced_setting_hits(low, raw)
    if "config" not in low and "user-secrets" not in low:
        return
    for m in _CONFIG_SET.finditer(low):
        if not _starts_name(low, m.start()):
            continue
        key, user = m.group("key"), m.group("user")
        basic = key.startswith("http-basic.")
        if not basic and (user is not None or not _CREDENTIAL_KEY.search(key)):
            continue
        if basic and user is None:
            continue  # ``http-basic.HOST USER PASSWORD``: no password here
        group = "cv" if m.group("cv") is not None else "bv"
        value = raw[m.start(group) : m.end(group)]
        if not trivial_value(value, "password" if basic else key, m.group("cq") is not None):
            yield Hit(m.start(group), m.end(group), "credential-assignment", 3)


# A ``.netrc`` entry: ``machine HOST`` (or ``default``, the entry for any other host), its
# ``login``, ``account`` or ``port``, then ``password VALUE``, a space or a line break apart
# (curl, git, ftp and Heroku's CLI read passwords there).
_NETRC = lazy.Pattern(
    r"(?<![\w-])(?:machine[ \t]+\S{1,200}|default)(?:\s+(?:login|account|port)[ \t]+\S{1,200}){0,3}"
    r"\s+password[ \t]+(?P<v>\S++)"
)


def _netrc_hits(low: str, raw: str) -> Iterator[Hit]:
    """The password of a ``.netrc`` entry, judged as an assigned password is."""
    if "machine" not in low and "default" not in low:
        return
    for m in _NETRC.finditer(low):
        if not trivial_value(raw[m.start("v") : m.end("v")], "password", False):
            yield Hit(m.start("v"), m.end("v"), "credential-assignment", 3)


# A ``.pgpass`` line (``host:port:database:user:password``, the port a number or ``*``, a colon
# or backslash in a field escaped by a backslash) in a text that names the file: written into it
# (``echo "db:5432:app:app:PASSWORD" >> ~/.pgpass``, a here-document, an editor's write) or
# printed from it. A line of that shape alone is no proof: a text naming no ``.pgpass`` (or
# ``PGPASSFILE``) is not searched.
_PGPASS_LINE = lazy.Pattern(
    r"(?<![^\s\"'`>])(?:[^:\s\\\"'`]|\\.)++:(?:\d{1,5}|\*):(?:[^:\s\\\"'`]|\\.)++:(?:[^:\s\\\"'`]|\\.)++:"
    r"(?P<v>(?:[^\s\\\"'`]|\\.)++)"
)


def _pgpass_hits(low: str, raw: str) -> Iterator[Hit]:
    """The password of each ``.pgpass`` line in a text naming the file (above)."""
    if ".pgpass" not in low and "pgpassfile" not in low:
        return
    for m in _PGPASS_LINE.finditer(low):
        value = raw[m.start("v") : m.end("v")]
        if value.lower() in STOPWORDS or looks_placeholder(value) or _TEMPLATE_START.match(value) or len(value) < 3:
            continue
        yield Hit(m.start("v"), m.end("v"), "credential-assignment", 4)  # a line printed: the printer's rule's


# ``scheme://user:password@host``, and ``https://TOKEN@host``: an Azure DevOps personal access token
# in its older form (52 lower-case base32 characters) given as the user, as ``git clone`` takes it.
# The slashes may be escaped as JSON lets a writer escape them (``https:\/\/``, PHP's json_encode
# does). A user and a password may hold an ``@`` left unencoded (``bob@acme.io:Pa@ss@host``): the
# host follows the last one, as clients read it.
_URL_PASSWORD = lazy.Pattern(
    r":(?://|\\/\\/)(?:(?P<token>[a-z2-7]{52})"
    r"|(?P<user>[^\s/:@'\"<>]*+(?:@[^\s/:@'\"<>]++)*+):(?P<pw>[^\s/@'\"<>]++(?:@[^\s/@'\"<>]++)*))@(?=[\w\[])"
)


# Oracle's JDBC URLs give the user and password before the database's address, as sqlplus takes
# them: ``jdbc:oracle:thin:scott/PASSWORD@db:1521/orcl`` (``oci``, ``oci8`` and ``kprb`` drivers too;
# the password quoted where it holds other characters, ``scott/"Pa@ss"@//db/orcl``)
_ORACLE_URL = lazy.Pattern(
    r"jdbc:oracle:(?:thin|oci8?|kprb):[\w$#.]{1,30}/(?:\"(?P<dq>[^\"\n]++)\"|(?P<pw>[^\s@\"'/;]++))@")


# A token given as a URL's only user, as git and most HTTP clients send it (``https://TOKEN@github.com/...``):
# a user random as a generated token is (:func:`_random_looking`), hex or with digits scattered through
# it (three runs of them or more), not a name (``MyServiceAccount2024``); not a Sentry DSN's public
# key (``https://KEY@o1.ingest.sentry.io/2``: a Sentry host, or a path ending in a project's number)
_DSN_HOST = lazy.Pattern(r"[\w.-]*sentry[\w.-]*(?::\d+)?/|[\w.-]+(?::\d+)?/(?:[\w.-]+/)*\d+(?![\w/.-])")
_URL_TOKEN_USER = lazy.Pattern(r":(?://|\\/\\/)(?P<user>[A-Za-z0-9_-]{20,}+)@(?=[\w\[])")


def url_password_hits(text: Text) -> Iterator[Hit]:
    """Passwords in ``scheme://user:password@host`` URLs (the user name stays), and a token
    given as the user (above)."""
    for m in _URL_PASSWORD.finditer(text.raw):
        if (token := m.group("token")) is not None:
            if char_classes(token) >= 2 and token_is_real(token, token):
                yield Hit(m.start("token"), m.end("token"), "url-credential", 3)
            continue
        password = m.group("pw")
        if password.lower() in STOPWORDS or looks_placeholder(password):
            continue
        if password[0] in "$%{" or len(password) < 3:
            continue
        yield Hit(m.start("pw"), m.end("pw"), "url-credential", 3)
    if "@" in text.raw:
        for m in _URL_TOKEN_USER.finditer(text.raw):
            user = m.group("user")
            if _DSN_HOST.match(text.low, m.end()) is not None:
                continue  # a Sentry DSN's public key, which pages that report errors carry
            if _random_looking(user) and token_is_real(user, user) and not names_something(user) \
                    and not looks_placeholder(user) and (_HEX_VALUE.fullmatch(user) or (
                        len(_DIGIT_RUN.findall(user)) >= 3 and not _names_with_numbers(user))):
                yield Hit(m.start("user"), m.end("user"), "url-credential", 3)
    if "jdbc:oracle:" in text.low:
        for m in _ORACLE_URL.finditer(text.low):
            start, end = m.span("dq" if m.group("dq") is not None else "pw")
            if not trivial_value(text.raw[start:end], "password", m.group("dq") is not None):
                yield Hit(start, end, "url-credential", 3)


# An Azure shared access signature's ``sig``: the HMAC-SHA256 (32 bytes) of the grant, base64,
# usually percent-encoded in the URL or the SAS token that carries it.
_SAS_SIGNATURE = lazy.Pattern(r"[?&;]sig=(?P<v>[A-Za-z0-9%+/=]{40,132})(?![A-Za-z0-9%+/=])")


# A presigned URL's signature: Amazon S3's (``X-Amz-Signature``, the HMAC-SHA256 of the request in
# 64 hex digits) and Google Cloud Storage's (``X-Goog-Signature``: the same, or a service account's
# RSA signature, 256 to 1,024 hex digits)
_PRESIGNED_SIGNATURE = lazy.Pattern(r"[?&;]x-(?:amz|goog)-signature=(?P<v>[0-9a-f]{64}(?:[0-9a-f]{192,960})?)(?![0-9a-z%])")


def sas_signature_hits(text: Text) -> Iterator[Hit]:
    """The signature of an Azure shared access signature (``...&sig=q%2B8n...%3D``) and of an S3 or
    Cloud Storage presigned URL (``X-Amz-Signature=...``): who holds the link holds what it grants,
    until it expires."""
    if "sig=" in text.raw:
        for m in _SAS_SIGNATURE.finditer(text.raw):
            if _hmac_sha256(unquote(m.group("v"))):
                yield Hit(m.start("v"), m.end("v"), "sas-signature", 1)
    if "-signature=" in text.low:
        for m in _PRESIGNED_SIGNATURE.finditer(text.low):
            if token_is_real(m.group("v"), m.group("v")[:_JUDGED]):
                yield Hit(m.start("v"), m.end("v"), "url-signature", 1)


def _hmac_sha256(value: str) -> bool:
    """Whether VALUE is base64 of 32 bytes, as an HMAC-SHA256 is."""
    if len(value) != 44 or not value.endswith("=") or low_variety(value):
        return False
    try:
        return len(base64.b64decode(value, validate=True)) == 32
    except (binascii.Error, ValueError):
        return False


# ``curl -u user:password`` (``--user``, ``-U``/``--proxy-user``, or the option closing a bundle
# of short ones such as ``-sSLu``) inside one command: curl sends the password as basic
# authentication. The literal opens the pattern so that the engine searches for it.
_CURL_USER = lazy.Pattern(
    r"-(?<!\S-)(?:[A-Za-z]{0,8}?[uU]|-(?:proxy-)?user)(?:[ \t]+|=)?"
    r"[\"'`]?(?P<user>[^\s:\"'`]*+):(?P<pw>[^\s\"'`]++)"
)
# brackets around a placeholder: ``<user:password>``, ``user:[PASSWORD]``, ``{user}:{password}``
_BRACKETS = frozenset({"<>", "[]", "{}"})
_CURL_REACH = 400  # how far before its option a command's curl is looked for
# A command read as the shell reads it: spacing (a backslash continues the line), an operator
# that ends the command, or a word (quoted parts and all).
_SHELL_TOKEN = lazy.Pattern(
    r"(?P<gap>(?:[ \t]|\\\r?\n)+)|(?P<end>[\n;|&])"
    r"|(?P<word>(?:\"[^\"\n]*\"|'[^'\n]*'|\\\S|[^\s\"';|&\\])+|.)"
)
# Words that open another command or clause: a ``-u`` after them is not curl's.
_OTHER_COMMANDS = frozenset(
    "and or then but so while when before after because if else do done fi also "
    "docker podman nerdctl kubectl oc helm git svn hg chown chgrp chmod sudo su doas runuser "
    "setpriv ssh scp sftp rsync mysql mysqldump psql mongo mongosh redis-cli wget http ftp lftp "
    "crontab ps pkill top sort uniq diff tar cp mv zip unzip apt apt-get yum dnf pip npm yarn "
    "make run exec start echo printf env export xargs".split()
)
_SENTENCE_END = ",.!?"  # closing a word before a space: the sentence, and the command, go on elsewhere
_TEMPLATE_START = lazy.Pattern(r"[$%{`<]")


def curl_user_hits(text: Text) -> Iterator[Hit]:
    """The password of ``curl -u user:password`` (the user name stays)."""
    if "curl" not in text.low:  # every match follows it
        return
    low, spaced = _as_command_lines(text)
    commands = _CommandArguments(low, functools.partial(_curl_before, low))
    for m in _CURL_USER.finditer(spaced):
        password = m.group("pw")
        if password.lower() in STOPWORDS or looks_placeholder(password) or _TEMPLATE_START.match(password):
            continue
        if password[:1] + password[-1:] in _BRACKETS or m.group("user")[:1] + password[-1:] in _BRACKETS:
            continue
        if len(password) >= 3 and commands.holds(m.start()):
            yield Hit(m.start("pw"), m.end("pw"), "basic-auth", 3)


class _CommandArguments:
    """Which options are arguments of the command nearest before them (COMMAND_BEFORE gives
    where its name ends, or -1), each command read once from its name onwards as its options
    come (read from the name again for each, a text of options after one command took time
    that grew with their number)."""

    def __init__(self, low: str, command_before: Callable[[int], int]) -> None:
        self.low = low
        self.command_before = command_before
        self.command = -1  # where the command last read ends its name
        self.read = -1  # how far its command was read
        self.ended = False  # whether it ended there

    def holds(self, option: int) -> bool:
        """Whether the option at OPTION is an argument of the nearest command before it."""
        command = self.command_before(option)
        if command == -1:
            return False
        if command != self.command:
            self.command, self.read, self.ended = command, command, False
        if not self.ended:
            self.ended = not _one_command(self.low, self.read, option)
            self.read = option
        return not self.ended


def _curl_before(low: str, option: int) -> int:
    """Where the word ``curl`` (or ``curl.exe``) last standing within reach before OPTION ends; -1."""
    reach = max(0, option - _CURL_REACH)
    at = low.rfind("curl", reach, option)
    while at != -1:
        if starts_word(low, at) and (starts_word(low, at + 5) or low.startswith(".exe", at + 4)):
            return at + 4
        at = low.rfind("curl", reach, at)
    return -1


def _one_command(low: str, start: int, stop: int) -> bool:
    """Whether START..STOP reads as the arguments of one command: no operator ends it, no
    sentence ends there (``curl, and docker run -u node:node``), no other command opens."""
    position = start
    while position < stop:
        token = _SHELL_TOKEN.match(low, position, stop)  # every character is part of some token
        if token is None or token.lastgroup == "end":
            return False
        position = token.end()
        word = token.group().strip("`()[]{}<>*_")
        if token.lastgroup == "word" and (word in _OTHER_COMMANDS or word.endswith(tuple(_SENTENCE_END))):
            return False
    return True


# Passwords other commands take on their command line, each found only as an argument of its
# command: the MySQL and MariaDB clients' ``-pPASSWORD`` (joined: with a space between, the client
# asks for the password and the word after names a database), ``sshpass -p PASSWORD``, a
# container registry login's ``-p``/``--password PASSWORD``, ``redis-cli -a PASSWORD``, the
# bootstrap token of ``kubeadm join``/``init --token``, ``twine upload -p``, ``doctl auth
# init -t``, the OpenLDAP clients' ``-w PASSWORD``, ``az login -p``, the MongoDB tools' ``-p``,
# SQL Server's ``sqlcmd``/``bcp``/``osql -P``, ``cqlsh -p``, ``zip``/``unzip -P`` and ``7z
# -pPASSWORD``, ``ssh-keygen``'s new and old passphrases (``-N``, ``-P``), ``openssl enc -k``
# (and ``-K``, the raw key), Samba's ``-U user%PASSWORD``, ``lftp -u user,PASSWORD``,
# ``htpasswd -b [FILE] USER PASSWORD``, ``rabbitmqctl add_user``/``change_password USER
# PASSWORD``, ``gh secret set NAME --body SECRET``, ``vault login TOKEN``, the MinIO client's
# ``mc alias set NAME URL ACCESS-KEY SECRET-KEY`` and Oracle's ``sqlplus user/PASSWORD@db`` (and
# ``sqlldr``, ``expdp``, ``impdp``, ``rman target``: the password ends at the ``@``); on Windows,
# ``net use [DEVICE] \\server\share PASSWORD`` (the word after the share, switches such as
# ``/user:`` before or after it; ``*`` asks for it), ``net user NAME PASSWORD``, PsExec's ``-p``
# and ``schtasks``' ``/RP`` and ``/P`` (a Windows switch in either case). Options are matched in
# the case given (``unzip -p`` pipes, ``ssh-keygen -n`` names principals, ``ldapsearch -W`` asks
# for the password). A quote left open runs to the end of its line (so no search looks for the
# quote past it, and no value is too long to be taken whole).
_OPTION_VALUE = r"(?:'(?P<sq>[^'\n]++)'?|\"(?P<dq>[^\"\n]++)\"?|(?P<pw>[^\s\"'`;|&]++))"
_POSITIONAL = r"[ \t]+[^\s\"'`;|&-][^\s;|&]*"  # a word that is no option
# a Windows switch: a slash and letters alone (``/y``, ``/add``, ``/?``), perhaps a colon and its
# value (``/user:"DOMAIN\bob"``, ``/persistent:no``, ``/times:M-F,08:00-17:00``)
_WINDOWS_SWITCH = r"/[A-Za-z?]++(?::(?:[^\s\"]|\"[^\"\n]*\")*+)?(?!\S)"
# a password as Windows' commands take it: a word that is no switch, no ``*`` (which asks for one)
# and no redirection (``>nul``, ``2>&1``); one opening with a slash is a password when what
# follows the slash is no switch's name (``/Passw0rd!``: the command reads it as a switch it
# does not know, but the password is written there all the same)
_WINDOWS_VALUE = (r"(?:'(?P<sq>[^'\n]++)'?|\"(?P<dq>[^\"\n]++)\"?"
                  r"|(?P<pw>(?!/[A-Za-z?]*+(?:[:\s]|$)|\*|\d?>)[^\s\"'`;|&<>]++))")
_WINDOWS_SWITCHES = rf"(?:[ \t]+{_WINDOWS_SWITCH})*+[ \t]+"
_UNC_PATH = r"(?:\"\\{2,}+[^\"\n]++\"|\\{2,}+[^\s\\/\"]++\\++[^\s\"]++)"  # ``\\srv\share``, quoted or not
_COMMAND_PASSWORDS = tuple(
    (literals, lazy.Pattern(rf"(?:{command})(?:\.exe)?(?![\w.-])"),
     lazy.Pattern(rf"(?<!\S){option}{value[0] if value else _OPTION_VALUE}"))
    for literals, command, option, *value in (
        (("mysql", "mariadb"), r"mysql(?:dump|admin|import|show|check|pump|slap|binlog|sh)?"
                               r"|mariadb(?:-dump|-admin|-import|-show|-check|-binlog|-slap)?", r"-p"),
        (("sshpass",), r"sshpass", r"-p[ \t]*"),
        (("login",), r"(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry)[ \t]+login",
         r"(?:-p=?|-p[ \t]+|--password(?:[ \t]+|=))"),
        (("redis-cli",), r"redis-cli", r"(?:-a|--pass)[ \t]+"),
        (("kubeadm",), r"kubeadm[ \t]+(?:join|init)", r"--(?:discovery-|tls-bootstrap-)?token(?:[ \t]+|=)"),
        (("twine",), r"twine[ \t]+upload", r"(?:-p|--password)(?:[ \t]+|=)"),
        (("doctl",), r"doctl[ \t]+auth[ \t]+init", r"(?:-t|--access-token)(?:[ \t]+|=)"),
        (("ldap",), r"ldap(?:search|add|modify|delete|modrdn|passwd|whoami|compare|exop|url)", r"-w[ \t]*"),
        (("login",), r"az[ \t]+login", r"-p[ \t]+"),
        (("mongo",), r"mongo(?:sh|dump|restore|export|import|stat|top|files)?", r"-p[ \t]+"),
        (("sqlcmd", "bcp", "osql"), r"sqlcmd|bcp|osql", r"-P[ \t]*"),
        (("cqlsh",), r"cqlsh", r"-p[ \t]+"),
        (("zip",), r"zip|unzip", r"-P[ \t]+"),
        (("7z",), r"7z[ar]?|7zz", r"-p"),
        (("ssh-keygen",), r"ssh-keygen", r"-N[ \t]+"),
        (("ssh-keygen",), r"ssh-keygen", r"-P[ \t]+"),
        (("openssl",), r"openssl", r"-k[ \t]+"),
        (("smbclient", "smbget", "rpcclient", "smbcacls"), r"smbclient|smbget|rpcclient|smbcacls",
         r"(?:-U[ \t]*|--user(?:[ \t]+|=))[^\s%'\"`;|&]{1,64}%"),
        (("lftp",), r"lftp", r"-u[ \t]+[^\s,'\"`;|&]{1,64},"),
        (("htpasswd",), r"htpasswd",
         rf"(?:-(?=[a-zA-Z]*b)(?![a-zA-Z]*n)[a-zA-Z]+(?:{_POSITIONAL}){{2}}|-(?=[a-zA-Z]*b)(?=[a-zA-Z]*n)[a-zA-Z]+{_POSITIONAL})[ \t]+"),
        (("rabbitmqctl",), r"rabbitmqctl", rf"(?:add_user|change_password){_POSITIONAL}[ \t]+"),
        (("secret",), r"gh[ \t]+secret[ \t]+set", r"(?:-b|--body)(?:[ \t]+|=)"),
        (("vault",), r"vault", r"login[ \t]+"),
        (("alias", "host"), r"mc", rf"(?:alias[ \t]+set|config[ \t]+host[ \t]+add)(?:{_POSITIONAL}){{3}}[ \t]+"),
        (("sqlplus", "sqlldr", "expdp", "impdp", "rman"), r"sqlplus|sqlldr|expdp|impdp|rman",
         r"(?:-[a-z]+[ \t]+)*(?:target[ \t]+|userid=)?[\w$#]{1,30}/", r"(?P<pw>[^\s@\"'`;|&/]++)"),
        # Windows' commands, each looked for by a literal cut after a rarer letter than its last
        # (``net u`` for ``net use`` and ``net user``, ``psex``, ``schtask``): a text is read for it faster
        (("net u",), r"net[ \t]+use", _UNC_PATH + _WINDOWS_SWITCHES, _WINDOWS_VALUE),
        (("net u",), r"net(?=[ \t]+user[ \t])",
         r"(?i:user)[ \t]++(?:\"[^\"\n]++\"|[^\s\"/*][^\s\"]*+)[ \t]+", _WINDOWS_VALUE),
        (("psex",), r"psexec(?:64)?", r"-[pP][ \t]+"),
        # NetworkManager's ``nmcli dev wifi connect SSID password X``, ``wifi-sec.psk X``; the Jenkins
        # CLI's ``-auth user:X``
        (("nmcli",), r"nmcli", r"(?:password|wifi-sec\.psk|802-11-wireless-security\.psk)[ \t]+"),
        (("jenkins-cli",), r"jenkins-cli(?:\.jar)?", r"-auth[ \t]+[^\s:'\"`;|&@]{1,64}:"),
        (("schtask",), r"schtasks", r"/(?i:rp|p)[ \t]+", _WINDOWS_VALUE),
    )
)


_COMMAND_LITERALS = frozenset(literal for literals, _, _ in _COMMAND_PASSWORDS for literal in literals)


def command_password_hits(text: Text) -> Iterator[Hit]:
    """Passwords given on a command line to the commands of :data:`_COMMAND_PASSWORDS`, written
    as a shell or a program's argument list writes it (:func:`_as_command_lines`), a long
    option naming a credential given its value a space apart (:func:`_option_hits`), and
    tokens the commands of :data:`_PRINTED_TOKEN` print."""
    yield from _printed_token_hits(text.low)
    yield from _option_hits(text)
    yield from _piped_hits(text)
    present = {literal for literal in _COMMAND_LITERALS if literal in text.low}  # each looked for once
    for literals, command, option in _COMMAND_PASSWORDS:
        if present.isdisjoint(literals):
            continue
        low, spaced = _as_command_lines(text)
        ends = _command_ends(command, low)
        if not ends:
            continue
        commands = _CommandArguments(low, functools.partial(_command_before, ends))
        for m in option.finditer(spaced):
            group = m.lastgroup or "pw"
            password = m.group(group)
            if password.lower() in STOPWORDS or looks_placeholder(password) or _TEMPLATE_START.match(password):
                continue
            if password.startswith("-") and group == "pw":
                continue  # the next option: this one was given no value
            if len(password) >= 3 and commands.holds(m.start()):
                yield Hit(m.start(group), m.end(group), "command-password", 3)


def _command_ends(command: lazy.Pattern, low: str) -> list[int]:
    """Where each of LOW's matches of COMMAND ends that starts a word (no letter, digit, ``_``,
    ``.`` or ``-`` before it). The pattern opens with the command's name, not with a look
    behind, so that the engine searches for its letters: a look behind first is tried at every
    character of the text (some 50 ms a megabyte for each command)."""
    ends: list[int] = []
    match = command.search(low)
    while match is not None:
        at = match.start()
        if _starts_name(low, at):
            ends.append(match.end())
            match = command.search(low, match.end())
        else:
            match = command.search(low, at + 1)
    return ends


# A secret echoed into a command that reads it from its standard input: ``echo PASSWORD | sudo
# -S ...``, ``echo TOKEN | docker login --password-stdin``, ``printf '%s' TOKEN | gh auth login
# --with-token``, ``echo user:PASSWORD | chpasswd``, ``passwd --stdin``, ``echo PAT | az devops
# login`` (which reads an Azure DevOps token so). The value is judged as an assigned password is
# (a variable, ``$(cat file)`` or a placeholder stays).
_PIPED = lazy.Pattern(
    r"(?:echo(?:[ \t]+-[neE]{1,3})*|printf(?:[ \t]+(?:'%s(?:\\n)?'|\"%s(?:\\n)?\"))?)[ \t]+"
    + _OPTION_VALUE + r"[ \t]*\|[ \t]*(?P<reader>[^\n|;&]{1,300})"
)
_READER_WORDS = ("sudo", "stdin", "with-token", "chpasswd", "devops")
_READS_SECRET = lazy.Pattern(
    r"(?<![\w.-])sudo(?:[ \t]+-\w+(?:[ \t]+[^\s-]\S*)?)*?[ \t]+-[a-zA-Z]*S"
    r"|--password-stdin|--with-token|(?<![\w.-])chpasswd(?![\w.-])|(?<![\w.-])passwd[ \t]+--stdin"
    r"|(?<![\w.-])az[ \t]+devops[ \t]+login(?![\w.-])"
)


def _piped_hits(text: Text) -> Iterator[Hit]:
    """Secrets echoed into a command that reads one from its standard input (above)."""
    low = text.low
    if "|" not in low or ("echo" not in low and "printf" not in low) or not any(w in low for w in _READER_WORDS):
        return
    spaced = _as_command_lines(text)[1]
    for m in _PIPED.finditer(spaced):
        if not _starts_name(spaced, m.start()):
            continue
        if _READS_SECRET.search(m.group("reader")) is None:
            continue
        group = m.group("sq") is not None and "sq" or m.group("dq") is not None and "dq" or "pw"
        start, end = m.span(group)
        if not trivial_value(text.raw[start:end], "password", group != "pw"):
            yield Hit(start, end, "command-password", 3)


# A long option naming a credential, given its value a space apart as programs read options
# (``--password VALUE``, ``--db-password``, ``--http-passwd``, ``--passphrase``, ``--token``,
# ``--access-token``, ``--client-secret``, ``--api-key``, ``--secret-key``), and Java's keytool's
# and InfluxDB's single-dash ones (``-storepass``, ``-keypass``, ``-password``): whatever the
# command, since any program may take one (``=`` between them makes it an assignment,
# :func:`assignment_hits`). The value is judged as one assigned to the option's name is
# (:func:`~gitstore.safety.values.trivial_value`): a word, a path, a variable or a placeholder
# stays. A switch that asks for the secret or sets how it is handled takes no value, so the word
# after it is another argument (``--ask-pass``, ``--no-password``, ``--reset-password alice``).
_OPTION_WORDS = ("password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "key", "bearer")
_OPTION_NAME = lazy.Pattern(r"(?P<dashes>--?)(?P<name>[a-z0-9]+(?:[-_][a-z0-9]+)*[-_]?)?")
_OPTION_SWITCHES = frozenset(
    "ask no prompt with without show reset generate random require expire change skip save empty "
    "disable enable allow use force set get read print check verify validate forget new".split()
)
_JOINED_OPTION_KEYS = frozenset({"storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass",
                                 "keystorepass", "truststorepass"})
_OPTION_VALUED = tuple(
    (word, lazy.Pattern(word + r"[ \t]+" + _OPTION_VALUE)) for word in _OPTION_WORDS
)


def _option_hits(text: Text) -> Iterator[Hit]:
    """Values of the long options naming a credential (above)."""
    low, raw = text.low, text.raw
    if "-" not in low:
        return
    for word, pattern in _OPTION_VALUED:
        if word not in low:
            continue
        for m in pattern.finditer(low):
            at = m.start()
            before = _key_before(low, at)
            name = _OPTION_NAME.fullmatch(before) if before.startswith("-") else None
            if name is None:
                continue  # no option: a word in a sentence (``the token is``), a key (``DB_PASS``)
            parts = re.split(r"[-_]", name.group("name") or "")
            key = (name.group("name") or "") + word
            if parts[0] in _OPTION_SWITCHES or (word == "token" and names_exchanged_token(key)):
                continue  # a switch; a token that pages through a listing or names a request (``--page-token``)
            joined = parts[-1] != ""  # the word runs on from the name's last part (``--dbpassword``)
            if word in _WHOLE_WORD_KEYS and joined and key not in _JOINED_OPTION_KEYS:
                continue  # ``--bypass``, ``--compass``, ``--oauth``: other words
            if word == "key" and not _KEY_QUALIFIER.search(key[:-3]):
                continue  # ``--key``, ``--ssh-key``: a name or a file; ``--api-key`` is a secret
            if word == "bearer" and key != "oauth2-bearer":
                continue  # curl's option; a bearer token elsewhere has rules of its own
            if len(name.group("dashes")) == 1 and key not in _JOINED_OPTION_KEYS and key not in _OPTION_WORDS:
                continue  # ``-ppassword``, ``-xtoken``: a bundle of letters, not a name
            group = m.lastgroup or "pw"
            start, end = m.span(group)
            value = raw[start:end]
            if value.startswith("-") and group == "pw":
                continue  # the next option: this one takes no value
            if not trivial_value(value, key.replace("-", "_"), group != "pw"):
                yield Hit(start, end, "command-password", 3)


# A program's arguments as a list of quoted strings, in brackets or parentheses: Python's
# ``subprocess.run(["mysql", "-pX..."])``, Go's ``exec.Command("docker", "login", ...)``, a JSON
# command array.
_QUOTED_ARGUMENT = r"(?:\"[^\"\\\n]{0,200}\"|'[^'\\\n]{0,200}')"
_ARGUMENT_LIST = lazy.Pattern(rf"[\[(][ \t]*{_QUOTED_ARGUMENT}(?:[ \t]*,[ \t]*{_QUOTED_ARGUMENT})+")
_ARGUMENT_MARKS = str.maketrans("\"',", "   ")
_READ_AS_COMMANDS: list[tuple[Text, tuple[str, str]]] = []  # the text last read so, and how


def _as_command_lines(text: Text) -> tuple[str, str]:
    """TEXT's lowercased and spaced copies with each argument list's quotes and commas read as
    spaces (positions unchanged), so its arguments read as a shell's words: ``["sshpass",
    "-p", "X..."]`` as ``sshpass -p X...``; a list's comma would otherwise end the command as a
    sentence's does. Worked out once for the rules that read commands."""
    last = _READ_AS_COMMANDS[0] if _READ_AS_COMMANDS else None
    if last is not None and last[0] is text:
        return last[1]
    low, spaced = text.low, text.spaced
    if "," in low and ("[" in low or "(" in low):
        read_low, read_spaced, position = [], [], 0
        for m in _ARGUMENT_LIST.finditer(low):
            read_low += [low[position : m.start()], m.group().translate(_ARGUMENT_MARKS)]
            read_spaced += [spaced[position : m.start()], spaced[m.start() : m.end()].translate(_ARGUMENT_MARKS)]
            position = m.end()
        if position:
            low = "".join(read_low) + low[position:]
            spaced = "".join(read_spaced) + spaced[position:]
    _READ_AS_COMMANDS[:] = [(text, (low, spaced))]
    return low, spaced


# A token a command prints, shaped as a UUID: ``heroku auth:token`` and ``npm config get
# ...:_authToken`` (npm's legacy tokens) print it on a line of its own, after a warning or two
# but before the next prompt.
_PRINTED_TOKEN = lazy.Pattern(
    r"(?:heroku[ \t]+auth:token|npm[ \t]+config[ \t]+get[ \t]+\S{0,200}:_auth(?:token)?)[^\n]{0,200}"
    r"(?:\n(?![ \t]*[$#>%] )[^\n]{0,200}){0,2}?\n[ \t]*(?P<v>[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})[ \t]*(?=\r?\n|$)"
)


def _printed_token_hits(low: str) -> Iterator[Hit]:
    """Tokens printed by the commands of :data:`_PRINTED_TOKEN`."""
    if "auth:token" not in low and ":_auth" not in low:
        return
    for m in _PRINTED_TOKEN.finditer(low):
        yield Hit(m.start("v"), m.end("v"), "command-token", 3)


def _command_before(ends: list[int], option: int) -> int:
    """The last of ENDS (where a command's name ends, in order) within reach before OPTION; -1."""
    before = bisect.bisect_right(ends, option) - 1
    return ends[before] if before >= 0 and option - ends[before] <= _CURL_REACH else -1


# --- secrets in prose --------------------------------------------------------------------------

# Matched on the lowercased text with look-alike letters read as Latin (positions kept).
# A password's word in French, German and Spanish too ("mot de passe", "Passwort", "Kennwort",
# "contraseña"), as a sentence in those languages names it.
_CREDENTIAL = (
    r"(?:secrets?|passwords?|passwd|pwd|passphrases?|passcodes?|tokens?|credentials?|creds"
    r"|mots?[ \t]de[ \t]passe|passw[oö]rt(?:e|er)?|kennw[oö]rt(?:e|er)?|contrase[ñn]as?"
    r"|(?:api|access|secret|private|auth|signing|encryption|master|client|aws|ssh)[ \t_-]?"
    r"(?:access[ \t_-]?)?(?:keys?|secrets?|tokens?))\b"
)
_CREDENTIAL_WORD = lazy.Pattern(_CREDENTIAL)
_CREDENTIAL_STEMS = ("secret", "passw", "passphrase", "passcode", "token", "credential", "creds", "key", "pwd", "de passe",
                     "kennw", "contrase")
# A sentence read as tokens: marks (spacing, quotes, colons, brackets, arrows, a table's
# pipes), runs of the characters keys are made of, and anything else.
_TOKEN = lazy.Pattern(r"(?P<mark>\s+|-+>|[:=\"'`*(),>|\[\]\uff1a])|(?P<run>[a-z0-9/+=_.~-]+)|(?P<other>.)", re.S)
# Words that may stand between a credential word and its value: "the secret (prod) is now ...".
_LINKS = frozenset(
    "is was are were be been set to now here it s as equals of for the a an new old our my your this "
    "that value used changed reset rotated updated prod production staging dev test aws github api "
    "access secret key string currently just reads".split()
)
_OTHER_WORDS = 3  # and at most this many other words: "the api key of the bot is ..."
_BEFORE_LINKS = frozenset(
    "is was the our my your a an aws api github prod production staging new old actual real".split()
)
_RUN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789/+=_.~-")
_GAP_TOKENS = 16
_BEFORE_REACH = 260
_VALUE_LENGTHS = range(16, 1 << 62)  # however long a value runs, all of it goes
# a run as long as the shortest value: where none is, a look for a value ends before it starts
_LONG_RUN = lazy.Pattern(rf"[a-z0-9/+=_.~-]{{{_VALUE_LENGTHS.start}}}")
_ASSIGNMENT_GAP = lazy.Pattern(r"[ \t\"'`\]]*(?::=|=>|==|[:=]|\|)[ \t\"'`]*")
_HEX_VALUE = lazy.Pattern(r"[0-9a-f]{32,}")
_AWS_SECRET = lazy.Pattern(r"[A-Za-z0-9/+]{40}")
_AWS_CONTEXT = lazy.Pattern(r"aws|amazon|akia|asia|secret[ \t_-]?access[ \t_-]?key")


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character. Summed over a list, not a generator: the same
    terms in the same order, in less time."""
    total, log2 = len(value), math.log2
    return -sum([n / total * log2(n / total) for n in collections.Counter(value).values()])


def _random_looking(value: str) -> bool:
    """Long and random: mixed case with digits, or a long hex string, with the spread of
    characters random keys have and words, names and hand-typed values lack."""
    if _HEX_VALUE.fullmatch(value):
        return any(c.isalpha() for c in value) and _entropy(value) >= 3.0
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)
    return len(value) >= 20 and mixed and _entropy(value) >= 3.5


def prose_secret_hits(text: Text) -> Iterator[Hit]:
    """Random-looking strings just after (or just before) a credential word in a sentence:
    ``the secret is wJalr...``, ``here's the token, use it: ...``, ``... is the secret``.

    A value published as a documentation example stays only exactly as published: an altered
    copy in a sentence is judged by its shape, like any other string there."""
    low = latin_skeleton(text.low) if not text.low.isascii() else text.low
    raw = text.raw
    yield from _login_hits(raw, low)
    if not any(stem in low for stem in _CREDENTIAL_STEMS):
        return
    words = [w for w in _CREDENTIAL_WORD.finditer(low) if _opens_name_end(low, w.start())]
    if "key" in low:
        words = _with_vendor_keys(low, words)
    # each word looks no further than its neighbours, whose own look covers the rest; a value
    # between two words found a secret after the first ("the token is X my token is ...") is
    # not judged again before the second (its hit would only repeat the first's)
    found = None  # the value after the last word: judged already, or an assignment's
    # where the next run as long as a typed password starts: looked for again only once a word
    # ends past it, so the text is read for runs once, however many words it holds
    value_run = -1
    for n, word in enumerate(words):
        following = words[n + 1].start() if n + 1 < len(words) else len(low)
        after = _value_after(low, word.end(), following)
        hits: list[Hit] = []
        assigned = after is not None and _ASSIGNMENT_GAP.fullmatch(low, word.end(), after[0]) is not None
        if after and not assigned:
            # "secret: value", "secret = value" and "| secret | value |" are assignments, judged as such
            hits = list(_prose_hit(raw, low, word, *after))
        if not hits and word.end() > value_run:  # the run found before starts before this word ends
            value_run = _value_run(low, word.end())
        if not hits and value_run - word.end() <= _TYPED_REACH and (
                typed := _PASSWORD_LINK.match(low, word.end())) is not None:
            hits = _typed_password_hits(raw, low, word, typed)
        before = _value_before(low, word.start(), words[n - 1].end() if n else 0)
        if before and before != found:
            hits.extend(_prose_hit(raw, low, word, *before))
        # the next word does not judge this value again: as an assignment's, nor as a secret found
        found = after if after is not None and (assigned or any(hit.start == after[0] for hit in hits)) else None
        yield from hits


# A bare "key" after a vendor's name is a credential word too: "the mailgun key is ...", "our
# Twilio key: ...", "cohere's key was ..." (a bare key alone is too common a word: a primary key,
# a cache's key). Found from each "key", the word before it read back.
_KEY_WORD = lazy.Pattern(r"keys?\b")
_VENDOR_BEFORE_KEY = lazy.Pattern(r"(?<![a-z0-9])([a-z0-9]{2,20})(?:'s)?[ \t_-]?\Z")
_VENDOR_KEY_WORD = lazy.Pattern(r"[a-z0-9]{2,20}(?:'s)?[ \t_-]?keys?\b")


def _with_vendor_keys(low: str, words: list[re.Match[str]]) -> list[re.Match[str]]:
    """WORDS, and each bare "key" after a vendor's name (above) that no word of WORDS holds, read
    from the vendor's name, in order."""
    found = []
    for key in _KEY_WORD.finditer(low):
        before = _VENDOR_BEFORE_KEY.search(low, max(0, key.start() - 24), key.start())
        if before is None or before.group(1) not in _VENDORS:
            continue
        word = _VENDOR_KEY_WORD.match(low, before.start())
        if word is not None and word.end() == key.end():
            found.append(word)
    if not found:
        return words
    held = [(w.start(), w.end()) for w in words]
    found = [w for w in found if not any(start < w.end() and w.start() < end for start, end in held)]
    return sorted(words + found, key=lambda w: w.start())


def _opens_name_end(low: str, start: int) -> bool:
    """Whether a credential word at START stands as a word, or as the last words of a snake_case
    name (``aws_secret_access_key``, ``db_password``: the pattern sees that it ends the name)."""
    return starts_word(low, start) or low[start - 1] == "_"


def _is_mark(token: re.Match[str]) -> bool:
    return token.lastgroup == "mark" or token.group() == "-"


def _value_after(low: str, position: int, limit: int) -> tuple[int, int] | None:
    """The value a few linking tokens after POSITION (the end of a credential word) and before
    LIMIT, if any. Where no run is long enough to be one, no token is read."""
    if _LONG_RUN.search(low, position, limit) is None:
        return None
    gap, words, match = False, 0, _TOKEN.match
    for _ in range(_GAP_TOKENS):
        token = match(low, position, limit)
        if token is None:
            return None
        kind, found = token.lastgroup, token.group()
        if kind == "other":
            return None
        position = token.end()
        if kind == "mark" or found == "-" or found in _LINKS:
            gap = True
        elif gap and len(found) in _VALUE_LENGTHS:
            return token.span()
        elif gap and words < _OTHER_WORDS and found.isalpha() and len(found) <= 12:
            words += 1
        else:
            return None
    return None


def _value_before(low: str, position: int, limit: int) -> tuple[int, int] | None:
    """The value a few linking tokens before POSITION (the start of a credential word) and
    after LIMIT, if any. A table's pipe ends the look: a cell before a key's is no value of it.
    Where no run is long enough to be one, no token is read."""
    start = max(limit, position - _BEFORE_REACH)
    if _LONG_RUN.search(low, start, position) is None:
        return None
    tokens = list(_TOKEN.finditer(low, start, position))
    gap = False
    for token in reversed(tokens[-_GAP_TOKENS:]):
        if token.group() == "|":
            return None
        if _is_mark(token) or token.group() in _BEFORE_LINKS:
            gap = True
            continue
        whole = token.start() > start or start == 0 or low[start - 1] not in _RUN_CHARS  # not cut off
        if gap and token.lastgroup == "run" and whole and len(token.group()) in _VALUE_LENGTHS:
            return token.span()
        return None
    return None


# A git object id (40 hex digits, or 64 in a SHA-256 repository) that the words between a
# credential word and it call a commit: "the token refresh fix is 9fceb02...", "the secret
# rotation landed in commit 9fceb02...". "my token is <40 hex>" names no commit and goes.
_COMMIT_WORDS = lazy.Pattern(r"\b(?:commit(?:ted)?|sha1?|revision|rev|fix(?:ed)?|hash)\b")
_OBJECT_ID = lazy.Pattern(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _names_commit(low: str, after_word: int, start: int, value: str) -> bool:
    """Whether VALUE at START, after a credential word ending at AFTER_WORD, is a commit's id."""
    return start > after_word and _OBJECT_ID.fullmatch(value) is not None and (
        _COMMIT_WORDS.search(low, after_word, start) is not None)


def _prose_hit(raw: str, low: str, word: re.Match[str], start: int, end: int) -> Iterator[Hit]:
    """The hit for the value at START..END next to WORD, if it is a secret."""
    if raw[end - 1] == ".":
        end -= 1  # a sentence's full stop, not the value's
    value = raw[start:end]
    if value in DOCUMENTED_EXAMPLES or not _random_looking(value) or names_something(value):
        return
    if _names_commit(low, word.end(), start, value):
        return
    context = low[max(0, min(start, word.start()) - 200) : max(end, word.end())]
    aws = _AWS_SECRET.fullmatch(value) is not None and _AWS_CONTEXT.search(context) is not None
    yield Hit(start, end, "aws-secret-key" if aws else "prose-secret", 4)


# A password typed by hand, written in a sentence: too short or too regular to look random, but
# told by the words around it. A credential word, perhaps a note ("(prod)") and whom it is for
# ("for the staging db"), a linking word ("is", "was set to", "is now", ":", "lautet", "est",
# "es"), and one value; or the word right after "with", "using", "enter"... ("connected with the
# password X"). Matched on the lowercased text right after the word.
_PASSWORD_LINK = lazy.Pattern(
    r"(?:[ \t]{0,8}+\([^()\n]{1,40}+\))?"
    r"(?:[ \t]{1,8}+(?:for|of|on|in)(?:[ \t]{1,8}+[a-z0-9][\w.-]{0,30}+){1,3}?)??"
    r"(?:[ \t]{0,8}+(?P<assigned>:=|=>|[:=\uff1a])"
    r"|[ \t]{1,8}+(?:is|was|are|were|equals|lautet|ist|war|est|était|etait|es|era)"
    r"(?:[ \t]{1,8}+(?:now|still|currently|just|also|simply)\b)?"
    r"(?:[ \t]{1,8}+(?:set|changed|reset|rotated|updated)[ \t]{1,8}+to)?(?:[ \t]{0,8}+:)?"
    r"|[ \t]{1,8}+(?:set|changed|reset|rotated|updated)[ \t]{1,8}+to"
    r"|(?P<bare>))"
    r"[ \t]{0,8}+(?:\r?\n[ \t]{0,8}+)?(?<=[\s:=>\uff1a])"
    r"(?:(?P<user>[\w.@+-]{1,64}+)[ \t]{1,3}/[ \t]{1,3})?(?P<v>\S{8,512})"
)
# what may stand before a credential word whose value follows it with no linking word: a verb
# using it, or the user it goes with ("username admin, password ...", "the user is app and its
# password ...")
_USED_WITH = lazy.Pattern(r"(?:\bwith|\busing|\buse|\benter|\btype|\btry)(?:[ \t]+[a-z]{1,12}){0,3}[ \t]+\Z")
_USER_BEFORE = lazy.Pattern(
    r"\b(?:user(?:[ \t]?name)?|login|account)(?:[ \t]+(?:is|was))?[ \t]*[:=]?[ \t]*[\w.@+-]{1,64}"
    r"[ \t]*(?:,|;|/|\band\b)[ \t]*(?:(?:and|its|the|their|his|her|with)[ \t]+){0,2}\Z"
)
_USED_WITH_REACH = 60
_USER_BEFORE_REACH = 100
_OTHER_LANGUAGES = ("mot", "passwort", "passwört", "kennw", "contrase")  # words assignment_hits does not read
_PASSWORD_WORDS = ("pass", "pwd", "mot", "kennw", "contrase")
_SHORTEST_TYPED = 8
# how far after a credential word a typed password's value may start: its note, whom it is for
# and its linking words, each a few blanks apart (more blanks than that part a word from a value)
_TYPED_REACH = 280
_TYPED_RUN = lazy.Pattern(rf"\S{{{_SHORTEST_TYPED}}}")


def _value_run(low: str, position: int) -> int:
    """Where the first run of non-blank characters as long as a typed password starts at or
    after POSITION; past the text's end when none does."""
    run = _TYPED_RUN.search(low, position)
    return run.start() if run is not None else len(low) + _TYPED_REACH + 1


_HEX_OR_DIGEST = lazy.Pattern(r"(?:[a-z][a-z0-9-]{1,15}:)?[0-9a-f]+")  # left to the random-looking rule
_EMAIL = lazy.Pattern(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_OPENERS = "\"'`*([{<"
_CLOSERS = "\"'`*)]}>"
_SENTENCE_MARKS = ".,;:"


def _typed_password_hits(raw: str, low: str, word: re.Match[str], m: re.Match[str]) -> list[Hit]:
    """The hit for a hand-typed password M (:data:`_PASSWORD_LINK` matched right after WORD)
    links to WORD in a sentence, all of the value however many credential words it holds:
    eight characters or more, letters with a digit or a symbol, and not a word, a size, a
    name, a path, a reference, a placeholder, an address or a hash. Matched before this is
    called: most credential words have no such value after them, and cost one match."""
    name = word.group()
    if m.group("assigned") and not (" " in name or "\t" in name or name.startswith(_OTHER_LANGUAGES)):
        return []  # ``password: value``, ``token = value``: an assignment, judged as one (assignment_hits)
    reach = max(0, word.start() - _USED_WITH_REACH)
    if m.group("bare") is not None and _USED_WITH.search(low, reach, word.start()) is None and _USER_BEFORE.search(
            low, max(0, word.start() - _USER_BEFORE_REACH), word.start()) is None:
        return []
    if m.group("user") is not None and not name.startswith("cred"):
        return []  # "user / password" after "credentials" or "creds"
    key = "password" if name.startswith(_PASSWORD_WORDS) else re.sub(r"[ \t-]", "_", name)
    return _typed_hit(raw, *m.span("v"), key)


def _typed_hit(raw: str, start: int, end: int, key: str) -> list[Hit]:
    """The hit for a password typed by hand at START..END, told so by the words before it and
    named KEY by them, once its quotes and the sentence's marks around it are left out: eight
    characters or more, letters with a digit or a symbol, and not a word, a size, a name, a
    path, a reference, a placeholder, an address or a hash."""
    opened = start
    while start < end and raw[start] in _OPENERS:
        start += 1
    while end > start and raw[end - 1] in _SENTENCE_MARKS:
        end -= 1
    if start > opened or (raw[end - 1] == ")" and "(" not in raw[start : end - 1]):
        while end > start and raw[end - 1] in _CLOSERS:
            end -= 1
        while end > start and raw[end - 1] in _SENTENCE_MARKS:
            end -= 1
    value = raw[start:end]
    if len(value) < _SHORTEST_TYPED or value.isalpha() or not any(c.isalpha() for c in value):
        return []
    if value in DOCUMENTED_EXAMPLES or _HEX_OR_DIGEST.fullmatch(value.lower()) or _EMAIL.fullmatch(value):
        return []
    # a name with a number ending in "!" ("Summer2024!") reads as a name ending a sentence, but
    # under a password's word it is a password, the mark and all
    judged = value.rstrip("!?") if key == "password" else value
    if trivial_value(judged, key, start > opened):
        return []
    return [Hit(start, end, "prose-secret", 4)]


# A user and a password written in a sentence with no credential word: "the login is admin /
# X...", "log in as admin with X...", "ssh in as root using X...", "user root pass X...". The
# value is judged as one after a password's word is (:func:`_typed_hit`): "log in as admin with
# your usual password", "the login is admin / settings" stay. One pattern for each word opening
# them, which it opens with (so that the engine searches for it): the text is read once for each.
_USER = r"[\w.@\\+-]{1,64}+"
_SLASHED = rf"(?:[ \t]+(?:is|was))?(?:[ \t]*+:)?[ \t]++{_USER}[ \t]{{0,3}}/[ \t]{{0,3}}(?P<slashed>\S{{8,512}})"
_AS_USER = rf"[ \t]+as[ \t]+(?:(?:the|an?|user)[ \t]+)?{_USER}[ \t]+(?:with|using|/)[ \t]+(?P<as>\S{{8,512}})"
_THEN_PASS = (rf"(?:[ \t]*+[:=])?[ \t]++{_USER}(?:[ \t]*+[,;])?[ \t]++(?:pass(?:word)?|pwd?)(?:[ \t]*+[:=])?[ \t]++"
              r"(?P<passed>\S{8,512})")
_LOGIN_PROSE = tuple(lazy.Pattern(pattern) for pattern in (
    rf"log(?:-?(?:in|on){_SLASHED}|(?:ged|ging|s)?[ \t-]?(?:in|on){_AS_USER}|in{_THEN_PASS})",
    rf"sign(?:-?in{_SLASHED}|(?:ed|ing|s)?[ \t-]?in{_AS_USER})",
    rf"ssh(?:ed)?[ \t]+in{_AS_USER}",
    rf"user(?:[ \t_-]?name)?{_THEN_PASS}",
))


def _login_hits(raw: str, low: str) -> Iterator[Hit]:
    """Passwords written after a user in a sentence with no credential word (above)."""
    for pattern in _LOGIN_PROSE:
        for m in pattern.finditer(low):
            if starts_word(low, m.start()):  # the value's group is the one that matched, the last
                start, end = m.span(m.lastgroup or 0)
                yield from _typed_hit(raw, start, end, "password")


# --- base64 blobs -------------------------------------------------------------------------------

# A blob wrapped over lines, written as they are or as ``\\n`` in a string, or laid out in a
# table a line a row (``| LS0t... |``, the pipes closing one row and opening the next).
_BLOB_BREAK = r"[ \t]*\|[ \t]*\r?\n[ \t]*\|[ \t]*|\r?\n|\\n"
_B64_WRAPPED = rf"(?:(?:{_BLOB_BREAK})[A-Za-z0-9+/]{{4,}}={{0,6}}(?=\r?\n|\\n|[\"'\s|]|$))*(?![A-Za-z0-9+/=])"
_B64_BLOB = lazy.Pattern(r"[A-Za-z0-9+/]{40,}={0,6}" + _B64_WRAPPED)
# a run as short as an order fits in ("you are now DAN" is 20 characters of base64), for
# :func:`blob_texts`: no secret's blob is so short, an injection's may be
_B64_TEXT = lazy.Pattern(r"[A-Za-z0-9+/]{20,}={0,6}" + _B64_WRAPPED)
_B64_TEXT_MIN = 20
_LINE_BREAKS = lazy.Pattern(_BLOB_BREAK)
_B64_MIN = 40
_B64_MARKS = bytes(
    65 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/") else 32 for b in range(256)
)


def _base64_run_starts(text: str, least: int = _B64_MIN) -> Iterator[int]:
    """Where runs of LEAST (40) or more base64 characters start: found with bytes.find, not a regex walk."""
    marks = text.encode("latin-1", "replace").translate(_B64_MARKS)  # one byte per character
    needle, position = b"A" * least, 0
    while (start := marks.find(needle, position)) != -1:
        yield start
        end = marks.find(b" ", start + least)
        if end == -1:
            return
        position = end


def _decode_blob(blob: str) -> tuple[int, str] | None:
    """A base64 blob (possibly wrapped over lines) decoded to printable text, and how many of
    its lines that reads, else None: its lines joined, else its first line. A blob of one line is tried once, not again as its own
    first line; a candidate leaving one character over a multiple of four is no base64, and
    is not decoded to learn so (a failed decode raises, at some microseconds a blob)."""
    lines = _LINE_BREAKS.split(blob)
    for used, candidate in ((len(lines), "".join(lines)), (1, lines[0])) if len(lines) > 1 else ((1, blob),):
        candidate = candidate.rstrip("=")
        if len(candidate) % 4 == 1:
            continue
        candidate += "=" * (-len(candidate) % 4)
        try:
            decoded = base64.b64decode(candidate, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded and mostly_printable(decoded):
            return used, decoded
    return None


_HEX_BLOB = lazy.Pattern(r"(?:[0-9A-Fa-f]{2})+")
_BASE32_BLOB = lazy.Pattern(r"[A-Z2-7]+=*")
_BASE32HEX_BLOB = lazy.Pattern(r"[0-9A-V]+=*")
_GZIP_MAX = 1 << 16  # what a compressed blob is read to, at most: no bomb costs more
_GZIP_TOTAL = 1 << 21  # what a text's compressed blobs are read to together, unless the text is longer
_GZIP_LEAST = 1 << 10  # what one is read to once a text's budget is spent (a token opening it is found)


class _Budget:
    """The bytes a text's compressed blobs may still inflate to: each up to :data:`_GZIP_MAX`
    (so a blob inflating far leaves the next one its own reading), until they have inflated to
    :data:`_GZIP_TOTAL` or the text's own length, whichever is more, together; then
    :data:`_GZIP_LEAST` each. A text of many bombs costs a few readings of itself, not one a bomb."""

    def __init__(self, text: str) -> None:
        self.left = max(_GZIP_TOTAL, len(text))

    def take(self) -> int:
        return max(_GZIP_LEAST, min(_GZIP_MAX, self.left))

    def spend(self, used: int) -> None:
        self.left -= used


def _other_readings(blob: str, budget: _Budget | None = None) -> Iterator[tuple[int, str]]:
    """A blob's texts, and how many of its lines each reads, by the encodings that are not base64 of UTF-8 (:func:`_decode_blob`
    reads that), each when it gives printable text: hex (``xxd -p``, either case), base32
    (either case, padded or not, and base32hex), and base64 of UTF-16 or of gzip; its lines
    joined, else all but its last, else its first (a word on the line after may only look like
    more of it). Each is looked for only in a blob written in its alphabet or decoding to its
    bytes: a git object id is hex, and decodes to no text."""
    lines, budget = _LINE_BREAKS.split(blob), budget or _Budget(blob)
    counts = (len(lines), len(lines) - 1, 1) if len(lines) > 2 else (len(lines), 1)
    for used in counts if len(lines) > 1 else (1,):
        for text in _read_as_others("".join(lines[:used]), budget):
            yield used, text


def _read_as_others(joined: str, budget: _Budget) -> Iterator[str]:
    if _HEX_BLOB.fullmatch(joined):
        yield from _printable(bytes.fromhex(joined))
    if joined.islower() or joined.isupper():  # base32 is written in one case, either
        folded = joined.upper()
        padded = folded.rstrip("=")
        padded += "=" * (-len(padded) % 8)
        # Base32 when it is written in its alphabet, else base32hex (which has 0, 1, 8 and 9).
        hexed = not _BASE32_BLOB.fullmatch(folded)
        if not hexed or _BASE32HEX_BLOB.fullmatch(folded):
            try:
                yield from _printable(base64.b32hexdecode(padded) if hexed else base64.b32decode(padded))
            except (binascii.Error, ValueError):
                pass
    padded = joined.rstrip("=")
    if len(padded) % 4 != 1:
        try:
            raw = base64.b64decode(padded + "=" * (-len(padded) % 4), validate=True)
        except (binascii.Error, ValueError):
            return
        if inflate := _compressed(raw):
            try:
                raw = inflate().decompress(raw, budget.take())
            except (zlib.error, OSError, EOFError, ValueError):
                return
            budget.spend(len(raw))
            yield from _printable(raw)
        elif b"\0" in raw:
            yield from _printable(raw)


def _compressed(raw: bytes) -> Callable[[], zlib._Decompress | bz2.BZ2Decompressor] | None:
    """How RAW inflates when it is gzip, zlib or bzip2 (by its magic bytes), else None."""
    if raw[:2] == b"\x1f\x8b":
        return functools.partial(zlib.decompressobj, wbits=31)
    if len(raw) > 1 and raw[0] == 0x78 and not (raw[0] << 8 | raw[1]) % 31:
        return zlib.decompressobj
    if raw[:3] == b"BZh":
        return bz2.BZ2Decompressor
    return None


def _printable(raw: bytes) -> Iterator[str]:
    """RAW read as UTF-8, or as UTF-16 when every other byte is zero, or as UTF-32 after its
    byte-order mark, when that is printable."""
    even = len(raw) > 1 and not len(raw) % 2
    if raw[:4] in (b"\xff\xfe\0\0", b"\0\0\xfe\xff"):
        encoding = "utf-32"
    elif raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        encoding = "utf-16"
    elif even and not any(raw[1::2]):
        encoding = "utf-16-le"
    elif even and not any(raw[0::2]):
        encoding = "utf-16-be"
    else:
        encoding = "utf-8"
    try:
        decoded = raw.decode(encoding)
    except UnicodeDecodeError:
        return
    if decoded and mostly_printable(decoded):
        yield decoded


# Base64 wrapped in lines shorter than a blob's first (``base64 -w 20``): lines of one length,
# the last no longer, together as long as a blob.
_WRAPPED_B64 = lazy.Pattern(
    r"(?<![^\s\"'=:(\[])[A-Za-z0-9+/]{12,39}+\r?\n[ \t]*+[A-Za-z0-9+/]{4,39}+={0,2}+"
    r"(?:\r?\n[ \t]*+[A-Za-z0-9+/]{4,39}+={0,2}+)*+(?![A-Za-z0-9+/=])"
)
_WRAPPED_LINE = lazy.Pattern(r"[ \t]*+([A-Za-z0-9+/]+)(=*)")
# Where one may be: a line break after 12 base64 characters and before 4 (a literal to look for).
_WRAPPED_BREAK = lazy.Pattern(r"\n(?:(?<=[A-Za-z0-9+/]{12}\n)|(?<=[A-Za-z0-9+/]{12}\r\n))[ \t]*+[A-Za-z0-9+/]{4}")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _wrapped_blobs(text: str) -> Iterator[tuple[int, list[int], str]]:
    """Base64 (or hex, or base32) wrapped in short lines: where each starts, where each of its
    lines ends, and its lines joined by line breaks."""
    covered = 0
    for line_break in _WRAPPED_BREAK.finditer(text):
        start = line_break.start() - (text[line_break.start() - 1] == "\r")
        if start < covered:
            continue
        first = start - 1
        while first > start - 40 and first > 0 and text[first - 1] in _B64_CHARS:
            first -= 1
        m = _WRAPPED_B64.match(text, first)
        if m is None:
            continue
        covered = m.end()
        pieces: list[str] = []
        ends: list[int] = []
        position = m.start()
        for line in text[m.start() : m.end()].split("\n"):
            piece = _WRAPPED_LINE.match(line)
            if piece is None or (pieces and (len(pieces[-1]) != len(pieces[0]) or len(piece.group(1)) > len(pieces[0]))):
                break
            pieces.append(piece.group(1) + piece.group(2))
            ends.append(position + piece.end())
            position += len(line) + 1
        if len(pieces) > 1 and sum(map(len, pieces)) >= _B64_MIN:
            yield m.start(), ends, "\n".join(pieces)


# Hexadecimal written with separators: ``67 68 70``, ``67:68:70``, ``0x67, 0x68``, ``0x6768``,
# in groups of four (``od -x``), over lines, and the dumps ``od -An -tx1``, ``xxd`` and
# ``hexdump -C`` print (an offset opening each line, the bytes as text closing it).
_HEX_LEAST = 32  # sixteen bytes: shorter hex holds no token
_HEX_GROUP = r"(?:0[xX])?[0-9A-Fa-f]{2,}+(?![G-Zg-z_])"
_HEX_RUN = lazy.Pattern(
    rf"(?<![0-9A-Za-z_\\])(?:{_HEX_GROUP}(?:(?:[ \t]*+[:,;][ \t]*+|[ \t]{{1,2}}+|[ \t]*+\r?\n[ \t]*+){_HEX_GROUP})++"
    rf"|0[xX][0-9A-Fa-f]{{{_HEX_LEAST}}}[0-9A-Fa-f]*+(?![G-Zg-z_]))"
)
_DUMP_OFFSET = lazy.Pattern(r"[ \t]*+([0-9A-Fa-f]{7,8})(:?)[ \t]++(?=[0-9A-Fa-f]{2})")
_HEX_SEPARATORS = lazy.Pattern(r"0[xX]|[\s:,;]")
_ASCII_COLUMN = 80  # what a dump prints after a line's bytes, at most


_HEX_MARKS = bytes(65 if chr(b) in "0123456789abcdefABCDEFxX \t\r\n:,;" else 32 for b in range(256))
_HEX_REGION = b"A" * 16  # hex and separators this long open a region worth a look
_LINE_HEX = lazy.Pattern(r"[^\n]{0,80}\n[ \t]*+")


def _hex_runs(text: str) -> list[tuple[int, int]]:
    """Where runs of hexadecimal with separators are, looked for only where hex digits and
    separators run long enough (found with bytes.find, not a regex walk)."""
    marks = text.encode("latin-1", "replace").translate(_HEX_MARKS)  # one byte per character
    runs: list[tuple[int, int]] = []
    position = 0
    while (start := marks.find(_HEX_REGION, position)) != -1:
        end = marks.find(b" ", start)
        end = len(text) if end == -1 else end
        runs.extend(m.span() for m in _HEX_RUN.finditer(text, start, end))
        position = end
    return runs


def _hex_dumps(text: str) -> Iterator[tuple[int, int, tuple[bytes, ...]]]:
    """Hexadecimal with separators or offsets: where each starts and ends, and the bytes it may
    write: as printed, and, when every group is of four digits, each group's two bytes swapped
    too (``od -x`` and ``od -tx2`` print 16-bit words, little-endian: ``4947`` is "GI")."""
    runs = _hex_runs(text)
    n = 0
    while n < len(runs):
        start, end = runs[n]
        lines = text[start:end].split("\n")
        while True:  # a dump's next line, after the bytes this one prints as text
            if n + 1 < len(runs) and runs[n + 1][0] <= end + _ASCII_COLUMN + 2:
                gap = text[end : runs[n + 1][0]]
                if gap.count("\n") == 1 and not gap.rsplit("\n", 1)[1].strip():
                    n, end = n + 1, runs[n + 1][1]
                    lines += text[runs[n][0] : end].split("\n")
                    continue
            after = _LINE_HEX.match(text, end)
            dump = len(lines) > 1 or _DUMP_OFFSET.match(lines[0])
            last = _HEX_RUN.match(text, after.end()) if after and dump else None
            if last is None or (n + 1 < len(runs) and runs[n + 1][0] < last.end()):
                break  # the short last line of a dump, too short to open a region of its own
            end = last.end()
            lines += text[last.start() : end].split("\n")
        n += 1
        if _DUMP_OFFSET.match(lines[0]):  # the bytes the last line prints as text go too
            line_end = text.find("\n", end)
            end = len(text) if line_end == -1 else line_end
        groups = [group for line in map(_dump_bytes, lines) for group in _HEX_SEPARATORS.split(line) if group]
        digits = "".join(groups)
        if len(digits) >= _HEX_LEAST and not len(digits) % 2 and _HEX_BLOB.fullmatch(digits):
            words = all(len(group) == 4 for group in groups)
            swapped = "".join(group[2:] + group[:2] for group in groups) if words else ""
            yield start, end, (bytes.fromhex(digits), bytes.fromhex(swapped)) if words else (bytes.fromhex(digits),)


def _dump_bytes(line: str) -> str:
    """The bytes one line of a dump holds, in hex: no offset, no bytes printed as text."""
    offset = _DUMP_OFFSET.match(line)
    if offset is None:
        return "" if re.fullmatch(r"[ \t]*[0-9A-Fa-f]{7,8}[ \t\r]*", line) else line  # a dump's closing offset
    line = line[offset.end() :]
    if "|" in line:  # hexdump -C: |text|
        return line.split("|", 1)[0]
    if offset.group(2):  # xxd: two spaces, then the text
        return line.split("  ", 1)[0]
    return line


def _blob_spans(text: str, blob: lazy.Pattern, least: int, glued: bool = False) -> Iterator[tuple[int, int]]:
    """Where the base64 blobs BLOB matches, at runs of LEAST or more base64 characters, start
    and end: each standing as a word, or right after an escaped line break ("...\\nb3Bl...").
    GLUED: a run glued to a word before it by "_" ("token_Pj4+P0ln...") is one too, where it
    holds a "+" or a "/" (one holding neither is read in the URL-safe alphabet already)."""
    covered = 0
    for run in _base64_run_starts(text, least):
        m = blob.match(text, run) if run >= covered else None
        if m is None:
            continue
        covered, start = m.end(), m.start()
        if start and text[start - 1] == "\\" and text[start] in "nrt":
            start += 1
        elif not starts_word(text, start, "+/="):
            if not (glued and text[start - 1] == "_" and ("+" in m.group() or "/" in m.group())):
                continue
        yield start, m.end()


def blob_hits(text: str, inner: Callable[[str], list[Hit]]) -> Iterator[Hit]:
    """Base64 blobs whose decoded text needs a redaction (INNER scans a decoded text): the
    whole blob goes, under the kinds found inside it. A blob is read as base64 of UTF-8 text,
    and, when that finds nothing, by the other encodings of :func:`_other_readings`; so is one
    wrapped in short lines. Hexadecimal with separators, and hex dumps, are read as the bytes
    they write. Compressed blobs share one budget of what they inflate to (:class:`_Budget`)."""
    budget = _Budget(text)
    for start, end in _blob_spans(text, _B64_BLOB, _B64_MIN):
        blob = text[start:end]
        kinds, used = _blob_kinds(blob, inner, budget)
        if kinds:
            line_ends = [b.start() for b in _LINE_BREAKS.finditer(blob)] + [len(blob)]
            yield Hit(start, start + line_ends[used - 1], kinds[0], 4, inner=kinds)
    for start, ends, blob in _wrapped_blobs(text):
        kinds, used = _blob_kinds(blob, inner, budget)
        if kinds:
            yield Hit(start, ends[used - 1], kinds[0], 4, inner=kinds)
    for start, end, readings in _hex_dumps(text):
        decodings = (decoded for raw in readings for decoded in _printable(raw))
        kinds = next(filter(None, (_inner_kinds(inner, decoded) for decoded in decodings)), ())
        if kinds:
            yield Hit(start, end, kinds[0], 4, inner=kinds)


def blob_texts(text: str) -> Iterator[str]:
    """The texts TEXT's base64 and hexadecimal runs decode to, each a run of 20 characters or
    more standing as a word or glued to one by "_" (wrapped over lines or not, as :data:`_B64_TEXT` reads it): base64 of
    printable UTF-8 text, else hex of it; and hex with separators or a dump's
    (:func:`_hex_dumps`), as printed. What no other reading gives (a compressed blob, base32,
    UTF-16) is left to :func:`blob_hits`: an order hidden from an agent is one it is asked to
    decode, by the encodings agents decode at a glance. An image, a key or a hash decodes to no
    text and is dropped after one decoding in C."""
    for start, end in _blob_spans(text, _B64_TEXT, _B64_TEXT_MIN, glued=True):
        blob = text[start:end]
        decoded = _decode_blob(blob) if _may_be_text(blob) else None
        if decoded is not None:
            yield decoded[1]
            continue
        joined = "".join(_LINE_BREAKS.split(blob))
        if _HEX_BLOB.fullmatch(joined):
            yield from _printable(bytes.fromhex(joined))
    for _, _, readings in _hex_dumps(text):  # hex with separators ("49 67 6e", "0x49, 0x67"), dumps
        yield from _printable(readings[0])
    if "-" in text or "_" in text:
        yield from _url_safe_texts(text)


# base64's URL-safe alphabet ("-" and "_" for "+" and "/"; JSON web tokens, URLs), its "=" left out
_B64URL_MARKS = bytes(
    65 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "-_") else 32 for b in range(256)
)
_URL_SAFE = str.maketrans("-_", "+/")
_GLUED_MARKS = 3  # the marks after which a run glued to the words before it is read again
_GLUED_REACH = 32  # how far into the run they may stand


def _url_safe_texts(text: str) -> Iterator[str]:
    """The texts TEXT's runs of URL-safe base64 decode to: each a run of 20 characters or more of
    its alphabet holding a "-" or an "_" (one holding neither is read as base64 already), found
    as :func:`_base64_run_starts` finds runs. A name joined by underscores or hyphens
    (``test_a_role_that_drops_no_gate``) decodes to no text and is dropped at its first bytes."""
    marks = text.encode("latin-1", "replace").translate(_B64URL_MARKS)
    needle, position = b"A" * _B64_TEXT_MIN, 0
    while (start := marks.find(needle, position)) != -1:
        end = marks.find(b" ", start + _B64_TEXT_MIN)
        end = len(marks) if end == -1 else end
        run = text[start:end]
        position = end
        if "-" not in run and "_" not in run:
            continue
        blob = run.lstrip("-_").translate(_URL_SAFE)  # an option's dashes before it ("--SWdu...")
        if len(blob) >= _B64_TEXT_MIN and _may_be_text(blob) and (decoded := _decode_blob(blob)) is not None:
            yield decoded[1]
            continue
        # glued to a word before it by a mark ("token_SWdu...", "my-key-SWdu..."): read from after
        # each of its first few marks, within a word's length of its start; a name in snake or
        # kebab case is no base64 of text, which holds capitals
        if run[: 2 * _GLUED_REACH].islower():
            continue
        mark = 0
        for _ in range(_GLUED_MARKS):
            mark = min((at for at in (run.find("_", mark, _GLUED_REACH), run.find("-", mark, _GLUED_REACH)) if at > 0),
                       default=-1) + 1
            if not mark:
                break
            blob = run[mark:].translate(_URL_SAFE)
            if blob[:_GLUED_REACH].islower():
                continue
            if len(blob) >= _B64_TEXT_MIN and _may_be_text(blob) and (decoded := _decode_blob(blob)) is not None:
                yield decoded[1]
                break


_PROBE = 64  # base64 characters of a blob's first line decoded to tell binary from text


def _may_be_text(blob: str) -> bool:
    """Whether BLOB, read as base64, may be UTF-8 text: its first bytes are UTF-8, or the start of
    it. An image, a compressed stream or a key breaks UTF-8 within its first 48 bytes but for one
    in many thousands, and is told so without decoding the rest of it; what :func:`_decode_blob`
    reads as text passes, as its first bytes are those of a UTF-8 text."""
    head = blob[:_PROBE].split("\n", 1)[0].split("\\", 1)[0].rstrip("\r|= \t")
    head = head[: len(head) // 4 * 4]
    try:
        codecs.getincrementaldecoder("utf-8")().decode(base64.b64decode(head, validate=True), final=False)
    except UnicodeDecodeError:
        return False
    except (binascii.Error, ValueError):
        pass
    return True


def _blob_kinds(blob: str, inner: Callable[[str], list[Hit]], budget: _Budget) -> tuple[tuple[str, ...], int]:
    """The kinds of the secrets BLOB holds, by the first of its readings to hold any, and how
    many of its lines that reading takes (a word on the line after may only look like more)."""
    decoded = _decode_blob(blob)
    if decoded is not None and (kinds := _inner_kinds(inner, decoded[1])):
        return kinds, decoded[0]
    for used, other in _other_readings(blob, budget):
        if kinds := _inner_kinds(inner, other):
            return kinds, used
    return (), 0


def _inner_kinds(inner: Callable[[str], list[Hit]], decoded: str) -> tuple[str, ...]:
    return tuple(k for hit in inner(decoded) for k in hit.kinds if k != "home-path")


# --- escaped text ------------------------------------------------------------------------------

# An ASCII character written as an escape: percent-encoded (URLs, form bodies), as JSON,
# JavaScript, Python, Rust, Perl, C or a shell write it (``\u0067``, ``\x67``, ``\U00000067``,
# ``\u{67}``, ``\x{67}``, ``\N{LATIN SMALL LETTER G}``, octal ``\147`` as in ``$'...'`` and
# printf, ``\0147`` as ``echo -e`` reads it, ``\o{147}``), or as an HTML or XML character
# reference (``&#x67;``, ``&#103;``, and without the semicolon an HTML parser forgives;
# ``&lowbar;``: the names HTML gives ASCII characters, in :data:`_NAMED`), or a quote escaped
# once or more (``\"``, ``\\\"``: JSON inside a JSON string, a level deep or more). One escaped
# character hides a token's shape, or the ``=`` or ``<password>`` around a secret, from every
# rule, so a text holding escapes is read again with them decoded (once: however many escapes
# it holds, a text costs at most one more reading, of a text no longer than itself).
_ESCAPE = lazy.Pattern(
    r"((?<!\\)\\++\""
    r"|%[0-7][0-9A-Fa-f]"
    r"|\\(?:u00|x|U000000)[0-7][0-9A-Fa-f]"
    r"|\\[ux]\{0*[0-7]?[0-9A-Fa-f]\}"
    r"|\\o\{0*[01]?[0-7]{1,2}\}"
    r"|\\N\{[A-Z][A-Z0-9 -]{0,80}\}"
    r"|\\0[01][0-7]{2}"
    r"|\\[01][0-7]{2}"
    r"|&#[xX]0*[0-7]?[0-9A-Fa-f](?![0-9A-Fa-f]);?"
    r"|&#0*(?:12[0-7]|1[01][0-9]|[1-9]?[0-9])(?![0-9]);?"
    r"|&(?:Tab|NewLine|excl|QUOT|quot|num|dollar|percnt|AMP|amp|apos|lpar|rpar|ast|midast|plus"
    r"|comma|period|sol|colon|semi|LT|lt|equals|GT|gt|quest|commat|lbrack|lsqb|bsol|rbrack|rsqb"
    r"|Hat|lowbar|UnderBar|DiacriticalGrave|grave|lbrace|lcub|verbar|vert|VerticalLine|rbrace"
    r"|rcub);)"
)
_NAMED = dict(zip(
    "Tab NewLine excl QUOT quot num dollar percnt AMP amp apos lpar rpar ast midast plus comma period"
    " sol colon semi LT lt equals GT gt quest commat lbrack lsqb bsol rbrack rsqb Hat lowbar UnderBar"
    " DiacriticalGrave grave lbrace lcub verbar vert VerticalLine rbrace rcub".split(),
    "\t\n!\"\"#$%&&'()**+,./:;<<=>>?@[[\\]]^__``{{|||}}", strict=True))


class _Decoded(dict[str, str]):
    """Each escape's character, worked out the first time it is met (decoding a text is then
    a few calls into C, however many escapes it holds)."""

    def __missing__(self, escape: str) -> str:
        character = self[escape] = _character(escape)
        return character


def _character(escape: str) -> str:
    """The one character ESCAPE (one :data:`_ESCAPE` matched) stands for; never an error."""
    if escape.startswith("%"):  # percent-encoded: two hexadecimal digits, whatever they are
        return chr(int(escape[1:], 16))
    if escape.endswith('"'):  # a quote escaped once or more: JSON inside a JSON string
        return '"'
    if escape.startswith("&"):
        name = escape[1:].rstrip(";")
        if not name.startswith("#"):
            return _NAMED[name]
        return chr(int(name[2:], 16) if name[1] in "xX" else int(name[1:]))
    if escape.startswith("\\N{"):
        import unicodedata

        try:
            return unicodedata.lookup(escape[3:-1])
        except KeyError:  # no character of that name: one that stands for none
            return "\ufffd"
    if escape.endswith("}"):  # \u{..} and \x{..} in hexadecimal, \o{...} in octal
        return chr(int(escape[3:-1], 8 if escape[1] == "o" else 16))
    if escape[1] in "01":  # \ooo, or \0ooo
        return chr(int(escape[2:] if len(escape) == 5 else escape[1:], 8))
    return chr(int(escape[-2:], 16))


_DECODED = _Decoded()


def escaped_hits(text: str, inner: Callable[[str], list[Hit]]) -> Iterator[Hit]:
    """Secrets found once TEXT's escapes are decoded (INNER scans the decoded text), each
    redacted where it stands, escapes and all. A secret holding no escape is one too: the
    escapes may be in the words around it (``&lt;password&gt;``, ``password%3D``), which the
    plain reading does not see; one it found as well is the same span, settled as one."""
    if "%" not in text and "\\" not in text and "&" not in text:
        return
    pieces = _ESCAPE.split(text)  # text, escape, text, escape, ..., text
    if len(pieces) == 1:
        return
    escapes = pieces[1::2]
    pieces[1::2] = map(_DECODED.__getitem__, escapes)
    # not one kept as it is (its replacement, the decoded text, would rewrite the escapes); a home
    # path's user becomes ``~`` as in plain text (``/home/&#97;lice/.ssh`` is ``~/.ssh``): unlike a
    # base64 blob, which would go whole for it, an escaped text loses only the path's user part
    hits = [hit for hit in inner("".join(pieces)) if hit.replacement is None or hit.kind == "home-path"]
    if not hits:
        return
    at, shift = _escape_places(pieces[0::2], escapes)
    for hit in hits:
        first, last = bisect.bisect_left(at, hit.start), bisect.bisect_left(at, hit.end)
        yield Hit(hit.start + shift[first], hit.end + shift[last], hit.kind, hit.priority, hit.replacement,
                  inner=hit.inner)


def _escape_places(texts: list[str], escapes: list[str]) -> tuple[list[int], list[int]]:
    """Where each escape stands in the decoded text, and how many characters the escapes before
    each position took beyond the one character each stands for (one more entry than escapes)."""
    at, shift, position, extra = [], [0], 0, 0
    for text, escape in zip(texts, escapes):
        position += len(text)
        at.append(position)
        position += 1
        extra += len(escape) - 1
        shift.append(extra)
    return at, shift


__all__ = [
    "assignment_hits",
    "auth_header_hits",
    "blob_hits",
    "blob_texts",
    "command_password_hits",
    "curl_user_hits",
    "escaped_hits",
    "pem_hits",
    "prose_secret_hits",
    "sas_signature_hits",
    "session_cookie_hits",
    "shape_hits",
    "url_password_hits",
]
