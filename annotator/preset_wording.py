"""The presets' wording in the annotators' languages (issue #17), beside ``annotator.presets``.

English is the presets' own text (``presets.py``); this module gives each preset's guidelines, and each
criterion's label and question, in Japanese and Simplified Chinese, and the value labels by their English
text (the scales are shared by several presets). ``annotator.wording`` chooses what a page shows: the
lead's own wording of the project for the language, else these, else English.

Terms follow the collections' own guidelines: the DBDC labels are the Japanese DBDC's official ones
(破綻ではない / 破綻と言い切れないが、違和感を感じる / あきらかにおかしいと思う); the STC-3 scales and
nugget types follow the Chinese STC-3 / DCH-1 guidelines (A/S/E 评分, CNUG0, CNUG, CNUG*, HNUG, HNUG*).
Value labels keep their leading code before ": " (``NB: ...``, ``-1: ...``): the page shows the code as
the choice's short name and derives the keyboard letters from the English labels.
"""

from __future__ import annotations

from types import MappingProxyType

JA, ZH = "ja", "zh-hans"

# by preset key: guidelines, label, and per criterion key (label, question)
_PRESETS: dict[str, dict[str, dict]] = {
    JA: {
        "dch1": {
            "label": "DCH-1 ヘルプデスク",
            "guidelines": (
                "対話全体を注意深く読んでください。五つの基準で対話を評価してから、各投稿にナゲットの種類を"
                "付けてください。ナゲットとは、顧客が初期状態（問題に直面している）から目標状態（問題が解決した）"
                "へ進むのを助ける投稿、または同じ話者の連続した投稿です。同じラベルの連続した投稿は一つのナゲット"
                "になります。"
            ),
            "criteria": {
                "TS": ("タスクの提示", "解決すべきタスク（問題）は顧客によって明確に述べられていますか？"),
                "TA": ("タスクの達成", "タスクは実際に達成されましたか？"),
                "CS": ("顧客満足度", "顧客はこの対話に満足したと思われますか？ どの程度ですか？"),
                "HA": ("ヘルプデスクの適切さ", "ヘルプデスクは適切な情報を提供しましたか？"),
                "CA": ("顧客の適切さ", "顧客は適切な情報を提供しましたか？"),
                "nugget": ("ナゲットの種類", "この投稿のナゲットの種類はどれですか？"),
            },
        },
        "stc3": {
            "label": "STC-3 / DialEval",
            "guidelines": (
                "対話全体を読んでください。タスクの達成度（A）、顧客満足度（S）、対話の効率（E）を -2 から 2 で"
                "評価し、各ターン（発話ブロック）にナゲットの種類を付けてください。"
            ),
            "criteria": {
                "A": ("タスクの達成度", "問題は解決されましたか？ どの程度ですか？"),
                "S": ("顧客満足度", "顧客はこの対話にどの程度満足していますか？"),
                "E": ("対話の効率", "発話は問題の効率的な解決を促していますか？"),
                "nugget": ("ナゲットの種類", "このターンのナゲットの種類はどれですか？"),
            },
        },
        "coherence": {
            "label": "対話の一貫性",
            "guidelines": (
                "対話がどの程度一貫しているかを判断してください。ターンごとの評価では、各ターンをそれより前の"
                "ターンだけを見て判断してください。並べ替えでは、シャッフルされたターンを最も自然につながる順序に"
                "戻してください。最初の話者は最初のままで、話者は交互でなければなりません。"
            ),
            "criteria": {
                "overall": ("全体の一貫性", "この対話は全体としてどの程度一貫していますか？"),
                "turn_coherence": (
                    "ターンの一貫性",
                    "それまでの対話を踏まえて、このターンはどの程度一貫していますか？",
                ),
            },
        },
        "dbdc": {
            "label": "対話破綻",
            "guidelines": (
                "システムの各発話について、その時点までの対話から、対話を円滑に続けられるかを判断してください："
                "NB（破綻ではない）、PB（破綻と言い切れないが、違和感を感じる）、B（あきらかにおかしいと思う）。"
            ),
            "criteria": {
                "breakdown": (
                    "対話破綻",
                    "このシステム発話の後、対話を円滑に続けることは難しいですか？",
                ),
            },
        },
        "nlpcc": {
            "label": "NLPCC オープンドメイン",
            "guidelines": (
                "各応答について、すべての「はい／いいえ」の質問に答えてください。応答が壊れている、攻撃的である、"
                "または無関係で意味をなさない場合は、重大な誤りとして印を付けてください。"
            ),
            "criteria": {
                "severe_error": ("重大な誤り", "応答に重大な誤りがありますか？"),
                "not_ambiguous": ("曖昧さがない", "応答は曖昧さや多義性がありませんか？"),
                "natural_style": ("自然な文体", "応答は硬い書き言葉の文体ではありませんか？"),
                "informative": ("情報量", "応答は適切な量の情報を含んでいますか？"),
                "emotion": ("感情", "応答に主観的な態度や明確な感情が表れていますか？"),
                "affecting": ("心を動かす", "応答は読み手を嬉しくさせたり悲しくさせたりしますか？"),
                "new_content": ("新しい内容", "応答は新しい内容や実体をもたらしていますか？"),
                "new_round": ("新しいやりとり", "応答は新しいやりとりのきっかけになりえますか？"),
                "related_entities": ("関連する実体", "応答は文脈に関連する実体に言及していますか？"),
                "continues_topic": ("話題の継続", "応答は文脈の話題を続けていますか？"),
            },
        },
    },
    ZH: {
        "dch1": {
            "label": "DCH-1 客服对话",
            "guidelines": (
                "请仔细阅读整个对话。先按五项标准为对话评分，再为每条帖子标注块（nugget）类型。块是帮助顾客从"
                "初始状态（遇到问题）走向目标状态（问题解决）的一条帖子，或同一说话人的连续几条帖子。标签相同的"
                "连续帖子构成一个块。"
            ),
            "criteria": {
                "TS": ("任务陈述", "顾客是否清楚地陈述了任务（需要解决的问题）？"),
                "TA": ("任务完成", "任务是否真正完成了？"),
                "CS": ("顾客满意度", "顾客可能对这段对话满意吗？满意到什么程度？"),
                "HA": ("客服恰当性", "客服是否提供了恰当的信息？"),
                "CA": ("顾客恰当性", "顾客是否提供了恰当的信息？"),
                "nugget": ("块类型", "这条帖子是哪种块类型？"),
            },
        },
        "stc3": {
            "label": "STC-3 / DialEval",
            "guidelines": (
                "请阅读整个对话。按 -2 到 2 为任务完成度（A 评分）、顾客满意度（S 评分）和对话有效性（E 评分）"
                "打分，然后为每个话轮（话语块）标注块（nugget）类型。"
            ),
            "criteria": {
                "A": ("任务完成度", "问题是否得到解决？解决到什么程度？"),
                "S": ("顾客满意度", "顾客对这段对话有多满意？"),
                "E": ("对话有效性", "这些话语是否促进了问题的高效解决？"),
                "nugget": ("块类型", "这个话轮是哪种块类型？"),
            },
        },
        "coherence": {
            "label": "对话连贯性",
            "guidelines": (
                "请判断对话的连贯程度。逐轮评分时，只根据每个话轮之前的内容来判断该话轮。重新排序时，把打乱的"
                "话轮恢复为读起来最连贯的顺序；第一位说话人保持在最前，说话人必须交替出现。"
            ),
            "criteria": {
                "overall": ("整体连贯性", "这段对话整体上有多连贯？"),
                "turn_coherence": ("话轮连贯性", "结合之前的对话，这个话轮有多连贯？"),
            },
        },
        "dbdc": {
            "label": "对话崩溃",
            "guidelines": (
                "对于每条系统话语，请根据到该话语为止的对话，判断对话能否顺畅地继续下去：NB（不是崩溃）、"
                "PB（可能崩溃）或 B（崩溃）。"
            ),
            "criteria": {
                "breakdown": ("对话崩溃", "在这条系统话语之后，对话是否难以顺畅地继续下去？"),
            },
        },
        "nlpcc": {
            "label": "NLPCC 开放域对话",
            "guidelines": (
                "请对每条回复回答所有是/否问题；当回复内容残缺、具有冒犯性或是毫不相关的胡言乱语时，请标注为严重错误。"
            ),
            "criteria": {
                "severe_error": ("严重错误", "回复是否含有严重错误？"),
                "not_ambiguous": ("无歧义", "回复内容是否不含糊、不存在歧义？"),
                "natural_style": ("自然表达", "回复是否不是明显的书面化表达？"),
                "informative": ("信息量", "回复内容的信息量是否适当？"),
                "emotion": ("情绪", "回复中是否有主观态度或明显的情绪表达？"),
                "affecting": ("感染力", "回复内容是否会让人感到开心或难过？"),
                "new_content": ("新内容", "回复中是否有发散，生成了新的内容或实体？"),
                "new_round": ("引发新对话", "回复内容能否引发新一轮的对话？"),
                "related_entities": ("相关实体", "回复中是否有与上文内容相关或重叠的实体词？"),
                "continues_topic": ("延续话题", "回复内容是否延续了上文所探讨的话题？"),
            },
        },
    },
}

