"""The project's wiki in okf/wiki/: generated pages are current, pages are valid OKF, links resolve."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore.promote import okf as wiki
from tools import wiki as generator
from gitstore.records import contracts as c

from .conftest import ROOT, shared

WIKI = ROOT / "okf" / "wiki"
PAGES = sorted(p for p in WIKI.glob("*.md"))
STALE = "okf/wiki/{} is out of date: run `make wiki` and commit the result"


# -- the generated pages are current -------------------------------------------------------------

def test_contracts_page_matches_the_schemas() -> None:
    page = (WIKI / "contracts.md").read_text(encoding="utf-8")
    assert page == generator.render_contracts_page(), STALE.format("contracts.md")


def test_index_matches_the_pages() -> None:
    page = (WIKI / "index.md").read_text(encoding="utf-8")
    assert page == wiki.render_index_page(WIKI), STALE.format("index.md")


def test_wiki_module_check_mode_reports_current() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tools.wiki", "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "okf/wiki is current"


def test_contracts_page_documents_every_field_and_digest_rule() -> None:
    page = generator.render_contracts_page()
    for kind in c.KINDS:
        contract = c.contract(kind)
        section = page.split(f"\n### {kind}\n", 1)[1].split("\n### ", 1)[0]
        assert f"`{contract.name}`" in section
        for name in contract.schema["properties"]:
            assert f"\n| `{name}` |" in section, (kind, name)
        excludes = ", ".join(f"`{f}`" for f in contract.schema["x-gitstore"]["digestExcludes"])
        assert f"- left out of `digest`: {excludes}\n" in section, kind
    learning = c.contract("learning")
    assert ", ".join(f"`{f}`" for f in learning.content_fields) in page
    assert ", ".join(f"`{f}`" for f in learning.review_fields) in page
    for name in json.loads((c.contracts_dir() / "examples" / "invalid" / "index.json").read_text()):
        assert f"| `{name}` |" in page


def test_renderer_refuses_schema_constructs_it_cannot_describe() -> None:
    schema = copy.deepcopy(dict(c.contract("grant").schema))
    schema["properties"]["note"] = {"oneOf": [{"type": "string"}, {"type": "null"}]}
    with pytest.raises(generator.SchemaConstructError):
        generator._object_rows(schema, "")
    schema = copy.deepcopy(dict(c.contract("grant").schema))
    schema["properties"]["extra"] = {"type": "object", "properties": {}}
    with pytest.raises(generator.SchemaConstructError, match="not closed"):
        generator._object_rows(schema, "")
    with pytest.raises(generator.SchemaConstructError):
        generator._rules({"if": {"properties": {"a": {"minimum": 1}}}, "then": {"required": ["b"]}})


# -- the wiki is valid OKF ---------------------------------------------------------------------

def test_the_wiki_has_its_pages() -> None:
    assert {p.name for p in PAGES} >= {"index.md", "quickstart.md", "architecture.md", "contracts.md"}


def test_every_page_and_folder_of_this_repository_the_readme_names_is_there() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:okf/wiki|\.memory-schema|bench)/[\w./-]*|\.pre-commit-[\w.-]+)`", readme))
    assert {"okf/wiki/cli.md", "okf/wiki/trust.md", ".memory-schema/v1/", ".pre-commit-config.yaml"} <= named
    assert sorted(name for name in named if not (ROOT / name).exists()) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_page_is_valid_okf(page: Path) -> None:
    assert wiki.check_page(page, WIKI) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    assert wiki.check_links(page, WIKI) == []


def test_index_lists_every_page() -> None:
    listed = {target for target in wiki.links_of(WIKI / "index.md")}
    pages = {p.name for p in PAGES if p.name not in wiki.RESERVED}
    assert pages <= listed
    assert wiki.check_wiki(WIKI) == []


def test_pages_link_to_each_other() -> None:
    for name in ("quickstart.md", "architecture.md", "contracts.md"):
        others = {"quickstart.md", "architecture.md", "contracts.md"} - {name}
        targets = {t.partition("#")[0] for t in wiki.links_of(WIKI / name)}
        assert others <= targets, name


# -- the checks themselves ---------------------------------------------------------------------

def _page(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# No front matter\n", "no front matter"),
        ("---\ntitle: x\n---\n", "no non-empty type"),
        ("---\ntype: ''\n---\n", "no non-empty type"),
        ("---\ntype: [a\n---\n", "not valid YAML"),
        ("---\ntype: A\ntype: B\n---\n", "not valid YAML"),
        ("---\ntype: A\n", "no closing ---"),
        ("---\n- a\n---\n", "not a YAML mapping"),
        ("---\ntype: A\nstatus: final\n---\n", "status"),
        ("---\ntype: A\ntags: a, b\n---\n", "tags"),
        ("---\ntype: A\ndescription: |\n  one\n  two\n---\n", "not one line"),
        ("---\ntype: A\ngenerated: { by: alice }\n---\n", "generated.by"),
        ("---\ntype: A\ngenerated: { by: human:alice, at: 2026-06-30T14:00:00 }\n---\n", "generated.at"),
        ("---\ntype: A\nverified: { by: human:alice }\n---\n", "verified[0].at"),
        ("---\ntype: A\nstale_after: 2026-06-30\n---\n", "stale_after"),
        ("---\ntype: A\nsources:\n  - id: s\n---\n", "sources[0] has no resource"),
        ("---\ntype: A\nsources:\n  - {id: s, resource: a}\n  - {id: s, resource: b}\n---\n", "used twice"),
        ("---\ntype: A\n---\nA claim.[^s]\n\n[^s]: S\n", "no sources entry"),
        ("---\ntype: A\nsources:\n  - {id: s, resource: a}\n---\nA claim.[^s]\n", "not defined"),
        ("---\ntype: Attested Computation\n---\n", "no runtime"),
    ],
)
def test_check_page_finds_problems(tmp_path: Path, text: str, problem: str) -> None:
    problems = wiki.check_page(_page(tmp_path, "page.md", text))
    assert any(problem in p for p in problems), problems


def test_check_page_accepts_a_full_page(tmp_path: Path) -> None:
    text = (
        "---\ntype: Guide\ntitle: T\ndescription: One line.\ntags: [a, b]\nstatus: stable\n"
        "generated: { by: process:x, at: 2026-06-30T14:00:00Z }\n"
        "verified:\n  - { by: human:alice, at: '2026-07-01T09:00:00+00:00' }\n"
        "stale_after: 2026-12-31T00:00:00Z\n"
        "sources:\n  - { id: s, resource: 'https://example.com/', usage_count: 3 }\n"
        "usage_window: { from: 2026-06-01T00:00:00Z, to: 2026-06-30T00:00:00Z }\n---\n"
        "# T\n\nA claim.[^s] Code `[^x]` and fences are not read:\n\n```\n[^y] [a](missing.md)\n```\n\n"
        "[^s]: S\n"
    )
    page = _page(tmp_path, "page.md", text)
    assert wiki.check_page(page) == []
    assert wiki.check_links(page) == []


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("index.md", "# Pages\n\nSome prose.\n", "not a heading"),
        ("index.md", "* [A](a.md) - a\n", "before the first section"),
        ("index.md", "<!-- Generated by hand -->\n# Pages\n\n* [A](a.md)\n", "not a heading"),
        ("index.md", "# Pages\n\n* [A](a.md)\n" + wiki.GENERATED_MARK + "\n", "not a heading"),
        ("index.md", "# Pages\n", "no entries"),
        ("index.md", "---\ntype: Index\n---\n# Pages\n\n* [A](a.md) - a\n", "only okf_version"),
        ("index.md", "---\nokf_version: 0.2\n---\n# Pages\n\n* [A](a.md) - a\n", "quoted string"),
        ("sub/index.md", "---\nokf_version: \"0.2\"\n---\n# Pages\n\n* [A](a.md) - a\n", "only the bundle root"),
        ("log.md", "# Log\n\n## 2026-7-1\n* x\n", "not YYYY-MM-DD"),
        ("log.md", "# Log\n\n## 2026-07-01\n* x\n\n## 2026-07-02\n* y\n", "newest first"),
    ],
)
def test_check_page_checks_reserved_files(tmp_path: Path, name: str, text: str, problem: str) -> None:
    problems = wiki.check_page(_page(tmp_path, name, text), tmp_path)
    assert any(problem in p for p in problems), problems


def test_an_index_entry_without_a_description_and_an_empty_index_pass(tmp_path: Path) -> None:
    """OKF 8: entries SHOULD carry the page's description, so one without is no error; and an
    empty folder's generated inventory is empty."""
    for text in ("# Pages\n\n* [A](a.md)\n* [B](b.md) - b\n", wiki.GENERATED_MARK + "\n", ""):
        assert wiki.check_page(_page(tmp_path, "index.md", text), tmp_path) == [], text


