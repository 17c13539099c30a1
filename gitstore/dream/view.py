"""The frozen view: the one read-only snapshot a dream reads.

``take`` reads the store once, at the heads it names, and keeps only what the dream's purpose
may use, decided by the store's rules at read time (``gitstore.rules``): the current version of
each comment and the texts of agent sessions that an active grant covers, never a withdrawn,
retracted (deleted), redacted or superseded one; labels only while the comment they judge
counts; learnings with their standing, their content shown only while every piece of their
evidence and counterevidence may still serve the purpose. Quarantined text never reached the
store, so it is absent too; the view counts what capture and import withheld.

Everything in a view is immutable (frozen dataclasses, tuples, read-only mappings) and holds no
store handle, so a consolidator that receives one can read but has nothing to write with.

Each piece of evidence carries its **origin**: the earliest piece whose words it repeats. A copy
of a text, the same comment pasted again (in other Unicode forms of its letters too), a replayed
session under another file name, or a comment that only quotes an earlier one all share the
origin of what they repeat, so counting origins counts independent evidence, not copies.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

import pygit2

from gitstore.dream import terms
from gitstore.records.identity import is_person
from gitstore.rules import consent
from gitstore.rules.active import evaluate
from gitstore.rules.evidence import one_change, pull_heads, refs_serve
from gitstore.rules.summaries import is_summary, standing, superseded
from gitstore.rules.view import View
from gitstore.store import Item

TEXT_ROLES = frozenset({"user", "assistant", "summary"})
EMPTY: Mapping[str, Any] = MappingProxyType({})


class Evidence(NamedTuple):
    """One piece of text evidence the purpose may use (immutable; a view holds many)."""

    id: str
    episode: str
    source: str                  # review-thread, agent-session or manual
    harness: str                 # the episode's origin: github, claude-code, codex, ...
    type: str                    # comment, edit or observation
    author: str
    person: str | None           # who counts as a person (None for bots and unknown authors)
    at: str
    text: str
    path: str | None
    role: str | None
    pull_request: int | None     # a session's too, when it ran on the head branch of one pull request
    branch: str | None
    commit: str | None
    local: bool                  # kept in this clone's local namespace (a personal session)
    origin: str                  # the earliest evidence whose words this repeats (itself if none)
    root: str | None             # the first evidence of its review thread, when this is a reply
    seq: int
    written: str = ""            # when its comment was first written: an edit's ``at`` is the edit's
    joined: str | None = None    # its pull request's change, when others are one with it (``#10+#11``)
    head: str | None = None      # its pull request's head branch, as every stored review thread of it names it
    pulled: bool = False         # a stored review thread of its number names a branch or commit: a pull request's

    @property
    def change(self) -> str | None:
        """The change it was written on: its pull request (``#12``), or the pull requests that
        are one change with it (``#10+#11``: by their head branch, ``_changes``, or by a commit
        reviews among some pieces saw, ``on_changes``), or its branch (``feature/x``)."""
        if self.joined is not None:
            return self.joined
        if self.pull_request is not None:
            return f"#{self.pull_request}"
        return self.branch

    @property
    def counted_change(self) -> str | None:
        """The change it counts for among a theme's pull requests or branches: ``change``, unless
        that is a number no stored thread shows to be a pull request's (``pulled``: none of them
        names a branch or commit). A webhook's comment on an issue is pinned to the issue's
        number, which GitHub shares between issues and pull requests: an issue is no pull
        request or branch, and one discussed beside a single pull request is no second change.
        Its comments still count once per person, as one place (``change``)."""
        if self.source == "review-thread" and self.pull_request is not None and not self.pulled:
            return None
        return self.change


@dataclass(frozen=True, slots=True)
class Ref:
    """Events of one episode by one author: what an evidence reference names."""

    episode: str
    events: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StoredLabel:
    """A label already stored, on evidence of this view."""

    event: str
    parent: str
    theme: str
    category: str
    polarity: str
    spans: tuple[tuple[int, int], ...]
    labeler: str


@dataclass(frozen=True, slots=True)
class LearningView:
    """A learning as a dream may see it: content only while its evidence serves the purpose."""

    id: str
    state: str
    usable: bool
    reasons: tuple[str, ...]
    visible: bool
    stale: str = ""              # why its evidence no longer serves the purpose (when not visible)
    proposer: str = ""
    # a proposal written by hand: whether its proposer may decide by the append holding it (the
    # store's rules, ``gitstore.rules.trust.may_decide``); one by anyone else settles nothing
    proposer_decides: bool = True
    # one naming the consolidator, proposed or rejected: the events it cites that serve the
    # purpose, with their texts as stored (edits aside), and the SHA-256 of its own text, kept
    # however its evidence serves (``said``: the text itself is not the dream's to read then);
    # anyone who can push can name the consolidator, whose words are always the sentence of
    # those texts that says their theme best
    cited: tuple[tuple[str, str], ...] = ()
    said: str = ""
    stale_cause: str = ""        # why it is not visible, as ``gitstore.rules.consent.CAUSES`` names it
    local: bool = False          # kept in this clone's local namespace (personal: it never leaves the clone)
    category: str = ""
    audience: str = ""
    title: str = ""
    text: str = ""
    targets: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    evidence: tuple[Ref, ...] = ()
    counterevidence: tuple[Ref, ...] = ()
    support: int = 0

    def events(self) -> frozenset[str]:
        return frozenset(e for r in (*self.evidence, *self.counterevidence) for e in r.events)


@dataclass(frozen=True, slots=True)
class Head:
    """Where one writer's records stood when the view was taken."""

    ref: str        # records/<namespace>/<writer>
    clock: int
    last: str       # digest of the writer's last record

    def __str__(self) -> str:
        return f"{self.ref} @ clock {self.clock} ({self.last[:19]})"


