"""Which articles the LLM question generator spends its generation calls on.

Three modes (``SelectConfig.mode``, ``pastcast questions generate --select``):

- ``cues``: a regex score over the headline and lead: settled-outcome wording (won, elected,
  appointed, ruled, set the rate at, ...) counts for, preview and opinion wording against;
  articles below ``min_score`` are ``not_outcome_report`` drops whose detail names the score
  and the cue words found. Cue lists exist for the languages in ``CUES``; an article in another
  language is scored with the English list (so it rarely passes: its detail says so).
  Measured on labelled real pages in ``bench/selection.py``.
- ``llm``: one short yes/no request per article on its headline and lead
  (``pastcast/prompts/article_screen.toml``), in any language, through the run's own
  ``LLMClient`` (cached, budgeted, one ledger row per call); a "no" is a
  ``not_outcome_report`` drop whose detail quotes the model's reason. A day's articles are
  screened in a stable, language-neutral order (a hash of the article id), in waves, until
  ``per_day`` have passed: the rest of that day is ``day_limit`` without a request.
- ``all``: no screen; every question-source article is a candidate.

In every mode, then: at most ``per_cluster`` articles per story (dedup cluster: its copies say
the same; applied before the screen, so copies cost nothing), at most ``per_day`` per
publication day, and no topic above ``max_topic_share`` of a day's picks while others wait.
Archive pages and pages dated only by their crawl are ``background_only``. Every article left
out is a drop with its reason.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl
from pydantic import BaseModel

from pastcast.drops import Drop
from pastcast.questions.extractive import category_of
from pastcast.questions.generate import background_only
from pastcast.search.visibility import question_source

STAGE = "generate"
SELECT_MODES = ("cues", "llm", "all")
LEAD_CHARS = 600  # of the text the cue scorer reads after the headline
SCREEN_PROMPT = "article_screen"
MAX_WAVE = 1000  # articles screened at a time at most (memory stays flat on a large day)


@dataclass(frozen=True)
class Cues:
    """Settled-outcome wording (each match +1) and preview/opinion wording (each -0.5) of one
    language, as Rust-regex-compatible patterns (polars counts the matches)."""

    outcome: str
    preview: str


# Version 1, English only: the scorer as it was before it was measured (bench/selection.py keeps
# reporting it beside the current lists).
CUES_V1 = {"en": Cues(
    outcome=(r"(?i)\b(won|wins|beat|beats|defeated|elected|re-elected|appointed|named|chosen|selected|"
             r"picked|resigned|resigns|stepped down|steps down|ruled|rejected|approved|voted|awarded|"
             r"claimed|clinched|secured|announced|acquired|agreed to buy|set (?:its|the) \w+ (?:rate )?at|"
             r"raised|cut|held|rose to|fell to|came in at|closed at|settled at|will succeed|"
             r"has been (?:appointed|named|elected|chosen))\b"),
    preview=(r"(?i)\b(will face|is expected to|are expected to|could|might|may|preview|ahead of|poll shows|"
             r"predict|prediction|odds|favourite|favorite|opinion|analysis|what to know|how to watch)\b"))}



def _words(*alternatives: str) -> str:
    """One case-insensitive pattern of whole words (scripts that separate words with spaces)."""
    return r"(?i)\b(?:" + "|".join(alternatives) + r")\b"


def _cjk(*alternatives: str) -> str:
    """One pattern for scripts written without spaces (no word boundaries to anchor on)."""
    return "(?:" + "|".join(alternatives) + ")"


# Version 2 (2026-12): tuned on the tuning half of the labelled pages (bench/selection.py), never
# on the held-out half. Cue lists for English, German, Spanish, French, Polish, Portuguese,
# Italian, Dutch, Turkish, Japanese, Korean and Chinese; other languages are read with the
# English list (and rarely pass). The held-out numbers are in bench/README.md.
EN = Cues(
    outcome=_words(
        r"wins|beat|beats|defeated|edged|thrashed|routed|clinched|claimed (?:the |a |his |her |their )?(?:title|victory|win|gold|crown|seat|prize)",
        r"(?:was|were|is|has been|have been|got|gets) (?:re-?)?elected", r"re-elected|elected (?:as |to )",
        r"appointed|named (?:as |the |new |to )|sworn in|nominated|nominates|picks|tapped",
        r"resigned|resigns|resignation|stepped down|steps down|steps aside|quit|quits|exits|ousted|sacked|fired|dismissed",
        r"ruled|rules that|upheld|upholds|overturned|struck down|rejected|approved|approves|passed (?:a|the) \w* ?(?:bill|law|budget|motion)",
        r"voted (?:to|for|against)|votes to",
        r"convicted|acquitted|sentenced|jailed|found guilty|cleared of|fined",
        r"awarded|wins? (?:the )?(?:\w+ )?(?:prize|award)|won (?:the|a|an|his|her|their|its|\d)",
        r"acquired|acquires|agreed to (?:buy|acquire|sell|merge)|signed (?:a|an|the) \w* ?(?:deal|agreement|contract)|completed (?:the|its) (?:\w+ )?(?:acquisition|takeover|merger|sale)",
        r"banned|bans|imposed|scrapped|withdraws|withdrew|pulls out|pulled out",
        r"set (?:its|the) \w+ (?:rate )?at|(?:cut|raised|hiked|held|kept|left) (?:\w+ ){0,3}(?:interest )?rates?",
        r"grew|shrank|contracted|rose to|fell to|dropped to|came in at|closed at|settled at|unemployment rate|inflation (?:rate )?(?:rose|fell|was|eased|slowed|accelerated)",
        r"will succeed|has been (?:appointed|named|elected|chosen)",
        r"\d+-\d+ (?:win|victory|defeat|draw|loss)",
    ),
    preview=_words(
        r"will face|is expected to|are expected to|could|might|(?-i:may)|preview|ahead of|poll shows|polls?",
        r"predict|prediction|odds|favourite|favorite|opinion|analysis|what to know|how to watch|what we know|explainer",
        r"plans? to|proposal|proposed|considering|why|how to|live updates|best \w+",
        r"death toll|injured|arrested|charged with|accused",
    ))
DE = Cues(
    outcome=_words(
        r"gewinnt|gewann|gewonnen|siegt|siegte|besiegt|bezwang|bezwangen|bezwingt|schlägt|verliert|verlor|Sieger(?:in)?|Meister(?:in)? (?:ist|wird)|holt (?:den|die|das) (?:Titel|Sieg|Gold)",
        r"\d+:\d+ (?:\(\d+:\d+\)|gegen|bei|in|über|nach|im)|mit \d+:\d+|\d+:\d+-(?:Sieg|Erfolg|Niederlage)",
        r"(?:neu |wieder )?gewählt|wiedergewählt|ernannt|berufen|nominiert|vereidigt|soll \w+ werden|neue[rn]? (?:Chef|Chefin|Präsident|Präsidentin|Trainer|Minister|Ministerin|Vorsitzende[rn]?)",
        r"tritt zurück|trat zurück|zurückgetreten|Rücktritt|Rücktritte|entlassen|abgesetzt|gefeuert|musste \w+ gehen|gibt auf|gab \w* ?auf",
        r"Urteil|verurteilt|freigesprochen|Freispruch|entschied|entschieden|untersagt|untersagte|verboten|verbietet|Strafgeld|gesperrt",
        r"beschlossen|beschließt|beschloss|verabschiedet|billigt|billigte|gebilligt|genehmigt|zugestimmt|stimmte|stimmten|abgelehnt|festgesetzt|festgelegt",
        r"übernimmt|übernommen|Übernahme|gekauft|kauft|Einigung|einigen sich|einigten sich|geeinigt|unterzeichnet|besiegeln|besiegelt|abgeschlossen",
        r"(?:erhält|erhielt|gewinnt|gewann) (?:\w+ ){0,2}\w*(?:preis|Preis|Auszeichnung|Medaille)|verliehen|ausgezeichnet|Preisträger(?:in)?",
        r"steigt aus|stieg auf|sank auf|fiel auf|wuchs|schrumpfte|stagnierte|Statistische Bundesamt|Arbeitslosenquote|Inflationsrate|erhöht|erhöhte|angehoben|gesenkt|senkt",
        r"Absteiger|abgestiegen|steigt ab|aufgestiegen|steigt auf|verpasst|qualifiziert",
    ),
    preview=_words(
        r"könnte|könnten|dürfte|dürften|wird erwartet|erwartet|Prognose|Vorschau|vor dem|vor der",
        r"Analyse|Kommentar|Meinung|Interview|Porträt|warum|was wir wissen|Ticker|Liveblog|plant|planen|wollen",
        r"Ratgeber|Tipps|so geht|droht|drohen|Vorwurf|Vorwürfe|getötet|tot|Tote|verletzt|festgenommen|Brand|Unfall",
    ))
ES = Cues(
    outcome=_words(
        r"gana|ganó|gano|vence|venció|derrota|derrotó|goleó|golea|empata|empató|se impone|se impuso|campeón|campeona|logra|logró",
        r"elegido|elegida|electo|electa|reelegido|nombrado|nombrada|designado|designada|asume|juramentó|renuncia|renunció|dimite|dimitió|destituido|destituida|cesado",
        r"condena|condenado|condenada|absuelto|absuelta|sentencia|fallo|falló|confirma|rechaza|rechazó|aprueba|aprobó|aprobado|aprobada|prohíbe|prohibió|cita como investigado",
        r"acuerdo|firma|firmó|adquiere|adquirió|compra|compró|fusión",
        r"premio|galardonado|galardonada",
        r"creció|cayó|subió|bajó|inflación|desempleo|cerró \d{4}|deuda externa",
        r"\d+-\d+|\(\d+-\d+\)",
    ),
    preview=_words(
        r"podría|podrían|prevé|espera|esperan|se espera|previa|antes de|análisis|opinión|entrevista|cómo|por qué|qué se sabe|en vivo|en directo",
        r"plan|planea|propuesta|propone|busca|buscan|debate|muertos|fallecidos|detenido|detenida|asesinato|incendio",
    ))
FR = Cues(
    outcome=_words(
        r"remporte|a remporté|gagne|a gagné|bat|a battu|s'impose|s’impose|vainqueur|sacré|sacrée",
        r"élu|élue|réélu|réélue|nommé|nommée|désigné|désignée|démissionne|a démissionné|limogé|limogée",
        r"condamné|condamnée|acquitté|acquittée|jugement|verdict|a décidé|décide|interdit|interdite|adopté|adoptée|approuvé|approuvée|rejeté|rejetée",
        r"accord|rachète|a racheté|acquiert|fusion",
        r"prix|récompensé|récompensée|lauréat|lauréate",
        r"a progressé|ont progressé|progresse|a reculé|recule|classée?|taux de chômage|inflation",
        r"\d+-\d+",
    ),
    preview=_words(
        r"pourrait|pourraient|devrait|devraient|attendu|avant le|avant la|analyse|opinion|tribune|entretien|comment|pourquoi|en direct",
        r"propose|proposition|mort|morts|tué|tués|arrêté|incendie|sauvé de",
    ))
PL = Cues(
    outcome=_words(
        r"wygrał|wygrała|wygrali|pokonał|pokonała|pokonali|zwycięstwo|zwyciężył|zremisował|mistrz|mistrzem",
        r"wybrany|wybrana|wybrano|powołany|powołana|mianowany|mianowana|zdymisjonowany|odwołany|odwołana|rezygnacja|zrezygnował|zrezygnowała|ustąpił|dymisja|dymisję",
        r"wyrok|skazany|skazana|uniewinniony|orzekł|zdecydował|zdecydowała|decyzja|zagłosował|zagłosowali|przyjął|przyjęła|uchwalił|uchwaliła|zatwierdził|odrzucił|zgoda|zakazał",
        r"umowa|umowę|porozumienie|przejął|kupił",
        r"nagroda|nagrodę|laureat",
        r"stopa bezrobocia|inflacja|wzrósł|spadł|wyniosła|wyniósł",
    ),
    preview=_words(r"może|mogą|mógłby|przed|analiza|opinia|wywiad|dlaczego|plan|propozycja|zginął|zginęli|zatrzymany"))
PT = Cues(
    outcome=_words(
        r"vence|venceu|ganha|ganhou|derrota|derrotou|empata|empatou|campeão|campeã|conquista|conquistou",
        r"eleito|eleita|reeleito|nomeado|nomeada|renuncia|renunciou|demitido|demitida|exonerado|toma posse",
        r"condenado|condenada|absolvido|sentença|decide|decidiu|aprova|aprovou|aprovado|rejeita|rejeitou|proíbe|proibiu",
        r"acordo|compra|comprou|adquire|adquiriu|fusão|prêmio|premiado|premiada",
        r"cresceu|caiu|subiu|inflação|desemprego",
    ),
    preview=_words(r"pode|podem|poderia|deve|devem|antes de|análise|opinião|entrevista|como|por que|plano|proposta|morto|morta|mortos|preso|presa"))
IT = Cues(
    outcome=_words(
        r"vince|ha vinto|batte|ha battuto|sconfigge|pareggia|campione|campionessa",
        r"eletto|eletta|rieletto|nominato|nominata|si dimette|dimissioni|dimesso|licenziato",
        r"condannato|condannata|assolto|assolta|sentenza|decide|ha deciso|approvato|approvata|approva|respinto|vieta|vietato",
        r"accordo|acquisisce|ha acquisito|compra|fusione|premio|premiato|premiata",
        r"è cresciuto|è calato|inflazione|disoccupazione",
    ),
    preview=_words(r"potrebbe|potrebbero|dovrebbe|prima del|prima della|analisi|opinione|intervista|come|perché|piano|proposta|morto|morti|arrestato"))
NL = Cues(
    outcome=_words(
        r"wint|won|verslaat|versloeg|kampioen|gekozen|herkozen|benoemd|wordt minister|ruilt|treedt af|afgetreden|ontslagen",
        r"veroordeeld|vrijgesproken|vonnis|besluit|besloot|goedgekeurd|keurt goed|verboden|verbiedt|akkoord|overname|neemt over|prijs",
        r"groeide|daalde|steeg|inflatie|werkloosheid",
    ),
    preview=_words(r"kan|kunnen|zou|zouden|voor de|analyse|opinie|interview|waarom|hoe|plan|voorstel|dood|doden|gearresteerd"))
JA = Cues(outcome=_cjk("当選", "選出", "就任", "任命", "解任", "辞任", "辞職", "退任", "判決", "有罪", "無罪", "可決", "成立", "決定", "承認", "禁止", "優勝", "勝利", "受賞", "合意", "買収", "宣言"),
          preview=_cjk("可能性", "見通し", "予想", "予測", "検討", "方針", "解説", "インタビュー", "死亡", "逮捕", "地震"))
KO = Cues(outcome=_cjk("당선", "선출", "임명", "해임", "사퇴", "판결", "선고", "가결", "통과", "우승", "승리", "수상", "합의", "인수", "제명", "확정"),
          preview=_cjk("전망", "예상", "가능성", "검토", "추진", "인터뷰", "유세", "사망", "체포"))
ZH = Cues(outcome=_cjk("当选", "任命", "辞职", "判决", "通过", "夺冠", "获胜", "获奖", "签署", "收购", "宣布"),
          preview=_cjk("预计", "可能", "将", "分析", "评论", "专访", "死亡", "逮捕"))
TR = Cues(outcome=_words(r"kazandı|seçildi|atandı|istifa etti|görevden alındı|mahkum edildi|karar verdi|onaylandı|kabul edildi|belirlendi|şampiyon|yendi|mağlup etti|anlaşma imzaladı|satın aldı"),
          preview=_words(r"olabilir|bekleniyor|analiz|yorum|röportaj|öldü|tutuklandı|yangın|son durum"))
CUES: dict[str, Cues] = {"en": EN, "de": DE, "es": ES, "fr": FR, "pl": PL, "pt": PT, "it": IT, "nl": NL,
                         "tr": TR, "ja": JA, "ko": KO, "zh": ZH}
CUES_VERSION = "cues/v2"
FALLBACK = "en"  # the list an article in a language without its own is scored with


class ArticleScreen(BaseModel):
    """The reply of ``article_screen.toml``."""

    reports_outcome: bool
    why: str = ""


@dataclass(frozen=True)
class SelectConfig:
    mode: str = "cues"  # cues, llm or all (see the module doc)
    min_score: float = 1.0  # cues: the lowest score that passes
    per_day: int | None = 100  # articles sent to generation per publication day
    per_cluster: int = 1  # per story (dedup cluster): its copies say the same
    max_topic_share: float = 0.5  # of a day's picks, while other topics have candidates
    screen_chars: int = 800  # llm: of the text sent after the headline

    def __post_init__(self):
        if self.mode not in SELECT_MODES:
            raise ValueError(f"unknown selection mode {self.mode!r}; use one of {', '.join(SELECT_MODES)}")


@dataclass(frozen=True)
class Verdict:
    """A screen's answer for one article: kept, or the drop reason and why."""

    keep: bool
    reason: str = ""  # not_outcome_report, or why no answer: llm_error, invalid_json, budget_exhausted
    detail: str = ""


