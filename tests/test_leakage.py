"""Answer leaks: in a question's own text, and in the text of another question open at the
same time (the flaw of a peer benchmark where a quarter of the answers showed in sibling
questions)."""

import random
from datetime import date, timedelta

import pytest

from pastcast.questions.leakage import (Mention, cross_leaks, find_mention, find_pairs,
                                        leaks_in_snapshot, self_leaks, tokens, _doc, _match,
                                        _needle_of, _overlap, _field_docs, _host_mentions, VISIBLE_FIELDS)
from pastcast.schemas import QUESTIONS, frame

D = date(2026, 1, 5)


def question(qid, title, answer, *, background="", criteria=None, aliases=(), kind="person",
             options=(), open_date=D, resolution_date=None, source="news", sources=None):
    return {"question_id": qid, "title": title, "background": background,
            "resolution_criteria": criteria if criteria is not None else
            f"Resolves to the outcome asked by {qid}, as reported by news outlets.",
            "answer": answer, "answer_aliases": list(aliases), "answer_type": kind,
            "candidate_outcomes": list(options), "open_date": open_date,
            "resolution_date": resolution_date or open_date + timedelta(days=28),
            "source_kind": source, "source_ids": list(sources or [f"src-{qid}"]),
            "generator": "test", "category": "politics"}


def questions(*rows):
    return frame(rows, QUESTIONS)


MAYOR = "Who will win the 2026 Kestrel Bay mayoral election?"


# --- find_mention: each rule ------------------------------------------------------------------

@pytest.mark.parametrize("text, answer, aliases, kind, rule, span", [
    ("Lina Okafor was declared the winner on Sunday.", "Lina Okafor", (), "person", "exact", "Lina Okafor"),
    ("A profile of LINA OKAFOR, the Green candidate.", "Lina Okafor", (), "person", "exact", "LINA OKAFOR"),
    ("Supporters cheered Lina Okafor's speech.", "Lina Okafor", (), "person", "exact", "Lina Okafor"),
    ("José Müller-Smith was appointed.", "Jose Muller Smith", (), "person", "exact", "José Müller-Smith"),
    ("The contract went to Marks & Spencer.", "Marks and Spencer", (), "organisation", "exact",
     "Marks & Spencer"),
    ("Inflation rose to 6.6 per cent in May.", "6.6%", (), "number", "exact", "6.6 per cent"),
    ("The rate stayed at 3.5% on Thursday.", "3.50%", (), "number", "exact", "3.5%"),
    ("Some 1,200,000 visitors came.", "1200000 visitors", (), "number", "exact", "1,200,000 visitors"),
    ("Veltel promised to rebuild trust.", "Velora Telecom", ("Veltel",), "organisation", "alias", "Veltel"),
    ("The ECB held rates on Thursday.", "European Central Bank", (), "organisation", "abbreviation", "ECB"),
    ("the European Central Bank held rates", "ECB", (), "organisation", "abbreviation",
     "European Central Bank"),
    ("The U.S. economy grew.", "United States", (), "place", "abbreviation", "U.S."),
    ("Talks with the US resumed.", "United States", (), "place", "abbreviation", "US"),
    ("Exports to the United States fell.", "US", (), "place", "abbreviation", "United States"),
    ("Nato allies met in Brussels.", "North Atlantic Treaty Organization", (), "organisation",
     "abbreviation", "Nato"),
    ("The Kestrel Bay Rovers (KBR) said.", "Kestrel Bay Rovers", (), "organisation", "exact",
     "Kestrel Bay Rovers"),
    ("A statement from KBR followed.", "Kestrel Bay Rovers", (), "organisation", "abbreviation", "KBR"),
    ("Okafor, 41, is standing for the Greens.", "Lina Okafor", (), "person", "surname", "Okafor"),
    ("Lina Okafour leads the polls.", "Lina Okafor", (), "person", "fuzzy", "Lina Okafour"),
    ("Okafour leads the polls.", "Lina Okafor", (), "person", "fuzzy", "Okafour"),
    ("The site at Larkhavn was chosen.", "Larkhaven", (), "place", "fuzzy", "Larkhavn"),
])
def test_find_mention_rules(text, answer, aliases, kind, rule, span):
    m = find_mention(text, answer, aliases, kind)
    assert m is not None and (m.rule, m.span) == (rule, span)
    assert text[m.start:m.end] == m.span


