"""Model-based gold on the DBDC3 English evaluation set (30 annotators per system turn): the posteriors are
proper distributions and a planted spammer (an added annotator answering at random) gets the lowest reliability."""

import json

import numpy as np
import pytest

from annotator.models import Assignment, AssignmentStatus, Judgement, Role
from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from scoring.aggregation import aggregate
from tests.conftest import manage_py
from tests.factories import user_make

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def _with_spammer(dbdc_dir):
    """DBDC3's English evaluation set with a planted spammer: an added annotator answering at random."""
    from annotator.services.projects import project_create

    project = project_create(slug="dbdc3-spam", preset="dbdc")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    spammer = user_make("planted-spammer")
    membership_add(project=project, user=spammer, role=Role.ANNOTATOR)
    data = project_judgements(project)["breakdown"]
    rng = np.random.default_rng(2024)
    criterion = data.criterion
    judgements = []
    # the same labels on the same turns whatever ids the database gave the dialogues
    external = dict(project.dialogues.values_list("pk", "external_id"))
    for dialogue_id in sorted(np.unique(data.unit_dialogue).tolist(), key=external.__getitem__):
        assignment = Assignment.objects.create(
            annotator=spammer, dialogue_id=dialogue_id, status=AssignmentStatus.SUBMITTED
        )
        for unit in data.unit_index[data.unit_dialogue == dialogue_id].tolist():
            judgements.append(
                Judgement(assignment=assignment, criterion=criterion, unit=unit, value="OTX"[rng.integers(3)])
            )
    Judgement.objects.bulk_create(judgements)
    return project, spammer


@pytest.fixture(scope="module")
def dbdc3_with_spammer(dbdc_dir, django_db_setup, django_db_blocker):
    """``_with_spammer`` imported once for the module's tests, which only read it (each in a transaction rolled
    back at its end; a command in another process sees it, committed), removed with its accounts after the last."""
    from django.contrib.auth import get_user_model

    with django_db_blocker.unblock():
        project, spammer = _with_spammer(dbdc_dir)
    yield project, spammer
    with django_db_blocker.unblock():
        people = list(project.memberships.values_list("user_id", flat=True))
        project.delete()
        get_user_model().objects.filter(pk__in=people).delete()


def test_dawid_skene_posteriors_are_distributions_and_the_spammer_is_least_reliable(dbdc3_with_spammer):
    project, _spammer = dbdc3_with_spammer
    data = project_judgements(project)["breakdown"]
    assert data.n_units == 2000 and len(data.value) == 62000
    # when the project's gold is exported with Dawid-Skene (the command, as a user would)
    out = manage_py("export_gold", project.slug, "--format", "distributions-json", "--aggregation", "dawid-skene",
                    "--output", "-", check=True)  # fmt: skip
    exported = json.loads(out.stdout)
    # then every unit's posterior is a proper distribution over NB, PB, B
    items = exported["criteria"]["breakdown"]["items"]
    p = np.array([[i["distribution"][v] for v in "OTX"] for i in items])
    assert len(items) == 2000 and np.all(p >= 0) and np.allclose(p.sum(axis=1), 1)
    assert exported["aggregation"] == "dawid-skene" and "planted-spammer" in exported["annotators"]["included"]
    # and the planted spammer has the lowest reliability of the annotators with 20 or more labels, apart from
    # real annotators whose labels say as little: the crowd holds some who give (nearly) one label throughout,
    # and the mutual information between their labels and the other annotators' majority label is ~0 as well
    reliability = exported["reliability"]["breakdown"]
    mine = reliability["planted-spammer"]
    assert mine < 0.01
    export_id = {m.user_id: m.source_key or m.user.username for m in project.memberships.select_related("user")}
    information = _information_about_majority(data)
    enough = np.bincount(data.annotator, minlength=len(data.annotators)) >= 20
    below = [
        a for a, user_id in enumerate(data.annotators.tolist())
        if enough[a] and export_id[user_id] != "planted-spammer" and reliability[export_id[user_id]] <= mine
    ]  # fmt: skip
    spam = int(np.nonzero(data.annotators == _spammer.pk)[0][0])
    assert information[spam] < 0.01
    assert len(below) < 0.02 * enough.sum()
    assert all(information[a] < 0.05 for a in below), [
        (export_id[int(data.annotators[a])], information[a]) for a in below
    ]


def _information_about_majority(data) -> np.ndarray:
    """Mutual information (bits) between each annotator's labels and the majority label of the others."""
    counts = data.counts()
    others = counts[data.unit] - np.eye(3, dtype=int)[data.value]
    majority = others.argmax(axis=1)
    out = np.zeros(len(data.annotators))
    for a in range(len(data.annotators)):
        mine = data.annotator == a
        joint = np.zeros((3, 3))
        np.add.at(joint, (data.value[mine], majority[mine]), 1)
        joint /= joint.sum()
        outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[a] = np.nansum(np.where(joint > 0, joint * np.log2(joint / outer), 0.0))
    return out


def test_mace_on_all_of_dbdc3_puts_the_planted_spammer_in_the_lower_half_of_competence(dbdc3_with_spammer):
    """MACE on all 62,000 labels (``scoring.mace``, a second of CPU; crowd-kit's took about a minute): its
    competence is the chance an annotator is not spamming. Many of DBDC3's crowd workers get a low competence
    too, so only the lower half is asserted (Dawid-Skene's spammer score singles the spammer out: the test
    above)."""
    project, spammer = dbdc3_with_spammer
    data = project_judgements(project)["breakdown"]
    result = aggregate(data.unit, data.annotator, data.value, n_units=data.n_units, n_values=3,
                       n_annotators=len(data.annotators), method="mace")  # fmt: skip
    assert np.all(result.posteriors >= 0) and np.allclose(result.posteriors.sum(axis=1), 1)
    spam = int(np.nonzero(data.annotators == spammer.pk)[0][0])
    enough = np.bincount(data.annotator, minlength=len(data.annotators)) >= 20
    competence = result.reliability[enough]
    mine = result.reliability[spam]
    assert mine < np.median(competence)
    assert np.mean(competence <= mine) < 0.5


@pytest.mark.parametrize("method", ["glad", "mace"])
def test_glad_and_mace_give_proper_distributions_on_part_of_dbdc3(dbdc3_with_spammer, method):
    # GLAD's M-step takes minutes on all 62,000 labels (185 s here): the first 15 dialogues (150 turns) are used
    project, spammer = dbdc3_with_spammer
    data = project_judgements(project)["breakdown"]
    first = np.sort(np.unique(data.unit_dialogue))[:15]
    use = np.isin(data.unit_dialogue[data.unit], first)
    units, unit = np.unique(data.unit[use], return_inverse=True)
    result = aggregate(unit, data.annotator[use], data.value[use], n_units=len(units), n_values=3,
                       n_annotators=len(data.annotators), method=method)  # fmt: skip
    assert np.all(result.posteriors >= 0) and np.allclose(result.posteriors.sum(axis=1), 1)
    spam = int(np.nonzero(data.annotators == spammer.pk)[0][0])
    assert np.isfinite(result.reliability[spam])
    # the spammer is in the lower half of the annotators with as many labels
    many = np.bincount(data.annotator[use], minlength=len(data.annotators)) >= 150
    assert (result.reliability[many] < result.reliability[spam]).mean() < 0.5
