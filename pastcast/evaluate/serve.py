"""The replay environment served over HTTP on loopback, for agents in other processes or
languages: the serving process holds the snapshot and the answers; a client only ever gets
what a ``ReplaySession`` (the same one behind ``eval mcp``) gives on the current simulated day.

Endpoints (JSON; errors are ``{"error": "..."}``):
- ``GET  /v1/state``                     today, window, done, forecasts so far
- ``GET  /v1/questions``                 the open questions (no answers)
- ``GET  /v1/search?query=...&k=10``     date-gated article search (``k`` an integer, clamped
  to 1..``MAX_K``; optional ``from_date``, ``to_date``, YYYY-MM-DD, a ``to_date`` after today
  is today)
- ``GET  /v1/search_posts?query=...&k=`` date-gated social posts (same parameters)
- ``GET  /v1/market?question_id=...``    the market consensus as of today, or null
- ``GET  /v1/resolved``                  questions already resolved, with their answers and
  the agent's own scores
- ``POST /v1/forecast``                  ``{"question_id", "forecast": {outcome: p}}``
- ``POST /v1/advance``                   ``{"days": N}``, N an integer in 1..``MAX_ADVANCE_DAYS``
  (``{}`` or no body: one day); it returns what resolved meanwhile and how many articles
  were published; past the window's end the run is scored and ``{"done": true,
  "summary": ...}`` returned (ledger.jsonl, scores.parquet, run.json in the run folder, as
  ``eval run`` writes them).
- ``GET  /v1/triggers``                  the agent's triggers, the policy, whether they are active
- ``POST /v1/sleep`` ``{"days"}``, ``/v1/wake_on`` ``{"keywords", "min_hits"}``, ``/v1/wake_every``
  ``{"days"}``, ``/v1/wake_on_weekdays`` ``{"weekdays"}``, ``/v1/wake_at`` ``{"dates"}``,
  ``/v1/clear_triggers``: the triggers the agent sets under ``--policy agent``
  (pastcast.evaluate.triggers; the same as the MCP tools of those names)

Bad requests never cost the server a connection without an answer, nor the server itself:
400 a bad parameter, a body that is not a JSON object, a Content-Length that is not a
non-negative integer or promises more than is sent before the client closes; 404 an unknown
route; 408 a body not sent within the connection's ``timeout`` (``REQUEST_TIMEOUT``, also
how long an idle keep-alive connection is kept); 409 a forecast or advance once the replay is
over; 411 a body without a Content-Length (chunked); 413 a body over ``MAX_BODY_BYTES``
(refused unread); 500 anything unexpected (its traceback goes to the server's stderr, never
to the client: a message could carry what the client must not see). After an answer whose
body was not read, the connection is closed.

``make_server`` binds the port before it claims the run folder: a port in use or out of
range (``PortUnavailable``) leaves nothing behind. ``ReplaySession.close`` ends a replay that
did not finish: one without a forecast leaves no trace (a retry needs no ``--force``); one
with forecasts keeps its partial ledger, as an interrupted ``eval run`` does, and ``resume``
continues it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from pastcast.evaluate.policies import WakePolicy
from pastcast.evaluate.scoring import InvalidForecast
from pastcast.evaluate.session import MAX_ADVANCE_DAYS, MAX_K, ReplaySession, jsonable, short
from pastcast.io import loads_json

__all__ = ["MAX_ADVANCE_DAYS", "MAX_BODY_BYTES", "MAX_K", "PortUnavailable", "make_server"]

HOST = "127.0.0.1"
MAX_BODY_BYTES = 1 << 20  # 1 MiB: a forecast is a few hundred bytes
REQUEST_TIMEOUT = 60.0  # seconds a connection may stall (mid-body or idle between requests)


class PortUnavailable(ValueError):
    """The port is out of range or cannot be listened on (in use, not permitted)."""


def check_port(port) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise PortUnavailable(f"port {port} is out of range: use 0-65535 (0: any free port)")


def unavailable(port: int, exc: OSError) -> PortUnavailable:
    return PortUnavailable(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}")


class RequestError(Exception):
    """A bad request: its status, its message, and whether the connection must close (the
    body was not read, so the next bytes on it are not a request)."""

    def __init__(self, status: int, message: str, close: bool = False):
        super().__init__(message)
        self.status, self.message, self.close = status, message, close


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = REQUEST_TIMEOUT  # socket timeout per connection (StreamRequestHandler.setup)
    run: ReplaySession  # set on the subclass

    def log_message(self, *args) -> None:
        pass

    # -- answers ---------------------------------------------------------------------------
    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if getattr(self, "command", None) != "HEAD":
            self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's errors (a bad request line, an unknown method, a line too long)
        as JSON too; the connection closes, as the base class does."""
        self.close_connection = True
        if getattr(self, "request_version", None) == "HTTP/0.9":  # an unparsed version: still a status line
            self.request_version = "HTTP/1.0"
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._send(code, json.dumps({"error": message or phrase}).encode())

    def _respond(self, route) -> None:
        try:
            status, payload = route(urlparse(self.path))
            data = json.dumps(jsonable(payload)).encode()
        except RequestError as exc:
            if exc.close:
                self.close_connection = True
            status, data = exc.status, json.dumps({"error": exc.message}).encode()
        except Exception:  # a bug, a failing disk: an answer, and the server goes on serving
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True  # the request's body may be unread
            status, data = 500, json.dumps({"error": "internal server error (see the server's log)"}).encode()
        self._send(status, data)

    # -- requests --------------------------------------------------------------------------
    def _read_body(self) -> dict:
        """The request's JSON object body (``{}`` when there is none)."""
        if self.headers.get("Transfer-Encoding") is not None:
            raise RequestError(411, "a body must be sent with a Content-Length (Transfer-Encoding is not supported)",
                               close=True)
        lengths = {v.strip() for v in self.headers.get_all("Content-Length") or []}
        if not lengths:
            if self.request_version == "HTTP/1.0":  # a body may run to the connection's end
                raise RequestError(411, "a POST must carry a Content-Length", close=True)
            return {}  # HTTP/1.1: no Content-Length, no Transfer-Encoding: no body
        if len(lengths) > 1:
            raise RequestError(400, f"conflicting Content-Length headers: {sorted(lengths)}", close=True)
        value = lengths.pop()
        if not (value.isascii() and value.isdigit()):
            raise RequestError(400, f"Content-Length must be a non-negative integer, got {short(value)}", close=True)
        if len(value) > 18 or int(value) > MAX_BODY_BYTES:
            raise RequestError(413, f"the body is over {MAX_BODY_BYTES} bytes (Content-Length {short(value)})",
                               close=True)
        size = int(value)
        try:
            raw = self.rfile.read(size) if size else b""
        except TimeoutError:
            raise RequestError(408, f"the body was not sent within {self.timeout} s "
                                    f"(Content-Length {size})", close=True) from None
        if len(raw) < size:
            raise RequestError(400, f"the body ended after {len(raw)} of its {size} bytes (Content-Length)",
                               close=True)
        if not raw:
            return {}
        try:
            body = loads_json(raw)
        except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8 text
            raise RequestError(400, f"the body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise RequestError(400, f"the body must be a JSON object, got {type(body).__name__}")
        return body

    def _k(self, params: dict) -> int:
        raw = params.get("k", ["10"])[0].strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,9}", raw):
            raise RequestError(400, f"k must be an integer (clamped to 1..{MAX_K}), got {short(raw)}")
        return max(1, min(MAX_K, int(raw)))

    def do_GET(self) -> None:
        self._respond(self._get)

    def do_POST(self) -> None:
        self._respond(self._post)

    def _get(self, url) -> tuple[int, object]:
        if self.headers.get("Transfer-Encoding") is not None or \
                (self.headers.get("Content-Length") or "0").strip() != "0":
            self.close_connection = True  # a GET's body is never read: the next bytes are not a request
        params = parse_qs(url.query, keep_blank_values=True)  # "k=" is a bad k, not no k
        run = self.run
        try:
            if url.path == "/v1/state":
                return 200, run.state()
            if url.path == "/v1/questions":
                return 200, run.questions()["questions"]
            if url.path in ("/v1/search", "/v1/search_posts"):
                search = run.search_news if url.path == "/v1/search" else run.search_posts
                query = params.get("query", [""])[0]
                found = search(query, k=self._k(params), from_date=params.get("from_date", [None])[0],
                               to_date=params.get("to_date", [None])[0])
                return 200, found["hits"]
            if url.path == "/v1/market":
                return 200, run.market_consensus(params.get("question_id", [""])[0])["consensus"]
            if url.path == "/v1/resolved":
                return 200, run.resolved_questions()["questions"]
            if url.path == "/v1/triggers":
                return 200, run.triggers()
        except (ValueError, KeyError) as exc:
            raise RequestError(400, str(exc)) from None
        return 404, {"error": f"no route GET {url.path}"}

    def _post(self, url) -> tuple[int, object]:
        body = self._read_body()
        run = self.run
        try:
            with run.lock:
                if run.env.done and (url.path in ("/v1/forecast", "/v1/advance") or url.path in TRIGGER_ROUTES):
                    return 409, {"error": "the replay is over", **run.state()}
                if url.path in TRIGGER_ROUTES:
                    return 200, TRIGGER_ROUTES[url.path](run, body)
                if url.path == "/v1/forecast":
                    return 200, run.submit_forecast(body.get("question_id"), body.get("forecast"))
                if url.path == "/v1/advance":
                    return 200, run.advance(body["days"] if "days" in body else 1)
        except InvalidForecast as exc:
            raise RequestError(400, exc.reason) from None
        except (ValueError, TypeError) as exc:
            raise RequestError(400, str(exc)) from None
        return 404, {"error": f"no route POST {url.path}"}


