"""The replay environment served over HTTP on loopback, for agents in other processes or
languages: the serving process holds the snapshot and the answers; a client only ever gets
what ``ReplayEnvironment``'s public tools give on the current simulated day.

Endpoints (JSON; errors are ``{"error": "..."}`` with status 400/404/409):
- ``GET  /v1/state``                     today, window, done, forecasts so far
- ``GET  /v1/questions``                 the open questions (no answers)
- ``GET  /v1/search?query=...&k=10``     date-gated article search
- ``GET  /v1/search_posts?query=...&k=`` date-gated social posts
- ``GET  /v1/market?question_id=...``    the market consensus as of today, or null
- ``GET  /v1/resolved``                  questions already resolved, with their answers
- ``POST /v1/forecast``                  ``{"question_id", "forecast": {outcome: p}}``
- ``POST /v1/advance``                   ``{"days": 1}``; past the window's end the run is
  scored and ``{"done": true, "summary": ...}`` returned (ledger.jsonl, scores.parquet, run.json
  in the run folder, as ``eval run`` writes them).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from pastcast.evaluate.run_folder import PARTIAL, claim_run_folder
from pastcast.evaluate.environment import ReplayEnvironment
from pastcast.evaluate.runner import finish_run, ledger_line, utcnow
from pastcast.evaluate.scoring import InvalidForecast

MAX_K = 100


def _jsonable(value):
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class ServedRun:
    """One replay driven by requests: the environment, its ledger file, its scoring at the end."""

    def __init__(self, snapshot_dir: str | os.PathLike, out_dir: str | os.PathLike, agent_name: str = "external",
                 force: bool = False):
        self.snapshot_dir, self.out_dir = Path(snapshot_dir), Path(out_dir)
        self.env = ReplayEnvironment(self.snapshot_dir)  # checks the snapshot first
        # one writer per run folder, never over a finished run unless asked (held while serving)
        self.folder_lock = claim_run_folder(self.out_dir, force=force)
        self.agent_name, self.started = agent_name, utcnow()
        self.lock = threading.Lock()  # one request at a time touches the environment
        self._partial = self.out_dir / PARTIAL
        self._ledger = self._partial.open("w", encoding="utf-8")
        self.result = None

    def state(self) -> dict:
        return {"today": self.env.today, "start": self.env.start, "end": self.env.end,
                "done": self.env.done, "forecasts": len(self.env.ledger), "agent": self.agent_name}

    def forecast(self, body: dict) -> dict:
        entry = self.env.submit(str(body.get("question_id")), body.get("forecast"))
        self._ledger.write(ledger_line(entry, self.agent_name) + "\n")
        self._ledger.flush()
        return {"question_id": entry.question_id, "date": entry.date, "forecast": dict(entry.forecast)}

    def advance(self, days: int) -> dict:
        for _ in range(days):
            if self.env.done:
                break
            self.env.advance()
        if self.env.done and self.result is None:
            self._ledger.close()
            os.replace(self._partial, self.out_dir / "ledger.jsonl")
            try:
                self.result = finish_run(self.env, self.snapshot_dir, self.out_dir, self.agent_name, self.started,
                                         {"policy": "external"})
            finally:
                self.folder_lock.release()  # the run is written: the folder is free
        out = self.state()
        if self.result is not None:
            out["summary"] = self.result.summary
        return out


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    run: ServedRun  # set on the subclass

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, payload) -> None:
        data = json.dumps(payload, default=_jsonable).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _k(self, params: dict) -> int:
        return max(1, min(MAX_K, int(params.get("k", ["10"])[0])))

    def do_GET(self) -> None:
        url = urlparse(self.path)
        params = parse_qs(url.query)
        env = self.run.env
        try:
            with self.run.lock:
                if url.path == "/v1/state":
                    return self._send(200, self.run.state())
                if url.path == "/v1/questions":
                    return self._send(200, [asdict(q) for q in env.open_questions()])
                if url.path in ("/v1/search", "/v1/search_posts"):
                    search = env.search if url.path == "/v1/search" else env.search_posts
                    hits = search(params.get("query", [""])[0], k=self._k(params))
                    return self._send(200, [{"id": h.article_id, "title": h.title, "published_at": h.published_at,
                                             "score": h.score, "snippet": h.snippet} for h in hits])
                if url.path == "/v1/market":
                    return self._send(200, env.market_consensus(params.get("question_id", [""])[0]))
                if url.path == "/v1/resolved":
                    return self._send(200, [asdict(q) for q in env.resolved()])
            self._send(404, {"error": f"no route GET {url.path}"})
        except (ValueError, KeyError) as exc:
            self._send(400, {"error": str(exc)})

    def do_POST(self) -> None:
        url = urlparse(self.path)
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except json.JSONDecodeError as exc:
            return self._send(400, {"error": f"the body is not JSON: {exc}"})
        try:
            with self.run.lock:
                if self.run.env.done and url.path in ("/v1/forecast", "/v1/advance"):
                    return self._send(409, {"error": "the replay is over", **self.run.state()})
                if url.path == "/v1/forecast":
                    return self._send(200, self.run.forecast(body))
                if url.path == "/v1/advance":
                    return self._send(200, self.run.advance(max(1, int(body.get("days", 1)))))
            self._send(404, {"error": f"no route POST {url.path}"})
        except InvalidForecast as exc:
            self._send(400, {"error": exc.reason})
        except (ValueError, TypeError) as exc:
            self._send(400, {"error": str(exc)})


def make_server(snapshot_dir: str | os.PathLike, out_dir: str | os.PathLike, port: int = 0,
                agent_name: str = "external", force: bool = False) -> tuple[ThreadingHTTPServer, ServedRun]:
    """A server on 127.0.0.1 (``port`` 0: any free one); call ``serve_forever`` to run it."""
    run = ServedRun(snapshot_dir, out_dir, agent_name, force=force)
    handler = type("Handler", (_Handler,), {"run": run})
    return ThreadingHTTPServer(("127.0.0.1", port), handler), run
