"""``gitstore-scan``: the safety scanner on the text files about to be committed.

Each file is scanned as the content of its path from the repository's root, with the
repository's ``.gitstore-allow`` (``PATH:KIND:LINE`` per line, or ``PATH:KIND:LINE sha256=DIGEST``
pinned to one value, read as the change holds it, like the files: a list left untracked or not
staged clears nothing) clearing the secrets and home paths its maintainers declared harmless; a
line clears only where what the change is judged against (HEAD at a commit, the range's base)
holds it too, so a change cannot allow its own secrets, and a line without a pin clears only the
text the base holds on that line, so a change cannot put another value on an allowed line
(``_allowlists``); a finding prints the pinned line that would clear it. Anything the scanner
would quarantine (hidden or bidirectional characters, injected instructions: never allowed, the
finding says so) or redact
(secrets, home paths) is a finding on the line where it starts (a test suite's key, under
``tests/`` or ``fixtures/``, is no secret, but not in a file agents read, below); warnings (mixed-script words)
are printed but do not fail. A file is read whole: a byte that is not UTF-8 reads as U+FFFD, and
a NUL byte is a control character the scanner quarantines, so neither hides what stands around it.

pre-commit hands the gate every file, and the gate reads what pre-commit would take for text (by
its name, else by its first kilobyte, as ``identify`` decides) and, whatever its bytes, every
file agents read (``_published.read_by_agents``: ``AGENTS.md``, ``.cursor/rules/``, ...; the
wiki; and every file of a skill: under ``.agents/skills/``, ``.claude/skills/`` or
``.github/skills/`` in any folder, where agents load skills from, or in any folder holding a
``SKILL.md``, as the index holds it or as passed; and every file a memory file agents read
imports, ``@docs/agent-notes`` in ``CLAUDE.md``, relative to the importing file and five
imports deep, as Claude Code and Gemini CLI read them, from the memory files the change holds,
through the symbolic links on the way, as the file system follows them):
a NUL byte in a Cursor rule or a skill's ``reference/GUIDE`` makes pre-commit and git take it
for binary (git shows no diff of it), yet agents read it as text, and one in UTF-16 or UTF-32
with its byte order mark is read decoded. Left unread there are only a file named as binary (an
image, an archive), and one that is binary by its bytes (``_binary``): it begins as a binary
format does (a zip, such as a ``.docx``; an ELF, Mach-O or Windows executable; an SQLite
database; gzip, 7z, PDF, media, WebAssembly, ...) and reads as one, its first 64 KiB mostly no
text, unless its name says agents read it as text (a rule file, ``*.mdc``): a NUL byte there is
still a finding, and so is text behind a binary beginning. Elsewhere a binary file is left
unread too. A file agents read that git holds as a Git LFS pointer (``filter=lfs``) is a
finding: git holds only the pointer, which is all a gate reads, while a checkout with Git LFS
writes the file the LFS server holds, which no gate reads; so is one that ``.gitattributes`` (as
the change holds it) has a checkout write otherwise than git holds it, by a ``filter`` or a
``working-tree-encoding`` (``_rewritten``); a change to a ``.gitattributes`` has every file
agents read asked so.

A whole JSON, YAML or TOML document agents read (``*.json``, ``*.yaml``, ``*.yml``, ``*.toml``:
``.continual-learning/index.json``, ``.continue/rules/*.yaml``, a file a memory file imports) is
scanned also as its loader reads it, whatever its layout (one line, a brace at a line's start,
YAML with or without ``---`` lines, several documents): each string whose decoded text is not
what its source says is scanned on its line, a finding naming its key path (``'entries[1].fact'
as JSON decodes it``). One that does not parse is scanned as text alone, and the
continual-learning index so is refused. Any other file that opens with YAML front matter (or
TOML between ``+++`` lines, or a JSON object, which
some readers take too) is scanned also as YAML reads it: each string (key or
value) whose decoded text is not what the file says verbatim (``"ign\\x6Fre ..."``, ``"\\u202E"``,
a line break escaped in a double-quoted string, ``!!binary``, a folded or multi-line scalar) is
scanned as the file's text on its line, and what the decoding adds is a finding naming the key and
that line (``gitstore.safety.frontmatter``). A skill loader hands an agent a ``SKILL.md``'s
description so, and ``gitstore wiki index`` a page's title; this gate, which reads every file
agents read, holds it for all of them (skills, pages, rule files), where the skills and wiki gates
would each cover their own. YAML is loaded only for front matter not written verbatim: a plain
wiki costs one match per page and no YAML import.

A symbolic link is scanned too, as what git commits for it: the path it holds (its target), a
single line. A link to ``/home/alice/.ssh/id_rsa`` commits a home path, and a target can hold
hidden or bidirectional characters; its findings are on line 1, marked ``link target:``. The
link is not followed for that: the file it leads to is scanned as itself (an import naming the link
makes it a file agents read).

Each file is read as the change holds it (``_common.CommittedFiles``), never as the work tree
does when the change is in git: at pre-push and in a run over a range, the blob of the range's
tip (``PRE_COMMIT_TO_REF:path``), so a commit made with ``--no-verify`` whose text was fixed
in the index or the work tree alone is scanned as it is pushed; at a commit, the index's blob
(what git commits, ``GIT_INDEX_FILE``); a file the change does not hold is not read. Run by hand,
the work tree is the change. At pre-push and over a range the files the range adds or changes
that the work tree lacks (a ``git mv`` or ``git rm`` staged, not committed), which pre-commit
never passes, are scanned too (``_common.files_of_change``; the hook runs without names too,
``always_run``).

A push sends commits, not only a tip: over a range, and at the first push of a whole history,
each blob a commit of what is pushed adds or changes that the tip no longer holds at its path is
scanned too (``_history``), each once, named by the commit that added it, whose finding says to
rewrite the history before pushing: a credential a later commit deletes is still fetched by
every clone. Secrets are findings there in any text file, and quarantines by the tip's rules;
the base's ``.gitstore-allow`` clears a value (``_history_allowlist``), a pinned line on any line
of its file (``_anywhere``), and each value is one finding at its oldest commit, saying how many
more lines and versions hold it (``_once``). Each message of those
commits is scanned for a credential of a known format (``_scan_messages``).

A file under ``okf/.memory/``, this clone's local state, fails whatever its bytes and whatever a
``.gitignore`` says (``_local_state``), and so does one a commit of what is pushed added
(``_local_history``).
"""

from __future__ import annotations

import functools
import io
import os
import posixpath
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from posixpath import basename, dirname

from gitstore.promote.gates._common import (
    blobs, CommittedFiles, entries, files_of_change, files_only, Finding, git, hook_filter, in_parallel, on_the_remote,
    parser, pushed_whole, range_of_change, relative, report, run, top_level,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the scanner loads when the gate runs (its --help does not need it)
    from gitstore.safety.files import Allowlist
    from gitstore.safety.scanner import ConservativeScanner
    from gitstore.safety.spans import Hit

PROG = "gitstore-scan"
SKILL = "SKILL.md"
# how binary formats begin: archives and documents (zip: .docx, .xlsx, .jar; OLE: .doc, .xls), executables
# (ELF, Windows, Mach-O), databases, compressed data, PDF, images, audio and video, WebAssembly, fonts
_BINARY_STARTS = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", b"\x7fELF",
                  b"MZ", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe",
                  b"\xca\xfe\xba\xbe", b"SQLite format 3\x00", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00",
                  b"\x28\xb5\x2f\xfd", b"7z\xbc\xaf\x27\x1c", b"Rar!\x1a\x07", b"%PDF-", b"\x89PNG\r\n\x1a\n",
                  b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"RIFF", b"OggS", b"fLaC", b"ID3",
                  b"\x1a\x45\xdf\xa3", b"\x00asm", b"wOFF", b"wOF2", b"OTTO", b"\x00\x01\x00\x00\x00", b"PAR1",
                  b"ARROW1", b"\x93NUMPY")