@pytest.mark.parametrize("text, answer, kind", [
    ("Tell us what you think.", "United States", "place"),  # the pronoun is not the US
    ("They told us on Monday.", "US", "place"),
    ("The team flew to Anaheim.", "Ana Ruiz", "person"),
    ("Ana spoke first.", "Anaheim", "place"),
    ("The Anaheim Ducks won.", "Ana", "person"),
    ("Inflation rose to 6.5% in May.", "6.6%", "number"),
    ("Inflation rose to 16.6% in May.", "6.6%", "number"),
    ("Inflation rose to 6.65% in May.", "6.6%", "number"),
    ("Will it rain? Yes or no.", "Yes", "binary"),
    ("No decision was taken.", "No", "binary"),
    ("The salt marsh flooded.", "Elena Marsh", "person"),  # a surname only counts with a capital
    ("Sunita spoke to Rao.", "Sunita Rao", "person"),  # a 3-letter surname is too short
    ("WHO WILL WIN THE WORLD CUP?", "World Health Organization", "organisation"),  # all capitals
    ("who will win the cup?", "World Health Organization", "organisation"),
    ("Three goals were scored.", "3", "number"),  # a bare small integer is not looked for
    ("Lina Okafor won.", "Lina Okafor and Tomas Berg share", "person"),
    ("Saltmere North voted.", "Saltmere City", "place"),
    ("Marta Lindqvist spoke.", "Marit Kjelland", "person"),
])
def test_find_mention_false_friends(text, answer, kind):
    assert find_mention(text, answer, (), kind) is None


def test_rules_apply_in_order_and_tokens_normalise():
    # exact beats the surname rule even when the surname comes first in the text
    m = find_mention("Okafor leads; Lina Okafor spoke.", "Lina Okafor", (), "person")
    assert m.rule == "exact" and m.start == 14
    assert tokens("Okafor's 3,500.50 per cent, O'Brien & Co") == [
        "okafor", "3500", "5", "percent", "obrien", "and", "co"]
    assert isinstance(m, Mention) and m.form == "Lina Okafor"


# --- self leaks ------------------------------------------------------------------------------

def test_self_leaks_drop_answers_in_own_text_only():
    qs = questions(
        question("clean", MAYOR, "Lina Okafor", background="Ruiz, 57, seeks a second term."),
        question("title", "Will Lina Okafor win the 2026 Kestrel Bay mayoral election?", "Lina Okafor"),
        question("bg", MAYOR, "Lina Okafor", background="Polls put okafor's rival behind; Okafor leads."),
        question("criteria", "Who will the ECB name as chief economist?", "Mara Lind",
                 criteria="Resolves to the person named; Mara Lind is expected.", kind="person"),
        question("typo", "Who will Norhaven Rail appoint as chief executive?", "Sunita Raoul",
                 background="Sunita Raoull is the favourite."),
        question("abbr", "Which body will host the 2027 summit?", "International Monetary Fund",
                 background="The IMF has offered its headquarters.", kind="organisation"),
        question("number", "What will inflation be in May 2026?", "6.6%", kind="number",
                 background="Inflation was 6.5% in April, up from 6.6 per cent a year earlier."),
        question("number_ok", "What will inflation be in June 2026?", "6.6%", kind="number",
                 background="Inflation was 6.5% in May."),
        question("binary", "Will the Bank of Veloria cut rates? Yes or no", "Yes", kind="binary",
                 background="Yes, markets expect a cut.", options=["Yes", "No"]),
    )
    result = self_leaks(qs)
    got = {d.item_id: (d.reason, d.stage) for d in result.drops}
    assert got == {q: ("answer_in_own_text", "self_leak")
                   for q in ["title", "bg", "criteria", "typo", "abbr", "number"]}
    assert sorted(result.kept["question_id"]) == ["binary", "clean", "number_ok"]
    details = {d.item_id: d.detail for d in result.drops}
    assert "title: 'Lina Okafor' (exact" in details["title"]
    assert "background: 'Okafor' (surname" in details["bg"]
    assert "resolution_criteria: 'Mara Lind'" in details["criteria"]
    assert "fuzzy" in details["typo"] and "'IMF' (abbreviation" in details["abbr"]
    assert "'6.6 per cent'" in details["number"]
    assert [e.action for e in result.evidence] == ["drop"] * 6
    assert result.kept.schema == qs.schema


