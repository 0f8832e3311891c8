"""The annotation schemes a project starts from (design.md section 2).

Each preset lists its criteria with their exact scales; ``project_create`` copies them into
the project, after which a lead may edit them. Scales and labels follow the source papers:
DCH-1 (Zeng et al. 2017), STC-3/DialEval (Sakai 2017; the NTCIR-14 data), dialogue coherence
(Gandhe & Traum 2008), dialogue breakdown (Tsunomori et al. 2020, DBDC3) and the NLPCC 2019
open-domain evaluation (Shan et al. 2019).
"""

from __future__ import annotations

from django.utils.translation import gettext_noop as N_

from annotator.presets.spec import (
    CUSTOMER,
    DBDC_RUNS,
    FIVE_POINT,
    HELPDESK,
    REORDERING_RUNS,
    STC3_RUNS,
    THREE_POINT,
    YES_NO,
    Comparison,
    CriterionSpec,
    PresetSpec,
    Summary,
    UnitRule,
    pgettext_noop,
    scale_of,
)


def _dch1_nugget_scale(customer_nan: tuple[str, str], helpdesk_nan: tuple[str, str]) -> list[dict]:
    """The nugget types of a customer's and of a helpdesk's post; ``*_nan``: the not-a-nugget (value, label)."""
    return scale_of(
        [
            # Translators: nugget types follow the DCH-1 / STC-3 guidelines (CNUG0, CNUG, CNUG*, HNUG, HNUG*).
            ("CNUG0", N_("CNUG0: trigger nugget")),
            ("CNUG", N_("CNUG: regular nugget")),
            ("CNUG*", N_("CNUG*: goal nugget (problem solved)")),
            customer_nan,
        ],
        CUSTOMER,
    ) + scale_of(
        [
            ("HNUG", N_("HNUG: regular nugget")),
            ("HNUG*", N_("HNUG*: goal nugget (a solution)")),
            helpdesk_nan,
        ],
        HELPDESK,
    )