_SAMPLE = 65536  # bytes of a file that begins like a binary format read to tell whether it is one
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1f\x7f\ufffd]")  # control characters, bytes that are no UTF-8
_TEXT_SUFFIXES = (".mdc",)  # read as text by the agents that read them, though identify does not name them
# how a Git LFS pointer begins, as git-lfs reads one (its three spellings of the version, blanks
# before it, a line that ends in CR LF): git holds the pointer, and a checkout with Git LFS
# installed writes the file it names, which only the LFS server holds
_LFS_POINTER = re.compile(r"\A\s*version (?:https://git-lfs\.github\.com/spec/v1|https://hawser\.github\.com/spec/v1"
                          r"|http://git-media\.io/v/2)\r?\n")
LFS_POINTER = ("a Git LFS pointer where agents read the file: git holds only the pointer, which is all the gates read, "
               "while a checkout with Git LFS writes the file the LFS server holds, which no gate reads; keep files "
               "agents read in git itself (no filter=lfs for them in .gitattributes)")


def check(files: Sequence[str], root: Path) -> tuple[list[Finding], list[Finding]]:
    """(findings that fail, warnings) for the files."""
    history, commits = _history(root) if CommittedFiles.in_a_hook() else ([], [])
    if not files and not history and not commits:
        return [], []  # the hook runs on every commit and push (``always_run``): nothing to load then
    from gitstore.safety.files import Allowlist
    from gitstore.safety.scanner import ConservativeScanner

    if CommittedFiles.in_a_hook():
        allow, advice = _allowlists(root)
    else:
        allow, advice = Allowlist.read(root), _Advice()
    scanner = ConservativeScanner(allow)
    agents_read = _reader(root, files)
    rows = in_parallel(files, lambda chunk: _scan(chunk, root, scanner, agents_read, advice),
                       lambda row: (row[0], Finding(*row[1])), by_bytes=True) if files else []
    failing = [f for failing, f in rows if failing] + _rewritten(root, files, agents_read)
    if history:
        past, called = _history_allowlist(root)
        past_scanner = ConservativeScanner(past)
        failing += _once(in_parallel(history, lambda chunk: _scan_history(chunk, root, past_scanner, agents_read,
                                                                           called),
                                     lambda row: (row[0], row[1], Finding(*row[2])),
                                     weights=lambda items: _blob_sizes(root, items)))
        failing += _local_history(history)
    if commits:
        failing += _scan_messages(root, commits, scanner)
    return failing, [f for failing, f in rows if not failing]


def _pushed(root: Path) -> list[str] | None:
    """What names the commits the change sends, for ``git log``: the range's (``START..TIP``),
    or the ref a push sends whole, less what the remote pushed to holds already (at pre-push,
    ``--not --remotes=NAME``, as pre-commit finds a new branch's first commit, and for a push by
    URL the remotes configured with it: ``on_the_remote``); None at a commit and by hand."""
    span, whole = range_of_change(), pushed_whole()
    if span is not None:
        spec = [f"{span[0]}..{span[1]}"]
    elif whole is not None:
        spec = [whole]
    else:
        return None
    held = on_the_remote(root)
    return spec + (["--not", *held] if held else [])