def test_market_options_listed_in_own_text_are_not_a_self_leak():
    options = ["Ana Ruiz", "Tomas Berg", "Lina Okafor"]
    listed = question("listed", MAYOR, "Lina Okafor", source="market", options=options,
                      background="Candidates: incumbent Ana Ruiz (Civic Alliance), Tomas Berg "
                                 "(Labour and Commons Party), Lina Okafor (Green Veloria).",
                      criteria="Resolves to one of: Ana Ruiz, Tomas Berg, Lina Okafor.")
    options_only = question("options_only", MAYOR, "Lina Okafor", source="market", options=options,
                            background="Kestrel Bay elects its mayor on 8 March 2026.")
    singled_out = question("singled_out", MAYOR, "Lina Okafor", source="market", options=options,
                           background="Update: Lina Okafor has been declared the winner.")
    result = self_leaks(questions(listed, options_only, singled_out))
    assert [(d.item_id, d.reason) for d in result.drops] == [("singled_out", "answer_in_own_text")]
    assert result.kept["question_id"].to_list() == ["listed", "options_only"]


# --- cross leaks -----------------------------------------------------------------------------

def _pairs(result):
    return sorted((e.question_id, e.other_question_id) for e in result.evidence if e.action == "pair")


def test_answer_in_another_open_question_is_dropped_with_evidence():
    mayor = question("mayor", MAYOR, "Lina Okafor", open_date=date(2026, 2, 8),
                     resolution_date=date(2026, 3, 8))
    budget = question("budget", "Will the Kestrel Bay council pass the 2026 budget?", "Yes",
                      kind="binary", options=["Yes", "No"], open_date=date(2026, 2, 1),
                      resolution_date=date(2026, 3, 20),
                      background="Mayor-elect Lina Okafor has promised to veto any budget that "
                                 "cuts bus services.")
    result = cross_leaks(questions(mayor, budget))
    assert [(d.item_id, d.stage, d.reason) for d in result.drops] == [
        ("mayor", "cross_leak", "answer_in_other_question")]
    detail = result.drops[0].detail
    assert "'Lina Okafor' shows in budget's background" in detail
    assert "open 2026-02-01..2026-03-20" in detail and "open 2026-02-08..2026-03-08" in detail
    assert result.kept["question_id"].to_list() == ["budget"]
    (ev,) = result.evidence
    assert (ev.question_id, ev.other_question_id, ev.action, ev.reason, ev.stage, ev.spans) == (
        "mayor", "budget", "pair", "answer_in_other_question", "cross_leak", ("Lina Okafor",))


@pytest.mark.parametrize("field, text, span", [
    ("title", "Will Okafor's first budget pass the Kestrel Bay council?", "Okafor"),
    ("background", "Councillors expect lina okafor to present it.", "lina okafor"),
    ("resolution_criteria", "Resolves Yes if the budget proposed by Lina Okafour passes.", "Lina Okafour"),
    ("candidate_outcomes", ["Lina Okafor", "Tomas Berg"], "Lina Okafor"),
])
def test_every_visible_field_of_the_other_question_counts(field, text, span):
    mayor = question("mayor", MAYOR, "Lina Okafor")
    other = question("other", "Who will chair the Kestrel Bay budget committee?", "Edda Brun",
                     criteria="Resolves to the committee chair.")
    other[{"candidate_outcomes": "candidate_outcomes"}.get(field, field)] = text
    result = cross_leaks(questions(mayor, other))
    assert _pairs(result) == [("mayor", "other")]
    assert result.evidence[0].spans == (span,)
    assert f"other's {field}" in result.drops[0].detail


def test_no_leak_when_open_periods_do_not_overlap():
    # the mayoral question resolves (its answer is public) the day the budget question opens
    mayor = question("mayor", MAYOR, "Lina Okafor", open_date=date(2026, 2, 8),
                     resolution_date=date(2026, 3, 8))
    later = question("later", "Will the Kestrel Bay council pass Lina Okafor's first budget?", "Yes",
                     kind="binary", open_date=date(2026, 3, 8), resolution_date=date(2026, 4, 30))
    earlier = question("earlier", "Who will Lina Okafor's campaign name as manager?", "Per Aas",
                       open_date=date(2026, 1, 1), resolution_date=date(2026, 2, 8))
    result = cross_leaks(questions(mayor, later, earlier))
    assert result.drops == [] and result.evidence == [] and result.kept.height == 3
    assert not _overlap(mayor, later) and not _overlap(mayor, earlier)
    assert _overlap(mayor, {**later, "open_date": date(2026, 3, 7)})


