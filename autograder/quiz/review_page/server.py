"""`attnkit review OUT`: the review page, served on 127.0.0.1 only, to whoever holds the token.

The URL carries a random token; every request without it (page, data or change) is refused, and so is one
whose Host is not this server (a page elsewhere cannot reach it by a DNS trick). One request at a time, so
two key presses never race on review.yaml. The page is plain HTML, CSS and JavaScript shipped beside this
file; nothing is fetched from anywhere else.
"""
from __future__ import annotations

import hmac
import json
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from ... import paths
from ..kit_scored import read_kit_scored
from .keep import Changed, proposal, write
from .store import Conflict, ReviewStore

HERE = Path(__file__).resolve().parent
MAX_BODY = 64 << 10


def page(token: str, nonce: str) -> bytes:
    html = (HERE / "page.html").read_text(encoding="utf-8")
    return (html.replace("/*STYLE*/", (HERE / "page.css").read_text(encoding="utf-8"))
            .replace("/*SCRIPT*/", (HERE / "page.js").read_text(encoding="utf-8"))
            .replace("__TOKEN__", token).replace("__NONCE__", nonce)).encode("utf-8")


class ReviewServer(ThreadingHTTPServer):
    """Threads, so that a connection a browser opens ahead and leaves idle never blocks the page's requests;
    one lock, so that changes to review.yaml still happen one at a time."""
    daemon_threads = True

    def __init__(self, out_dir: Path, port: int = 0, quizzes: Path = paths.QUIZZES_DIR):
        self.store = ReviewStore(out_dir)
        self.quizzes = quizzes  # the quiz files a decision kept for later terms is written into
        self.lock = threading.Lock()
        self.token = secrets.token_urlsafe(24)
        super().__init__(("127.0.0.1", port), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/?token={self.token}"


class Handler(BaseHTTPRequestHandler):
    server: ReviewServer
    timeout = 60  # an idle connection is closed, not kept forever

    def log_message(self, format, *args) -> None:  # noqa: A002 - the page's requests are not news
        pass

    def _allowed(self) -> bool:
        given = parse_qs(urlsplit(self.path).query).get("token", [""])[0]
        host = self.headers.get("Host", "")
        if hmac.compare_digest(given.encode(), self.server.token.encode()) and \
                host == f"127.0.0.1:{self.server.server_address[1]}":
            return True
        self._send(HTTPStatus.FORBIDDEN, b"This review page needs the address printed by attnkit review.",
                   "text/plain; charset=utf-8")
        return False

    def _send(self, status: HTTPStatus, body: bytes, kind: str, nonce: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy",
                         f"default-src 'none'; script-src 'nonce-{nonce or 'none'}'; "
                         f"style-src 'nonce-{nonce or 'none'}'; connect-src 'self'; frame-ancestors 'none'")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, data, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json")

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._allowed():
            return
        route = urlsplit(self.path).path
        if route == "/":
            nonce = secrets.token_urlsafe(16)  # only the page's own script runs, never markup in an answer
            self._send(HTTPStatus.OK, page(self.server.token, nonce), "text/html; charset=utf-8", nonce)
        elif route == "/api/state":
            try:
                with self.server.lock:
                    now = self.server.store.state()
                self._json(now)
            except Conflict as exc:
                self._json({"error": str(exc)}, HTTPStatus.CONFLICT)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")

    def do_POST(self) -> None:  # noqa: N802
        if not self._allowed():
            return
        declared = self.headers.get("Content-Length") or "0"
        length = int(declared) if declared.isdigit() else 0
        if self.headers.get("Content-Type", "").split(";")[0] != "application/json" or not 0 < length <= MAX_BODY:
            self._json({"error": "send JSON"}, HTTPStatus.BAD_REQUEST)
            return
        try:
            body = json.loads(self.rfile.read(length))
            where = (body["quiz"], body["question"], body["group"], body["first"])
        except (ValueError, KeyError, TypeError) as exc:
            self._json({"error": f"not a request of this page ({exc})"}, HTTPStatus.BAD_REQUEST)
            return
        with self.server.lock:
            status, data = self._change(urlsplit(self.path).path, where, body)
        self._json(data, status)

    def _change(self, route: str, where: tuple, body: dict) -> tuple[HTTPStatus, dict]:
        store = self.server.store
        try:
            if route == "/api/decide":
                store.decide(*where, body.get("score"), body.get("feedback"))
            elif route == "/api/split":
                store.split(*where, body.get("answer"))
            elif route in ("/api/keep", "/api/keep/write"):
                return HTTPStatus.OK, {"keep": self._keep(where, route.endswith("/write"), body.get("digest"))}
            else:
                return HTTPStatus.NOT_FOUND, {"error": "no such action"}
            return HTTPStatus.OK, store.state()
        except Changed as exc:
            return HTTPStatus.CONFLICT, {"error": str(exc), "keep": self._keep(where, False, None)}
        except Conflict as exc:
            try:
                now = store.state()  # the page redraws from what the file says now
            except Conflict:
                now = {}
            return HTTPStatus.CONFLICT, {"error": str(exc), **now}
        except (ValueError, TypeError) as exc:
            return HTTPStatus.BAD_REQUEST, {"error": str(exc)}


    def _keep(self, where: tuple, write_it: bool, digest) -> dict:
        """Keep a decided group for later terms: what it adds to the quiz file (and, when asked with the
        digest of the diff shown, write it)."""
        store = self.server.store
        block, group = store.find(*where)
        kit = read_kit_scored(store.path.parent)  # none: refused (NoRecord), the class is graded again first
        shown, changed, sources = proposal(store.document, self.server.quizzes, where[0], where[1], group,
                                           block.get("points", 0), kit)
        if write_it:
            written = write(changed, sources, str(digest or ""), shown["diff"])
            shown["written"] = [str(p) for p in written]
        return shown


def serve(out_dir: Path, port: int = 0, announce=print, open_browser: bool = True) -> None:
    server = ReviewServer(out_dir, port)
    announce(f"review page: {server.url}\n(decisions are saved to {server.store.path} as you make them; "
             "press Ctrl-C here when done)")
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
