"""The command framework, loaded only when a command runs: typer builds each command from its
module's functions, and the help reads like a normal Unix tool's.

Typer shows an argument as ``{learning_id}`` with ``<str>`` beside it and an option without a
metavar as ``--title <str>``. Here every argument is shown by its metavar (its name in capitals
when it has none), required ones bare and optional ones in brackets, without a type, and every
option that takes a value by its metavar (``TEXT``, ``INTEGER``, ``PATH`` when it has none).
``tests/test_cli.py`` reads every command's help to keep it so.

Typer converts every value through a pydantic TypeAdapter; importing pydantic costs more than
most commands do. Values of the plain types commands take (text, numbers, flags, paths, lists
and optional ones of them) are converted here instead; anything else still goes to typer. A value
that does not convert (or an empty path, or text that is not UTF-8: ``_values.utf8``) is a usage
error naming the parameter, as the values ``gitstore.cli._values`` checks are.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin

os.environ.setdefault("TYPER_USE_RICH", "0")  # plain click output: no boxes, one-line errors

import typer  # noqa: E402 - after the environment says how it should print
from typer._click.core import Context  # noqa: E402
from typer._click.exceptions import BadParameter  # noqa: E402
from typer._coercion import RuntimeParam  # noqa: E402
from typer.core import TyperArgument, TyperOption  # noqa: E402
from typer.main import get_command  # noqa: E402

from gitstore._collector import started  # noqa: E402
from gitstore.cli import COMMANDS, PROG, SUMMARY  # noqa: E402
from gitstore.cli._values import names_files, path, utf8  # noqa: E402

_TYPE_NAMES = {str: "TEXT", int: "INTEGER", Path: "PATH", float: "NUMBER"}
HELP = ["-h", "--help"]


_PLAIN = (str, int, bool, Path)


def _plain(annotation: Any) -> Any:
    """The plain type a parameter's values have (list and optional stripped), or None."""
    if get_origin(annotation) in (Union, UnionType):
        rest = [a for a in get_args(annotation) if a is not NoneType]
        annotation = rest[0] if len(rest) == 1 else None
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    return annotation if annotation in _PLAIN else None


@dataclass(frozen=True)
class _PlainValues(RuntimeParam):
    """Converts the values of a parameter of a plain type, as typer would, without pydantic."""

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        kind = _plain(self.annotation)
        text = kind is str and not names_files(self.parameter_info.callback)
        if isinstance(value, (list, tuple)):
            return [self._one(kind, v, param, ctx, text) for v in value]
        return self._one(kind, value, param, ctx, text)

    @staticmethod
    def _one(kind: Any, value: Any, param: Any, ctx: Any, text: bool) -> Any:
        if text and isinstance(value, str) and (why := utf8(value)):
            raise BadParameter(why, ctx=ctx, param=param)
        if isinstance(value, kind):
            return value
        if kind is Path and (empty := path(value)):  # Path("") would be the current folder
            raise BadParameter(empty, ctx=ctx, param=param)
        try:
            return kind(value)
        except (TypeError, ValueError):
            raise BadParameter(f"{value!r} is not a valid {_TYPE_NAMES.get(kind, kind.__name__)}",
                               ctx=ctx, param=param) from None


def _runtime_param(descriptor: Any) -> RuntimeParam | None:
    """How to convert a parameter's values without pydantic (None: only typer knows how)."""
    if _plain(descriptor.annotation) is None or descriptor.file_annotation is not None:
        return None
    return _PlainValues(descriptor.parameter_info, descriptor.annotation)


class _Argument(TyperArgument):
    """An argument shown as ``NAME`` (required) or ``[NAME]`` (optional), ``NAME...`` when it
    takes several."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw + ("..." if self.nargs != 1 else "")
        return name if self.required else f"[{name}]"

    def _rich_display_name(self) -> str:
        return self.display_name_raw + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def get_runtime_param(self) -> RuntimeParam:
        return _runtime_param(self.type_descriptor) or super().get_runtime_param()


class _Option(TyperOption):
    """An option shown with its metavar, or its type's name in capitals."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return str(self.metavar)
        return _TYPE_NAMES.get(self.type_descriptor.annotation, "VALUE")

    def get_runtime_param(self) -> RuntimeParam:
        return _runtime_param(self.type_descriptor) or super().get_runtime_param()


def build_app(command: str | None = None) -> typer.Typer:
    """The typer application with one command's module registered (every module for None)."""
    app = typer.Typer(name=PROG, help=SUMMARY, no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False, rich_markup_mode=None,
                      context_settings={"help_option_names": HELP})

    @app.callback()
    def _root() -> None:
        """A git-native memory for coding agents and the people who review them."""

    modules = {COMMANDS[command][0]} if command in COMMANDS else dict.fromkeys(m for m, _ in COMMANDS.values())
    for module in modules:
        import_module(f"gitstore.cli.{module}").register(app)
    return app


def click_command(command: str | None = None) -> Any:
    """The click command ``gitstore`` runs, with one command's module loaded (every one for None)."""
    root = get_command(build_app(command))
    for param in _params(root):
        if type(param) is TyperArgument:
            param.__class__ = _Argument
            if param.metavar is None:
                param.metavar = param.name.upper()
        elif type(param) is TyperOption:
            param.__class__ = _Option
    return root


def _params(command: Any) -> Iterator[Any]:
    """Every parameter of a command and its subcommands, their help options included (click
    makes those on first use; made here, they are shown and converted like the others)."""
    yield from command.params
    help_option = command.get_help_option(Context(command, help_option_names=HELP))
    if help_option is not None:
        yield help_option
    for sub in getattr(command, "commands", {}).values():  # a group's commands
        yield from _params(sub)


def run(command: str | None, args: list[str]) -> Any:
    """Parse ``args`` and run the command; framework errors propagate for ``main`` to map."""
    root = click_command(command)
    started()  # the command's modules are loaded: the collector runs again (see ``run()`` of the package)
    given_once(root, args)
    return root.main(args=args, prog_name=PROG, standalone_mode=False)


def given_once(root: Any, args: list[str]) -> None:
    """Refuse an option that takes one value given more than once (``redact --comment A
    --comment B``): the command framework keeps the last and drops the others without a word,
    and the command would do less than asked (one comment redacted, the other left for agents
    to read). An option that takes several (``--purpose``) may be repeated; a flag changes
    nothing given twice."""
    from gitstore.errors import UsageError

    command, rest, names = root, list(args), []
    while getattr(command, "commands", None):  # down to the command the words name
        word = next((w for w in rest if not w.startswith("-")), None)
        if word is None or word not in command.commands:
            return  # the framework says what is wrong
        rest = rest[rest.index(word) + 1:]
        command = command.commands[word]
        names.append(word)
    options = {opt: param for param in command.params if isinstance(param, TyperOption)
               for opt in (*param.opts, *param.secondary_opts)}
    counted: dict[str, list[str]] = {}
    words = iter(rest)
    for word in words:
        if word == "--":
            break
        name = word.split("=", 1)[0] if word.startswith("--") else word
        param = options.get(name)
        if param is None or param.is_flag or param.count:
            continue
        if "=" not in word or not word.startswith("--"):
            next(words, None)  # its value, whatever it looks like
        if not param.multiple:
            counted.setdefault(param.name, []).append(name)
    for spelled in counted.values():
        if len(spelled) > 1:
            times = "twice" if len(spelled) == 2 else f"{len(spelled)} times"
            raise UsageError(f"{' '.join(names)}: {spelled[0]} given {times}; it takes one value "
                             "(run the command once for each)")