DCH1 = PresetSpec(
    key="dch1",
    label=N_("DCH-1 helpdesk"),
    guidelines=N_(
        "Read the whole dialogue carefully. Rate it on the five criteria, then label every post with its "
        "nugget type. A nugget is a post, or consecutive posts by the same speaker, that helps the customer "
        "move from the initial state (facing a problem) towards the target state (problem solved). "
        "Consecutive posts with the same label form one nugget."
    ),
    annotators_per_dialogue=3,
    speakers=(CUSTOMER, HELPDESK),
    summaries=(Summary.UCH,),
    run_scheme=STC3_RUNS,
    criteria=[
        CriterionSpec(
            "TS",
            N_("Task statement"),
            N_("Is the task (the problem to be solved) clearly stated by Customer?"),
            "dialogue",
            scale_of(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "TA",
            pgettext_noop("dch1 preset", "Task accomplishment"),
            N_("Is the task actually accomplished?"),
            "dialogue",
            scale_of(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "CS",
            N_("Customer satisfaction"),
            N_("Is Customer likely to have been satisfied with the dialogue, and to what degree?"),
            "dialogue",
            scale_of(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "HA",
            N_("Helpdesk appropriateness"),
            N_("Did Helpdesk provide appropriate information?"),
            "dialogue",
            scale_of(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "CA",
            N_("Customer appropriateness"),
            N_("Did Customer provide appropriate information?"),
            "dialogue",
            scale_of(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "nugget",
            N_("Nugget type"),
            N_("Which nugget type is this post?"),
            "post",
            _dch1_nugget_scale(*[("NaN", N_("NaN: not a nugget"))] * 2),
            "nominal",
        ),
    ],
)

STC3 = PresetSpec(
    key="stc3",
    label=N_("STC-3 / DialEval"),
    guidelines=N_(
        "Read the whole dialogue. Rate task accomplishment (A), customer satisfaction (S) and dialogue "
        "effectiveness (E) from -2 to 2, then give each turn (utterance block) its nugget type."
    ),
    annotators_per_dialogue=3,
    speakers=(CUSTOMER, HELPDESK),
    summaries=(Summary.UCH,),
    run_scheme=STC3_RUNS,
    formats=("stc3",),
    criteria=[
        CriterionSpec(
            "A",
            pgettext_noop("stc3 preset", "Task accomplishment"),
            N_("Has the problem been solved? To what extent?"),
            "dialogue",
            scale_of(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "S",
            N_("Customer satisfaction"),
            N_("How satisfied is the customer with the dialogue?"),
            "dialogue",
            scale_of(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "E",
            N_("Dialogue effectiveness"),
            N_("Do the utterances promote an efficient solution of the problem?"),
            "dialogue",
            scale_of(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "nugget",
            N_("Nugget type"),
            N_("Which nugget type is this turn?"),
            "turn",
            _dch1_nugget_scale(("CNaN", N_("CNaN: not a nugget")), ("HNaN", N_("HNaN: not a nugget"))),
            "nominal",
        ),
    ],
)

COHERENCE = PresetSpec(
    key="coherence",
    label=N_("Dialogue coherence"),
    guidelines=N_(
        "Judge how coherent the dialogue is. For turn-by-turn ratings, judge each turn given only the turns "
        "before it. For reordering, put the shuffled turns back into the order that reads most coherently; "
        "the first speaker stays first and the speakers must alternate."
    ),
    annotators_per_dialogue=3,
    speakers=(),  # any: coherence is judged of any dialogue
    reordering=True,
    incremental="turn_coherence",
    run_scheme=REORDERING_RUNS,
    criteria=[
        CriterionSpec(
            "overall",
            N_("Overall coherence"),
            N_("How coherent is this dialogue as a whole?"),
            "dialogue",
            scale_of(
                [
                    ("1", N_("1: very incoherent")),
                    ("2", "2"),
                    ("3", "3"),
                    ("4", "4"),
                    ("5", "5"),
                    ("6", "6"),
                    ("7", N_("7: perfectly coherent")),
                ]
            ),
            "interval",
        ),
        CriterionSpec(
            "turn_coherence",
            N_("Turn coherence"),
            N_("How coherent is this turn, given the dialogue before it?"),
            "turn",
            scale_of(
                [
                    ("1", N_("1: completely incoherent")),
                    ("2", "2"),
                    ("3", "3"),
                    ("4", "4"),
                    ("5", N_("5: perfectly coherent")),
                ]
            ),
            "interval",
        ),
    ],
)

DBDC = PresetSpec(
    key="dbdc",
    label=N_("Dialogue breakdown"),
    guidelines=N_(
        "For each system utterance, judge from the dialogue up to that point whether the conversation can "
        "continue easily: NB (not a breakdown), PB (possible breakdown) or B (breakdown)."
    ),
    annotators_per_dialogue=30,
    speakers=("U", "S"),
    formats=("dbdc",),
    criteria=[
        CriterionSpec(
            "breakdown",
            N_("Dialogue breakdown"),
            N_("Is it difficult to continue the conversation smoothly after this system utterance?"),
            "system_turn",
            scale_of(
                [
                    # Translators: the Japanese DBDC's official labels are 破綻ではない /
                    # 破綻と言い切れないが、違和感を感じる / あきらかにおかしいと思う.
                    ("O", N_("NB: not a breakdown")),
                    ("T", N_("PB: possible breakdown")),
                    ("X", N_("B: breakdown")),
                ]
            ),
            "ordinal",
            speaker="S",
        ),
    ],
    # Label merges reported beside the three-way analysis (Tsunomori et al. 2020).
    merges={"breakdown": {"NB+PB,B": [["O", "T"], ["X"]], "NB,PB+B": [["O"], ["T", "X"]]}},
    # judged with the dialogue shown up to the turn: the next turns appear once it is rated
    incremental="breakdown",
    # the system turns DBDC3 annotates: not the opening prompt, which responds to nobody
    units=UnitRule.RESPONSES,
    run_scheme=DBDC_RUNS,
)

# NLPCC 2019 task 3: yes/no questions per reply, two per aspect; the xlsx column of each.
NLPCC_QUESTIONS = [
    # key, aspect, question, xlsx column
    ("not_ambiguous", "syntax", N_("Is the reply free of vagueness and ambiguity?"), "回复内容不含糊，不存在歧义"),
    (
        "natural_style",
        "content_expression",
        N_("Is the reply free of a stiff, written style?"),
        "回复不是明显的书面化表达",
    ),
    (
        "informative",
        "content_expression",
        N_("Does the reply carry an appropriate amount of information?"),
        "回复内容信息量适当",
    ),
    (
        "emotion",
        "emotional_expression",
        N_("Does the reply show a subjective attitude or a clear emotion?"),
        "回复中有主观态度或明显的情绪表达",
    ),
    (
        "affecting",
        "emotional_expression",
        N_("Would the reply make the reader happy or sad?"),
        "回复内容会让人感到开心或难过",
    ),
    (
        "new_content",
        "topic_divergence",
        N_("Does the reply bring new content or entities?"),
        "回复中有发散，生成新的内容或实体",
    ),
    (
        "new_round",
        "topic_divergence",
        N_("Could the reply start a new round of conversation?"),
        "回复内容可以引发新一轮的对话",
    ),
    (
        "related_entities",
        "contextual_association",
        N_("Does the reply mention entities related to the context?"),
        "回复中有与上文内容相关或重叠的实体词",
    ),
    (
        "continues_topic",
        "contextual_association",
        N_("Does the reply continue the topic of the context?"),
        "回复内容延续了上文所探讨的话题",
    ),
]
NLPCC_SEVERE_ERROR = ("severe_error", N_("Does the reply contain a severe error?"), "特殊标注")
# the criteria's labels (the dashboard's aspect "Emotion" is another word in Chinese)
_NLPCC_LABELS = {
    "severe_error": N_("Severe error"),
    "not_ambiguous": N_("Not ambiguous"),
    "natural_style": N_("Natural style"),
    "informative": N_("Informative"),
    "emotion": pgettext_noop("nlpcc preset", "Emotion"),
    "affecting": N_("Affecting"),
    "new_content": N_("New content"),
    "new_round": N_("New round"),
    "related_entities": N_("Related entities"),
    "continues_topic": N_("Continues topic"),
}

NLPCC = PresetSpec(
    key="nlpcc",
    label=N_("NLPCC open domain"),
    guidelines=N_(
        "For each reply, answer every yes/no question, and mark a severe error when the reply is broken, "
        "offensive or unrelated nonsense."
    ),
    annotators_per_dialogue=3,
    speakers=("user", "system"),  # what the NLPCC reader makes of a question and its reply
    formats=("nlpcc",),
    criteria=[
        CriterionSpec(
            NLPCC_SEVERE_ERROR[0],
            _NLPCC_LABELS[NLPCC_SEVERE_ERROR[0]],
            NLPCC_SEVERE_ERROR[1],
            "reply",
            scale_of(YES_NO),
            "nominal",
            speaker="system",
        ),
    ]
    + [
        CriterionSpec(key, _NLPCC_LABELS[key], question, "reply", scale_of(YES_NO), "nominal", speaker="system")
        for key, _aspect, question, _column in NLPCC_QUESTIONS
    ],
    aspects={key: aspect for key, aspect, _q, _c in NLPCC_QUESTIONS},
    summaries=(Summary.NLPCC,),
    run_scheme=None,  # systems are compared by the judged aspect scores of their replies (the dashboard)
)

# Pairwise comparison of two systems' responses to one context (ACUTE-Eval, Li et al. 2019; Chatbot Arena,
# Chiang et al. 2024): which response is better, with explicit ties and "both bad"; systems are ranked with
# Bradley-Terry (scoring.pairwise). A lead adds criteria (coherence, helpfulness) with the same scale.
PAIRWISE_COMPARISON = Comparison()
PAIRWISE = PresetSpec(
    key="pairwise",
    label=N_("Pairwise comparison"),
    guidelines=N_(
        "Read the conversation, then the two candidate responses to it. Say which response is better as the "
        "next turn of the conversation: Response 1, Response 2, a tie when they are about equally good, or both "
        "bad when neither is acceptable. Judge the content, not the length; the order the responses are shown "
        "in means nothing."
    ),
    annotators_per_dialogue=3,
    speakers=(),  # any: the context's speakers are the source's
    formats=("pairwise",),
    comparison=PAIRWISE_COMPARISON,
    summaries=(Summary.BRADLEY_TERRY,),
    run_scheme=None,  # systems are ranked from the votes themselves (the dashboard), not from uploaded runs
    criteria=[
        PAIRWISE_COMPARISON.criterion(
            "overall", N_("Overall"), N_("Which response is the better next turn of this conversation?")
        ),
    ],
)

PRESETS: dict[str, PresetSpec] = {p.key: p for p in (DCH1, STC3, COHERENCE, DBDC, NLPCC, PAIRWISE)}


def preset_choices() -> list[tuple[str, str]]:
    """``Project.preset``'s choices, read from ``PRESETS`` when asked (so a new preset needs no migration)."""
    return [(key, spec.label) for key, spec in PRESETS.items()]
