"""Open Knowledge Format (OKF v0.2) wiki pages: the page checks and the generated index.

The checks (``check_page``, ``check_links``, ``check_wiki``) return problems as one-line strings,
empty when all is well; the wiki gate and the project's own wiki tests run them.
``render_index_page`` is the inventory ``index.md`` of a folder, from its pages' front matter:
generated, never hand-edited.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path

import yaml

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and dataclasses cost a gate's start-up time; only checkers need them
    from typing import Any


ROOT = Path(__file__).resolve().parents[2]
WIKI = ROOT / "okf" / "wiki"
INDEX_PAGE = "index.md"
LOG_PAGE = "log.md"
RESERVED = (INDEX_PAGE, LOG_PAGE)
OKF_VERSION = "0.2"
# Folders of the wiki that are not part of the shared bundle: the per-user overlay (route 0),
# which git ignores, so its content differs from clone to clone.
LOCAL_DIRS = frozenset({"tooling"})


# ---------------------------------------------------------------------------------------------
# The index page
# ---------------------------------------------------------------------------------------------

def render_index_page(root: Path = WIKI, folder: Path | None = None) -> str:
    """The text of ``index.md`` for a folder of the wiki: its pages, then its subfolders.

    The folder at the bundle root also declares the OKF version it follows.
    """
    folder = folder or root
    lines = []
    if folder == root:
        lines += ["---", f'okf_version: "{OKF_VERSION}"', "---", ""]
    lines += ["# Pages", ""]
    for page in _pages_in(folder):
        meta = read_page(page).meta
        meta = meta if isinstance(meta, dict) else {}
        title = _one_line(meta.get("title")) or page.stem
        entry = f"* [{title}]({page.name})"
        description = _one_line(meta.get("description"))
        lines.append(f"{entry} - {description}" if description else entry)
    subfolders = [sub for sub in _subfolders(folder) if _pages_in(sub)]
    if subfolders:
        lines += ["", "# Subfolders", ""]
        lines += [f"* [{sub.name}]({sub.name}/{INDEX_PAGE}) - pages about {sub.name}" for sub in subfolders]
    return "\n".join(lines) + "\n"


def _one_line(value: Any) -> str:
    return " ".join(str(value).split()) if value else ""


def _pages_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.md") if p.name not in RESERVED and p.is_file())


def _subfolders(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir()
        if p.is_dir() and p.name not in LOCAL_DIRS and not p.name.startswith(".")
    )


def _folders(root: Path) -> list[Path]:
    found = [root]
    for sub in _subfolders(root):
        found += _folders(sub)
    return found


# ---------------------------------------------------------------------------------------------
# OKF page checks
# ---------------------------------------------------------------------------------------------

_STATUSES = ("draft", "stable", "deprecated")
_ACTOR = re.compile(r"^(?:(?:human|process):\S+|[^\s/:]+/\S+)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_INDEX_ENTRY = re.compile(r"^[*-] \[([^\]]+)\]\(([^()\s]+)\)(?: - (.*))?$")
_LOG_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()<>\s]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]+)\](?!:)")
_FOOTNOTE_DEFS = re.compile(r"^ {0,3}\[\^([^\]\s]+)\]:", re.MULTILINE)  # one per line: a label holds no space
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class _Loader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):  # type: ignore[misc]
    """YAML's safe loader (libyaml's, in C, when present) refusing a key written twice.

    The tag of a plain scalar (string, number, date...) depends on nothing but its kind, text
    and implicitness while no path resolver is registered (none is): a wiki's front matter
    repeats its keys and many values, so each is resolved once per process.
    """

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)
        key = (kind, value, implicit)
        tag = _TAGS.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_TAGS) < _TAGS_KEPT:
                _TAGS[key] = tag
        return tag


_TAGS: dict[tuple[Any, Any, Any], str] = {}
_TAGS_KEPT = 1 << 16


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    mapping = loader.construct_mapping(node, deep=True)
    if len(mapping) != len(node.value):  # two keys became one: name the second
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} appears twice",
                                                        key_node.start_mark)
            seen.add(key)
    return mapping


_Loader.add_constructor("tag:yaml.org,2002:map", _mapping)


_SCALARS = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_SCALAR = yaml.ScalarNode
_SLOW = ("&", "*", "!", "<<")  # anchors, aliases, explicit tags, merge keys: the full constructor


def load_yaml(text: str) -> Any:
    """Parse one YAML document safely; a repeated key is an error (``yaml.YAMLError``).

    libyaml composes the nodes; plain documents (no anchors, aliases, explicit tags or merge
    keys, as front matter is) are then built by a direct walk, several times faster than the
    generic constructor and equal to it; any other goes through the safe constructor.
    """
    if any(mark in text for mark in _SLOW):
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    node = yaml.compose(text, Loader=_Loader)
    return None if node is None else _build(node)


def _build(node: yaml.Node) -> Any:
    if type(node) is _SCALAR or isinstance(node, _SCALAR):
        if node.tag == _STR:
            return node.value
        try:
            return _SCALARS.yaml_constructors[node.tag](_SCALARS, node)
        except KeyError:
            raise yaml.constructor.ConstructorError(None, None, f"unknown tag {node.tag}", node.start_mark) from None
    if isinstance(node, yaml.SequenceNode):
        return [_build(item) for item in node.value]
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = _build(key_node)
        try:
            repeated = key in mapping
        except TypeError:
            raise yaml.constructor.ConstructorError(None, None, "a mapping key is not hashable",
                                                    key_node.start_mark) from None
        if repeated:
            raise yaml.constructor.ConstructorError(None, None, f"key {key!r} appears twice", key_node.start_mark)
        mapping[key] = _build(value_node)
    return mapping


def split_front_matter(text: str) -> tuple[Any, str, list[str]]:
    """Split a page into (front matter or None, body, problems found in the front matter)."""
    if not text.startswith("---"):
        return None, text, []
    lines = text.split("\n")
    if lines[0].rstrip("\r") != "---":
        return None, text, []
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r") == "---":
            block = "\n".join(lines[1:number])
            body = "\n".join(lines[number + 1:])
            try:
                return load_yaml(block), body, []
            except (yaml.YAMLError, ValueError) as exc:
                return None, body, [f"front matter is not valid YAML: {' '.join(str(exc).split())[:200]}"]
    return None, text, ["front matter has no closing --- line"]


class Page:
    """One file of a wiki read once: its text, front matter and body (or why it has none)."""

    __slots__ = ("path", "text", "meta", "body", "problems", "_anchors", "_code_free", "_links")

    def __init__(self, path: Path | str, text: str | None, meta: Any = None, body: str = "",
                 problems: list[str] | None = None) -> None:
        self.path = path
        self.text = text
        self.meta = meta
        self.body = body
        self.problems = problems or []
        self._anchors: set[str] | None = None
        self._code_free: str | None = None
        self._links: list[str] | None = None

    @property
    def anchors(self) -> set[str]:
        """The heading anchors of the page, as a markdown renderer makes them."""
        if self._anchors is None:
            self._anchors = _anchors_of(self.body)
        return self._anchors

    @property
    def code_free(self) -> str:
        """The body with code blocks and code spans blanked."""
        if self._code_free is None:
            self._code_free = _without_code(self.body)
        return self._code_free

    @property
    def links(self) -> list[str]:
        """Every link target of the body."""
        if self._links is None:
            self._links = _links_in(self.code_free)
        return self._links


_CACHE: list[dict[str, Page]] = []
_KINDS: dict[str, str | None] = {}  # what is at a path (see page_cache)
_SAME: dict[tuple[str, str], bool] = {}  # whether two paths name one folder
_REAL: dict[str, str] = {}  # where a path leads, its symbolic links followed (see _real)


@contextmanager
def page_cache() -> Iterator[None]:
    """Within this block each page is read and parsed once (a gate run over a whole wiki)."""
    _CACHE.append({})
    try:
        yield
    finally:
        _CACHE.pop()
        if not _CACHE:
            _KINDS.clear()
            _SAME.clear()
            _REAL.clear()


def read_page(path: Path | str) -> Page:
    """The page at ``path``, parsed (once per ``page_cache`` block)."""
    if not _CACHE:
        return _parse(path, _read(path))
    cache = _CACHE[-1]
    key = os.path.normpath(path)  # a link through ``..`` names a page read already
    page = cache.get(key)
    if page is None:
        page = cache[key] = _parse(path, _read(path))
    return page


def _read(path: Path | str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _parse(path: Path | str, data: bytes) -> Page:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Page(path, None, problems=["not UTF-8"])
    if text.startswith("\ufeff"):
        return Page(path, text, problems=["starts with a byte order mark"])
    meta, body, problems = split_front_matter(text)
    return Page(path, text, meta, body, problems)


def check_page(path: Path, root: Path | None = None) -> list[str]:
    """Problems that keep one file from being a valid OKF v0.2 page (empty when it is valid).

    ``root`` is the bundle root; by default the page's own folder. Checks: every page but the
    reserved ``index.md`` and ``log.md`` has front matter with a non-empty ``type``; the
    optional families are well formed when present (title, description, tags, resource,
    status, generated, verified, stale_after, sources and their footnotes, and the fields an
    Attested Computation needs); an index has no front matter except ``okf_version`` at the
    bundle root and is made of headed sections of ``* [title](link) - description`` entries; a
    log has ``## YYYY-MM-DD`` headings, newest first. Links are checked by ``check_links``.
    """
    root = root or path.parent
    return page_problems(read_page(path), at_root=_same_folder(os.fspath(path.parent), os.fspath(root)))


def _same_folder(one: str, other: str) -> bool:
    """Whether two paths name one folder (remembered within a ``page_cache`` block)."""
    if one == other:
        return True
    if not _CACHE:
        return os.path.abspath(one) == os.path.abspath(other)
    known = _SAME.get((one, other))
    if known is None:
        known = _SAME[(one, other)] = os.path.abspath(one) == os.path.abspath(other)
    return known


def check_text(name: str, text: str, *, at_root: bool = False) -> list[str]:
    """``check_page`` for a page held in memory: ``name`` is its file name (``index.md``,
    ``log.md`` or any other), ``at_root`` whether it sits at the bundle root."""
    return page_problems(page_of(name, text), at_root=at_root)


def page_of(path: Path | str, text: str) -> Page:
    """A page held in memory (``path`` being where it goes), parsed as ``read_page`` parses one."""
    return _parse(path, text.encode("utf-8"))


def page_problems(page: Page, *, at_root: bool) -> list[str]:
    """``check_page`` for a page read already (``at_root``: it sits at the bundle root)."""
    if page.problems:
        return list(page.problems)
    meta, body = page.meta, page.body
    name = os.path.basename(page.path)
    if name == INDEX_PAGE:
        return _check_index(meta, body, at_root=at_root)
    if name == LOG_PAGE:
        return _check_log(meta, body)
    if meta is None:
        return ["no front matter: a page starts with a --- line, YAML, and a closing --- line"]
    if not isinstance(meta, dict):
        return ["front matter is not a YAML mapping"]
    return _check_meta(meta) + _check_footnotes(meta, page.code_free)


def _check_meta(meta: Mapping[str, Any]) -> list[str]:
    problems = []
    kind = meta.get("type")
    if not isinstance(kind, str) or not kind.strip():
        problems.append("front matter has no non-empty type")
    for key in ("title", "resource"):
        if key in meta and not (isinstance(meta[key], str) and meta[key].strip()):
            problems.append(f"{key} is not a non-empty string")
    if "description" in meta:
        value = meta["description"]
        if not (isinstance(value, str) and value.strip()):
            problems.append("description is not a non-empty string")
        elif "\n" in value.strip():
            problems.append("description is not one line")
    if "tags" in meta:
        tags = meta["tags"]
        if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
            problems.append("tags is not a list of strings")
    if "status" in meta and meta["status"] not in _STATUSES:
        problems.append(f"status {meta['status']!r} is not one of {', '.join(_STATUSES)}")
    if "generated" in meta:
        problems += _check_event("generated", meta["generated"], need_at=False)
    if "verified" in meta:
        verified = meta["verified"]
        entries = [verified] if isinstance(verified, dict) else verified
        if not isinstance(entries, list) or not entries:
            problems.append("verified is not a { by, at } mapping or a list of them")
        else:
            for number, entry in enumerate(entries):
                problems += _check_event(f"verified[{number}]", entry, need_at=True)
    if "stale_after" in meta and not _is_instant(meta["stale_after"]):
        problems.append("stale_after is not an ISO 8601 datetime with a UTC offset")
    if "sources" in meta or "usage_window" in meta:
        problems += _check_sources(meta)
    if kind == "Attested Computation":
        problems += _check_computation(meta)
    return problems


def _check_event(name: str, value: Any, *, need_at: bool) -> list[str]:
    if not isinstance(value, dict):
        return [f"{name} is not a mapping with by and at"]
    problems = []
    if not isinstance(value.get("by"), str) or not _ACTOR.match(value["by"]):
        problems.append(f"{name}.by is not an actor (human:<id>, process:<id> or <producer>/<version>)")
    if "at" in value or need_at:
        if not _is_instant(value.get("at")):
            problems.append(f"{name}.at is not an ISO 8601 datetime with a UTC offset")
    return problems


def _check_sources(meta: Mapping[str, Any]) -> list[str]:
    problems = []
    sources = meta.get("sources", [])
    if not isinstance(sources, list):
        return ["sources is not a list"]
    seen: set[str] = set()
    for number, entry in enumerate(sources):
        where = f"sources[{number}]"
        if not isinstance(entry, dict):
            problems.append(f"{where} is not a mapping")
            continue
        if not (isinstance(entry.get("resource"), str) and entry["resource"].strip()):
            problems.append(f"{where} has no resource")
        if "id" in entry:
            if not isinstance(entry["id"], str) or not entry["id"].strip():
                problems.append(f"{where}.id is not a non-empty string")
            elif entry["id"] in seen:
                problems.append(f"{where}.id {entry['id']!r} is used twice")
            else:
                seen.add(entry["id"])
        count = entry.get("usage_count")
        if "usage_count" in entry and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            problems.append(f"{where}.usage_count is not a count")
        if "last_modified" in entry and not _is_instant(entry["last_modified"]):
            problems.append(f"{where}.last_modified is not an ISO 8601 datetime with a UTC offset")
        if "usage_window" in entry:
            problems += _check_window(f"{where}.usage_window", entry["usage_window"])
    if "usage_window" in meta:
        problems += _check_window("usage_window", meta["usage_window"])
    return problems


def _check_window(name: str, value: Any) -> list[str]:
    if not isinstance(value, dict) or not _is_instant(value.get("from")) or not _is_instant(value.get("to")):
        return [f"{name} is not a {{ from, to }} pair of datetimes with UTC offsets"]
    return []


def _check_computation(meta: Mapping[str, Any]) -> list[str]:
    problems = []
    if not (isinstance(meta.get("runtime"), str) and meta["runtime"].strip()):
        problems.append("an Attested Computation has no runtime")
    parameters = meta.get("parameters", [])
    if not isinstance(parameters, list) or not all(
        isinstance(p, dict) and isinstance(p.get("name"), str) for p in parameters
    ):
        problems.append("parameters is not a list of { name, type, required }")
    for key in ("executor", "attester"):
        if key in meta and not (isinstance(meta[key], dict) and isinstance(meta[key].get("resource"), str)):
            problems.append(f"{key} has no resource")
    return problems


def _check_footnotes(meta: Mapping[str, Any], text: str) -> list[str]:
    used = set(_FOOTNOTE_REF.findall(text))
    defined = set(_FOOTNOTE_DEFS.findall(text)) if "[^" in text else set()
    sources = meta.get("sources") if isinstance(meta.get("sources"), list) else []
    ids = {s["id"] for s in sources if isinstance(s, dict) and isinstance(s.get("id"), str)}
    problems = [f"footnote [^{label}] has no sources entry with that id" for label in sorted(used - ids)]
    problems += [f"footnote [^{label}] is cited but not defined" for label in sorted(used - defined)]
    return problems


def _check_index(meta: Any, body: str, *, at_root: bool) -> list[str]:
    problems = []
    if meta is not None:
        if not at_root:
            problems.append("index.md has front matter; only the bundle root's may (okf_version)")
        elif not isinstance(meta, dict) or set(meta) != {"okf_version"}:
            problems.append("index.md front matter may hold only okf_version")
        elif not isinstance(meta["okf_version"], str):
            problems.append('okf_version is not a quoted string such as "0.2"')
    sections = 0
    entries = 0
    for number, line in enumerate(body.split("\n"), start=1):
        if not line.strip():
            continue
        if _HEADING.match(line):
            if sections and not entries:
                problems.append(f"index line {number}: the section before has no entries")
            sections += 1
            entries = 0
            continue
        match = _INDEX_ENTRY.match(line)
        if not match:
            problems.append(f"index line {number}: not a heading or a '* [title](link) - description' entry")
        elif not sections:
            problems.append(f"index line {number}: entry before the first section heading")
        else:
            entries += 1
            if not (match.group(3) or "").strip():
                problems.append(f"index line {number}: entry has no description")
    if not sections:
        problems.append("index has no section heading")
    elif not entries:
        problems.append("index: the last section has no entries")
    return problems


def _check_log(meta: Any, body: str) -> list[str]:
    problems = []
    if meta is not None and not isinstance(meta, dict):
        problems.append("front matter is not a YAML mapping")
    dates: list[date] = []
    for number, line in enumerate(_without_code(body).split("\n"), start=1):
        heading = _HEADING.match(line)
        if not heading or len(heading.group(1)) != 2:
            continue
        text = heading.group(2).strip()
        try:
            if not _LOG_DATE.match(text):
                raise ValueError
            dates.append(date.fromisoformat(text))
        except ValueError:
            problems.append(f"log line {number}: date heading {text!r} is not YYYY-MM-DD")
    if any(later >= earlier for earlier, later in zip(dates, dates[1:])):
        problems.append("log dates are not newest first")
    return problems


def _is_instant(value: Any) -> bool:
    if isinstance(value, datetime):
        return value.tzinfo is not None
    if isinstance(value, str) and "T" in value:
        try:
            return datetime.fromisoformat(value).tzinfo is not None
        except ValueError:
            return False
    return False


def _without_code(body: str, spans: bool = False) -> str:
    """The body with fenced blocks blanked and, unless ``spans``, code spans emptied, so their
    text is not read as links (headings keep their spans: a heading's anchor is made from them)."""
    if "`" not in body and "~~~" not in body:  # no fence, no span: most pages of prose
        return body
    out = []
    fence = ""
    for line in body.split("\n"):
        match = _FENCE.match(line) if "`" in line or "~" in line else None
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = ""
            out.append("")
        elif match:
            fence = match.group(1)
            out.append("")
        else:
            out.append(line if spans else _CODE_SPAN.sub("``", line))
    return "\n".join(out)


def _anchors_of(body: str) -> set[str]:
    found: set[str] = set()
    for line in _without_code(body, spans=True).split("\n"):
        match = _HEADING.match(line) if "#" in line else None
        if match:
            anchor = base = slug(match.group(2))
            number = 0
            while anchor in found:
                number += 1
                anchor = f"{base}-{number}"
            found.add(anchor)
    return found


def links_of(path: Path) -> list[str]:
    """Every link target in a page's body (inline links, images, reference definitions)."""
    page = read_page(path)
    return [] if page.text is None else page.links


def check_links(path: Path, root: Path | None = None) -> list[str]:
    """Relative links of a page that do not resolve (empty when all do).

    URLs are not followed. A link starting with ``/`` is relative to the bundle ``root`` (by
    default the page's folder); any other is relative to the page. A ``#fragment`` must name a
    heading of the target page. Path-valued front matter (``sources[].resource`` written as a
    path, not a URL or a descriptor with spaces) must resolve too, from the page or, as some
    bundles write it, from the bundle root.
    """
    return link_problems(read_page(path), root or path.parent)


class OnDisk:
    """Where a page's links lead, read from the files on disk (the gate's view): what is at a
    path, a page's anchors, whether a path stays in a folder. ``promote`` reads the same from a
    commit's tree instead, through an object with these three methods."""

    @staticmethod
    def kind(file: str) -> str | None:
        return _kind(file)

    @staticmethod
    def anchors(file: str) -> set[str]:
        return read_page(file).anchors

    @staticmethod
    def inside(file: str, folder: str, there: bool) -> bool:
        return _inside(file, folder, there)


def link_problems(page: Page, root: Path | str, within: Path | str | None = None, files: Any = OnDisk) -> list[str]:
    """``check_links`` for a page read already, ``root`` being the bundle root; a target outside
    the folder ``within`` (the repository) is a problem even when it resolves. ``files`` says
    what is where (``OnDisk``, else a commit's tree)."""
    if page.text is None:
        return []
    problems = []
    file_here = os.fspath(page.path)
    here, base = os.path.dirname(file_here), os.fspath(root)
    for target, what in link_targets(page):
        if _SCHEME.match(target):
            continue
        name, _, fragment = target.partition("#")
        if not name:
            file = file_here
        elif name.startswith("/"):
            file = os.path.join(base, name.lstrip("/"))
        else:
            file = os.path.join(here, name)
        if what == "source" and not name.startswith("/") and files.kind(file) is None:
            file = os.path.join(base, name)
        kind = files.kind(file)
        if within is not None and not files.inside(file, os.fspath(within), kind is not None):
            problems.append(f"{what} {target} leaves the repository")
        elif kind is None:
            problems.append(f"{what} {target} does not resolve")
        elif fragment and kind == "file" and file.endswith(".md") and fragment not in files.anchors(file):
            problems.append(f"{what} {target}: no heading with anchor #{fragment}")
    return problems


def link_targets(page: Page) -> list[tuple[str, str]]:
    """(target, "link" or "source") for each link of a page's body and each path-valued source
    of its front matter: what must resolve. A source that is no path relative to the page is
    one from the bundle root."""
    targets = [(t, "link") for t in page.links]
    meta = page.meta
    if isinstance(meta, dict) and isinstance(meta.get("sources"), list):
        for entry in meta["sources"]:
            resource = entry.get("resource") if isinstance(entry, dict) else None
            if isinstance(resource, str) and not re.search(r"\s", resource):
                targets.append((resource, "source"))
    return targets


def _inside(file: str, folder: str, there: bool) -> bool:
    """Whether ``file`` is within ``folder``, by its path and, when it is there, by where its
    symbolic links lead."""
    pairs = [(os.path.abspath(file), os.path.abspath(folder))]
    if there:
        pairs.append((_real(file), _real(folder)))
    return all(path == top or path.startswith(top.rstrip(os.sep) + os.sep) for path, top in pairs)


def _real(path: str) -> str:
    """``os.path.realpath(path)`` of a path that is there; within a ``page_cache`` block each
    folder is resolved once, and a path in a folder resolved already costs one ``lstat`` of its
    last part (``realpath`` checks every part of every path it is given for a link)."""
    if not _CACHE:
        return os.path.realpath(path)
    found = _REAL.get(path)
    if found is None:
        folder, name = os.path.split(path)
        if name in ("", ".", "..") or not folder:  # the root, a bare name, or a step: resolved whole
            found = os.path.realpath(path)
        else:
            joined = os.path.join(_real(folder), name)  # the folder's own links followed
            found = os.path.realpath(joined) if os.path.islink(joined) else joined
        _REAL[path] = found
    return found


def _kind(file: str) -> str | None:
    """"file", "folder", another kind, or None when nothing is there (remembered within a
    ``page_cache`` block)."""
    if _CACHE:
        key = os.path.normpath(file)
        if key in _KINDS:
            return _KINDS[key]
    try:
        mode = os.stat(file).st_mode
        kind = "file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode) else "other"
    except (OSError, ValueError):
        kind = None
    if _CACHE:
        _KINDS[key] = kind
    return kind


def check_wiki(root: Path = WIKI) -> list[str]:
    """Every problem in a wiki bundle, each as ``<path>: <problem>``.

    Checks each page (``check_page``), its links (``check_links``), and that every folder has an
    ``index.md`` whose entries list each page and each subfolder of that folder.
    """
    with page_cache():
        return _check_wiki(root)


def _check_wiki(root: Path) -> list[str]:
    problems = []
    for folder in _folders(root):
        pages = sorted(p for p in folder.glob("*.md") if p.is_file())
        for page in pages:
            where = page.relative_to(root).as_posix()
            problems += [f"{where}: {p}" for p in check_page(page, root) + check_links(page, root)]
        index = folder / INDEX_PAGE
        where = index.relative_to(root).as_posix()
        if not index.is_file():
            if _pages_in(folder):
                problems.append(f"{where}: missing")
            continue
        listed = {(folder / t.partition("#")[0]).resolve() for t in links_of(index) if not _SCHEME.match(t)}
        for page in _pages_in(folder):
            if page.resolve() not in listed:
                problems.append(f"{where}: does not list {page.name}")
        for sub in _subfolders(folder):
            if _pages_in(sub) and not {sub.resolve(), (sub / INDEX_PAGE).resolve()} & listed:
                problems.append(f"{where}: does not list {sub.name}/")
    return problems


def slug(heading: str) -> str:
    """The anchor a markdown renderer gives a heading (GitHub's rule)."""
    return _NOT_IN_SLUG.sub("", heading.strip().lower()).replace(" ", "-")


_NOT_IN_SLUG = re.compile(r"[^\w\- ]")


def headings(body: str) -> list[tuple[int, int, str]]:
    """The headings of a page body outside code blocks: (0-based line, level, text)."""
    found = []
    for number, line in enumerate(_without_code(body, spans=True).split("\n")):
        match = _HEADING.match(line)
        if match:
            found.append((number, len(match.group(1)), match.group(2).strip()))
    return found


def index_entries(text: str) -> list[tuple[str, str, str]]:
    """The ``* [title](link) - description`` entries of an index page, in order."""
    _, body, _ = split_front_matter(text)
    entries = []
    for line in body.split("\n"):
        match = _INDEX_ENTRY.match(line)
        if match:
            entries.append((match.group(1), match.group(2), match.group(3) or ""))
    return entries


def body_links(body: str) -> list[str]:
    """Every link target in a page body (inline links, images, reference definitions)."""
    return _links_in(_without_code(body))


def _links_in(code_free: str) -> list[str]:
    if "](" not in code_free and "]:" not in code_free:
        return []
    targets = []
    for line in code_free.split("\n"):
        if "]" not in line:  # neither a definition nor an inline link
            continue
        definition = _REF_DEFINITION.match(line)
        if definition:
            targets.append(definition.group(1))
            continue
        targets += _INLINE_LINK.findall(line)
    return targets


def is_url(target: str) -> bool:
    """Whether a link target is a URL (has a scheme), which the checks never follow."""
    return bool(_SCHEME.match(target))