def test_check_links_finds_broken_links_and_anchors(tmp_path: Path) -> None:
    _page(tmp_path, "b.md", "---\ntype: A\n---\n# Real heading\n")
    page = _page(
        tmp_path, "a.md",
        "---\ntype: A\nsources:\n  - { resource: gone/ }\n---\n"
        "[ok](b.md#real-heading) [root](/b.md) [web](https://example.com/x.md)\n"
        "[gone](missing.md) [bad anchor](b.md#nope) [self](#nothing)\n\n[ref]: also-missing.md\n",
    )
    problems = wiki.check_links(page, tmp_path)
    assert problems == [
        "link missing.md does not resolve",
        "link b.md#nope: no heading with anchor #nope",
        "link #nothing: no heading with anchor #nothing",
        "link also-missing.md does not resolve",
        "source gone/ does not resolve",
    ]


def test_an_escaped_bracket_is_text_to_the_link_checks(tmp_path: Path) -> None:
    """CommonMark reads ``\\]`` and ``\\[`` as text: a link whose text holds one (as an index entry
    or an overlay page writes a title with brackets, ``escape_entry_text``) is a link, and
    ``\\[x](y.md)`` is none. The checks read the first as no link and the second as one."""
    page = _page(tmp_path, "a.md", "---\ntype: A\n---\n# A\n\nSee [Retries \\] notes](gone.md), [b \\[beta](b.md).\n\n"
                                  "Written out: \\[not a link](nowhere.md), \\\\[but this one](also-gone.md).\n")
    _page(tmp_path, "b.md", "---\ntype: A\n---\n# B\n")
    assert wiki.links_of(page) == ["gone.md", "b.md", "also-gone.md"]
    assert wiki.check_links(page, tmp_path) == ["link gone.md does not resolve", "link also-gone.md does not resolve"]


