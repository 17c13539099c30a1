"""Transcript parsers against real harness sessions: every sample parses, every record is
counted, the expected values published with the samples hold, damaged copies still parse,
and input of any shape never raises anything but InvalidInput."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import tracemalloc
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstore.records.times import normalize_time
from gitstore.errors import InvalidInput
from gitstore.capture.transcripts import Limits, Transcript, detect_harness, parse_transcript
from gitstore.capture.transcripts import __main__ as cli
from gitstore.capture.transcripts import _document, gemini
from gitstore.capture.transcripts._builder import Builder
from gitstore.capture.transcripts._read import iso_time, lines
from gitstore.capture.transcripts._tools import is_test_command, outcome_in_output

from .conftest import ROOT, shared

T = ("transcripts",)
HISTORY = (*T, "agent-history")

# Every transcript sample, by path under testdata/transcripts, with the harness it is from.
SAMPLES = {
    "claude-code/claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": "claude-code",
    "claude-code/claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": "claude-code",
    "claude-code/claude-code-viewer/agent-test-hash-123.jsonl": "claude-code",
    "claude-code/claude-code-viewer/agent-test-hash-456.jsonl": "claude-code",
    "claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": "claude-code",
    "agent-sessions/claude/small.jsonl": "claude-code",
    "agent-sessions/claude/large.jsonl": "claude-code",
    "agent-sessions/claude/schema_drift.jsonl": "claude-code",
    "agent-sessions/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl": "claude-code",
    "agent-sessions/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl": "claude-code",
    "agent-history/v1/claude_golden.jsonl": "claude-code",
    "agent-history/compaction/claude/session_with_compaction.jsonl": "claude-code",
    "agent-history/rejections/claude_with_rejection.jsonl": "claude-code",
    "agent-history/forks/claude_forked_session.jsonl": "claude-code",
    "agent-sessions/codex/small.jsonl": "codex",
    "agent-sessions/codex/large.jsonl": "codex",
    "agent-sessions/codex/schema_drift.jsonl": "codex",
    "agent-history/v1/codex_golden.jsonl": "codex",
    "agent-history/compaction/codex/session_with_compaction.jsonl": "codex",
    "agent-history/rejections/codex_with_escalation.jsonl": "codex",
    "agent-sessions/gemini/small.json": "gemini-cli",
    "agent-sessions/gemini/large.json": "gemini-cli",
    "agent-sessions/gemini/schema_drift.json": "gemini-cli",
    "agent-sessions/gemini/jsonl_v040.jsonl": "gemini-cli",
    "agent-history/v1/gemini_golden.json": "gemini-cli",
    "agent-history/rejections/gemini_with_tool_error.jsonl": "gemini-cli",
    "agent-sessions/opencode/storage_v2/session/proj_test/ses_s_stage0_small.json": "opencode",
    "agent-sessions/opencode/storage_v2/session/proj_test/ses_s_stage0_large.json": "opencode",
    "agent-sessions/opencode/storage_legacy/session/proj_test/ses_s_stage0_drift.json": "opencode",
}
JSONL = [p for p in SAMPLES if p.endswith(".jsonl")]


def sample(relative: str) -> Path:
    return shared(*T, *relative.split("/"))


def parse(relative: str) -> Transcript:
    return parse_transcript(sample(relative))


def roles(transcript: Transcript) -> Counter[str]:
    return Counter(turn.role for turn in transcript.turns)


def calls(transcript: Transcript) -> list[Any]:
    return [call for turn in transcript.turns for call in turn.tools]


def _write(tmp_path: Path, name: str, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def expected(name: str) -> dict[str, Any]:
    path = shared(*HISTORY, "v1", "expected_values.json") if name == "v1" else shared(*HISTORY, "expected_values_extended.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def records_in(path: Path, harness: str) -> int:
    """The records a sample holds, counted independently of the parsers."""
    if harness == "opencode":
        root = path.parents[2]
        session = json.loads(path.read_text())["id"]
        messages = sorted((root / "message" / session).glob("*.json"))
        ids = {json.loads(m.read_text())["id"] for m in messages}
        parts = [p for i in ids for p in (root / "part" / i).glob("*.json")]
        flat = [p for p in (root / "part").glob("*.json") if json.loads(p.read_text()).get("messageID") in ids]
        return 1 + len(messages) + len(parts) + len(flat)
    if path.suffix == ".json":
        document = json.loads(path.read_text())
        return len(document.get("messages", document.get("history", [])))
    return sum(1 for line in path.read_bytes().split(b"\n") if line.strip())


# -- every sample --------------------------------------------------------------------------------


@pytest.mark.parametrize("relative", sorted(SAMPLES))
def test_sample_parses_and_counts_every_record(relative: str) -> None:
    path = sample(relative)
    transcript = parse_transcript(path)
    counts = transcript.counts
    assert transcript.harness == SAMPLES[relative]
    assert counts.total == counts.parsed + counts.unknown + counts.malformed
    assert counts.total == records_in(path, SAMPLES[relative])
    assert parse_transcript(path) == transcript  # deterministic
    assert parse_transcript(path, SAMPLES[relative]) == transcript
    keys = [turn.key for turn in transcript.turns]
    assert len(keys) == len(set(keys))
    assert all(turn.role in ("user", "assistant", "system", "tool", "summary") for turn in transcript.turns)
    assert all(len(turn.text) <= 20_000 + 100 for turn in transcript.turns)
    for at in [transcript.started_at, transcript.ended_at, *(t.at for t in transcript.turns)]:
        assert at is None or (len(at) == 27 and at.endswith("Z"))


@pytest.mark.parametrize("relative", sorted(SAMPLES))
def test_detect_harness(relative: str) -> None:
    assert detect_harness(sample(relative)) == SAMPLES[relative]


def test_every_file_under_transcripts_is_a_sample_or_refused() -> None:
    root = shared(*T)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if relative in SAMPLES:
            continue
        with pytest.raises(InvalidInput) as refused:
            parse_transcript(path)
        message = str(refused.value)
        assert str(path) in message and "\n" not in message


def test_refusals_name_what_is_wrong(tmp_path: Path) -> None:
    pi = sample("agent-sessions/pi/small.jsonl")
    with pytest.raises(InvalidInput, match="a pi session"):
        parse_transcript(pi)
    part = sample("agent-sessions/opencode/storage_v2/part/m_assistant_large_1/001.json")
    with pytest.raises(InvalidInput, match="pass the session file"):
        parse_transcript(part)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n\n")
    with pytest.raises(InvalidInput, match="empty"):
        parse_transcript(empty)
    with pytest.raises(InvalidInput, match="no such file"):
        parse_transcript(tmp_path / "missing.jsonl")
    with pytest.raises(InvalidInput, match="not a file"):
        parse_transcript(tmp_path)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"not json\n{\"a\": 1}\n[1, 2]\n")
    with pytest.raises(InvalidInput, match="not a transcript"):
        parse_transcript(garbage)
    for harness in ("claude-code", "codex", "gemini-cli", "opencode"):
        with pytest.raises(InvalidInput, match="garbage.jsonl"):
            parse_transcript(garbage, harness)
    with pytest.raises(InvalidInput, match="unknown harness"):
        parse_transcript(garbage, "cursor")


# -- expected values published with the samples --------------------------------------------------


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_golden_expected_values(name: str) -> None:
    values = expected("v1")[f"{name}_golden"]
    suffix = "json" if name == "gemini" else "jsonl"
    transcript = parse(f"agent-history/v1/{name}_golden.{suffix}")
    counted = roles(transcript)
    # Claude sends tool results back as user messages; here they are tool turns.
    users = counted["user"] + (counted["tool"] if name == "claude" else 0)
    conversation = [t for t in transcript.turns if t.role in ("user", "assistant")]
    assert transcript.session == values["session_id"]
    assert users == values["user_messages"]
    assert counted["assistant"] == values["assistant_messages"]
    assert users + counted["assistant"] == values["message_count"]
    assert Counter(call.name for call in calls(transcript)) == Counter(values["tool_calls"])
    assert conversation[0].at == values["first_timestamp"].replace(".000Z", ".000000Z")
    assert conversation[-1].at == values["last_timestamp"].replace(".000Z", ".000000Z")
    assert counted["tool"] >= 1  # has_tool_results / has_function_output
    if name != "gemini":
        assert transcript.cwd is not None and transcript.cwd.replace("/", "-") == values["workspace"]
    assert transcript.counts.unknown == transcript.counts.malformed == 0


def test_golden_totals() -> None:
    totals = expected("v1")["totals"]
    transcripts = [
        parse("agent-history/v1/claude_golden.jsonl"),
        parse("agent-history/v1/codex_golden.jsonl"),
        parse("agent-history/v1/gemini_golden.json"),
    ]
    assert sum(len(calls(t)) for t in transcripts) == totals["tool_calls_total"]
    assert len({t.session for t in transcripts}) == totals["sessions"]


def test_golden_claude_details() -> None:
    transcript = parse("agent-history/v1/claude_golden.jsonl")
    assert transcript.version == "2.0.75" and transcript.branch == "main"
    assert transcript.files_touched == ("config.json",)  # the Edit, relative to cwd; not the Read
    assert [t.key for t in transcript.turns][:2] == ["u1-claude-golden", "a1-claude-golden"]
    assert all(call.ok is True for call in calls(transcript))
    assert "I should use the Edit tool" not in " ".join(t.text for t in transcript.turns)


def test_codex_golden_details() -> None:
    transcript = parse("agent-history/v1/codex_golden.jsonl")
    assert transcript.version == "0.77.0" and transcript.schema_versions == ("0.77.0",)
    assert transcript.commands == ("ls -la",)
    assert transcript.started_at == "2025-01-04T09:00:00.000000Z"
    assert transcript.ended_at == "2025-01-04T09:00:13.000000Z"
    assert "Preparing to list" not in " ".join(t.text for t in transcript.turns)  # reasoning


def test_claude_compaction() -> None:
    values = expected("extended")["compaction"]["claude"]
    transcript = parse("agent-history/compaction/claude/session_with_compaction.jsonl")
    assert transcript.session == values["session_id"]
    boundaries = [i for i, t in enumerate(transcript.turns) if t.role == "system"]
    assert len(boundaries) == values["compaction_boundaries"]
    assert transcript.turns[boundaries[0]].key == values["compaction_details"]["uuid"]
    summaries = [t for t in transcript.turns if t.role == "summary"]
    assert len(summaries) == 1 and values["has_summary_type"]
    conversation = ("user", "assistant", "tool")
    before = [t for t in transcript.turns[: boundaries[0]] if t.role in conversation]
    after = [t for t in transcript.turns[boundaries[0]:] if t.role in conversation]
    assert len(before) == values["message_count_before_compaction"]
    assert len(after) == values["message_count_after_compaction"]
    assert len(before) + len(after) + len(summaries) == values["total_messages"]


def test_codex_compaction() -> None:
    values = expected("extended")["compaction"]["codex"]
    transcript = parse("agent-history/compaction/codex/session_with_compaction.jsonl")
    assert transcript.session == values["session_id"]
    summaries = [t for t in transcript.turns if t.role == "summary"]
    assert len(summaries) == values["compacted_records"]
    for section in values["compacted_summary_sections"]:
        assert section in summaries[0].text
    assert Counter(call.name for call in calls(transcript)) == Counter(values["tool_calls"])
    assert transcript.branch == "feature/api"


def test_claude_rejections() -> None:
    values = expected("extended")["rejections"]["claude"]
    transcript = parse("agent-history/rejections/claude_with_rejection.jsonl")
    assert transcript.session == values["session_id"]
    assert len(transcript.turns) == values["total_messages"]
    rejected = [call for call in calls(transcript) if call.rejected]
    assert len(rejected) == values["rejections"]
    assert [c.name for c in rejected] == [d["tool_name"] for d in values["rejection_details"]]
    assert all(call.ok is False for call in rejected)
    assert sum(call.ok is True for call in calls(transcript)) == values["successful_tool_uses"]
    tool_text = " ".join(t.text for t in transcript.turns if t.role == "tool")
    for detail in values["rejection_details"]:
        assert detail["user_reason"] in tool_text
    # A rejected test run never ran: it is neither a command nor a test.
    assert transcript.commands == () and transcript.tests == ()
    assert transcript.files_touched == ("src/db.py",)  # the accepted Edit only


def test_codex_escalations() -> None:
    values = expected("extended")["rejections"]["codex"]
    transcript = parse("agent-history/rejections/codex_with_escalation.jsonl")
    assert transcript.session == values["session_id"]
    rejected = [call for call in calls(transcript) if call.rejected]
    assert len(rejected) == values["escalation_requests"]
    assert [c.command for c in rejected] == [d["command"].replace("\\n", "\n") for d in values["escalation_details"]]
    shells = [c for c in calls(transcript) if c.name == "shell" and c.ok]
    assert len(shells) == values["successful_shell_calls"]
    assert transcript.commands == ("echo 'Hello World' > test.txt", "cat test.txt")


def test_gemini_tool_errors() -> None:
    values = expected("extended")["rejections"]["gemini"]
    transcript = parse("agent-history/rejections/gemini_with_tool_error.jsonl")
    assert transcript.session == values["session_id"]
    counted = roles(transcript)
    assert counted["user"] + counted["assistant"] == values["total_messages"]
    failed = [call for call in calls(transcript) if call.ok is False and not call.rejected]
    assert [c.name for c in failed] == [d["tool_name"] for d in values["tool_error_details"]]
    assert len(failed) == values["tool_errors"]
    assert sum(call.ok is True for call in calls(transcript)) == values["successful_tool_calls"]
    tool_text = " ".join(t.text for t in transcript.turns if t.role == "tool")
    assert values["tool_error_details"][0]["error"] in tool_text
    assert transcript.files_touched == ("config.json",)


def test_claude_fork_keeps_both_branches() -> None:
    values = expected("extended")["forks"]["claude"]
    transcript = parse("agent-history/forks/claude_forked_session.jsonl")
    assert transcript.session == values["session_id"]
    assert len(transcript.turns) == values["total_messages"]
    assert Counter(call.name for call in calls(transcript)) == Counter(values["tool_calls"])
    keys = {turn.key for turn in transcript.turns}
    for fork in values["fork_details"]:
        assert set(fork["child_uuids"]) <= keys
    assert transcript.files_touched == ("quicksort.py", "mergesort.py")


# -- real sessions in detail --------------------------------------------------------------------


def test_claude_streamed_message_is_one_turn() -> None:
    transcript = parse("claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    # Lines 12-14 are one assistant message (msg_01PrGGvEvreqPUaqe4qRsCgA) with three Task calls.
    turn = next(t for t in transcript.turns if any(c.name == "Task" for c in t.tools))
    assert [c.name for c in turn.tools] == ["Task", "Task", "Task"]
    assert turn.text.startswith("Now I'll execute the subtasks in parallel")
    assert transcript.cwd == "/path/to/Demo" and transcript.branch is None
    assert "components/TodoItem.tsx" in transcript.files_touched
    assert "todo-app/src/app/page.tsx" in transcript.files_touched
    assert "npm run build" in transcript.commands
    failed = [c for c in calls(transcript) if c.ok is False]
    assert failed and not any(c.rejected for c in failed)
    assert transcript.counts == type(transcript.counts)(438, 438, 0, 0)


def test_claude_subagent_tree() -> None:
    parent = parse("agent-sessions/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl")
    assert len(parent.subagents) == 1
    child = parse_transcript(Path(parent.subagents[0]))
    assert child.session == "agent-a0ad4f44468bdf20d"
    assert child.commands == ("grep -rn TODO",)
    assert [c.ok for c in calls(child)] == [True]


def test_claude_drift_and_bookkeeping() -> None:
    drift = parse("agent-sessions/claude/schema_drift.jsonl")
    assert drift.unknown_types == ("tool_use", "tool_result")
    assert drift.schema_versions == ("1.9.0", "2.1.88", "2.1.92", "2.1.112")
    small = parse("agent-sessions/claude/small.jsonl")
    assert small.counts.unknown > 0 and small.counts.malformed == 0
    assert "[trimmed for fixture]" not in small.schema_versions
    rejected = [c for c in calls(small) if c.rejected]
    assert not rejected  # the rejection there answers no call the file shows (no tool_use_id)


@pytest.mark.parametrize("relative", [p for p in SAMPLES if "schema_drift" in p])
def test_schema_drift_is_counted(relative: str) -> None:
    counts = parse(relative).counts
    assert counts.unknown + counts.malformed > 0


def test_gemini_shell_exit_codes() -> None:
    transcript = parse("agent-sessions/gemini/large.json")
    shell = [c for c in calls(transcript) if c.command]
    assert [(c.command, c.exit_code, c.ok) for c in shell] == [
        ("printf 'line1\\nline2\\nline3\\n'", 0, True),
        ("ls /non-existent-directory", 1, False),
    ]
    assert roles(transcript)["system"] == 1  # the info message


def test_gemini_jsonl_with_set_lines() -> None:
    transcript = parse("agent-sessions/gemini/jsonl_v040.jsonl")
    assert transcript.session == "gemini_stage0_jsonl"
    assert transcript.ended_at == "2026-04-29T21:39:45.996000Z"
    assert transcript.commands == ("ls -F",)


def _gemini_jsonl(tmp_path: Path, *records: dict[str, Any]) -> Path:
    header = {"sessionId": "rw-1", "projectHash": "ab", "startTime": "2026-05-01T10:00:00.000Z",
              "lastUpdated": "2026-05-01T10:00:00.000Z", "kind": "main"}
    return _write(tmp_path, "session-rw.jsonl", [header, *records])


def _said(key: str, kind: str, text: str) -> dict[str, Any]:
    return {"id": key, "timestamp": f"2026-05-01T10:00:0{key[-1]}.000Z", "type": kind, "content": [{"text": text}]}


def test_gemini_rewind_takes_the_rewound_messages_back(tmp_path: Path) -> None:
    """``/rewind`` appends ``{"$rewindTo": id}``: Gemini CLI reads the session without that
    message and every one after it. They were kept, the line counted unknown, so what the person
    took back was stored as the session's and the capture called degraded."""
    path = _gemini_jsonl(
        tmp_path,
        _said("m1", "user", "Add a retry to the fetch loop"), _said("m2", "gemini", "Added, with a fixed sleep."),
        _said("m3", "user", "Write the deploy password into config.py"), _said("m4", "gemini", "Written."),
        {"$rewindTo": "m3"},
        _said("m5", "user", "Read the deploy password from the environment"), _said("m6", "gemini", "Now read from it."),
    )
    transcript = parse_transcript(path)
    assert [t.key for t in transcript.turns] == ["m1", "m2", "m5", "m6"]
    assert transcript.counts == parse_transcript(path).counts and transcript.counts.parsed == transcript.counts.total == 8
    with path.open("a") as handle:  # an id no message has: the CLI reads no message before it
        handle.write(json.dumps({"$rewindTo": "gone"}) + "\n" + json.dumps(_said("m7", "user", "Start over")) + "\n")
    assert [t.key for t in parse_transcript(path).turns] == ["m7"]


