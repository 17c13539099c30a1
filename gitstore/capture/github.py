"""``gitstore import github``: pull requests' review comments through the GitHub REST API.

For each pull request updated since a time (``GET /repos/O/N/pulls?state=all&sort=updated``,
newest first, read until one is older) or each one named, it lists ``pulls/N/comments``
(``pull-comments``), ``pulls/N/reviews`` (``reviews``) and ``issues/N/comments``
(``issue-comments``), 100 a page, and keeps every response with its page number and ``Link``
header: that is exactly a ``gitstore.github-snapshot/1``, which the review importer reads and
judges for completeness. Nothing here decides completeness itself:

- a page that cannot be fetched (after two retries for a server error or a dropped
  connection) is left out, so the snapshot shows the gap and its import is incomplete;
  later pages are still fetched (their address is the ``last`` link's with another page);
- when GitHub says the rate limit is spent, nothing more is asked: what is missing is named;
- a list's pages are counted as they are asked for, not by the numbers its links name: a next
  link back to a page read already ends the list, named, instead of asking without end;
- a page of the pull-request listing that cannot be read makes the listing incomplete, said
  in the report, since pull requests on it are not known at all.

Each snapshot is saved (``okf/.memory/inbox/github/`` by default; another folder ``out`` names
is remembered, so ``redact`` scrubs the snapshots there too) and imported; one the store already
holds (same digest, as served or as saved, whenever it was fetched: ``takenAt`` is not part of
it) is not imported again. The comments whose text
``redact`` removed are saved and imported without it (``scrub``), so a later import does not
bring it back. The HTTP client is a ``Http`` (replaceable); the default one follows no
redirect itself and gives up on a request after ``TIMEOUT`` seconds. The token is sent only over
HTTPS (or to this machine): a redirect is followed here, counted as a request, and only to the
same scheme, host and port (a renamed repository), at most ``MAX_REDIRECTS`` in a row; one to
another host or scheme (https to http would carry the token in clear text) is not followed and
is named as the reason the page is missing.
"""

from __future__ import annotations

import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from gitstore import _jsontext
from gitstore.capture.saved import FORMAT, exclusive, file_name, inbox, remember, save, scrub
from gitstore.errors import InvalidInput, Refused, UsageError, in_one_line
from gitstore.records.times import now

DEFAULT_API = "https://api.github.com"
PER_PAGE = 100
TIMEOUT = 30
RETRIES = 2
MAX_PAGES = 1000  # per collection: 100,000 items
MAX_BODY = 64 << 20
MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
COLLECTIONS = {"pull-comments": "pulls/{n}/comments", "reviews": "pulls/{n}/reviews",
               "issue-comments": "issues/{n}/comments"}
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}/[A-Za-z0-9._-]{1,100}\Z")
_REL = re.compile(r'<([^>]*)>;\s*rel="(next|last|prev|first)"')
_PAGE = re.compile(r"([?&]page=)(\d+)")


class Response(NamedTuple):
    """One HTTP answer: status, headers (names in lower case) and body."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class Http(Protocol):
    """What fetching needs from an HTTP client."""

    def get(self, url: str, headers: Mapping[str, str]) -> Response: ...


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follow no redirect: the answer comes back as it is, and ``_Client`` decides (urllib's own
    rule would carry the Authorization header from https to http on the same host)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        return None


class UrllibHttp:
    """The default client: urllib, bounded in time and size, following no redirect."""

    def __init__(self, timeout: float = TIMEOUT) -> None:
        self.timeout = timeout
        self.opener = urllib.request.build_opener(_NoRedirect())

    def get(self, url: str, headers: Mapping[str, str]) -> Response:
        request = urllib.request.Request(url, headers=dict(headers))
        try:
            with self.opener.open(request, timeout=self.timeout) as answer:
                return Response(answer.status, _lower(answer.headers), answer.read(MAX_BODY))
        except urllib.error.HTTPError as exc:
            return Response(exc.code, _lower(exc.headers), exc.read(MAX_BODY))


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()} if headers is not None else {}


@dataclass
class Fetched:
    """One pull request's snapshot and what could not be fetched for it."""

    pull: int
    snapshot: dict[str, Any]
    problems: list[str] = field(default_factory=list)