TRIGGER_ROUTES = {  # POST: the agent's triggers, their arguments from the body
    "/v1/sleep": lambda run, body: run.sleep(body.get("days", 1)),
    "/v1/wake_on": lambda run, body: run.wake_on(body.get("keywords"), body.get("min_hits", 1)),
    "/v1/wake_every": lambda run, body: run.wake_every(body.get("days")),
    "/v1/wake_on_weekdays": lambda run, body: run.wake_on_weekdays(body.get("weekdays")),
    "/v1/wake_at": lambda run, body: run.wake_at(body.get("dates")),
    "/v1/clear_triggers": lambda run, body: run.clear_triggers(),
}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], OSError):  # a client gone or stalled: nothing to report
            return
        super().handle_error(request, client_address)


def make_server(snapshot_dir: str | os.PathLike, out_dir: str | os.PathLike, port: int = 0,
                agent_name: str = "external", force: bool = False,
                timeout: float | None = REQUEST_TIMEOUT, resume: bool = False,
                policy: WakePolicy | None = None) -> tuple[ThreadingHTTPServer, ReplaySession]:
    """A server on 127.0.0.1 (``port`` 0: any free one); call ``serve_forever`` to run it,
    then ``server_close`` and ``run.close()``. ``timeout``: seconds a connection may stall;
    ``resume``: continue the unfinished run in ``out_dir`` on the day it stopped on; ``policy``:
    when the agent wakes (without one, the run records its policy as "external").

    The port is bound first: ``PortUnavailable`` (a ``ValueError``) when it is out of range
    or cannot be listened on, before the snapshot is checked or the run folder claimed."""
    check_port(port)
    try:
        server = _Server((HOST, port), _Handler)
    except OSError as exc:
        raise unavailable(port, exc) from None
    try:
        run = ReplaySession(snapshot_dir, out_dir, agent_name, force=force, policy=policy,
                            extra={} if policy else {"policy": "external"}, resume=resume)
    except BaseException:
        server.server_close()
        raise
    server.RequestHandlerClass = type("Handler", (_Handler,), {"run": run, "timeout": timeout})
    return server, run