def test_gemini_set_messages_replaces_the_conversation(tmp_path: Path) -> None:
    """A ``$set`` of ``messages`` (a compression, a cancelled prompt rolled back) is the
    conversation from then on: the messages it leaves out are gone, one it adds (the summary of
    a compression) is a turn; it was read for its header alone."""
    path = _gemini_jsonl(
        tmp_path,
        _said("m1", "user", "Add a retry to the fetch loop"), _said("m2", "gemini", "Added."),
        _said("m3", "user", "And the backoff"),
        {"$set": {"lastUpdated": "2026-05-01T10:00:05.000Z",
                  "messages": [_said("m1", "user", "Add a retry to the fetch loop"), _said("m2", "gemini", "Added."),
                               _said("s4", "user", "Summary: a retry was added to the fetch loop.")]}},
        _said("m5", "gemini", "Backoff added."),
    )
    transcript = parse_transcript(path)
    assert [(t.key, t.text) for t in transcript.turns] == [
        ("m1", "Add a retry to the fetch loop"), ("m2", "Added."),
        ("s4", "Summary: a retry was added to the fetch loop."), ("m5", "Backoff added."),
    ]
    assert transcript.counts.total == transcript.counts.parsed == 6


def test_gemini_rewind_past_the_turns_kept_keeps_them(tmp_path: Path) -> None:
    """A session longer than the turns a capture keeps, rewound to a message past them: that
    message is one left out, not one the session never had, so the kept turns stay; replaced
    whole, the count of those left out starts again."""
    said = [_said(f"m{n}", "user" if n % 2 else "gemini", f"turn {n}") for n in range(1, 6)]
    path = _gemini_jsonl(tmp_path, *said, {"$rewindTo": "m4"}, _said("m6", "gemini", "turn 6"))
    transcript = parse_transcript(path, limits=Limits(max_turns=2))
    assert [t.key for t in transcript.turns] == ["m1", "m2"] and transcript.turns_dropped == 4
    path = _gemini_jsonl(tmp_path, *said, {"$set": {"messages": said[:3]}}, {"$set": {"messages": said[:3]}})
    assert parse_transcript(path, limits=Limits(max_turns=2)).turns_dropped == 1


