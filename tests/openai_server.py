"""A real HTTP server on loopback that speaks the OpenAI chat-completions protocol, for tests
of the LLM path: litellm's own client, retries and error handling run against it unchanged.

``OpenAIServer(script)`` serves ``POST /v1/chat/completions`` in a thread; ``script(body, n)``
decides each reply (``Reply``: status, JSON or raw body, headers, delay). The server records
every request body and the most requests it had in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: dict | str = field(default_factory=dict)  # a str is sent as is (malformed on purpose)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow model, or a timeout)


def completion(content: str, prompt_tokens: int = 100, completion_tokens: int = 20,
               model: str = "test-model") -> Reply:
    """A chat.completion whose message content is ``content`` (e.g. a JSON string)."""
    return Reply(body={
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1767225600, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error(status: int, message: str = "error", headers: dict[str, str] | None = None) -> Reply:
    kind = {429: "rate_limit_exceeded", 500: "server_error", 503: "server_error"}.get(status, "invalid_request_error")
    return Reply(status=status, body={"error": {"message": message, "type": kind, "code": None}},
                 headers=headers or {})


Script = Callable[[dict, int], Reply]  # (request body, request number from 0) -> reply


class OpenAIServer:
    def __init__(self, script: Script, latency: float = 0.0):
        self.script = script
        self.latency = latency  # added to every reply's delay
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the real APIs
            disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms stall

            def log_message(self, *args) -> None:  # quiet in test output
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                with outer._lock:
                    n = len(outer.requests)
                    outer.requests.append(body)
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if not self.path.rstrip("/").endswith("/chat/completions"):
                        reply = error(404, f"no route {self.path}")
                    else:
                        reply = outer.script(body, n)
                    time.sleep(reply.delay + outer.latency)
                    payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                    data = payload.encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def tool_reply(calls, content=""):
    """A chat completion that calls tools: ``calls`` is [(name, arguments)]; none ends the turn."""
    return Reply(body={
        "id": "x", "object": "chat.completion", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop", "message": {
            "role": "assistant", "content": content or None,
            "tool_calls": [{"id": f"call_{i}", "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)}}
                           for i, (name, args) in enumerate(calls)] or None}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}})