@dataclass(frozen=True, slots=True)
class Gap:
    """A span of an imported collection that was never seen."""

    pull_request: int | None
    collection: str
    first: int
    last: int | None
    source: str     # the webhook or REST import that reported it
    repository: str = ""  # owner/name on GitHub, as the import named it

    def __str__(self) -> str:
        where = f"PR #{self.pull_request}" if self.pull_request is not None else "repository"
        pages = f"pages {self.first}-{self.last if self.last is not None else '?'}"
        return f"{where}: {self.collection} {pages} missing ({self.source} import)"

    def todo(self, since: str | None) -> str:
        """The command whose import closes the gap: a complete snapshot of the pull request, or
        of every pull request updated in the window when the gap names none."""
        which = f" --pr {self.pull_request}" if self.pull_request is not None else \
            (f" --since {since}" if since is not None else "")
        return f"gitstore import github --repo {self.repository or 'OWNER/NAME'}{which}"


@dataclass(frozen=True)
class FrozenView:
    """What one dream may read, and nothing to write with."""

    scope: str
    purpose: str
    since: str | None
    heads: tuple[Head, ...]
    commit: str | None
    newest: str | None
    evidence: Mapping[str, Evidence]
    labels: Mapping[str, tuple[StoredLabel, ...]]
    learnings: Mapping[str, LearningView]
    threads: Mapping[str, tuple[str, ...]]
    citable: Mapping[str, str]   # every event the purpose may use -> its episode: what may be cited
    gaps: tuple[Gap, ...]
    excluded: Mapping[str, int]
    withheld: Mapping[str, int]
    paths_at_head: frozenset[str]
    comments: Mapping[str, str]  # each version of an edited comment -> its first version

    def items(self) -> Iterator[Evidence]:
        """Every piece of evidence, in time order."""
        return iter(self.evidence.values())

    def thread(self, episode: str) -> tuple[Evidence, ...]:
        """The evidence of one episode in order."""
        return tuple(self.evidence[i] for i in self.threads.get(episode, ()))

    def kept_here(self, audience: str, refs: Iterable[Ref], learnings: Iterable[LearningView]) -> bool:
        """Whether a learning of this AUDIENCE citing REFS and replacing or revising LEARNINGS
        would be kept on this machine, as the store keeps one (personal: by its audience, by
        evidence of a personal session, or by a learning it takes after): such a learning
        cannot take a team learning out of force on the other clones."""
        return audience == "personal" or any(lv.local for lv in learnings) or any(
            self.evidence[e].local for ref in refs for e in ref.events if e in self.evidence)

    def comment(self, event_id: str) -> str:
        """The comment an event is a version of, named by its first version (an event no edit
        links to another is its own): an edit is a new event, yet the same comment, so memory
        citing an earlier version still speaks for the evidence it became."""
        return self.comments.get(event_id, event_id)

    def ref(self, event_ids: list[str] | tuple[str, ...]) -> Ref:
        """The reference naming these events (all in one episode)."""
        first = self.evidence[event_ids[0]]
        return Ref(first.episode, tuple(dict.fromkeys(event_ids)))


# -- taking the view ---------------------------------------------------------------------------