def _history(root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """The blobs the commits the change sends add or change (``_pushed``; a merge: what differs
    from every parent, ``-c``) that its tip no longer holds at their path, each blob once (at the
    first path that the tip does not hold it at and the hook's ``files`` and ``exclude`` pass), as
    ``OID MODE COMMIT PARENTS PATH`` (tab-separated, PARENTS space-separated), the oldest commit
    that added it first. A later commit that deletes or rewrites a file leaves the blob in what
    is pushed: every clone fetches it, though no tip holds it. One ``git log`` lists them all and
    one ``git ls-tree`` the tip, so a push costs its commits' changes, never their number times
    the repository's files. With them, (commit, parents) of each commit sent, for its message."""
    spec = _pushed(root)
    if spec is None:
        return [], []
    done = git("log", "--reverse", "--topo-order", "--format=%x01%H %P", "-c", "--raw", "-z", "--root", "--no-renames",
               "--no-abbrev", *spec, "--", cwd=root, check=False)
    if done.returncode != 0:
        from gitstore.errors import InvalidInput

        raise InvalidInput(f"the commits of {' '.join(spec)} cannot be listed: no such commit")
    added: dict[tuple[str, str], tuple[str, str, str]] = {}  # (oid, path) -> (mode, commit, parents), the first
    commits: list[tuple[str, str]] = []
    commit = parents = ""
    meta: list[bytes] | None = None
    for token in done.stdout.split(b"\0"):
        if meta is not None:  # the path of the change just read, whatever it looks like
            count = len(meta[0]) - len(meta[0].lstrip(b":"))  # ``::`` for a merge of two
            fields = meta[0][count:].split(b" ")
            meta = None
            if len(fields) < 2 * count + 2:
                continue
            mode, oid = fields[count].decode(), fields[2 * count + 1].decode()
            if mode in ("100644", "100755", "120000") and oid.strip("0"):
                added.setdefault((oid, token.decode("utf-8", "surrogateescape")), (mode, commit, parents))
            continue
        token = token.lstrip(b"\n")
        if token.startswith(b"\x01"):
            commit, _, parents = token[1:].decode().partition(" ")
            commits.append((commit, parents))
        elif token.startswith(b":"):
            meta = [token]
    if not added:
        return [], commits
    paths = sorted({path for _, path in added})
    tip = entries(root, CommittedFiles.tip(), paths if len(paths) <= _NAMED_PATHS else None) or {}
    taken = hook_filter(PROG, root)
    found: dict[str, str] = {}  # oid -> its item, at the first path the gate judges it at
    for (oid, path), (mode, commit, parents) in added.items():
        if oid not in found and tip.get(path, ("", ""))[1] != oid and (taken is None or taken(path)):
            found[oid] = f"{oid}\t{mode}\t{commit}\t{parents}\t{path}"
    return list(found.values()), commits


def _blob_sizes(root: Path, items: Sequence[str]) -> list[int]:
    """The bytes of each blob of ``_history``'s items (0 for one git cannot size), asked of one
    ``git cat-file --batch-check``: the scan's work grows with the bytes it reads, and a file's
    later versions are mostly its larger ones, so workers given as many blobs each (oldest first)
    finished far apart (over pallets/click's 3,329 commits, 35 and 77 MB)."""
    oids = [item.split("\t", 1)[0] for item in items]
    done = git("cat-file", "--batch-check=%(objectsize)", cwd=root, check=False,
               data="".join(f"{oid}\n" for oid in oids).encode())
    sizes = [int(line) if line.isdigit() else 0 for line in done.stdout.decode().splitlines()]
    return sizes if len(sizes) == len(oids) else [0] * len(oids)


# what the scanner guesses is a credential from the words around it (an assignment, a command's
# option, prose naming a password), a home path, an authorization header: a commit message
# describing a fix says such things; a credential of a known format it never holds
_GUESSED = frozenset({"credential-assignment", "prose-secret", "command-secret", "command-token",
                      "command-password", "home-path", "basic-auth", "bearer-token"})
MESSAGE = ("credential in the commit message: {kinds} (every clone fetches the message with the commit: rewrite the "
           "history before pushing: {how}, then reword commit {commit})")


def _scan_messages(root: Path, commits: Sequence[tuple[str, str]], scanner: ConservativeScanner) -> list[Finding]:
    """A finding for each line of a commit message sent (``_history``) holding a credential of a
    known format (``_GUESSED`` left out), named ``commit SHA:LINE`` (line 1 its subject): a token pasted into a
    message is pushed with it, and no file gate reads messages. Each commit object is read
    once, through one ``git cat-file --batch``."""
    import bisect

    found = []
    reader = CommittedFiles(root, ())
    try:
        for commit, parents in commits:
            body = reader.read(commit).partition(b"\n\n")[2]
            message = body.decode("utf-8", "replace")
            hits = [hit for hit in scanner.redacted_hits(message) if set(hit.kinds) - _GUESSED]
            if not hits:
                continue
            starts = [0] + [n + 1 for n, character in enumerate(message) if character == "\n"]
            by_line: dict[int, set[str]] = {}
            for hit in hits:
                by_line.setdefault(bisect.bisect_right(starts, hit.start), set()).update(set(hit.kinds) - _GUESSED)
            how = f"git rebase -i {commit[:12]}^" if parents else "git rebase -i --root"
            found += [Finding(f"commit {commit[:12]}", line,
                              MESSAGE.format(kinds=", ".join(sorted(kinds)), how=how, commit=commit[:12]))
                      for line, kinds in sorted(by_line.items())]
    finally:
        reader.close()
    return found

def _history_allowlist(root: Path) -> tuple[Allowlist, str]:
    """The allow list that clears a secret in a blob only the history the change sends holds,
    and how its findings name it: the list of what the change is judged against (the range's
    base), a line without a pin clearing the text the base's file holds on that line, since that
    history was reviewed, is on the remote already, and a later commit of the change cannot
    amend what an earlier one holds; with nothing to judge against (the first push of a whole
    history), the change's own list."""
    from gitstore.safety.files import Allowlist, Base

    base = _judged_against(root)
    if base is None:
        return _anywhere(_allowlist(root)), ""
    revision, called = base
    if not revision:
        return Allowlist(), called
    at_base = _allowlist_at(root, revision)
    return _anywhere(at_base._replace(base=Base.of(_texts_at(root, revision,
                                                             sorted({p for p, _, _ in at_base.entries}))))), called


def _anywhere(allow: Allowlist) -> Allowlist:
    """The list with each pinned value cleared on any line of its file: the versions of a file a
    history holds put a value on the line each one did, and none of them can be renumbered, so
    the one pinned line a finding prints clears the value in every version (the same value, in
    the same file: nothing another line could hold that the pin does not name)."""
    return allow._replace(anywhere=frozenset((path, kind, digest) for path, kind, _, digest in allow.pinned))


REWRITE = ("removing it in a later commit leaves it in what is pushed, which every clone fetches: rewrite the history "
           "before pushing: {how}, then drop or edit commit {commit}")
_HISTORY_KINDS = ("secret or private path:", "quarantine:", "link target: secret", "link target: quarantine")


def _scan_history(items: Sequence[str], root: Path, scanner: ConservativeScanner,
                  agents_read: Callable[[str], bool], called: str) -> list[tuple[list[str], str, Finding]]:
    """The findings in the blobs of ``_history``, read through one ``git cat-file --batch``, each
    named by the commit that added it: secrets in any text file (a credential pushed leaks to
    whoever reads the history), what the scanner quarantines by the rules of the tip. What only
    the tip's checkout concerns (a Git LFS pointer, a document its reader cannot load) is the
    tip's finding. Each comes with what it names (``_named_values``) and its commit, for ``_once``."""
    from gitstore.safety.files import NOT_ALLOWED

    rows: list[tuple[list[str], str, Finding]] = []
    reader = CommittedFiles(root, ())
    try:
        for item in items:
            oid, mode, commit, parents, rel = item.split("\t", 4)
            committed = _blob_text(rel, mode, oid, agents_read, reader.read)
            if committed is None:
                continue
            how = f"git rebase -i {commit[:12]}^" if parents else "git rebase -i --root"
            rewrite = REWRITE.format(how=how, commit=commit[:12])
            advice = _HistoryAdvice(rewrite, called)
            lines: list[str] = []  # the blob's lines, split once, for a quarantine's (one finding per line)
            for failing, finding in _scan_text(rel, rel, committed, scanner, agents_read, advice):
                if not failing or not finding.message.startswith(_HISTORY_KINDS):
                    continue
                message = finding.message.replace(f"({NOT_ALLOWED})", f"({rewrite}; it {NOT_ALLOWED})")
                rows.append((_named_values(rel, committed[0], finding, lines), commit, finding._replace(
                    message=f"in commit {commit[:12]}, which the push sends though its tip no longer holds this: "
                            f"{message}")))
    finally:
        reader.close()
    return rows


def _local_history(items: Sequence[str]) -> list[Finding]:
    """A finding for each blob of ``_history`` under ``okf/.memory/`` (``is_local_state``): a
    commit of the push added this clone's local state, which a later commit's ``git rm --cached``
    leaves in what every clone fetches."""
    found = []
    for item in items:
        _, _, commit, parents, rel = item.split("\t", 4)
        if is_local_state(rel):
            how = f"git rebase -i {commit[:12]}^" if parents else "git rebase -i --root"
            fix = REWRITE.format(how=how, commit=commit[:12])
            found.append(Finding(rel, 1, f"in commit {commit[:12]}, which the push sends though its tip no longer "
                                         f"holds this: {LOCAL.format(what='this file', fix=fix)}"))
    return found


def _named_values(rel: str, text: str, finding: Finding, lines: list[str]) -> list[str]:
    """What a finding in a blob of the history names, the same in every version of the file that
    holds it: each value its pinned lines name (path, kind and digest, as ``_anywhere`` clears
    them), else (a quarantine, which no line clears) the text of its line, ``lines`` holding the
    blob's, split at the first such finding."""
    values = [f"{rel}\0{kind}\0{digest}" for kind, digest in
              re.findall(re.escape(rel) + r":([a-z0-9-]+):[0-9]+ (sha256=[0-9a-f]{16})", finding.message)]
    if values:
        return values
    if not lines:
        lines.extend(text.split("\n"))
    from gitstore.safety.files import pin

    said = finding.message.split(" (", 1)[0]
    return [f"{rel}\0{said}\0line {pin(lines[finding.line - 1] if 0 < finding.line <= len(lines) else '')}"]


def _once(rows: Sequence[tuple[list[str], str, Finding]]) -> list[Finding]:
    """The history's findings, each value once (``_named_values``): at the first version that
    holds it (``_history`` lists the oldest first), saying how many more lines and later versions
    of the file the push sends hold it too. A file rewritten in many commits holds a test's
    password in each version, on lines that move: one finding each made a first push of a long
    history print dozens for a few values. A finding naming a value not named before stays,
    whatever else it names: no distinct value is hidden."""
    kept: list[tuple[Finding, str, list[str], bool]] = []
    first: dict[str, int] = {}  # value -> the finding kept for it
    for values, commit, finding in rows:
        for at in {first[value] for value in values if value in first}:
            kept[at][2].append(commit)
        if values and all(value in first for value in values):
            continue
        for value in values:
            first.setdefault(value, len(kept))
        kept.append((finding, commit, [], bool(values) and all("\0sha256=" in value for value in values)))
    found = []
    for finding, commit, again, pinned in kept:
        if again:
            lines = again.count(commit)
            later = list(dict.fromkeys(c for c in again if c != commit))
            where = " and ".join(filter(None, (
                f"on {lines} more line{'s' if lines > 1 else ''} of this version" if lines else "",
                f"in {len(later)} later version{'s' if len(later) > 1 else ''} of the file, the last in commit "
                f"{later[-1][:12]}" if later else "")))
            clears = ": the same pinned line clears it there" if pinned else ""
            finding = finding._replace(message=f"{finding.message} (held again {where}, which the push sends "
                                               f"too{clears})")
        found.append(finding)
    return found


# what .gitattributes may say that has a checkout write a file otherwise than git holds it: a
# filter's smudge (Git LFS, git-crypt, any driver a clone configures) and a re-encoding
# (``working-tree-encoding=ASCII//TRANSLIT`` writes ``é`` as ``e``, ``‹`` as ``<``, ``⁶`` as ``6``)
_REWRITING = ("filter", "working-tree-encoding")
REWRITTEN = ("{attribute}={value} in .gitattributes: a checkout writes this file otherwise than git holds it, and "
             "the gates read only what git holds, so agents would read what no gate judged; keep files agents read "
             "free of filter and working-tree-encoding")


def _rewritten(root: Path, files: Sequence[str], agents_read: Callable[[str], bool]) -> list[Finding]:
    """The files agents read that ``.gitattributes``, as the change holds it, has a checkout
    write otherwise than git holds them (``_REWRITING``): every gate reads the bytes git holds.
    A change to a ``.gitattributes`` reaches files it does not change, so then every file
    agents read in the change is asked about."""
    rels = [rel for rel in (relative(name, root) for name in files)
            if not rel.startswith(("/", "../"))]  # a file outside the repository: no checkout writes it
    if any(basename(rel) == ".gitattributes" for rel in rels):
        rels = _every_file(root)
    paths = sorted({rel for rel in rels if agents_read(rel)})
    if not paths:
        return []
    return [Finding(path, 1, REWRITTEN.format(attribute=attribute, value=value))
            for path, attribute, value in _attributes(root, paths) if value not in ("unspecified", "unset", "set")]


def _every_file(root: Path) -> list[str]:
    """Every file the change holds: the range's tip, the index being committed (by hand, the index)."""
    tip = CommittedFiles.tip()
    done = git("ls-tree", "-r", "-z", "--name-only", "--full-tree", tip, cwd=root, check=False) if tip else \
        git("ls-files", "-z", cwd=root, keep_index=True, check=False)
    return [path.decode("utf-8", "surrogateescape") for path in done.stdout.split(b"\0") if path]


def _attributes(root: Path, paths: Sequence[str]) -> list[tuple[str, str, str]]:
    """(path, attribute, value) of ``_REWRITING`` for each path, as git says with the
    ``.gitattributes`` of the change: at a commit the index being committed's, over a range the
    tip's (read into an index of its own, which ``check-attr --cached`` reads), by hand the work
    tree's."""
    import subprocess
    import tempfile

    from gitstore.promote._git import git_env

    data = b"".join(path.encode("utf-8", "surrogateescape") + b"\0" for path in paths)
    command = ["git", "check-attr", "-z", "--stdin", *(["--cached"] if CommittedFiles.in_a_hook() else []),
               *_REWRITING]
    env = git_env()
    tip = CommittedFiles.tip()
    with tempfile.TemporaryDirectory(prefix="gitstore-attributes-") as folder:
        if tip:
            env["GIT_INDEX_FILE"] = os.path.join(folder, "index")
            subprocess.run(["git", "read-tree", tip], cwd=root, env=env, capture_output=True, check=True)
        elif "GIT_INDEX_FILE" in os.environ:
            env["GIT_INDEX_FILE"] = os.environ["GIT_INDEX_FILE"]
        done = subprocess.run(command, cwd=root, env=env, input=data, capture_output=True, check=False)
    if done.returncode != 0:  # run by hand outside a repository: no checkout writes anything
        return []
    parts = [part.decode("utf-8", "surrogateescape") for part in done.stdout.split(b"\0")]
    return [(parts[i], parts[i + 1], parts[i + 2]) for i in range(0, len(parts) - 2, 3)]


_REMOVE_OR_LIST = "remove it, or list {entries} in .gitstore-allow"


class _Advice:
    """What a secret's finding tells to do: remove it, or list the exact line that pins its value
    (``_REMOVE_OR_LIST``, the lines ``pins`` gives); for one that a line only the change's own
    ``.gitstore-allow`` holds would clear, why that line clears nothing (``own``: those lines),
    for one on a line the list of what the change is judged against (``base``) names, that the
    line allows another value there (``kept``: the lines both hold), and for a value that list
    pins on another line of the file, that its line may move with it (``at_base``)."""

    def __init__(self, own: Allowlist | None = None, kept: Allowlist | None = None, base: str = "",
                 at_base: Allowlist | None = None) -> None:
        self.own, self.kept = (frozenset() if held is None else held.entries | {entry[:3] for entry in held.pinned}
                               for held in (own, kept))
        self.values = frozenset() if at_base is None else {(p, k, d) for p, k, _, d in at_base.pinned}
        self.base = base

    def __call__(self, rel: str, kinds: Sequence[str], first: int, last: int | None = None,
                 pins: Sequence[str] = ()) -> str:
        lines = range(first, (last or first) + 1)
        entries = " and ".join(pins) or "PATH:KIND:LINE sha256=DIGEST"
        if pins and self.values and all(_pinned_value(pin) in self.values for pin in pins):
            return (f"the .gitstore-allow of {self.base} pins this value on another line of this file: move that "
                    f"line to {entries} in this change, or remove the secret")
        if any((rel, kind, line) in self.own for kind in kinds for line in lines):
            return (f"its line in .gitstore-allow is the change's own, and a change's own lines clear none of its "
                    f"findings: merge {entries} on its own first, so that the .gitstore-allow of {self.base} holds "
                    "it, or remove the secret")
        if any((rel, kind, line) in self.kept for kind in kinds for line in lines):
            return (f"the .gitstore-allow of {self.base} allows another value on this line, not this one: to allow "
                    f"it, list {entries} there first, merged on its own, or remove the secret")
        if self.base:
            return f"remove it, or list {entries} in the .gitstore-allow of {self.base}, merged on its own first"
        return _REMOVE_OR_LIST.format(entries=entries)


def _pinned_value(pin: str) -> tuple[str, str, str]:
    """(path, kind, digest) of a pinned line ``_pins`` made (``PATH:KIND:LINE sha256=DIGEST``)."""
    named, _, digest = pin.rpartition(" ")
    path, _, kind = named.rpartition(":")[0].rpartition(":")
    return path, kind, digest


class _HistoryAdvice(_Advice):
    """What a secret's finding in a blob only the history holds tells to do: rewrite that history,
    or list the pinned line in the base's ``.gitstore-allow``, merged on its own first."""

    def __init__(self, rewrite: str, base: str) -> None:
        super().__init__(base=base)
        self.rewrite = rewrite

    def __call__(self, rel: str, kinds: Sequence[str], first: int, last: int | None = None,
                 pins: Sequence[str] = ()) -> str:
        entries = " and ".join(pins) or "PATH:KIND:LINE sha256=DIGEST"
        where = f"the .gitstore-allow of {self.base}, merged on its own first" if self.base else ".gitstore-allow"
        return f"{self.rewrite}, or list {entries} in {where}"


def _allowlists(root: Path) -> tuple[Allowlist, _Advice]:
    """The allow list that clears the change's secrets, and the advice its findings give. A line
    clears a finding only where both the change and what it is judged against hold it (the
    commit it is made on at a commit, the range's base at pre-push and in CI): a branch that
    adds a credential and the line allowing it in one change would otherwise clear its own
    secret, so a line is merged on its own first, a reviewed change, as a ``submodule: PATH``
    line is (the promotion gate reads those from the base alone). A line the change drops clears
    nothing at once. A line pinned to a value (`` sha256=``) clears that value alone; one that
    pins none clears only the text the base's file holds starting on that line (``Base``): a
    branch that puts a real credential on a line allowed for a test token, or shifts one onto
    it, loses the allowance, and its finding names the pinned line to merge first. A pinned line
    may move with its value, in the change itself, where the base's list pins that value in that
    file on another line: lines inserted above a pinned test token only renumber its line. With nothing
    to judge against (a repository's first commit, the first push of a whole history) the
    change's own list stands: all of it is its author's."""
    from gitstore.safety.files import Allowlist, Base

    own = _allowlist(root)
    base = _judged_against(root)
    if base is None:
        return own, _Advice()
    revision, called = base
    at_base = _allowlist_at(root, revision) if revision else Allowlist()
    values = {(path, kind, digest) for path, kind, _, digest in at_base.pinned}  # allowed in that file already
    kept = own._replace(entries=own.entries & at_base.entries,
                        pinned=frozenset(entry for entry in own.pinned if (entry[0], entry[1], entry[3]) in values))
    kept = kept._replace(base=Base.of(_texts_at(root, revision, sorted({path for path, _, _ in kept.entries}))))
    mine = Allowlist(own.entries - kept.entries, pinned=own.pinned - kept.pinned)
    return kept, _Advice(mine, kept, called, at_base)


_NAMED_PATHS = 256  # paths named to ``git ls-tree`` at most; more, and the whole tree is listed


def _texts_at(root: Path, revision: str | None, paths: Sequence[str]) -> dict[str, str | None]:
    """The text each file of PATHS holds at REVISION, read as the gate reads a file the change
    holds (``_in_git``: a symbolic link's target, else ``_text``); None for one it does not hold.
    Many paths are found in a listing of the whole tree: named one by one they would overflow
    the command line of ``git ls-tree``."""
    found: dict[str, str | None] = dict.fromkeys(paths)
    named = list(paths) if len(paths) <= _NAMED_PATHS else None
    held = (entries(root, revision, named) or {}) if revision and paths else {}
    held = {path: entry for path, entry in held.items() if path in found and entry[0] in ("100644", "100755", "120000")}
    data = blobs(root, sorted({oid for _, oid in held.values()}))
    for path, (mode, oid) in held.items():
        found[path] = data[oid].decode("utf-8", "replace") if mode == "120000" else _text(data[oid])
    return found


def _judged_against(root: Path) -> tuple[str | None, str] | None:
    """(revision, how a finding names it) of what the change is judged against: the range's
    start over a range (pre-push, CI), HEAD at a commit; None when there is none (a first
    commit, a push of a whole history). A range's start this clone does not hold (a shallow
    checkout) is no revision: its list clears nothing."""
    span = range_of_change()
    if span is None and (CommittedFiles.tip() is not None or "GIT_INDEX_FILE" not in os.environ):
        return None
    start = span[0] if span is not None else "HEAD"
    done = git("rev-parse", "--verify", "--quiet", f"{start}^{{commit}}", cwd=root, check=False)
    revision = done.stdout.decode().strip() if done.returncode == 0 else None
    if span is None:
        return (revision, "the commit it is made on (HEAD)") if revision else None
    return revision, f"the range's base ({(revision or start)[:12]})"


def _allowlist_at(root: Path, revision: str) -> Allowlist:
    """The ``.gitstore-allow`` a commit holds (empty: none, a link, or one that cannot be read,
    which then clears nothing)."""
    from gitstore.errors import InvalidInput
    from gitstore.safety.files import FILE_NAME, Allowlist

    entry = (entries(root, revision, [FILE_NAME]) or {}).get(FILE_NAME)
    if entry is None or entry[0] not in ("100644", "100755"):
        return Allowlist()
    try:
        return Allowlist.parse(blobs(root, [entry[1]])[entry[1]].decode("utf-8"), FILE_NAME)
    except (UnicodeDecodeError, InvalidInput):
        return Allowlist()


def _allowlist(root: Path) -> Allowlist:
    """The ``.gitstore-allow`` as the change holds it (the index being committed, the range's
    tip), never the work tree's: a list the change does not hold (left untracked, ignored, or
    edited and not staged) is in no clone and clears nothing it commits or pushes. A link there
    is no list: git holds only the path it leads to."""
    from gitstore.errors import InvalidInput
    from gitstore.safety.files import FILE_NAME, Allowlist

    held = CommittedFiles(root, [FILE_NAME])
    try:
        entry = held.entry(FILE_NAME)
        if entry is None or entry[0] not in ("100644", "100755"):
            return Allowlist()
        data = held.read(entry[1])
    finally:
        held.close()
    try:
        return Allowlist.parse(data.decode("utf-8"), FILE_NAME)
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{FILE_NAME}: not UTF-8 text (byte {exc.start})") from None


def _scan(files: Sequence[str], root: Path, scanner: ConservativeScanner,
          agents_read: Callable[[str], bool], advice: _Advice) -> list[tuple[bool, Finding]]:
    """(whether it fails, the finding) for each finding in the files, as the change holds them
    (``CommittedFiles``: at pre-push the range's tip, at a commit the index; by hand the work tree)."""
    rows: list[tuple[bool, Finding]] = []
    held = CommittedFiles(root, [relative(name, root) for name in files])
    try:
        for name in files:
            rows += _scan_one(name, root, scanner, agents_read, held, advice)
    finally:
        held.close()
    return rows


def _scan_one(name: str, root: Path, scanner: ConservativeScanner, agents_read: Callable[[str], bool],
              held: CommittedFiles, advice: _Advice) -> list[tuple[bool, Finding]]:
    rel = relative(name, root)
    named = _local_state(name, rel, held) + _named(name, rel, scanner, held)
    try:
        committed = _committed(name, rel, agents_read) if held.held is None else _in_git(rel, agents_read, held)
    except _NotAFile as exc:  # a FIFO, a device: never read (a FIFO would block), never committed
        return [(True, Finding(name, 1, str(exc)))]
    if committed is None:
        return named
    return named + _scan_text(name, rel, committed, scanner, agents_read, advice)


# this clone's own state, git-ignored by ``gitstore init`` (``gitstore.config.STATE_DIR``, which
# loads pygit2: the gates do not): a commit of it publishes this machine's personal memory
LOCAL_STATE = "okf/.memory"
LOCAL = ("{what} is personal memory of this machine (okf/.memory/ holds the delivery ledger of what agents were "
         "given, this clone's configuration and caches), never committed whatever .gitignore says: "
         "{fix}, and keep the folder ignored (no !/okf/.memory/ rule in a .gitignore)")
UNSTAGE = "git rm -r --cached okf/.memory"


def is_local_state(rel: str) -> bool:
    """Whether ``rel`` (from the repository's root) is ``okf/.memory/`` or lies in it, in any
    case (a checkout that ignores case writes ``OKF/.Memory/x`` into the clone's own folder)."""
    folded = rel.casefold()
    return folded == LOCAL_STATE or folded.startswith(LOCAL_STATE + "/")


def _local_state(name: str, rel: str, held: CommittedFiles) -> list[tuple[bool, Finding]]:
    """A finding when the change holds a file under ``okf/.memory/`` (``LOCAL_STATE``): a
    ``.gitignore`` un-ignoring the folder (``!/okf/.memory/``) or a ``git add -f`` has ``git add``
    stage it, and a push would send it. By hand, a file the work tree holds there is one."""
    if not is_local_state(rel):
        return []
    if held.held is None and not os.path.lexists(name) or held.held is not None and held.entry(rel) is None:
        return []
    return [(True, Finding(name, 1, LOCAL.format(what="this file", fix=UNSTAGE)))]


_SEPARATORS = re.compile(r"[-_./\\]+")
NAMED = ("the path names {kinds} (quarantined text never reaches an agent, and agents read the names of the files "
         "they load: a skill's folder is its name, a page's name its link): rename it")


def _named(name: str, rel: str, scanner: ConservativeScanner, held: CommittedFiles) -> list[tuple[bool, Finding]]:
    """A finding when the path of a file agents load (``_published.loaded_by_agents``: a page of
    the wiki, a file of a skill, a rule file) holds what the scanner quarantines, read as words
    (``-``, ``_``, ``.`` and ``/`` as spaces): a harness hands an agent a skill's name, which is
    its folder's (``ignore-all-previous-instructions-and-...``), and an index or a listing hands
    it a page's or a file's name, where a bidirectional control reorders what follows. Only the
    paths the change holds are read."""
    from gitstore.promote.gates._published import loaded_by_agents
    from gitstore.safety.scanner import QUARANTINE

    if rel.startswith(("/", "../")) or not loaded_by_agents(rel):
        return []
    if held.held is None and not os.path.lexists(name) or held.held is not None and held.entry(rel) is None:
        return []
    kinds = sorted({f.kind for f in scanner.scan(_SEPARATORS.sub(" ", rel)).findings if f.action == QUARANTINE})
    return [(True, Finding(name, 1, NAMED.format(kinds=", ".join(kinds))))] if kinds else []


def _scan_text(name: str, rel: str, committed: tuple[str, bool], scanner: ConservativeScanner,
               agents_read: Callable[[str], bool], advice: _Advice) -> list[tuple[bool, Finding]]:
    """The findings in the text of the file ``name`` as the change holds it (``committed``: the
    text, and whether it is a symbolic link's target)."""
    from gitstore.safety.scanner import QUARANTINE, REDACT

    text, link = committed
    if not link and _LFS_POINTER.match(text) and agents_read(rel):
        return [(True, Finding(name, 1, LFS_POINTER))]
    result = scanner.scan(text, path=rel, read_by_agents=lambda: agents_read(rel))
    rows = [] if link else _decoded_rows(name, rel, text, scanner, agents_read, advice)
    if not result.findings:
        return rows
    quarantined = sorted({f.kind for f in result.findings if f.action == QUARANTINE})
    redacted = sorted({f.kind for f in result.findings if f.action == REDACT})
    found: list[tuple[bool, Finding]] = []
    if quarantined:
        found += [(True, f) for f in _quarantined(name, text, scanner, quarantined)]
    if redacted:
        hits = scanner.redacted_hits(text, path=rel, read_by_agents=lambda: agents_read(rel))
        found += [(True, f) for f in _redacted(name, rel, text, hits, scanner, redacted, advice)]
    found += [(False, Finding(name, 1, f"warning: {f.kind} x{f.count}"))
              for f in result.findings if f.action not in (QUARANTINE, REDACT)]
    if link:  # what was found is in the target's name, not in the file it leads to
        found = [(failing, f._replace(message=f"link target: {f.message}")) for failing, f in found]
    return rows + found


def _in_git(rel: str, agents_read: Callable[[str], bool], held: CommittedFiles) -> tuple[str, bool] | None:
    """As ``_committed``, for the file as the change holds it in git (``held``): None when the
    change does not hold it (nothing of it is committed or pushed) or holds no file there (a
    submodule, a folder). A symbolic link's text is the target git holds for it."""
    entry = held.entry(rel)
    if entry is None or entry[0] not in ("100644", "100755", "120000"):
        return None
    return _blob_text(rel, *entry, agents_read, held.read)


def _blob_text(rel: str, mode: str, oid: str, agents_read: Callable[[str], bool],
               read: Callable[[str], bytes]) -> tuple[str, bool] | None:
    """As ``_in_git``, for the blob ``oid`` held at ``rel`` with git's ``mode``, read with ``read``."""
    link = mode == "120000"
    named = None if link else _named_as(rel)
    if named == "binary":  # an image, an archive: never read, however large
        return None
    data = read(oid)
    if link:
        return data.decode("utf-8", "replace"), link
    if named != "text" and not _read_as_text(rel, data, agents_read):
        return None
    return _text(data), link


class _NotAFile(Exception):
    """The path is neither a regular file, a symbolic link nor a folder (``_committed``)."""


_KINDS = ((stat.S_ISFIFO, "is a FIFO"), (stat.S_ISSOCK, "is a socket"), (stat.S_ISCHR, "is a character device"),
          (stat.S_ISBLK, "is a block device"))


def _committed(name: str, rel: str, agents_read: Callable[[str], bool]) -> tuple[str, bool] | None:
    """(the text git commits for the file, whether it is a symbolic link), or None when it
    cannot be read or is no text to read (``_read_as_text``). For a symbolic link git commits
    its target, so that string is the text: the link is never followed. A FIFO, a socket or a
    device is ``_NotAFile``, told by ``fstat`` without waiting: opened without blocking, a FIFO
    nothing writes to is never waited on, and git commits none of them."""
    try:
        descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # a symbolic link refuses O_NOFOLLOW; anything else is gone or unreadable
        try:
            data, link = os.readlink(os.fsencode(name)), True
        except OSError:
            return None
    else:
        named = _named_as(rel)
        try:
            mode = os.fstat(descriptor).st_mode
            if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):  # a folder fails the read below, as before
                kind = next((said for test, said in _KINDS if test(mode)), "is no regular file")
                raise _NotAFile(f"{kind}, not a regular file: git commits none, and the gate never reads one")
            os.set_blocking(descriptor, True)
        except BaseException:
            os.close(descriptor)
            raise
        try:
            with open(descriptor, "rb") as file:
                if named == "binary":  # an image, an archive: never read, however large
                    return None
                data, link = file.read(), False
        except OSError:  # a folder, say
            return None
        if named != "text" and not _read_as_text(rel, data, agents_read):
            return None
        return _text(data), link
    return data.decode("utf-8", "replace"), link  # a byte that is no UTF-8 hides nothing around it


