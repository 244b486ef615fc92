"""The offline question generator: outcome reports in articles become forecasting questions.

An article whose lead reports a resolved outcome ("Ana Ruiz won the Kestrel Bay mayoral
election", "The board appointed Mara Lind as its chief executive", "The central bank set its
benchmark rate at 3.75%") yields a question asked as if the outcome were unknown, whose answer
is the reported outcome, resolving on the article's publication date and opening a horizon
earlier. Background comes only from articles published by the end of the day the question
opens (what an agent can see on its first day) and never mentions the answer. Rules are
precise on purpose: an article that matches no rule yields no question (counted as a drop
``no_outcome_report``), rather than a vague one. Measured by ``bench/extractive_questions.py``.

What a rule reads. The lead: the first ``lead_sentences`` sentences of the body, after the
lines that are not sentences (a headline or kicker the extractor kept, a caption, "Read
more") and after a wire dateline ("MEXICO CITY (AP) — "). A sentence that opens with a
quotation, or whose match sits inside one, is not a report; nor is a match preceded by a
hedge ("expected to", "could", "if", "on track to") or a sentence that calls its figures
preliminary or projected.

Rules (the generator tag is ``extractive/v2/<rule>``):

- ``won``: "X won / has won / clinched / claimed / took the <named event>" (elections,
  contests, awards, titles, races): "Who will win the 2026 Kestrel Bay mayoral election?".
  The event must be a named one (a capitalised word that is not a weekday or month): "won
  praise", "won the vote", "won her first-round match", "won a seat" are not asked.
- ``beat``: "A beat / defeated B 3-1 to win the <event>" or "... in the <event> final". A
  win that only reaches a final, or a league match, has no single answer to ask for.
- ``medal``: "X took / won gold in the <event> at the <games>".
- ``elected``: "X was (re-)elected <office>", "X won re-election as <office>"; the office
  must name one (mayor, president, leader, ...): "elected to the Senate" is not asked.
- ``next``: "X will be the next <office> after winning the vote" (a decided vote reported in
  the future tense); without a vote word, or with a hedge, it is a prediction.
- ``appointed``: "<Org> appointed / named / hired X as its <office>", "X was appointed /
  named <office> of <Org>", "X was named <Org>'s new <office>".
- ``succession``: "X will succeed / replace Y as <office>", "X was chosen to succeed Y as
  <office>": "Who will succeed Y as <office>?".
- ``departure``: "X resigned / stepped down / quit / was sacked as <office>" **only when the
  lead names the successor** ("... and will be replaced by Z", "Z will take over", "Z was
  named interim <office>"), asked as "Who will succeed X as <office>?". Why not "Will X leave
  the post of <office> before <date>?": a question made from a report of something that
  happened always resolves Yes, so such binaries reward a constant "Yes" and measure
  nothing, while "who succeeds" has a free-form answer a forecaster must find (shortlists,
  the deputy, the interim holder). A departure without a named successor yields nothing.
- ``host``: "<Org> chose X to host the <event>", "X was chosen to host / will host the
  <event>, <Org> announced", "<Org> awarded the <event> to X".
- ``site``, ``partner``: "<Org> selected X as the site of its <plant>", "<Org> chose X as its
  <supplier / partner / contractor>".
- ``acquisition``: "X agreed to buy / will acquire / announced it will acquire Y": "Who will
  acquire Y?". Talks, bids, plans and stakes are not deals.
- ``ruling``: "The <named court> upheld / struck down <measure>", "... ruled in favour of /
  against X", asked as "Will the <court> uphold <measure>?" (Yes or No, both happen).
- ``vote``: "The <named body> voted (7-2) to approve / reject <measure>", "The <body>
  approved / rejected <measure>": "Will the <body> approve <measure>?" (Yes or No). These
  two are the only binary questions: the report can go either way, so "Yes" is not a free
  win; they list ``["Yes", "No"]`` as candidate outcomes, like binary markets.
- ``figure``: "The <Org> set / raised / cut / held its <rate> at / to 4.25%": "At what level
  will <Org> set its <rate> in March 2026?".
- ``indicator``: "<Indicator> fell / rose to / came in at 2.9% in January, the <Org> said"
  (or "according to <Org>") for a level, and "<economy / prices> grew / rose 1.1% in the
  first quarter" for a change (answered "up 1.1%" / "down 0.3%": the normaliser drops signs),
  with its basis when the sentence gives one ("compared with December"); a change whose
  basis is unclear while the sentence gives another percentage (quarter on quarter or year
  on year?) is not asked.
- ``price``: "<commodity / index / shares> settled / closed at $84.20 a barrel": "At what
  price will Brent crude settle on 28 April 2023?". Answers keep their unit; the scorer has
  no numeric tolerance, so these are hard questions by design.

``find_outcome`` returns the timeless title (``title``) and, in ``timed_title``, the form with
placeholders for the time (``{year}``, ``{month}``, ``{day}``, ``{prev_month}``, and
``{year_of:N}`` for the year of month N: a December figure published in January is last
year's) that ``generate_extractive`` fills from the resolution date, so recurring events
stay distinct.

The package, by concern: ``grammar`` (the regular-expression pieces and word lists), ``lead``
(the lead sentences, quotations), ``outcome`` (``Outcome`` and the helpers rules share), what
each rule makes of its match, by family (``contests``: won, beat, medal, elected, next;
``appointments``: appointed, succession, departure; ``decisions``: host, site, partner,
acquisition, ruling, vote; ``figures``: figure, indicator, price), ``rules`` (every rule's
pattern, in the order they are tried, and ``find_outcome``), ``categories``, ``background``
(search over earlier articles) and ``generator`` (``generate_extractive``: the rows and drops).
"""

from pastcast.questions.extractive.categories import CATEGORIES, category_of
from pastcast.questions.extractive.generator import GENERATOR, STAGE, GenerateConfig, generate_extractive
from pastcast.questions.extractive.lead import lead_of
from pastcast.questions.extractive.outcome import Outcome
from pastcast.questions.extractive.rules import RULES, find_outcome

__all__ = ["CATEGORIES", "GENERATOR", "RULES", "STAGE", "GenerateConfig", "Outcome", "category_of",
           "find_outcome", "generate_extractive", "lead_of"]