@dataclass
class _Taking:
    view: View
    purpose: str
    since: str | None
    excluded: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    namespaces: dict[str, str] = field(default_factory=dict)
    citable: dict[str, str] = field(default_factory=dict)
    own: Callable[[str], bool] | None = None  # whether an append is this clone's (None: take every label)
    own_labels: set[str] = field(default_factory=set)
    owner: str | None = None                  # who the clone's owner is: a personal session is theirs
    # pull request -> the change it is part of, head branch -> that change's first pull request,
    # pull request -> its head branch, and the numbers a thread shows to be pull requests'
    changes: dict[int, str] = field(default_factory=dict)
    heads: dict[str, int] = field(default_factory=dict)
    pull_heads: dict[int, str] = field(default_factory=dict)
    pulled: frozenset[int] = frozenset()
    remembered: frozenset[str] = frozenset()  # events learnings cite: read whatever the window
    until: str | None = None                  # evidence dated after this is set aside (None: none is)


def take(view: View, repo: pygit2.Repository | None, purpose: str, since: str | None = None,
         own: Callable[[str], bool] | None = None, owner: str | None = None,
         decides: Callable[[Item, str], bool] | None = None, until: str | None = None) -> FrozenView:
    """Freeze what ``purpose`` may use of a loaded store ``view`` (optionally only evidence written
    at or after ``since``); ``repo`` answers which cited paths exist at HEAD. With ``own``
    (whether an append is in this clone's own refs: ``Store.attestation``), the stored labels
    are only those this clone wrote, or kept local: anyone who can push can store labels, under
    any writer id they name, and a label steers what a dream proposes. ``owner`` is the person
    the clone's owner is (the dream's ``--by``): their personal sessions count as theirs, so
    their own review and their own session are one person. ``decides`` says whether a person
    may decide by the append a stored record was read from (None: everyone who wrote a proposal
    by hand may): a proposal written by hand is only a person's word on its theme when its
    proposer may decide. Evidence dated after ``until`` (the dream's clock, with a tolerance for
    skew) is set aside, counted as ``dated in the future``: anyone who can push can store a
    comment claiming any time, and one dated in 2099 would otherwise be the newest evidence every
    theme's recency is measured against."""
    changes, heads, pulls = _changes(view)
    taking = _Taking(view, purpose, since, own=own, owner=owner, changes=changes, heads=heads, pull_heads=pulls,
                     pulled=_pulled(view),
                     remembered=_remembered(view) if since is not None else frozenset(), until=until)
    for item in view.items:
        if item.kind == "event":
            taking.namespaces.setdefault(item.record["id"], item.stored.namespace)
            if item.record["type"] == "label" and (item.stored.namespace == "local"
                                                    or (own is not None and own(item.stored.append))):
                taking.own_labels.add(item.record["id"])
    evidence = _evidence(taking)
    learnings = _learnings(view, purpose, decides)
    commit, paths = _at_head(repo, evidence.values(), learnings.values())
    threads: dict[str, list[str]] = defaultdict(list)
    for piece in evidence.values():
        threads[piece.episode].append(piece.id)
    return FrozenView(
        scope=view.scope, purpose=purpose, since=since, heads=_heads(view), commit=commit,
        newest=max((e.at for e in evidence.values()), default=None),
        evidence=MappingProxyType(evidence), labels=MappingProxyType(_labels(taking, evidence)),
        learnings=MappingProxyType(learnings),
        threads=MappingProxyType({k: tuple(v) for k, v in threads.items()}),
        citable=MappingProxyType(taking.citable),
        gaps=_gaps(view, [e for e in evidence.values() if since is None or e.at >= since], since),
        excluded=MappingProxyType(dict(taking.excluded)),
        withheld=MappingProxyType(_withheld(view, since)), paths_at_head=paths,
        comments=MappingProxyType(dict(first_versions(view))),
    )


def _heads(view: View) -> tuple[Head, ...]:
    last: dict[str, tuple[int, int, str]] = {}
    for item in view.items:
        stored = item.stored
        ref = f"records/{stored.namespace}/{stored.writer}"
        mark = (stored.clock, stored.position, stored.digest)
        if ref not in last or mark > last[ref]:
            last[ref] = mark
    return tuple(Head(ref, clock, digest) for ref, (clock, _, digest) in sorted(last.items()))