@functools.lru_cache(maxsize=1024)
def _named_as_by(name: str) -> str | None:
    from identify.identify import tags_from_filename

    tags = tags_from_filename(name)
    return "text" if "text" in tags else "binary" if "binary" in tags else None


def _named_as(rel: str) -> str | None:
    """"text" or "binary" when the file's name says which (as pre-commit reads it: ``identify``
    knows ``.md`` for text and ``.png`` for binary), else None (``GUIDE``, ``.mdc``). identify
    decides by a name it knows (``Dockerfile``, ``Makefile.in``) else by the extension, so a name
    it does not know is asked by its extension alone: a wiki's thousand pages are one question."""
    from identify.extensions import NAMES

    name = rel.rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    known = name in NAMES or any(part in NAMES for part in name.split("."))
    return _named_as_by(name if known or not dot or not stem else f"x.{extension}")


# byte order marks and what they say, UTF-32's first (its little-endian mark begins as UTF-16's)
_BOMS = ((b"\xff\xfe\0\0", "utf-32-le"), (b"\0\0\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"),
         (b"\xfe\xff", "utf-16-be"))


def _text(data: bytes) -> str:
    """The file's text as a reader takes it: UTF-16 or UTF-32 after its byte order mark (editors
    on Windows write it, agents read it decoded), else UTF-8, a byte that is no UTF-8 read as
    U+FFFD (it hides nothing around it)."""
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            return data[len(mark):].decode(encoding, "replace")
    return data.decode("utf-8", "replace")


