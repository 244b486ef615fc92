from datetime import date, datetime, timezone

import pytest

from pastcast.questions.extractive import GenerateConfig, find_outcome, generate_extractive
from pastcast.questions.markets import MarketQuestionConfig, market_question_problems, market_questions
from pastcast.text import contains_phrase, normalise
from pastcast.questions.validate import leaks_in_own_text, validate_questions
from pastcast.schemas import ARTICLES, MARKETS, QUESTIONS, frame


@pytest.mark.parametrize("sentence, title, answer", [
    ("Ana Ruiz won the Kestrel Bay mayoral election on Sunday, taking 54% of the vote.",
     "Who will win the Kestrel Bay mayoral election?", "Ana Ruiz"),
    ("On Saturday, Portmere United beat Halvard Rovers 2-1 to win the Veloria Cup final.",
     "Which team will win the Veloria Cup final?", "Portmere United"),
    ("Tomas Berg was elected leader of the Green Union on Tuesday after a tight ballot.",
     "Who will be elected leader of the Green Union?", "Tomas Berg"),
    ("The Veloria Athletics Federation chose Drennick to host the 2028 National Games.",
     "Which city will the Veloria Athletics Federation choose to host the 2028 National Games?",
     "Drennick"),
    ("Solvane Energy appointed Mara Lind as its new chief executive, the company said.",
     "Who will Solvane Energy appoint as its chief executive?", "Mara Lind"),
    ("Mara Lind was appointed governor of the Central Bank of Veloria on Friday.",
     "Who will be appointed governor of the Central Bank of Veloria?", "Mara Lind"),
    ("The Central Bank of Veloria raised its benchmark rate to 4.25 per cent on Thursday.",
     "At what level will the Central Bank of Veloria set its benchmark rate in {month}?", "4.25%"),
    ("Nell Oduya has won the Halvard Prize for Literature, beating two established writers.",
     "Who will win the Halvard Prize for Literature?", "Nell Oduya"),
    ("Quiet Engines won the best film award at the Veloria Film Awards on Sunday.",
     "Which film will win the best film award at the Veloria Film Awards?", "Quiet Engines"),
    ("Orvane Foxes defeated Saltmere Seahawks 24-17 in the Harbour Shield final on Sunday.",
     "Which team will win the Harbour Shield final?", "Orvane Foxes"),
    ("Brightwater Energy selected Hollin Cross as the site of its 1.8 billion mark battery factory.",
     "Where will Brightwater Energy put its 1.8 billion mark battery factory?", "Hollin Cross"),
    ("The Low Pay Commission set its recommended minimum wage at 14.20 marks an hour on Tuesday.",
     "At what level will the Low Pay Commission set its recommended minimum wage in {month}?",
     "14.20 marks an hour"),
    ("Annual consumer price inflation fell to 2.9% in January, the National Statistics Office said.",
     "What will annual consumer price inflation for January be, as reported by the National "
     "Statistics Office?", "2.9%"),
])
def test_outcome_reports_become_questions(sentence, title, answer):
    outcome = find_outcome(sentence)
    assert (outcome.title, outcome.answer) == (title, answer)
    assert not contains_phrase(outcome.title, outcome.answer)


@pytest.mark.parametrize("sentence", [
    "The weather was fine on Sunday, and the market square was busy.",
    "Ana Ruiz won praise for her speech on Sunday.",  # no event: not an outcome report
    "Voters will choose between Ana Ruiz and Tomas Berg in March.",
    # two semi-final winners reach a final: no single answer to ask for
    "Kestrel Bay Rovers defeated Brennick Athletic 3-1 on Sunday to reach the Veloria Cup final.",
])
def test_text_without_an_outcome_report_yields_nothing(sentence):
    assert find_outcome(sentence) is None


def _article(i, day, title, text):
    return {"article_id": f"a{i}", "url": f"https://n.example/{i}", "domain": "n.example",
            "title": title, "text": text, "published_at": datetime(2026, 3, day, 9, tzinfo=timezone.utc),
            "crawled_at": datetime(2026, 3, day, 12, tzinfo=timezone.utc), "word_count": 50}


