"""Secrets a command prints: the output of a command whose work is to read a secret.

A secret manager's command line prints the secret it reads bare, with no key, no credential
word and often no shape of its own (a password is any string), so no other rule of the scanner
sees it; only the command just before says what it is. A command that reads a secret is found
where a command stands (a line's start after an optional prompt, or after ``;``, ``&&``, ``|``,
``$(`` or a quote), and what it prints, on the lines after its own up to a blank
line, a prompt or the end of the text, is redacted (``command-secret``):

- whole, for the forms that print the secret alone: ``aws secretsmanager get-secret-value``
  with ``--query`` or ``--output text``, ``gcloud secrets versions access``, ``az keyvault
  secret show`` with ``--query`` or ``-o tsv``, ``vault kv get``/``vault read`` with
  ``-field``, ``kubectl``/``oc get secret`` with a jsonpath or template, ``security
  find-generic-password``/``find-internet-password -w``, ``doppler secrets get --plain``,
  ``pass``/``gopass show``, ``op read``, ``bw get password``, ``lpass show --password``,
  ``sops --extract``; a leading line that reads as a diagnostic (``Error``, ``warning:``) is
  kept;
- their values, for the forms that print the secret among other fields: ``aws secretsmanager
  get-secret-value`` as JSON or YAML (``SecretString``, ``SecretBinary``), ``az keyvault
  secret show`` as JSON (``value``), ``kubectl get secret -o yaml|json`` and ``vault`` as
  JSON (each value under ``data``/``stringData``), ``vault kv get`` as a table (each row's
  value);
- the password field of a ``.pgpass`` line (``host:port:db:user:password``) printed by
  ``cat``, ``head``, ``less`` and their kin.

Capture reads each tool output after the command it answers (the scanner's ``context``), so
the output is redacted when it is stored, even where the stored text keeps it without its
command.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gitstore.safety import lazy
from gitstore.safety.spans import Hit, Text

# Every command's literal, looked for before any pattern runs: most texts hold none.
_LITERALS = ("secret", "password", "pass show", "vault", "op read", "sops", ".pgpass")
# Where a command stands: a line's start (a prompt before it), or after a shell's separators,
# a command substitution or the quote of ``bash -lc '...'``; not in a backtick, which in prose
# quotes a command no output follows (``run `pass show db` to see it``).
_AT_COMMAND = r"(?:^|(?<=[\n;&|('\"]))[ \t]*(?:[^\s$#%>]{0,80}[$#%>][ \t]+)?(?:sudo[ \t]+|exec[ \t]+)?"
_COMMANDS = lazy.Pattern(
    _AT_COMMAND + r"(?P<c>"
    r"(?P<aws>aws(?:[ \t]+--?[\w-]+(?:[ \t=]+[^\s-][^\s]*)?)*[ \t]+secretsmanager[ \t]+get-secret-value)"
    r"|(?P<gcloud>gcloud(?:[ \t]+(?:alpha|beta))?[ \t]+secrets[ \t]+versions[ \t]+access)"
    r"|(?P<az>az[ \t]+keyvault[ \t]+secret[ \t]+show)"
    r"|(?P<vault>vault[ \t]+(?:kv[ \t]+get|read))"
    r"|(?P<kubectl>(?:kubectl|oc|k)(?:[ \t]+-[-\w]+(?:[ \t=]+[^\s-]\S*)?)*[ \t]+get[ \t]+secrets?(?:/|(?=[ \t])))"
    r"|(?P<security>security[ \t]+find-(?:generic|internet)-password)"
    r"|(?P<doppler>doppler[ \t]+secrets[ \t]+get)"
    r"|(?P<bare>g?pass[ \t]+show|op[ \t]+read|bw[ \t]+get[ \t]+password|lpass[ \t]+show)"
    r"|(?P<sops>sops)"
    r"|(?P<pgpass>(?:cat|head|tail|less|more|bat|type|sed[ \t]+-n[ \t]+\S+)[ \t]+(?:[^\s|;&]+[ \t]+)*[^\s|;&]*\.pgpass)"
    r")(?![\w-])(?P<args>[^\n]*)",
    re.MULTILINE,
)
# What makes a form print the secret alone, by command (read in its arguments, lowercased).
_BARE = {
    "aws": lazy.Pattern(r"--query\b|--output[ \t=]+text\b"),
    "gcloud": None,  # always
    "az": lazy.Pattern(r"--query\b|(?:-o|--output)[ \t=]+tsv\b"),
    "vault": lazy.Pattern(r"-field\b"),
    "kubectl": lazy.Pattern(r"(?:-o|--output)[ \t=]*['\"]?(?:jsonpath|go-template|template|custom-columns)"),
    "security": lazy.Pattern(r"(?<!\S)-w\b"),
    "doppler": lazy.Pattern(r"--plain\b|--raw\b"),
    "bare": None,
    "sops": lazy.Pattern(r"--extract\b"),
}
_OUTPUT_LINES = 64
_OUTPUT_CHARS = 16384
# A line that ends an output (as a blank one does): the next prompt.
_ENDS_OUTPUT = lazy.Pattern(r"[ \t]*[^\s$#%>]{0,80}[$#%>][ \t]+\S")
# A line reporting rather than printing: what a failed read says (kept, it tells what went wrong).
_DIAGNOSTIC = lazy.Pattern(
    r"[ \t]*(?:\(?(?:(?:an[ \t]+)?error|warning|warn|fatal|usage|note|hint|no[ \t]+(?:secret|value|such))\b"
    r"|(?:ba|z|da)?sh:|[\w.-]+:[ \t]+(?:command[ \t]+not[ \t]+found|permission[ \t]+denied|(?:error|warning)\b))"
    r"[^\n]*[ \t][^\n]*"
)
# Arguments that send the output elsewhere: to a file or the clipboard, so none is printed.
_ELSEWHERE = lazy.Pattern(r"(?<![\d&])>(?!&)|\|[ \t]*(?:pbcopy|xclip|xsel|wl-copy|clip(?:\.exe)?)\b")
# Values among other fields: a JSON or YAML field's value.
_JSON_VALUE = r"\"(?P<v>(?:[^\"\\\n]|\\.){1,16384})\""
_AWS_FIELD = lazy.Pattern(
    rf"\"?(?:secretstring|secretbinary)\"?[ \t]*:[ \t]*(?:{_JSON_VALUE}|(?P<y>[^\s\"][^\n]*))"
)
_AZ_FIELD = lazy.Pattern(rf"\"value\"[ \t]*:[ \t]*{_JSON_VALUE}")
_DATA_KEY = lazy.Pattern(r"^(?P<i>[ \t]*)\"?(?:data|stringdata)\"?[ \t]*:[ \t]*(?P<open>\{)?[ \t]*\r?$", re.MULTILINE)
_YAML_FIELD = lazy.Pattern(r"(?P<i>[ \t]*)[^\s:#][^:\n]*:[ \t]+(?P<v>[^\s|>][^\n]*?)[ \t]*\r?$")
_JSON_FIELD = lazy.Pattern(rf"[ \t]*\"[^\"\n]*\"[ \t]*:[ \t]*(?:{_JSON_VALUE}|(?P<n>\{{))")
_TABLE_RULE = lazy.Pattern(r"^[ \t]*-{2,}[ \t]+-{2,}[ \t]*\r?$", re.MULTILINE)
_BLANK_LINE = lazy.Pattern(r"\n[ \t\r]*(?:\n|$)")
_TABLE_ROW = lazy.Pattern(r"[ \t]*\S+[ \t]+(?P<v>\S[^\n]*?)[ \t]*\r?$")
_PGPASS = lazy.Pattern(r"[ \t]*(?:[^:\s\\]|\\.)*:(?:\d+|\*):(?:[^:\n\\]|\\.)*:(?:[^:\n\\]|\\.)*:(?P<v>[^\n]+?)[ \t]*\r?$")


def printed_secret_hits(text: Text) -> Iterator[Hit]:
    """The secrets commands that read them print (the module's documentation says which)."""
    low = text.low
    if not any(literal in low for literal in _LITERALS):
        return
    covered = 0  # where the last output read ends: a command printed in it was read with it
    for m in _COMMANDS.finditer(low):
        if m.start() < covered:
            continue
        command = next(name for name in (*_BARE, "pgpass") if m.group(name) is not None)
        args = m.group("args")
        if _ELSEWHERE.search(args):
            continue
        bare = _BARE.get(command)
        alone = command != "pgpass" and (bare is None or bare.search(args) is not None)
        start, end = _output(low, m.end(), blanks=not alone)
        if start >= end:
            continue
        covered = end
        if command == "pgpass":
            yield from _line_hits(low, start, end, _PGPASS)
            continue
        if alone:
            yield from _bare_hits(low, start, end)
        elif command == "aws":
            yield from _field_hits(_AWS_FIELD, low, start, end)
        elif command == "az":
            yield from _field_hits(_AZ_FIELD, low, start, end)
        elif command in ("kubectl", "vault"):
            yield from _data_hits(low, start, end)
            if command == "vault":
                for rule in _TABLE_RULE.finditer(low, start, end):
                    blank = _BLANK_LINE.search(low, rule.end(), end)
                    yield from _line_hits(low, rule.end() + 1, blank.start() if blank else end, _TABLE_ROW)


def _output(low: str, command_end: int, blanks: bool) -> tuple[int, int]:
    """Where the output after the command ending at COMMAND_END (its line's end) starts and
    ends: the lines up to a prompt or the text's end, within the bounds, and up to a blank line
    unless BLANKS (a table or a document printed in sections)."""
    start = low.find("\n", command_end)
    if start == -1:
        return 0, 0
    start += 1
    position, lines, limit = start, 0, min(len(low), start + _OUTPUT_CHARS)
    while position < limit and lines < _OUTPUT_LINES:
        line_end = low.find("\n", position)
        line_end = len(low) if line_end == -1 else line_end
        blank = not low[position:line_end].strip()
        if (blank and lines and not blanks) or (not blank and _ENDS_OUTPUT.match(low, position, line_end)):
            break
        lines += not blank or bool(lines)
        position = line_end + 1
    return start, min(position, limit)


def _bare_hits(low: str, start: int, end: int) -> Iterator[Hit]:
    """Each line of the output from START to END, but for leading diagnostics."""
    position, leading = start, True
    while position < end:
        line_end = low.find("\n", position, end)
        line_end = end if line_end == -1 else line_end
        line = low[position:line_end]
        stripped = line.strip()
        if stripped and not (leading and _DIAGNOSTIC.fullmatch(line)):
            leading = False
            first = position + len(line) - len(line.lstrip())
            yield Hit(first, first + len(line.rstrip()), "command-secret", 3)
        position = line_end + 1


def _line_hits(low: str, start: int, end: int, pattern: lazy.Pattern) -> Iterator[Hit]:
    """The ``v`` group of PATTERN matched on each line from START to END."""
    position = start
    while position < end:
        line_end = low.find("\n", position, end)
        line_end = end if line_end == -1 else line_end
        m = pattern.fullmatch(low, position, line_end)
        if m is not None and m.group("v"):
            yield Hit(m.start("v"), m.end("v"), "command-secret", 3)
        position = line_end + 1


def _field_hits(pattern: lazy.Pattern, low: str, start: int, end: int) -> Iterator[Hit]:
    for m in pattern.finditer(low, start, end):
        group = "v" if m.group("v") is not None else "y"
        yield Hit(m.start(group), m.end(group), "command-secret", 3)


def _data_hits(low: str, start: int, end: int) -> Iterator[Hit]:
    """Each value under a ``data``/``stringData`` key: a YAML mapping's (the lines indented
    deeper than the key) or a JSON object's (up to its closing brace; nested objects' too)."""
    for key in _DATA_KEY.finditer(low, start, end):
        position = key.end() + 1
        if key.group("open"):
            depth = 1
            while position < end and depth > 0:
                line_end = low.find("\n", position, end)
                line_end = end if line_end == -1 else line_end
                m = _JSON_FIELD.match(low, position, line_end)
                if m is not None and m.group("v") is not None:
                    yield Hit(m.start("v"), m.end("v"), "command-secret", 3)
                depth += low.count("{", position, line_end) - low.count("}", position, line_end)
                position = line_end + 1
            continue
        indent = len(key.group("i").expandtabs())
        while position < end:
            line_end = low.find("\n", position, end)
            line_end = end if line_end == -1 else line_end
            line = low[position:line_end]
            if line.strip():
                if len(line) - len(line.lstrip()) <= indent:
                    break
                m = _YAML_FIELD.fullmatch(low, position, line_end)
                if m is not None:
                    yield Hit(m.start("v"), m.end("v"), "command-secret", 3)
            position = line_end + 1


__all__ = ["printed_secret_hits"]