def test_gemini_session_context_is_no_task(tmp_path: Path) -> None:
    """From 0.45 a session records the context the CLI gives the model first (the date, the
    folders, the project's memory) as a user message in a ``$set`` of ``messages`` when it
    starts, as a checkpoint holds it in its first content: a system turn, not the person's task."""
    context = ("<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
               "Today's date is Friday, May 1, 2026.\n</session_context>")
    path = _gemini_jsonl(
        tmp_path,
        {"$set": {"messages": [{"id": "env", "timestamp": "2026-05-01T10:00:00.500Z", "type": "user",
                                "content": [{"text": context}]}]}},
        _said("m1", "user", "Add a retry to the fetch loop"), _said("m2", "gemini", "Added."),
    )
    transcript = parse_transcript(path)
    assert [(t.role, t.key) for t in transcript.turns] == [("system", "env"), ("user", "m1"), ("assistant", "m2")]
    checkpoint = tmp_path / "checkpoint-new.json"
    checkpoint.write_text(json.dumps({"history": [{"role": "user", "parts": [{"text": context}]},
                                                  {"role": "user", "parts": [{"text": "Add a retry"}]}]}))
    assert [t.role for t in parse_transcript(checkpoint).turns] == ["system", "user"]


def test_opencode_sessions() -> None:
    small = parse("agent-sessions/opencode/storage_v2/session/proj_test/ses_s_stage0_small.json")
    assert (small.session, small.version, small.cwd) == ("s_stage0_small", "1.3.17", "/tmp/repo")
    assert [t.role for t in small.turns] == ["user", "assistant", "tool"]
    assert [(c.command, c.exit_code, c.ok) for c in calls(small)] == [("ls", 0, True)]
    large = parse("agent-sessions/opencode/storage_v2/session/proj_test/ses_s_stage0_large.json")
    assert [(c.command, c.exit_code, c.ok) for c in calls(large)] == [("ls /non-existent-directory", 1, False)]
    assert large.files_touched == ("error.log",)
    assert [t.answers for t in small.turns] == [(), (), ((0, "ls"),)]
    legacy = parse("agent-sessions/opencode/storage_legacy/session/proj_test/ses_s_stage0_drift.json")
    assert legacy.commands == ("cat README.md",)


def test_codex_older_rollout_shape(tmp_path: Path) -> None:
    path = _write(tmp_path, "rollout-old.jsonl", [
        {"id": "legacy-1", "timestamp": "2025-05-01T10:00:00.000Z", "instructions": None, "git": {"branch": "dev"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the tests"}]},
        {"type": "function_call", "name": "shell", "call_id": "c1",
         "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]})},
        {"type": "function_call_output", "call_id": "c1",
         "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}})},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "One test fails."}]},
    ])
    assert detect_harness(path) == "codex"
    transcript = parse_transcript(path)
    assert (transcript.session, transcript.branch) == ("legacy-1", "dev")
    assert transcript.tests == (("pytest -q", False),)
    assert [t.role for t in transcript.turns] == ["user", "assistant", "tool", "assistant"]
    assert transcript.counts == type(transcript.counts)(6, 6, 0, 0)


def test_a_tool_turn_names_the_commands_whose_output_it_holds(tmp_path: Path) -> None:
    """Each harness's tool output comes with the command that printed it: the scanner reads an
    output with its command before it (a token printed alone on a line is one only by its
    command), and the two are texts of their own in the transcript."""
    command, output = "heroku auth:token", "5f2b1c8e-3d4a-4b6c-9e8f-1a2b3c4d5e6f\n"
    base = {"sessionId": "s1", "cwd": "/w", "version": "2.1.80"}
    claude = _write(tmp_path, "claude.jsonl", [
        base | {"type": "user", "uuid": "u0", "message": {"role": "user", "content": "show the token"}},
        base | {"type": "assistant", "uuid": "u1", "parentUuid": "u0", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}]}},
        base | {"type": "user", "uuid": "u2", "parentUuid": "u1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": output}]}},
    ])
    codex = _write(tmp_path, "rollout.jsonl", [
        {"id": "c-1", "timestamp": "2025-05-01T10:00:00.000Z", "instructions": None},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "show the token"}]},
        {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": json.dumps({"command": ["bash", "-lc", command]})},
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps({"output": output, "metadata": {"exit_code": 0}})},
    ])
    gemini_session = _write(tmp_path, "gemini.jsonl", [
        {"sessionId": "g1", "projectHash": "0b7d", "startTime": "2026-04-29T21:39:22.319Z", "kind": "main"},
        {"id": "m1", "timestamp": "2026-04-29T21:39:33.155Z", "type": "user", "content": [{"text": "show the token"}]},
        {"id": "m2", "timestamp": "2026-04-29T21:39:35.125Z", "type": "gemini", "content": "", "toolCalls": [
            {"id": "r1", "name": "run_shell_command", "args": {"command": command}, "status": "success",
             "result": [{"functionResponse": {"id": "r1", "name": "run_shell_command", "response": {"output": output}}}]}]},
    ])
    for path in (claude, codex, gemini_session):
        tools = [turn for turn in parse_transcript(path).turns if turn.role == "tool"]
        assert [(turn.text.strip(), turn.answers) for turn in tools] == [(output.strip(), ((0, command),))], path
        assert all(turn.answers == () for turn in parse_transcript(path).turns if turn.role != "tool"), path


def test_a_tool_turn_names_where_each_output_starts(tmp_path: Path) -> None:
    """A turn holding several outputs names where each starts and what it answers, so each is
    read with its own command; an output past the turn's limit is named only as far as it is
    kept, and a call that runs no command answers none."""
    outputs = ["On branch main\n", "5f2b1c8e-3d4a-4b6c-9e8f-1a2b3c4d5e6f\n", "# notes\n", "lorem ipsum dolor sit amet consectetur"]
    calls = [("run_shell_command", {"command": "git status"}), ("run_shell_command", {"command": "heroku auth:token"}),
             ("read_file", {"absolute_path": "/w/notes.md"}), ("run_shell_command", {"command": "cat big"})]
    path = _write(tmp_path, "gemini.jsonl", [
        {"sessionId": "g1", "projectHash": "0b7d", "startTime": "2026-04-29T21:39:22.319Z", "kind": "main"},
        {"id": "m1", "timestamp": "2026-04-29T21:39:33.155Z", "type": "user", "content": [{"text": "log in"}]},
        {"id": "m2", "timestamp": "2026-04-29T21:39:35.125Z", "type": "gemini", "content": "", "toolCalls": [
            {"id": f"r{n}", "name": name, "args": args, "status": "success",
             "result": [{"functionResponse": {"id": f"r{n}", "name": name, "response": {"output": out}}}]}
            for n, ((name, args), out) in enumerate(zip(calls, outputs))]},
    ])
    limit = sum(len(out) + 1 for out in outputs[:3]) + 10
    (tool,) = [t for t in parse_transcript(path, limits=Limits(max_text=limit)).turns if t.role == "tool"]
    starts = [start for start, _ in tool.answers]
    assert [command for _, command in tool.answers] == ["git status", "heroku auth:token", "", "cat big"]
    assert [tool.text[a:b] for a, b in zip(starts, starts[1:])] == [out + "\n" for out in outputs[:3]]
    assert tool.text[starts[-1]:].startswith("lorem ") and tool.truncated



