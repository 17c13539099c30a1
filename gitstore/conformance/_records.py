"""Valid sealed records for exercising providers, made deterministically from a tag."""

from __future__ import annotations

import hashlib
from typing import Any

from gitstore.records.contracts import seal

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