def test_roundup_question_leaking_three_answers_is_the_one_dropped():
    rows = [
        question("mayor", MAYOR, "Lina Okafor"),
        question("cup", "Which team will win the 2026 Veloria Cup?", "Aldermoor United", kind="organisation"),
        question("rate", "At what level will the Bank of Veloria set its rate in January 2026?", "3.25%",
                 kind="number"),
        question("roundup", "Which city will host the 2027 National Games?", "Larkhaven", kind="place",
                 background="A busy month: Lina Okafor became mayor, Aldermoor United lifted the "
                            "Veloria Cup and the Bank of Veloria cut its rate to 3.25 per cent."),
        question("quiet", "Who will win the 2026 Halvard Prize?", "Nell Oduya",
                 background="The shortlist was announced in Aldermoor on Thursday."),
    ]
    result = cross_leaks(questions(*rows))
    assert _pairs(result) == [("cup", "roundup"), ("mayor", "roundup"), ("rate", "roundup")]
    assert [(d.item_id, d.reason) for d in result.drops] == [("roundup", "answer_in_other_question")]
    assert "shows mayor's answer 'Lina Okafor'" in result.drops[0].detail
    assert sorted(result.kept["question_id"]) == ["cup", "mayor", "quiet", "rate"]


def test_ties_drop_the_leaked_answer_then_the_later_question():
    # each pair alone: the question whose answer shows is dropped
    a = question("a", MAYOR, "Lina Okafor")
    b = question("b", "Who will chair the Kestrel Bay budget committee?", "Edda Brun",
                 background="Lina Okafor will attend.")
    assert [d.item_id for d in cross_leaks(questions(a, b)).drops] == ["a"]
    # both answers show in the other: the later open_date goes, then the greater id
    a2 = {**a, "background": "Edda Brun is on the ballot too."}
    b_later = {**b, "open_date": D + timedelta(days=3)}
    assert [d.item_id for d in cross_leaks(questions(a2, b_later)).drops] == ["b"]
    assert [d.item_id for d in cross_leaks(questions({**a2, "open_date": D + timedelta(days=3)}, b)
                                           ).drops] == ["a"]
    same_day = cross_leaks(questions(a2, b))
    assert [d.item_id for d in same_day.drops] == ["b"] and len(same_day.evidence) == 2


def test_yes_no_and_false_friends_never_pair():
    rows = [
        question("cut", "Will the Bank of Veloria cut its rate in March 2026?", "Yes", kind="binary",
                 options=["Yes", "No"]),
        question("hold", "Will the Veloria Cup final go to extra time?", "No", kind="binary",
                 options=["Yes", "No"], background="Yes, say the bookmakers; no, say the fans."),
        question("ana", "Who will win the 2026 Kestrel Bay mayoral election?", "Ana Ruiz"),
        question("ducks", "Which team will win the 2026 Pacific Cup?", "Anaheim Ducks",
                 kind="organisation", background="Tell us who you back: the final is in Anaheim."),
        question("usa", "Which country will host the 2027 summit?", "United States", kind="place"),
        question("rate", "What will the rate be in May 2026?", "6.6%", kind="number",
                 background="It was 6.5% in April."),
        question("rate2", "What will inflation be in May 2026?", "6.5%", kind="number",
                 background="Inflation in Norhaven was 6.6 per cent last year."),
    ]
    result = cross_leaks(questions(*rows))
    # only the two rates: 6.6% is in rate2's text and 6.5% in rate's
    assert _pairs(result) == [("rate", "rate2"), ("rate2", "rate")]
    assert [d.item_id for d in result.drops] == ["rate2"]


