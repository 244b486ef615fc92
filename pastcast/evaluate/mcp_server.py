"""The replay as an MCP server (the official Python SDK, ``mcp``), over stdio or streamable
HTTP on loopback: how CLI agents (Claude Code, Codex, OpenCode) reach a pastcast replay in
their own harness.

Every tool is a ``ReplaySession`` method (the one behind ``eval serve`` too) and returns a JSON
object (MCP structured content). A bad argument or a refused forecast is an error result naming
the reason, never a crash of the server; anything unexpected is an error result that says only
"internal error" (its traceback goes to the server's stderr: a message could carry what the
agent must not see).

Integer and true/false arguments are declared to the client by their JSON type but validated by
the session, not by the SDK (whose lax validation would read ``k="10"`` as 10, ``days="1"`` as 1,
``"yes"`` as true): a wrong type is refused in MCP with the message HTTP gives.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import StrictFloat, StrictInt, WithJsonSchema
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from pastcast.evaluate.scoring import InvalidForecast
from pastcast.evaluate.serve import HOST, check_port, unavailable
from pastcast.evaluate.session import ReplaySession, flag

PATH = "/mcp"
SERVER_NAME = "pastcast"
GRACEFUL_SHUTDOWN_S = 5  # requests in flight when the server stops (the session refuses changes once closed)

INSTRUCTIONS = """You are forecasting on a replay of the past, one simulated day at a time.
Today is the simulated date every tool reports; you only see what was published by the end of
today (UTC): news via search_news, social posts via search_posts, market prices via
market_consensus. list_questions gives the open questions; submit_forecast records a
probability distribution over free-form outcomes (the probabilities sum to at most 1; mass left
over goes to 'none of these'); a later forecast for the same question replaces an earlier one.
Answers and your scores appear in resolved_questions once a question resolves. memory_write /
memory_read keep notes across days. next_day ends your day; the replay is scored when the last
day is over. When the replay's policy is "agent" (state says), you choose when you are woken:
sleep, wake_on (a keyword watcher), wake_every, wake_on_weekdays and wake_at set triggers,
next_day moves to the next day one fires (daily while none is set); triggers lists them and
clear_triggers removes them."""

# Every tool is marked read-only: none touches the agent's machine or the world (a forecast, a
# note, the clock are the replay's own state). Codex's exec mode declines any tool call not so
# marked (it cannot ask for approval), so this is what lets it submit forecasts at all.
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

# the schema the client sees; the value reaches the session as sent (its checks are HTTP's too)
Integer = Annotated[Any, WithJsonSchema({"type": "integer"})]
Boolean = Annotated[Any, WithJsonSchema({"type": "boolean"})]
Strings = Annotated[Any, WithJsonSchema({"type": "array", "items": {"type": "string"}})]


def _guarded(session: ReplaySession, name: str, call: Callable[[], dict]) -> dict[str, Any]:
    """Count the call; turn a refusal into an error result with its reason, and anything
    else into an error result that tells nothing."""
    session.count(name)
    try:
        return call()
    except InvalidForecast as exc:
        raise ToolError(exc.reason) from None
    except (ValueError, TypeError, KeyError) as exc:
        raise ToolError(str(exc)) from None
    except Exception:
        traceback.print_exc(file=sys.stderr)
        raise ToolError("internal error (see the server's log)") from None


def build_server(session: ReplaySession) -> MCPServer:
    """An MCP server whose tools drive ``session``."""
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=READ)
    def state() -> dict[str, Any]:
        """Today's simulated date, the replay window (start, end), whether it is over (done) and
        how many forecasts you have submitted."""
        return _guarded(session, "state", session.state)

    @server.tool(annotations=READ)
    def list_questions() -> dict[str, Any]:
        """The questions open today: question_id, title, background, resolution_criteria,
        answer_type, candidate_outcomes (may be empty: outcomes are free-form), open_date,
        resolution_date, and your standing forecast (your_forecast) if any."""
        return _guarded(session, "list_questions", session.questions)

    @server.tool(annotations=READ)
    def search_news(query: str, k: Integer = 10, from_date: str | None = None, to_date: str | None = None,
                    full_text: Boolean = False) -> dict[str, Any]:
        """The k (1..100) best news articles for a free-text query, among those published by
        the end of today (UTC); from_date / to_date (YYYY-MM-DD) narrow the published dates (a
        to_date after today is today). Hits carry id, title, published_at, score and a snippet;
        full_text adds the article's text."""
        return _guarded(session, "search_news",
                        lambda: session.search_news(query, k, from_date, to_date, full_text))

    @server.tool(annotations=READ)
    def search_posts(query: str, k: Integer = 10, from_date: str | None = None,
                     to_date: str | None = None) -> dict[str, Any]:
        """Social posts (Reddit, Hacker News, Bluesky...) made by the end of today, searched
        like search_news; a hit's title names the platform and community."""
        return _guarded(session, "search_posts", lambda: session.search_posts(query, k, from_date, to_date))

    @server.tool(annotations=READ)
    def market_consensus(question_id: str) -> dict[str, Any]:
        """For an open question that has a prediction market: its prices as of the end of today
        (consensus: {outcome: probability}), or consensus null (no market, no price yet, or not
        open)."""
        return _guarded(session, "market_consensus", lambda: session.market_consensus(question_id))

    @server.tool(annotations=WRITE)
    def submit_forecast(question_id: str, outcomes: dict[str, StrictFloat | StrictInt]) -> dict[str, Any]:
        """Forecast an open question: {outcome: probability}, outcomes written as the answer
        would be (a name, a number with its unit, Yes/No), probabilities in [0, 1] summing to
        at most 1. A later forecast replaces an earlier one; the one standing at resolution
        and every day's standing forecast are scored."""
        return _guarded(session, "submit_forecast", lambda: session.submit_forecast(question_id, outcomes))

    @server.tool(annotations=READ)
    def resolved_questions() -> dict[str, Any]:
        """Questions resolved by today, with their answer, answer_aliases and your scores
        (bss: Brier skill score of your final forecast, accuracy, time_weighted_bss)."""
        return _guarded(session, "resolved_questions", session.resolved_questions)

    @server.tool(annotations=WRITE)
    def next_day(days: Integer = 1) -> dict[str, Any]:
        """End today and move the clock on (days >= 1; under --policy agent, on to the next day a
        trigger fires, its reasons in woken_because). Returns the new date, done (true once
        the replay is over, when it is scored), what resolved meanwhile with your scores, and
        how many new articles were published (new_articles)."""
        return _guarded(session, "next_day", lambda: session.advance(days))

    @server.tool(annotations=WRITE)
    def sleep(days: Integer = 1) -> dict[str, Any]:
        """(--policy agent) Be woken days (>= 1) from today, or earlier if another trigger fires;
        replaces an earlier sleep, fires once."""
        return _guarded(session, "sleep", lambda: session.sleep(days))

    @server.tool(annotations=WRITE)
    def wake_on(keywords: Strings, min_hits: Integer = 1) -> dict[str, Any]:
        """(--policy agent) A watcher: be woken on a day when at least min_hits articles published
        that day match any of the keywords (matched as search_news matches). The reply's
        matches_today and would_wake_today are a dry run on today's articles."""
        return _guarded(session, "wake_on", lambda: session.wake_on(keywords, min_hits))

    @server.tool(annotations=WRITE)
    def wake_every(days: Integer) -> dict[str, Any]:
        """(--policy agent) Be woken every days (>= 1) days, counted from today."""
        return _guarded(session, "wake_every", lambda: session.wake_every(days))

    @server.tool(annotations=WRITE)
    def wake_on_weekdays(weekdays: Strings) -> dict[str, Any]:
        """(--policy agent) Be woken on these weekdays (monday..sunday, or mon..sun)."""
        return _guarded(session, "wake_on_weekdays", lambda: session.wake_on_weekdays(weekdays))

    @server.tool(annotations=WRITE)
    def wake_at(dates: Strings) -> dict[str, Any]:
        """(--policy agent) Be woken on each of these dates (YYYY-MM-DD, after today, within the
        replay window), once each."""
        return _guarded(session, "wake_at", lambda: session.wake_at(dates))

    @server.tool(annotations=READ)
    def triggers() -> dict[str, Any]:
        """Your triggers (id, kind and what each holds), the replay's policy, and whether
        triggers decide your wakes (active: only under --policy agent)."""
        return _guarded(session, "triggers", session.triggers)

    @server.tool(annotations=WRITE)
    def clear_triggers() -> dict[str, Any]:
        """Remove every trigger (with none set you are woken daily)."""
        return _guarded(session, "clear_triggers", session.clear_triggers)

    @server.tool(annotations=WRITE)
    def memory_write(name: str, text: str, append: Boolean = False) -> dict[str, Any]:
        """Keep a note for later days: name (letters, digits, '.', '_', '-'), text; append adds
        to the note instead of replacing it."""
        return _guarded(session, "memory_write", lambda: session.memory_write(name, text, flag(append, "append")))

    @server.tool(annotations=READ)
    def memory_read(name: str | None = None) -> dict[str, Any]:
        """A note's text, or without a name the list of your notes."""
        return _guarded(session, "memory_read", lambda: session.memory_read(name))

    return server


