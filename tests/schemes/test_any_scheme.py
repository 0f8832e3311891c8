"""Whatever works for a preset works for any scheme: a generated scheme (criteria on the dialogue, every turn,
one speaker's posts, the responses or the last turn; nominal, ordinal, interval or ratio scales; with or
without "not applicable" and keyboard keys) goes through the annotation page, saves, statistics (equal to the
``krippendorff`` package's alpha with the not-applicable answers left out), the live figures, gold
distributions, a judge, the adaptive hand-out, the report, the scheme's export and the project archive."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.exporters import export_gold
from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.handout.services.next_item import next_item_hand_out
from annotator.judges.services.labels import judge_import
from annotator.models import Judgement, Project
from annotator.presets.document import scheme_document, scheme_from_document, scheme_read, scheme_yaml
from annotator.selectors.annotation import annotation_page
from annotator.selectors.structure import dialogue_shape
from annotator.services.judgements import Given, judgements_save
from annotator.services.schemes import scheme_export
from annotator.units import required_units
from evaluation.archive.export import project_archive
from evaluation.archive.restore import project_archive_import
from evaluation.judges.services.report import judge_report
from evaluation.services.incremental import live_figures, live_state_read
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.report.content import project_report
from evaluation.services.report.render import report_render
from evaluation.services.statistics import project_statistics
from tests.factories import project_with_work, user_make

pytestmark = pytest.mark.django_db

CODES = st.sampled_from(["a", "b", "c", "d", "e", "yes", "no", "x y", "é", "好"])


@st.composite
def criteria(draw, index: int) -> dict:
    unit = draw(st.sampled_from(["dialogue", "turn", "post", "system_turn"]))
    level = draw(st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
    n = draw(st.integers(2, 5))
    if level in ("interval", "ratio"):
        numbers = sorted(draw(st.sets(st.integers(0, 9), min_size=n, max_size=n)))
        codes = [str(x) for x in numbers]
    else:
        codes = draw(st.lists(CODES, min_size=n, max_size=n, unique=True))
    values = [{"value": c, "label": f"{c}: option {c}"} for c in codes]
    if draw(st.booleans()):  # keys of the scheme's own for every value
        for i, v in enumerate(values):
            v["key"] = "qwertyuio"[i]
    criterion = {
        "key": f"c{index}",
        "label": {"en": f"Criterion {index}", "ja": f"基準 {index}", "zh": f"标准 {index}"},
        "question": f"Question {index}?",
        "unit": unit,
        "level": level,
        "values": values,
    }
    if unit != "dialogue":
        speaker = draw(st.sampled_from(["", "A", "B"]))
        if speaker:
            criterion["speaker"] = speaker
        applies_to = draw(st.sampled_from(["every", "responses", "last"]))
        if applies_to != "every":
            criterion["applies_to"] = applies_to
    if draw(st.booleans()):
        criterion["not_applicable"] = {"value": "n/a", "label": {"en": "Does not apply", "ja": "該当なし"}, "key": "0"}
    return criterion


@st.composite
def schemes(draw) -> dict:
    n = draw(st.integers(1, 3))
    return {
        "scheme": 1,
        "key": "generated",
        "label": "A generated scheme",
        "guidelines": {"en": "Judge it.", "ja": "判定してください。"},
        "annotators_per_dialogue": 3,
        "speakers": ["A", "B"],
        "criteria": [draw(criteria(i)) for i in range(n)],
    }


def _answers(assignment, rng: random.Random) -> list[Given]:
    """A value (sometimes "not applicable") for every unit every criterion asks about."""
    shape = dialogue_shape(assignment.dialogue_id)
    given = []
    for criterion in assignment.dialogue.project.criteria.all():
        for unit in required_units(criterion, shape):
            scale = criterion.allowed_values()
            if criterion.not_applicable and rng.random() < 0.25:
                given.append(Given(criterion.key, unit, criterion.not_applicable_value))
            else:
                given.append(Given(criterion.key, unit, rng.choice(scale)))
    return given


def _alpha(project: Project, key: str, level: str) -> float:
    """The ``krippendorff`` package's alpha from the judgements table itself, "not applicable" left out."""
    import krippendorff

    criterion = project.criteria.get(key=key)
    scale = criterion.allowed_values()
    rows = Judgement.objects.filter(criterion=criterion).values_list(
        "assignment__annotator_id", "assignment__dialogue_id", "unit", "value"
    )
    raters = sorted({r[0] for r in rows})
    units = sorted({(r[1], r[2]) for r in rows})
    data = np.full((len(raters), len(units)), np.nan)
    for rater, dialogue, unit, value in rows:
        if value != criterion.not_applicable_value:
            number = float(value) if level in ("interval", "ratio") else scale.index(value)
            data[raters.index(rater), units.index((dialogue, unit))] = number
    if np.sum(np.sum(~np.isnan(data), axis=0) >= 2) == 0 or len(np.unique(data[~np.isnan(data)])) < 2:
        return float("nan")
    domain = None if level in ("interval", "ratio") else list(range(len(scale)))
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(document=schemes(), seed=st.integers(0, 1000))
def test_a_generated_scheme_works_everywhere(document, seed, tmp_path_factory, client):
    cache.clear()  # each example starts afresh in the test's database
    Project.objects.filter(slug__startswith="gen").delete()
    get_user_model().objects.filter(username__startswith="gen").delete()
    rng = random.Random(seed)
    scheme = scheme_read(scheme_yaml(document), "generated.yaml")
    assert scheme_document(scheme) == {**document, "criteria": scheme_document(scheme)["criteria"]}

    # given a project of the scheme with the demo's A/B dialogues and three annotators who answer everything
    work = project_with_work("coherence", slug="gen", annotators=3, scheme=scheme, prefix=f"gen{seed}")
    project = work.project
    for person in work.annotators:
        for assignment in work.assignments_of(person):
            page = annotation_page(assignment)  # the page asks every unit with the scheme's choices and keys
            shown = [q for b in page.blocks for q in [*b.questions, *(q for p in b.posts for q in p.questions)]]
            shown += page.dialogue_questions
            answers = _answers(assignment, rng)
            assert len(shown) == len(answers)
            for q in shown:
                spec = scheme.criterion(q.criterion.key)
                assert [c["value"] for c in q.choices][: len(spec.values)] == [v["value"] for v in spec.values if v]
                keys = [c["key"] for c in q.choices]
                assert len(set(keys)) == len(keys)
            judgements_save(assignment_id=assignment.pk, user=person, values=answers, submit=True)
    client.force_login(work.annotators[0])
    assert client.get(f"/items/{work.assignments_of(work.annotators[0])[0].pk}/").status_code == 200

    # then the statistics equal the krippendorff package's, with "not applicable" left out
    stats = project_statistics(project)
    for c in scheme.criteria:
        ours = stats["criteria"][c.key]["krippendorff_alpha"][c.level]
        theirs = _alpha(project, c.key, c.level)
        assert (np.isnan(theirs) and (ours is None or np.isnan(ours))) or ours == pytest.approx(theirs, abs=1e-9)
        not_applicable = Judgement.objects.filter(criterion__key=c.key, criterion__project=project, value="n/a").count()
        assert (
            stats["criteria"][c.key]["n_labels"]
            == Judgement.objects.filter(criterion__key=c.key, criterion__project=project).count() - not_applicable
        )
    # and so do the live figures the dashboard shows
    live_state_read(project)
    live_state_rebuild(project_id=project.pk)
    live = live_figures(project)["criteria"]
    for c in scheme.criteria:
        assert live[c.key]["n_labels"] == stats["criteria"][c.key]["n_labels"]
    # and the gold distributions count no "not applicable"
    gold = json.loads(export_gold(project=project, fmt="distributions-json"))
    for c in scheme.criteria:
        assert sum(item["n"] for item in gold["criteria"][c.key]["items"]) == stats["criteria"][c.key]["n_labels"]
        assert all("n/a" not in item["counts"] for item in gold["criteria"][c.key]["items"])

    # and a judge's labels (the first value everywhere) are read against the humans
    labels = tmp_path_factory.mktemp("judge") / "judge.jsonl"
    with open(labels, "w", encoding="utf-8") as out:
        for dialogue in project.dialogues.all():
            shape = dialogue_shape(dialogue.pk)
            items = [
                {"criterion": c.key, "unit": u, "value": c.allowed_values()[0]}
                for c in project.criteria.all()
                for u in required_units(c, shape)
            ]
            out.write(json.dumps({"id": dialogue.external_id, "labels": items}) + "\n")
    judge = judge_import(project=project, path=labels, name="first-value")
    assert set(judge_report(project, judge, epsilon=0.1)["agreement"]) >= {c.key for c in scheme.criteria}

    # and the adaptive hand-out serves a newcomer an item
    adaptive_budget_update(project=project, adaptive=True, min_k=1, max_k=5, stop_rule="expected_change")
    newcomer = user_make(f"gen{seed}-new")
    from annotator.services.projects import membership_add

    membership_add(project=project, user=newcomer, role="annotator")
    assert next_item_hand_out(project=project, user=newcomer) is not None

    # and the report names every criterion
    report = report_render(project_report(project=project), "md")
    assert all(f"c{i}" in report for i in range(len(scheme.criteria)))

    # and the scheme exported gives the scheme back, and the archive the same project
    assert scheme_from_document(scheme_export(project=project)) == scheme
    again = project_archive_import(raw=project_archive(project), display="gen.zip", slug="gen-again").project
    assert again.scheme == project.scheme
    assert project_statistics(again)["criteria"] == stats["criteria"]
