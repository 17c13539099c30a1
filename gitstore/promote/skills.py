"""The Agent Skills specification's rules for a ``SKILL.md`` file, as (line, problem) pairs.

A skill is a folder holding ``SKILL.md``: YAML front matter, then markdown instructions. The
front matter may hold only the specification's keys (``name``, ``description``, ``license``,
``allowed-tools``, ``metadata``, ``compatibility``). ``name`` is 1 to 64 characters of lowercase
letters, digits and hyphens, with no hyphen at either end or twice in a row, and equals the
folder's name. ``description`` is 1 to 1024 characters. ``compatibility``, when present, is 1 to
500 characters; ``license`` a string; ``metadata`` a mapping of strings to strings;
``allowed-tools`` a string of space-separated tools (a list of strings is accepted too, as
harnesses read both).

One rule is advice, not a refusal, for skills gitstore did not write: a description over 1024
characters. Harnesses load such skills (vendors publish them: Anthropic's ``claude-api`` skill
has 1068), some cut the text; ``skill_problems`` returns it apart so a gate can warn, while
``check_skill`` (what gitstore holds its own skills to) counts it as a problem.
"""

from __future__ import annotations

import re

import yaml

from gitstore.promote.okf import load_yaml

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILE_NAME = "SKILL.md"
LEARNING_KEY = "gitstore-learning"  # the key of ``metadata`` naming the learning a skill was promoted from
ALLOWED_KEYS = ("name", "description", "license", "allowed-tools", "metadata", "compatibility")
NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
_NAME = re.compile(r"^[a-z0-9-]+\Z")
_KEY_LINE = re.compile(r"^([^\s#:][^:]*):")


Problem = tuple[int, str]  # (1-based line, what is wrong)


def check_skill(folder: str, text: str) -> list[Problem]:
    """Every rule of the specification that ``text`` (a SKILL.md in folder ``folder``) breaks,
    as (1-based line, problem); empty when the file is a valid skill."""
    problems, advice = skill_problems(folder, text)
    return sorted(problems + advice)


def skill_problems(folder: str, text: str) -> tuple[list[Problem], list[Problem]]:
    """The rules ``text`` breaks that stop a harness from loading it, and apart from them the
    ones harnesses tolerate (an over-long description)."""
    lines = text.split("\n")
    meta, end, problem = _front_matter(lines)
    if problem:
        return [(1, problem)], []
    where = _key_lines(lines[1:end])
    return _check_meta(meta, folder, where), _advice(meta, where)


def learning_of(text: str) -> tuple[str | None, str]:
    """The learning a SKILL.md says it was promoted from (``metadata`` holding
    ``gitstore-learning``), and why its front matter cannot be read (empty when it can).

    The front matter is parsed, never searched as text: a key may be quoted, escaped
    (``"gitstore\\x2dlearning"``), written in flow style or merged from another mapping, and
    every YAML reader, an agent's harness too, reads each spelling as the same key. Front
    matter that does not parse names no learning here, yet a more lenient reader may load it
    (a key written twice), so the caller decides what that means."""
    meta, _, problem = _front_matter(text.split("\n"))
    if problem:
        return None, problem
    metadata = meta.get("metadata")
    value = metadata.get(LEARNING_KEY) if isinstance(metadata, dict) else None
    return (str(value) if value is not None else None), ""


def _front_matter(lines: list[str]) -> tuple[dict[Any, Any], int, str]:
    """A SKILL.md's front matter parsed as a mapping, the index of its closing ``---`` line,
    and why it cannot be read (empty when it can)."""
    if not lines or lines[0].rstrip("\r") != "---":
        return {}, 0, "no front matter: SKILL.md starts with a --- line, YAML, and a closing --- line"
    end = next((n for n, line in enumerate(lines[1:], start=1) if line.rstrip("\r") == "---"), None)
    if end is None:
        return {}, 0, "front matter has no closing --- line"
    try:
        meta = load_yaml("\n".join(lines[1:end]))
    except (yaml.YAMLError, ValueError) as exc:
        return {}, end, f"front matter is not valid YAML: {' '.join(str(exc).split())[:200]}"
    if not isinstance(meta, dict):
        return {}, end, "front matter is not a YAML mapping"
    return meta, end, ""