def _current(view: View, event: dict[str, Any]) -> bool:
    """A comment version no edit of its own replaced, or a session text. Anyone who can push can
    append an edit naming any comment: only one continuing it (``consent.continues``: same
    thread, author and source comment) replaces it; any other is a comment of its own beside it,
    so a forged edit never hides another person's comment from what a dream reads. Of a
    session's summaries only the latest is current (``gitstore.rules.summaries``)."""
    if event["type"] in ("comment", "edit"):
        return not any(consent.continues(c, event) for c in view.children.get(event["id"], ()))
    if event["type"] == "observation":
        if superseded(event, view.memo("summaries.standing", lambda: standing(view.events.values()))):
            return False
        payload = event.get("payload") or {}
        return payload.get("role") in TEXT_ROLES or "redaction" in event
    return False


def _evidence(taking: _Taking) -> dict[str, Evidence]:
    """The evidence of the view. Origins and threads are worked out over all the purpose may
    use, before the window is applied: a copy inside the window of a comment written before it
    repeats that comment, and memory is found by the comments its learnings cite."""
    view = taking.view
    chosen: list[tuple[dict[str, Any], dict[str, Any], bool]] = []
    for event in view.events.values():
        if event["type"] not in ("comment", "edit", "observation"):
            continue
        verdict = consent.decide(view, event["id"], taking.purpose)
        if verdict.ok:
            taking.citable[event["id"]] = event["episode"]
        if not _current(view, event):
            if event["type"] != "observation":
                taking.excluded["superseded by an edit"] += 1
            elif is_summary(event):
                taking.excluded["superseded by a later summary of its session"] += 1
            continue
        before = taking.since is not None and event["at"] < taking.since and event["id"] not in taking.remembered
        future = taking.until is not None and event["at"] > taking.until
        if before:
            taking.excluded["written before the window"] += 1
        elif future:
            taking.excluded["dated in the future"] += 1
        elif not verdict.ok:
            taking.excluded[_why(verdict.reason)] += 1
        if not verdict.ok or future:
            continue
        if _text(event).strip():
            chosen.append((event, view.episodes[event["episode"]], not before))
    written = _first_written(view)
    chosen.sort(key=lambda each: (written(each[0]), each[0]["at"], each[0]["id"]))
    origins = _team_origins(taking, [event for event, _, _ in chosen])
    roots: dict[str, str] = {}
    out: dict[str, Evidence] = {}
    for event, episode, inside in chosen:
        piece = _piece(taking, event, episode, origins[event["id"]], roots, written(event))
        if inside:
            out[event["id"]] = piece
    return out


def _team_origins(taking: _Taking, events: list[dict[str, Any]]) -> dict[str, str]:
    """The origins of EVENTS (``_origins``), those of shared evidence worked out among the
    shared evidence alone: a personal session never leaves its clone, so one dated before a
    review and holding its words (or two reviews' words) must not make the reviews copies of it
    on that clone only, fewer origins and another learning than every other clone sees. A piece
    of a personal session takes the origin of what it repeats: of the shared evidence, the
    origin the earliest shared piece repeating the same words has."""
    local = {e["id"] for e in events if taking.namespaces.get(e["id"], "shared") == "local"}
    every = _origins(events)
    if not local:
        return every
    team = _origins([e for e in events if e["id"] not in local])
    shared_of: dict[str, str] = {}
    for event in events:
        if event["id"] not in local:
            shared_of.setdefault(every[event["id"]], team[event["id"]])
    return {i: team[i] if i not in local else shared_of.get(o, o) for i, o in every.items()}


def _remembered(view: View) -> frozenset[str]:
    """The events the learnings in memory cite, as evidence or counterevidence, in their
    current version: a windowed dream reads them whenever they were written, so a theme whose
    evidence partly falls before the window is still known as the one memory holds (a person's
    rejection of it stands however the window is set). Every version of a cited comment is read:
    an edit written before the window is the current version of what a learning cites."""
    cited: set[str] = set()
    for history in view.histories().values():
        if not history.intact:
            continue
        record = history.current
        for ref in (*record["evidence"], *record["counterevidence"]):
            cited.update(ref["events"])
    versions = first_versions(view)
    firsts = {versions.get(e, e) for e in cited}
    return frozenset(cited | {e for e, first in versions.items() if first in firsts})


def first_versions(view: View) -> Mapping[str, str]:
    """Event id -> the first version of the comment it is a version of, for every edit that is
    one; any other event is its own. An edit is a new event, yet the same comment when it
    continues its parent's (``consent.continues``: same thread, author and source comment) and
    still says what the comment's first version said (``terms.still_says``): what speaks of one
    version (a learning citing it) then speaks of them all. An edit rewritten to another subject,
    by its author or forged by anyone who can push, starts a comment of its own, so a person's
    decision on what the comment once said never stands over a theme it now speaks for."""
    def build() -> dict[str, str]:
        first: dict[str, str] = {}
        for event in view.events.values():
            if event["type"] == "edit":
                _place(view, event, first)
        return {e: f for e, f in first.items() if e != f}
    return view.memo("dream.first_versions", build)


