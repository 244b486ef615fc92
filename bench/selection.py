"""How well the LLM generator's article selection finds outcome reports, on labelled real pages.

The labels (``bench/labels/selection.jsonl``, written by reading each page's headline and lead;
the guideline is in bench/README.md, "Selection benchmark") say of 455 real news pages whether
the page reports a settled outcome a forecasting question could be asked about: the 256 pages
of ``warc/derived/CC-NEWS-like-fundus-256.warc.gz`` and the 199 pages of news publishers in
trafilatura's evaluation set. Pages are read where they are (never copied), extracted with the
project's own ``pastcast.curate.extract.extract_html`` (headline and main text) and scored the
way ``select_articles`` scores them.

Printed side by side, on the tuning and held-out halves of the publisher split
(``_common.split_half``; a change to the cue lists is tuned on the tuning half only) and for
English and other languages apart:

1. the cue scorer (``--select cues``): precision and recall of "score >= min_score", for the
   cue lists before they were measured (``CUES_V1``, English only) and the current ones;
2. what the LLM screen (``--select llm``) costs per article: tokens of ``article_screen`` on
   each page against the two generation passes (``question_generate`` + ``question_check``),
   and USD at a reference price. Its precision and recall need a model: none is reachable
   offline, so they are not measured here (``--model`` measures them against a server);
3. what each mode spends per outcome report it reaches, in generation-call equivalents (the
   ``llm`` rows for assumed precision and recall).

    .venv/bin/python bench/selection.py [--json PATH] [--model M --api-base URL]   # ~30 s
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

from _common import (CACHE, FUNDUS_WARC, ROOT, TRAFILATURA, environment, read_page_bytes, require_data,
                     split_half, table, trafilatura_eval, trafilatura_page_path, write_json)

import polars as pl  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "selection.jsonl"
OUT = CACHE / "selection.json"
PAGES_CACHE = CACHE / "selection" / "pages.json"
REFERENCE_MODEL = "gpt-4o-mini"  # for token counts and a price from litellm's local price map
GROUPS = ("en", "other", "all")
# completions the generation passes typically write: the reply format of question_generate.toml
# with three questions, and of question_check.toml (their max_tokens bound them: 1800, 1200)
EXAMPLE_QUESTION = {
    "title": "Who will win the 2026 Kestrel Bay mayoral election?",
    "background": "Kestrel Bay elects its mayor on 8 March 2026. The incumbent is not running; "
                  "four candidates are on the ballot, including a former council leader and a businesswoman.",
    "resolution_criteria": "Resolves to the candidate declared winner by the Kestrel Bay electoral office "
                           "in the official results of the 8 March 2026 election.",
    "answer": "Maria Okafor", "answer_aliases": ["Okafor"], "answer_type": "person",
    "resolution_date": "2026-03-08",
    "evidence": "Maria Okafor won the Kestrel Bay mayoral election on Sunday, the electoral office said."}


def load_labels(path: Path = LABELS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _key(labels_path: Path) -> str:
    from pastcast.curate import extract

    digest = hashlib.sha256(labels_path.read_bytes())
    digest.update(Path(extract.__file__).read_bytes())
    return digest.hexdigest()[:16]


def load_pages(labels: list[dict], labels_path: Path = LABELS, cache: Path | None = PAGES_CACHE) -> list[dict]:
    """Each labelled page with its extracted ``title`` and ``text`` (cached under .bench-cache)."""
    from pastcast.curate.extract import decode_html, extract_html
    from pastcast.sources.warc import HtmlPage, iter_html_pages

    key = _key(labels_path)
    if cache is not None and cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if stored.get("key") == key:
            return stored["pages"]
    wanted = {(r["set"], r["url"]): r for r in labels}
    pages: dict[tuple[str, str], dict] = {}
    if any(s == "fundus" for s, _ in wanted):
        for page in iter_html_pages(FUNDUS_WARC):
            if isinstance(page, HtmlPage) and ("fundus", page.url) in wanted:
                title, text = extract_html(decode_html(page.body, page.http_headers), page.url)
                pages[("fundus", page.url)] = {"title": title or "", "text": text or ""}
    evaldata = trafilatura_eval() if any(s == "trafilatura" for s, _ in wanted) else {}
    for (s, url), row in wanted.items():
        if s == "trafilatura":
            html = decode_html(read_page_bytes(trafilatura_page_path(evaldata[url]["file"])), {})
            title, text = extract_html(html, url)
            pages[(s, url)] = {"title": title or "", "text": text or ""}
    missing = [k for k in wanted if k not in pages]
    if missing:
        raise SystemExit(f"{len(missing)} labelled pages not found in the shared data, e.g. {missing[:3]}")
    out = [{**row, **pages[(row["set"], row["url"])], "half": split_half(row["url"])} for row in labels]
    if cache is not None:
        write_json(cache, {"key": key, "pages": out})
    return out


def frame_of(pages: list[dict]) -> pl.DataFrame:
    return pl.DataFrame({"article_id": [p["url"] for p in pages], "title": [p["title"] for p in pages],
                         "text": [p["text"] for p in pages],
                         "language": [None if p["language"] == "und" else p["language"] for p in pages]},
                        schema={"article_id": pl.String, "title": pl.String, "text": pl.String, "language": pl.String})


def cue_decisions(pages: list[dict], cues, min_score: float = 1.0) -> list[bool]:
    from pastcast.questions.selection import cue_scores

    return [s >= min_score for s in cue_scores(frame_of(pages), cues)["_score"].to_list()]


def scores(pages: list[dict], passed: list[bool]) -> dict:
    """{half: {group: {pages, outcome_reports, selected, true_positives, precision, recall}}}."""
    out: dict = {}
    for half in ("tune", "heldout"):
        out[half] = {}
        for group in GROUPS:
            rows = [(p, k) for p, k in zip(pages, passed) if p["half"] == half and (
                group == "all" or (group == "en") == (p["language"] == "en"))]
            pos = sum(p["label"] for p, _ in rows)
            sel = sum(k for _, k in rows)
            tp = sum(1 for p, k in rows if k and p["label"])
            out[half][group] = {"pages": len(rows), "outcome_reports": pos, "selected": sel, "true_positives": tp,
                                "precision": round(tp / sel, 3) if sel else None,
                                "recall": round(tp / pos, 3) if pos else None}
    return out


def by_language(pages: list[dict], passed: list[bool], half: str) -> list[list]:
    counts: dict[str, Counter] = {}
    for p, k in zip(pages, passed):
        if p["half"] != half:
            continue
        c = counts.setdefault(p["language"], Counter())
        c["pages"] += 1
        c["pos"] += p["label"]
        c["sel"] += k
        c["tp"] += bool(k and p["label"])
    rows = []
    for lang, c in sorted(counts.items(), key=lambda kv: -kv[1]["pages"]):
        if c["pages"] >= 5:
            rows.append([lang, c["pages"], c["pos"], c["sel"], c["tp"]])
    return rows


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def cost_per_article(pages: list[dict]) -> dict:
    """Prompt tokens of the screen and of the two generation passes on each page (litellm's
    offline token counter for the reference model), typical completions, and USD."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    from pastcast.llm import load_prompt
    from pastcast.questions.llm_generate import LLMGenerateConfig
    from pastcast.questions.selection import SelectConfig, screen_inputs

    config = LLMGenerateConfig()
    screen, gen, check = (load_prompt(n) for n in ("article_screen", "question_generate", "question_check"))
    candidates = [EXAMPLE_QUESTION] * config.max_questions

    def tokens(messages) -> int:
        return litellm.token_counter(model=REFERENCE_MODEL, messages=messages)

    def text_tokens(text: str) -> int:
        return litellm.token_counter(model=REFERENCE_MODEL, text=text)

    screen_in, gen_in, check_in = [], [], []
    for p in pages:
        a = {"published_at": None, "domain": "", "title": p["title"], "text": p["text"]}
        screen_in.append(tokens(screen.messages(screen_inputs(a, SelectConfig()))))
        inputs = {"article_date": "2026-03-08", "domain": "", "title": p["title"],
                  "text": p["text"][: config.text_chars], "max_questions": str(config.max_questions)}
        gen_in.append(tokens(gen.messages(inputs)))
        check_in.append(tokens(check.messages({**inputs, "candidates": candidates})))
    screen_out = text_tokens(json.dumps({"reports_outcome": False,
                                         "why": "an opinion piece about a coming election, no result yet"}))
    gen_out = text_tokens(json.dumps({"reports_outcome": True, "questions": candidates}))
    check_out = text_tokens(json.dumps({"keep": True, "best": 0, **{k: v for k, v in EXAMPLE_QUESTION.items()
                                                                    if k != "evidence"},
                                        "rewrote": ["background: removed the winner's party"], "reason": ""}))
    info = litellm.get_model_info(REFERENCE_MODEL)
    price_in, price_out = float(info["input_cost_per_token"]), float(info["output_cost_per_token"])

    def mean(xs):
        return sum(xs) / len(xs) if xs else 0.0

    s_in, g_in, c_in = mean(screen_in), mean(gen_in), mean(check_in)
    screen_usd = s_in * price_in + screen_out * price_out
    generate_usd = (g_in + c_in) * price_in + (gen_out + check_out) * price_out
    return {"reference_model": REFERENCE_MODEL, "price_per_million": [price_in * 1e6, price_out * 1e6],
            "screen": {"prompt_tokens": round(s_in, 1), "completion_tokens": screen_out,
                       "max_completion_tokens": screen.max_tokens, "usd": screen_usd},
            "generation": {"prompt_tokens": round(g_in + c_in, 1), "generate_prompt_tokens": round(g_in, 1),
                           "check_prompt_tokens": round(c_in, 1), "completion_tokens": gen_out + check_out,
                           "usd": generate_usd},
            "screen_share_of_generation": screen_usd / generate_usd if generate_usd else None}