Screen = Callable[[Sequence[dict]], list[Verdict]]  # rows (article dicts) -> one verdict each


def _lead(cues_text_chars: int = LEAD_CHARS) -> pl.Expr:
    return pl.concat_str(pl.col("title").fill_null(""), pl.lit(". "),
                         pl.col("text").fill_null("").str.slice(0, cues_text_chars))


def _cue_language(columns: Sequence[str], cues: dict[str, Cues]) -> pl.Expr:
    if "language" not in columns:
        return pl.lit(FALLBACK)
    lang = pl.col("language").fill_null(FALLBACK)
    return pl.when(lang.is_in(list(cues))).then(lang).otherwise(pl.lit(FALLBACK))


def _per_language(columns: Sequence[str], cues: dict[str, Cues], make: Callable[[Cues], pl.Expr]) -> pl.Expr:
    lang = _cue_language(columns, cues)
    names = sorted(cues)
    expr = pl.when(lang == names[0]).then(make(cues[names[0]]))
    for name in names[1:]:
        expr = expr.when(lang == name).then(make(cues[name]))
    return expr.otherwise(make(cues[FALLBACK]))


def outcome_score(columns: Sequence[str] = ("title", "text", "language"),
                  cues: dict[str, Cues] | None = None) -> pl.Expr:
    """How much the headline and lead read like a settled outcome: outcome cues minus half the
    preview cues, in the article's language's list (else English)."""
    cues = cues or CUES
    lead = _lead()
    return _per_language(columns, cues, lambda c: (lead.str.count_matches(c.outcome)
                                                   - 0.5 * lead.str.count_matches(c.preview))).cast(pl.Float64)


