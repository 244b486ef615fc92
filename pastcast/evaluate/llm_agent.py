"""The bundled LLM agent: on each wake, a tool-calling conversation through the LLM module
(cached, retried, budgeted: ``pastcast.llm``). Tools: ``search`` (date-gated news),
``list_questions``, ``forecast``, ``note`` (memory kept across days) and ``sleep`` (for the sleep
policy). A rejected forecast is returned to the model as the tool's error, so it can fix it.
When the run's LLM budget is spent the agent stops acting; its forecasts so far stand.

Every wake's conversation runs on the client's one event loop (an ``asyncio.Runner`` for the
agent's life, ended by ``close`` or when the agent is collected), not a new loop per wake or
turn: litellm's background logging worker is bound to a loop and warns each time it changes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import openai  # installed with litellm: the base class of the errors it raises

from pastcast.evaluate.scoring import InvalidForecast
from pastcast.llm import BudgetExhausted, LLMClient, LLMSettings, load_prompt

if TYPE_CHECKING:
    from pastcast.evaluate.environment import ReplayEnvironment

SNIPPET = 300


def _tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required}}}


TOOLS = [
    _tool("search", "Search news published up to today.", {
        "query": {"type": "string"}, "k": {"type": "integer", "minimum": 1, "maximum": 20}}, ["query"]),
    _tool("list_questions", "The open questions with their ids and options.", {}, []),
    _tool("forecast", "Submit a forecast for an open question.", {
        "question_id": {"type": "string"},
        "forecast": {"type": "object", "additionalProperties": {"type": "number"},
                     "description": "outcome -> probability; at most 5, summing to at most 1"}},
        ["question_id", "forecast"]),
    _tool("note", "Keep a note for later days.", {"text": {"type": "string"}}, ["text"]),
    _tool("sleep", "Do not wake me for this many days (with the sleep policy).", {
        "days": {"type": "integer", "minimum": 1}}, ["days"]),
]


class LLMAgent:
    name = "llm"

    def __init__(self, settings: LLMSettings | None = None, max_steps: int = 8, prompt: str = "agent"):
        self.settings = settings or LLMSettings.from_env()
        self.client = LLMClient(self.settings, {})
        self.prompt = load_prompt(prompt)
        self.max_steps, self.notes, self.out_of_budget = max_steps, [], False
        self.failures: list[str] = []
        self.name = f"llm:{self.settings.model}"

    def _questions(self, env: ReplayEnvironment) -> str:
        return "\n".join(f"- {q.question_id}: {q.title} (resolves {q.resolution_date}"
                         + (f"; options: {', '.join(q.candidate_outcomes)}" if q.candidate_outcomes else "") + ")"
                         for q in env.open_questions()) or "(none)"

    def _run_tool(self, env: ReplayEnvironment, name: str, args: dict) -> str:
        try:
            if name == "search":
                hits = env.search(str(args.get("query", "")), k=max(1, min(int(args.get("k", 5)), 20)))
                return json.dumps([{"date": h.published_at.date().isoformat(), "title": h.title,
                                    "text": h.snippet[:SNIPPET]} for h in hits])
            if name == "list_questions":
                return self._questions(env)
            if name == "forecast":
                entry = env.submit(str(args.get("question_id")), args.get("forecast") or {})
                return f"recorded for {entry.question_id} on {entry.date}"
            if name == "note":
                self.notes.append(f"{env.today}: {args.get('text', '')}")
                return "noted"
            if name == "sleep":
                return f"next wake {env.sleep(int(args.get('days', 1)))}"
            return f"error: no tool {name!r}"
        except (InvalidForecast, ValueError, TypeError) as exc:
            return f"error: {exc}"

    def act(self, env: ReplayEnvironment) -> None:
        if self.out_of_budget:
            return
        self.client.run(self._wake(env))

    async def _wake(self, env: ReplayEnvironment) -> None:
        try:
            await self._converse(env)
        finally:  # nothing of today's left queued in litellm's logging worker
            await self.client.flush_logging()

    async def _converse(self, env: ReplayEnvironment) -> None:
        inputs = {"today": env.today.isoformat(), "questions": self._questions(env),
                  "notes": "\n".join(self.notes[-20:]) or "(none)"}
        messages = self.prompt.messages(inputs)
        for step in range(self.max_steps):
            try:
                reply = await self.client.achat(f"{env.today}#{step}", self.prompt, messages, TOOLS)
            except BudgetExhausted:
                self.out_of_budget = True
                return
            except openai.OpenAIError as exc:  # retries spent: lose today's turn, not the run
                self.failures.append(f"{env.today}: {type(exc).__name__}")
                return
            calls = reply.get("tool_calls") or []
            if not calls:
                return
            messages.append({"role": "assistant", "content": reply.get("content") or None, "tool_calls": [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in calls]})
            for c in calls:
                try:
                    args = json.loads(c["arguments"] or "{}")
                except json.JSONDecodeError as exc:
                    result = f"error: arguments are not JSON: {exc}"
                else:
                    result = self._run_tool(env, c["name"], args if isinstance(args, dict) else {})
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": result})

    @property
    def usage(self) -> dict:
        return {**self.client.usage.as_dict(), "failed_turns": len(self.failures),
                "out_of_budget": self.out_of_budget}

    def close(self) -> None:
        """End the event loop (also ended when the agent is collected) and close the LLM cache."""
        self.client.close()

    def __enter__(self) -> LLMAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
