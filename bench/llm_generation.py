"""LLM question generation at volume, against the loopback OpenAI-protocol server of the tests.

Three measurements, side by side in one run:
1. Throughput: the same articles at concurrency 1 and 16 with a fixed server latency;
   requests per second and their ratio (the calls overlap, or they do not).
2. A 1,000-article run at concurrency 16 with faults (429 with Retry-After, 500s, malformed
   JSON, rejected candidates, previews the scorer skips) and a token budget that runs out part
   way: every article must end as a question or a drop with a reason, and the tokens spent
   may pass the budget by at most the requests in flight when it ran out.
3. The same command without the budget: it resumes (cached replies, then the rest); then the
   same again: every reply from the cache, zero requests.

    .venv/bin/python bench/llm_generation.py            # ~1 min
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from openai_server import OpenAIServer, Reply, completion, error  # noqa: E402

from pastcast.llm import LLMSettings  # noqa: E402
from pastcast.questions.llm_generate import LLMGenerateConfig, SelectConfig, generate_llm  # noqa: E402
from pastcast.schemas import ARTICLES, frame  # noqa: E402

MODEL = "openai/bench-model"
PROMPT_TOKENS, COMPLETION_TOKENS = 900, 150


def articles(n: int, seed: int = 11):
    rng = random.Random(seed)
    start = datetime(2026, 3, 1, 8, tzinfo=timezone.utc)
    rows = []
    for i in range(n):
        day = start + timedelta(days=i % 30, minutes=i)
        name = f"Person{i} Surname{i % 97}"
        if rng.random() < 0.1:  # previews: the scorer keeps them away from the LLM
            title, text = f"Preview: who could win race {i}?", f"Pundits predict race {i} is expected to be close."
        else:
            title = f"{name} wins race {i}"
            text = f"{name} won race {i} on Sunday, the organisers said. The field had {i % 40 + 5} starters."
        rows.append({"article_id": f"a{i:05d}", "url": f"https://news.example/{i}", "domain": "news.example",
                     "title": title, "text": text, "language": "en", "published_at": day,
                     "crawled_at": day, "dup_cluster": f"a{i:05d}", "word_count": len(text.split())})
    return frame(rows, ARTICLES)


def _name(body: dict) -> str:
    return body["messages"][1]["content"].split("Title: ", 1)[1].split(" wins race", 1)[0]


def _question(name: str, i: str) -> dict:
    return {"title": f"Who will win race {i}?", "background": f"Race {i} is run on Sunday.",
            "resolution_criteria": "The winner named by the organisers.", "answer": name,
            "answer_aliases": [], "answer_type": "person", "resolution_date": None}


def script(faults: bool):
    def reply(body: dict, n: int) -> Reply:
        name = _name(body)
        race = body["messages"][1]["content"].split("wins race ", 1)[1].split("\n", 1)[0]
        roll = random.Random(f"{name}|{len(body['messages'])}|{n}").random() if faults else 1.0
        if roll < 0.03:
            return error(429, "rate limited", {"Retry-After": "0.05"})
        if roll < 0.05:
            return error(500, "boom")
        checking = "You review candidate questions" in body["messages"][0]["content"]
        if roll < 0.09 and len(body["messages"]) == 2:
            return completion("{truncated", PROMPT_TOKENS, COMPLETION_TOKENS)
        if checking:
            keep = random.Random(name).random() > 0.05
            content = {"keep": keep, "best": 0, **_question(name, race), "rewrote": [],
                       "reason": "" if keep else "the answer is a forecast"}
        else:
            content = {"reports_outcome": True, "questions": [{**_question(name, race), "evidence": ""}]}
        return completion(json.dumps(content), PROMPT_TOKENS, COMPLETION_TOKENS)

    return reply


def settings(server, cache: Path, concurrency: int, **kw) -> LLMSettings:
    return LLMSettings(model=MODEL, api_base=server.url, api_key="bench", concurrency=concurrency,
                       cache_dir=cache, backoff_base=0.05, backoff_cap=1.0, timeout=10.0, **kw)


CONFIG = LLMGenerateConfig(select=SelectConfig(per_day=None))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.05, help="server seconds per request")
    parser.add_argument("--throughput-articles", type=int, default=150)
    parser.add_argument("--articles", type=int, default=1000, help="0 runs the throughput part only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pastcast-llm-bench-") as tmp:
        tmp = Path(tmp)
        small = articles(args.throughput_articles, seed=3)
        rates = {}
        for concurrency in (1, 16):
            with OpenAIServer(script(faults=False), latency=args.latency) as server:
                started = time.perf_counter()
                run = generate_llm(small, settings(server, tmp / f"cache-c{concurrency}", concurrency), CONFIG)
                seconds = time.perf_counter() - started
                rates[concurrency] = (len(server.requests), seconds, server.max_in_flight, run.questions.height)
        print(f"throughput, {args.throughput_articles} articles, server latency {args.latency * 1000:.0f} ms:")
        for c, (requests, seconds, in_flight, q) in rates.items():
            print(f"  concurrency {c:>2}: {requests} requests in {seconds:6.2f} s = {requests / seconds:7.1f} req/s "
                  f"(max {in_flight} in flight), {q} questions")
        print(f"  ratio 16 vs 1: {(rates[16][0] / rates[16][1]) / (rates[1][0] / rates[1][1]):.1f}x requests/s")

        if not args.articles:
            return 0
        big = articles(args.articles)
        per_request = PROMPT_TOKENS + COMPLETION_TOKENS
        budget = int(0.7 * 2 * args.articles * per_request)  # runs out about two thirds of the way
        with OpenAIServer(script(faults=True), latency=args.latency) as server:
            started = time.perf_counter()
            run = generate_llm(big, settings(server, tmp / "cache", 16, max_tokens=budget), CONFIG)
            seconds = time.perf_counter() - started
            first_requests = len(server.requests)
            # the same command without the budget resumes: cached answers, then the rest
            resumed = generate_llm(big, settings(server, tmp / "cache", 16), CONFIG)
            resume_requests = len(server.requests) - first_requests
            again = generate_llm(big, settings(server, tmp / "cache", 16), CONFIG)
            rerun_requests = len(server.requests) - first_requests - resume_requests
        accounted = run.questions.height + run.drops.height
        over = run.usage.tokens - budget
        print(f"\n{args.articles:,}-article run at concurrency 16 with faults, token budget {budget:,}:")
        print(f"  {seconds:.1f} s, {first_requests:,} requests ({first_requests / seconds:.0f}/s), "
              f"{run.usage.tokens:,} tokens")
        print(f"  questions {run.questions.height:,} + drops {run.drops.height:,} = {accounted:,} "
              f"of {args.articles:,} articles: {'every article accounted for' if accounted == args.articles else 'MISSING'}")
        print(f"  drops by reason: {dict(sorted(Counter(run.drops['reason']).items()))}")
        print(f"  budget overshoot: {over:,} tokens = {over / per_request:.1f} requests "
              f"(limit: 16 in flight = {16 * per_request:,} tokens): {'within' if over <= 16 * per_request else 'EXCEEDED'}")
        print(f"  ledger: {dict(sorted(Counter(run.ledger['status']).items()))}, "
              f"retried calls {int((run.ledger['attempts'] > 1).sum())}")
        print(f"resumed without a budget: {resume_requests:,} requests, {resumed.usage.cache_hits:,} cache hits, "
              f"{resumed.questions.height:,} questions, drops {dict(sorted(Counter(resumed.drops['reason']).items()))}")
        print(f"rerun, nothing changed: {rerun_requests} requests, {again.usage.cache_hits:,} cache hits, "
              f"same questions: {again.questions.equals(resumed.questions)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