def _place(view: View, edit: dict[str, Any], first: dict[str, str]) -> None:
    """Record the first version of ``edit`` and of the edits it follows, earliest first (a
    loop, not recursion: a chain of edits may be long, and a forged one may circle)."""
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    current: dict[str, Any] | None = edit
    while current is not None and current["type"] == "edit" and current["id"] not in first \
            and current["id"] not in seen:
        chain.append(current)
        seen.add(current["id"])
        current = view.events.get(current.get("parentEventId") or "")
    for event in reversed(chain):
        parent = view.events.get(event.get("parentEventId") or "")
        anchor = view.events.get(first.get(parent["id"], parent["id"])) if parent is not None else None
        same = (parent is not None and anchor is not None and consent.continues(event, parent)
                and bool(_text(event)) and terms.still_says(_text(event), _text(anchor)))
        first[event["id"]] = anchor["id"] if same and anchor is not None else event["id"]


def _text(event: dict[str, Any]) -> str:
    return (event.get("payload") or {}).get("text") or ""


def _piece(taking: _Taking, event: dict[str, Any], episode: dict[str, Any], origin: str,
           roots: dict[str, str], written: str) -> Evidence:
    payload = event["payload"]
    source = episode["source"]["kind"]
    root = None
    if source == "review-thread":
        first = roots.setdefault(event["episode"], event["id"])
        root = first if first != event["id"] else None
    namespace = taking.namespaces.get(event["id"], "shared")
    pin = episode["pin"]
    pull_request, head = pin["pullRequest"], None
    if pull_request is None and source == "agent-session" and pin["branch"]:
        pull_request = taking.heads.get(pin["branch"])
        head = pin["branch"] if pull_request is not None else None
    elif pull_request is not None and source == "review-thread":
        head = taking.pull_heads.get(pull_request)
    return Evidence(
        id=event["id"], episode=event["episode"], source=source, harness=episode["source"]["origin"],
        type=event["type"], author=event["author"],
        person=_person(event["author"], source, namespace, taking.owner),
        at=event["at"], text=payload["text"], path=payload.get("path"), role=payload.get("role"),
        pull_request=pull_request, branch=pin["branch"],
        commit=episode["pin"]["commit"], local=namespace == "local", origin=origin, root=root,
        seq=event["seq"], written=written,
        joined=taking.changes.get(pull_request) if pull_request is not None else None, head=head,
        pulled=pull_request in taking.pulled,
    )


def _first_written(view: View) -> Callable[[dict[str, Any]], str]:
    """When the comment an event is a version of was first written: its first version's time.
    An edit carries the time of the edit, so in that order a typo fixed in an ask would come
    after the replies that answered it, the thread's first comment after its replies, and a
    comment after the copies made of it before the edit."""
    versions = first_versions(view)

    def written(event: dict[str, Any]) -> str:
        first = view.events.get(versions.get(event["id"], event["id"]))
        return str(first["at"] if first is not None else event["at"])
    return written


def _why(reason: str) -> str:
    if "redacted" in reason:
        return "redacted"
    if "no removal took it" in reason:
        return "text not in this clone"
    if "deleted comment" in reason:
        return "deleted (retracted)"
    if "no active grant" in reason:
        return "no active grant permits the purpose"
    return "not usable"


def _changes(view: View) -> tuple[dict[int, str], dict[str, int], dict[int, str]]:
    """Which pull requests are one change by their head branch, as the stored review threads pin
    them (``rules.evidence.one_change``, without commits): each such pull request's change,
    named by its pull requests (``#10+#11``; a pull request one with no other is left out,
    named as ever), each head branch's change by its first pull request (a session on that
    branch was written on that change), and each pull request's head branch. Only review
    threads, which every clone holding them holds alike, join pull requests, whatever order
    they arrived in. A commit joins pull requests only among the evidence it is seen in
    (``on_changes``): a thread anyone can store claims any commit."""
    pins = [episode["pin"] for episode in view.episodes.values() if episode["source"]["kind"] == "review-thread"]
    joined, heads = one_change(pins, commits=False)
    changes = {number: change_name(members) for number, members in joined.items() if len(members) > 1}
    return changes, heads, pull_heads(pins)


