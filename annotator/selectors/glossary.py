"""The labels an annotation page offers, explained: every criterion asked on the page with its question, and
each of its values that has a definition (nugget types, breakdown labels: the descriptions in the scheme's file),
with the letter key that chooses it where there is one (``n`` is No in NLPCC and NB in breakdown projects).
The page shows it under the guidelines, so a lead's own guidelines never leave a label unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.wording import criterion_wording


@dataclass
class GlossaryValue:
    label: str  # in the reader's language, as the page shows it ("CNUG0: trigger nugget")
    definition: str
    letter: str = ""  # the letter key choosing it ("n"), or ""


@dataclass
class GlossaryCriterion:
    label: str
    question: str
    definition: str = ""  # what the criterion means (the NLPCC aspect it asks about), or ""
    values: list[GlossaryValue] = field(default_factory=list)


def _page_questions(page) -> list:
    questions = []
    for block in page.blocks:
        for post in block.posts:
            questions += post.questions
        questions += block.questions
    return questions + list(page.dialogue_questions)


@dataclass
class Glossary:
    criteria: list[GlossaryCriterion]
    letters: list[tuple[str, str]]  # (letter key, the value it chooses) on this page: ("n", "No") or ("n", "NB")

    def __bool__(self) -> bool:
        return bool(self.criteria)


def label_glossary(page) -> Glossary:
    """The page's criteria in the order first asked, each with the values it offers anywhere on the page
    (a customer's and a helpdesk's nugget types together) that need explaining, and the letter keys."""
    project = page.assignment.dialogue.project
    found: dict[str, GlossaryCriterion] = {}
    described: dict[str, dict[str, str]] = {}
    seen: dict[str, set[str]] = {}
    letters: dict[str, str] = {}
    for q in _page_questions(page):
        key = q.criterion.key
        if key not in found:
            wording = criterion_wording(project, q.criterion)
            found[key] = GlossaryCriterion(label=q.label, question=q.question, definition=wording.description)
            described[key] = wording.value_descriptions
            seen[key] = set()
        for choice in q.choices:
            if choice["value"] in seen[key]:
                continue
            seen[key].add(choice["value"])
            if choice.get("letter"):
                letters.setdefault(choice["letter"], choice["short"])
            definition = described[key].get(choice["value"], "")
            if definition:
                found[key].values.append(
                    GlossaryValue(label=choice["label"], definition=definition, letter=choice.get("letter", ""))
                )
    return Glossary(list(found.values()), list(letters.items()))
