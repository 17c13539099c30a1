"""The fields of a harness hook's payload that capture reads, whatever each harness calls them.

One list, here: ``gitstore.capture.hookinput`` reads them, and the agent hook keeps only them
in the job it leaves in the inbox, so the free text a payload carries beside them (a prompt,
the agent's last message, with whatever secret it holds) is never kept at rest. Importing this
module loads nothing, so the hook can use it before anything else.
"""

from __future__ import annotations

SESSION = ("session_id", "sessionId", "sessionID", "thread-id", "thread_id")
EVENT = ("hook_event_name", "event", "type")
TRANSCRIPT = ("transcript_path", "transcriptPath", "transcript", "rollout_path")
FOLDER = ("cwd",)
VERSION = ("version", "harness_version")
READ = (*SESSION, *EVENT, *TRANSCRIPT, *FOLDER, *VERSION)
"""Every field capture reads; each holds text (any other value is not read)."""


def first(payload: dict[str, object], names: tuple[str, ...]) -> str | None:
    """The first of NAMES that holds text other than blanks, stripped, each lone UTF-16
    surrogate in it (JSON's ``"\\ud800"``, which a JavaScript harness writes for a string cut
    within a character) as U+FFFD, as a transcript's are read: no record can hold one, so a
    session id or version holding one failed the capture on every try."""
    for name in names:
        value = payload.get(name)
        if isinstance(value, str) and value.strip():
            value = value.strip()
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            return value
    return None


def kept(payload: dict[str, object]) -> dict[str, str]:
    """What of PAYLOAD capture reads: its fields in ``READ`` that hold text."""
    return {name: value for name, value in payload.items() if name in READ and isinstance(value, str)}