def _pulled(view: View) -> frozenset[int]:
    """The numbers a stored review thread shows to be pull requests': one pinned to it names a
    branch or a commit (a webhook's ``issue_comment`` delivery names neither, and GitHub numbers
    issues and pull requests alike). Whether its threads agree on one head is another matter
    (``pull_heads``): a thread claiming another head for a pull request makes it no issue."""
    return frozenset(episode["pin"]["pullRequest"] for episode in view.episodes.values()
                     if episode["source"]["kind"] == "review-thread" and episode["pin"]["pullRequest"] is not None
                     and (episode["pin"]["branch"] or episode["pin"]["commit"]))


def change_name(members: tuple[int, ...]) -> str:
    """The name of a change of several pull requests: ``#10+#11``, at most four named."""
    return "+".join(f"#{n}" for n in members[:4]) + (f"+{len(members) - 4} more" if len(members) > 4 else "")


def on_changes(pieces: Iterable[Evidence]) -> list[Evidence]:
    """PIECES, each with the change it was written on as they show it among themselves: pull
    requests are one change when the threads of PIECES on them name one head branch (a piece
    whose thread names none, a webhook's conversation comment, goes by ``Evidence.head``, the
    branch every stored thread of its pull request names), or when reviews by people among
    PIECES saw one commit on both (the same commits opened again on a renamed branch). A thread
    holding none of them joins and parts nothing: anyone who can push can store a thread on any
    pull request claiming another's branch or commit, and joined so, two reviewers' pull requests
    would be one change and a theme raised on both would never pass its changes gate, with no
    word of that thread in its verdict (or, claiming another branch for a pull request opened
    again, make it a second change). Whoever joins them now does it with evidence of the
    theme, which its verdict cites. Only the earliest piece of each origin joins (the one a
    verdict cites): a copy is no evidence of its own, and one pasted on a thread claiming another
    pull request's commit would join them with no word of it in the verdict."""
    pieces = list(pieces)
    first: dict[str, Evidence] = {}
    for e in sorted(pieces, key=lambda e: (e.at, e.id)):
        first.setdefault(e.origin, e)
    joining = {e.id for e in first.values()}
    pins = [{"pullRequest": e.pull_request,
             "branch": e.branch if e.source == "review-thread" and e.branch else e.head,
             "commit": e.commit if e.source == "review-thread" and e.person else None}
            for e in pieces if e.pull_request is not None and e.id in joining]
    joined, _ = one_change(pins)
    names = {number: change_name(members) for number, members in joined.items() if len(members) > 1}
    return [e._replace(joined=names.get(e.pull_request)) if e.pull_request is not None else e for e in pieces]


def _person(author: str, source: str, namespace: str, owner: str | None = None) -> str | None:
    """Who a piece of evidence counts as. A personal session is its owner's, whoever spoke
    in it (the person or their agent): the clone owner's (``owner``) when known, so their own
    review and their own session count once; bots and unknown accounts count as nobody."""
    if source == "agent-session":
        return (owner or "local:session-owner") if namespace == "local" else None
    if author.startswith("bot:") or author.endswith(":unknown") or not is_person(author):
        return None
    return author


NEAR_WORDS = 8  # a text this long or longer is a copy of one it is nearly word for word
NEAR = 0.6  # ... when this share of their word pairs is one (Jaccard's index)
_COMMON_PAIR = 64  # a word pair this many texts hold already ("in the") finds no copy