def _claude_lines(tmp_path: Path, messages: list[dict[str, Any]]) -> Path:
    base = {"sessionId": "s1", "cwd": "/w", "version": "2.1.80", "isSidechain": False}
    return _write(tmp_path, "claude.jsonl", [
        base | {"type": m["role"], "uuid": f"u{n}", "timestamp": f"2030-01-01T00:00:{n:02}.000Z", "message": m}
        for n, m in enumerate(messages)])


def _use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}]}


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}]}


def test_an_output_apart_from_its_command_answers_it(tmp_path: Path) -> None:
    """What the shell mode printed answers the ``<bash-input>`` before it (in the same line or
    the one before); what ``BashOutput`` reads answers the background command its id names, the
    last one started when the id is unknown, from ``<stdout>`` on; a ``Read`` answers one only
    when it reads that command's output file; a printed line with no command typed answers none."""
    path = _claude_lines(tmp_path, [
        {"role": "user", "content": "<bash-stdout>before any input</bash-stdout>"},
        {"role": "user", "content": "<bash-input>pass show db</bash-input>"},
        {"role": "user", "content": [{"type": "text", "text": "<bash-stdout>s3cret</bash-stdout><bash-stderr></bash-stderr>"}]},
        {"role": "user", "content": "<bash-input>op read op://v/db/pw</bash-input>\n<bash-stdout>pw2</bash-stdout>"},
        _use("t1", "Bash", {"command": "vault kv get -field=pw db", "run_in_background": True}),
        _result("t1", "Command running in background with ID: bash_1"),
        _use("t2", "Bash", {"command": "npm run dev", "run_in_background": True}),
        _result("t2", "Command running in background with ID: bash_2. Output is being written to: /tmp/t/bash_2.output"),
        _use("t3", "BashOutput", {"bash_id": "bash_1"}),
        _result("t3", "<status>completed</status>\n\n<stdout>\npw3\n</stdout>"),
        _use("t4", "BashOutput", {"bash_id": "bash_9"}),
        _result("t4", "<status>running</status>"),
        _use("t5", "Read", {"file_path": "/tmp/t/bash_2.output"}),
        _result("t5", "ready"),
        _use("t6", "Read", {"file_path": "/w/notes.md"}),
        _result("t6", "notes"),
    ])
    turns = [t for t in parse_transcript(path).turns if t.role != "assistant"]
    assert [(t.text, t.answers) for t in turns[:4]] == [
        ("<bash-stdout>before any input</bash-stdout>", ()),
        ("<bash-input>pass show db</bash-input>", ()),
        ("<bash-stdout>s3cret</bash-stdout><bash-stderr></bash-stderr>", ((0, "pass show db"),)),
        ("<bash-input>op read op://v/db/pw</bash-input>\n<bash-stdout>pw2</bash-stdout>", ((46, "op read op://v/db/pw"),)),
    ]
    assert turns[3].text[46:].startswith("<bash-stdout>")
    answers = [t.answers for t in turns[4:]]
    assert answers == [((0, "vault kv get -field=pw db"),), ((0, "npm run dev"),),
                       ((0, ""), (37, "vault kv get -field=pw db")), ((0, "npm run dev"),), ((0, "npm run dev"),), ()]
    assert turns[6].text[37:] == "pw3\n</stdout>"
    assert [c.command for t in parse_transcript(path).turns for c in t.tools] == [
        "vault kv get -field=pw db", "npm run dev", None, None, None, None]


def test_a_test_left_running_in_the_background_has_the_result_its_reader_reports(tmp_path: Path) -> None:
    """A ``run_in_background`` call's result says the command started, and was taken for its
    outcome: a test run that went on to fail was stored as passed. Its result is now what a call
    reading its process by id reports of its end (``<exit_code>``, ``toolUseResult.exitCode``),
    and none while it runs (a capture then writes no command event for it)."""
    started = [
        _use("t1", "Bash", {"command": "pytest -q", "run_in_background": True}),
        _result("t1", "Command running in background with ID: bash_1"),
        _use("t2", "BashOutput", {"bash_id": "bash_1"}),
        _result("t2", "<status>running</status>\n\n<stdout>\ncollected 4 items\n</stdout>"),
    ]
    assert parse_transcript(_claude_lines(tmp_path, started)).tests == ()
    ended = [_use("t3", "BashOutput", {"bash_id": "bash_1"}),
             _result("t3", "<status>completed</status>\n\n<exit_code>1</exit_code>\n\n<stdout>\n3 failed, 1 passed\n</stdout>")]
    transcript = parse_transcript(_claude_lines(tmp_path, started + ended))
    assert transcript.tests == (("pytest -q", False),)
    assert [(c.command, c.exit_code, c.ok) for c in calls(transcript) if c.command] == [("pytest -q", 1, False)]
    newer = [_use("t3", "TaskOutput", {"task_id": "bash_1"}),
             _result("t3", "<retrieval_status>success</retrieval_status>\n\n<task_id>bash_1</task_id>\n\n"
                           "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\n4 passed\n</output>")]
    assert parse_transcript(_claude_lines(tmp_path, started + newer)).tests == (("pytest -q", True),)
    guessed = [_use("t3", "BashOutput", {"bash_id": "bash_9"}),  # an id never started names no command's end
               _result("t3", "<status>completed</status>\n\n<exit_code>0</exit_code>")]
    assert parse_transcript(_claude_lines(tmp_path, started + guessed)).tests == ()


def test_a_codex_test_left_running_has_the_result_write_stdin_reports(tmp_path: Path) -> None:
    def item(n: int, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": f"2030-01-01T00:00:{n:02}.000Z", "type": "response_item", "payload": payload}

    records = [
        {"timestamp": "2030-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s-codex", "cwd": "/w"}},
        item(1, {"type": "function_call", "call_id": "c1", "name": "exec_command",
                 "arguments": json.dumps({"cmd": "pytest -q", "yield_time_ms": 100})}),
        item(2, {"type": "function_call_output", "call_id": "c1", "output": (
            "Chunk ID: 1a2b\nWall time: 0.1002 seconds\nProcess running with session ID 4711\n"
            "Original token count: 3\nOutput:\ncollected 4 items\n")}),
    ]
    assert parse_transcript(_write(tmp_path, "rollout.jsonl", records)).tests == ()
    records += [
        item(3, {"type": "function_call", "call_id": "c2", "name": "write_stdin",
                 "arguments": json.dumps({"session_id": 4711, "chars": "", "yield_time_ms": 1000})}),
        item(4, {"type": "function_call_output", "call_id": "c2", "output": (
            "Chunk ID: 3c4d\nWall time: 1.0000 seconds\nProcess exited with code 1\n"
            "Original token count: 8\nOutput:\n3 failed, 1 passed\n")}),
    ]
    assert parse_transcript(_write(tmp_path, "rollout.jsonl", records)).tests == (("pytest -q", False),)


# -- damaged copies -----------------------------------------------------------------------------