def cue_scores(articles: pl.DataFrame, cues: dict[str, Cues] | None = None) -> pl.DataFrame:
    """``articles`` with ``_score``, the cue words found (``_for``, ``_against``) and the cue
    list used (``_cues``): what a ``not_outcome_report`` drop's detail is made of."""
    cues = cues or CUES
    lead = _lead()
    cols = articles.columns
    return articles.with_columns(
        outcome_score(cols, cues).alias("_score"),
        _per_language(cols, cues, lambda c: lead.str.extract_all(c.outcome)).alias("_for"),
        _per_language(cols, cues, lambda c: lead.str.extract_all(c.preview)).alias("_against"),
        _cue_language(cols, cues).alias("_cues"))


def cue_detail(score: float, min_score: float, found: list[str] | None, against: list[str] | None,
               cue_list: str, language: str | None) -> str:
    """``outcome score 0.5 < 1.0; outcome cues: won; preview cues: could`` (and which cue list
    read an article in a language without its own)."""
    def words(xs):
        return ", ".join(dict.fromkeys(x.lower() for x in xs or [])) or "none"

    detail = f"outcome score {score:.1f} < {min_score}; outcome cues: {words(found)}; preview cues: {words(against)}"
    if language and language != cue_list:
        detail += f" (no cue list for language {language!r}: the {cue_list!r} list read it)"
    return detail


