"""``gitstore capture``: what a harness hook does, in the foreground."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from gitstore import _jsontext
from gitstore.cli._complete import words
from gitstore.capture.hookinput import HookInput
from gitstore.capture.sessions import capture as do_capture
from gitstore.cli._capture import MODE_OPTION, print_capture
from gitstore.cli._io import JSON_OPTION
from gitstore.cli._values import checked, one_of
from gitstore.config import capture_mode
from gitstore.context import Context
from gitstore.errors import InvalidInput
from gitstore.records.vocabulary import HARNESSES


def capture(
    harness: str = typer.Option(..., "--harness", metavar="HARNESS", autocompletion=words(HARNESSES), help=f"One of {', '.join(HARNESSES)}.",
                                 callback=checked(one_of("harness", HARNESSES))),
    mode: Optional[str] = MODE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Read a harness hook's JSON from standard input and capture the session."""
    raw = sys.stdin.buffer.read(1 << 20)
    try:
        payload = _jsontext.loads(raw or b"{}")
    except ValueError:
        raise InvalidInput("hook input on standard input is not JSON") from None
    if not isinstance(payload, dict):
        raise InvalidInput("hook input must be a JSON object")
    ctx = Context.open()
    hook = HookInput.from_payload(harness, payload, str(Path.cwd()))
    print_capture(do_capture(ctx, hook, mode or capture_mode(ctx.workspace)), as_json)


def register(app: typer.Typer) -> None:
    app.command()(capture)
