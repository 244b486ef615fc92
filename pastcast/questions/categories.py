"""A question's category: from its market's own tags, its data source, then its text.

One vocabulary (``VOCABULARY``, in tie-break order) for every generator: market questions,
the extractive and LLM generators, peer imports. What decides, in order:

1. The market's tags (``tags=``: Manifold ``groupSlugs``, Polymarket tag labels and category,
   Metaculus category and tag names, Kalshi's category), each mapped to the classes its words
   name (``TAG_WORDS``: "Geopolitics – Armed Conflict" -> conflict, "Economy & Business" ->
   economy or business, "nba" -> sports). Tags that name no class ("Open", "Scott Alexander
   2022", "Tournament -- Round 6") are ignored. When the tags name several classes, the text
   rules choose among those classes only (so the tags win over the text), else the class most
   tags name, else the first tag's.
2. The ForecastBench data source (``source=``) where it decides (``SOURCES``): ``acled`` is
   conflict, ``fred`` and ``yfinance`` economy, ``dbnomics`` weather series climate and the
   rest economy. ``wikipedia`` (vaccines, chess ratings, swimming records) and the market
   sources fall through to the text.
3. Text rules (``KEYWORDS``): weighted keyword phrases per class, matched on whole words of the
   project's normalised text (``pastcast.text.normalise.tokens``: case and accents folded in
   every script, Han and Thai characters one token each), so "OpenAI" never fires "open",
   "corporate" never fires "rate", "start" never fires "art". A phrase's word may end in ``*``
   (a prefix: "elect*" is election, elected, electoral). The class with the highest score wins
   (strong phrases 2, weak ones 1), ties in ``VOCABULARY`` order; no phrase at all is
   ``other``. A few phrases in other languages (Russian, Spanish, French, German, Chinese,
   Japanese, Korean, Hindi, Arabic; unmeasured) name the commonest classes; text in a script with no phrases falls back to
   ``other`` rather than to an accidental class.

Measured against 444 hand-labelled real questions (``bench/labels/categories.jsonl``) by
``bench/categories.py``: tune and held-out halves, beside the keyword rule this replaced.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

from pastcast.text.normalise import tokens

# The classes and what each covers, in tie-break order. Names used before (economy, politics,
# sports, culture, business, law, other) keep their meaning; snapshots and reports group by them.
VOCABULARY: dict[str, str] = {
    "crypto": "cryptocurrencies, tokens, blockchains, crypto companies and their prices",
    "health": "diseases, pandemics, medicine, drugs and their approval, public health, longevity",
    "climate": "climate, weather, temperature records, storms, natural disasters, environment, emissions",
    "sports": "sports, athletes, leagues, the Olympics, chess, motor racing, esports",
    "conflict": "wars, armed clashes, invasions, military forces and weapons, nuclear weapons, terrorism",
    "law": "courts, trials, charges, verdicts, lawsuits",
    "science": "research, space exploration, astronomy, physics, biology, de-extinction",
    "technology": "AI, software, the internet, consumer devices, robots, electric vehicles, space industry",
    "culture": "films, TV, music, books, games, awards in the arts, celebrities, media",
    "business": "companies, executives, deals, the fortunes of the rich",
    "economy": "macroeconomic figures, central banks and rates, financial markets and prices, trade, "
               "public finance, demographics",
    "politics": "elections, governments, leaders, legislation, diplomacy, sanctions, alliances",
    "other": "anything else: questions about a platform itself, personal questions",
}
CATEGORIES = tuple(VOCABULARY)
OTHER = "other"

STRONG, WEAK = 2, 1

# Text rules: class -> (strong phrases, weak phrases). Written plainly; normalised like the text.
KEYWORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "crypto": ((
        "bitcoin*", "btc", "ethereum", "eth", "crypto", "cryptos", "cryptocurrenc*", "solana", "bnb", "dogecoin", "memecoin*",
        "meme coin*", "stablecoin*", "blockchain*", "nft", "nfts", "defi", "satoshi", "coinbase",
        "binance", "altcoin*", "eigenlayer", "popcat", "xrp", "биткоин*", "криптовалют*", "比 特 币",
        "加 密 货 币", "ビ ッ ト コ イ ン",
    ), ("token", "tokens", "pepe", "etf", "etfs", "airdrop*")),
    "health": ((
        "covid*", "coronavirus*", "sars cov 2", "pandemic*", "epidemic*", "vaccin*", "disease*",
        "cancer*", "tumor*", "tumour*", "fda", "measles", "malaria", "tuberculosis", "hiv",
        "outbreak*", "bird flu", "h5n1", "influenza", "obesity", "semaglutide", "glp 1", "ozempic",
        "lifespan", "longevity", "aging", "ageing", "life expectancy", "nhs", "public health",
        "infection*", "mental health", "hospital*", "clinical", "medical", "medicine*", "drug",
        "drugs", "mpox", "monkeypox", "cdc", "surgery", "mortality", "embryo*", "ivf", "health",
        "centenarian", "вакцин*", "пандеми*", "vacuna*", "pandemia", "impfstoff*", "疫 苗", "疫 情",
        "ワ ク チ ン",
    ), ("virus", "ema", "patients", "patient", "cure", "deaths", "organ", "organs", "transplant*",
        "therapy", "psycholog*")),
    "climate": ((
        "climate*", "global warming", "temperature*", "hottest", "weather", "hurricane*",
        "named storm*", "tornado*", "typhoon*", "cyclone*", "flood*", "drought*", "wildfire*",
        "heatwave*", "heat wave*", "rainfall", "earthquake*", "tsunami*", "volcan*",
        "natural disaster*", "co2", "carbon dioxide", "emission*", "methane", "geoengineering",
        "renewable*", "deforestation", "fossil fuel*", "sea level*", "el nino", "la nina", "sea ice",
        "air quality", "pollution", "carbon tax*", "климат*", "clima", "klima*", "climatique",
        "气 候", "気 候",
    ), ("storm", "storms", "snow*", "carbon", "solar", "environment*", "on record", "forest", "forests")),
    "sports": ((
        "olympic*", "world cup", "fifa", "uefa", "premier league", "champions league", "nba", "nfl",
        "mlb", "nhl", "nascar", "formula 1", "formula one", "f1", "grand prix", "grand slam",
        "wimbledon", "french open", "us open", "australian open", "tennis", "golf", "pga",
        "boxing", "ufc", "mma", "soccer", "football", "baseball", "basketball", "hockey",
        "cricket", "rugby", "marathon", "super bowl", "mvp", "playoff*", "world series",
        "stanley cup", "head coach", "quarterback", "perfect game", "gold medal*", "medal*",
        "chess", "fide", "elo", "grandmaster*", "world record*", "swimming", "long course",
        "poker", "esports", "e sports", "three pointers", "nfc", "afc", "conference finals",
        "drivers championship", "laptime", "lap time", "nurburgring", "super league", "athlete*",
        "чемпионат*", "футбол*", "олимпи*", "futbol", "copa del mundo", "coupe du monde",
        "weltmeister*", "世 界 杯", "奥 运", "五 輪", "サ ッ カ ー",
    ), ("tournament*", "championship*", "champion", "league", "coach", "hall of fame", "team",
        "season", "race", "racing", "driver", "drivers", "transfer", "match", "games", "messi", "ronaldo",
        "nadal", "djokovic", "lebron")),
    "conflict": ((
        "war", "wars", "warfare", "invade*", "invasion*", "military", "militar*", "troops",
        "army", "armies", "armed forces", "ceasefire*", "cease fire", "conflict", "battle*", "missile*",
        "airstrike*", "air strike*", "bomb", "bombs", "bombing*", "bomber*", "nuclear weapon*", "nuclear use", "nuclear exchange",
        "nuke", "nukes", "terror*", "insurgen*", "rebel*", "rapid support forces", "hezbollah",
        "hamas", "houthi*", "taliban", "mobiliz*", "mobilis*", "combat", "aircraft carrier*",
        "navy", "naval", "explosions", "remote violence", "annex*", "occupation", "clashes",
        "clash", "uranium", "forces", "fighting", "strait of hormuz", "blockade*", "sabotage", "drone strike*", "killed in", "война", "войн*", "guerra",
        "krieg*", "guerre", "战 争", "戦 争", "入 侵", "侵 攻", "전쟁*", "حرب", "युद्ध",
    ), ("attack*", "strike", "strikes", "defense", "defence", "capture", "captured", "fatalit*",
        "displaced", "refugee*", "violence", "security", "weapon*", "enrichment", "conflicts",
        "satellite", "cyberattack*", "deploy*", "territory", "territorial", "ukraine", "gaza")),
    "law": ((
        "court", "courts", "supreme court", "trial*", "lawsuit*", "sue", "sued", "suing", "judge*", "jury",
        "verdict*", "convict*", "found guilty", "guilty", "charged with", "indict*", "sentence*",
        "sentenced", "prison", "jail*", "acquit*", "prosecut*", "felony", "felonies", "criminal*",
        "суд", "tribunal",
    ), ("charged", "ruling", "ruled", "crime", "crimes", "fraud", "settle", "legal", "illegal", "law")),
    "science": ((
        "scientist*", "physics", "false vacuum", "exoplanet*", "lunar", "on the moon", "nasa",
        "spacecraft", "astronaut*", "asteroid*", "telescope*", "galaxy", "dark matter", "ligo",
        "gravitational wave*", "genome*", "dna", "synthetic cell*", "ribosome*", "mirror biology",
        "mirror organism*", "mirror reagent*", "species", "extinct*", "extinction", "cryptid*",
        "alien", "aliens", "life on mars", "biology", "chemistry", "neurogenesis", "archaeolog*", "fossil", "fossils",
        "allergeniz*", "habitable", "europa", "voyager", "research*", "science*", "biosecurity",
        "научн*", "ciencia", "科 学",
    ), ("planet*", "mars", "moon", "space", "gene", "genetic*", "cell", "cells", "synthetic",
        "fusion", "discovery", "math", "maths", "mathematic*", "study", "studies", "lab", "laboratory")),
    "technology": ((
        "ai", "a i", "artificial intelligence", "agi", "machine learning", "deep learning", "llm*",
        "gpt*", "chatgpt", "openai", "anthropic", "ai model*", "xai", "gemini", "iphone*",
        "android", "software", "internet", "browser*", "chrome", "robot*", "robotaxi*",
        "self driving", "driverless", "electric vehicle*", "ev", "evs", "deepfake*", "chip", "chips", "chipmaker*",
        "semiconductor*", "computing", "compute", "quantum comput*", "5g", "o ran", "open ran",
        "neuralink", "starship", "spacex", "threads", "activitypub", "twitter", "tiktok", "coding",
        "programming", "algorithm*", "sora", "hacker*", "tech", "technolog*",
        "人 工 智 能", "искусственн* интеллект*", "inteligencia artificial", "intelligence artificielle",
        "künstliche intelligenz",
    ), ("google", "apple", "microsoft", "meta", "nvidia", "app", "apps", "electric", "cars",
        "autonomous", "huawei", "satellite*", "rocket*", "social media", "digital", "code",
        "model", "models", "y2k38", "export controls", "cyber*", "orbit*", "launches", "outer space",
        "tesla", "amazon")),
    "culture": ((
        "film*", "movie*", "box office", "grossing", "oscars", "academy award*", "best picture",
        "best actress", "best actor", "screenplay", "emmy*", "grammy*", "golden globe*", "album*",
        "song*", "singer*", "music*", "spotify", "billboard", "hot 100", "concert*",
        "halftime show", "eurovision", "book", "books", "novels", "novelist*", "manga", "anime", "one piece",
        "tv show*", "netflix", "video game*", "gta", "half life", "minecraft", "nintendo",
        "playstation", "xbox", "james bond", "celebrit*", "youtube*", "subscribers", "mrbeast",
        "taylor swift", "person of the year", "museum*", "artist*", "star wars", "star trek",
        "lord of the rings", "marvel", "disney", "broadcasting", "gb news", "memoir", "festival*",
        "bronzes", "actor", "actress", "kardashian", "game of thrones", "фильм*", "музык*",
        "película*", "pelicula*", "电 影", "映 画",
    ), ("art", "arts", "tv", "series", "seasons", "game", "games", "valve", "bond", "prize",
        "author", "published", "publish", "novel", "searched", "royal", "prince", "girlfriend", "views",
        "tour", "episode*", "chapters")),
    "business": ((
        "ceo", "chief executive*", "companies", "corporation*", "acquisition*", "acquire*",
        "merger*", "ipo", "board of directors", "layoff*", "earnings", "richest", "billionaire*",
        "bankrupt*", "startup*", "for profit", "nonprofit board", "oil field", "mines", "mining",
        "market share",
    ), ("company", "board", "worth", "drill", "revenue", "profit*", "nonprofit", "brand", "brands",
        "manufacturing", "manufacturer*", "factory", "factories")),
    "economy": ((
        "inflation", "gdp", "recession*", "interest rate*", "fed", "federal reserve", "central bank*",
        "rate cut*", "rate hike*", "unemployment", "jobless", "jobs report", "payroll*", "cpi",
        "consumer price*", "stock market*", "s and p", "s and p 500", "nasdaq", "dow jones",
        "treasury", "treasuries", "bond yield*", "bonds", "mortgage*", "exchange rate*", "yuan",
        "yen", "currenc*", "crude oil", "brent", "wti", "tariff*", "trade deficit", "house prices",
        "home price*", "housing", "case shiller", "economy", "economies", "economic*", "fiscal",
        "customs duties", "wage", "wages", "ubi", "universal basic income", "basic income", "dollariz*",
        "bank account*", "fertility rate*", "birth rate*", "population", "demographic*",
        "close price", "closing price", "market close", "close at", "closes at", "close above",
        "close below", "market cap*", "gold price*",
        "price of gold", "oil price*", "natural gas", "default on", "defaults on", "debt ceiling",
        "tax filings", "retail sales", "building permits", "инфляц*", "экономик*", "inflacion",
        "economia", "wirtschaft*", "通 胀", "经 济", "景 気",
    ), ("price", "prices", "priced", "index", "stock", "stocks", "shares", "oil", "gold", "euro",
        "dollar", "dollars", "tax", "taxes", "budget*", "deficit*", "debt", "default", "spending",
        "revenue", "income", "bank", "banks", "banking", "exports", "imports", "trade", "export",
        "import", "markets", "finance", "financial", "investment*", "yield", "growth", "sales")),
    "politics": ((
        "election*", "elect", "elected", "electoral", "re elect*", "referend*", "parliament*",
        "presidential", "prime minister*", "minister*", "governor*", "senate", "senator*",
        "congress*", "house of representatives", "legislator*", "democrat*", "republican*",
        "mayor*", "mayoral", "ballot*", "vote", "votes", "voting", "voter*", "impeach*",
        "diplomatic", "diplomacy", "ambassador*", "normaliz*", "normalis*", "brexit", "biden",
        "supreme leader", "abdicat*", "throne", "monarch*", "third term", "approval rating*",
        "cabinet", "chancellor", "head of state", "white house", "regime change", "visa*",
        "immigration", "asylum", "political", "politician*", "nominee", "party", "parties",
        "nato", "sanction*", "snapback", "peace prize", "coalition government", "dutch government",
        "выбор*", "президент*", "elecci*", "presidente", "wahl*", "prasident*", "选 举", "总 统",
        "選 挙", "선거*", "대통령*", "चुनाव*", "انتخابات",
    ), ("president", "presidency", "government*", "regime", "treaty", "coalition", "trump",
        "harris", "vance", "newsom", "eu", "european union", "leader*", "leadership", "protest*",
        "legislation", "policy", "federal", "nomination", "independence", "border", "ban", "banned",
        "king", "queen", "unesco", "united nations", "relations", "ties", "summit",
        "neutrality", "race", "freedom", "agree", "agreement*")),
    "other": (("manifold", "metaculus"), ()),
}

# Tags: class -> words of tag names (slugs are split on "-" like any text). A tag may name
# several classes ("Science & Technology", "Economy & Business", "geopolitics").
TAG_WORDS: dict[str, tuple[str, ...]] = {
    "crypto": ("crypto*", "bitcoin", "ethereum", "blockchain", "nft*", "defi", "memecoin*", "solana"),
    "health": ("health*", "covid*", "coronavirus", "pandemic*", "medicine", "medical", "disease*",
               "infectious", "vaccine*", "biotech*", "drugs", "longevity"),
    "climate": ("climate", "weather", "environment*", "hurricane*", "temperature", "natural disasters",
                "energy transition"),
    "sports": ("sport*", "nba", "nfl", "mlb", "nhl", "soccer", "football", "f1", "formula 1",
               "formula one", "tennis", "chess", "olympic*", "golf", "cricket", "boxing", "ufc", "mma",
               "baseball", "basketball", "hockey", "esports", "premier league", "world cup", "nascar",
               "racing"),
    "conflict": ("conflict*", "war", "wars", "military", "security", "defense", "defence", "terror*",
                 "geopolitics", "nuclear", "israel hamas", "russia ukraine", "ukraine russia"),
    "law": ("law", "legal", "court", "courts", "trials", "crime", "crimes", "justice"),
    "science": ("science*", "physics", "biology", "biological", "astronomy", "space", "math", "mathematics",
                "natural sciences", "chemistry"),
    "technology": ("technolog*", "tech", "ai", "artificial intelligence", "computing", "computer*",
                   "internet", "software", "openai", "space", "automotive", "robotics", "elon musk"),
    "culture": ("entertainment", "culture", "pop culture", "movies", "movie", "film*", "music", "tv",
                "television", "celebrit*", "books", "video games", "gaming", "awards", "oscars", "anime",
                "manga", "one piece", "arts", "media", "youtube"),
    "business": ("business", "companies", "company", "corporate", "industry", "startups", "tesla"),
    "economy": ("econom*", "finance", "financial*", "fed", "fed rates", "inflation", "stocks", "stock*",
                "markets", "macro", "macroeconomic*", "interest rates", "commodities", "housing", "jobs"),
    "politics": ("politic*", "election*", "referenda", "government", "policy", "congress", "trump",
                 "biden", "leader entry exit", "geopolitics", "foreign policy", "diplomacy", "us policy",
                 "immigration", "world affairs"),
    "other": ("manifold", "metaculus itself", "personal", "fun", "meta forecasting"),
}

# ForecastBench data sources: (the classes it may be, the class when the text picks none of them)
SOURCES: dict[str, tuple[tuple[str, ...], str]] = {
    "acled": (("conflict",), "conflict"),
    "fred": (("economy",), "economy"),
    "yfinance": (("economy",), "economy"),
    "dbnomics": (("climate", "economy"), "economy"),
}


def _phrase_pattern(phrase: str) -> str:
    """A normalised phrase as a regex over normalised text: whole tokens, ``*`` a prefix."""
    parts = []
    for raw in phrase.split():
        prefix = raw.endswith("*")
        toks = tokens(raw.rstrip("*"))
        if not toks:
            continue
        parts.append(" ".join(re.escape(t) for t in toks) + (r"\S*" if prefix else ""))
    return " ".join(parts)


def _alternation(phrases: Iterable[str]) -> re.Pattern | None:
    body = sorted({p for p in map(_phrase_pattern, phrases) if p}, key=len, reverse=True)
    return re.compile(r"(?<!\S)(?:" + "|".join(body) + r")(?!\S)") if body else None


class _Phrases:
    """One class's phrases of one weight: the regex, and the words a match can start with (a
    text none of whose words is one of them is not searched: the same answer, sooner)."""

    def __init__(self, phrases: Iterable[str]) -> None:
        phrases = tuple(phrases)
        self.pattern = _alternation(phrases)
        firsts = [(w.endswith("*"), (tokens(w.rstrip("*")) or [""])[0]) for w in (p.split()[0] for p in phrases)]
        self.exact = frozenset(t for prefix, t in firsts if t and not prefix)
        self.prefixes = tuple(t for prefix, t in firsts if t and prefix)

    def hits(self, norm: str, words: set[str]) -> int:
        """How many distinct matches the phrases have in the normalised text ``norm``."""
        if self.pattern is None or not (self.exact & words or any(w.startswith(self.prefixes) for w in words)):
            return 0
        return len({m.group(0) for m in self.pattern.finditer(norm)})


_TEXT = {name: (_Phrases(strong), _Phrases(weak)) for name, (strong, weak) in KEYWORDS.items()}
_TAGS = {name: _alternation(words) for name, words in TAG_WORDS.items()}


def _normal(text: str | None) -> str:
    return " ".join(tokens(text)) if text else ""


def text_scores(text: str | None) -> Counter:
    """Each class's score from the text rules: 2 for each distinct match of a strong phrase,
    1 for a weak one."""
    norm = _normal(text)
    scores: Counter = Counter()
    if not norm:
        return scores
    words = set(norm.split())
    for name, (strong, weak) in _TEXT.items():
        score = STRONG * strong.hits(norm, words) + WEAK * weak.hits(norm, words)
        if score:
            scores[name] = score
    return scores


@lru_cache(maxsize=4096)
def tag_classes(tag: str) -> tuple[str, ...]:
    """The classes a tag's words name, in ``VOCABULARY`` order (none for "Open", "Featured")."""
    norm = _normal(tag)
    return tuple(name for name, pattern in _TAGS.items() if pattern is not None and pattern.search(norm))


