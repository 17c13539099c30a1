"""Content-derived ids: replaying the same session or thread gives the same ids.

- episode: ``ep_`` + the first 32 hex digits of sha256 over canonical ``{"scope", "source"}``, the
  scope as ``scope_key`` gives it, so one repository's thread or session has one id whatever the
  spelling of its scope (clones whose origins differ only in case); an episode stored before
  under another spelling's id keeps it (``spelled_episode_id``), and capture finds it there;
- event: ``ev_`` + the first 32 hex digits of sha256 over canonical ``{"episode", "key"}``, the
  key being the origin's own id for that event version (a comment id and its updated time, a
  transcript line's uuid); where the origin rewrites what it keeps under its own id (Gemini
  CLI grows a message in place), the key is that id and a digest of what the event holds
  (``versioned_key``), so each version the origin has shown is an event of its own;
- learning: ``lrn_`` + the first 32 hex digits of its first version's contentDigest.
"""

from __future__ import annotations

import hashlib
from typing import Any

from gitstore.records.canonical import canonicalize
from gitstore.scope import scope_key


def _hex(value: Any) -> str:
    return hashlib.sha256(canonicalize(value)).hexdigest()[:32]


def episode_id(scope: str, source: dict[str, str]) -> str:
    """The id of the episode for this source (kind, origin, ref) in this scope, any spelling of
    it (``scope_key``): two clones importing one review thread under two spellings of their
    repository write one episode, not two that every removal of a comment would have to find."""
    return "ep_" + _hex({"scope": scope_key(scope), "source": source})


def spelled_episode_id(scope: str, source: dict[str, str]) -> str:
    """The id ``episode_id`` gave before it read the scope's key: the scope as spelled. Stored
    records are never rewritten, so an episode a clone stored under it keeps it, and a capture
    of the same session or thread adds to it (the same as ``episode_id`` wherever the scope is
    spelled as its key)."""
    return "ep_" + _hex({"scope": scope, "source": source})


def event_id(episode: str, key: str) -> str:
    """The id of the event an origin knows as ``key`` inside an episode."""
    return "ev_" + _hex({"episode": episode, "key": key})


AGREED = ("episode", "at", "author", "payloadDigest")
"""What every record claiming one event id must agree on, with what kind of event it is: two
clones capturing the same comment version write the same (its position, its link to an earlier
version, and so whether it is the comment or an edit of it, may differ). Records claiming one
id that disagree on any of these serve no purpose (``gitstore.rules.consent.disagreeing``)."""


def learning_id(content_digest: str) -> str:
    """The id of the learning whose first version (its proposal) has this contentDigest."""
    return "lrn_" + content_digest[7:39]


def versioned_key(key: str, content: Any) -> str:
    """KEY for the version of its event that holds CONTENT: ``KEY#`` + 32 hex digits of sha256
    over CONTENT canonicalized. The same content gives the same key again; other content (the
    message grew since an earlier capture) another."""
    return f"{key}#{_hex(content)}"