def _read_as_text(rel: str, data: bytes, agents_read: Callable[[str], bool]) -> bool:
    """Whether the gate scans a file whose name says neither text nor binary: what pre-commit
    takes for text, and any file agents read (a memory file's import too), whatever its bytes (a
    NUL byte there is a finding, UTF-16 is read decoded), but for one that is binary by its bytes
    and not named as text (an asset of a skill). Elsewhere a file pre-commit takes for binary
    stays unread: a repository's data files (model weights, pickles) hold NUL bytes and no
    format's beginning the gate knows, and no agent is handed them."""
    from identify.identify import is_text

    if is_text(io.BytesIO(data)):
        return True
    return agents_read(rel) and (_named_as_text_by_agents(rel) or not _binary(data))


def _named_as_text_by_agents(rel: str) -> bool:
    """Whether agents read the file as text by its name: a rule file, ``SKILL.md``, ``*.mdc``."""
    from gitstore.promote.gates._published import read_by_agents

    return read_by_agents(rel) or basename(rel) == SKILL or rel.endswith(_TEXT_SUFFIXES)


def _binary(data: bytes) -> bool:
    """Whether the bytes are a binary format's: they begin as one does (``_BINARY_STARTS``, or
    ISO media's ``ftyp`` box, or a tar header) and read as one, a tenth or more of their first
    64 KiB being control characters or bytes that are no UTF-8. A binary beginning put before
    text (``\\x7fELF`` and instructions) hides nothing: the text is read."""
    if not (data.startswith(_BINARY_STARTS) or data[4:8] == b"ftyp" or data[257:262] == b"ustar"):
        return False
    sample = data[:_SAMPLE].decode("utf-8", "replace")
    return len(_NOT_TEXT.findall(sample)) * 10 >= len(sample)


