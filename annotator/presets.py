"""The annotation schemes a project starts from (design.md section 2).

Each preset lists its criteria with their exact scales; ``project_create`` copies them into
the project, after which a lead may edit them. Scales and labels follow the source papers:
DCH-1 (Zeng et al. 2017), STC-3/DialEval (Sakai 2017; the NTCIR-14 data), dialogue coherence
(Gandhe & Traum 2008), dialogue breakdown (Tsunomori et al. 2020, DBDC3) and the NLPCC 2019
open-domain evaluation (Shan et al. 2019).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from django.utils.translation import gettext_noop as N_

from scoring.metric_names import (
    BREAKDOWN_METRICS,
    REORDERING_METRICS,
    STC3_NUGGET_METRICS,
    STC3_QUALITY_METRICS,
    lower_is_better,
)

CUSTOMER, HELPDESK = "customer", "helpdesk"


def pgettext_noop(context: str, message: str) -> str:
    """Marks ``message`` for the catalogues under ``context`` and returns it unchanged (``N_`` with a context).

    The context is ``"<preset key> preset"`` where a preset's text is translated otherwise than the same
    English elsewhere (``annotator.wording`` looks there first); ``makemessages`` collects it
    (``--keyword=pgettext_noop:1c,2``).
    """
    return message


def _scale(pairs: list[tuple[str, str]], speaker: str | None = None) -> list[dict]:
    return [dict(value=v, label=lab, **({"speaker": speaker} if speaker else {})) for v, lab in pairs]


# Value labels keep their code before ": ": the page shows it as the choice's short name.
THREE_POINT = [("-1", N_("-1: no")), ("0", N_("0: partly")), ("1", N_("1: yes"))]
FIVE_POINT = [
    ("-2", N_("-2: very poor")),
    ("-1", N_("-1: poor")),
    ("0", N_("0: neutral")),
    ("1", N_("1: good")),
    ("2", N_("2: very good")),
]
YES_NO = [("yes", N_("Yes")), ("no", N_("No"))]


@dataclass(frozen=True)
class CriterionSpec:
    key: str
    label: str
    question: str
    unit: str
    values: list[dict]
    level: str
    speaker: str = ""


class RunScheme(StrEnum):
    """How a project's system runs are read and scored (``scoring.app.services.runs.scoring``)."""

    STC3 = "stc3"  # an STC-3/DialEval submission: quality distributions per dialogue, nuggets per turn
    DBDC = "dbdc"  # DBDC ``*.labels.json``: a label and a distribution per annotated system turn
    REORDERING = "reordering"  # no file: the annotators' own reorderings are scored


class UnitRule(StrEnum):
    """Which units of a turn-level criterion each dialogue asks about (``annotator.units``).

    Applied after the criterion's own unit kind and speaker; dialogue-level criteria ask about the
    dialogue whatever the rule.
    """

    # every post (or turn) of the criterion's speaker
    EVERY = "every"
    # The DBDC3 protocol (Higashinaka et al. 2017; the DBDC3 evaluation script): in a dialogue
    # imported with labels, the turns its source annotated (a turn with an empty annotations list
    # in a file that annotates other turns is not a unit: the opening system prompt of the English
    # logs); in a new collection (JSON lines, logs without labels), every turn that follows at
    # least one turn by another speaker (for breakdown: each system turn after the first user turn).
    RESPONSES = "responses"


class Summary(StrEnum):
    """Preset-specific summaries the statistics payload carries beside agreement."""

    UCH = "uch"  # UCH/AUCH per dialogue and its correlation with the ratings (Zeng et al. 2017)
    NLPCC = "nlpcc"  # aspect scores per system (Shan et al. 2019)


@dataclass(frozen=True)
class LeaderboardColumn:
    """One metric on the leaderboard: its dotted path into ``Run.scores``, its direction, the group it is
    listed in, and whether it is one of the few shown before a group is opened."""

    key: str
    label: str
    lower_is_better: bool
    group: str = "Metrics"
    featured: bool = True


def _columns(
    path: str, names: list[str], group: str = "Metrics", featured: tuple[str, ...] | None = None
) -> tuple[LeaderboardColumn, ...]:
    return tuple(
        LeaderboardColumn(f"{path}.{n}", n, lower_is_better(n), group, featured is None or n in featured) for n in names
    )


def _breakdown_columns() -> tuple[LeaderboardColumn, ...]:
    """The 26 breakdown metrics in four families; the DBDC3 evaluation's main ones are shown first."""
    main = ("Accuracy(NB,PB,B)", "F1(B)", "JSD(NB,PB,B)", "MSE(NB,PB,B)")
    families = (
        ("Accuracy", lambda n: n.startswith("Accuracy")),
        ("F1, precision, recall", lambda n: n.startswith(("F1", "Precision", "Recall"))),
        ("JSD", lambda n: n.startswith("JSD")),
        ("MSE", lambda n: n.startswith("MSE")),
    )
    return tuple(
        column
        for family, member in families
        for column in _columns("breakdown", [n for n in BREAKDOWN_METRICS if member(n)], family, main)
    )