# Each a link CommonMark reads, to a page that is not there: the link checks must read it too
# (a page could otherwise link a deleted page, or out of the repository, unseen).
LINK_FORMS = {
    "text over two lines": "See the [storage\npage](gone.md) for more.",
    "title in single quotes": "See [x](gone.md 'the storage page').",
    "title in parentheses": "See [x](gone.md (the storage page)).",
    "title on the next line": 'See [x](gone.md\n"the storage page").',
    "destination on the next line": "See [x](\ngone.md\n).",
    "destination in angle brackets": "See [x](<gone.md>).",
    "brackets nested twice": "See [a [b [c] d] e](gone.md).",
    "an image inside a link": "[![badge](b.md)](gone.md)",
    "a definition's destination on the next line": "See [x][r].\n\n[r]:\n  gone.md",
    "an html link": 'See <a href="gone.md">the page</a>.',
    "an html image, its attribute in capitals and unquoted": "<IMG alt='x' SRC=gone.md>",
    "an html tag over two lines": "<a title='x'\n   href='gone.md'>x</a>",
    "a picture's source set": '<picture><source srcset="b.md 1x, gone.md 2x"></picture>',
    # an HTML tokenizer reads each of these as a tag whose href or src is gone.md
    "an unquoted value holding <": '<a x=<y href="gone.md">x</a>',
    "an unquoted value holding < then text": "<a x=a<b href=gone.md>x</a>",
    "a quoted value holding <": "<a title='<b' href=gone.md>x</a>",
    "a slash before an attribute": "<img/src=gone.md>",
    "no space after a quoted value": '<a x="y"href=gone.md>x</a>',
    "an unquoted value holding a backtick": "<a x=`y href=gone.md>x</a>",
    "an unquoted value holding =": "<a x=y=z href=gone.md>x</a>",
    "an attribute name holding a quote": '<a "x" href=gone.md>x</a>',
    "an attribute name starting with =": "<a =x href=gone.md>x</a>",
    "a tag name holding <": "<a<b href=gone.md>x</a>",
    "a tag inside an unclosed quoted value": "<a x='y <img src=gone.md>",
    "spaces around = over a line break": "<a href =\n  gone.md>x</a>",
    "a video's poster": '<video poster="gone.md"></video>',
    "an object's data": "<object data=gone.md></object>",
    "an image's long description": '<img alt="x" longdesc="gone.md">',
    "an svg link": '<svg><image xlink:href="gone.md"/></svg>',
    # text that only looks like code to a reader that does not follow CommonMark's rules
    "after a backtick fence whose info holds a backtick": "```x`y\n[x](gone.md)\n```",
    "after a fence closed by no closing fence": "```\ncode\n``` x\n```\n[x](gone.md)\n```",
    "after an escaped backtick": "See \\`[x](gone.md)` now.",
    "after a backtick inside an html tag": '<a title="`">[x](gone.md)`',
    "after a fence inside an html block": "<div>\n```\n</div>\n\n[x](gone.md)\n\n```",
    "after a fence closed on a line ending in CR LF": "```\r\ncode\r\n```\r\n[x](gone.md)\r",
    "in an html block, between backticks": '<div>\n`<img src="gone.md">`\n</div>',
    # a definition holds for the whole page, wherever its block sits
    "a definition in a block quote": "See [x][r].\n\n> [r]: gone.md",
    "a definition in a list item": "See [x][r].\n\n1. [r]: gone.md",
    "a definition in a block quote, its destination on the next line": "See [x][r].\n\n> > [r]:\n> > gone.md",
}
NO_LINK_FORMS = {
    "an escaped opening bracket": "Written out: \\[not a link](gone.md).",
    "a code span": "Written out: `[not a link](gone.md)`.",
    "a blank line inside": "See [not\n\na link](gone.md).",
    "a space before the parenthesis": "See [not a link] (gone.md).",
    "an html link in a code span": 'Written out: `<a href="gone.md">`.',
    "an attribute that only ends like one": '<a data-href="gone.md" data-src="gone.md">x</a>',
    "an attribute's quoted value": '<a title="x href=gone.md src=gone.md">x</a>',
    "an attribute with no value": "<a href>x</a> <img src=>",
    "a tilde fence whose info holds a backtick": "~~~x`y\n[x](gone.md)\n~~~",
    "a fence after an html comment": "<!-- a\nb -->\n```\n[x](gone.md)\n```",
    "a code span holding a backslash": "`[x](gone.md)\\`",
}