def _reader(root: Path, files: Sequence[str]) -> Callable[[str], bool]:
    """Whether agents read a file (``rel`` from the repository's root): a file they read by
    themselves, one of the wiki, or one of a skill. A skill is its whole folder, wherever that
    is: the folders holding a ``SKILL.md`` are read from the index (the commit being made) once,
    and only for a file pre-commit would take for binary."""
    passed = {dirname(relative(name, root)) for name in files if basename(name) == SKILL}
    found: list[set[str]] = []

    def in_a_skill(rel: str) -> bool:
        if not found:
            found.append(passed | _skill_folders(root))
        folder = dirname(rel)
        while folder and folder != "/":  # a file outside the repository is named from the root
            if folder in found[0]:
                return True
            folder = dirname(folder)
        return "" in found[0]

    imports: list[set[str]] = []

    def imported(rel: str) -> bool:
        if not imports:
            imports.append(_imported(root, {relative(name, root) for name in files}))
        return rel in imports[0]

    def agents_read(rel: str) -> bool:
        # loaded at the first file pre-commit would not take for text: they read the store's rules
        from gitstore.promote.gates._published import loaded_by_agents

        return loaded_by_agents(rel) or basename(rel) == SKILL or in_a_skill(rel) or imported(rel)

    return agents_read


