"""Shell completion, answered by gitstore itself: ``gitstore __complete CWORD WORDS...``.

The scripts ``gitstore completion bash|zsh|fish`` prints call this with the words of the command
line and the index of the word being completed; it prints one candidate per line (none: the
shell falls back to file names). Command names come from ``COMMANDS`` without loading the
command framework; a command's subcommands, options and option values come from that command's
module alone, as a run would load it. It never fails loudly: a shell must not show a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gitstore.cli import COMMANDS, PROG

TOP_OPTIONS = ("--help", "--version", "-h")


def answer(args: list[str]) -> int:
    """Print the candidates for the word at index ``args[0]`` of the words ``args[1:]``."""
    try:
        cword, words = int(args[0]), args[1:]
        for candidate in candidates(words[1:cword], words[cword] if cword < len(words) else ""):
            print(candidate)
    except Exception:  # noqa: BLE001 - completion offers nothing rather than an error
        pass
    return 0


def candidates(before: list[str], incomplete: str) -> list[str]:
    """What may follow the complete words ``before`` (the program name left out), starting
    with ``incomplete``."""
    command = next((w for w in before if not w.startswith("-")), None)
    if command is None:
        names = TOP_OPTIONS if incomplete.startswith("-") else COMMANDS
        return [n for n in names if n.startswith(incomplete)]
    if command not in COMMANDS:
        return []
    from typer._click.shell_completion import ShellComplete

    from gitstore.cli._app import click_command

    class _Words(ShellComplete):
        name, source_template = PROG, ""

        def source_vars(self) -> dict[str, Any]:
            return {}

        def get_completion_args(self) -> tuple[list[str], str]:
            return before, incomplete

        def format_completion(self, item: Any) -> str:
            return str(item.value)

    found = _Words(click_command(command), {}, PROG, "").get_completions(list(before), incomplete)
    return [str(item.value) for item in found if item.type == "plain"]


def words(values: Iterable[str]) -> Callable[[str], list[str]]:
    """An option's value completion: the values starting with what was typed."""
    choices = tuple(values)
    return lambda incomplete: [v for v in choices if v.startswith(incomplete)]

