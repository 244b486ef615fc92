"""A CLI agent for harness tests that must start many times: the standard library only (the
MCP SDK's client takes seconds to import), speaking MCP's streamable HTTP to $PASTCAST_MCP_URL
as any client does (initialize, then tools/call; answers as JSON or server-sent events).

Each run forecasts every open question with candidates, evenly over them (0.9 in all), and
appends the day to a note."""

from __future__ import annotations

import json
import os
import urllib.request

URL = os.environ["PASTCAST_MCP_URL"]
_session: dict[str, str] = {}


def rpc(method: str, params: dict | None = None, ident: int | None = None):
    body = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {}),
            **({"id": ident} if ident is not None else {})}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **_session}
    request = urllib.request.Request(URL, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        if response.headers.get("mcp-session-id"):
            _session["mcp-session-id"] = response.headers["mcp-session-id"]
        text = response.read().decode()
    if ident is None:
        return None
    for line in text.splitlines():  # an event stream: the answer is a data line
        if line.startswith("data:"):
            text = line[5:]
            break
    message = json.loads(text)
    if "error" in message:
        raise SystemExit(f"{method}: {message['error']}")
    return message["result"]


def call(tool: str, **args) -> dict:
    result = rpc("tools/call", {"name": tool, "arguments": args}, ident=call.next_id)
    call.next_id += 1
    if result.get("isError"):
        raise SystemExit(f"{tool}: {result['content']}")
    return result["structuredContent"]


call.next_id = 2

if __name__ == "__main__":
    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "light-cli-agent", "version": "1"}}, ident=1)
    rpc("notifications/initialized")
    today = call("state")["date"]
    for q in call("list_questions")["questions"]:
        outcomes = q["candidate_outcomes"]
        if outcomes:
            call("submit_forecast", question_id=q["question_id"],
                 outcomes={o: round(0.9 / len(outcomes), 6) for o in outcomes})
    call("memory_write", name="days", text=today + "\n", append=True)