@dataclass
class Fetch:
    """Everything one run fetched."""

    snapshots: list[Fetched] = field(default_factory=list)
    listing: list[str] = field(default_factory=list)  # why the pull-request listing is incomplete
    requests: int = 0


def pause(seconds: float) -> None:
    """The wait between two tries of a request (``time.sleep``; a test that runs the command
    itself sets this to no wait)."""
    time.sleep(seconds)


class _Client:
    """Requests against one repository's API, counting them and stopping at the rate limit."""

    def __init__(self, http: Http, api: str, repo: str, token: str | None,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.http, self.api, self.repo, self.sleep = http, api.rstrip("/"), repo, sleep or pause
        self.headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                        "User-Agent": "gitstore"}
        if token:
            _check_secure(self.api)
            self.headers["Authorization"] = f"Bearer {token}"
        self.host = urllib.parse.urlsplit(self.api).netloc
        self.requests = 0
        self.limited: str | None = None

    def url(self, path: str, **query: Any) -> str:
        return f"{self.api}/repos/{self.repo}/{path}?" + urllib.parse.urlencode({**query, "per_page": PER_PAGE})

    def get(self, url: str) -> tuple[Response | None, str | None]:
        """The answer for ``url``, or None and why not."""
        if self.limited:
            return None, self.limited
        if urllib.parse.urlsplit(url).netloc != self.host:
            return None, f"a link leads to another host ({urllib.parse.urlsplit(url).netloc})"
        why = ""
        for attempt in range(RETRIES + 1):
            if attempt:
                self.sleep(float(attempt))
            try:
                answer = self._followed(url)
            except (OSError, ValueError) as exc:
                why = f"no answer ({exc})"
                continue
            if isinstance(answer, str):
                return None, answer
            if answer.status == 401:
                raise Refused(f"GitHub refused the token (401): {_message(answer)}")
            if _rate_limited(answer):
                self.limited = f"rate limit reached ({_message(answer)})"
                return None, self.limited
            if answer.status >= 500:
                why = f"HTTP {answer.status}"
                continue
            if answer.status != 200:
                return answer, f"HTTP {answer.status}: {_message(answer)}"
            return answer, None
        return None, why


    def _followed(self, url: str) -> Response | str:
        """The answer for ``url`` after the redirects allowed, each counted as a request; or
        why a redirect was not followed."""
        for _ in range(MAX_REDIRECTS + 1):
            self.requests += 1
            answer = self.http.get(url, self.headers)
            where = answer.headers.get("location") if answer.status in _REDIRECTS else None
            if not where:
                return answer
            target = urllib.parse.urljoin(url, where)
            if why := _elsewhere(url, target):
                return f"HTTP {answer.status}: a redirect {why}; not followed"
            url = target
        return f"more than {MAX_REDIRECTS} redirects in a row; not followed"


def _elsewhere(url: str, target: str) -> str | None:
    """How a redirect from ``url`` to ``target`` leaves what was asked: another scheme (https to
    http would send the token in clear text) or another host or port; None when it stays."""
    was, goes = urllib.parse.urlsplit(url), urllib.parse.urlsplit(target)
    if goes.scheme.lower() != was.scheme.lower():
        return f"leads from {was.scheme} to {goes.scheme or 'no scheme'}"
    if goes.netloc.lower() != was.netloc.lower():
        return f"leads to another host ({goes.netloc})"
    return None


def _check_secure(api: str) -> None:
    parts = urllib.parse.urlsplit(api)
    if parts.scheme == "https":
        return
    if parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1"):
        return
    raise UsageError(f"--api-url {api!r}: the token is sent only over https")


def _rate_limited(answer: Response) -> bool:
    if answer.status == 429:
        return True
    return answer.status == 403 and (answer.headers.get("x-ratelimit-remaining") == "0"
                                     or "retry-after" in answer.headers)


def _message(answer: Response) -> str:
    try:
        data = _jsontext.loads(answer.body)
    except ValueError:
        return answer.body[:120].decode("utf-8", "replace")
    return str(data.get("message", ""))[:200] if isinstance(data, dict) else ""


def _json_list(answer: Response) -> list[Any] | None:
    try:
        data = _jsontext.loads(answer.body)
    except ValueError:
        return None
    return data if isinstance(data, list) else None


