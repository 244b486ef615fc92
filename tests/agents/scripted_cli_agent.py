"""A small CLI agent for the harness tests, connecting as Claude Code would: it reads the MCP
server's URL from the config file the harness generated ($PASTCAST_MCP_CONFIG, Claude Code's
--mcp-config format) and calls the tools with the official SDK's client.

Each run forecasts the open questions (evenly over their candidate outcomes), keeps a note in
memory and logs everything it saw (tool results, errors, workspace files) as JSON lines to
$SCRIPTED_LOG. $SCRIPTED_CRASH_ON / $SCRIPTED_HANG_ON (YYYY-MM-DD) make it crash or hang on
that simulated day; $SCRIPTED_NEXT_DAY_ON makes it call next_day, then linger. With --session it runs the whole replay, calling next_day itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from mcp import Client

LOG = Path(os.environ["SCRIPTED_LOG"])


def log(day: str, what: str, payload) -> None:
    with LOG.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"date": day, "what": what, "payload": payload}, ensure_ascii=False) + "\n")


async def call(client: Client, day: str, tool: str, args: dict | None = None):
    result = await client.call_tool(tool, args or {})
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        log(day, f"{tool}:error", text)
        return None
    log(day, tool, result.structured_content)
    return result.structured_content


async def one_day(client: Client, day: str) -> None:
    workspace = Path.cwd()
    for name in ("questions.json", "PROMPT.md"):
        log(day, f"file:{name}", (workspace / name).read_text(encoding="utf-8"))
    if os.environ.get("SCRIPTED_CRASH_ON") == day:
        print(f"crashing on {day}", file=sys.stderr, flush=True)
        os._exit(3)  # a crash: no clean-up (sys.exit would unwind through the client's task group)
    if os.environ.get("SCRIPTED_HANG_ON") == day:
        time.sleep(3600)
    if os.environ.get("SCRIPTED_NEXT_DAY_ON") == day:  # ends its day itself, then lingers
        await call(client, day, "next_day")
        time.sleep(3600)
    await call(client, day, "memory_read", {})
    notes = await call(client, day, "memory_read", {"name": "days"})
    seen_days = (notes or {}).get("text", "")
    await call(client, day, "memory_write", {"name": "days", "text": seen_days + day + "\n"})
    questions = (await call(client, day, "list_questions")) or {"questions": []}
    for q in questions["questions"]:
        await call(client, day, "search_news", {"query": q["title"], "k": 3, "to_date": "2099-01-01"})
        outcomes = q["candidate_outcomes"] or []
        if outcomes:
            p = round(0.9 / len(outcomes), 6)
            await call(client, day, "submit_forecast", {"question_id": q["question_id"],
                                                       "outcomes": {o: p for o in outcomes}})
    await call(client, day, "resolved_questions")


async def main(session: bool) -> None:
    config = json.loads(Path(os.environ["PASTCAST_MCP_CONFIG"]).read_text())
    url = config["mcpServers"]["pastcast"]["url"]
    async with Client(url) as client:
        state = await call(client, "?", "state")
        day = state["date"]
        while True:
            await one_day(client, day)
            if not session:
                return
            moved = await call(client, day, "next_day")
            if moved is None or moved["done"]:
                return
            day = moved["date"]


if __name__ == "__main__":
    asyncio.run(main("--session" in sys.argv))