@pytest.mark.parametrize("form", LINK_FORMS.values(), ids=list(LINK_FORMS))
def test_every_form_of_commonmark_link_is_read(tmp_path: Path, form: str) -> None:
    page = _page(tmp_path, "a.md", f"---\ntype: A\n---\n# A\n\n{form}\n")
    _page(tmp_path, "b.md", "---\ntype: A\n---\n# B\n")
    assert wiki.links_of(page)[-1] == "gone.md"
    assert wiki.check_links(page, tmp_path) == ["link gone.md does not resolve"]


@pytest.mark.parametrize("form", NO_LINK_FORMS.values(), ids=list(NO_LINK_FORMS))
def test_text_commonmark_reads_as_no_link_is_none(tmp_path: Path, form: str) -> None:
    page = _page(tmp_path, "a.md", f"---\ntype: A\n---\n# A\n\n{form}\n")
    assert wiki.links_of(page) == [] and wiki.check_links(page, tmp_path) == []


# Each a link to b.md written otherwise, which CommonMark and a browser read as b.md
ENCODED_FORMS = {
    "an entity": "[x](b&#46;md)",
    "a named entity": "[x](b&period;md)",
    "a backslash escape": "[x](b\\.md)",
    "percent-encoding": "[x](%62.md)",
    "percent-encoding in a definition": "[x][r]\n\n[r]: %62.md",
    "percent-encoding in an html link": '<a href="%62.md">x</a>',
    "entities in an html link": '<a href="b&#46;md">x</a>',
    "an entity before its fragment": "[x](b&#46;md&#35;b)",
}


@pytest.mark.parametrize("form", ENCODED_FORMS.values(), ids=list(ENCODED_FORMS))
def test_a_link_is_judged_as_a_renderer_decodes_it(tmp_path: Path, form: str) -> None:
    page = _page(tmp_path, "a.md", f"---\ntype: A\n---\n# A\n\n{form}\n")
    _page(tmp_path, "b.md", "---\ntype: A\n---\n# B\n")
    assert wiki.links_of(page)[-1].partition("#")[0] == "b.md"
    assert wiki.check_links(page, tmp_path) == []


@pytest.mark.parametrize("written", ["..%2F..%2F..%2Fetc%2Fpasswd", "&#46;&#46;/&#46;&#46;/&#46;&#46;/etc/passwd",
                                     "%2e%2e/%2e%2e/%2e%2e/etc/passwd"])
def test_a_link_encoded_out_of_the_repository_is_named_as_written(tmp_path: Path, written: str) -> None:
    page = _page(tmp_path, "wiki/a.md", f"---\ntype: A\n---\n# A\n\nSee [b](b.md) and [key]({written}).\n")
    _page(tmp_path, "wiki/b.md", "---\ntype: A\n---\n# B\n")
    assert wiki.link_problems(wiki.read_page(page), tmp_path / "wiki", tmp_path) == [
        f"link {written} leaves the repository (read as ../../../etc/passwd)"]


@pytest.mark.parametrize("written", ["file:///etc/passwd", "FILE://localhost/home/me/.ssh/id_rsa",
                                     "C:/Users/me/.aws/credentials", "c:\\\\Windows\\\\win.ini",
                                     "<a href=' file:///etc/shadow'>x</a>", "<File:///etc/passwd>"])