@pytest.mark.parametrize("relative", sorted(JSONL))
def test_truncated_and_garbage_appended_copies_still_parse(relative: str, tmp_path: Path) -> None:
    original = sample(relative).read_bytes()
    whole = parse_transcript(sample(relative))
    # Cut inside a line two thirds in (the drift samples keep their last, recognizable line).
    cut = original[: len(original) * 2 // 3] if "drift" not in relative else original
    damaged = tmp_path / Path(relative).name
    damaged.write_bytes(cut + b"\n\x00\xff garbage {\"type\":\n" + b"{" * 5000 + b"\n" + b'[1, 2, 3]\n')
    transcript = parse_transcript(damaged)
    counts = transcript.counts
    assert transcript.harness == whole.harness
    assert counts.malformed >= 3 and counts.parsed + counts.unknown > 0
    assert counts.parsed > 0 or "drift" in relative
    # Before the cut, the same turns (their calls' results may lie after the cut).
    kept = len(transcript.turns) - 1
    assert [(t.role, t.key, t.at, t.text) for t in transcript.turns[:kept]] == [
        (t.role, t.key, t.at, t.text) for t in whole.turns[:kept]
    ]
    assert counts.total == counts.parsed + counts.unknown + counts.malformed
    assert parse_transcript(damaged) == transcript


GEMINI_DOCUMENTS = [p for p in SAMPLES if p.endswith(".json") and "gemini" in p]
STREAMED = Limits(stream_json_bytes=0)  # every document read message by message


@pytest.mark.parametrize("relative", GEMINI_DOCUMENTS)
def test_gemini_document_read_whole_or_streamed_is_the_same(relative: str) -> None:
    assert parse_transcript(sample(relative), limits=STREAMED) == parse_transcript(sample(relative))


@pytest.mark.parametrize("limits", [None, STREAMED], ids=["whole", "streamed"])
@pytest.mark.parametrize("relative", [p for p in GEMINI_DOCUMENTS if "drift" not in p])
def test_gemini_document_cut_short_keeps_complete_messages(relative: str, limits: Limits | None, tmp_path: Path) -> None:
    text = sample(relative).read_text()
    whole = parse_transcript(sample(relative))
    damaged = tmp_path / "session.json"
    for cut in (len(text) * 3 // 4, len(text) // 2, text.rindex("}")):
        damaged.write_text(text[:cut])
        transcript = parse_transcript(damaged, limits=limits)
        assert transcript.harness == "gemini-cli" and transcript.session == whole.session
        assert transcript.counts.malformed == 1
        assert transcript.counts.parsed <= whole.counts.parsed
        assert transcript.turns == whole.turns[: len(transcript.turns)]
    damaged.write_text(text + "\n}garbage")
    appended = parse_transcript(damaged, limits=limits)
    assert appended.turns == whole.turns and appended.counts.malformed == 1


# A checkpoint as Gemini CLI writes it (``/chat save``, and the only record of a conversation
# before 0.2): its model history, the context it gives the model first, a shell call answered in
# the user content after it (the response's id is the CLI's own, the call has none).
CHECKPOINT = [
    {"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context for our chat.\n"
                                        "I'm currently working in the directory: /tmp/widgets"}]},
    {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
    {"role": "user", "parts": [{"text": "Run the unit tests and fix the one that fails"}]},
    {"role": "model", "parts": [{"text": "Planning the run.", "thought": True},
                                {"text": "I will run them."},
                                {"functionCall": {"name": "run_shell_command", "args": {"command": "pytest -q tests/unit"}}}]},
    {"role": "user", "parts": [{"functionResponse": {
        "id": "run_shell_command-1760000000000-1", "name": "run_shell_command",
        "response": {"output": "Command: pytest -q tests/unit\nStdout: 1 failed, 3 passed\nExit Code: 1"}}}]},
    {"role": "model", "parts": [{"text": "One test failed: the parser's last line was off by one; fixed."}]},
]


@pytest.mark.parametrize("limits", [None, STREAMED], ids=["whole", "streamed"])
@pytest.mark.parametrize("shape", ["array", "history", "one-line"])
def test_gemini_checkpoint_is_read(tmp_path: Path, shape: str, limits: Limits | None) -> None:
    """A checkpoint's contents (role and parts, no type) were each one malformed record: with
    ``--harness gemini-cli`` (and without it, when it named a session) a session of no turn at
    all was stored as captured, and without it the file was no transcript."""
    path = tmp_path / "checkpoint-fix.json"
    document: Any = CHECKPOINT if shape == "array" else {"history": CHECKPOINT, "authType": "oauth-personal"}
    path.write_text(json.dumps(document, indent=2) if shape != "one-line" else json.dumps(document) + "\n")
    assert detect_harness(path) == "gemini-cli"
    transcript = parse_transcript(path, limits=limits)
    assert transcript.counts == parse_transcript(path, "gemini-cli").counts
    assert (transcript.counts.total, transcript.counts.parsed) == ((6, 6) if shape != "one-line" else (1, 1))
    assert [(t.role, t.text) for t in transcript.turns] == [
        ("system", CHECKPOINT[0]["parts"][0]["text"]),
        ("assistant", "Got it. Thanks for the context!"),
        ("user", "Run the unit tests and fix the one that fails"),
        ("assistant", "I will run them."),
        ("tool", "Command: pytest -q tests/unit\nStdout: 1 failed, 3 passed\nExit Code: 1"),
        ("assistant", "One test failed: the parser's last line was off by one; fixed."),
    ]
    assert [(c.command, c.exit_code, c.ok) for c in calls(transcript)] == [("pytest -q tests/unit", 1, False)]
    assert transcript.tests == (("pytest -q tests/unit", False),)
    assert transcript.session is None  # it names none: the capture keys it by its file's name


def test_gemini_prompt_log_is_refused_saying_what_it_is(tmp_path: Path) -> None:
    """``logs.json`` keeps the prompts typed, of every session of the project, and nothing else."""
    path = tmp_path / "logs.json"
    path.write_text(json.dumps([{"sessionId": "s1", "messageId": 0, "type": "user",
                                 "message": "Run the unit tests", "timestamp": "2025-07-01T10:00:00.000Z"}]))
    with pytest.raises(InvalidInput, match=r"log of the prompts typed \(logs\.json\), not a session"):
        parse_transcript(path)
    with pytest.raises(InvalidInput, match="no gemini-cli transcript records found"):
        parse_transcript(path, "gemini-cli")


def test_an_array_of_other_things_is_no_gemini_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    for document in ([], [{"type": "user", "content": "hi"}], [1, 2]):
        path.write_text(json.dumps(document))
        for limits in (None, STREAMED):
            with pytest.raises(InvalidInput):
                parse_transcript(path, "gemini-cli", limits=limits)


# -- a session document read in chunks ----------------------------------------------------------
# What the chunked reading must equal: the former reading, the whole file's text decoded at once
# and each message decoded where the last one ended.


def _read_whole_text(path: Path) -> Transcript:
    session = gemini._Session(Builder(gemini.HARNESS, path, STREAMED))
    builder, decoder = session.builder, json.JSONDecoder()
    text = path.read_bytes().decode("utf-8", errors="replace")
    found = gemini._MESSAGES.search(text)
    if found is None:
        return session.finish()
    builder.recognized = True
    session.header(gemini._members_before(text[: found.start()]))
    separators = re.compile(r"[ \t\r\n,]*")
    position, index = found.end(), 0
    while True:
        position = separators.match(text, position).end()  # type: ignore[union-attr]
        if position >= len(text):
            builder.malformed()
            return session.finish()
        if text[position] == "]":
            break
        try:
            message, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            builder.malformed()
            past = _past_value(text, position)
            if past is None:
                return session.finish()
            position = past  # an object, array or string that closes: read on after it
        else:
            session.message(message, index)
        index += 1
    opened = '{"":0' + text[position + 1:]
    try:
        value, end = decoder.raw_decode(opened)
    except (ValueError, RecursionError):
        builder.malformed()
        return session.finish()
    if isinstance(value, dict):
        session.header(value)
    if opened[end:].strip():
        builder.malformed()
    return session.finish()


def _past_value(text: str, position: int) -> int | None:
    """Where the object, array or string at POSITION ends; for anything else (a bad literal),
    where the array's member ends, at the ``,`` or ``]`` outside strings and brackets after it.
    None for one never closed, or for a closing bracket of the other kind. A character at a time."""
    scalar = text[position] not in '{["'
    opened: list[str] = []
    in_string = escaped = False
    for index in range(position, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                if not opened and not scalar:
                    return index + 1
        elif scalar and not opened and char in ",]":
            return index
        elif char == '"':
            in_string = True
        elif char in "[{":
            opened.append("]" if char == "[" else "}")
        elif char in "]}":
            if not opened or opened.pop() != char:
                return None
            if not opened and not scalar:
                return index + 1
    return None


def _outcome(read: Any, path: Path) -> Any:
    try:
        return read(path)
    except InvalidInput as exc:
        return str(exc)


def _read_in_chunks(path: Path) -> Transcript:
    return parse_transcript(path, "gemini-cli", limits=STREAMED)


def _session_document(*messages: bytes, tail: bytes = b'], "lastUpdated": "2025-01-02T00:00:00Z"}') -> bytes:
    return b'{"sessionId": "s", "startTime": "2025-01-01T00:00:00Z", "messages": [' + b",".join(messages) + tail


def _user(content: bytes, key: str = "m") -> bytes:
    return b'{"id": "%s", "type": "user", "content": %s}' % (key.encode(), content)


HOSTILE_DOCUMENTS = {
    "escaped quotes and brackets": _session_document(_user(rb'"say \"hi\" ]} {[ \\"'), _user(rb'"\\\"]\\"', "b")),
    "nested": _session_document(b'{"id": "n", "type": "gemini", "content": [{"text": "a"}, {"x": {"y": [1, {"z": "]"}]}}],'
                                b' "toolCalls": [{"name": "run_shell_command", "args": {"command": "ls"}, "status": "success",'
                                b' "result": [{"functionResponse": {"response": {"output": "Exit Code: 2"}}}]}]}'),
    "lone surrogates": _session_document(_user(rb'"cut \ud83d here"'), _user(b'"cut \xed\xa0\xbd, \xff \xc3"', "b")),
    "non-ASCII": _session_document(_user("\"\U0001f680 中文 ✓\"".encode()), _user(b'"\\u005d\\u0022"', "b")),
    "values that are no message": _session_document(b"1", b"null", b'"x"', b"[1, 2]", b"-1.5e3", b"NaN", b"-Infinity",
                                                    b"01", _user(b'"after"')),
    "no value": _session_document(_user(b'"a"'), b"nullx", _user(b'"b"', "b")),
    "bad literals": _session_document(_user(b'"a"'), b"nul", _user(b'"b"', "b"), b'tru {"x": [1, "],"]} "q,]" ',
                                      b"-", _user(b'"c"', "c"), b"nan}", _user(b'"d"', "d")),
    "separators": b" \xef\xbb\xbf\n" + _session_document(b"\n\t " + _user(b'"a"') + b" \r\n", b",,", _user(b'"b"', "b"),
                                                          tail=b'] ,"lastUpdated": "2025-01-02T00:00:00Z"}\n\n'),
    "Unicode spaces": b'{"sessionId": "s", "messages"\xc2\xa0:\xe2\x80\xa8[' + _user(b'"a"') + b"]}\xe3\x80\x80\xc2\xa0",
    "a closing bracket of the other kind": _session_document(_user(b'"a"'), b'{"id": "x", "content": [1}', _user(b'"c"', "c")),
    "a message never closed": _session_document(_user(b'"a"'), b'{"id": "x", "content": "q"', _user(b'"c"', "c")),
    "deep nesting": _session_document(b"[" * 500 + b"]" * 500, b"[" * 3000 + b"]" * 3000, _user(b'"a"')),
    "a message nested too deeply": _session_document(_user(b'"a"'), b'{"id": "d", "a": ' + b'{"k": ' * 1100 + b"1"
                                                     + b"}" * 1101, _user(b'"[\\"]"', "b"), b'"\\x"', _user(b'"c"', "c")),
    "a big number": _session_document(b'{"id": "n", "type": "user", "content": "x", "n": ' + b"9" * 5000 + b"}"),
    "garbage after": _session_document(_user(b'"a"')) + b"\n}garbage",
    "header after the messages": b'{"messages": [' + _user(b'"a"') + b'], "sessionId": "late"}',
    "header members cut": _session_document(_user(b'"a"'), tail=b'], "sessionId": }'),
    "the name in a text": b'{"sessionId": "\\"messages\\": [", "messages": [' + _user(b'"a"') + b"]}",
}


@pytest.mark.parametrize("chunk", [1, 3, _document.CHUNK])
def test_a_bad_literal_among_the_messages_is_one_malformed_record_and_the_rest_are_read(
        chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bare bad literal (``nul``) as a message of a Gemini CLI document dropped every message
    after it, uncounted."""
    monkeypatch.setattr(_document, "CHUNK", chunk)
    path = tmp_path / "session.json"
    path.write_bytes(_session_document(_user(b'"a"'), b"nul", _user(b'"b"', "b"), b'tru {"x": "],"} [",", 1]',
                                       _user(b'"c"', "c")))
    transcript = parse_transcript(path, "gemini-cli")
    assert [turn.text for turn in transcript.turns] == ["a", "b", "c"]
    assert (transcript.counts.parsed, transcript.counts.malformed) == (3, 2)


@pytest.mark.parametrize("chunk", [1, 3, 64, _document.CHUNK])
@pytest.mark.parametrize("name", list(HOSTILE_DOCUMENTS))
def test_gemini_document_read_in_chunks_is_read_as_its_whole_text(name: str, chunk: int, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_document, "CHUNK", chunk)
    data = HOSTILE_DOCUMENTS[name]
    path = tmp_path / "session.json"
    for cut in sorted({len(data), *range(0, len(data), max(1, len(data) // 60))}):
        path.write_bytes(data[:cut])
        assert _outcome(_read_in_chunks, path) == _outcome(_read_whole_text, path), cut


@pytest.mark.parametrize("relative", GEMINI_DOCUMENTS)
def test_gemini_sample_read_in_chunks_is_read_as_its_whole_text(relative: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    data = sample(relative).read_bytes()
    path = tmp_path / "session.json"
    for chunk in (1, 5, _document.CHUNK):
        monkeypatch.setattr(_document, "CHUNK", chunk)
        for variant in (data, b"\xef\xbb\xbf" + data, data + b"\n}garbage", *(data[:cut] for cut in range(0, len(data), 97))):
            path.write_bytes(variant)
            assert _outcome(_read_in_chunks, path) == _outcome(_read_whole_text, path)


_PIECES = [b"{", b"}", b"[", b"]", b'"', b"\\", b",", b":", b" ", b"\n", b"1", b".", b"e", b"-", b"null", b"NaN",
           b'"messages": [', b'"type": "user", ', b'"content": "a"', b'\\"', b"\\u", b"d83d", b"\xf0\x9f\x9a\x80",
           b"\xf0\x9f", b"\xff", b"\xc2\xa0", b'{"id": "m", "type": "gemini", "content": "b"}']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.integers(min_value=1, max_value=9))
def test_any_document_read_in_chunks_is_read_as_its_whole_text(tmp_path_factory: pytest.TempPathFactory,
                                                               pieces: list[bytes], chunk: int) -> None:
    path = tmp_path_factory.mktemp("chunks") / "session.json"
    path.write_bytes(b'{"sessionId": "s", "messages": [' + b"".join(pieces))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_document, "CHUNK", chunk)
        assert _outcome(_read_in_chunks, path) == _outcome(_read_whole_text, path)


@pytest.mark.parametrize("stretch", [b"0," * 100_000, b'"a", ' + b"0," * 100_000, b'"pad": [' + b"0," * 100_000])
def test_finding_the_messages_searches_each_character_of_the_header_about_once(
        stretch: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A header that runs long without a quote before ``"messages"`` was searched again from its
    last quotes with every chunk read: time grew with the square of its length (20 s for 80 MiB).
    Counted, not timed: the characters searched stay within a few times the document's."""
    monkeypatch.setattr(_document, "CHUNK", 1024)
    path = tmp_path / "session.json"
    path.write_bytes(b'{"sessionId": "s", "pad": [' + stretch + b'0], "messages"  :\n [' + _user(b'"a"') + b"]}")
    with path.open("rb") as handle:
        text = _document.Text(path, handle, 1 << 30)
        before = text.find(gemini._MESSAGES)
    assert before is not None and before.endswith("0], ")
    assert text.searched <= 2 * path.stat().st_size, text.searched
    assert [turn.text for turn in _read_in_chunks(path).turns] == ["a"]


def test_a_name_followed_by_more_separators_than_a_pattern_allows_is_no_match(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``Text.find`` keeps searching across chunks is bounded: a name, then whitespace and a
    colon of at most ``GAP_CHARS`` characters; within that the match is found across chunks."""
    monkeypatch.setattr(_document, "CHUNK", 16)
    monkeypatch.setattr(_document, "GAP_CHARS", 100)
    path = tmp_path / "session.json"
    for gap, found in ((b" " * 60 + b":" + b" " * 30, True), (b" " * 200 + b":", False)):
        path.write_bytes(b'{"sessionId": "s", "messages"' + gap + b"[" + _user(b'"a"') + b"]}")
        with path.open("rb") as handle:
            assert (_document.Text(path, handle, 1 << 30).find(gemini._MESSAGES) is not None) is found, gap


def _long_session(path: Path, size: int) -> None:
    """A Gemini CLI session document of about SIZE bytes: one emoji in its first message makes
    Python keep four bytes a character of any text holding it."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"sessionId": "long", "startTime": "2025-01-01T00:00:00Z", "messages": [\n')
        number = 0
        while out.tell() < size:
            text = "launch \U0001f680 " if number == 0 else f"step {number} "
            call = {"id": f"c{number}", "name": "run_shell_command", "args": {"command": "echo \"[ok]\""},
                    "status": "success", "resultDisplay": "Exit Code: 0 {[\\\"]}"}
            message = {"id": f"m{number}", "timestamp": "2025-01-01T00:00:01Z", "type": "gemini",
                       "content": text + "x" * 400, "toolCalls": [call]}
            out.write(("," if number else "") + json.dumps(message, ensure_ascii=False) + "\n")
            number += 1
        out.write('], "lastUpdated": "2025-01-01T01:00:00Z"}\n')


@pytest.mark.slow
def test_gemini_document_is_read_in_memory_of_a_message_not_the_file(tmp_path: Path) -> None:
    """A large session document is read message by message: the text of the whole file, once
    held at four bytes a character, cost five times the file."""
    path = tmp_path / "session.json"
    _long_session(path, 24 << 20)
    limits = Limits(max_turns=50)  # what the session keeps is bounded on its own
    tracemalloc.start()
    try:
        transcript = parse_transcript(path, "gemini-cli", limits=limits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert transcript.counts.malformed == 0 and transcript.ended_at is not None
    assert transcript.turns[0].text.startswith("launch \U0001f680")
    assert peak < path.stat().st_size // 2


def test_a_large_gemini_document_is_told_from_its_start_not_decoded_whole(tmp_path: Path) -> None:
    """Without ``--harness``, telling a session document's harness decoded the whole file: a
    200 MB session cost 1.2 GB before its parser, reading it a message at a time, began."""
    path = tmp_path / "session.json"
    _long_session(path, 12 << 20)  # the sample read to tell any transcript is 1 MiB
    path.write_bytes(path.read_bytes().replace(b"\n", b""))  # one line: no line of it tells the harness
    tracemalloc.start()
    try:
        found = detect_harness(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == "gemini-cli"
    assert peak < path.stat().st_size // 2
    text_only = tmp_path / "text.json"  # the same words inside a string's text are no session
    text_only.write_text(json.dumps({"note": '"messages": [ "sessionId": ' + "x" * (2 << 20)}))
    with pytest.raises(InvalidInput):
        detect_harness(text_only)


def test_gemini_document_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(_session_document(*[_user(b'"a"', f"m{n}") for n in range(40)]))
    size = path.stat().st_size
    refused = Limits(max_json_bytes=size - 1, stream_json_bytes=100)
    with pytest.raises(InvalidInput, match=f"larger than {size - 1} bytes, too large to read as one document"):
        parse_transcript(path, "gemini-cli", limits=refused)
    read = parse_transcript(path, "gemini-cli", limits=refused._replace(max_json_bytes=size))
    assert read.counts.parsed == 40 and read == parse_transcript(path, "gemini-cli")


def test_oversized_line_is_malformed_not_read(tmp_path: Path) -> None:
    source = sample("agent-history/v1/claude_golden.jsonl").read_bytes()
    big = b'{"type":"user","message":{"role":"user","content":"' + b"x" * 5000 + b'"}}\n'
    path = tmp_path / "big.jsonl"
    path.write_bytes(source + big + source.splitlines(keepends=True)[0])
    transcript = parse_transcript(path, limits=Limits(max_line_bytes=4096))
    assert transcript.counts.malformed == 1 and transcript.counts.total == 8


@pytest.mark.parametrize("max_bytes", [1 << 20, 12])
def test_a_line_still_being_written_ends_the_read(tmp_path: Path, max_bytes: int) -> None:
    """A harness appends to its transcript while a hook's capture reads it (Codex runs its hook
    every turn and writes the next one meanwhile): a line read half-written at the file's end
    is where the read stops. Read on, the rest of that line was a line of its own, two records
    counted malformed, and every line after it numbered one too far: Codex's turns are keyed by
    their line number, so a later capture stored each of them again under another key."""
    first, second, third = (json.dumps({"turn": n, "text": "x" * 20}).encode() + b"\n" for n in range(3))
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(first + second[:9])  # the harness is half-way through writing its second line
    read = lines(path, max_bytes)
    got = [next(read), next(read)]
    with path.open("ab") as out:
        out.write(second[9:] + third)  # and writes the rest, and the next line, meanwhile
    got += list(read)
    assert [number for number, _ in got] == [1, 2]
    whole = list(lines(path, max_bytes))
    assert [number for number, _ in whole] == [1, 2, 3]
    assert got[0] == whole[0]


# -- limits -------------------------------------------------------------------------------------


def test_long_text_is_truncated_and_marked(tmp_path: Path) -> None:
    line = {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2025-01-01T00:00:00Z",
            "message": {"role": "user", "content": "ééé " * 12_500}}
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(line) + "\n")
    turn = parse_transcript(path).turns[0]
    assert turn.truncated
    assert turn.text == "ééé " * 5_000 + "\n[gitstore: 30000 more characters truncated]"


def test_a_cut_never_splits_a_word(tmp_path: Path) -> None:
    """Texts are bounded before the safety scanner sees them, and a token's cut end gives it
    away while the scanner no longer knows it for one: the word a cut would split goes too,
    all of a text with no break in it."""
    line = {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2025-01-01T00:00:00Z",
            "message": {"role": "user", "content": "ab " * 6_666 + "c" * 100}}
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert parse_transcript(path).turns[0].text == "ab " * 6_666 + "\n[gitstore: 100 more characters truncated]"
    path.write_text(json.dumps(line | {"message": {"role": "user", "content": "é" * 50_000}}) + "\n")
    assert parse_transcript(path).turns[0].text == "\n[gitstore: 50000 more characters truncated]"


def test_turn_cap_counts_the_rest(tmp_path: Path) -> None:
    lines = []
    for n in range(30):
        lines.append({"type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": f"step {n}"}})
        lines.append({"type": "assistant", "uuid": f"a{n}", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": f"echo {n}"}}]}})
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    transcript = parse_transcript(path, limits=Limits(max_turns=10, max_text=5, max_items=25))
    assert len(transcript.turns) == 10 and transcript.turns_dropped == 50
    assert transcript.counts.parsed == 60
    assert len(transcript.commands) == 25  # calls in dropped turns still count, up to the cap
    assert transcript.turns[0].text.startswith("ste") and transcript.turns[0].truncated


# -- tests run, pass and fail -------------------------------------------------------------------


def test_test_runs_claude(tmp_path: Path) -> None:
    def use(n: int, command: str) -> dict[str, Any]:
        return {"type": "assistant", "uuid": f"a{n}", "sessionId": "s", "cwd": "/repo", "message": {
            "id": f"m{n}", "role": "assistant",
            "content": [{"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": command}}]}}

    def result(n: int, text: str, error: bool | None = None) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"t{n}", "content": text}
        if error is not None:
            block["is_error"] = error
        return {"type": "user", "uuid": f"r{n}", "message": {"role": "user", "content": [block]}}

    path = _write(tmp_path, "claude.jsonl", [
        use(1, "cd /repo && python -m pytest -q tests/"), result(1, "Exit code 1\n1 failed, 3 passed", True),
        use(2, "uv run pytest -x"), result(2, "4 passed in 0.1s"),
        use(3, "npm test"), result(3, "Tests: 2 failed, 5 passed"),
        use(4, "cat pytest.ini"), result(4, "[pytest]"),
        use(5, "go test ./..."),
    ])
    transcript = parse_transcript(path)
    assert transcript.tests == (
        ("cd /repo && python -m pytest -q tests/", False),
        ("uv run pytest -x", True),
        ("npm test", False),
    )
    assert calls(transcript)[0].exit_code == 1
    assert transcript.commands[-1] == "go test ./..."  # ran (or is running), outcome unknown


def test_test_runs_codex_and_gemini(tmp_path: Path) -> None:
    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2025-01-01T00:00:00Z", "type": kind, "payload": payload}

    codex = _write(tmp_path, "rollout.jsonl", [
        line("session_meta", {"id": "c1", "cwd": "/repo", "cli_version": "0.50.0"}),
        line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                               "arguments": json.dumps({"command": ["bash", "-lc", "cargo test"]})}),
        line("response_item", {"type": "function_call_output", "call_id": "c1",
                               "output": json.dumps({"output": "test result: ok. 3 passed", "metadata": {"exit_code": 101}})}),
        line("response_item", {"type": "function_call", "name": "exec_command", "call_id": "c2",
                               "arguments": json.dumps({"cmd": "pytest"})}),
        line("response_item", {"type": "function_call_output", "call_id": "c2",
                               "output": "Chunk ID: 1\nWall time: 1s\nProcess exited with code 0\nOutput:\n5 passed"}),
        line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c3",
                               "input": "*** Begin Patch\n*** Update File: /repo/src/a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch"}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "c3", "output": "Success."}),
    ])
    transcript = parse_transcript(codex)
    assert transcript.tests == (("cargo test", False), ("pytest", True))
    assert transcript.files_touched == ("src/a.py", "b.py")
    gemini = tmp_path / "session.json"
    gemini.write_text(json.dumps({"sessionId": "g", "startTime": "2025-01-01T00:00:00Z", "messages": [
        {"id": "m1", "type": "gemini", "content": "", "toolCalls": [{
            "id": "t1", "name": "run_shell_command", "args": {"command": "npm run test:unit"}, "status": "success",
            "result": [{"functionResponse": {"response": {"output": "Output: FAIL src/x.test.ts\nExit Code: 1"}}}]}]},
        {"id": "m2", "type": "gemini", "content": "", "toolCalls": [{
            "id": "t2", "name": "run_shell_command", "args": {"command": "make test"}, "status": "cancelled"}]},
    ]}))
    transcript = parse_transcript(gemini)
    assert transcript.tests == (("npm run test:unit", False),)
    assert [c.rejected for c in calls(transcript)] == [False, True]