def test_generation_dates_and_background_never_leak_the_answer():
    articles = frame([
        _article(1, 1, "Race for mayor", "The Kestrel Bay mayoral election is on 29 March. "
                 "Turnout is expected to be high. Ana Ruiz leads the polls."),
        _article(2, 29, "Ruiz wins", "Ana Ruiz won the Kestrel Bay mayoral election on Sunday. "
                 "She took 54% of the vote."),
        _article(3, 30, "Ruiz wins (copy)", "Ana Ruiz won the Kestrel Bay mayoral election on Sunday. "
                 "She took 54% of the vote, officials said."),
        _article(4, 30, "Weather", "Rain is expected across the north on Monday and Tuesday."),
    ], ARTICLES)
    questions, drops = generate_extractive(articles, GenerateConfig(horizon_days=28))
    assert questions.height == 2 and drops["item_id"].to_list() == ["a1", "a4"]
    assert set(drops["reason"]) == {"no_outcome_report"}
    # one day's partition: only its articles are read for outcomes, earlier ones still give background
    day, day_drops = generate_extractive(articles, GenerateConfig(horizon_days=28), only={"a2"})
    assert day["source_ids"].to_list() == [["a2"]] and day_drops.is_empty()
    assert day.row(0, named=True) == questions.row(0, named=True)
    q = questions.row(0, named=True)
    assert q["resolution_date"] == date(2026, 3, 29) and q["open_date"] == date(2026, 3, 1)
    assert q["background"].startswith("As reported on 2026-03-01: The Kestrel Bay mayoral election is on 29 March.")
    assert "Ruiz" not in q["background"] and q["source_ids"] == ["a2"]

    kept, vdrops = validate_questions(questions)
    assert kept.height == 1 and kept["source_ids"].to_list() == [["a2", "a3"]]
    assert vdrops["reason"].to_list() == ["duplicate_question"]


def test_validation_drops_self_leaks_and_short_windows():
    base = {"title": "Who will win the Veloria Cup final?", "background": "", "answer": "Portmere United",
            "answer_aliases": ["Portmere"], "resolution_criteria": "Resolves to the winner.",
            "candidate_outcomes": [], "open_date": date(2026, 3, 1), "resolution_date": date(2026, 3, 29),
            "source_ids": ["a1"]}
    from pastcast.schemas import QUESTIONS
    questions = frame([
        base | {"question_id": "ok"},
        base | {"question_id": "leak", "title": "Will Portmere win the Veloria Cup final?"},
        base | {"question_id": "short", "title": "Who will win the Veloria Shield?",
                "open_date": date(2026, 3, 27)},
        base | {"question_id": "vague", "title": "Who will win the Veloria Trophy?", "answer": "Unknown"},
    ], QUESTIONS)
    kept, drops = validate_questions(questions)
    assert kept["question_id"].to_list() == ["ok"]
    assert dict(zip(drops["item_id"], drops["reason"])) == {
        "leak": "answer_in_own_text", "short": "short_window", "vague": "placeholder_answer"}
    assert leaks_in_own_text(questions) == ["leak"]


def test_validation_keeps_answers_and_titles_in_every_script():
    base = {"background": "", "answer_aliases": [], "resolution_criteria": "Resolves to the winner.",
            "candidate_outcomes": [], "open_date": date(2026, 3, 1), "resolution_date": date(2026, 3, 29),
            "source_ids": ["a1"], "answer_type": "person"}
    questions = frame([
        base | {"question_id": "ru", "title": "Who will win the Veloria Cup final?", "answer": "Спартак Москва"},
        base | {"question_id": "el", "title": "Who will skipper the Veloria crew?", "answer": "Νίκος Παππάς"},
        base | {"question_id": "ar", "title": "Who will chair the Veloria League?", "answer": "القاهرة"},
        base | {"question_id": "zh", "title": "2026年谁将当选港口贸易理事会主席？", "answer": "李娜"},
        base | {"question_id": "ja", "title": "Who will host the 2026 Veloria Games?", "answer": "東京"},
        base | {"question_id": "long", "title": "Which body will take over the Veloria port?",
                "answer": "中华人民共和国国务院港澳事务办公室"},  # 15 characters: about 8 words
        base | {"question_id": "ru2", "title": "Who will win the Veloria Cup final in 2026?",
                "answer": "Спартак Москва"},
        base | {"question_id": "ru3", "title": "Which team will win the 2026 Veloria Cup final?",
                "answer": "Spartak Moskva"},  # the same answer in Latin letters
        base | {"question_id": "zh2", "title": "2026年谁将当选港口贸易理事会主席？", "answer": "李 娜",
                "open_date": date(2026, 3, 2)},
        base | {"question_id": "zh3", "title": "2026年谁将当选港口贸易理事会主席？", "answer": "王伟",
                "open_date": date(2026, 3, 2)},  # another answer: another question
    ], QUESTIONS)
    kept, drops = validate_questions(questions)
    assert sorted(kept["question_id"]) == ["ar", "el", "ja", "ru", "zh", "zh3"]
    assert dict(zip(drops["item_id"], drops["reason"])) == {
        "long": "answer_too_long", "ru2": "duplicate_question", "ru3": "duplicate_question",
        "zh2": "duplicate_question"}
    ru = kept.filter(kept["question_id"] == "ru").row(0, named=True)
    assert ru["answer_aliases"] == ["Spartak Moskva"]


