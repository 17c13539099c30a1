"""``python -m gitstore.capture.transcripts FILE...``: parse transcripts and print a short summary.

For debugging the parsers: what was detected, how every record was counted, the turns by
role, tool calls, files, commands and test runs, and the first turns (``--turns N``).
``--json`` prints the whole Transcript as JSON instead. Exit code 1 when a file is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from gitstore.errors import GitstoreError
from gitstore.capture.transcripts import HARNESSES, Transcript, parse_transcript


def summary(transcript: Transcript, turns: int) -> str:
    t = transcript
    c = t.counts
    calls = [call for turn in t.turns for call in turn.tools]
    roles = Counter(turn.role for turn in t.turns)
    lines = [
        f"harness {t.harness}  session {t.session}  version {t.version}",
        f"cwd {t.cwd}  branch {t.branch}  from {t.started_at} to {t.ended_at}",
        f"records {c.total}: parsed {c.parsed}, unknown {c.unknown}, malformed {c.malformed}"
        + (f"  (unknown types: {', '.join(t.unknown_types)})" if t.unknown_types else ""),
        f"schema versions: {', '.join(t.schema_versions) or '-'}",
        f"turns {len(t.turns)}: " + ", ".join(f"{role} {n}" for role, n in sorted(roles.items()))
        + (f"  (+{t.turns_dropped} dropped)" if t.turns_dropped else "")
        + (f"  ({sum(x.truncated for x in t.turns)} truncated)" if any(x.truncated for x in t.turns) else ""),
        f"tool calls {len(calls)}: ok {sum(x.ok is True for x in calls)}, failed "
        f"{sum(x.ok is False and not x.rejected for x in calls)}, rejected {sum(x.rejected for x in calls)}, "
        f"no result {sum(x.ok is None for x in calls)}",
        f"files touched {len(t.files_touched)}: {_list(t.files_touched)}",
        f"commands {len(t.commands)}: {_list(t.commands)}",
        f"tests {len(t.tests)}: {_list([cmd + (' -> pass' if ok else ' -> FAIL') for cmd, ok in t.tests])}",
    ]
    if t.subagents:
        lines.append(f"subagents: {_list(t.subagents)}")
    for turn in t.turns[:turns]:
        text = " ".join(turn.text.split())
        tools = f" [{', '.join(x.name for x in turn.tools)}]" if turn.tools else ""
        lines.append(f"  {turn.role:9} {turn.at or '-':27} {text[:100]!r}{tools}")
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """VALUE as JSON data: a transcript's parts (named tuples) as objects of their fields."""
    if hasattr(value, "_fields"):
        return {name: _plain(part) for name, part in zip(value._fields, value)}
    if isinstance(value, tuple):
        return [_plain(part) for part in value]
    return value


def _list(items: Sequence[str], shown: int = 5) -> str:
    if not items:
        return "-"
    flat = [" ".join(item.split()) for item in items[:shown]]
    cut = [item if len(item) <= 80 else item[:77] + "..." for item in flat]
    return "; ".join(cut) + (f"; ... (+{len(items) - shown})" if len(items) > shown else "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gitstore.capture.transcripts", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("files", nargs="+", metavar="FILE", help="transcript files (OpenCode: the session file)")
    parser.add_argument("--harness", choices=HARNESSES, help="skip detection")
    parser.add_argument("--turns", type=int, default=8, help="turns to preview (default 8)")
    parser.add_argument("--json", action="store_true", help="print each Transcript as JSON")
    options = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    status = 0
    for index, file in enumerate(options.files):
        try:
            transcript = parse_transcript(file, options.harness)
        except GitstoreError as exc:
            print(f"python -m gitstore.capture.transcripts: {exc}", file=sys.stderr)
            status = 1
            continue
        if options.json:
            print(json.dumps(_plain(transcript), ensure_ascii=False))
            continue
        if len(options.files) > 1:
            print(("\n" if index else "") + f"== {file}")
        print(summary(transcript, max(0, options.turns)))
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into head and the like
        sys.exit(0)