IMPORT_HOPS = 5  # how deep Claude Code follows imports: a file a memory file imports, and so on, five deep
_IMPORT = re.compile(r"(?:^|(?<=\s))@([^\s]+)")  # ``@docs/notes.md``, at a line's start or after a space
_READ_AT_MOST = 1 << 20  # bytes of a file read for its imports (a memory file is a page or two)


def _imported(root: Path, passed: set[str]) -> set[str]:
    """The files the memory files agents read by themselves (``CLAUDE.md``, ``AGENTS.md``,
    ``GEMINI.md``, ... as the change holds them, and those passed) import with ``@path``, and
    the files those import, ``IMPORT_HOPS`` deep: Claude Code and Gemini CLI read each into the
    memory file, as text. A path is taken relative to the importing file's folder and must stay
    in the repository (``~`` and absolute paths name no file of it); an import in a code span is
    counted too (a file counted that agents do not read is only scanned more closely)."""
    from gitstore.promote.gates._published import PATHSPECS, read_by_agents

    tip = CommittedFiles.tip()
    if tip:
        done = git("ls-tree", "-r", "-z", "--name-only", "--full-tree", tip, cwd=root, check=False)
    else:
        done = git("ls-files", "-z", "--", *PATHSPECS, cwd=root, keep_index=True, check=False)
    listed = {path.decode("utf-8", "surrogateescape") for path in done.stdout.split(b"\0") if path}
    frontier = {path for path in listed | passed if read_by_agents(path)}
    found: set[str] = set()
    links = _Links(root)
    for _ in range(IMPORT_HOPS):
        targets: set[str] = set()
        for path, data in _memory_files(root, sorted(frontier)):
            for match in _IMPORT.finditer(_text(data)):
                for named in _import_paths(path, match.group(1)):
                    targets.add(named)
                    if (reached := links.followed(named)) is not None:
                        targets.add(reached)
        frontier = targets - found - frontier
        found |= targets
        if not frontier:
            break
    return found


def _import_paths(importer: str, written: str) -> set[str]:
    """The repository's paths an ``@`` import written so in ``importer`` may name: as written,
    and without the punctuation a sentence puts after it."""
    paths = set()
    for candidate in {written, written.rstrip(".,;:!?)]}>'\"*_`")}:
        if not candidate or candidate.startswith(("~", "/")):
            continue
        path = posixpath.normpath(posixpath.join(dirname(importer), candidate))
        if path != "." and path != ".." and not path.startswith("../"):
            paths.add(path)
    return paths


_LINK_HOPS = 40  # symbolic links followed in one path at most, as the kernel follows them (ELOOP)