def test_a_link_to_a_file_of_the_readers_machine_leaves_the_repository(tmp_path: Path, written: str) -> None:
    """A ``file:`` URL or a Windows drive's path is no address the checks may leave unfollowed
    as a web page's: it names a file of whichever machine reads the page, outside the repository."""
    form = written if written.startswith("<") else f"[key]({written})"  # an html link, an autolink
    page = _page(tmp_path, "wiki/a.md", f"---\ntype: A\n---\n# A\n\nSee {form} and [the web](https://example.com/).\n")
    [problem] = wiki.link_problems(wiki.read_page(page), tmp_path / "wiki", tmp_path)
    assert " leaves the repository: it names a file of the machine reading the page" in problem, problem
    assert wiki.check_links(page, tmp_path / "wiki") == []  # outside a repository: the web's and the machine's alike


@pytest.mark.parametrize("resource", ['"../../../etc/passwd "', '" ../../../etc/passwd"', '"../../../home/me/my keys.txt"'])
def test_a_source_written_as_a_path_with_spaces_is_judged_as_one(tmp_path: Path, resource: str) -> None:
    """A source's resource that begins as a path does (``../``) leads where it says, whatever
    spaces surround or fill it: no scope descriptor, passed unread."""
    page = _page(tmp_path, "wiki/a.md", f"---\ntype: A\nsources:\n  - resource: {resource}\n---\n# A\n")
    [problem] = wiki.link_problems(wiki.read_page(page), tmp_path / "wiki", tmp_path)
    assert problem.startswith("source ../../../") and problem.endswith(" leaves the repository"), problem


def test_the_code_an_attested_computation_runs_stays_in_the_repository(tmp_path: Path) -> None:
    """An Attested Computation's ``computation``, ``executor.resource`` and ``attester.resource``
    name what a runner follows and runs (OKF 6.2, 10): none may lead out of the repository;
    one the repository does not hold is no problem (the specification's example names such)."""
    meta = ("type: Attested Computation\nruntime: sql\ncomputation: ../../../x/run.sql\n"
            "executor:\n  resource: /../../../home/me/run.sh\nattester:\n  resource: references/attesters/gone.py\n")
    page = _page(tmp_path, "repo/wiki/c/a.md", f"---\n{meta}---\n# A\n")
    assert wiki.link_problems(wiki.read_page(page), tmp_path / "repo/wiki", tmp_path / "repo") == [
        "computation ../../../x/run.sql leaves the repository",
        "executor.resource /../../../home/me/run.sh leaves the repository"]


def test_a_percent_sign_encoding_a_fragment_mark_or_a_line_break_stays_written() -> None:
    assert wiki.body_links("[x](b.md%23c) [y](b%0A.md) [z](b%FF.md)") == ["b.md%23c", "b%0A.md", "b%FF.md"]


@pytest.mark.parametrize(("written", "resolves"), [
    ("a%23b.md", True),  # a browser asks for a%23b.md: the file a#b.md, no fragment
    ("c%23d.md", False),  # not the file named c%23d.md, which a reader never opens so
    ("c%2523d.md", True),  # an encoded % is that file's %
    ("b.md%23top", False),  # the file b.md#top, not b.md's heading
    ("a&#35;b.md", False),  # an entity's # is a fragment's: the file a
])
def test_an_encoded_fragment_mark_is_a_mark_of_the_file_name(tmp_path: Path, written: str, resolves: bool) -> None:
    for name in ("a#b.md", "c%23d.md", "b.md"):
        _page(tmp_path, name, "---\ntype: A\n---\n# Top\n")
    page = _page(tmp_path, "page.md", f"---\ntype: A\n---\n# A\n\nSee [x]({written}).\n")
    assert (wiki.check_links(page, tmp_path) == []) is resolves


def test_an_encoded_link_about_the_overlay_is_found_on_its_own_line() -> None:
    """A link into the local overlay, or an overlay page's one link, written with entities or
    percent-encoding, is named on the line that writes it, as written, and what it is read as."""
    from gitstore.promote.pages import page_findings

    head = "---\ntype: A\n---\n# A\n\nNothing about tooling here.\n\n"
    project = wiki.page_of("okf/wiki/a.md", head + "See\n[it](tool&#105;ng/x.md).\n")
    assert [str(f) for f in page_findings(project, "okf/wiki/a.md", "okf/wiki", lambda page: [])] == [
        "okf/wiki/a.md:9: links into the local tooling overlay (tool&#105;ng/x.md), which no other clone has; "
        "never list or link it (read as tooling/x.md)"]
    overlay = wiki.page_of("okf/wiki/tooling/a.md", head + "See\n[it](..%2Ftool%69ng/x.md).\n")
    assert [str(f) for f in page_findings(overlay, "okf/wiki/tooling/a.md", "okf/wiki", lambda page: [])] == [
        "okf/wiki/tooling/a.md:9: the overlay's one link must lead out of the overlay, to project knowledge"]


