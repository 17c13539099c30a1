"""A local stand-in for GitHub's REST API, serving recorded list responses on 127.0.0.1.

The items are GitHub's own objects, taken from the webhook payloads in
``../shared/testdata/reviews/octokit-webhooks`` (a REST list response carries the same comment,
review and pull-request objects). Lists are paginated as GitHub does it: ``page`` in the query,
a ``Link`` header with ``next``/``last`` (and ``first``/``prev`` after page 1), at most
``page_size`` items a page. Pages can be made to fail, and every request is recorded.
"""

from __future__ import annotations

import copy
import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = "Codertocat/Hello-World"


def recorded(hooks: Path) -> dict[str, list[dict[str, Any]]]:
    """The REST lists of pull request #2 (and the pulls listing), from the webhook payloads."""
    def load(name: str) -> dict[str, Any]:
        return json.loads((hooks / name).read_text())

    created = load("pull_request_review_comment/created.payload.json")
    edited = load("pull_request_review_comment/edited.payload.json")
    reply = copy.deepcopy(created["comment"])
    reply.update(id=284312999, in_reply_to_id=created["comment"]["id"], body="Agreed, more emoji.",
                 created_at="2019-05-16T09:00:00Z", updated_at="2019-05-16T09:00:00Z")
    reply["user"] = {**reply["user"], "id": 4242, "login": "someone"}
    review = load("pull_request_review/submitted.payload.json")["review"]
    issue_comment = load("issue_comment/created.payload.json")["comment"]
    pull = created["pull_request"]
    older = copy.deepcopy(pull)
    older.update(number=1, updated_at="2019-01-01T00:00:00Z")
    return {
        "pulls": [pull, older],
        "pulls/2": [pull],
        "pulls/2/comments": [edited["comment"], reply],
        "pulls/2/reviews": [review],
        "issues/2/comments": [issue_comment],
        "pulls/1/comments": [], "pulls/1/reviews": [], "issues/1/comments": [],
    }


@dataclass
class FakeGitHub:
    """What the server serves, how, and what it was asked."""

    lists: dict[str, list[dict[str, Any]]]
    page_size: int = 1
    failing: set[tuple[str, int]] = field(default_factory=set)  # (path, page) answered 502
    status: int | None = None  # every request answered with this status instead
    headers: dict[str, str] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    url: str = ""
    hold: threading.Event | None = None  # when set, every answer waits for it (a slow GitHub)
    arrived: threading.Event = field(default_factory=threading.Event)

    def answer(self, target: str, headers: dict[str, str]) -> tuple[int, dict[str, str], Any]:
        self.requests.append((target, headers))
        self.arrived.set()
        if self.hold is not None:
            self.hold.wait(30)
        parts = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(parts.query))
        path = parts.path.removeprefix(f"/repos/{REPO}/")
        if self.status is not None:
            return self.status, self.headers, {"message": "Bad credentials" if self.status == 401 else "API rate limit exceeded"}
        if path not in self.lists:
            return 404, {}, {"message": "Not Found"}
        page = int(query.get("page", "1"))
        if (path, page) in self.failing:
            return 502, {}, {"message": "Server Error"}
        items = self.lists[path]
        if "/" in path and path.count("/") == 1 and path.startswith("pulls/"):
            return 200, {}, items[0]  # a single pull request
        last = max(1, -(-len(items) // self.page_size))
        body = items[(page - 1) * self.page_size: page * self.page_size]
        return 200, {"Link": self._link(parts.path, query, page, last)} if last > 1 else {}, body

    def _link(self, path: str, query: dict[str, str], page: int, last: int) -> str:
        def at(n: int) -> str:
            return f"{self.url}{path}?" + urllib.parse.urlencode({**query, "page": n})
        rels = []
        if page < last:
            rels += [f'<{at(page + 1)}>; rel="next"', f'<{at(last)}>; rel="last"']
        if page > 1:
            rels += [f'<{at(1)}>; rel="first"', f'<{at(page - 1)}>; rel="prev"']
        return ", ".join(rels)


@contextmanager
def serve(github: FakeGitHub) -> Iterator[FakeGitHub]:
    """Serve ``github`` on 127.0.0.1 (a free port) for the duration of the block."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            status, headers, body = github.answer(self.path, {k.lower(): v for k, v in self.headers.items()})
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    github.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield github
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