@pytest.mark.parametrize(
    ("command", "is_test"),
    [
        ("pytest", True), ("python3 -m pytest -q", True), ("python -m unittest discover", True),
        ("FOO=1 npx vitest run", True), ("pnpm run test:e2e", True), ("yarn test", True),
        ("cargo nextest run", True), ("go test ./...", True), ("./gradlew :app:test", True),
        ("timeout 60 tox -e py311", True), ("bundle exec rspec", True), ("make check", True),
        ("cd app && npm test", True), (".venv/bin/pytest tests", True),
        ("cat pytest.ini", False), ("pip install pytest", False), ("npm run build", False),
        ("git commit -m 'fix test'", False), ("ls tests/", False), ("echo go test", False),
    ],
)
def test_test_command_detection(command: str, is_test: bool) -> None:
    assert is_test_command(command) is is_test


@pytest.mark.parametrize(
    ("output", "passed"),
    [
        ("==== 3 passed in 0.2s ====", True), ("==== 1 failed, 2 passed ====", False),
        ("test result: ok. 10 passed; 0 failed", True), ("test result: FAILED. 1 passed; 1 failed", False),
        ("ok  \texample.com/pkg\t0.01s", True), ("--- FAIL: TestX\nFAIL\texample.com/pkg", False),
        ("Ran 3 tests in 0.001s\n\nOK", True), ("no output here", None), ("0 failed", None),
    ],
)
def test_test_outcome_from_output(output: str, passed: bool | None) -> None:
    assert outcome_in_output(output) is passed