def test_leaks_in_snapshot():
    clean = questions(question("mayor", MAYOR, "Lina Okafor"),
                      question("cup", "Which team will win the 2026 Veloria Cup?", "Aldermoor United"))
    assert leaks_in_snapshot(clean) == {}
    leaky = questions(question("mayor", MAYOR, "Lina Okafor", background="Okafor leads the polls."),
                      question("cup", "Which team will win the 2026 Veloria Cup?", "Aldermoor United"),
                      question("fans", "Who will be named fan of the year?", "Ola Nordby",
                               background="Aldermoor United fans voted."))
    problems = leaks_in_snapshot(leaky)
    assert sorted(problems) == ["cup", "mayor"]
    assert problems["mayor"] == ["answer 'Lina Okafor' in its own background: 'Okafor' (surname: 'Okafor')"]
    assert problems["cup"][0].startswith("answer 'Aldermoor United' in fans's background")


# --- at scale --------------------------------------------------------------------------------

_SYL = ["ka", "lo", "mi", "ra", "ve", "to", "sa", "ne", "ri", "do", "fa", "gu", "be", "lu", "po",
        "zi", "ma", "te", "ni", "vo", "ha", "ye", "ku", "se", "pa", "ro", "di", "na", "le", "mo"]
_OTHER = ["qa", "xi", "wo", "ju", "qe", "xu", "wa", "jo"]  # distractor names: never an answer
_FILLER = ("the council said on monday that it would review the plan after a public consultation "
           "which drew more than responses from residents and businesses across the region while "
           "officials warned that costs could rise if work is delayed by bad weather or a shortage "
           "of skilled staff tell us what you think as analysts expect a decision before the end "
           "of the month").split()


def _word(rng, syllables, n):
    return "".join(rng.choice(syllables) for _ in range(n)).capitalize()


def synthetic_questions(n, seed=7, plants=0, start=date(2026, 1, 1)):
    """``n`` questions with realistic-looking texts (answers of every kind, distractor names,
    numbers, the pronoun "us") and ``plants`` planted leaks (exact, surname, typo, acronym,
    number, in background, title or candidate outcomes), half of them with overlapping open
    periods. Returns (rows, expected leak pairs)."""
    rng = random.Random(seed)
    rows, taken = [], set()  # surnames, acronyms and numbers in use: no accidental leaks
    for i in range(n):
        opened = start + timedelta(days=rng.randrange(330))
        place = _word(rng, _SYL, 4)
        kind = rng.choices(["person", "organisation", "number", "binary"], [6, 2, 1, 1])[0]
        while True:
            if kind == "person":
                answer = f"{_word(rng, _SYL, 2)} {_word(rng, _SYL, 3)}"
                key = answer.split()[-1]
            elif kind == "organisation":
                answer = " ".join([*(_word(rng, _SYL, 2) for _ in range(3)),
                                   rng.choice(["Holdings", "Rovers", "Energy"])])
                key = "".join(w[0] for w in answer.split())
            elif kind == "number":
                answer = f"{rng.randrange(1, 99)}.{rng.randrange(1, 99)}%"
                key = tuple(tokens(answer))
            else:
                answer, key = rng.choice(["Yes", "No"]), None
            if key is None or key not in taken:
                break
        taken.add(key)
        title = {"person": f"Who will win the {opened.year} {place} mayoral election?",
                 "organisation": f"Which company will {place} choose to build its new port?",
                 "number": f"At what level will the {place} Bank set its rate in {opened:%B %Y}?",
                 "binary": f"Will {place} approve the harbour plan by {opened:%B %Y}?"}[kind]
        others = [f"{_word(rng, _OTHER, 2)} {_word(rng, _OTHER, 3)}" for _ in range(3)]
        words = [rng.choice(_FILLER) for _ in range(rng.randrange(40, 90))]
        for name in others:
            words.insert(rng.randrange(len(words)), name)
        words.insert(rng.randrange(len(words)), str(rng.randrange(10, 5000)))
        background = " ".join(words).capitalize() + ". The US and the EU are watching."
        rows.append(question(f"q{i:05d}", title, answer, background=background, kind=kind,
                             options=["Yes", "No"] if kind == "binary" else others if i % 7 == 0 else (),
                             open_date=opened, resolution_date=opened + timedelta(days=28)))
    expected = set()
    leakable = [r for r in rows if r["answer_type"] != "binary"]
    for k in range(plants):
        a = rng.choice(leakable)
        overlapping = k % 2 == 0
        while True:
            b = rng.choice(rows)
            if b is not a and _overlap(a, b) == overlapping:
                break
        answer, kind = a["answer"], a["answer_type"]
        how = rng.choice(["exact", "surname", "typo"] if kind == "person" else
                         ["exact", "acronym"] if kind == "organisation" else ["per cent"])
        if how == "surname":
            form = answer.split()[-1]
        elif how == "typo":
            i = rng.randrange(1, len(answer) - 1)
            while answer[i] == " ":
                i = rng.randrange(1, len(answer) - 1)
            form = answer[:i] + ("x" if answer[i] != "x" else "y") + answer[i + 1:]
        elif how == "acronym":
            form = "".join(w[0] for w in answer.split())
        elif how == "per cent":
            form = answer.replace("%", " per cent")
        else:
            form = answer
        where = rng.choice(["background", "background", "title", "candidate_outcomes"])
        if where == "candidate_outcomes":
            b["candidate_outcomes"] = [*b["candidate_outcomes"], form]
        else:
            b[where] = f"{b[where]} Observers also mentioned {form} on Tuesday."
        if overlapping:
            expected.add((a["question_id"], b["question_id"]))
    return rows, expected