# value labels by their English text (presets.py), shared by every preset with the scale
_VALUES: dict[str, dict[str, str]] = {
    JA: {
        "-1: no": "-1: いいえ",
        "0: partly": "0: 部分的に",
        "1: yes": "1: はい",
        "-2: very poor": "-2: 非常に悪い",
        "-1: poor": "-1: 悪い",
        "0: neutral": "0: どちらでもない",
        "1: good": "1: 良い",
        "2: very good": "2: 非常に良い",
        "Yes": "はい",
        "No": "いいえ",
        "CNUG0: trigger nugget": "CNUG0: きっかけのナゲット",
        "CNUG: regular nugget": "CNUG: 通常のナゲット",
        "CNUG*: goal nugget (problem solved)": "CNUG*: 目標ナゲット（問題が解決した）",
        "HNUG: regular nugget": "HNUG: 通常のナゲット",
        "HNUG*: goal nugget (a solution)": "HNUG*: 目標ナゲット（解決策）",
        "NaN: not a nugget": "NaN: ナゲットではない",
        "CNaN: not a nugget": "CNaN: ナゲットではない",
        "HNaN: not a nugget": "HNaN: ナゲットではない",
        "1: very incoherent": "1: まったく一貫していない",
        "7: perfectly coherent": "7: 完全に一貫している",
        "1: completely incoherent": "1: まったく一貫していない",
        "5: perfectly coherent": "5: 完全に一貫している",
        "NB: not a breakdown": "NB: 破綻ではない",
        "PB: possible breakdown": "PB: 破綻と言い切れないが、違和感を感じる",
        "B: breakdown": "B: あきらかにおかしいと思う",
    },
    ZH: {
        "-1: no": "-1: 否",
        "0: partly": "0: 部分",
        "1: yes": "1: 是",
        "-2: very poor": "-2: 非常差",
        "-1: poor": "-1: 差",
        "0: neutral": "0: 一般",
        "1: good": "1: 好",
        "2: very good": "2: 非常好",
        "Yes": "是",
        "No": "否",
        "CNUG0: trigger nugget": "CNUG0: 触发块",
        "CNUG: regular nugget": "CNUG: 普通块",
        "CNUG*: goal nugget (problem solved)": "CNUG*: 目标块（问题已解决）",
        "HNUG: regular nugget": "HNUG: 普通块",
        "HNUG*: goal nugget (a solution)": "HNUG*: 目标块（给出解决方案）",
        "NaN: not a nugget": "NaN: 不是块",
        "CNaN: not a nugget": "CNaN: 不是块",
        "HNaN: not a nugget": "HNaN: 不是块",
        "1: very incoherent": "1: 非常不连贯",
        "7: perfectly coherent": "7: 完全连贯",
        "1: completely incoherent": "1: 完全不连贯",
        "5: perfectly coherent": "5: 完全连贯",
        "NB: not a breakdown": "NB: 不是崩溃",
        "PB: possible breakdown": "PB: 可能崩溃",
        "B: breakdown": "B: 崩溃",
    },
}

PRESET_WORDING = MappingProxyType(_PRESETS)
VALUE_LABELS = MappingProxyType(_VALUES)
LANGUAGES = (JA, ZH)  # the languages presets are worded in beside English
