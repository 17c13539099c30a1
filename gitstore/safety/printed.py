"""Secrets a command prints: the output of a command whose work is to read a secret.

A secret manager's command line prints the secret it reads bare, with no key, no credential
word and often no shape of its own (a password is any string), so no other rule of the scanner
sees it; only the command just before says what it is. A command that reads a secret is found
where a command stands (a line's start after an optional prompt: ``$``, ``me@box:~$``,
``[me@box widgets]$``, ``me@box ~ %``, ``➜``, ``❯``, a ``(venv)`` before it, PowerShell's
``PS C:\\>`` too, or ``set -x``'s ``+``; or after ``;``, ``&&``, a pipe's ``|`` (not a table's,
that opens its line), ``$(`` or a quote), its name in lower case (``Pass show=True`` and
``Vault read access`` are prose; PowerShell's ``Get-Secret`` in any case), with the arguments
that make it read a secret (``vault read`` an option or a path, not "vault read
access is granted per team"; ``aws ssm`` ``--with-decryption``; ``gpg`` ``--decrypt`` or ``-d``
to the terminal, ``-o -`` too; ``keyring get`` a service and a user name, words a shell splits), however it is spelled: by its path
(``/usr/local/bin/aws``), after variables set for it (``AWS_PROFILE=prod aws``) or a command that
runs it (``env``, ``sudo -u deploy``, ``command``, ``time``, ``nice``, ``xargs -I{}``, ``uvx``, ``pipx run``...), with
options before its subcommand (``gcloud --project p secrets``). What it prints, on the lines after its own up to a blank line, a prompt
(in a terminal's text a plain one, PowerShell's, or one of the shape the command was shown at;
for a command ``set -x`` traced, its next ``+`` line too, and where it was a substitution (``++``)
the value the next command one level up took, an assignment's or its arguments (``+ export
PW=<it>``); in a tool's output, after the command
the tool ran, none) or the end of the text, is redacted (``command-secret``); a command in a document's code block (fenced
or indented) prints up to the block's end, or in the next block when it stands alone in its own
(``_Blocks``): a fence ends a tool's or a terminal's output only there, and a block opens only
where the text is still a document (a fence a terminal printed, after a command at a prompt,
opens none):

- whole, for the forms that print the secret alone: ``aws secretsmanager get-secret-value``
  with ``--query`` or ``--output text``, ``gcloud secrets versions access``, ``az keyvault
  secret show`` with ``--query`` or ``-o tsv``, ``vault kv get``/``vault read`` with
  ``-field``, ``kubectl``/``oc get secret`` with a jsonpath or template, ``security
  find-generic-password``/``find-internet-password -w``, ``doppler secrets get`` (its table
  too), ``pass``/``gopass show`` and ``pass NAME``, ``op read``, ``bw get password``, ``lpass
  show --password``, ``sops --extract``, ``Get-Secret -AsPlainText`` (PowerShell's
  SecretManagement, by its module's name too, the parameter by any prefix: ``-AsPlain``) and
  ``ConvertFrom-SecureString -AsPlainText``, ``aws ssm get-parameter``/``get-parameters``/
  ``get-parameters-by-path``/``get-parameter-history``
  with ``--query`` or ``--output text``, ``keyring get SERVICE USER`` (``python -m keyring``
  too), ``secret-tool lookup``, ``gpg --decrypt``/``gpg -d`` (the file's plaintext whole, its
  blank lines and ``#`` comments too, after ``gpg:``'s lines on the key, which are kept; in a
  document's code block, up to its own Markdown heading between blank lines or its prose after a
  blank line), the
  tables of ``aws`` and ``az`` (``--output table``),
  and any of the commands whose output is piped to ``jq`` (``| jq -r .SecretString``), ``yq``
  or ``base64``; a leading line that reads as a diagnostic (``Error``, ``warning:``) is
  kept, and so is ``gopass show``'s ``Secret: NAME`` header;
- their values, for the forms that print the secret among other fields: ``aws secretsmanager
  get-secret-value`` as JSON or YAML (``SecretString``, ``SecretBinary``), ``aws ssm
  get-parameter(s)(-by-path)`` as JSON or YAML (each ``Value``), ``az keyvault
  secret show`` as JSON or YAML (``value``), ``kubectl get secret -o yaml|json`` and ``vault`` as
  JSON (each value under ``data``/``stringData``), ``vault kv get`` as a table (each row's
  value);
- the password field of a ``.pgpass`` line (``host:port:db:user:password``) printed by
  ``cat``, ``head``, ``less``, ``grep`` and their kin; the whole output of ``awk`` or ``cut``
  reading it, or reading what ``cat`` printed of it.

Each pattern reads a text once: an option is one hyphen or two then a letter (``--ab`` reads
one way only), repetitions are possessive and bounded, a word holds none of the characters a
command may stand after but inside its quotes, and a value ends at its last non-blank character
(no lazy repetition tried at each blank), so no text makes the scan slower than its length.

Capture reads each tool output after the command it answers (the scanner's ``context``), so
the output is redacted when it is stored, even where the stored text keeps it without its
command.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from gitstore.safety import lazy
from gitstore.safety.spans import Hit, Text

# Every command's literal, looked for before any pattern runs: most texts hold none.
_LITERALS = ("secret", "pass", "vault", "op read", "sops", "ssm", "keyring", "gpg", "securestring")
# A word every match of ``_COMMANDS`` holds (``op[ \t]+read`` may have a tab or two blanks in it).
# A match lies on one line, so only the lines holding one are searched (``_command_matches``): tried
# after every parenthesis and quote of a text of code, the pattern cost some 0.4 us a byte.
_COMMAND_WORD = lazy.Pattern(r"secret|securestring|ssm|vault|pass|op[ \t]+read|sops|keyring|gpg")
# A word of a command line: unquoted, quoted or both, bounded, holding none of the characters a
# command may stand after (a separator, a parenthesis, a quote) but inside its quotes: each such
# character starts a new try of the pattern, which must not read far each time.
_WORD = r"""(?:[^\s;&|()'"]{1,256}+|'[^'\n]{0,256}+'|"[^"\n]{0,256}+"){1,4}+"""
# An option (``-x``, ``--name``, ``--name=value``, ``-I{}``): one hyphen or two, then a letter or
# digit, so ``--ab`` reads one way only.
_OPTION = rf"-{{1,2}}\w[\w.-]{{0,64}}+(?:=?{_WORD})?"
# The covered commands' names, which an option before them never takes as its argument.
_NAMES = (r"(?:aws|gcloud|az|vault|kubectl|oc|k|security|doppler|(?:go)?pass|op|bw|lpass|sops|keyring|gpg2?"
          r"|secret-tool|get-secret|convertfrom-securestring"
          r"|cat|head|tail|less|more|bat|type|sed|grep|egrep|fgrep|rg|awk|gawk|mawk|cut|sort|column)(?![\w-])")
# What may stand before a command and run it: variables set for it (``AWS_PROFILE=prod``), and
# ``env``, ``sudo``, ``command``, ``time``, ``nice``, ``xargs`` and their kin with their options
# (``sudo -u deploy``, ``xargs -I{}``); twelve words at most, each read once (possessive).
_WRAPPER = (rf"(?:[a-z_]\w{{0,64}}+=(?:{_WORD})?"
            r"|(?:sudo|doas|env|exec|command|builtin|time|nice|nohup|xargs|stdbuf|then|do|else|uvx|pipx[ \t]+run"
            r"|uv[ \t]+(?:tool[ \t]+)?run)(?![\w-])"
            r"|timeout[ \t]+[\d.]{1,16}+[smhd]?"
            rf"|{_OPTION}(?:[ \t]+(?!-|{_NAMES}){_WORD})?)")
# PowerShell's prompt: ``PS C:\Users\me>``, ``PS /home/me>`` (read in lower case).
_PS_PROMPT = r"ps[ \t]+(?:[a-z]:\\|/|~)[^\n>]{0,160}+>"
# What a shell shows before its prompt: an environment's name, a virtualenv's ``(venv)``,
# conda's ``(base)``, two of them (``(base) (venv)``), and a theme's clock (``[12:01:02]``).
_ENV = r"(?:(?:\([^\s()$#%>]{1,64}+\)|\[\d{1,2}:\d\d(?::\d\d)?\])[ \t]++){0,3}+"
# Windows' cmd.exe: a drive's path then ``>``, the command right after it (``C:\Users\me>dir``).
_CMD_PROMPT = r"[a-z]:\\[^\n<>|\"*?]{0,160}+>"
# The prompts besides a word ending in ``$``, ``#``, ``%`` or ``>`` (``$``, ``me@box:~$``) and
# PowerShell's, each up to its last character (the blanks after it are not its): Fedora's and
# RHEL's bracketed ``[me@box widgets]$``; a user and host then up to two words before the sign,
# ``me@box ~ %`` (macOS's zsh) or ``me@box:~/w $`` (no number's, ``me@x.com 50 % off``); and a
# sign alone, oh-my-zsh's ``➜  widgets git:(main) ✗``, starship's and pure's ``❯``, ``λ``
# (``_GLYPHS``: a line of prose may open with one, so such a line does not make a text a
# terminal's, ``_SHOWN_LINE``). Not Python's ``>>>``, which no blank follows.
_BRACKETED = r"\[[^\n\]]{1,80}+\][$#%]"
_USER_AT_HOST = r"[^\s$#%>@]{1,64}+@[^\s$#%>]{1,80}+(?:[ \t]++(?![\d.,]++[ \t])[^\s$#%>]{1,80}+){0,2}+[ \t]++"
_USER_HOST = _USER_AT_HOST + "[$#%]"
_GLYPHS = (r"➜(?:[ \t]++\S{1,80}+(?:[ \t]++git:\([^\s)]{1,80}+\))?(?:[ \t]++✗)?)?|[❯λ]"
           r"|[╰└][─═-]{0,4}+[ \t]?[❯λ$#%>]")  # a two-line prompt's second line (``╰─❯``, ``└─$``)
# fish's ``me@box ~/w>``: a user and host, then the folder, the sign right after it.
_FISH = r"[^\s$#%>@]{1,64}+@[^\s$#%>]{1,80}+[ \t]++[~/][^\s>]{0,160}+>"
# The plain prompt: a word ending in a sign (``$``, ``me@box:~$``); and the named shapes a
# command is found after (``_AT_COMMAND`` names which one, ``_ends_output`` takes it).
_PLAIN = r"[^\s$#%>]{0,80}[$#%>]"
_SHAPE_PATTERNS = {"bracketed": _BRACKETED, "userhost": _USER_HOST, "glyph": _GLYPHS, "fish": _FISH}
# Where a command stands: a line's start (a prompt before it, an environment's name before
# that, or the ``+`` a shell's ``set -x`` traces a command with), or after a shell's separators,
# a command substitution or the quote of ``bash -lc '...'``; not in a backtick, which in prose
# quotes a command no output follows (``run `pass show db` to see it``), nor after a ``|`` that
# opens its line, a table's (``| pass show NAME | prints it |``): a pipe follows a command. The
# command is named by its path's last part (``/usr/local/bin/aws``).
_AT_COMMAND = (r"(?:^|(?<=[\n;&('\"])|(?<=\S)[ \t]{0,16}+\|)[ \t]*"
               r"(?:(?P<trace>\+{1,8}+)[ \t]+|(?P<env>" + _ENV + r")(?:(?:" + _PLAIN + "|"
               + "|".join(f"(?P<{name}>{shape})" for name, shape in _SHAPE_PATTERNS.items()) + r")[ \t]+|"
               + "(?:" + _PS_PROMPT + "|" + _CMD_PROMPT + r")[ \t]*))?"
               rf"(?:{_WRAPPER}[ \t]+){{0,12}}+(?:[^\s;&|()'\"/]{{0,256}}+/){{0,32}}+")


def _options(subcommand: str) -> str:
    """Options before SUBCOMMAND (``aws --profile prod secretsmanager``), sixteen at most, each
    read once: an option's argument is never SUBCOMMAND."""
    return rf"(?:[ \t]+{_OPTION}(?:[ \t]+(?!-|{subcommand}(?![\w-])){_WORD})?){{0,16}}+"


# ``pass NAME`` prints NAME's secret as ``pass show NAME`` does: a name alone on its command
# line, that is not one of pass's own subcommands (written in lower case, as every command's
# name must be: a test runner's ``PASS  src/app.test.js`` is no command).
_PASS_NAME = (r"(?=[ \t]+(?!(?:init|ls|list|find|search|grep|insert|add|edit|generate|rm|remove|delete|mv"
              r"|rename|cp|copy|git|help|version|show|otp|sync|setup|audit|config|env|history|mounts"
              r"|templates|fsck|update|clone|create|new|link|cat|fscopy|fsmove|recipients|alias|age)(?![\w-]))"
              r"[\w@+-][\w@.+-]{0,256}+(?:/[\w@.+-]{1,256}+){0,32}+[ \t]*(?:\r?$|[|;&]))")
# A word of ``cat``'s and its kin's before the ``.pgpass`` they read.
_PGPASS_FILE = r"[^\s|;&()'\"]{0,256}\.pgpass(?![\w.-])"
_COMMANDS = lazy.Pattern(
    _AT_COMMAND + r"(?P<c>"
    rf"(?P<aws>aws{_options('secretsmanager')}[ \t]+secretsmanager[ \t]+get-secret-value)"
    rf"|(?P<ssm>aws{_options('ssm')}[ \t]+ssm[ \t]+get-parameter(?:s(?:-by-path)?|-history)?)"
    rf"|(?P<gcloud>gcloud{_options('(?:alpha|beta|secrets)')}(?:[ \t]+(?:alpha|beta))?[ \t]+secrets[ \t]+versions[ \t]+access)"
    rf"|(?P<az>az{_options('keyvault')}[ \t]+keyvault[ \t]+secret[ \t]+show)"
    rf"|(?P<vault>vault[ \t]+(?:kv[ \t]+get|read))"
    rf"|(?P<kubectl>(?:kubectl|oc|k){_options('get')}[ \t]+get[ \t]+secrets?(?:/\S*+)?)"
    r"|(?P<security>security[ \t]+find-(?:generic|internet)-password)"
    r"|(?P<doppler>doppler[ \t]+secrets[ \t]+get)"
    rf"|(?P<bare>(?:go)?pass[ \t]+(?:show|otp)|(?P<passname>(?:go)?pass){_PASS_NAME}|op[ \t]+read|bw[ \t]+get[ \t]+password|lpass[ \t]+show)"
    r"|(?P<sops>sops)"
    r"|(?P<getsecret>(?:microsoft\.powershell\.secretmanagement\\)?get-secret|convertfrom-securestring)"
    rf"|(?P<keyring>(?:python[\d.]{{0,8}}+[ \t]+-m[ \t]+)?keyring{_options('get')}[ \t]+get)"
    r"|(?P<gpg>gpg2?)"
    r"|(?P<secrettool>secret-tool[ \t]+lookup)"
    r"|(?P<pgpass>(?:(?P<fields>awk|gawk|mawk|cut)|cat|head|tail|less|more|bat|type|sed|grep|egrep|fgrep|rg|sort|column)"
    rf"(?:[ \t]+(?!{_PGPASS_FILE}){_WORD}){{0,16}}+[ \t]+{_PGPASS_FILE})"
    r")(?![\w-])(?P<args>[^\n]*)",
    re.MULTILINE,
)
# ``vault read``/``vault kv get`` take options and one path (``-field=password secret/db``), then
# ``key=value`` pairs (``database/creds/app ttl=1h``), or a second plain word where an option
# before may take it (``-format json secret/db``), up to a shell's separator: a lower-case line
# of prose that opens with those words ("vault read access is granted per team") goes on in
# words no such command line holds.
_ARGUMENTS_END = lazy.Pattern(r"[|;&>)`]|(?<!\S)#")
_VAULT_PAIR = lazy.Pattern(r"[\w.-]{1,64}=")


# The options of ``vault read``/``vault kv get`` that take a value, given as the next word when
# not after ``=`` (``-field password``, ``-version 3``); the others are flags.
_VAULT_VALUED = frozenset((
    "field", "format", "version", "mount", "address", "namespace", "ns", "ca-cert", "ca-path", "client-cert",
    "client-key", "tls-server-name", "wrap-ttl", "policy-override", "mfa", "header", "agent-address", "log-level",
    "log-file", "log-format",
))
_VAULT_FLAGS = frozenset((
    "tls-skip-verify", "non-interactive", "output-curl-string", "output-policy", "disable-redirects", "h", "help",
))


def _words(args: str) -> list[str]:
    """The words of ARGS up to a shell's separator, split as a shell does (``'my service'`` is
    one word); on blanks where its quotes do not pair."""
    end = _ARGUMENTS_END.search(args)
    line = args[: end.start() if end else len(args)]
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def _vault_arguments(words: list[str]) -> bool:
    """Whether WORDS, what follows ``vault read`` or ``vault kv get`` on its line, are a command
    line's: its options (the value a known option takes is no plain word) and one plain word,
    or two where an unknown option before may take the first."""
    plain, unknown, position = 0, False, 0
    while position < len(words):
        word = words[position]
        position += 1
        if word.startswith("-") and len(word) > 1:
            name = word.lstrip("-")
            if "=" in name:
                continue
            if name in _VAULT_VALUED:
                position += 1
            elif name not in _VAULT_FLAGS:
                unknown = True
        elif not _VAULT_PAIR.match(word):
            plain += 1
    return plain == 1 or (plain == 2 and unknown)


def _reads_a_secret(command: str, args: str) -> bool:
    """Whether the command, given ARGS (the rest of its line), reads a secret: for those that
    need more than their name (``_vault_arguments``, ``_SSM_DECRYPTS``, ``_GPG_DECRYPTS``, and
    ``keyring get``'s two words)."""
    if command == "vault":
        return _vault_arguments(_words(args))
    if command == "ssm":
        return _SSM_DECRYPTS.search(args) is not None
    if command == "gpg":
        return _GPG_DECRYPTS.search(args) is not None and _GPG_TO_FILE.search(args) is None
    if command == "keyring":
        return len([word for word in _words(args) if not word.startswith("-")]) == 2
    return True


# What makes a form print the secret alone, by command (read in its arguments, lowercased).
_BARE = {
    "aws": lazy.Pattern(r"--query\b|--output[ \t=]+(?:text|table)\b"),
    "gcloud": None,  # always
    "az": lazy.Pattern(r"--query\b|(?:-o|--output)[ \t=]+(?:tsv|table)\b"),
    "vault": lazy.Pattern(r"-field\b"),
    "kubectl": lazy.Pattern(r"(?:-o|--output)[ \t=]*['\"]?(?:jsonpath|go-template|template|custom-columns)|--template\b"),
    "security": lazy.Pattern(r"(?<!\S)-w\b"),
    "doppler": None,  # its value alone, or in a table of its own
    "bare": None,
    "sops": lazy.Pattern(r"--extract\b"),
    "ssm": lazy.Pattern(r"--query\b|--output[ \t=]+(?:text|table)\b"),
    # else it prints ``System.Security.SecureString`` (or, converted, its encryption); PowerShell
    # takes any prefix of a parameter's name that no other parameter shares: ``-AsPlain``, ``-a``.
    "getsecret": lazy.Pattern(r"(?<!\S)-a(?:s(?:p(?:l(?:a(?:i(?:n(?:t(?:e(?:xt?)?)?)?)?)?)?)?)?)?(?![\w-])(?!:\$false)"),
    "keyring": None,
    "gpg": None,
    "secrettool": None,
}
# What the commands below must be given to read a secret: ``aws ssm`` decrypts a
# ``SecureString`` only with ``--with-decryption`` (else it prints the ciphertext), ``gpg``
# decrypts with ``--decrypt`` or ``-d`` (alone or among short options, ``-qd``), to the
# terminal (not ``-o FILE``); ``keyring get`` takes a service and a user name, two words (a
# sentence, "keyring get returns None when ...", goes on).
_SSM_DECRYPTS = lazy.Pattern(r"--with-decryption\b")
_GPG_DECRYPTS = lazy.Pattern(r"(?<!\S)(?:--decrypt|-[aqvn]{0,8}+d[aqvn]{0,8}+)(?![\w-])")
_GPG_TO_FILE = lazy.Pattern(r"(?<!\S)(?:-[adqvn]{0,8}+o|--output)(?:(?:[ \t]++|=)(?!-(?!\S))|$)")
_OUTPUT_LINES = 64
_OUTPUT_CHARS = 16384
# A line that ends an output (as a blank one does): the next prompt. A tool's output holds no
# prompt, so after a command found in what the tool ran (the scanner's context) none ends it. In
# a terminal's text the next prompt is the plain one (``$``, ``me@box:~$``) or PowerShell's, or
# the shape of the prompt the command stood after (``_AT_COMMAND``'s named groups): a line of a
# secret's output that only looks like another shape (``ops@corp.example # owner``, ``(x) $ y``,
# ``❯ item``) is what the command printed, not the end of it. An environment's name before the
# prompt ends an output only after a command shown behind one.
def _ends_pattern(env: bool, shape: str | None) -> lazy.Pattern:
    shapes = _PLAIN + ("" if shape is None else "|" + _SHAPE_PATTERNS[shape])
    return lazy.Pattern(r"[ \t]*" + (_ENV if env else "") + r"(?:(?:" + shapes + r")[ \t]+\S|"
                        + _PS_PROMPT + r"(?:[ \t]|$)|" + _CMD_PROMPT + ")")


_ENDS_OUTPUT = {(env, shape): _ends_pattern(env, shape) for env in (False, True) for shape in (None, *_SHAPE_PATTERNS)}
_TRACE_LINE = lazy.Pattern(r"[ \t]*(?P<d>\+{1,8}+)[ \t]+\S")  # its depth: its ``+`` signs
# The line ``set -x`` shows for the command a substitution's value went into (``++ pass show db``
# then ``+ export PW=<what it printed>``): an assignment's value, or a command's arguments (the
# value is among them: ``+ curl -u admin:<it> https://...``), not the names ``export`` takes.
_TRACED = lazy.Pattern(
    r"[ \t]*(?P<d>\+{1,8}+)[ \t]+(?:(?:(?:export|declare|local|readonly|typeset)(?:[ \t]+-\w{1,8}+){0,4}+[ \t]+)?"
    r"[a-z_][a-z0-9_]{0,128}+(?:\[[^\]\n]{0,128}+\])?\+?="
    r"|(?!(?:export|declare|local|readonly|typeset|unset)[ \t])[^\s=]{1,256}+[ \t]+)(?P<v>[^\n]*\S)?"
)
_TRACE_LOOKAHEAD = 64  # lines after a substitution's command that the command taking its value is looked for in
# A line reporting rather than printing: what a failed read says (kept, it tells what went wrong).
_DIAGNOSTIC = lazy.Pattern(
    r"[ \t]*(?:\(?(?:(?:an[ \t]+)?error|warning|warn|fatal|usage|note|hint|no[ \t]+(?:secret|value|such))\b"
    r"|(?:ba|z|da)?sh:|[\w.-]+:[ \t]+(?:command[ \t]+not[ \t]+found|permission[ \t]+denied|(?:error|warning)\b))"
    r"[^\n]*[ \t][^\n]*"
)
# Arguments that send the output elsewhere: to a file or the clipboard, so none is printed.
_ELSEWHERE = lazy.Pattern(r"(?<![\d&])>(?!&)|\|[ \t]*(?:pbcopy|xclip|xsel|wl-copy|clip(?:\.exe)?)\b")
# Arguments that pipe the output to what prints a value alone: jq (``| jq -r .SecretString``), a
# decoder; for ``.pgpass``, what prints its fields (``| cut -d: -f5``).
_PIPED_ALONE = lazy.Pattern(r"\|[ \t]*(?:jq|gojq|yq|base64)(?![\w-])")
_PIPED_FIELDS = lazy.Pattern(r"\|[ \t]*(?:awk|gawk|mawk|cut)(?![\w-])")
# What ``gpg --decrypt`` prints (to its standard error, which a terminal and a tool's output hold)
# before the plaintext: the key it was encrypted with, each ``gpg:`` line perhaps followed by
# the key's user id, indented and quoted.
_GPG_HEADER = lazy.Pattern(r"(?:[ \t]*gpg:[^\n]*\n(?:[ \t]+\"[^\n]*\n)?)++")
# What ``gopass show`` prints before the secret: the secret's name and a blank line.
# What ends an output shown in a document's code block (a command and what it prints shown as
# an example; not a tool's or a terminal's output, which a fence or a sentence does not end): the
# fence closing the block (the same character, as many or more), the line leaving an indented
# block (indented less than four columns), and, for a file printed whole, a Markdown heading with
# blank lines around it (a file's ``#`` comment sits on what it describes) or prose after a blank
# line: a sentence of five words or more opening with a letter and ending with a stop (no
# ``KEY=value`` line, no ``key: value``). A fence opens its block at any indentation (a list's).
_FENCE_LINE = lazy.Pattern(r"^[ \t]*+(?P<f>`{3,}+(?=[^`\n]*$)|~{3,}+)[^\n]*", re.MULTILINE)
# A line a terminal shows a command on: after a ``$`` or ``%`` prompt (``$``, ``me@box:~$``, not
# the "50%" opening a sentence nor a bracketed note's ``[note]$``), a ``#`` or ``>`` one that
# names a user, host or folder (``root@box:~#``, not a Markdown heading or quote, nor "C# is"),
# Fedora's bracketed one naming a user and host (``[me@box w]$``), a user and host then up to
# two words before ``$`` or ``%`` (``me@box ~ %``; before ``#``, root's alone: not an address
# and its comment), an environment's name before any, or PowerShell's, a word after it, not a number
# (``(USD) $ 20``); a theme's sign or ``set -x``'s ``+`` only before a command given an option,
# a path or a file (``❯ head -4 README.md``, not ``❯ Next steps``); and a fence line
# (``_FENCE_LINE``): what ``_Blocks`` reads.
_SHOWN_LINE = lazy.Pattern(
    r"^[ \t]*+(?:(?P<f>`{3,}+(?=[^`\n]*$)|~{3,}+)[^\n]*"
    r"|" + _ENV + r"(?:(?![\d.,]++%|\[[^\s@\]]{0,80}+\][$%])[^\s$#%>]{0,80}+[$%]"
    r"|[^\s$#%>@:~/\\\]]{0,80}+[@:~/\\\]][^\s$#%>]{0,80}+[#>]"
    r"|\[[^\n\]@]{0,80}+@[^\n\]]{1,80}+\][$#%]|" + _USER_AT_HOST + r"[$%]|(?=root@)" + _USER_AT_HOST + "#|"
    + _PS_PROMPT + "|" + _FISH + r")[ \t]+(?!\d)\S"
    r"|" + _ENV + _CMD_PROMPT + r"[ \t]?[a-z][\w.-]{0,64}+(?:[ \t][^\n]*)?$"
    r"|" + _ENV + r"(?:\+{1,8}+|" + _GLYPHS + r")[ \t]+[a-z][\w.+-]{0,64}+[ \t]+"
    r"(?:--?[a-z0-9]|[^\s/]{0,80}+/|[\w-]{1,80}+\.[a-z0-9]{1,8}+(?![^\s]))[^\n]*)",
    re.MULTILINE,
)
# Between a document's block holding a command alone and the next one, which shows what it
# prints: blank lines, and a line that says so (``Output:``, ``You should see:``).
_BETWEEN_BLOCKS = lazy.Pattern(
    r"(?:[ \t\r]*\n)*+(?:(?:[ \t]*[^\s:]++){0,6}?[ \t]*(?:output|prints?|printed|shows?|see|results?|returns?|gives?)"
    r"\b[^\n:]{0,40}+:[ \t\r]*\n(?:[ \t\r]*\n)*+)?"
)
_HEADING = lazy.Pattern(r"[ \t]{0,3}#{1,6}[ \t]+\S")
_BLANK_NEXT = lazy.Pattern(r"(?:\n[ \t\r]*(?:\n|$)|$)")
_PROSE = lazy.Pattern(r"[ \t]*[a-z][a-z'’-]*+(?:[ \t,;()`\"'/]{1,4}+[^\s=:]{1,64}+){4,}+:?+(?<=[.:!?`\"')])[ \t\r]*")
_GOPASS_HEADER = lazy.Pattern(r"[ \t]*secret:[^\n]*\n[ \t\r]*\n")
# Values among other fields: a JSON or YAML field's value.
_JSON_VALUE = r"\"(?P<v>(?:[^\"\\\n]|\\.){1,16384})\""
_AWS_FIELD = lazy.Pattern(
    rf"\"?(?:secretstring|secretbinary)\"?[ \t]*:[ \t]*(?:{_JSON_VALUE}|(?P<y>[^\s\"][^\n]*))"
)
_AZ_FIELD = lazy.Pattern(rf"\"value\"[ \t]*:[ \t]*{_JSON_VALUE}|^value:[ \t]*(?P<y>[^\s|>][^\n]*)", re.MULTILINE)
_SSM_FIELD = lazy.Pattern(
    rf"\"value\"[ \t]*:[ \t]*{_JSON_VALUE}|^[ \t]*(?:-[ \t]+)?value:[ \t]*(?P<y>[^\s|>][^\n]*)", re.MULTILINE
)
_DATA_KEY = lazy.Pattern(r"^(?P<i>[ \t]*)\"?(?:data|stringdata)\"?[ \t]*:[ \t]*+(?P<open>\{)?[ \t]*+\r?$", re.MULTILINE)
_YAML_FIELD = lazy.Pattern(r"(?P<i>[ \t]*)[^\s:#][^:\n]*:[ \t]+(?P<v>[^\s|>](?:[^\n]*[^\s])?)[ \t]*\r?$")
_JSON_FIELD = lazy.Pattern(rf"[ \t]*\"[^\"\n]*\"[ \t]*:[ \t]*(?:{_JSON_VALUE}|(?P<n>\{{))")
_TABLE_RULE = lazy.Pattern(r"^[ \t]*-{2,}[ \t]+-{2,}[ \t]*\r?$", re.MULTILINE)
_BLANK_LINE = lazy.Pattern(r"\n[ \t\r]*(?:\n|$)")
_TABLE_ROW = lazy.Pattern(r"[ \t]*\S+[ \t]+(?P<v>\S(?:[^\n]*\S)?)[ \t]*\r?$")
_PGPASS = lazy.Pattern(r"[ \t]*(?:[^:\s\\]|\\.)*:(?:\d+|\*):(?:[^:\n\\]|\\.)*:(?:[^:\n\\]|\\.)*:(?P<v>[^\n]*\S)[ \t]*\r?$")


def printed_secret_hits(text: Text) -> Iterator[Hit]:
    """The secrets commands that read them print (the module's documentation says which)."""
    low = text.low
    if not any(literal in low for literal in _LITERALS):
        return
    covered = 0  # where the last output read ends: a command printed in it was read with it
    blocks = _Blocks(low)
    for m in _command_matches(low):
        if m.start() < covered:
            continue
        command = next(name for name in (*_BARE, "pgpass") if m.group(name) is not None)
        word = m.group("c").split(None, 1)[0]
        if command != "getsecret" and not text.raw.startswith(word, m.start("c")):  # PowerShell's: any case
            continue  # ``Pass show=True to print``, ``PASS  src/app.test.js``: prose, a test runner's status
        args = m.group("args")
        if _ELSEWHERE.search(args) or not _reads_a_secret(command, args):
            continue
        bare = _BARE.get(command)
        if command == "pgpass":
            alone = m.group("fields") is not None or _PIPED_FIELDS.search(args) is not None
        else:
            alone = bare is None or bare.search(args) is not None or _PIPED_ALONE.search(args) is not None
        command_end, block = blocks.output_after(m.start(), m.end())
        if m.start() < text.output_start:  # the command the tool ran: its output holds no prompt
            trace, ends = False, None
        else:
            trace = m.group("trace") is not None
            shape = next((name for name in _SHAPE_PATTERNS if m.group(name) is not None), None)
            ends = _ENDS_OUTPUT[bool(m.group("env")), shape]
        start, end = _output(low, command_end, blanks=not alone, comments=command == "gpg", block=block, trace=trace, ends=ends)
        if trace and len(m.group("trace")) > 1:  # a substitution: what it printed went into a command
            yield from _substituted(low, max(end, command_end + 1), len(m.group("trace")))
        if start >= end:
            continue
        if command == "gpg":  # the plaintext of a file, blank lines and all
            start, end = _output(low, command_end, blanks=True, comments=True, block=block, trace=trace, ends=ends)
            header = _GPG_HEADER.match(low, start)
            if header is not None:
                start, end = _output(low, header.end() - 1, blanks=True, comments=True, block=block, trace=trace, ends=ends)
        if m.group("c").startswith("gopass"):
            header = _GOPASS_HEADER.match(low, start)
            if header is not None:
                start, end = _output(low, header.end() - 1, blanks=False, block=block, trace=trace, ends=ends)
        covered = end
        if command == "pgpass" and not alone:
            yield from _line_hits(low, start, end, _PGPASS)
            continue
        if alone:
            yield from _bare_hits(low, start, end)
        elif command == "aws":
            yield from _field_hits(_AWS_FIELD, low, start, end)
        elif command == "az":
            yield from _field_hits(_AZ_FIELD, low, start, end)
        elif command == "ssm":
            yield from _field_hits(_SSM_FIELD, low, start, end)
        elif command in ("kubectl", "vault"):
            yield from _data_hits(low, start, end)
            if command == "vault":
                for rule in _TABLE_RULE.finditer(low, start, end):
                    blank = _BLANK_LINE.search(low, rule.end(), end)
                    yield from _line_hits(low, rule.end() + 1, blank.start() if blank else end, _TABLE_ROW)


def _command_matches(low: str) -> Iterator[re.Match[str]]:
    """What ``_COMMANDS.finditer(low)`` yields, searched only on the lines holding one of its
    words (``_COMMAND_WORD``): a match holds one and stands on one line, which it reads to its end,
    so each line is searched as the whole text would be (``^`` and ``$`` hold at a line's ends)."""
    searched = -1  # where the lines searched so far end
    for word in _COMMAND_WORD.finditer(low):
        if word.start() < searched:
            continue
        start = low.rfind("\n", 0, word.start()) + 1
        searched = low.find("\n", word.end())
        if searched < 0:
            searched = len(low)
        yield from _COMMANDS.finditer(low, start, searched)


class _Blocks:
    """Which of a document's code blocks holds each command, read once from the text's start:
    a fenced block (its fence, ```` ``` ```` or ``~~~`` and its length), an indented one (``"    "``,
    a line indented four columns or more after a blank or indented one), or none (a tool's or a
    terminal's output, a command on its own). A fence opens a document's block only where the
    text is still a document: from a command shown at a prompt (``_SHOWN_LINE``) outside a
    block, fenced or indented, or a command
    reading a secret found outside one, on, the text is a terminal's (what it printed, the next
    command and its output), where a fence is what a command printed (``head`` cutting a README
    in a block), not one a later command's output ends at."""

    def __init__(self, low: str) -> None:
        self.low = low
        self.read = 0  # the lines before are read
        self.fence: str | None = None  # the open fence there
        self.terminal = False  # the text is a terminal's from a line read on

    def _fence_at(self, line_start: int) -> str | None:
        low = self.low
        for m in _SHOWN_LINE.finditer(low, self.read, line_start):
            if self.terminal:
                break
            fence = m.group("f")
            if fence is None:
                if self.fence is None and not self._indented(m.start()):  # in a block, the document's example
                    self.terminal = True
            elif self.fence is None:
                self.fence = fence
            elif fence[0] == self.fence[0] and len(fence) >= len(self.fence) and not low[m.end("f"):m.end()].strip():
                self.fence = None
        self.read = line_start
        return self.fence

    def _indented(self, line_start: int) -> bool:
        """Whether the line at LINE_START is in a document's indented block: indented four
        columns or more after a blank or indented line."""
        low = self.low
        line_end = low.find("\n", line_start)
        if not low[line_start:len(low) if line_end == -1 else line_end].expandtabs().startswith("    "):
            return False
        previous = low[low.rfind("\n", 0, max(line_start - 1, 0)) + 1:max(line_start - 1, 0)]
        return line_start > 0 and (not previous.strip() or previous.expandtabs().startswith("    "))

    def output_after(self, command_start: int, command_end: int) -> tuple[int, str | None]:
        """Where the output of the command from COMMAND_START to COMMAND_END is read after (its
        line's end, as :func:`_output` takes it) and the block that holds it. A command alone in
        its fenced block (nothing but blank lines up to the closing fence) prints in the block
        that follows it (``_BETWEEN_BLOCKS``): its output is read there."""
        low = self.low
        line_start = low.rfind("\n", 0, command_start) + 1
        fence = self._fence_at(line_start)
        if fence is None:
            line_end = low.find("\n", command_end)
            indented = low[line_start:len(low) if line_end == -1 else line_end].expandtabs().startswith("    ")
            previous = low[low.rfind("\n", 0, max(line_start - 1, 0)) + 1:max(line_start - 1, 0)]
            if indented and line_start > 0 and (not previous.strip() or previous.expandtabs().startswith("    ")):
                return command_end, "    "
            self.terminal = True  # what follows is the command's output, and the terminal's
            return command_end, None
        line_end = low.find("\n", command_end)
        position = line_end + 1
        while line_end != -1:
            line_end = low.find("\n", position)
            line = low[position:len(low) if line_end == -1 else line_end]
            if line.strip():
                closing = _FENCE_LINE.match(low, position)
                if (closing is None or closing.group("f")[0] != fence[0] or len(closing.group("f")) < len(fence)
                        or low[closing.end("f"):closing.end()].strip() or line_end == -1):
                    break
                between = _BETWEEN_BLOCKS.match(low, line_end + 1)
                following = _FENCE_LINE.match(low, between.end()) if between is not None else None
                if following is None:
                    break
                return following.start(), following.group("f")
            position = line_end + 1
        return command_end, fence


def _output(low: str, command_end: int, blanks: bool, comments: bool = False,
            block: str | None = None, trace: bool = False,
            ends: lazy.Pattern | None = _ENDS_OUTPUT[False, None]) -> tuple[int, int]:
    """Where the output after the command ending at COMMAND_END (its line's end) starts and
    ends: the lines up to a prompt or the text's end, within the bounds, and up to a blank line
    unless BLANKS (a table or a document printed in sections); with COMMENTS (a file printed
    whole), a line opening with ``#`` is the file's comment, not a root shell's prompt. In a
    document's code BLOCK (its fence, or four spaces for an indented one) the output ends where
    the block does, and with COMMENTS at the document's own Markdown heading (``_HEADING``,
    between blank lines) or its prose after a blank line (``_PROSE``). With TRACE (a command a
    shell's ``set -x`` showed, ``+ cmd``) the trace's next command ends it too; a ``+`` line
    after a command shown otherwise is what it printed (a Markdown list of a decrypted file).
    ENDS is the prompt line that ends it (``_ENDS_OUTPUT``), None for a tool's output."""
    start = low.find("\n", command_end)
    if start == -1:
        return 0, 0
    start += 1
    position, lines, limit, after_blank = start, 0, min(len(low), start + _OUTPUT_CHARS), False
    while position < limit and lines < _OUTPUT_LINES:
        line_end = low.find("\n", position)
        line_end = len(low) if line_end == -1 else line_end
        line = low[position:line_end]
        blank = not line.strip()
        if (blank and lines and not blanks) or (not blank and ends is not None and ends.match(low, position, line_end)
                                                and not (comments and line.lstrip().startswith("#"))) or (
                trace and not blank and _TRACE_LINE.match(low, position, line_end)):
            break
        if block is not None and not blank:
            if block == "    ":
                if not line.expandtabs().startswith("    "):
                    break
            else:
                closing = _FENCE_LINE.match(low, position)
                if (closing is not None and closing.group("f")[0] == block[0] and len(closing.group("f")) >= len(block)
                        and not low[closing.end("f"):closing.end()].strip()):
                    break
            if comments and after_blank and (_PROSE.fullmatch(low, position, line_end) or (
                    _HEADING.match(low, position, line_end) and _BLANK_NEXT.match(low, line_end))):
                break
        after_blank = blank
        lines += not blank or bool(lines)
        position = line_end + 1
    return start, min(position, limit)


def _substituted(low: str, position: int, depth: int) -> Iterator[Hit]:
    """The value of a command substitution ``set -x`` traced at DEPTH (its ``+`` signs), from
    POSITION (its output's end) on: in the next line traced one level up, past the lines of
    other substitutions of the same command (deeper or as deep) and what they printed; and, when
    that command was a substitution too (``X=$(echo $(pass show db))``), in the one above it."""
    for _ in range(_TRACE_LOOKAHEAD):
        if position >= len(low):
            return
        line_end = low.find("\n", position)
        line_end = len(low) if line_end == -1 else line_end
        traced = _TRACE_LINE.match(low, position, line_end)
        if traced is not None and len(traced.group("d")) < depth:
            found = _TRACED.match(low, position, line_end)
            if found is None or len(found.group("d")) != depth - 1:
                return
            if found.group("v"):
                yield Hit(found.start("v"), found.end("v"), "command-secret", 3)
            depth -= 1
            if depth == 1:
                return
        position = line_end + 1


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
            yield Hit(first, position + len(line.rstrip()), "command-secret", 3)
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
                if len(line.expandtabs()) - len(line.expandtabs().lstrip()) <= indent:
                    break
                m = _YAML_FIELD.fullmatch(low, position, line_end)
                if m is not None:
                    yield Hit(m.start("v"), m.end("v"), "command-secret", 3)
            position = line_end + 1


__all__ = ["printed_secret_hits"]
