"""Valid sealed records for exercising providers, made deterministically from a tag."""

from __future__ import annotations

import hashlib
from typing import Any

from gitstore.records.contracts import seal
from gitstore.records.ids import learning_id

SCOPE = "github.com/acme/widgets"
OTHER_SCOPE = "gitlab.example.com/acme/widgets"


def _hex(tag: str, size: int = 32) -> str:
    return hashlib.sha256(tag.encode()).hexdigest()[:size]


def episode_id(tag: str) -> str:
    return "ep_" + _hex("episode:" + tag)


def event(tag: str, episode: str = "main", seq: int = 0, scope: str = SCOPE,
          text: str | None = None) -> dict[str, Any]:
    """A comment event with a payload."""
    return seal({
        "schema": "gitstore.event/v1",
        "scope": scope,
        "id": "ev_" + _hex("event:" + tag),
        "episode": episode_id(episode),
        "type": "comment",
        "seq": seq,
        "at": "2026-07-14T09:00:00.000000Z",
        "author": "github:583231",
        "parentEventId": None,
        "payload": {"text": text if text is not None else f"comment {tag}", "sourceId": f"github:comment:{tag}"},
    })


def grant(tag: str, scope: str = SCOPE) -> dict[str, Any]:
    """A grant whose note carries the tag, so every tag gives a distinct record."""
    return seal({
        "schema": "gitstore.grant/v1",
        "scope": scope,
        "purposes": ["review"],
        "sources": ["review-thread"],
        "from": "2026-01-01T00:00:00.000000Z",
        "until": None,
        "by": "github:583231",
        "at": "2026-07-01T12:00:00.000000Z",
        "note": f"grant {tag}",
    })


def audit(tag: str, records: list[str], scope: str = SCOPE, action: str = "import") -> dict[str, Any]:
    """An audit entry recording an append of ``records``."""
    return seal({
        "schema": "gitstore.audit/v1",
        "scope": scope,
        "action": action,
        "by": "github:583231",
        "at": "2026-07-14T12:00:00.000000Z",
        "subjects": [tag[:100]],
        "records": records,
        "reason": None,
    })


PIN = {"repository": SCOPE, "pullRequest": 42, "branch": "feature/retry",
       "commit": "82db174c0ffee0ddba11fa11defec8edcafebabe"}
PERSON = "github:583231"


def episode(tag: str = "main") -> dict[str, Any]:
    """The review thread ``event(..., episode=tag)`` belongs to."""
    return seal({
        "schema": "gitstore.episode/v1", "scope": SCOPE, "id": episode_id(tag),
        "source": {"kind": "review-thread", "origin": "github", "ref": f"github:comment:{_hex(tag, 8)}"},
        "pin": dict(PIN), "title": None, "startedAt": "2026-07-14T09:00:00.000000Z", "capture": "complete",
        "mode": "review", "grants": [],
    })


def evidence(record: dict[str, Any]) -> dict[str, Any]:
    """The reference a proposal makes to one stored event, as storage says it."""
    return {"episode": record["episode"], "events": [record["id"]], "at": record["at"], "author": record["author"],
            "pin": dict(PIN)}


def proposal(tag: str, cited: dict[str, Any], replaces: tuple[str, ...] = ()) -> dict[str, Any]:
    """Version 1 of a learning citing one event."""
    record: dict[str, Any] = {
        "schema": "gitstore.learning/v1", "scope": SCOPE, "version": 1, "previous": None, "state": "proposed",
        "category": "convention", "memory": "semantic", "audience": "project",
        "audienceRationale": "Evidence is this repository's review threads.",
        "content": {"title": f"Learning {tag}", "text": f"What {tag} says."}, "targets": [],
        "replaces": list(replaces), "evidence": [evidence(cited)], "counterevidence": [],
        "validFrom": None, "validUntil": None, "support": 1, "dissent": 0, "confidence": "medium",
        "rationale": "Proposed by the conformance suite.", "proposer": {"kind": "person", "id": PERSON},
        "at": "2026-07-15T09:00:00.000000Z",
    }
    from gitstore.records.contracts import content_digest

    record["id"] = learning_id(content_digest(record))
    return seal(record)


def step(prior: dict[str, Any], state: str, by: str = PERSON, review: str | None = None,
         reason: str | None = None) -> dict[str, Any]:
    """The version after ``prior`` in ``state``, decided by ``by`` on ``review`` (by default
    the reviewDigest ``prior`` showed); an accepted one takes what ``prior`` offered to replace."""
    record = {k: v for k, v in prior.items() if k not in ("digest", "decision", "supersedes")}
    record.update(version=prior["version"] + 1, previous=prior["digest"], state=state,
                  at="2026-07-16T09:00:00.000000Z")
    record["decision"] = {"by": by, "reviewDigest": review or prior["reviewDigest"], "edited": False,
                          "reason": reason if reason is not None or state != "retired" else "done"}
    if state == "accepted" and prior["replaces"]:
        record["supersedes"] = list(prior["replaces"])
    return seal(record)


def vouched(decision: dict[str, Any]) -> list[dict[str, Any]]:
    """A decision and the audit entry that vouches for it, as one append carries them."""
    action = {"accepted": "accept", "rejected": "reject", "retired": "retire"}[decision["state"]]
    return [decision, seal({
        "schema": "gitstore.audit/v1", "scope": decision["scope"], "action": action,
        "by": decision["decision"]["by"], "at": decision["at"], "subjects": [decision["id"]],
        "records": [decision["digest"]], "reason": None,
    })]


def withdrawal(grant_record: dict[str, Any], reason: str = "withdrawn") -> dict[str, Any]:
    """A withdrawal of every purpose of a grant."""
    return seal({
        "schema": "gitstore.withdrawal/v1", "scope": grant_record["scope"], "grant": grant_record["digest"],
        "purposes": list(grant_record["purposes"]), "by": PERSON, "at": "2026-07-20T09:00:00.000000Z",
        "reason": reason, "exports": [],
    })
