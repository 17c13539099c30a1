"""Audience: project only when the evidence is reproducible from the repository alone."""

from __future__ import annotations

from gitstore.dream.audience import classify

from .test_dream_lexical import piece


def session_piece(n: int, text: str):  # type: ignore[no-untyped-def]
    return piece(n, text)._replace(source="agent-session", person="local:session-owner", local=True)


def test_repository_evidence_is_for_the_project() -> None:
    audience, why = classify([piece(1, "Retries need jittered backoff."), piece(2, "Back off with jitter.")],
                             "Retries need jittered backoff.")
    assert audience == "project" and "src/retry.py" in why and "\n" not in why


def test_a_harness_a_credential_or_local_tooling_force_user_tooling() -> None:
    for text, what in [("Claude Code runs the hook from the repository root.", "an agent harness"),
                       ("Export the staging access key [REDACTED:aws-access-key] first.", "a credential"),
                       ("Put /opt/homebrew/bin first on PATH for the e2e tests.", "local tooling")]:
        audience, why = classify([piece(1, text), piece(2, text.lower())], text)
        assert audience == "user-tooling" and what in why, (text, why)


def test_one_person_s_machine_home_or_tools_is_personal() -> None:
    audience, why = classify([piece(1, "On my laptop run ~/bin/bench first.", author="github:1"),
                              piece(2, "On my laptop, ~/bin/bench again.", author="github:1")], "Run ~/bin/bench.")
    assert audience == "personal" and "a home path" in why
    several = classify([piece(1, "On my laptop run ~/bin/bench first."), piece(2, "Run ~/bin/bench.")], "Run it.")
    assert several[0] == "user-tooling"


def test_only_one_person_s_sessions_is_personal() -> None:
    audience, why = classify([session_piece(1, "Cache the schema."), session_piece(2, "Cache the schema.")],
                             "Cache the schema.")
    assert audience == "personal" and "sessions" in why