def test_cross_leaks_at_scale_find_exactly_the_planted_pairs():
    rows, expected = synthetic_questions(3000, plants=200)
    assert len(expected) >= 95
    qs = questions(*rows)
    result = cross_leaks(qs)
    assert set(_pairs(result)) == expected
    dropped = {d.item_id for d in result.drops}
    assert result.kept.height + len(dropped) == 3000
    # every pair is resolved: a leaker or its host is gone
    assert all(a in dropped or b in dropped for a, b in expected)
    assert leaks_in_snapshot(result.kept) == {}


def test_the_index_finds_what_brute_force_finds():
    rows, expected = synthetic_questions(250, seed=11, plants=60)
    brute = set()
    docs = [_field_docs(b, VISIBLE_FIELDS) for b in rows]
    for a in rows:
        needle = _needle_of(a)
        if not needle.entries:
            continue
        for b, b_docs in zip(rows, docs):
            if b is not a and _overlap(a, b) and _host_mentions(b_docs, needle):
                brute.add((a["question_id"], b["question_id"]))
    found = {(p.leaker, p.host) for p in find_pairs(questions(*rows))}
    assert found == brute and expected <= found


def test_pairs_among_a_few_questions_are_the_full_pairs_with_one_of_them():
    rows, _expected = synthetic_questions(400, seed=5, plants=80)
    qs = questions(*rows)
    everything = find_pairs(qs)
    rng = random.Random(3)
    for size in (1, 7, 40):
        among = {r["question_id"] for r in rng.sample(rows, size)}
        wanted = [p for p in everything if p.leaker in among or p.host in among]
        assert find_pairs(qs, among=among) == wanted
    assert find_pairs(qs, among=set()) == []


def test_cross_leaks_remembered_between_builds_are_what_a_full_search_finds(tmp_path, monkeypatch):
    """Night after night questions come, change and go; with the row memo only the pairs of a
    new or changed question are searched, and the drops and evidence are those of a search
    over every pair."""
    from pastcast.questions import leakage
    from pastcast.questions.row_memo import RowMemo

    rows, _expected = synthetic_questions(320, seed=11, plants=90)
    searched = []
    real = leakage._find_pairs
    monkeypatch.setattr(leakage, "_find_pairs", lambda rs, among=None: searched.append(among) or real(rs, among))
    changed = [dict(r) for r in rows[:250]]
    for r in changed[10:20]:  # a date moved (as revision does) and a text that now names another's answer
        r["resolution_date"] = r["resolution_date"] - timedelta(days=9)
    for r, other in zip(changed[20:30], changed[200:210]):
        r["background"] = f"{r['background']} Observers expect {other['answer']} to prevail."
    builds = [rows[:200], rows[:200], rows[:250], changed, changed[40:] + rows[250:]]
    for n, build in enumerate(builds):
        qs = questions(*build)
        memo = RowMemo(tmp_path / "rows.parquet")
        searched.clear()
        got = cross_leaks(qs, memo=memo)
        memo.save()
        among = searched[0] if searched else set()
        want = cross_leaks(qs)
        assert [(d.item_id, d.detail) for d in got.drops] == [(d.item_id, d.detail) for d in want.drops]
        assert got.evidence == want.evidence and got.kept.equals(want.kept)
        if n == 0:
            assert among is None or len(among) == len(build)  # nothing remembered: every pair searched
        elif n == 1:
            assert not among  # the same questions again: nothing searched
        else:
            assert 0 < len(among) < len(build)
    assert any(e.reason == "answer_in_other_question" for e in want.evidence)