class _Links:
    """The symbolic links of the change, for the path an import reaches through them: Claude
    Code opens ``@docs/notes`` as the file system does, so a link there (or a linked folder on
    the way) hands the agent the file it leads to, which is then a file agents read. A link
    leading out of the repository (an absolute target, or ``..`` past its root) reaches none of
    its files. Listed once, at the first import, as the change holds them (``CommittedFiles``;
    by hand, the work tree's)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._targets: dict[str, str] | None = None

    def _target(self, path: str) -> str | None:
        if not CommittedFiles.in_a_hook():
            try:
                return os.readlink(self.root / path)
            except (OSError, ValueError):  # no link, gone, a NUL in the path
                return None
        if self._targets is None:
            listed = entries(self.root, CommittedFiles.tip(), None, keep_index=True) or {}
            held = CommittedFiles(self.root, ())
            try:
                self._targets = {name: held.read(oid).decode("utf-8", "surrogateescape")
                                 for name, (mode, oid) in listed.items() if mode == "120000"}
            finally:
                held.close()
        return self._targets.get(path)

    def followed(self, path: str) -> str | None:
        """The repository path ``path`` reaches through the links on it, when one is on it and
        it stays in the repository; else None."""
        parts, done, hops = path.split("/"), 0, 0
        while done < len(parts):
            here = "/".join(parts[:done + 1])
            target = self._target(here)
            if target is None:
                done += 1
                continue
            hops += 1
            if hops > _LINK_HOPS or target.startswith("/"):
                return None
            reached = posixpath.normpath(posixpath.join(dirname(here), target))
            if reached == ".." or reached.startswith("../"):
                return None
            parts = [part for part in reached.split("/") if part not in ("", ".")] + parts[done + 1:]
            done = 0
        return "/".join(parts) if hops and parts else None


def _memory_files(root: Path, paths: list[str]) -> list[tuple[str, bytes]]:
    """(path, its first ``_READ_AT_MOST`` bytes) of each of the paths that the change holds as a
    regular file (``CommittedFiles``; by hand, the work tree)."""
    if not paths:
        return []
    held = CommittedFiles(root, paths)
    out = []
    try:
        for path in paths:
            if held.held is None:
                try:  # never waiting on a FIFO (``_committed``): a regular file only
                    descriptor = os.open(root / path, os.O_RDONLY | os.O_NONBLOCK)
                except OSError:  # gone, unreadable
                    continue
                with open(descriptor, "rb") as file:
                    if stat.S_ISREG(os.fstat(descriptor).st_mode):
                        os.set_blocking(descriptor, True)
                        out.append((path, file.read(_READ_AT_MOST)))
            elif (entry := held.entry(path)) is not None and entry[0] in ("100644", "100755"):
                out.append((path, held.read(entry[1])[:_READ_AT_MOST]))
    finally:
        held.close()
    return out


def _skill_folders(root: Path) -> set[str]:
    """The folders that hold a ``SKILL.md`` as the change holds them: in the tree of the range's
    tip at pre-push and over a range (``ls-tree`` takes no glob: every name is read), else in
    the index (the one being committed, at a commit)."""
    tip = CommittedFiles.tip()
    if tip:
        done = git("ls-tree", "-r", "-z", "--name-only", "--full-tree", tip, cwd=root, check=False)
        return {dirname(name) for path in done.stdout.split(b"\0")
                if path and basename(name := path.decode("utf-8", "replace")) == SKILL}
    done = git("ls-files", "-z", "--", f":(glob)**/{SKILL}", cwd=root, keep_index=True, check=False)
    return {dirname(path.decode("utf-8", "replace")) for path in done.stdout.split(b"\0") if path}


def _decoded_rows(name: str, rel: str, text: str, scanner: ConservativeScanner,
                  agents_read: Callable[[str], bool], advice: _Advice) -> list[tuple[bool, Finding]]:
    """The findings in the file's strings as its reader decodes them: a whole JSON, YAML or TOML
    document agents read (by its extension) as its loader reads it, whatever its layout; else
    the front matter a file opens with, after a byte order mark readers strip: YAML (``---``),
    TOML (``+++``) or JSON (``{``). A document that does not parse is scanned as text alone; the
    continual-learning index so is refused (its readers' finding, the gate's own), and so is YAML
    nested deeper than the reader here goes, which other readers take whole."""
    from gitstore.safety.frontmatter import NotParsed, TooDeep, decoded_strings, document_kind, document_strings

    kind = document_kind(rel)
    if kind is not None and agents_read(rel):
        try:
            strings = document_strings(text, kind)
        except TooDeep as exc:
            return [_too_deep(name, exc, "")]
        except NotParsed as exc:
            from gitstore.deliver.clindex import PATH

            if rel.casefold() != PATH.casefold():
                return []
            return [(True, Finding(name, exc.line, f"the continual-learning index is not JSON ({exc}): its "
                                                    "readers cannot take it as the gate scanned it; write it as "
                                                    "JSON, as gitstore publish does"))]
        return _decoded(name, rel, text, scanner, agents_read, advice, strings, f"as {kind} decodes it")
    if text.removeprefix("\ufeff").startswith(("---", "+++", "{")):
        try:
            strings = decoded_strings(text)
        except TooDeep as exc:
            return [_too_deep(name, exc, "front matter ")]
        return _decoded(name, rel, text, scanner, agents_read, advice, strings, "as YAML decodes it",
                        "front matter ")
    return []


def _too_deep(name: str, exc: Exception, what: str) -> tuple[bool, Finding]:
    return (True, Finding(name, getattr(exc, "line", 1),
                          f"{what or 'YAML '}cannot be judged as its readers decode it: {exc}; nest it less"))


def _decoded(name: str, rel: str, text: str, scanner: ConservativeScanner, agents_read: Callable[[str], bool],
             advice: _Advice, strings: list[tuple[int, int, str, str]], how: str, what: str = "") -> list[tuple[bool, Finding]]:
    """The findings in the strings of the file's front matter as YAML decodes them, where that
    is not what the file says verbatim (``gitstore.safety.frontmatter``): a skill loader, ``gitstore
    wiki index`` hand an agent ``"ign\\x6Fre all previous instructions"`` decoded. Each string is
    scanned as the file's text on the line it starts on (so ``.gitstore-allow`` names that line),
    and a finding names its key and line; what the lines it is written on show already is the
    file's own finding."""
    from gitstore.safety.files import NOT_ALLOWED
    from gitstore.safety.scanner import QUARANTINE, REDACT

    def kinds(piece: str, line: int) -> dict[str, set[str]]:
        # Scanned after the two lines before it at most, as blank lines (the piece does not open
        # the file, nor a blank line's paragraph), the rest of them counted for the allow list:
        # padding each piece with all its lines made a file of many strings quadratic to gate.
        pad = min(line - 1, 2)
        found: dict[str, set[str]] = {}
        for f in scanner.scan("\n" * pad + piece, path=rel, read_by_agents=lambda: agents_read(rel),
                              lines_before=line - 1 - pad).findings:
            found.setdefault(f.action, set()).add(f.kind)
        return found

    rows: list[tuple[bool, Finding]] = []
    lines: list[str] = []
    for first, last, where, value in strings:
        found = kinds(value, first)
        if not found:
            continue
        lines = lines or text.split("\n")
        written = kinds("\n".join(lines[first - 1:last]), first)
        said = f"{what}{where!r} {how}"
        for action, here in found.items():
            new = sorted(here - written.get(action, set()))
            if not new:
                continue
            if action == QUARANTINE:
                rows.append((True, Finding(name, first, f"quarantine: {', '.join(new)} in {said} ({NOT_ALLOWED})")))
            elif action == REDACT:
                pad = min(first - 1, 2)
                padded = "\n" * pad + value
                hits = [hit for hit in scanner.redacted_hits(padded, path=rel, read_by_agents=lambda: agents_read(rel),
                                                             lines_before=first - 1 - pad) if set(hit.kinds) & set(new)]
                pins = list(dict.fromkeys(pinned for _, pinned in _pins(rel, padded, hits, first - 1 - pad)))
                rows.append((True, Finding(name, first, f"secret or private path: {', '.join(new)} in {said} "
                                                        f"({advice(rel, new, first, pins=pins)})")))
            else:
                rows.append((False, Finding(name, first, f"warning: {', '.join(new)} in {said}")))
    return rows


def _quarantined(name: str, text: str, scanner: object, kinds: list[str]) -> list[Finding]:
    """One finding per line holding something the scanner quarantines."""
    from gitstore.safety.files import NOT_ALLOWED
    from gitstore.safety.scanner import QUARANTINE

    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        result = scanner.scan(line)  # type: ignore[attr-defined]
        here = sorted({f.kind for f in result.findings if f.action == QUARANTINE} & set(kinds))  # the file's
        if here:
            found.append(Finding(name, number, f"quarantine: {', '.join(here)} ({NOT_ALLOWED})"))
    return found or [Finding(name, 1, f"quarantine: {', '.join(kinds)} ({NOT_ALLOWED})")]


def _pins(rel: str, text: str, hits: Sequence[Hit], lines_before: int = 0) -> list[tuple[int, str]]:
    """(0-based line of TEXT, the ``.gitstore-allow`` line pinning its value) for each of HITS,
    TEXT starting after LINES_BEFORE lines of the file REL (``gitstore.safety.files.entry``)."""
    import bisect

    from gitstore.safety.files import entry

    starts = [0] + [n + 1 for n, character in enumerate(text) if character == "\n"]
    pins = []
    for hit in hits:
        line = bisect.bisect_right(starts, hit.start) - 1
        pins.append((line, entry(rel, hit.kinds[0], line + 1 + lines_before, text[hit.start:hit.end])))
    return pins


def _redacted(name: str, rel: str, text: str, hits: Sequence[Hit], scanner: object,
              kinds: list[str], advice: _Advice) -> list[Finding]:
    """One finding per run of lines the scanner would redact (HITS: where it replaces), naming
    what it found there and the pinned allow list lines that would clear it. A span's lines run
    from its start's to its last character's; spans on the same or adjacent lines make one run,
    as the lines a redaction changes do."""
    import bisect

    from gitstore.safety.scanner import REDACT

    starts = [0] + [n + 1 for n, character in enumerate(text) if character == "\n"]
    old = text.split("\n")
    runs: list[list[int]] = []  # [first, last] lines, 0-based
    for hit in hits:
        start, end = hit.start, hit.end
        first = bisect.bisect_right(starts, start) - 1
        last = max(first, bisect.bisect_right(starts, max(start, end - 1)) - 1)
        if runs and first <= runs[-1][1] + 1:
            runs[-1][1] = max(runs[-1][1], last)
        else:
            runs.append([first, last])
    pins = sorted(_pins(rel, text, hits))  # by line
    found = []
    at = 0
    for first, last in runs:
        piece = "\n".join(old[first:last + 1])
        here = sorted({f.kind for f in scanner.scan(piece).findings if f.action == REDACT} & set(kinds))  # type: ignore[attr-defined]
        listed: list[str] = []
        while at < len(pins) and pins[at][0] <= last:
            if pins[at][1] not in listed:
                listed.append(pins[at][1])
            at += 1
        found.append(Finding(name, first + 1, f"secret or private path: {', '.join(here or kinds)} "
                                              f"({advice(rel, kinds, first + 1, last + 1, listed)})"))
    return found or [Finding(name, 1, f"secret or private path: {', '.join(kinds)}")]


def main(argv: Sequence[str] | None = None) -> int:
    files = files_only(argv)
    if files is None:
        files = parser(PROG, __doc__.splitlines()[0]).parse_args(argv).files

    def gate() -> int:
        root = top_level()
        failing, warnings = check(files_of_change(files, root, PROG), root)
        for warning in warnings:
            print(warning)
        return report(failing)

    from gitstore.promote.gates._pushed import with_others

    return run(PROG, with_others(PROG, gate, __name__))
