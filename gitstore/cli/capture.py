"""``gitstore capture``: what a harness hook does, in the foreground."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from gitstore import _jsontext
from gitstore._shown import one_line
from gitstore.cli._complete import words
from gitstore.capture.hookinput import HookInput, regular_file
from gitstore.capture.sessions import capture as do_capture
from gitstore.cli._capture import MODE_OPTION, print_capture
from gitstore.cli._io import JSON_OPTION
from gitstore.cli._values import checked, one_of
from gitstore.config import capture_mode
from gitstore.context import Context
from gitstore.errors import InvalidInput, Refused
from gitstore.records.vocabulary import HARNESSES


def capture(
    harness: str = typer.Option(..., "--harness", metavar="HARNESS", autocompletion=words(HARNESSES), help=f"One of {', '.join(HARNESSES)}.",
                                 callback=checked(one_of("harness", HARNESSES))),
    mode: Optional[str] = MODE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Read a harness hook's JSON from standard input and capture the session."""
    raw = sys.stdin.buffer.read((1 << 20) + 1)
    if len(raw) > 1 << 20:  # read no further: a hook's input is a few fields, never this much
        raise InvalidInput("hook input on standard input is more than 1 MiB; a hook gives a few fields, not a session")
    try:
        payload = _jsontext.loads(raw or b"{}")
    except ValueError:
        raise InvalidInput("hook input on standard input is not JSON") from None
    if not isinstance(payload, dict):
        raise InvalidInput("hook input must be a JSON object")
    ctx = Context.open()
    hook = HookInput.from_payload(harness, payload, str(Path.cwd()))
    chosen = mode or capture_mode(ctx.workspace)  # a patched capture.mode is refused first, as a hook's is
    if not regular_file(hook.transcript):
        # A hook records such a session as a degraded receipt (it must never fail the agent); a
        # person running this gets told that nothing was captured, as `import transcript` does.
        where = (f"no transcript file at {one_line(str(hook.transcript))}, where the hook input said"
                 if hook.transcript is not None else "the hook input names no transcript file (nor a session whose "
                 f"{harness} transcript is on this machine)")
        raise Refused(f"nothing captured: {where}; import the session with `gitstore import transcript FILE`")
    # a transcript it cannot read stores nothing either: exit 1, as `import transcript` does
    print_capture(do_capture(ctx, hook, chosen, refuse_unread=True), as_json)


def register(app: typer.Typer) -> None:
    app.command()(capture)