_ORDER = {name: i for i, name in enumerate(VOCABULARY)}


def _best(scores: Counter, among: Iterable[str]) -> str | None:
    """The class of ``among`` with the highest score (ties in ``VOCABULARY`` order); None when
    none scores."""
    scored = [(scores.get(c, 0), -_ORDER[c], c) for c in among if scores.get(c, 0) > 0]
    return max(scored)[2] if scored else None


def category_of(text: str | None, *, tags: Iterable[str] | None = None, source: str | None = None) -> str:
    """The category of a question (its title, or title and subject) in ``VOCABULARY``.

    ``tags``: its market's own tags or category (any platform's words; unknown ones ignored);
    ``source``: where it came from, e.g. a ForecastBench data source (``acled``, ``fred``, ...;
    see ``SOURCES``) or a platform name (which decides nothing). Tags first, then the source,
    then the text rules; ``other`` when nothing names a class."""
    scores = text_scores(text)
    if isinstance(tags, str):
        tags = [tags]
    named = [c for tag in (tags or ()) if isinstance(tag, str) for c in tag_classes(tag)]
    if named:
        chosen = _best(scores, dict.fromkeys(named))
        if chosen:
            return chosen
        votes = Counter(named)
        top = max(votes.values())
        return next(c for c in named if votes[c] == top)  # the first tag's among the most named
    if source and source.lower() in SOURCES:
        among, default = SOURCES[source.lower()]
        return _best(scores, among) or default
    return _best(scores, VOCABULARY) or OTHER