def _neutral_rank(article_id: str) -> str:
    return hashlib.blake2b(article_id.encode("utf-8"), digest_size=8).hexdigest()


def select_articles(articles: pl.DataFrame, config: SelectConfig = SelectConfig(),
                    screen: Screen | None = None, wave: int = 16) -> tuple[pl.DataFrame, list[Drop]]:
    """Articles worth generation calls, best first per day; the rest as drops.

    ``mode == "llm"`` needs ``screen`` (``LLMScreen`` in ``pastcast.questions.llm_generate``),
    called with ``max(wave, articles still needed)`` articles at a time (at most ``MAX_WAVE``)."""
    if config.mode == "llm" and screen is None:
        raise ValueError("selection mode 'llm' needs a screen (an LLM client); use generate_llm")
    drops: list[Drop] = []
    # archive pages and pages dated only by their crawl (generate_questions leaves them out
    # before; this keeps a direct caller from using them): background only
    source = articles.select(pl.col("published_at").is_not_null() & question_source(articles.columns)).to_series()
    drops += background_only(articles.filter(~source))
    scored = cue_scores(articles.filter(source)).with_columns(pl.col("published_at").dt.date().alias("_day"))
    if config.mode == "cues":
        order = scored.sort("_day", "_score", "published_at", "article_id", descending=[False, True, False, False])
    else:  # language-neutral: the cue score reads a few languages only
        order = (scored.with_columns(pl.col("article_id").map_elements(_neutral_rank, return_dtype=pl.String)
                                     .alias("_rank"))
                 .sort("_day", "_rank", "article_id"))
    keep_ids: list[str] = []
    per_cluster: dict[str, int] = defaultdict(int)
    first_of: dict[str, str] = {}
    for (day,), part in order.group_by(["_day"], maintain_order=True):
        candidates: list[dict] = []
        for a in part.iter_rows(named=True):
            cluster = a.get("dup_cluster") or a["article_id"]
            if per_cluster[cluster] >= config.per_cluster:
                drops.append(Drop(a["article_id"], "article", STAGE, "cluster_limit",
                                  f"story {cluster}: {first_of[cluster]} went first"))
                continue
            per_cluster[cluster] += 1
            first_of.setdefault(cluster, a["article_id"])
            candidates.append(a)
        limit = config.per_day if config.per_day is not None else len(candidates)
        waiting = _screened(candidates, config, screen, limit, wave, day, drops)
        picks: list[dict] = []
        by_topic: dict[str, int] = defaultdict(int)
        deferred: list[dict] = []
        share_cap = max(1, int(config.max_topic_share * limit))
        for a in waiting:  # best first; a topic past its share waits for the others
            topic = category_of(f"{a['title']} {(a['text'] or '')[:300]}")
            if len(picks) < limit and by_topic[topic] < share_cap:
                picks.append(a)
                by_topic[topic] += 1
            else:
                deferred.append(a)
        for a in deferred:  # fill what the other topics left
            if len(picks) < limit:
                picks.append(a)
            else:
                drops.append(Drop(a["article_id"], "article", STAGE, "day_limit",
                                  f"{day}: {limit} articles already chosen"))
        keep_ids += [a["article_id"] for a in picks]
    selected = articles.filter(pl.col("article_id").is_in(keep_ids))
    return selected, drops