def test_check_wiki_needs_an_index_listing_every_page(tmp_path: Path) -> None:
    _page(tmp_path, "a.md", "---\ntype: A\ndescription: A page.\n---\n# A\n")
    assert wiki.check_wiki(tmp_path) == ["index.md: missing"]
    _page(tmp_path, "index.md", wiki.render_index_page(tmp_path))
    assert wiki.check_wiki(tmp_path) == []
    _page(tmp_path, "b.md", "---\ntype: A\n---\n# B\n")
    _page(tmp_path, "tooling/private.md", "no front matter: a local overlay is not checked\n")
    assert wiki.check_wiki(tmp_path) == ["index.md: does not list b.md"]


@pytest.mark.parametrize("bundle", ["acme_retail", "ga4"])
def test_checks_accept_the_okf_example_bundles(bundle: str) -> None:
    root = shared("okf", "bundles", bundle)
    for page in sorted(root.rglob("*.md")):
        assert wiki.check_page(page, root) == [], page
    assert wiki.check_wiki(root) == []


def _worked_example(root: Path) -> list[str]:
    """The OKF specification's worked example (Appendix A, v0.2 form) written as a bundle at
    ``root``: each concept at the path the text names before it, then an index in each folder.
    Its pages, from the bundle's root."""
    spec = shared("okf", "SPEC.md").read_text(encoding="utf-8")
    example = spec[spec.index("### v0.2 form"):]
    pages = []
    for match in re.finditer(r"^`([\w/.-]+\.md)`, .*?^```markdown\n(.*?)^```$", example, re.M | re.S):
        path = root / match.group(1)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(match.group(2), encoding="utf-8")
        pages.append(match.group(1))
    _written_bottom_up(root)
    return pages


def test_checks_accept_the_specifications_worked_example(tmp_path: Path) -> None:
    """A source's ``resource`` names a path a reader can follow or a scope descriptor it cannot
    (OKF 5.1, 6.2): the worked example's ``dashboards/exec-revenue`` (an executive dashboard)
    was read as a path of the bundle that does not resolve. A source written as a path (a
    leading ``/``, ``./`` or ``../``, a trailing ``/``, a file name's extension) must still."""
    pages = _worked_example(tmp_path)
    assert pages == ["metrics/income-statement.md", "computations/revenue.md", "computations/profit.md"]
    assert "resource: dashboards/exec-revenue" in (tmp_path / "computations" / "revenue.md").read_text()
    assert wiki.check_wiki(tmp_path) == []
    profit = tmp_path / "computations" / "profit.md"
    text = profit.read_text()
    for written in ("dashboards/exec-revenue.md", "/dashboards/exec-revenue", "../dashboards/", "./exec-revenue"):
        profit.write_text(text.replace("resource: https://wiki.acme/finance/cost-allocation", f"resource: {written}"))
        assert wiki.check_links(profit, tmp_path) == [f"source {written} does not resolve"], written


def _written_bottom_up(root: Path) -> dict[Path, str]:
    """Every folder's generated index, written the deepest folder first: folder -> its text."""
    folders = sorted({p for p in root.rglob("*") if p.is_dir()} | {root}, key=lambda f: -len(f.parts))
    written = {}
    for folder in folders:
        written[folder] = wiki.render_index_page(root, folder)
        (folder / "index.md").write_text(written[folder], encoding="utf-8")
    return written


@pytest.mark.parametrize("bundle", ["acme_retail", "ga4"])
def test_what_the_index_generator_writes_passes_the_index_rules(tmp_path: Path, bundle: str) -> None:
    """It wrote a ``# Pages`` heading with nothing under it, which the checker refuses, and left
    out folders holding no pages (an attester's code), which a hand-written index lists."""
    root = tmp_path / bundle
    import shutil

    shutil.copytree(shared("okf", "bundles", bundle), root)
    for folder, text in _written_bottom_up(root).items():
        assert wiki.check_text("index.md", text, at_root=folder == root) == [], text
        assert "# Pages\n\n\n" not in text + "\n" and not text.rstrip().endswith("# Pages"), text
    assert wiki.check_wiki(root) == []
    if bundle == "acme_retail":
        top = (root / "index.md").read_text()
        assert "* [attesters](attesters/index.md) - Deterministic verification code for computation receipts." in top
        assert "* [sql_equality.py](sql_equality.py) - Canonicalizes SQL" in (root / "attesters" / "index.md").read_text()


