"""What capture and transcript import print."""

from __future__ import annotations

from typing import Any, Optional

import typer

from gitstore.cli._complete import words
from gitstore.capture.normalize import Capture
from gitstore.cli._io import emit_json, echo
from gitstore.cli._values import checked, one_of
from gitstore.records.vocabulary import CAPTURE_MODES

MODE_OPTION: Optional[str] = typer.Option(
    None, "--mode", metavar="MODE", autocompletion=words(CAPTURE_MODES),
    help=f"{', '.join(CAPTURE_MODES)} (default: capture.mode in okf/.memory/config.json, else summary).",
    callback=checked(one_of("capture mode", CAPTURE_MODES)))

# what a person can do about each reason a capture is degraded
ADVICE = {
    "hooks-disabled": "the harness has hooks switched off; `gitstore doctor` shows where",
    "transcript-missing": "no transcript file where the harness said (or it named none); import it with "
                          "`gitstore import transcript FILE`",
    "transcript-unreadable": "the transcript could not be read; check the file and import it again",
    "unknown-schema-version": "the transcript's format is unknown to this gitstore; upgrade gitstore",
    "lines-skipped": "some lines were of kinds gitstore does not read; the rest is kept",
    "truncated": "the session was longer than capture keeps; the start and the summary are kept",
    "quarantined": "some text was withheld by the safety scanner (`gitstore scan` on the file says why)",
    "revision-unknown": "no commit was found for the session's time; commit, or capture again later",
}


def summary(result: Capture) -> dict[str, Any]:
    """What a capture wrote; its subagents' captures under ``subagents``, each summed up alike,
    how many subagents' transcripts it left out (``subagentsLeftOut``), and how many of the
    session's turns, commands and files past what one capture keeps (``leftOut``)."""
    receipt = result.receipt
    return {"envelope": result.envelope["digest"], "receipt": receipt["digest"],
            "episode": receipt["episode"], "status": receipt["status"], "reasons": receipt["reasons"],
            "lines": receipt["lines"], "redactions": receipt["redactions"], "events": len(result.events),
            "subagents": [summary(subagent) for subagent in result.subagents],
            "subagentsLeftOut": result.subagents_left_out, "leftOut": result.left_out}


def print_capture(result: Capture, as_json: bool) -> None:
    data = summary(result)
    if as_json:
        emit_json(data)
        return
    _print(data, "episode")
    for subagent in data["subagents"]:
        _print(subagent, "subagent's episode")
    if data["subagentsLeftOut"]:
        echo(f"{data['subagentsLeftOut']} more subagent transcript(s) were left out: a capture takes the first "
             f"{len(data['subagents'])} by name in the session's <session>/subagents/ folder; import each "
             "of the others with `gitstore import transcript FILE`")


def _print(data: dict[str, Any], what: str) -> None:
    echo(f"captured {what} {data['episode'] or '-'}: {data['events']} event(s), {data['status']}")
    for reason in data["reasons"]:
        echo(f"  {reason}: {ADVICE.get(reason, 'see okf/wiki/capture.md')}")
    if data["leftOut"]:
        echo(f"  left out: {data['leftOut']} turn(s), command(s) or file(s) past what one capture keeps")
    lines = data["lines"]
    echo(f"  lines {lines['total']}: parsed {lines['parsed']}, unknown {lines['unknown']}, "
         f"malformed {lines['malformed']}, quarantined {lines['quarantined']}; redactions {data['redactions']}")
    if data["episode"]:
        echo(f"  browse it: gitstore evidence {data['episode']}")