# -- any shape of input -------------------------------------------------------------------------

_JUNK: list[Any] = [None, -1, 2**70, 1.5, "", "x", [None], {}, [{"text": 3}]]
_FUZZED = [
    "agent-history/rejections/claude_with_rejection.jsonl",
    "agent-history/rejections/codex_with_escalation.jsonl",
    "agent-history/rejections/gemini_with_tool_error.jsonl",
    "agent-sessions/gemini/jsonl_v040.jsonl",
]


def _paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = [prefix] if prefix else []
    if depth >= 4:
        return found
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        found += _paths(inner, (*prefix, key), depth + 1)
    return found


def _rewritten(file: Path, text: str) -> None:
    """``file`` holding ``text``, written as a new file: truncating and rewriting the same file
    thousands of times makes ext4 flush it each time (auto_da_alloc), several times the cost."""
    file.unlink(missing_ok=True)
    file.write_text(text)


def _replaced(value: Any, path: tuple[Any, ...], junk: Any) -> Any:
    changed = copy.deepcopy(value)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = junk
    return changed


@pytest.mark.slow
@pytest.mark.parametrize("relative", _FUZZED)
def test_any_value_anywhere_never_crashes(relative: str, tmp_path: Path) -> None:
    source = [json.loads(line) for line in sample(relative).read_text().splitlines() if line.strip()]
    harness = SAMPLES[relative]
    lines = [json.dumps(r) + "\n" for r in source]
    variants: list[str] = []
    for index, record in enumerate(source):
        before, after = "".join(lines[:index]), "".join(lines[index + 1:])
        for path in _paths(record):
            for junk in _JUNK:
                variants.append(before + json.dumps(_replaced(record, path, junk)) + "\n" + after)
    file = tmp_path / "variant.jsonl"
    for number, text in enumerate(variants):
        _rewritten(file, text)
        if number % 5 == 0:
            try:
                assert detect_harness(file) in (harness, "claude-code", "codex", "gemini-cli")
            except InvalidInput:
                pass
        try:
            transcript = parse_transcript(file, harness)
        except InvalidInput:
            continue
        counts = transcript.counts
        assert counts.total == counts.parsed + counts.unknown + counts.malformed == len(source)