def market_source(market_id: str | None) -> str | None:
    """The source a market id names: the data source of a ForecastBench question
    (``forecastbench:acled:...`` -> ``acled``), else the platform (``manifold:abc`` -> ``manifold``)."""
    if not market_id:
        return None
    parts = market_id.split(":")
    return parts[1] if parts[0] == "forecastbench" and len(parts) > 2 else parts[0]


def market_category(market: Mapping) -> str:
    """``category_of`` a ``markets`` row: its question, tags (absent in tables written before
    the column) and source."""
    return category_of(market.get("question"), tags=market.get("tags"),
                       source=market_source(market.get("market_id")))


# The rule this module replaced (substring regexes, first match wins: "OpenAI" was sports, "corporate"
# economy), kept verbatim so bench/categories.py and its test measure the two side by side.
V1_RULES = (
    ("economy", re.compile(r"rate|inflation|price|gdp|unemployment|index|bank", re.I)),
    ("politics", re.compile(r"election|vote|leadership|party|minister|mayor|referendum|"
                            r"primary|ballot|governor|president|council", re.I)),
    ("sports", re.compile(r"cup|final|league|championship|match|race|marathon|tournament|"
                          r"trophy|derby|grand prix|coach|manager|open", re.I)),
    ("culture", re.compile(r"prize|award|festival|film|book|music|art", re.I)),
    ("business", re.compile(r"chief|ceo|executive|board|company|director|chair", re.I)),
)
V1_VOCABULARY = ("economy", "politics", "sports", "culture", "business", "other")


def category_v1(text: str) -> str:
    """The replaced keyword rule's category of ``text`` (for measurement only)."""
    return next((name for name, pattern in V1_RULES if pattern.search(text or "")), OTHER)