@dataclass(frozen=True)
class PresetSpec:
    """An annotation scheme and everything that behaves differently for it.

    A new preset is one ``PresetSpec`` added to ``PRESETS``: the pages, assignment, statistics,
    run scoring and the leaderboard read these fields instead of testing the preset's key.
    """

    key: str
    label: str
    guidelines: str
    annotators_per_dialogue: int
    criteria: list[CriterionSpec]
    speakers: tuple[str, ...]  # the speakers a dialogue may have (imports are checked); empty: any
    reordering: bool = False  # annotators also reorder a permuted dialogue
    incremental: str | None = None  # the criterion judged turn by turn, later turns revealed once it is given
    merges: Mapping[str, Mapping[str, list[list[str]]]] = field(default_factory=dict)  # criterion -> name -> groups
    summaries: tuple[Summary, ...] = ()
    run_scheme: RunScheme | None = RunScheme.STC3
    leaderboard: tuple[LeaderboardColumn, ...] = ()
    aspects: Mapping[str, str] = field(default_factory=dict)  # NLPCC: question key -> aspect
    units: UnitRule = UnitRule.EVERY  # which turns of a dialogue are asked about
    formats: tuple[str, ...] = ()  # community formats "Detect" imports as this preset's own (JSON lines always)

    def __post_init__(self):
        object.__setattr__(self, "merges", MappingProxyType(dict(self.merges)))
        object.__setattr__(self, "aspects", MappingProxyType(dict(self.aspects)))
        if self.run_scheme == RunScheme.STC3 and not self.leaderboard:
            object.__setattr__(self, "leaderboard", stc3_leaderboard(self.criteria))


def stc3_leaderboard(criteria: list[CriterionSpec]) -> tuple[LeaderboardColumn, ...]:
    """Quality metrics for each dialogue-level criterion, then the nugget metrics; the -log2 forms
    (DialEval's published figures) in a group of their own."""
    columns = [
        LeaderboardColumn(f"quality.{c.key}.{m}", f"{c.key}.{m}", lower_is_better(m), "Quality", True)
        for c in criteria
        if c.unit == "dialogue"
        for m in STC3_QUALITY_METRICS
    ] + list(_columns("nugget", STC3_NUGGET_METRICS, "Nuggets"))
    plain = [c for c in columns if not c.key.endswith("_neglog2")]
    logs = [replace(c, group="-log2 forms", featured=False) for c in columns if c.key.endswith("_neglog2")]
    return tuple(plain + logs)


def _dch1_nugget_scale(customer_nan: tuple[str, str], helpdesk_nan: tuple[str, str]) -> list[dict]:
    """The nugget types of a customer's and of a helpdesk's post; ``*_nan``: the not-a-nugget (value, label)."""
    return _scale(
        [
            # Translators: nugget types follow the DCH-1 / STC-3 guidelines (CNUG0, CNUG, CNUG*, HNUG, HNUG*).
            ("CNUG0", N_("CNUG0: trigger nugget")),
            ("CNUG", N_("CNUG: regular nugget")),
            ("CNUG*", N_("CNUG*: goal nugget (problem solved)")),
            customer_nan,
        ],
        CUSTOMER,
    ) + _scale(
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
    criteria=[
        CriterionSpec(
            "TS",
            N_("Task statement"),
            N_("Is the task (the problem to be solved) clearly stated by Customer?"),
            "dialogue",
            _scale(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "TA",
            pgettext_noop("dch1 preset", "Task accomplishment"),
            N_("Is the task actually accomplished?"),
            "dialogue",
            _scale(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "CS",
            N_("Customer satisfaction"),
            N_("Is Customer likely to have been satisfied with the dialogue, and to what degree?"),
            "dialogue",
            _scale(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "HA",
            N_("Helpdesk appropriateness"),
            N_("Did Helpdesk provide appropriate information?"),
            "dialogue",
            _scale(THREE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "CA",
            N_("Customer appropriateness"),
            N_("Did Customer provide appropriate information?"),
            "dialogue",
            _scale(THREE_POINT),
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
    formats=("stc3",),
    criteria=[
        CriterionSpec(
            "A",
            pgettext_noop("stc3 preset", "Task accomplishment"),
            N_("Has the problem been solved? To what extent?"),
            "dialogue",
            _scale(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "S",
            N_("Customer satisfaction"),
            N_("How satisfied is the customer with the dialogue?"),
            "dialogue",
            _scale(FIVE_POINT),
            "ordinal",
        ),
        CriterionSpec(
            "E",
            N_("Dialogue effectiveness"),
            N_("Do the utterances promote an efficient solution of the problem?"),
            "dialogue",
            _scale(FIVE_POINT),
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
    run_scheme=RunScheme.REORDERING,
    leaderboard=_columns("reordering", REORDERING_METRICS),
    criteria=[
        CriterionSpec(
            "overall",
            N_("Overall coherence"),
            N_("How coherent is this dialogue as a whole?"),
            "dialogue",
            _scale(
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
            _scale(
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
            _scale(
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
    run_scheme=RunScheme.DBDC,
    leaderboard=_breakdown_columns(),
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
            _scale(YES_NO),
            "nominal",
            speaker="system",
        ),
    ]
    + [
        CriterionSpec(key, _NLPCC_LABELS[key], question, "reply", _scale(YES_NO), "nominal", speaker="system")
        for key, _aspect, question, _column in NLPCC_QUESTIONS
    ],
    aspects={key: aspect for key, aspect, _q, _c in NLPCC_QUESTIONS},
    summaries=(Summary.NLPCC,),
    run_scheme=None,  # systems are compared by the judged aspect scores of their replies (the dashboard)
)

PRESETS: dict[str, PresetSpec] = {p.key: p for p in (DCH1, STC3, COHERENCE, DBDC, NLPCC)}


def preset_choices() -> list[tuple[str, str]]:
    """``Project.preset``'s choices, read from ``PRESETS`` when asked (so a new preset needs no migration)."""
    return [(key, spec.label) for key, spec in PRESETS.items()]
