"""Whether a dialogue fits a project: the checks an import makes before it writes anything.

A dialogue fits its project's preset when every criterion has at least one unit in it (a
breakdown project needs a system turn, an NLPCC project a reply) and every speaker is one the
preset labels (``Scheme.speakers``; empty: any). With "Detect", a dialogue of a community
format the preset does not take as its own (``Scheme.formats``; JSON lines always fit) is
refused with a message saying how to import it anyway: a format chosen by name is the
person's decision. Messages speak to a person and say what the preset needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotator.importers import ParsedDialogue
from annotator.models import Criterion, Unit
from annotator.presets import Scheme
from annotator.selectors.structure import DialogueShape
from annotator.units import required_units
from scoring.errors import N_

FORMAT_NAMES = {
    "stc3": "STC-3 / DialEval JSON",
    "dbdc": "DBDC3 log",
    "nlpcc": "NLPCC xlsx",
    "jsonl": "JSON lines",
    "chat": "chat transcripts",
    "pairwise": "pairwise JSON lines",
}
ALWAYS_FIT = ("jsonl", "chat")  # the new collections' formats, of any scheme
UNIT_NOUNS = {  # singular, plural
    Unit.DIALOGUE: ("dialogue", "dialogues"),
    Unit.POST: ("post", "posts"),
    Unit.TURN: ("turn", "turns"),
    Unit.SYSTEM_TURN: ("system turn", "system turns"),
    Unit.REPLY: ("reply", "replies"),
}


def _either(names: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'.

    >>> _either(["customer", "helpdesk"]), _either(["S"]), _either(["a", "b", "c"])
    ('customer and helpdesk', 'S', 'a, b and c')
    """
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def dialogue_fit_check(
    parsed: ParsedDialogue,
    *,
    spec: Scheme,
    criteria: Sequence[Criterion],
    shape: DialogueShape,
    format_chosen: bool,
) -> None:
    """Raise ``InputError`` (naming the file and the dialogue) unless ``parsed`` fits the preset.

    Checked in this order: a unit for every criterion, the speakers, then (with "Detect") the
    format. ``shape`` is the dialogue's speakers, utterance blocks and source annotation marks.
    """
    present = list(dict.fromkeys(shape.speakers))
    for criterion in criteria:
        if required_units(criterion, shape):
            continue
        noun, nouns = UNIT_NOUNS.get(criterion.unit, (criterion.unit, f"{criterion.unit}s"))
        params = {"noun": noun, "nouns": nouns, "present": _either(present), "preset": spec.label}
        params |= {"speaker": criterion.speaker, "key": criterion.key}
        raise parsed.fail(
            N_(
                "has no %(noun)s by %(speaker)s (its speakers are %(present)s): %(preset)s projects label "
                "%(nouns)s by %(speaker)s (criterion %(key)s)"
            )
            if criterion.speaker
            else N_(
                "has no %(noun)s (its speakers are %(present)s): %(preset)s projects label %(nouns)s "
                "(criterion %(key)s)"
            ),
            params=params,
        )
    if spec.speakers:
        unknown = [s for s in present if s not in spec.speakers]
        if unknown:
            raise parsed.fail(
                N_("has speakers %(unknown)s: %(preset)s projects label dialogues between %(speakers)s")
                if len(unknown) > 1
                else N_("has speaker %(unknown)s: %(preset)s projects label dialogues between %(speakers)s"),
                params={"unknown": _either(unknown), "preset": spec.label, "speakers": _either(spec.speakers)},
            )
    source = parsed.source_meta.get("format", "")
    if not format_chosen and source in FORMAT_NAMES and source not in ALWAYS_FIT and source not in spec.formats:
        takes = _either([FORMAT_NAMES[f] for f in (*spec.formats, *ALWAYS_FIT)])
        raise parsed.fail(
            N_(
                "is a dialogue of the %(format)s format, and %(preset)s projects take %(takes)s; "
                "to import it into this project anyway, choose %(format)s as the format"
            ),
            params={"format": FORMAT_NAMES[source], "preset": spec.label, "takes": takes},
        )