def test_pairs_among_a_few_questions_skip_the_questions_closed_before_them():
    rows, _expected = synthetic_questions(200, seed=13, plants=40)
    late = max(rows, key=lambda r: r["open_date"])
    from pastcast.questions.leakage import _open_beside

    beside = _open_beside(rows, {late["question_id"]})
    assert late in beside and len(beside) < len(rows) / 2
    assert all(_overlap(r, late) for r in beside if r is not late)


def test_spans_stay_aligned_after_per_cent_and_decimals():
    text = "Rates rose 3.50 per cent and 2.0% while Okafor's rival Berg spoke."
    m = find_mention(text, "Tomas Berg", (), "person")
    assert (m.rule, m.span) == ("surname", "Berg") and text[m.start:m.end] == "Berg"
    m = find_mention(text, "2%", (), "number")
    assert m.span == "2.0%"
    assert _doc(text).toks == tokens(text)


# --- every script ----------------------------------------------------------------------------

def test_self_leak_of_a_cyrillic_answer_is_found_as_written_and_transliterated():
    city = "Which city will host the 2026 Veloria Chess Open final?"
    qs = questions(
        question("clean", city, "Казань", kind="place",
                 background="The organisers will pick the host city in March."),
        question("native", city, "Казань", kind="place",
                 background="Организаторы уже выбрали КАЗАНЬ, сообщают источники."),
        question("latin", city, "Казань", kind="place",
                 background="Sources say the final will be played in Kazan."),
        question("person", "Who will be named the Veloria federation's president?",
                 "Ольга Смирнова", kind="person", background="Смирнова, 52, leads the polls."),
    )
    result = self_leaks(qs)
    details = {d.item_id: d.detail for d in result.drops}
    assert sorted(details) == ["latin", "native", "person"]
    assert "'КАЗАНЬ' (exact" in details["native"]
    assert "'Kazan' (transliteration: 'Kazan')" in details["latin"]
    assert "'Смирнова' (surname" in details["person"]
    assert result.kept["question_id"].to_list() == ["clean"]


def test_cross_leak_in_greek_and_in_chinese_text_without_spaces():
    rows = [
        question("greek", "Which country will win the 2026 Veloria Sailing Cup?", "Ελλάδα", kind="place"),
        question("host", "Who will skipper the winning crew?", "Nikos Pappas",
                 background="Η ΕΛΛΆΔΑ κέρδισε τον τελικό του κυπέλλου."),  # capitals, tonos
        question("zh", "Which city will host the 2027 Harbour Trade Fair?", "北京", kind="place"),
        question("zh_host", "Who will open the 2027 Harbour Trade Fair?", "Lin Hao",
                 background="博览会将于明年在北京举行。"),
        question("zh_other", "Who will close the 2027 Harbour Trade Fair?", "Wu Fen",
                 background="博览会将于明年在南京举行。"),  # Nanjing is not Beijing
    ]
    pairs = {(p.leaker, p.host): p for p in find_pairs(questions(*rows))}
    assert sorted(pairs) == [("greek", "host"), ("zh", "zh_host")]
    assert pairs[("greek", "host")].mentions[0][1].span == "ΕΛΛΆΔΑ"
    assert pairs[("zh", "zh_host")].mentions[0][1].span == "北京"
    assert {d.item_id for d in cross_leaks(questions(*rows)).drops} == {"greek", "zh"}


def test_chinese_names_sharing_a_pinyin_spelling_never_leak_into_each_other():
    rows = [  # 张伟 and 章伟 are both "Zhang Wei"
        question("a", "Who will chair the Harbour Trade Council?", "张伟"),
        question("b", "Who will lead the Harbour Port Authority?", "李娜",
                 background="候选人包括章伟。Zhang Wei is tipped."),
    ]
    assert find_pairs(questions(*rows)) == []
    assert self_leaks(questions(*rows)).drops == []