def _origins(events: list[dict[str, Any]]) -> dict[str, str]:
    """Event id -> the id of the earliest event whose words it repeats (itself if none).

    Events are taken in time order. An event whose whole own text (quotes masked) was seen
    before, or every sentence of which was, is a copy or a quote: it gets the origin of what it
    repeats; so does a quote of an earlier text with a word or two of assent ("+1"), and a text
    of ``NEAR_WORDS`` words or more that is an earlier one with a word changed, added or
    misspelt: ``NEAR`` of their word pairs or more are one (a second account pasting one comment
    with a word swapped is no second origin, nor is its own author pasting it on another pull
    request: an exact paste is none, and a word swapped must not make one). People who say one
    thing in their own words share far fewer. So does a text most of whose words are sentences of ``NEAR_WORDS``
    words or more seen before word for word: a comment pasted again with a remark of one's own
    beside it ("Saw the same thing on my branch today."). Otherwise it is an origin of its own.
    """
    whole: dict[str, str] = {}
    sentences: dict[str, str] = {}
    origins: dict[str, str] = {}
    pairs_of: list[tuple[str, frozenset[tuple[str, str]]]] = []  # (origin, word pairs) of each long text
    holding: dict[tuple[str, str], list[int]] = defaultdict(list)  # word pair -> the long texts holding it
    for event in events:
        text = event["payload"]["text"]
        print_, parts = terms.sameness(text)
        origin = whole.get(print_)
        if origin is None and parts and all(p in sentences for p in parts):
            origin = sentences[parts[0]]
        if origin is None and print_.count(" ") < 3:  # a quote with a word or two of assent
            said = terms.sameness(terms.quoted(text))[1]
            origin = next((sentences[p] for p in said if p in sentences), None)
        words = print_.split()
        if origin is None and parts:  # a long sentence pasted again, with a remark of one's own
            again: list[str] = []
            for part in parts:  # a sentence seen, not the rest after its lead-in as well
                if part in sentences and part.count(" ") + 1 >= NEAR_WORDS \
                        and not (again and again[-1].endswith(" " + part)):
                    again.append(part)
            if again and 2 * sum(p.count(" ") + 1 for p in again) > len(words):
                origin = sentences[again[0]]
        pairs = frozenset(zip(words, words[1:])) if len(words) >= NEAR_WORDS else frozenset()
        if origin is None and pairs:
            origin = _nearly(pairs, pairs_of, holding)
        origin = origin or event["id"]
        origins[event["id"]] = origin
        whole.setdefault(print_, origin)
        for part in parts:
            sentences.setdefault(part, origin)
        if pairs:
            for pair in pairs:
                if len(holding[pair]) < _COMMON_PAIR:
                    holding[pair].append(len(pairs_of))
            pairs_of.append((origin, pairs))
    return origins


def _nearly(pairs: frozenset[tuple[str, str]], seen: list[tuple[str, frozenset[tuple[str, str]]]],
            holding: dict[tuple[str, str], list[int]]) -> str | None:
    """The origin of the earliest text of ``seen`` sharing ``NEAR`` of its word pairs with
    ``pairs`` or more, or None. Whoever wrote it: one author's own text pasted again with a word
    swapped is a copy as an exact paste is, not a new origin on another pull request or thread
    (the people gate counts the author once, but the origins, threads and changes gates would
    count each paste)."""
    shared: dict[int, int] = defaultdict(int)
    for pair in pairs:
        for index in holding.get(pair, ()):
            shared[index] += 1
    for index in sorted(shared):
        origin, theirs = seen[index]
        together = shared[index]
        if together >= NEAR * (len(pairs) + len(theirs) - together):
            return origin
    return None


def _labels(taking: _Taking, evidence: Mapping[str, Evidence]) -> dict[str, tuple[StoredLabel, ...]]:
    found: dict[str, list[StoredLabel]] = defaultdict(list)
    view = taking.view
    for parent in evidence:
        for child in view.children.get(parent, ()):
            if child["type"] != "label" or "payload" not in child:
                continue
            if taking.own is not None and child["id"] not in taking.own_labels:
                continue
            if not consent.decide(view, child["id"], taking.purpose).ok:
                continue
            label = child["payload"]["label"]
            spans = tuple((s["start"], s["end"]) for s in label.get("spans", ()))
            found[parent].append(StoredLabel(child["id"], parent, label["theme"], label["category"],
                                             label["polarity"], spans, label.get("labeler", "")))
    return {k: tuple(v) for k, v in found.items()}


