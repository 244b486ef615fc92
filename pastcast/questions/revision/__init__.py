"""Pre-resolution inference: was the answer public before the question resolved?

A question is worthless as a forecast when its answer was already reported before its
``resolution_date``. For each question this step searches the evaluator's date-gated index
(``pastcast.search.index.ArticleIndex``) as of the day before it resolves, with the title's
key terms plus the answer, and looks in the hits for a sentence that already states the answer
as a settled outcome. When it finds one it searches again, gated before the earliest evidence
day, for still earlier reports (at most ``max_rounds`` searches per question). Then:

- the resolution date moves to the earliest evidence article's publication day (UTC);
  ``original_resolution_date`` keeps the old date, ``revision_evidence`` the evidence ids
  (earliest first);
- or, when less than ``min_window_days`` of forecasting window would be left (new resolution
  date minus open date), the question is dropped with reason ``answer_known_early``.

Every revision and drop carries an ``Evidence`` record (article ids, dates, sentences).

The lexical rule (the default, and what decides without a judge). A hit is evidence when ONE
sentence of it (its headline, or a sentence of a line of its body; link lines such as
"Read more: ..." are not the article's text and are skipped, see ``LINK_LINE``):

1. mentions the answer or an alias (``pastcast.text.contains_phrase``, in any script: case,
   accents and punctuation normalised, every character a word in Chinese, Japanese, Thai;
   names shorter than 2 characters are never used; a yes/no question is searched for its
   outcome instead, see below);
2. contains at least ``min_key_terms`` distinct key terms of the question (``key_terms``: the
   title's content words as ``pastcast.search.keywords.keywords`` finds them, stemmed like the
   index, minus stop words and the answer's own words), or all of them when there are fewer;
3. is about the question's period: when it names a year (other than in "since 2019", "from
   2019", ...) one of them is a year of the title (or, for a title without a year, a year of
   the question's open..resolution span); when the title names a month and the sentence
   names months, one of them is the title's month. "The rate has stood at 3.50% since
   October" is no answer to a January decision, "X, who won the cup in 2019" none for 2026;
4. reads as a settled outcome with the answer in its place (``settled``), in what it reports:
   its attribution frame (who says it, when and how: "Finance ministry sources confirmed on
   Wednesday that", "said in a statement late on Tuesday that", ", sources said", "according
   to people familiar with the decision", ", selon des sources", ", según fuentes", "nach
   Informationen aus ...", ", сообщили источники", "，消息人士称", "reportedly"; ``cues.ATTRIBUTION``)
   is set aside, whoever the report is attributed to, and reported speech of an attributed
   report reads as the indicative ("would take over", "werde übernehmen", "succéderait",
   "sería la elegida"). The reported clause needs a past-tense (or headline-present) outcome
   cue, ``cues.OUTCOME`` (won, elected, appointed, named, chosen, resigned, ruled, set/held ... at
   <number>, cut/raised ... to <number>, rose, fell, came in at, announced, confirmed, defeated,
   beat, clinched, crowned, found guilty, ...), or a report that the outcome is settled AHEAD OF
   ITS FORMAL DATE, ``cues.CUES`` ("confirmed that X will take over as", "X is set to become",
   "X will be named", "agreed to appoint X", "X has been chosen to succeed", final results
   before certification, and in German, French, Spanish, Portuguese, Italian, Russian, Chinese
   and Japanese: "wird ... übernehmen", "prendra la direction", "asumirá", "assumirá", "sarà
   nominata", "займёт пост", "将出任", and their past-tense outcomes: "a relaxé", "bajó ... al
   5,25 %", "признал ... виновным", "夺得冠军"): the answer is known from that article's day.
   The answer (or an alias) must be in the cue's slot: the subject of a winner's verb or of a
   settled-in-advance cue, the object of a decider's verb ("the board appointed X"), the value of
   a number cue; never the predecessor, the loser, the announcer or a possessive ("succeeding
   X", "defeating X", "X confirmed that Y will", "X's deputy");
5. and its reported clause has no hedge or preview cue, ``HEDGE`` in ``lexical``,
   ``cues.HEDGE_OTHER``, ``cues.NEGATION``, ``cues.DOUBT`` and ``cues.FORECAST`` (could, may,
   might, expected, likely, favourite, among, tipped, in talks, poll, candidate(s), shortlist,
   nominated, hopes, aims, bid to, running for, if, whether, not, denied, rumoured, analysts
   say, interim, semi-final, reach the final, runner-up, ...; "will" and an unattributed "would"
   too, except the future-tense words a settled-in-advance cue licenses and formalities such as
   "will be sworn in", "the deal is expected to close"), and is not a question. Attribution is
   never a hedge ("sources", "people familiar with", "reportedly", "according to reports"); a
   frame that is itself doubtful is no frame and its words count ("did not confirm that", "denied
   reports that", "analysts said", "is expected to announce that"). Previews that name the
   candidates are the common case and never count. Measured on two labelled sets, 267 and 266
   sentences (``tests/data/early_answers.jsonl``, ``tests/data/early_answers_attributed.jsonl``,
   bench/README.md "Early answers").

Also never counted: articles published on or after the resolution date (the search gate
excludes them), and the question's own source articles when published on/after it. Articles
published earlier do count, copies included: a syndicated copy out a day before the source is
real evidence.

The optional judge. ``judge`` is any callable ``(question row, answer, ArticleRef, span) ->
(confirmed, reason)`` (``confirmed`` may be None: no verdict), optionally with a
``judge_many(items)`` batch method; ``LLMJudge`` is one built on ``pastcast.llm.LLMClient``
with ``pastcast/prompts/leak_judge.toml``. With a judge, the lexical rule only proposes candidates
(``RevisionConfig.judge_scope``: "outcome", the rule's positives, the default and cheap; or
"mention", every sentence passing 1-3, for recall at more calls) and only confirmed candidates
count. A candidate the judge gives no verdict on (invalid reply, LLM error, budget spent) falls
back to the lexical rule, so a leak check fails closed; the evidence detail says so.

Which decided is recorded twice: ``RevisionResult.decided_by`` ("lexical rule" or
"LLM judge (<model>)"; ``decided_by(judge)`` computes it up front for a report) and each
``Evidence.detail``.

Yes/no questions. A yes/no question's answer is its event (or the event's absence), not the word
"Yes": ``events`` reads its title into the event (its kind, names, words and verb) and
``event_reports`` whether a sentence reports it done, called off or a threshold crossed; the step
searches for the report its answer makes early (``revision_status``; a state answered Yes is
known only on its day and examined without a search) with ``event_reports.EventRule``, the same
interface as the lexical rule, so the rounds, the window rule, the evidence and the judge work
alike.

The package: ``lexical`` (the lexical rule), ``settled`` (rules 4 and 5 with the answer's
place, attribution set aside) and ``cues`` (their words in every language), ``judge`` (the
judge protocol and ``LLMJudge``; its prompt states the same rule), ``events``,
``event_reports`` and ``event_cues`` (yes/no questions, above) and ``step``
(``revise_resolution_dates``).
"""

from pastcast.questions.revision.judge import (SCHEMAS, ArticleRef, Judge, JudgeItem, LeakVerdict, LLMJudge,
                                               Verdict, decided_by)
from pastcast.questions.revision.lexical import (EXTRA_STOPWORDS, HEDGE, LEXICAL, LINK_LINE, OUTCOME,
                                                 answer_names, article_sentences, is_settled, key_terms, settles)
from pastcast.questions.revision.step import (DROP_REASON, STAGE, RevisionConfig, RevisionResult,
                                              revise_resolution_dates)

__all__ = ["DROP_REASON", "EXTRA_STOPWORDS", "HEDGE", "LEXICAL", "LINK_LINE", "OUTCOME", "SCHEMAS", "STAGE",
           "ArticleRef", "Judge", "JudgeItem", "LLMJudge", "LeakVerdict", "RevisionConfig", "RevisionResult",
           "Verdict", "answer_names", "article_sentences", "decided_by", "is_settled", "key_terms",
           "revise_resolution_dates", "settles"]