def mode_costs(result: dict) -> dict:
    """Generation-call equivalents spent per outcome report reached, per mode: a pick costs one
    generation (G); the screen costs ``s`` G per article and passes a share ``b*r/p`` of them
    (b: the labels' base rate), so ``llm`` costs ``1/p + s/(b*r)`` G per report and ``cues``
    ``1/p`` (the score is free); ``all`` sends everything, ``1/b``. The same whether or not
    ``per_day`` caps the day."""
    b = result["outcome_reports"] / result["pages"]
    share = result["cost"]["screen_share_of_generation"]
    rows = [{"mode": "all", "precision": b, "recall": 1.0, "cost_per_report": 1 / b}]
    for name, r in result["cues"].items():
        m = r["scores"]["heldout"]["all"]
        if m["precision"]:
            rows.append({"mode": f"cues ({name}, held-out)", "precision": m["precision"], "recall": m["recall"],
                         "cost_per_report": 1 / m["precision"]})
    for q in (1.0, 0.9, 0.8, 0.7):
        rows.append({"mode": f"llm, if p = r = {q}", "precision": q, "recall": q,
                     "cost_per_report": 1 / q + share / (b * q)})
    return {"base_rate": b, "screen_share": share, "rows": rows}


def llm_screen_numbers(pages: list[dict], model: str, api_base: str | None) -> dict:
    """Precision and recall of ``--select llm`` against a real model (needs one)."""
    from pastcast.llm import LLMClient, LLMSettings, load_prompt
    from pastcast.questions.llm_generate import SCHEMAS, LLMScreen
    from pastcast.questions.selection import SelectConfig

    settings = LLMSettings.from_env(model=model, api_base=api_base)
    client = LLMClient(settings, SCHEMAS)
    try:
        screen = LLMScreen(client, load_prompt("article_screen"), SelectConfig(mode="llm"))
        rows = [{"article_id": p["url"], "published_at": None, "domain": "", "title": p["title"],
                 "text": p["text"]} for p in pages]
        verdicts = screen(rows)
    finally:
        client.close()
    failed = sum(1 for v in verdicts if not v.keep and v.reason != "not_outcome_report")
    return {"model": model, "failed_calls": failed, "usage": client.usage.as_dict(),
            "scores": scores(pages, [v.keep for v in verdicts])}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=OUT)
    parser.add_argument("--model", default=None, help="also measure the LLM screen with this model")
    parser.add_argument("--api-base", default=None)
    args = parser.parse_args(argv)
    require_data(FUNDUS_WARC, TRAFILATURA / "evaldata.json")
    from pastcast.questions.selection import CUES, CUES_V1, CUES_VERSION

    labels = load_labels()
    pages = load_pages(labels)
    halves = Counter((p["half"], p["language"] == "en") for p in pages)
    print(f"{len(pages)} labelled pages ({sum(p['label'] for p in pages)} outcome reports); "
          f"tune {halves[('tune', True)]} en + {halves[('tune', False)]} other, "
          f"held-out {halves[('heldout', True)]} en + {halves[('heldout', False)]} other")
    result = {"environment": environment(), "labels": str(LABELS.relative_to(ROOT)), "pages": len(pages),
              "outcome_reports": sum(p["label"] for p in pages), "cues": {}}
    for name, cues in (("cues/v1", CUES_V1), (CUES_VERSION, CUES)):
        if name in result["cues"]:
            continue
        passed = cue_decisions(pages, cues)
        result["cues"][name] = {"languages": sorted(cues), "scores": scores(pages, passed),
                                "heldout_by_language": by_language(pages, passed, "heldout")}
    rows = []
    for name, r in result["cues"].items():
        for half in ("tune", "heldout"):
            for group in GROUPS:
                m = r["scores"][half][group]
                rows.append([name, half, group, m["pages"], m["outcome_reports"], m["selected"], m["true_positives"],
                             _fmt(m["precision"]), _fmt(m["recall"])])
    print()
    print(table(["cues", "half", "language", "pages", "reports", "selected", "correct", "precision", "recall"], rows,
                title="cue scorer (score >= 1.0) against the labels"))
    for name, r in result["cues"].items():
        print()
        print(table(["language", "pages", "reports", "selected", "correct"], r["heldout_by_language"],
                    title=f"{name}, held-out half, languages with 5+ pages"))
    result["cost"] = cost_per_article(pages)
    c = result["cost"]
    print(f"\ncost per article ({c['reference_model']} at ${c['price_per_million'][0]:.2f}/"
          f"${c['price_per_million'][1]:.2f} per million tokens in/out; prompt tokens are means over the pages):")
    print(table(["call", "prompt tokens", "completion tokens", "USD per article"], [
        ["screen (article_screen)", f"{c['screen']['prompt_tokens']:.0f}",
         f"~{c['screen']['completion_tokens']} (max {c['screen']['max_completion_tokens']})",
         f"{c['screen']['usd']:.6f}"],
        ["generation (generate + check)", f"{c['generation']['prompt_tokens']:.0f}",
         f"~{c['generation']['completion_tokens']}", f"{c['generation']['usd']:.6f}"]]))
    print(f"one screen costs {c['screen_share_of_generation']:.1%} of one article's generation passes")
    result["per_outcome_report"] = mode_costs(result)
    print()
    print(table(["mode", "precision", "recall", "generation-call equivalents per outcome report"],
                [[r["mode"], _fmt(r["precision"]), _fmt(r["recall"]), f"{r['cost_per_report']:.2f}"]
                 for r in result["per_outcome_report"]["rows"]],
                title=f"what each mode spends per outcome report it reaches (base rate "
                      f"{result['per_outcome_report']['base_rate']:.2f}; cue numbers: held-out half; llm rows assume "
                      "the precision and recall shown, which are not measured)"))
    if args.model:
        result["llm_screen"] = llm_screen_numbers(pages, args.model, args.api_base)
        print(json.dumps(result["llm_screen"]["scores"], indent=1))
    else:
        print("LLM screen precision/recall: not measured (no model reachable offline; pass --model)")
    write_json(args.json, result)
    print(f"\nwritten: {args.json}")
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