def _learnings(view: View, purpose: str, decides: Callable[[Item, str], bool] | None = None) -> dict[str, LearningView]:
    all_histories = view.histories()
    statuses = evaluate(view, purpose, all_histories=all_histories)
    out = {}
    for lid, history in sorted(all_histories.items()):
        status = statuses[lid]
        if not history.intact:
            out[lid] = LearningView(lid, "invalid", False, status.reasons, False)
            continue
        record = history.current
        refs = record["evidence"] + record["counterevidence"]
        serves = refs_serve(view, refs, purpose)
        visible = history.valid and serves.ok
        base = dict(id=lid, state=record["state"], usable=status.usable, reasons=status.reasons,
                    visible=visible, stale="" if serves.ok else serves.reason, proposer=f"{record['proposer']['kind']}:{record['proposer']['id']}",
                    stale_cause="" if serves.ok else serves.cause,
                    local=any(item.stored.namespace == "local" for item in history.chain),
                    evidence=tuple(Ref(r["episode"], tuple(r["events"])) for r in record["evidence"]),
                    counterevidence=tuple(Ref(r["episode"], tuple(r["events"])) for r in record["counterevidence"]),
                    replaces=tuple(record["replaces"]), support=record["support"])
        if record["state"] in ("proposed", "rejected"):  # who wrote its proposal: the newest proposing version's append
            proposing = next((i for i in reversed(history.chain[:history.intact]) if i.record["state"] == "proposed"),
                             history.chain[0])
            if record["proposer"]["kind"] != "consolidator":
                if decides is not None:
                    base.update(proposer_decides=decides(proposing, str(record["proposer"]["id"])))
            else:
                # the evidence its words were written for: a revision keeps them (new support
                # reaches the reviewer), so they are judged on what the version first saying them cited
                worded = record
                for item in reversed(history.chain[:history.intact]):
                    if item.record["content"]["text"] != record["content"]["text"]:
                        break
                    worded = item.record
                cited = ((e, view.events.get(e)) for ref in worded["evidence"] for e in ref["events"])
                base.update(cited=tuple((e, str(event["payload"]["text"])) for e, event in cited
                                        if event is not None and isinstance(event.get("payload"), dict)
                                        and isinstance(event["payload"].get("text"), str)
                                        and ((visible and worded is record) or consent.decide(view, e, purpose).ok)),
                            said=said_digest(str(record["content"]["text"])))
        if visible:
            base.update(category=record["category"], audience=record["audience"],
                        title=record["content"]["title"], text=record["content"]["text"],
                        targets=tuple(record["targets"]))
        out[lid] = LearningView(**base)
    return out


def said_digest(text: str) -> str:
    """What ``LearningView.said`` holds of a text: its SHA-256, which tells whether a sentence
    is that text without giving the text to a consolidator."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _at_head(repo: pygit2.Repository | None, evidence: Any, learnings: Any) -> tuple[str | None, frozenset[str]]:
    """The commit paths are judged at, the default branch's tip (the one the policy is read
    from; HEAD when there is none), and which of the cited paths exist in its tree: a branch
    checked out that moves a file never has a good learning called stale."""
    if repo is None:
        return None, frozenset()
    from gitstore.providers._policy_git import default_branch

    try:
        branch = default_branch(repo)
        commit = (repo.references[branch] if branch else repo.head).peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError):
        return None, frozenset()
    tree = commit.tree
    wanted = {e.path for e in evidence if e.path} | {t for lv in learnings for t in lv.targets}
    present = set()
    for path in wanted:
        try:
            tree[path]
        except (KeyError, ValueError):
            continue
        present.add(path)
    return str(commit.id), frozenset(present)


def _gaps(view: View, evidence: Any, since: str | None) -> tuple[Gap, ...]:
    """Missing spans of imports for the pull requests the window holds evidence of: a pull
    request counts as covered once any import of it was complete. A gap naming no pull request
    (webhook deliveries that named none) stands only while the window holds evidence of a pull
    request no complete import covers: an import of every pull request updated in the window
    (``gitstore import github --since``) closes it."""
    changes = {e.pull_request for e in evidence if e.source == "review-thread"}
    changes |= {ep["pin"]["pullRequest"] for ep in view.episodes.values()
                if ep["source"]["kind"] == "review-thread" and (since is None or ep["startedAt"] >= since)}
    by_change: dict[int | None, list[dict[str, Any]]] = defaultdict(list)
    for record in (i.record for i in view.items if i.kind == "import"):
        by_change[record["pullRequest"]].append(record)
    covered = {change for change, imports in by_change.items() if any(r["complete"] for r in imports)}
    gaps: list[Gap] = []
    for change, imports in sorted(by_change.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        if change not in changes if change is not None else not changes - covered:
            continue
        if change in covered:
            continue
        latest = max(imports, key=lambda r: (r["at"], r["digest"]))
        source = "webhook" if latest["source"] == "github-webhook" else "REST"
        gaps.extend(Gap(change, m["collection"], m["from"], m["to"], source, latest["repository"])
                    for m in latest["missing"])
    return tuple(gaps)


def _withheld(view: View, since: str | None) -> dict[str, int]:
    """What capture and import kept out of the store (quarantined text never stored)."""
    counts = {"session lines quarantined at capture": 0, "review items skipped at import": 0}
    for item in view.items:
        record = item.record
        if item.kind == "receipt" and (since is None or record["writtenAt"] >= since):
            counts["session lines quarantined at capture"] += record["lines"]["quarantined"]
        elif item.kind == "import" and (since is None or record["at"] >= since):
            counts["review items skipped at import"] += record["counts"].get("skipped", 0)
    return {k: v for k, v in counts.items() if v}
