"""Input and output helpers shared by commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import typer

from gitstore.cli import json_safe
from gitstore.cli._complete import words
from gitstore.cli._values import checked, one_of
from gitstore.errors import InvalidInput
from gitstore.records.inputs import MAX_RECORD_BYTES, bounded_lines, open_untrusted, read_bounded
from gitstore.records.vocabulary import PURPOSES


def read_input(path: str, limit: int = MAX_RECORD_BYTES) -> bytes:
    """The bytes of FILE, or of standard input for ``-``, at most ``limit`` of them."""
    with open_input(path) as source:
        return read_bounded(source, limit, "standard input" if path == "-" else path)


@contextmanager
def about(path: str) -> Iterator[None]:
    """Name FILE (``path``; not standard input, the only input there) in the one-line error of
    input refused while reading what it holds, as ``gitstore scan`` and ``validate`` do."""
    try:
        yield
    except InvalidInput as exc:
        if path == "-":
            raise
        named = InvalidInput(f"{path}: {exc}")
        named.exit_code = exc.exit_code
        raise named from None


@contextmanager
def open_input(path: str) -> Iterator[BinaryIO]:
    """FILE (or standard input for ``-``) opened for reading bytes; see ``open_untrusted``."""
    if path == "-":
        yield sys.stdin.buffer
        return
    with open_untrusted(path) as source:
        yield source


def read_lines(source: BinaryIO, name: str = "input", max_line: int = MAX_RECORD_BYTES) -> Iterator[bytes]:
    """The lines of ``source``, each at most ``max_line`` bytes (see ``bounded_lines``)."""
    return bounded_lines(source, name, max_line)


def emit_json(value: Any) -> None:
    """Print machine-readable output: two-space indents, sorted keys, UTF-8 as is. orjson
    writes the same text as ``json.dumps`` several times faster (a listing of a big store is
    mostly this); ``json`` takes what orjson refuses (integers beyond 64 bits, keys that are
    not strings, lone surrogates: those escaped, so the output stays UTF-8)."""
    typer.echo(_encoded(value))


def _encoded(value: Any) -> str:
    """``value`` as JSON text, with what a terminal could obey escaped (``gitstore._shown``)."""
    import orjson

    from gitstore._shown import json_escaped

    try:
        return json_escaped(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    except TypeError:
        return json_escaped(json_safe(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)))


JSON_CHUNK = 4096  # values encoded, or lines printed, at a time (emit_json_array, echo_lines)


def emit_json_array(values: Iterable[Any], chunk: int = JSON_CHUNK) -> None:
    """Print a list as ``emit_json`` does, its values taken from an iterator and encoded
    ``chunk`` at a time (a few thousand): memory holds the text of the answer and a chunk of
    values, not every value at once (listing a big store). Nothing is printed before the last
    value is in, so a read that fails part way prints no half list."""
    parts = [_encoded(batch)[2:-2] for batch in _batches(values, chunk)]  # each without its "[\n" and "\n]"
    out = sys.stdout
    if not parts:
        out.write("[]\n")
    else:
        out.write("[\n")
        out.write(parts[0])
        for part in parts[1:]:
            out.write(",\n")
            out.write(part)
        out.write("\n]\n")
    out.flush()


def echo_lines(lines: Iterable[str]) -> None:
    """Print lines as they come, a few thousand to a write: one write per line cost a tenth
    of listing a big store."""
    for batch in _batches(lines):
        typer.echo("\n".join(batch))


def _batches(values: Iterable[Any], size: int = JSON_CHUNK) -> Iterator[list[Any]]:
    """``values`` in lists of ``size`` (the last may be shorter, none is empty)."""
    batch: list[Any] = []
    for value in values:
        batch.append(value)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


JSON_OPTION = typer.Option(False, "--json", help="Print machine-readable JSON.")
PURPOSE_OPTION = typer.Option("instruction", "--purpose", metavar="PURPOSE", autocompletion=words(PURPOSES),
                              help="The purpose learnings are judged for: review, instruction, evaluation, "
                                   "analytics, training or publication.",
                              callback=checked(one_of("purpose", PURPOSES)))


def echo(text: str = "") -> None:
    """Print one line (or several) of output."""
    typer.echo(text)


AGAIN = "finished what an earlier run left undone"


def summary(line: str, as_json: bool, again: bool = False) -> None:
    """A command's one-line summary (none under --json). A run that finished what an earlier run
    of the same command left undone (``gitstore.ops.unfinished.once``) says so in it, on
    standard error under --json, whose output stays what the command prints."""
    if again:
        typer.echo(f"{AGAIN}: {line}", err=as_json)
    elif not as_json:
        typer.echo(line)