def _key_lines(block: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for number, line in enumerate(block, start=2):
        match = _KEY_LINE.match(line)
        if match:
            found.setdefault(match.group(1).strip().strip("'\""), number)
    return found


def _check_meta(meta: dict[Any, Any], folder: str, where: dict[str, int]) -> list[tuple[int, str]]:
    problems: list[tuple[int, str]] = []
    for key in meta:
        if key not in ALLOWED_KEYS:
            problems.append((where.get(str(key), 1),
                             f"front matter key {key!r} is not in the specification ({', '.join(ALLOWED_KEYS)})"))
    if "name" not in meta:
        problems.append((1, "front matter has no name"))
    else:
        problems += [(where.get("name", 1), p) for p in name_problems(meta["name"], folder)]
    if "description" not in meta:
        problems.append((1, "front matter has no description"))
    else:
        problems += [(where.get("description", 1), p) for p in _text_problems("description", meta["description"])]
    if "compatibility" in meta:
        problems += [(where.get("compatibility", 1), p)
                     for p in _text_problems("compatibility", meta["compatibility"], COMPATIBILITY_MAX)]
    if "license" in meta and not (isinstance(meta["license"], str) and meta["license"].strip()):
        problems.append((where.get("license", 1), "license is not a non-empty string"))
    if "metadata" in meta and not _string_map(meta["metadata"]):
        problems.append((where.get("metadata", 1), "metadata is not a mapping of strings to strings"))
    if "allowed-tools" in meta and not _tools(meta["allowed-tools"]):
        problems.append((where.get("allowed-tools", 1), "allowed-tools is not a string of tool names"))
    return problems


def name_problems(name: Any, folder: str | None) -> list[str]:
    """Why ``name`` is not a valid skill name for ``folder`` (empty when it is)."""
    if not isinstance(name, str) or not name:
        return ["name is not a non-empty string"]
    problems = []
    if len(name) > NAME_MAX:
        problems.append(f"name is {len(name)} characters; at most {NAME_MAX}")
    if not _NAME.match(name):
        problems.append(f"name {name!r} may hold only lowercase letters a-z, digits and hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append(f"name {name!r} starts or ends with a hyphen")
    if "--" in name:
        problems.append(f"name {name!r} holds two hyphens in a row")
    if folder is not None and name != folder:
        problems.append(f"name {name!r} differs from its folder {folder!r}")
    return problems


def _advice(meta: dict[Any, Any], where: dict[str, int]) -> list[Problem]:
    description = meta.get("description")
    if isinstance(description, str) and len(description) > DESCRIPTION_MAX:
        return [(where.get("description", 1), f"description is {len(description)} characters; "
                                              f"the specification allows {DESCRIPTION_MAX}, and some harnesses cut it")]
    return []


def _text_problems(key: str, value: Any, limit: int | None = None) -> list[str]:
    if not isinstance(value, str) or not value.strip():
        return [f"{key} is not a non-empty string"]
    if limit is not None and len(value) > limit:
        return [f"{key} is {len(value)} characters; at most {limit}"]
    return []


def _string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _tools(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v.strip() for v in value)


def skill_name(title: str) -> str:
    """A valid skill name made from a title: lowercase words joined by single hyphens, cut at a
    word boundary to fit 64 characters. A name holds only ``a-z``, ``0-9`` and hyphens, so the
    letters of a title written in another script (Japanese, Greek, Cyrillic: ``_beyond_latin``)
    are lost from it, and every such title would be named ``learning`` (or by its few Latin
    words: ``Git のブランチ運用`` and ``Git のコミット規約`` both ``git``), one folder for all of
    them. Such a title's name ends in a digest of the title (``DIGEST_LENGTH`` hexadecimal
    digits, after ``learning`` when it has no Latin word): distinct for distinct titles, the
    same for the same title wherever it is planned again."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    digest = _title_digest(title) if _beyond_latin(title) else ""
    room = NAME_MAX - (len(digest) + 1 if digest else 0)
    name = ""
    for word in words:
        candidate = f"{name}-{word}" if name else word
        if len(candidate) > room:
            break
        name = candidate
    if digest:
        return f"{name or 'learning'}-{digest}"
    return name or "learning"


DIGEST_LENGTH = 10  # hexadecimal digits of the title's digest that end a name made from another script


def _beyond_latin(title: str) -> bool:
    """Whether the title holds a letter or digit that no ``a-z`` or ``0-9`` stands for once its
    accents are set apart (NFKD): ``é`` is ``e`` there, ``日``, ``ω``, ``ж`` and ``ß`` are not."""
    import unicodedata

    return any(not character.isascii() and unicodedata.category(character)[0] in "LN"
               for character in unicodedata.normalize("NFKD", title))


def _title_digest(title: str) -> str:
    """The first ``DIGEST_LENGTH`` hexadecimal digits of the SHA-256 of the title as a name reads
    it: its words (NFC) in lowercase (``casefold``), one space between them, as the Latin words
    of a name are read in lowercase too."""
    import hashlib
    import unicodedata

    read = " ".join(unicodedata.normalize("NFC", title).casefold().split())
    return hashlib.sha256(read.encode("utf-8")).hexdigest()[:DIGEST_LENGTH]