def test_a_folder_named_tooling_below_the_root_is_the_bundles_own(tmp_path: Path) -> None:
    """Only ``tooling/`` at the wiki's root is the local overlay (``okf/wiki/tooling/``, which git
    ignores). A folder of that name deeper is the bundle's own, committed with it: the generated
    index left it out (OKF 8: an index enumerates its folder's contents, and agents and promotion
    walk the wiki through it) and ``check_wiki`` never read its pages."""
    import shutil

    root = tmp_path / "ga4"
    shutil.copytree(shared("okf", "bundles", "ga4"), root)
    (root / "references" / "metrics").rename(root / "references" / "tooling")
    for page in root.rglob("*.md"):  # the pages linking the folder follow it
        page.write_text(page.read_text().replace("references/metrics/", "references/tooling/")
                        .replace("(metrics/", "(tooling/"))
    assert wiki.check_wiki(root) == []
    assert "* [tooling](tooling/index.md)" in wiki.render_index_page(root, root / "references")
    assert root / "references" / "tooling" in wiki.index_folders(root)
    (root / "references" / "tooling" / "untyped.md").write_text("# No front matter\n")
    assert wiki.check_wiki(root) == [
        "references/tooling/untyped.md: no front matter: a page starts with a --- line, YAML, and a closing --- line",
        "references/tooling/index.md: does not list untyped.md"]
    _page(root, "tooling/mine.md", "no front matter: the local overlay is not checked\n")
    assert "tooling" not in wiki.render_index_page(root).split(wiki.GENERATED_MARK)[1]
    assert root / "tooling" not in wiki.index_folders(root)


def test_the_index_generator_on_folders_of_every_shape(tmp_path: Path) -> None:
    _page(tmp_path, "INSTRUCTIONS.md", "Keep every definition.\n")  # no front matter, no description
    _page(tmp_path, "a.md", "---\ntype: A\n---\n# A\n")
    _page(tmp_path, "only-code/check.py", "print(1)\n")
    _page(tmp_path, "only-folders/deeper/b.md", "---\ntype: B\ndescription: A page.\n---\n# B\n")
    (tmp_path / "empty").mkdir()
    written = _written_bottom_up(tmp_path)
    for folder, text in written.items():
        assert wiki.check_text("index.md", text, at_root=folder == tmp_path) == [], text
    assert written[tmp_path].split(wiki.GENERATED_MARK + "\n", 1)[1] == (
        "\n# Pages\n\n* [INSTRUCTIONS](INSTRUCTIONS.md)\n* [a](a.md)\n\n# Subfolders\n\n"
        "* [only-code](only-code/index.md)\n* [only-folders](only-folders/index.md)\n")
    assert "# Pages" not in written[tmp_path / "only-folders"] and "# Pages" not in written[tmp_path / "only-code"]
    assert written[tmp_path / "empty"] == wiki.GENERATED_MARK + "\n"  # nothing in it: an empty inventory
    top = tmp_path / "index.md"
    top.write_text(top.read_text().replace("(only-code/index.md)", "(only-code/index.md) - What CI runs."))
    assert "* [only-code](only-code/index.md) - What CI runs.\n" in wiki.render_index_page(tmp_path)


@pytest.mark.parametrize("text", [
    "type: A\ncount: 12\nratio: 0.5\nflag: yes\nnothing: ~\nempty:\n",
    "at: 2026-06-30T14:00:00Z\nday: 2026-06-30\nnaive: 2026-06-30T14:00:00\nquoted: '2026-06-30'\n",
    "tags: [a, 'b c', 3]\nnested: {by: human:x, at: 2026-06-30T14:00:00+02:00}\nlist:\n  - {id: s, n: -1}\n",
    "okf_version: 0.2\nokf: \"0.2\"\nhex: 0x1F\noctal: 0o17\nbig: 1_000\ninf: .inf\n",
    "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
    "tagged: !!str 12\nbinary: !!binary aGk=\n",
    "",
])
def test_front_matter_is_read_as_the_safe_loader_reads_it(text: str) -> None:
    import yaml

    assert wiki.load_yaml(text) == yaml.load(text, Loader=wiki._Loader)


@pytest.mark.parametrize("text", ["a: 1\na: 2\n", "outer: {b: 1, b: 2}\n", "l:\n  - {c: 1, c: 1}\n",
                                  "a: &x 1\nb: *x\nb: 2\n", "? [1, 2]\n: x\n"])
def test_front_matter_refuses_a_repeated_or_unhashable_key(text: str) -> None:
    import yaml

    with pytest.raises(yaml.YAMLError):
        wiki.load_yaml(text)