def test_market_questions_keep_options_and_drop_cancelled():
    t = lambda d: datetime(2026, 3, d, tzinfo=timezone.utc)  # noqa: E731
    markets = frame([
        {"market_id": "m1", "platform": "manifold", "question": "Who will win the Veloria Cup?",
         "outcome_type": "multiple_choice", "outcomes": ["Portmere United", "Halvard Rovers"],
         "status": "resolved", "created_at": t(1), "resolved_at": t(20), "resolution": "Halvard Rovers"},
        {"market_id": "m2", "platform": "manifold", "question": "Will it rain?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "cancelled", "created_at": t(1), "resolved_at": t(20)},
        {"market_id": "m3", "platform": "manifold", "question": "Will it snow?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "open", "created_at": t(1)},
        {"market_id": "m4", "platform": "manifold", "question": "Will it hail?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "ambiguous", "created_at": t(1), "resolved_at": t(20),
         "resolution_value": 0.4},
        {"market_id": "m5", "platform": "manifold", "question": "Will it fog?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "resolved", "created_at": t(15), "resolved_at": t(20),
         "resolution": "No"},
    ], MARKETS)
    questions, drops = market_questions(markets)
    assert questions["answer"].to_list() == ["Halvard Rovers"]
    assert questions["candidate_outcomes"].to_list() == [["Portmere United", "Halvard Rovers"]]
    assert questions["source_ids"].to_list() == [["m1"]]
    assert dict(zip(drops["item_id"], drops["reason"])) == {
        "m2": "cancelled", "m3": "unresolved", "m4": "ambiguous_resolution", "m5": "short_window"}
    # a horizon opens the question later than the market's creation
    later, _ = market_questions(markets, MarketQuestionConfig(horizon_days=10))
    assert later["open_date"].to_list() == [date(2026, 3, 10)]


def test_numeric_and_date_markets_are_bucketed_over_their_range():
    t = lambda d: datetime(2026, 1, d, tzinfo=timezone.utc)  # noqa: E731
    base = {"platform": "metaculus", "status": "resolved", "created_at": t(1), "resolved_at": t(30)}
    markets = frame([
        base | {"market_id": "n1", "question": "What will the rate be?", "outcome_type": "numeric",
                "resolution_value": 41.0, "range_min": 0.0, "range_max": 100.0},
        base | {"market_id": "n2", "question": "How many visitors?", "outcome_type": "numeric",
                "resolution_value": 5.0e6, "range_min": 1.0e3, "range_max": 1.0e7, "log_scale": True},
        base | {"market_id": "d1", "question": "When will the bridge open?", "outcome_type": "date",
                "resolution_value": datetime(2026, 5, 2, tzinfo=timezone.utc).timestamp(),
                "range_min": datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp(),
                "range_max": datetime(2026, 12, 31, tzinfo=timezone.utc).timestamp()},
        base | {"market_id": "n3", "question": "What will it cost?", "outcome_type": "numeric",
                "resolution_value": 3.0},
        base | {"market_id": "n4", "question": "Above the range?", "outcome_type": "numeric",
                "resolution_value": 250.0, "range_min": 0.0, "range_max": 100.0},
    ], MARKETS)
    questions, drops = market_questions(markets, MarketQuestionConfig(numeric_buckets=5))
    by_title = {q["title"]: q for q in questions.iter_rows(named=True)}
    rate = by_title["What will the rate be?"]
    assert rate["candidate_outcomes"] == ["below 20", "20 to under 40", "40 to under 60", "60 to under 80", "80 or more"]
    assert rate["answer"] == "40 to under 60" and rate["answer_type"] == "range"
    visitors = by_title["How many visitors?"]
    assert visitors["candidate_outcomes"][0] == "below 6,310" and visitors["answer"] == "1,580,000 or more"
    bridge = by_title["When will the bridge open?"]
    assert bridge["answer"] == "2026-03-14 to 2026-05-25" and bridge["candidate_outcomes"][0] == "before 2026-03-14"
    assert by_title["Above the range?"]["answer"] == "80 or more"  # open end bucket
    assert dict(zip(drops["item_id"], drops["reason"])) == {"n3": "numeric_without_range"}
    off, off_drops = market_questions(markets, MarketQuestionConfig(numeric_buckets=0))
    assert off.is_empty() and set(off_drops["reason"]) == {"numeric_market"}


def test_normalise_drops_accents_and_spells_out_percent():
    assert normalise("  Émile  Zola's 3.75% rate. ") == "emile zolas 3 75 percent rate"
    assert contains_phrase("The bank set 3.75% today", "3.75%")
    assert not contains_phrase("Anaheim", "Ana")


def test_market_question_check_catches_answers_revealed_before_the_market_resolved():
    t = lambda d: datetime(2026, 3, d, tzinfo=timezone.utc)  # noqa: E731
    markets = frame([
        {"market_id": "m1", "platform": "manifold", "question": "Who will win the Veloria Cup?",
         "outcome_type": "multiple_choice", "outcomes": ["Portmere United", "Halvard Rovers"],
         "status": "resolved", "created_at": t(1), "resolved_at": t(20), "resolution": "Halvard Rovers"},
        {"market_id": "m2", "platform": "manifold", "question": "Will it rain?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "open", "created_at": t(1)},
    ], MARKETS)
    questions, _ = market_questions(markets)
    assert market_question_problems(questions, markets) == []
    (good,) = questions.iter_rows(named=True)
    planted = frame([
        good | {"question_id": "early", "resolution_date": date(2026, 3, 19), "original_resolution_date": date(2026, 3, 19)},
        good | {"question_id": "revised", "resolution_date": date(2026, 3, 12), "revision_evidence": ["a1"]},
        good | {"question_id": "unbacked", "resolution_date": date(2026, 3, 12)},
        good | {"question_id": "before", "open_date": date(2026, 2, 27)},
        good | {"question_id": "open", "source_ids": ["m2"]},
        good | {"question_id": "gone", "source_ids": ["m9"]},
        good | {"question_id": "odd", "answer": "Kestrel Bay"},
    ], QUESTIONS)
    problems = market_question_problems(planted, markets)
    assert [p.split(":")[0] for p in problems] == ["early", "unbacked", "before", "open", "gone", "odd"]
    assert "before the market resolved on 2026-03-20" in problems[0]


# --- the offline generator, v2 rules ------------------------------------------------------

@pytest.mark.parametrize("text, rule, title, answer, answer_type", [
    # elections
    ("Karen Bass was elected mayor of Los Angeles, becoming the first woman to hold the post.",
     "elected", "Who will be elected mayor of Los Angeles?", "Karen Bass", "person"),
    ("Nadia Mohamed won re-election as mayor of St. Louis Park on Tuesday.",
     "elected", "Who will be elected mayor of St. Louis Park?", "Nadia Mohamed", "person"),
    ("Shigeru Ishiba will be Japan's next prime minister after winning the Liberal Democratic Party "
     "leadership vote on Friday.", "next", "Who will be Japan's next prime minister?", "Shigeru Ishiba",
     "person"),
    ("Lula defeated Jair Bolsonaro in Brazil's presidential runoff on Sunday.",
     "beat", "Who will win Brazil's presidential runoff?", "Lula", "entity"),
    ("KATHMANDU, April 25 (Reuters) - Sunita Rao won the Nepal presidential election on Tuesday.",
     "won", "Who will win the Nepal presidential election?", "Sunita Rao", "person"),
    # matches, contests, awards
    ("Real Madrid beat Borussia Dortmund 2-0 to win the Champions League final at Wembley on Saturday.",
     "beat", "Which team will win the Champions League final?", "Real Madrid", "organisation"),
    ("Spain won the Women's World Cup final 1-0 against England in Sydney on Sunday.",
     "won", "Which team will win the Women's World Cup final?", "Spain", "organisation"),
    ("Max Verstappen claimed the Formula One world title on Saturday with victory in the Sprint race.",
     "won", "Who will win the Formula One world title?", "Max Verstappen", "person"),
    ("Sha'Carri Richardson took gold in the women's 100m at the World Athletics Championships in "
     "Budapest on Monday.", "medal",
     "Who will win gold in the women's 100m at the World Athletics Championships?",
     "Sha'Carri Richardson", "person"),
    ("Oppenheimer won the award for best picture at the Academy Awards on Sunday night.",
     "won", "Which film will win the award for best picture at the Academy Awards?", "Oppenheimer",
     "title"),
    # appointments and successions
    ("Nike named Elliott Hill as its new chief executive on Thursday, bringing back a company veteran.",
     "appointed", "Who will Nike appoint as its chief executive?", "Elliott Hill", "person"),
    ("Yahya Sinwar was named the new leader of Hamas's political bureau on Tuesday.",
     "appointed", "Who will be named leader of Hamas's political bureau?", "Yahya Sinwar", "person"),
    ("Dr. Jane Fraser has been chosen to succeed Michael Corbat as chief executive of Citigroup.",
     "succession", "Who will succeed Michael Corbat as chief executive of Citigroup?", "Jane Fraser",
     "person"),
    ("Mary Barra will succeed Dan Akerson as chief executive of General Motors, the carmaker said.",
     "succession", "Who will succeed Dan Akerson as chief executive of General Motors?", "Mary Barra",
     "person"),
    # resignations: only with a named successor, asked as "who succeeds"
    ("Bob Chapek stepped down as chief executive of Disney on Sunday and will be replaced by Bob Iger, "
     "the company said.", "departure", "Who will succeed Bob Chapek as chief executive of Disney?",
     "Bob Iger", "person"),
    ("Liz Truss resigned as prime minister on Thursday. Rishi Sunak will take over as leader of the "
     "Conservative Party.", "departure", "Who will succeed Liz Truss as prime minister?", "Rishi Sunak",
     "person"),
    # decisions
    ("Saudi Arabia will host the 2034 World Cup, FIFA confirmed on Wednesday.",
     "host", "Where will the 2034 World Cup be held?", "Saudi Arabia", "place"),
    ("Liverpool was chosen to host the 2023 Eurovision Song Contest on behalf of Ukraine.",
     "host", "Where will the 2023 Eurovision Song Contest be held?", "Liverpool", "place"),
    ("Boeing selected Spirit AeroSystems as its supplier for the 737 fuselage.",
     "partner", "Which company will Boeing choose as its supplier for the 737 fuselage?",
     "Spirit AeroSystems", "organisation"),
    ("Microsoft agreed to buy Activision Blizzard for $68.7 billion in cash on Tuesday.",
     "acquisition", "Who will acquire Activision Blizzard?", "Microsoft", "organisation"),
    ("Nvidia has agreed to acquire British chip designer Arm for $40 billion.",
     "acquisition", "Who will acquire Arm?", "Nvidia", "organisation"),
    ("The Supreme Court upheld Tennessee's ban on gender-affirming care for minors on Wednesday.",
     "ruling", "Will the Supreme Court uphold Tennessee's ban on gender-affirming care for minors?", "Yes",
     "binary"),
    ("The Supreme Court struck down President Biden's student loan forgiveness plan on Friday.",
     "ruling", "Will the Supreme Court uphold President Biden's student loan forgiveness plan?", "No",
     "binary"),
    ("The European Court of Justice ruled in favour of Apple in its tax dispute with the European "
     "Commission.", "ruling", "Will the European Court of Justice rule in favour of Apple in its tax "
     "dispute with the European Commission?", "Yes", "binary"),
    ("The Aldermoor City Council voted 7-2 to approve the Harbour Quarter redevelopment plan.",
     "vote", "Will the Aldermoor City Council approve the Harbour Quarter redevelopment plan?", "Yes",
     "binary"),
    ("The House of Commons rejected Theresa May's Brexit deal by 432 votes to 202 on Tuesday.",
     "vote", "Will the House of Commons approve Theresa May's Brexit deal?", "No", "binary"),
    ("Voters in Ohio approved Issue 1, enshrining abortion rights in the state constitution.",
     "vote", "Will voters in Ohio approve Issue 1?", "Yes", "binary"),
    # reported figures (numbers keep their unit)
    ("The Bank of England held interest rates at 5.25% on Thursday for a second consecutive meeting.",
     "figure", "At what level will the Bank of England set interest rates in {month}?", "5.25%", "number"),
    ("The European Central Bank raised its deposit rate by 25 basis points to 4% on Thursday.",
     "figure", "At what level will the European Central Bank set its deposit rate in {month}?", "4%",
     "number"),
    ("The Reserve Bank of Australia left the cash rate unchanged at 4.35% on Tuesday.",
     "figure", "At what level will the Reserve Bank of Australia set its cash rate in {month}?", "4.35%",
     "number"),
    ("The unemployment rate rose to 3.9% in April, the Labor Department said on Friday.",
     "indicator", "What will the unemployment rate for April be, as reported by the Labor Department?",
     "3.9%", "number"),
    ("Canada’s jobless rate fell to 6.6 per cent in May as 88,000 positions were added, according to "
     "Statistics Canada’s labour force survey released Friday.", "indicator",
     "What will Canada’s jobless rate for May be, as reported by Statistics Canada?", "6.6%", "number"),
    ("Britain's economy shrank 0.3% in the third quarter, the Office for National Statistics said.",
     "indicator", "How much will Britain's economy grow or shrink in the third quarter, according to the "
     "Office for National Statistics?", "down 0.3%", "number"),
    ("Retail sales in Veloria rose 0.6% in February from January, the National Statistics Office said.",
     "indicator", "How much will retail sales in Veloria rise or fall in February compared with January, "
     "according to the National Statistics Office?", "up 0.6%", "number"),
    ("Brent crude futures settled at $84.20 a barrel on Friday, up 1.2%.",
     "price", "At what price will Brent crude futures settle on {day}?", "$84.20 a barrel", "number"),
    ("The S&P 500 closed at 4,169.48 on Friday.",
     "price", "At what level will the S&P 500 close on {day}?", "4,169.48", "number"),
    # the lead: a headline line the extractor kept is not a sentence
    ("Okafor ousts Ruiz\nLina Okafor was elected mayor of Kestrel Bay on Sunday, defeating Ana Ruiz.",
     "elected", "Who will be elected mayor of Kestrel Bay?", "Lina Okafor", "person"),
])
def test_v2_rules_turn_outcome_reports_into_questions(text, rule, title, answer, answer_type):
    outcome = find_outcome(text)
    assert outcome is not None, text
    assert (outcome.rule, outcome.title, outcome.answer, outcome.answer_type) == (
        rule, title, answer, answer_type)
    assert outcome.title.endswith("?")
    if answer_type == "binary":
        assert outcome.options == ("Yes", "No")
    else:
        assert not contains_phrase(outcome.title, outcome.answer)
        assert not contains_phrase(outcome.timed_title or outcome.title, outcome.answer)


@pytest.mark.parametrize("text", [
    "Tomas Berg resigned to the fact that he would lose.",
    "Ana Ruiz is expected to win the Kestrel Bay mayoral election on Sunday.",
    "Polls suggest Ana Ruiz could win the Kestrel Bay mayoral election.",
    "If Ana Ruiz won the Kestrel Bay mayoral election, she would be the first Green mayor.",
    "“Ana Ruiz will win the Kestrel Bay mayoral election,” said her campaign manager.",
    "Her manager said: “Ana Ruiz won the Kestrel Bay mayoral election before it began.”",
    "Ana Ruiz won the Kestrel Bay mayoral election, according to preliminary results.",
    "Catherine Connolly is on track to become Ireland's next president.",
    "Catherine Connolly will be Ireland's next president if the polls are right.",
    "Lily Miyazaki won her first-round match as the sole Brit on Monday.",
    "Nadia Mohamed won with 58% of the vote in Tuesday's municipal election.",
    "Brazil won the World Cup five times between 1958 and 2002.",
    "The party won the most seats in the election.",
    "Chelsea beat Tottenham 2-0 in the Premier League on Thursday.",  # a match, not the league
    "Joaquin Phoenix and Renee Zellweger were named best actors at the SAG awards.",  # two answers
    "Police named the victim as John Smith, 45, of Leeds.",
    "Time named Taylor Swift its Person of the Year.",  # not an office
    "Tomas Berg was elected to the National Assembly in 2019.",  # no office
    "Tim Cook succeeded Steve Jobs as chief executive of Apple in 2011.",  # history, not news
    "Liz Truss resigned as prime minister on Thursday after 45 days in office.",  # no successor
    "Microsoft is in talks to buy Activision Blizzard, people familiar with the matter said.",
    "Shell agreed to buy a 20% stake in Orsted's offshore wind farm.",
    "The House passed the bill 220-210 on Thursday.",  # which bill?
    "The Fed cut its growth forecast to 1.2% on Wednesday.",  # a forecast, not a rate
    "The death toll from the fire rose to 10 on Saturday.",
    "Mr Bowen's statement will reveal Australia is projected to cut emissions 42.6 per cent by 2030.",
    # a change whose basis is unclear while the sentence gives another figure
    "Mexico’s economy grew by 1.1% in the first quarter of 2023, bringing growth to an annualized rate "
    "of 3.8%, Mexico’s National Statistics Institute said Friday.",
    "Sales rose to 3,000 units in May, the company said.",
    "Gold closed at 1,990 on Tuesday.",  # a price needs its currency
])
def test_v2_rules_do_not_fire_on_predictions_quotes_or_vague_reports(text):
    assert find_outcome(text) is None


def _dated(i, day, text, month=3, title="News"):
    return {"article_id": f"d{i}", "url": f"https://n.example/d{i}", "domain": "n.example",
            "title": title, "text": text,
            "published_at": datetime(2026, month, day, 9, tzinfo=timezone.utc),
            "crawled_at": datetime(2026, month, day, 12, tzinfo=timezone.utc), "word_count": 50}


def test_generated_titles_name_their_time_and_binary_questions_list_their_options():
    articles = frame([
        _dated(1, 1, "Ana Ruiz and Tomas Berg meet in the Kestrel Bay mayoral election on 29 March. "
                     "Polls are level."),
        _dated(2, 29, "Ana Ruiz won the Kestrel Bay mayoral election on Sunday. She took 54% of the vote."),
        _dated(3, 20, "The Aldermoor City Council voted 7-2 to approve the Harbour Quarter redevelopment "
                      "plan on Thursday. Work starts in May."),
        _dated(4, 14, "Annual consumer price inflation fell to 2.9% in December, the National Statistics "
                      "Office said.", month=1),
        _dated(5, 27, "Norhaven Rail appointed Sunita Rao as its new chief executive on Friday. "
                      "She starts in April."),
    ], ARTICLES)
    questions, drops = generate_extractive(articles, GenerateConfig(horizon_days=28))
    by_rule = {q["generator"]: q for q in questions.iter_rows(named=True)}
    assert set(by_rule) == {"extractive/v2/won", "extractive/v2/vote", "extractive/v2/indicator",
                            "extractive/v2/appointed"}
    assert drops["item_id"].to_list() == ["d1"] and drops["reason"].to_list() == ["no_outcome_report"]
    won = by_rule["extractive/v2/won"]
    assert won["title"] == "Who will win the 2026 Kestrel Bay mayoral election?"
    # background: the preview published by the open day, without the sentence naming the answer
    assert won["open_date"] == date(2026, 3, 1)
    assert won["background"] == "As reported on 2026-03-01: Polls are level."
    vote = by_rule["extractive/v2/vote"]
    assert (vote["answer"], vote["answer_type"], vote["candidate_outcomes"]) == (
        "Yes", "binary", ["Yes", "No"])
    # a December figure published in January is December of the year before
    assert by_rule["extractive/v2/indicator"]["title"] == (
        "What will annual consumer price inflation for December 2025 be, as reported by the National "
        "Statistics Office?")
    assert by_rule["extractive/v2/appointed"]["title"] == (
        "Who will Norhaven Rail appoint as its next chief executive?")
    kept, vdrops = validate_questions(questions)
    assert kept.height == 4 and vdrops.is_empty()


@pytest.fixture(scope="module")
def sample_articles(tmp_path_factory):
    """The sample corpus's articles as ``pastcast build`` makes them (ingest, then dedup)."""
    import polars as pl

    from pastcast import pipeline
    from warcs import SAMPLE

    work = tmp_path_factory.mktemp("sample-articles")
    pipeline.ingest(pipeline.CorpusFiles.discover(SAMPLE).warc, work, workers=1)
    pipeline.dedup(work)
    return pl.read_parquet(work / "articles.parquet"), pipeline.window_of


def _sample_ids() -> dict[str, str]:
    """url -> the sample's article id (a001...), from the source headers."""
    from warcs import ROOT

    ids = {}
    for path in sorted((ROOT / "corpora" / "sample_src" / "articles").glob("*.md")):
        head = dict(line.split(": ", 1) for line in path.read_text(encoding="utf-8")
                    .split("\n\n", 1)[0].splitlines())
        ids[f"https://{head['domain']}{head['path']}"] = head["id"]
    return ids


def test_sample_corpus_event_recall_and_answer_precision(sample_articles):
    """Measured with bench/extractive_questions.py: 22 of the 25 events are found, every
    question about an event has the right answer, and the two other questions (monthly house
    prices and retail sales) are correct reports too. The three misses are by design or out of
    reach: two semi-finals only reach a final (no single answer to ask for) and the minimum-wage
    result page carries no date: ingest dates it by its crawl, so it is no question source (its
    events.json copy is a preview). Bounds, not counts: a generator that finds more events, or
    more correct reports, passes; one that finds fewer, or answers one wrong, does not."""
    import json

    from warcs import ROOT

    articles, window_of = sample_articles
    questions, _ = generate_extractive(articles, GenerateConfig(window_start=window_of(articles)[0]))
    events = json.loads((ROOT / "corpora" / "sample_src" / "events.json").read_text())["events"]
    event_of = {a: e for e in events for a in [e["result_article"], *e["syndicated_copies"]]}
    source = dict(zip(articles["article_id"], articles["url"]))
    ids = _sample_ids()
    found, wrong, others = set(), [], []
    for q in questions.iter_rows(named=True):
        aid = ids[source[q["source_ids"][0]]]
        event = event_of.get(aid)
        if event is None:
            others.append((aid, q["answer"]))
        elif normalise(q["answer"]) == normalise(event["outcome"]):
            found.add(event["event_id"])
        else:
            wrong.append((event["event_id"], q["answer"]))
    # every event found today still is: at most the three misses above are missed
    assert len(found) >= 22 and set(e["event_id"] for e in events) - found <= {"E04", "E05", "E22"}
    assert wrong == []  # every question about an event has the event's answer
    assert {("a094", "up 0.4%"), ("a167", "up 0.6%")} <= set(others)
    # about one question per event (the copies of a story are one article after dedup) and a
    # few from other reports, not one per article
    assert 24 <= questions.height <= len(events) + 10
    titles = set(questions["title"])
    for title in ("Who will be elected mayor of Kestrel Bay in 2026?",
                  "Which team will win the 2026 Veloria Cup?",
                  "Who will win the 2026 Veloria Sports Personality of the Year award?",
                  "At what level will the Bank of Veloria set its benchmark rate in March 2026?",
                  "What will annual consumer price inflation for January 2026 be, as reported by the "
                  "National Statistics Office?",
                  "Who will Kestrel Bay Rovers appoint as its next head coach?"):
        assert title in titles, title
    kept, _ = validate_questions(questions)
    assert kept.height == questions.height and not leaks_in_own_text(kept)


def test_background_comes_from_an_article_about_the_subject_not_a_passing_mention():
    articles = frame([
        _dated(1, 20, "The Kestrel Bay mayoral election is on 29 March. Three candidates are standing.",
               month=2),
        _dated(2, 1, "Rain is expected across the north on Monday. Ferries may be cancelled. Roads will "
                     "be gritted. Officials said the Kestrel Bay mayoral election would not be affected."),
        _dated(3, 29, "Ana Ruiz won the Kestrel Bay mayoral election on Sunday. She took 54% of the vote."),
    ], ARTICLES)
    questions, _ = generate_extractive(articles, GenerateConfig(horizon_days=28))
    (q,) = questions.iter_rows(named=True)
    assert q["open_date"] == date(2026, 3, 1)
    assert q["background"] == ("As reported on 2026-02-20: The Kestrel Bay mayoral election is on 29 "
                               "March. Three candidates are standing.")
