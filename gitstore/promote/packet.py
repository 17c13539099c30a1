"""The PromotionPacket: a verified learning, its route and the exact text it lands as.

``plan`` runs every verification check (``gitstore.promote.verify``), routes the learning
through the wiki (``routing``), applies the rubric (``rubric``) and the chosen route's renderer
(``routes``), checks what was rendered (OKF rules for a page, the Agent Skills rules for a
skill, the safety scanner for everything), and seals the packet. It writes nothing: the
promotion operation stores the packet and lands the files.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from posixpath import basename, dirname
from typing import Any

from gitstore.errors import Refused
from gitstore.records.headline import name_of
from gitstore.promote import blocks, rubric, verify
from gitstore.promote.branch import branch_for
from gitstore.promote.okf import link_problems, page_of, skill_links_leaving, split_front_matter
from gitstore.promote.pages import page_findings
from gitstore.promote.routes import direct_edit, overlay, skill, staged
from gitstore.promote.routing import QUICKSTART, WIKI, Routing, route
from gitstore.promote.skills import check_skill
from gitstore.promote.snapshot import InTree, Snapshot
from gitstore.promote.standing import BLOCK_FOLDERS
from gitstore.records.contracts import seal
from gitstore.rules.view import View

COMMITS = ("direct-edit", "skill")  # the routes that land as a commit


@dataclass
class Plan:
    """What a promotion will write: the packet, and the files of its route."""

    packet: dict[str, Any]
    learning: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)  # repository path -> text
    routing: Routing | None = None
    warnings: dict[str, str] = field(default_factory=dict)  # check -> what it warns of (it passed)
    name: str = ""  # what the commit subject and pull request name it by (``gitstore.records.headline.title_for``)

    @property
    def route(self) -> str:
        return str(self.packet["route"])

    @property
    def commits(self) -> bool:
        return self.route in COMMITS


def evidence_by_origin(learning: dict[str, Any]) -> list[str]:
    """The learning's evidence grouped by where it came from, one line per origin."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for ref in learning["evidence"]:
        groups[_origin(ref)].append(ref)
    lines = []
    for origin, refs in sorted(groups.items()):
        events = sum(len(r["events"]) for r in refs)
        authors = ", ".join(sorted({r["author"] for r in refs}))
        lines.append(f"{origin}: {events} event{'s' if events != 1 else ''} by {authors}")
    return lines


def _origin(ref: dict[str, Any]) -> str:
    pin = ref["pin"]
    if pin["pullRequest"]:
        return f"pull request #{pin['pullRequest']}"
    if pin["branch"]:
        return f"branch {blocks.shown_name('pin.branch', pin['branch'])}"
    return f"episode {ref['episode']}"


def plan(view: View, snapshot: Snapshot, learning_id: str, requested: str | None, at: str) -> Plan:
    """Verify a learning and render its promotion; raises ``verify.Stopped`` naming the check
    that failed. ``requested`` is a stricter route a person asked for, or None."""
    history = verify.history_of(view, learning_id)
    learning = verify.check_accepted(history)
    checks = ["accepted"]
    verify.check_review(history)
    checks.append("review-digest")
    name = name_of(history)  # every check, the route and a refusal read the title it is named by
    placed = promoted_at(snapshot, learning["id"])
    if placed is not None:
        raise verify.Stopped(learning, "promoted-once", f"{placed} holds its promoted block at {snapshot.id[:12]}: "
                             "a learning is promoted once (to promote it again, remove that block in a commit "
                             "first)", name)
    checks.append("promoted-once")
    verify.check_active(view, learning, name)
    checks.append("active")
    verify.check_audience(view, learning, name)
    checks.append("audience")
    citations = verify.check_citations(snapshot, view, learning, name)
    checks.append("citations")
    routing = route(snapshot, name, learning["content"]["text"], learning["targets"])
    local = history.chain[history.intact - 1].stored.namespace == "local"
    verdict = rubric.choose(learning, routing if learning["memory"] == "semantic" else None, local=local)
    chosen = rubric.apply_request(verdict, requested)
    checks.append("route")
    result = Plan({}, learning, routing=routing, name=name)
    target, texts = _render(result, snapshot, chosen, citations, at)
    checks.append({"direct-edit": "okf", "skill": "skill-spec", "overlay": "overlay-links",
                   "staged-update": "no-canon-edit"}[chosen])
    warned = verify.check_safety(learning, [name, *texts], name)  # the name is the commit's and pull request's
    if warned:
        result.warnings["safety"] = warned
    checks.append("safety")
    result.packet = seal({
        "schema": "gitstore.packet/v1", "scope": learning["scope"], "learning": learning["id"],
        "contentDigest": learning["contentDigest"], "reviewDigest": learning["reviewDigest"],
        "learningDigest": learning["digest"], "memory": learning["memory"], "audience": learning["audience"],
        "route": chosen, "rubric": {"route": verdict.route, "reasons": [r[:300] for r in verdict.reasons]},
        "target": target, "base": snapshot.id, "statement": learning["content"]["text"],
        "citations": [{"kind": c.kind, "ref": c.ref[:500]} for c in citations],
        "checks": [{"name": name, "ok": True} for name in checks],
        "branch": branch_for(learning["id"]) if chosen in COMMITS else None, "at": at,
    })
    return result