def _screened(candidates: list[dict], config: SelectConfig, screen: Screen | None, limit: int, wave: int,
              day, drops: list[Drop]) -> list[dict]:
    """The candidates that pass the mode's screen, in order; the others become drops."""
    if config.mode == "all":
        return candidates
    if config.mode == "cues":
        passed = []
        for a in candidates:
            if a["_score"] >= config.min_score:
                passed.append(a)
            else:
                drops.append(Drop(a["article_id"], "article", STAGE, "not_outcome_report",
                                  cue_detail(a["_score"], config.min_score, a["_for"], a["_against"],
                                             a["_cues"], a.get("language"))))
        return passed
    passed, i = [], 0
    while i < len(candidates) and len(passed) < limit:  # waves until the day's quota is met
        batch = candidates[i: i + max(wave, min(limit - len(passed), MAX_WAVE))]
        i += len(batch)
        for a, verdict in zip(batch, screen(batch), strict=True):
            if verdict.keep:
                passed.append(a)
            else:
                drops.append(Drop(a["article_id"], "article", STAGE, verdict.reason or "not_outcome_report",
                                  verdict.detail[:500]))
    for a in candidates[i:]:
        drops.append(Drop(a["article_id"], "article", STAGE, "day_limit",
                          f"{day}: {limit} articles already chosen; not screened"))
    return passed


def screen_inputs(a: dict, config: SelectConfig) -> dict:
    """The ``article_screen`` prompt's inputs for one article: headline and lead only."""
    published = a.get("published_at")
    text = re.sub(r"\s+", " ", a.get("text") or "").strip()
    return {"article_date": published.date().isoformat() if published is not None else "",
            "domain": a.get("domain") or "", "title": a.get("title") or "",
            "lead": text[: config.screen_chars]}