def serve_stdio(session: ReplaySession) -> None:
    """Serve ``session`` on stdin/stdout until the client closes them."""
    build_server(session).run("stdio")


def refusal_server(reason: str) -> MCPServer:
    """The server ``eval mcp`` runs over stdio when it cannot serve the replay (a run folder
    that already holds a run, a snapshot that is not there): a client that hides the server's
    stderr would see only a server with no tools. This one says why, in its ``instructions``
    and as its one tool, ``state`` (the replay's first look), whose description and error are
    the reason."""
    text = f"pastcast is not serving a replay: {reason}"
    server = MCPServer(SERVER_NAME, instructions=text, log_level="WARNING")

    @server.tool(name="state", description=text + " (calling this tool returns the same message)",
                 annotations=READ)
    def state() -> dict[str, Any]:
        raise ToolError(text)

    return server


def serve_refusal_stdio(reason: str) -> None:
    """Serve ``refusal_server(reason)`` on stdin/stdout until the client closes them."""
    refusal_server(reason).run("stdio")


def bind(port: int = 0) -> socket.socket:
    """A listening socket on loopback (``port`` 0: any free one); ``PortUnavailable`` (a
    ``ValueError``, as ``eval serve`` raises it) when the port is out of range or cannot be had."""
    check_port(port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise unavailable(port, exc) from None
    return sock


class HttpServer:
    """The MCP server over streamable HTTP at ``url``, served by uvicorn in a thread (the
    harness drives the session from the main thread meanwhile)."""

    def __init__(self, session: ReplaySession, sock: socket.socket):
        import uvicorn

        self.session, self._socket = session, sock
        app = build_server(session).streamable_http_app(streamable_http_path=PATH, host=HOST)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                                     timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True,
                                        name="pastcast-mcp")

    @property
    def url(self) -> str:
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}{PATH}"

    def start(self, timeout: float = 30.0) -> HttpServer:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the MCP server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def serve_until_done(self, poll: float = 0.2, grace: float = 1.0) -> None:
        """Serve until the replay is over (then a moment more, so the last answer is read)."""
        try:
            while self._thread.is_alive() and self.session.result is None and not self.session.env.done:
                self._thread.join(poll)
            if self.session.env.done:
                time.sleep(grace)
        finally:
            self.stop()

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()