def promoted_at(snapshot: Snapshot, learning_id: str) -> str | None:
    """Where ``snapshot`` holds a promoted block of ``learning_id`` (``path line N``, the first
    in path order) in the wiki or the skills, or None. Moved to another page, a block is found
    there too: promoting the learning again would put a second block of it in the repository."""
    marker = f"{blocks.MARKER_START} {learning_id}"
    for path in snapshot.holding(marker, BLOCK_FOLDERS):
        placed = next((b for b in blocks.find(snapshot.text(path) or "") if b.learning == learning_id), None)
        if placed is not None:
            return f"{path} line {placed.line}"
    return None


def _render(result: Plan, snapshot: Snapshot, chosen: str, citations: list[blocks.Citation],
            at: str) -> tuple[str, list[str]]:
    """Render the route's files into ``result``; returns the packet's target and the texts the
    safety scanner must clear."""
    learning = result.learning
    if chosen == "direct-edit":
        return _direct_edit(result, snapshot, citations)
    if chosen == "skill":
        return _skill(result, snapshot, citations)
    if chosen == "overlay":
        return _overlay(result, snapshot, at)
    owner = result.routing.owner if result.routing else None
    target = owner.page if owner else WIKI
    return target, [result.name, learning["content"]["text"]]


def render_target(snapshot: Snapshot, packet: dict[str, Any], learning: dict[str, Any], name: str) -> str | None:
    """The text promote writes at the packet's target on top of ``snapshot``, rebuilt from the
    packet (statement, citations) and the learning, named ``name`` (``gitstore.records.headline.name_of``): what a promotion commit whose parent is
    ``snapshot`` must hold, byte for byte. None for a route that commits nothing; raises
    ``Refused`` when the route would not land on that target from ``snapshot``."""
    citations = [blocks.Citation(c["kind"], c["ref"]) for c in packet["citations"]]
    if packet["route"] == "skill":
        taken = _skill_folder_taken(snapshot, packet["target"])
        if taken:
            raise Refused(taken)
        return skill.render(learning, name, citations, sorted(rubric.contexts(learning)))
    if packet["route"] != "direct-edit":
        return None
    owner = route(snapshot, name, learning["content"]["text"], learning["targets"]).owner
    if owner is None or owner.page != packet["target"]:
        raise Refused(f"from {snapshot.id[:12]} promote would not edit {packet['target']} "
                      f"(it routes the learning to {owner.page if owner else 'no page'})")
    block = blocks.render(packet["learning"], packet["contentDigest"], packet["statement"], citations)
    return direct_edit.render(snapshot, owner, block)


def _direct_edit(result: Plan, snapshot: Snapshot, citations: list[blocks.Citation]) -> tuple[str, list[str]]:
    learning = result.learning
    assert result.routing is not None and result.routing.owner is not None
    owner = result.routing.owner
    block = blocks.render(learning["id"], learning["contentDigest"], learning["content"]["text"], citations)
    text = direct_edit.render(snapshot, owner, block)
    problem = _read_back(learning, owner.page, text) or _page_problem(snapshot, owner.page, text)
    if problem:
        raise verify.Stopped(learning, "okf", f"{owner.page} would not be a valid OKF page: {problem}", result.name)
    result.files[owner.page] = text
    return owner.page, [block]


def _skill(result: Plan, snapshot: Snapshot, citations: list[blocks.Citation]) -> tuple[str, list[str]]:
    learning = result.learning
    path = skill.path_for(result.name)
    folder = dirname(path)
    taken = _skill_folder_taken(snapshot, path)
    if taken:
        raise verify.Stopped(learning, "skill-spec", taken, result.name)
    text = skill.render(learning, result.name, citations, sorted(rubric.contexts(learning)))
    problems = check_skill(basename(folder), text) or skill_links_leaving(page_of(path, text), ".",
                                                                          InTree(snapshot, {path: text}))
    if problems:
        line, problem = problems[0]
        raise verify.Stopped(learning, "skill-spec", f"{path}:{line}: {problem}", result.name)
    read_back = _read_back(learning, path, text)
    if read_back:
        raise verify.Stopped(learning, "skill-spec", read_back, result.name)
    result.files[path] = text
    return path, [text]