@pytest.mark.slow
def test_any_value_in_documents_never_crashes(tmp_path: Path) -> None:
    document = json.loads(sample("agent-history/v1/gemini_golden.json").read_text())
    file = tmp_path / "session.json"
    for path in _paths(document):
        for junk in _JUNK:
            _rewritten(file, json.dumps(_replaced(document, path, junk)))
            try:
                transcript = parse_transcript(file, "gemini-cli")
            except InvalidInput:
                continue
            assert transcript.counts.total == transcript.counts.parsed + transcript.counts.unknown + transcript.counts.malformed


def test_opencode_damaged_storage(tmp_path: Path) -> None:
    root = tmp_path / "storage"
    shutil.copytree(shared(*T, "agent-sessions", "opencode", "storage_v2"), root)
    (root / "part" / "m_assistant_large_1" / "009.json").write_text("{not json")
    (root / "part" / "m_assistant_large_1" / "010.json").write_text('{"type": "hologram"}')
    (root / "message" / "s_stage0_large" / "msg_0005.json").write_text('{"id": "m5", "role": "narrator"}')
    transcript = parse_transcript(root / "session" / "proj_test" / "ses_s_stage0_large.json")
    assert transcript.counts == type(transcript.counts)(19, 16, 2, 1)
    assert transcript.unknown_types == ("message:narrator", "part:hologram")
    escape = root / "session" / "proj_test" / "ses_escape.json"
    escape.write_text('{"id": "../../x", "directory": "/tmp", "time": {}, "projectID": "p"}')
    with pytest.raises(InvalidInput):
        parse_transcript(escape)


# -- the debugging command ----------------------------------------------------------------------


def test_module_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    golden = sample("agent-history/v1/claude_golden.jsonl")
    assert cli.main([str(golden)]) == 0
    out = capsys.readouterr().out
    assert "harness claude-code  session golden-claude-001" in out
    assert "records 6: parsed 6, unknown 0, malformed 0" in out
    assert cli.main(["--json", str(golden)]) == 0
    assert json.loads(capsys.readouterr().out)["session"] == "golden-claude-001"
    refused = sample("agent-history/v1/expected_values.json")
    assert cli.main([str(refused)]) == 1
    assert "not a transcript" in capsys.readouterr().err


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2100, 1, 1)),
    st.sampled_from(["Z", "z", "+00:00", "+05:30", "-08:00"]),
    st.integers(min_value=0, max_value=7),
)
def test_fast_time_path_matches_normalize_time(moment: datetime, zone: str, digits: int) -> None:
    text = moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{moment.microsecond:06d}0"[: digits + 1] if digits else "") + zone
    assert iso_time(text) == normalize_time(text)


@pytest.mark.parametrize("text", ["2025-02-30T10:00:00Z", "2025-01-03T24:00:00Z", "2025-01-03T10:00:60Z", "2025-01-03", "yesterday"])
def test_bad_times_are_none(text: str) -> None:
    assert iso_time(text) is None


def test_benchmark_quick_reports_mb_per_second() -> None:
    shared(*T)
    done = subprocess.run(
        [sys.executable, "-m", "bench", "transcripts", "--quick", "--", "--size", "0.3"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^transcripts: parse \d+(\.\d+)? MB/s, baseline", done.stdout, re.M), done.stdout


def test_claude_subagents_past_the_limit_are_counted_as_left_out(tmp_path: Path) -> None:
    """A session keeps the first ``max_items`` subagents' transcripts by name; the others are
    counted, so a capture can say they were left out rather than lose them without a word."""
    session = tmp_path / "sess-1.jsonl"
    line = {"type": "user", "uuid": "u0", "sessionId": "sess-1", "message": {"role": "user", "content": "Go."}}
    session.write_text(json.dumps(line) + "\n")
    folder = tmp_path / "sess-1" / "subagents"
    folder.mkdir(parents=True)
    for name in ("agent-c", "agent-a", "agent-b"):
        (folder / f"{name}.jsonl").write_text(json.dumps({**line, "isSidechain": True}) + "\n")
    parsed = parse_transcript(session, limits=Limits(max_items=2))
    assert [Path(p).name for p in parsed.subagents] == ["agent-a.jsonl", "agent-b.jsonl"]
    assert parsed.subagents_left_out == 1
    assert parse_transcript(session).subagents_left_out == 0


def _pasted_log(source: Path, path: Path, size: int) -> Path:
    """SOURCE, a Claude Code session, with a log of about SIZE bytes pasted into its first prompt
    written as a plain string."""
    lines = source.read_text(encoding="utf-8").splitlines()
    first = next(n for n, line in enumerate(lines) if '"type":"user"' in line and '"content":"' in line)
    lines[first] = lines[first].replace('"content":"', '"content":"' + "log line\\n" * (size // 10), 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_session_whose_first_line_is_longer_than_the_sample_is_told(tmp_path: Path) -> None:
    """A first prompt holding a pasted log of 2 MB made its line longer than the 1 MiB read to
    tell the harness: the cut line was thrown away and the session refused as no transcript."""
    source = shared(*HISTORY, "v1", "claude_golden.jsonl")
    path = _pasted_log(source, tmp_path / "pasted.jsonl", 2_000_000)
    assert detect_harness(path) == "claude-code"
    assert parse_transcript(path) == parse_transcript(path, "claude-code")
    with pytest.raises(InvalidInput, match="--harness") as refused:
        parse_transcript(path, limits=Limits(max_line_bytes=1_500_000))
    assert "\n" not in str(refused.value)


def test_gemini_jsonl_whose_header_line_is_cut_keeps_the_lines_after_it(tmp_path: Path) -> None:
    """A JSONL session whose first line (the header) is cut or garbled is no session document:
    the header is one malformed record, and every message line after it is read."""
    whole = parse("agent-sessions/gemini/jsonl_v040.jsonl")
    header, rest = sample("agent-sessions/gemini/jsonl_v040.jsonl").read_bytes().split(b"\n", 1)
    path = tmp_path / "session.jsonl"
    path.write_bytes(header[:50] + b"\n" + rest)
    cut = parse_transcript(path, "gemini-cli")
    assert cut.counts == (whole.counts.total, whole.counts.parsed - 1, 0, 1)
    assert cut.turns == whole.turns and cut.commands == whole.commands


@pytest.mark.parametrize("limits", [None, STREAMED], ids=["whole", "streamed"])
def test_gemini_message_nested_too_deeply_is_one_malformed_record_and_the_rest_is_read(
        limits: Limits | None, tmp_path: Path) -> None:
    """One message holding tool call arguments nested past what a JSON decoder goes (1,100
    levels; orjson stops at 1,024) is one malformed record; the messages after it are kept
    and counted, so the receipt still accounts for every message."""
    deep = b'{"k":' * 1100 + b"1" + b"}" * 1100
    messages = [_user(b'"turn %d"' % number, f"m{number}") for number in range(10)]
    messages[3] = (b'{"id": "m3", "type": "gemini", "content": "", "toolCalls": [{"id": "c1", "name": "mcp_tool",'
                   b' "args": ' + deep + b', "status": "success"}]}')
    path = tmp_path / "session.json"
    path.write_bytes(_session_document(*messages))
    transcript = parse_transcript(path, "gemini-cli", limits=limits)
    assert transcript.counts == (10, 9, 0, 1)
    assert [t.text for t in transcript.turns] == [f"turn {n}" for n in range(10) if n != 3]