def _laughs(levels: int = 10) -> str:
    """Aliases nested ``levels`` deep, nine to a list: a few hundred bytes standing for 9**levels values."""
    names = [chr(ord("a") + n) for n in range(levels)]
    lines = [f"{names[0]}: &{names[0]} [x, x, x, x, x, x, x, x, x]"]
    lines += [f"{name}: &{name} [{', '.join([f'*{before}'] * 9)}]" for before, name in zip(names, names[1:])]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text", [
    pytest.param(_laughs() + "title: *j\ndescription: *j\n", id="aliases-read-out-to-billions"),
    pytest.param("title: " + "[" * 600 + "]" * 600 + "\n", id="nested-600-deep"),
    pytest.param("status: " + "{a: " * 300 + "1" + "}" * 300 + "\n", id="mappings-300-deep"),
    pytest.param("a: &a [*a]\n", id="an-alias-of-itself"),
    pytest.param("s: &s " + "x" * 20_000 + "\n" + _laughs(5).replace("[x, x, x, x, x, x, x, x, x]", "[*s, *s, *s, *s, *s, *s, *s, *s, *s]")
                 .replace("a: &a", "a: &a", 1) + "title: *e\n", id="a-long-string-read-out-by-aliases"),
])
def test_front_matter_too_big_once_read_out_or_too_deep_is_one_finding(tmp_path: Path, text: str) -> None:
    """A page's or a skill's front matter of a few hundred bytes whose aliases read out to
    billions of values made the gates, `wiki index`, promote and doctor build them all (memory
    ran out after a minute); one nested a few hundred levels deep ended Python's recursion
    with a traceback. Each is a finding of its own, at once."""
    import yaml

    from gitstore.promote.skills import check_skill

    with pytest.raises(yaml.YAMLError):
        wiki.load_yaml(text)
    page = wiki.check_page(_page(tmp_path, "page.md", f"---\ntype: Guide\n{text}---\n\n# Page\n"))
    assert len(page) == 1 and "not valid YAML" in page[0], page
    skill = check_skill("s", f"---\nname: s\ndescription: d\n{text}---\n\nDo it.\n")
    assert skill and all(isinstance(line, int) for line, _ in skill), skill


# -- the pages that map the code ------------------------------------------------------------------

def test_cli_page_matches_every_commands_help() -> None:
    from tools.cli_reference import render_cli_page

    page = (WIKI / "cli.md").read_text(encoding="utf-8")
    assert page == render_cli_page(), STALE.format("cli.md")


def _module_rows(page: str) -> list[tuple[str, list[str]]]:
    """(module path, names) for every table row of the page naming a module."""
    rows = []
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`") and cells[1].endswith(".py`"):
            rows.append((cells[1].strip("`"), [n.strip().strip("`") for n in cells[2].split(",") if n.strip()]))
    return rows


def test_where_things_live_names_modules_that_hold_what_it_says() -> None:
    import importlib

    rows = _module_rows((WIKI / "where.md").read_text(encoding="utf-8"))
    assert len(rows) > 40
    for path, names in rows:
        assert (ROOT / path).is_file(), f"where.md names {path}, which does not exist"
        dotted = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        module = importlib.import_module(dotted)
        for name in names:
            assert hasattr(module, name), f"where.md says {path} holds {name}; it does not"


def test_where_things_live_covers_every_stage() -> None:
    page = (WIKI / "where.md").read_text(encoding="utf-8")
    named = {path for path, _ in _module_rows(page)}
    for package in sorted(p for p in (ROOT / "gitstore").iterdir() if (p / "__init__.py").is_file()):
        assert any(path.startswith(f"gitstore/{package.name}/") for path in named), \
            f"where.md names no module of gitstore/{package.name}/"


def _layout_block() -> set[str]:
    """The folders and modules the architecture page lists inside gitstore/ (the names before
    each line's description)."""
    import re

    page = (WIKI / "architecture.md").read_text(encoding="utf-8")
    block = page.split("Inside `gitstore/`", 1)[1].split("```", 2)[1]
    names = set()
    for line in block.strip("\n").splitlines():
        found = re.match(r"^(\S.*?)(\s{2,}|$)", line)
        if found:
            names.update(n.strip() for n in found.group(1).split(",") if n.strip())
    return names


def test_the_architecture_layout_is_the_package_as_it_is() -> None:
    listed = _layout_block()
    package = ROOT / "gitstore"
    present = {p.name + "/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    present |= {p.name for p in package.glob("*.py") if not p.name.startswith("_")}
    assert listed == present, (sorted(listed - present), sorted(present - listed))


def test_no_page_of_this_wiki_nor_the_readme_is_quarantined_by_the_scan_gate() -> None:
    """The wiki describes what the scanner quarantines, and its pages reach agents like any
    other: describing a rule must not trip it (``gitstore scan``, the gate the project's own
    pre-commit runs on these files)."""
    from .cli import gitstore

    pages = [str(p.relative_to(ROOT)) for p in sorted(WIKI.rglob("*.md"))] + ["README.md"]
    done = gitstore("scan", *pages, cwd=ROOT)
    assert done.returncode == 0, [line for line in done.stdout.splitlines() if "quarantine" in line]