def _skill_folder_taken(snapshot: Snapshot, path: str) -> str | None:
    """Why a skill may not be written at ``path`` on ``snapshot`` (promote writes one only
    where none lives, and never where a file or a link of someone's is in its folder's way),
    or None."""
    folder = dirname(path)
    if snapshot.exists(folder + "/"):
        return f"a skill already lives in {folder}/ at {snapshot.id[:12]}"
    twin = _case_twin(snapshot, folder)
    if twin:
        return (f"a skill already lives in {twin}/ at {snapshot.id[:12]}, which a checkout that ignores case "
                f"(macOS, Windows) takes for {folder}/: the two would be one folder, one SKILL.md over the other")
    parts = folder.split("/")
    for end in range(1, len(parts) + 1):
        at = "/".join(parts[:end])
        if snapshot.exists(at) and not snapshot.exists(at + "/"):
            return f"{at} is a file, not a folder, at {snapshot.id[:12]}: the skill's folder {folder}/ cannot go there"
    return None


def _case_twin(snapshot: Snapshot, path: str) -> str | None:
    """A folder of ``snapshot`` that is ``path`` on a file system that ignores case, spelled
    otherwise (``.agents/Skills/x`` for ``.agents/skills/x``); None when there is none."""
    found = [""]
    for part in path.split("/"):
        found = [f"{at}/{name}" if at else name for at in found for name in snapshot.names(at)
                 if name.casefold() == part.casefold()]
        if not found:
            return None
    return next((spelled for spelled in found if spelled != path), None)


def _overlay(result: Plan, snapshot: Snapshot, at: str) -> tuple[str, list[str]]:
    learning = result.learning
    link = _project_link(result.routing, snapshot)
    if link is None:
        raise verify.Stopped(learning, "overlay-links", "an overlay page links to one page of project knowledge, "
                             "and this repository has no wiki page or README.md to link to", result.name)
    path = overlay.path_for(result.name)
    text = overlay.render(learning, result.name, link, at)
    problem = _read_back(learning, path, text) or _page_problem(snapshot, path, text)
    if problem:
        raise verify.Stopped(learning, "overlay-links", f"{path} would not be a valid OKF page: {problem}",
                                 result.name)
    result.files[path] = text
    return path, [text]


def _read_back(learning: dict[str, Any], path: str, text: str) -> str | None:
    """Why the file promote renders would not read back as the learning's promotion, as the
    promotion gate reads it: exactly one block of the learning, holding its accepted text, and
    no other marker line. A carriage return, a blank line, a line that begins like the
    ``Cited:`` line or like a marker in the text would end or split the block."""
    own = [block for block in blocks.find(text) if block.learning == learning["id"]]
    if len(own) != 1:
        return f"it would hold {len(own)} promoted blocks of {learning['id']}, where a promotion adds one"
    if own[0].statement != learning["content"]["text"]:
        return (f"line {own[0].line + 1}: its promoted block would not read back as the accepted text (a carriage "
                "return, a blank line, or a line that begins like a marker or a Cited: line ends or changes it)")
    if own[0].continued:
        return f"line {own[0].cited_line + 1}: {blocks.CONTINUED} {learning['id']}"
    shapeless = blocks.markers_without_shape(text)
    if shapeless:
        return f"line {shapeless[0]}: a gitstore:promoted marker that is not a marker line of its own"
    return None


def _page_problem(snapshot: Snapshot, path: str, text: str) -> str | None:
    """The first rule of the wiki gate (``gitstore-okf``) that the page promote renders at
    ``path`` would break, its links read in the snapshot's tree as the gate reads them in the
    commit's work tree: a link of the learning's text that does not resolve, leaves the
    repository or names no heading makes a commit the gate refuses."""
    files = InTree(snapshot, {path: text})
    found = page_findings(page_of(path, text), path, WIKI, lambda page: link_problems(page, WIKI, ".", files))
    return f"line {found[0].line}: {found[0].message}" if found else None


def _project_link(routing: Routing | None, snapshot: Snapshot) -> tuple[str, str] | None:
    """The one page of project knowledge an overlay page links to: the owner, else the
    quickstart, else the wiki's index, else the README."""
    if routing and routing.owner:
        meta, _, _ = split_front_matter(snapshot.text(routing.owner.page) or "")
        title = meta.get("title") if isinstance(meta, dict) else None
        return (str(title) if title else routing.owner.page.rsplit("/", 1)[-1], routing.owner.page)
    for title, path in (("Quickstart", f"{WIKI}/{QUICKSTART}"), ("The wiki", f"{WIKI}/index.md"),
                        ("README", "README.md")):
        if snapshot.read(path) is not None:
            return (title, path)
    return None


def staged_files(plan_: Plan) -> dict[str, str]:
    """The files of a staged brief (route 2), by name inside its folder."""
    candidates = list(plan_.routing.scores) if plan_.routing else []
    brief = staged.render_brief(plan_.packet, plan_.learning, plan_.name, evidence_by_origin(plan_.learning), candidates)
    return {"brief.md": brief, "packet.json": staged.packet_json(plan_.packet)}