def _links(header: str) -> dict[str, str]:
    return {rel: url for url, rel in _REL.findall(header or "")}


def _page_url(template: str, page: int) -> str:
    return _PAGE.sub(lambda m: f"{m.group(1)}{page}", template, count=1)


def _page_of(url: str, otherwise: int) -> int:
    """The page a link names (``page=N``), or ``otherwise`` when it names none."""
    numbered = _PAGE.search(url)
    return int(numbered.group(2)) if numbered else otherwise


def _loops(what: str, page: int, read: set[int]) -> str | None:
    """Why a list ends here when its next link leads back to a page read already (pages are
    counted as they are asked for, so a list whose links go round ends instead of asking on)."""
    if page not in read:
        read.add(page)
        return None
    return f"{what}: the next link leads back to page {page}, read already"


def _collection(client: _Client, name: str, first: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Every page of one list (responses as the snapshot keeps them) and what is missing."""
    responses: list[dict[str, Any]] = []
    problems: list[str] = []
    url: str | None = first
    page, last, template = 1, None, first
    read: set[int] = set()
    for _ in range(MAX_PAGES):
        if url is None:
            break
        page = _page_of(url, page)  # the page a link names, not a count
        if loop := _loops(name, page, read):
            problems.append(loop)
            break
        answer, why = client.get(url)
        body = _json_list(answer) if answer is not None and why is None else None
        if body is None:
            problems.append(f"{name} page {page}: {why or 'not a JSON list'}")
            if last is None or client.limited:
                break  # where the rest is cannot be known, or nothing more may be asked
            page += 1
            url = _page_url(template, page) if page <= last else None
            continue
        link = answer.headers.get("link", "") if answer is not None else ""
        responses.append({"collection": name, "page": page, "link": link, "body": body})
        rels = _links(link)
        numbered = _PAGE.search(rels.get("last", ""))
        if numbered:
            last, template = int(numbered.group(2)), rels["last"]
        url = rels.get("next")
        page += 1
    return responses, problems


def snapshot(client: _Client, repo: str, pull: dict[str, Any]) -> Fetched:
    """One pull request's ``gitstore.github-snapshot/1``."""
    number = pull["number"]
    head: dict[str, Any] = pull["head"] if isinstance(pull.get("head"), dict) else {}
    data: dict[str, Any] = {"format": FORMAT, "repository": repo, "pullRequest": number,
                            "head": {"ref": head.get("ref"), "sha": head.get("sha")},
                            "takenAt": now(), "responses": []}  # before its first page: a comment older is listed unless deleted
    fetched = Fetched(number, data)
    for name, path in COLLECTIONS.items():
        responses, problems = _collection(client, name, client.url(path.format(n=number), page=1))
        data["responses"] += responses
        fetched.problems += problems
    return fetched


def pull_requests(client: _Client, since: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """Pull requests updated at or after ``since`` (all for None), newest first."""
    from gitstore.records.times import normalize_time

    found: list[dict[str, Any]] = []
    problems: list[str] = []
    url: str | None = client.url("pulls", state="all", sort="updated", direction="desc", page=1)
    page = 1
    read: set[int] = set()
    for _ in range(MAX_PAGES):
        if url is None:
            break
        page = _page_of(url, page)
        if loop := _loops("pull-request listing", page, read):
            problems.append(f"{loop}; pull requests listed after it were not read")
            break
        answer, why = client.get(url)
        if answer is not None and answer.status == 404:
            raise InvalidInput(f"GitHub has no repository {client.repo} that this token can read ({why})")
        body = _json_list(answer) if answer is not None and why is None else None
        if body is None:
            problems.append(f"pull-request listing page {page}: {why or 'not a JSON list'}; "
                            "pull requests listed there and after it were not read")
            break
        for pull in body:
            number = pull.get("number") if isinstance(pull, dict) else None
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:  # true is no number
                continue
            if since is not None and normalize_time(str(pull.get("updated_at"))) < since:
                return found, problems
            found.append(pull)
        url = _links(answer.headers.get("link", "")).get("next") if answer is not None else None
        page += 1
    return found, problems


def check_asked(repo: str, pulls: list[int] | None, api: str) -> None:
    """Refuse, as a usage error, a repository, pull request number or API URL of the wrong shape."""
    if not _REPO.match(repo):
        raise UsageError(f"--repo {repo!r} is not OWNER/NAME")
    bad = [n for n in pulls or () if n < 1]
    if bad:
        raise UsageError(f"--pr {bad[0]} is not a pull request number (they start at 1)")
    scheme, _, rest = api.partition("://")
    if scheme.lower() not in ("https", "http") or not rest.strip("/"):
        raise UsageError(f"the API URL {api!r} (--api-url or $GITHUB_API_URL) is not an http or https URL")


def fetch(repo: str, *, api: str = DEFAULT_API, token: str | None = None, since: str | None = None,
          pulls: list[int] | None = None, http: Http | None = None,
          sleep: Callable[[float], None] | None = None) -> Fetch:
    """Fetch the snapshots of the pull requests asked for."""
    check_asked(repo, pulls, api)
    client = _Client(http or UrllibHttp(), api, repo, token, sleep)
    result = Fetch()
    if pulls:
        chosen = [_one_pull(client, n) for n in pulls]
    else:
        chosen, result.listing = pull_requests(client, since)
    for pull in chosen:
        result.snapshots.append(snapshot(client, repo, pull))
    result.requests = client.requests
    return result


def _one_pull(client: _Client, number: int) -> dict[str, Any]:
    answer, why = client.get(client.url(f"pulls/{number}"))
    if answer is None or why is not None:
        raise InvalidInput(f"pull request #{number} of {client.repo} cannot be read ({why})")
    try:
        data = _jsontext.loads(answer.body)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise InvalidInput(f"pull request #{number} of {client.repo}: GitHub's answer is not a JSON object")
    return {**data, "number": number}


# -- saving and importing ------------------------------------------------------------------------

@dataclass
class PullResult:
    """What happened to one pull request's snapshot."""

    pull: int
    file: str
    outcome: str  # imported | unchanged | failed
    problems: list[str]
    imported: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"pullRequest": self.pull, "file": self.file, "outcome": self.outcome,
                "problems": self.problems, "import": self.imported}


@dataclass
class GithubReport:
    """One ``gitstore import github`` run."""

    repository: str
    since: str | None
    pulls: list[PullResult] = field(default_factory=list)
    listing: list[str] = field(default_factory=list)
    requests: int = 0

    @property
    def complete(self) -> bool:
        return not self.listing and all(
            p.outcome == "unchanged" or (p.imported or {}).get("complete", False) for p in self.pulls)

    @property
    def unreachable(self) -> bool:
        """Whether no request got an answer at all (nothing listed, nothing fetched)."""
        return not self.pulls and any("no answer" in why for why in self.listing)

    def shortfall(self) -> str | None:
        """Why the run is incomplete, in one line; None when it is complete."""
        if self.complete:
            return None
        if self.unreachable:
            return f"GitHub could not be reached ({self.listing[0]}); nothing was imported"
        short = [p.pull for p in self.pulls if not (p.outcome == "unchanged" or (p.imported or {}).get("complete"))]
        parts = ([f"the pull-request listing is incomplete ({self.listing[0]})"] if self.listing else []) + \
            ([f"pull request(s) {', '.join(f'#{n}' for n in short)} were not imported whole"] if short else [])
        return f"the import of {self.repository} is incomplete: {'; '.join(parts)}; what was imported is kept, run it again"

    def to_json(self) -> dict[str, Any]:
        return {"repository": self.repository, "since": self.since, "complete": self.complete,
                "listingProblems": self.listing, "requests": self.requests,
                "pullRequests": [p.to_json() for p in self.pulls]}


def token_from_environment() -> str | None:
    """``GITHUB_TOKEN``, else ``GH_TOKEN`` (what GitHub Actions and the GitHub CLI use)."""
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None


def api_from_environment() -> str:
    """``GITHUB_API_URL`` (set on GitHub Actions, GitHub Enterprise too), else api.github.com."""
    return os.environ.get("GITHUB_API_URL") or DEFAULT_API


def api_host(api: str) -> str | None:
    """The host of the GitHub whose REST API ``api`` is: github.com for ``https://api.github.com``,
    HOST for GitHub Enterprise Server's ``https://HOST/api/v3``, TENANT.ghe.com for
    ``https://api.TENANT.ghe.com``; None for any other address (a stand-in on this machine, a
    proxy), whose snapshots' own addresses then say which GitHub they come from."""
    try:
        parts = urllib.parse.urlsplit(api.strip())
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return None
    from gitstore.capture.reviews import API_HOST

    path = parts.path.rstrip("/")
    if API_HOST.fullmatch(host):
        return host[4:] if path == "" else None
    return host if host and path == "/api/v3" else None


def import_github(ctx: Any, repo: str, by: str, *, since: str | None = None, pulls: list[int] | None = None,
                  api: str | None = None, token: str | None = None, out: Path | None = None,
                  http: Http | None = None, sleep: Callable[[float], None] | None = None) -> GithubReport:
    """Fetch, save and import the snapshots; one failing import does not stop the others."""
    from gitstore.capture.reviews import check_repository

    api = api or api_from_environment()
    check_asked(repo, pulls, api)  # a value of the wrong shape is a usage error, before any refusal
    check_repository(ctx, repo, "--repo names", api_host(api))
    if out is not None and out.exists() and not out.is_dir():  # found before a request, not after all of them
        raise Refused(f"--out {out} is a file, not a folder: name the folder snapshots are saved in")
    fetched = fetch(repo, api=api, token=token, since=since, pulls=pulls,
                    http=http, sleep=sleep)
    folder = out or inbox(ctx.workspace.state)
    folder.mkdir(parents=True, exist_ok=True)
    report = GithubReport(repo, since, listing=fetched.listing, requests=fetched.requests)
    if not fetched.snapshots:
        return report
    with exclusive(ctx.workspace.state):  # a scrub waits, then finds every file saved here
        remember(ctx.workspace.state, folder)  # before any file is there: a redaction must find them all
        _save_and_import(ctx, repo, by, fetched.snapshots, folder, report)
    return report


def _save_and_import(ctx: Any, repo: str, by: str, snapshots: list[Fetched], folder: Path,
                     report: GithubReport) -> None:
    """Save each snapshot without the text memory removed, and import those not stored yet."""
    from gitstore.capture.inbox import stored_snapshots
    from gitstore.capture.reviews import KnownReviews, check_snapshot, import_loaded, snapshot_digest
    from gitstore.records.canonical import canonicalize

    stored = stored_snapshots(ctx)
    known = KnownReviews.load(ctx)  # read once, then kept up to date by each import
    for item in snapshots:
        as_served = snapshot_digest("github-rest", item.snapshot, canonicalize(item.snapshot))
        scrub(item.snapshot, known.redacted)  # text removed from memory is not saved or imported again
        canonical = canonicalize(item.snapshot)
        path = folder / file_name(repo, item.pull)
        result = PullResult(item.pull, str(path), "unchanged", item.problems)
        report.pulls.append(result)
        try:
            # times GitHub gives are never ahead of this clock: one that is (a server answering
            # for GitHub, or a clock far behind) is refused as a snapshot file saying it would be,
            # before it is saved: every later pass over the folder would refuse it again
            check_snapshot(Path(f"the snapshot of #{item.pull}"), item.snapshot)
        except Exception as exc:  # one pull request failing stops no other
            result.outcome = "failed"
            result.problems.append(f"{in_one_line(exc)}; not saved{_refused_already(path)}")
            continue
        save(path, canonical)
        if not {as_served, snapshot_digest("github-rest", item.snapshot, canonical)} & stored:
            try:
                done = import_loaded(ctx, "github-rest", item.snapshot, canonical, by, known=known)
                result.outcome, result.imported = "imported", done.to_json()
            except Exception as exc:  # one pull request failing stops no other
                result.outcome = "failed"
                result.problems.append(in_one_line(exc))


def _refused_already(path: Path) -> str:
    """What to do about the snapshot an earlier import saved at ``path`` when it is refused too
    (saved before snapshots were checked first): it is left as it is, and named."""
    from gitstore.capture.reviews import load_snapshot

    if not path.is_file():
        return ""
    try:
        load_snapshot(path)
    except InvalidInput:
        return f"; {path}, saved by an earlier import, is refused too: delete it"
    return ""
