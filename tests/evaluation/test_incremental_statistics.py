"""The statistics a save keeps current (``evaluation.services.incremental``) equal the full recomputation.

A Hypothesis state machine applies random sequences of submissions, edits of submitted items (reopen,
change, submit again), reopenings, exclusions and inclusions of annotators, imports with judgements
and their removal, and background rebuilds (``live_rebuild``) with such changes made while the rebuild reads
the judgements; after every step at which the state is not marked stale it compares what the dashboard reads
from the state with the figures computed from every judgement by ``scoring.agreement`` (to 1e-12), unit by
unit counts included. A structural change marks the state stale (no rebuild in the step that made it).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from django.db.models import Count
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.population import gold_judgements
from annotator.services.exclusions import annotator_exclude, annotator_include
from annotator.services.import_batches import import_batch_remove
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.judgements.save import assignment_reopen
from evaluation.models import LiveState, LiveUnitCounts
from evaluation.services import incremental, live_rebuild
from evaluation.services.incremental import live_figures
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.statistics import numeric_values
from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts, randolph_kappa
from scoring.agreement.sums import coefficients, unit_terms
from scoring.gold import gold_distribution
from tests.factories import breakdown_project, units_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "the live figures are kept with plain SQL upserts, row locks on PostgreSQL only "
            "(evaluation.services.incremental)"
        )
    ),
]

LABELS = ("O", "T", "X")
SERIAL = itertools.count()
SEEN = {
    "pairable units": 0,
    "imported labels": 0,
    "excluded": 0,
    "kept without a rebuild": 0,
    "stale after a change": 0,
    "changes during a rebuild": 0,
    "rebuilt": 0,
}  # what the sequences reached


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12


def test_sums_give_the_library_coefficients_on_random_counts():
    """From the units' terms alone, the coefficients equal those computed from the counts (every level)."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        counts = rng.integers(0, 4, size=(rng.integers(1, 12), 4))
        groups: dict = {}
        for row in counts:
            for key, n in unit_terms(row).items():
                terms = groups.setdefault(int(row.sum()), {})
                terms[key] = terms.get(key, 0) + n
        values = np.array([1.0, 2.0, 4.0, 5.0])
        got = coefficients(groups, 4, levels=("nominal", "ordinal", "interval"), values=values)
        pairable = counts[counts.sum(axis=1) >= 2]
        assert got["n_units"] == len(pairable)
        if len(pairable):
            mean = gold_distribution(pairable).mean(axis=0)
            assert np.allclose(got["mean_distribution"], mean, rtol=0, atol=1e-12)
        assert close(got["fleiss_kappa"], fleiss_kappa(counts))
        assert close(got["randolph_kappa"], randolph_kappa(counts))
        for level in ("nominal", "ordinal", "interval"):
            assert close(got["krippendorff_alpha"][level], krippendorff_alpha_from_counts(counts, level, values))


def _log_file(directory: Path, n: int, prefix: str, annotators: list[str], labels) -> Path:
    """A DBDC3 log of ``n`` dialogues (S, U, S, U, S) whose system turns carry imported labels."""
    path = directory / f"{prefix}.log.json"
    records = []
    for i in range(n):
        turns = []
        for t, speaker in enumerate("SUSUS"):
            annotations = (
                [{"annotator-id": a, "breakdown": labels.draw(st.sampled_from(LABELS))} for a in annotators]
                if speaker == "S"
                else []
            )
            turns.append(
                {"turn-index": t, "speaker": speaker, "utterance": f"{prefix}{i} {t}", "annotations": annotations}
            )
        records.append({"dialogue-id": f"{prefix}{i}", "turns": turns})
    path.write_text(json.dumps(records[0]))
    return path


class IncrementalMatchesFull(RuleBasedStateMachine):
    """Random changes of a small breakdown project; the state and the full recomputation agree throughout."""

    @initialize()
    def project(self):
        self.directory = Path(tempfile.mkdtemp())
        slug = f"inc{next(SERIAL)}"
        self.work = breakdown_project(self.directory, dialogues=3, annotators=3, k=3, slug=slug)
        self.batches: list[int] = []
        live_state_rebuild(project_id=self.work.project.pk)  # the state exists: changes from now on are incremental

    def _open(self):
        return list(
            Assignment.objects.filter(dialogue__project=self.work.project, imported=False)
            .exclude(status=AssignmentStatus.SUBMITTED)
            .order_by("pk")
        )

    def _submitted(self):
        return list(
            Assignment.objects.filter(
                dialogue__project=self.work.project, imported=False, status=AssignmentStatus.SUBMITTED
            ).order_by("pk")
        )

    def _submit(self, assignment, data):
        values = [
            Given(k, u, data.draw(st.sampled_from(LABELS)))
            for k, u in units_of(assignment.dialogue_id, self.work.project)
        ]
        judgements_save(assignment_id=assignment.pk, user=assignment.annotator, values=values, submit=True)

    @precondition(lambda self: self._open())
    @rule(data=st.data())
    def submit(self, data):
        self._submit(data.draw(st.sampled_from(self._open())), data)

    @precondition(lambda self: self._submitted())
    @rule(data=st.data())
    def edit(self, data):
        """A submitted item reopened, one answer changed (-1 old, +1 new), submitted again."""
        assignment = data.draw(st.sampled_from(self._submitted()))
        assignment_reopen(assignment_id=assignment.pk)
        self._submit(assignment, data)

    @precondition(lambda self: self._submitted())
    @rule(data=st.data())
    def reopen(self, data):
        assignment_reopen(assignment_id=data.draw(st.sampled_from(self._submitted())).pk)

    def _stale(self) -> bool:
        return LiveState.objects.filter(project=self.work.project, stale_since__isnull=False).exists()

    @precondition(lambda self: self._stale())
    @rule(
        data=st.data(),
        meanwhile=st.lists(st.sampled_from(["submit", "edit", "reopen", "exclusion"]), min_size=1, max_size=3),
    )
    def rebuild(self, data, meanwhile):
        """The background rebuild, with saves (and an exclusion) made after it read the judgements and before
        it switched; it ends exact, or stale again when the population changed meanwhile (then rebuilt again)."""
        read = live_rebuild._read

        def read_then_change(project, dialogue_ids=None):
            reading = read(project, dialogue_ids)
            while dialogue_ids is None and meanwhile:
                step = meanwhile.pop(0)
                if step == "exclusion":
                    self.exclusion(data, data.draw(st.booleans()))
                elif step == "submit" and self._open():
                    self.submit(data)
                elif step in ("edit", "reopen") and self._submitted():
                    getattr(self, step)(data)
                else:
                    continue
                SEEN["changes during a rebuild"] += 1
            return reading

        live_rebuild._read = read_then_change
        try:
            switched = live_state_rebuild(project_id=self.work.project.pk)
        finally:
            live_rebuild._read = read
        assert switched >= 1 and not self._stale()
        SEEN["rebuilt"] += switched

    @rule(data=st.data(), exclude=st.booleans())
    def exclusion(self, data, exclude):
        person = data.draw(st.sampled_from(self.work.annotators))
        if exclude:
            annotator_exclude(
                project=self.work.project, username=person.username, reason="test", excluded_by=self.work.lead
            )
        else:
            annotator_include(project=self.work.project, username=person.username)

    @rule(data=st.data())
    def import_labels(self, data):
        path = _log_file(self.directory, 1, f"imp{next(SERIAL)}-", ["i1", "i2"], data)
        self.batches.append(dialogues_import(project=self.work.project, paths=[path], language="en").batch_id)

    @precondition(lambda self: self.batches)
    @rule(data=st.data())
    def remove_import(self, data):
        batch = data.draw(st.sampled_from(self.batches))
        self.batches.remove(batch)
        import_batch_remove(project=self.work.project, batch_id=batch, user=self.work.lead)

    @invariant()
    def incremental_equals_full(self):
        if not hasattr(self, "work"):
            return
        project = self.work.project
        if self._stale():
            SEEN["stale after a change"] += 1
            return  # the figures are those before the change until the rebuild (the rule) has switched
        live = live_figures(project)
        labels = sum(f["n_labels"] for f in live["criteria"].values())
        if getattr(self, "last", None) and self.last[0] == live["built_at"] and self.last[1] != labels:
            SEEN["kept without a rebuild"] += 1  # the labels changed and only the saves kept the state
        self.last = (live["built_at"], labels)
        for key, data in project_judgements(project).items():
            counts = data.counts()
            figures = live["criteria"][key]
            values = numeric_values(data.values)
            assert figures["distribution"] == dict(zip(data.values, counts.sum(axis=0).tolist()))
            assert close(figures["fleiss_kappa"], fleiss_kappa(counts))
            assert close(figures["randolph_kappa"], randolph_kappa(counts, n_categories=len(data.values)))
            for level, alpha in figures["krippendorff_alpha"].items():
                assert close(alpha, krippendorff_alpha_from_counts(counts, level, values))
            generation = LiveState.objects.get(project=project).generation
            stored = {
                (d, u): [int(x) for x in text.split(",")]
                for d, u, text in LiveUnitCounts.objects.filter(
                    criterion=data.criterion, generation=generation
                ).values_list("dialogue_id", "unit", "counts")
            }
            stored = {k: v for k, v in stored.items() if sum(v)}
            full = {
                (int(d), int(u)): row.tolist()
                for d, u, row in zip(data.unit_dialogue, data.unit_index, counts)
                if row.sum()
            }
            assert stored == full
            SEEN["pairable units"] = max(SEEN["pairable units"], figures["n_units"])
        SEEN["imported labels"] += gold_judgements(project).filter(assignment__imported=True).count()
        SEEN["excluded"] += project.exclusions.count()
        judged = dict(
            gold_judgements(project).values_list("assignment__annotator__username").annotate(n=Count("pk")).order_by()
        )
        assert {name: n for name, n in live["annotators"].items() if n} == judged


def test_incremental_equals_full_after_random_changes():
    run_state_machine_as_test(
        IncrementalMatchesFull,
        settings=settings(
            max_examples=12,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    assert SEEN["pairable units"] >= 2 and SEEN["imported labels"] > 0 and SEEN["excluded"] > 0, SEEN
    assert SEEN["kept without a rebuild"] > 0, SEEN
    assert SEEN["stale after a change"] > 0 and SEEN["rebuilt"] > 0 and SEEN["changes during a rebuild"] > 0, SEEN


def test_the_scheduled_recomputation_finds_and_rebuilds_a_state_that_missed_a_change(tmp_path):
    """A change that bypasses the saves (an edit in the admin) is caught by the full recomputation, the reference."""
    from annotator.models import Judgement
    from evaluation.services.jobs import statistics_job_run
    from tests.factories import submit_all

    work = breakdown_project(tmp_path, dialogues=3, annotators=3, k=3, slug="verify")
    live_state_rebuild(project_id=work.project.pk)
    for i, person in enumerate(work.annotators):
        submit_all(person, work.project, lambda a, key, unit, i=i: LABELS[(i + unit) % 3])
    before = live_figures(work.project)["criteria"]["breakdown"]
    built = LiveState.objects.get(project=work.project).built_at
    changed = Judgement.objects.filter(assignment__dialogue__project=work.project).first()
    Judgement.objects.filter(pk=changed.pk).update(value="X" if changed.value != "X" else "O")
    Assignment.objects.filter(pk=changed.assignment_id).update(version=changed.assignment.version + 1)
    statistics_job_run(project_id=work.project.pk)
    assert LiveState.objects.get(project=work.project).stale_because == "differed"  # a rebuild is asked for
    assert live_state_rebuild(project_id=work.project.pk) == 1
    assert LiveState.objects.get(project=work.project).built_at > built
    after = live_figures(work.project)["criteria"]["breakdown"]
    counts = project_judgements(work.project)["breakdown"].counts()
    assert after["distribution"] != before["distribution"]
    assert after["distribution"] == dict(zip(LABELS, counts.sum(axis=0).tolist()))
    assert close(after["fleiss_kappa"], fleiss_kappa(counts))


def test_the_dashboard_shows_a_submission_before_any_recomputation(
    tmp_path, client, django_capture_on_commit_callbacks, tasks_sent
):
    """Saves land on the page at once: the live label count, the value counts and the kappa change with a
    submission made after the stored statistics, while the recomputation's time stays as it was. The
    recomputation builds a state never built (the running figures its payload leaves out); a payload found
    without one (stored before it, or restored from an archive) makes the first view build nothing in the
    request: it says the live figures are being prepared, shows no running figure, and asks for a rebuild."""
    from django.urls import reverse

    from evaluation.models import ProjectStatistics
    from evaluation.services.jobs import statistics_job_run
    from evaluation.templatetags.scoring_extras import fmt
    from tests.factories import submit

    work = breakdown_project(tmp_path, dialogues=2, annotators=2, k=2, slug="livepage")
    items = list(Assignment.objects.filter(dialogue__project=work.project).order_by("pk"))
    submit(items[0], lambda a, key, unit: "O")
    statistics_job_run(project_id=work.project.pk)  # what a worker runs for the recomputation the saves asked for
    assert LiveState.objects.get(project=work.project).built_at is not None  # built by the recomputation
    stored = ProjectStatistics.objects.get(project=work.project).payload  # without the running figures
    assert not set(stored["criteria"]["breakdown"]) & set(incremental.RUNNING_FIGURES)
    assert "value_counts" not in stored and all("mean_distribution" not in g for g in stored["gold"].values())
    LiveState.objects.filter(project=work.project).delete()  # a payload stored before any live state
    client.force_login(work.lead)
    before = len(tasks_sent)
    with django_capture_on_commit_callbacks(execute=True):
        page = client.get(reverse("dashboard", args=[work.project.slug])).content.decode()
    assert 'id="live-stale"' in page and "being prepared for the first time" in page
    assert 'id="live-labels"' not in page
    assert "<td>– " in page, re.findall(r"<td>[^<]{0,12} ", page)  # no running figure yet
    # the rebuild is asked of the workers once the request is over, not run in it
    assert "evaluation.tasks.rebuild_live_statistics" in [t.name for t in tasks_sent[before:]]
    live_state_rebuild(project_id=work.project.pk)  # what the worker runs
    status = client.get(reverse("dashboard_live_status", args=[work.project.slug])).json()
    assert status["stale"] is False and status["built_at"]  # what the page's script asks: now rebuilt
    client.force_login(work.annotators[0])
    assert client.get(reverse("dashboard_live_status", args=[work.project.slug])).status_code in (403, 404)
    client.force_login(work.lead)
    page = client.get(reverse("dashboard", args=[work.project.slug])).content.decode()
    computed = ProjectStatistics.objects.get(project=work.project).computed_at
    assert 'id="live-labels">2<' in page and 'id="live-stale"' not in page
    for item in items[1:]:
        submit(item, lambda a, key, unit: "X")
    page = client.get(reverse("dashboard", args=[work.project.slug])).content.decode()
    assert ProjectStatistics.objects.get(project=work.project).computed_at == computed  # not recomputed
    assert 'id="live-labels">8<' in page
    data = project_judgements(work.project)["breakdown"]
    kappa = fleiss_kappa(data.counts())
    assert not math.isnan(kappa)
    assert f"<td>{fmt(kappa)} " in page, re.findall(r"<td>[-0-9.]+ ", page)


def test_a_stale_state_no_rebuild_works_on_is_asked_for_again_once_whatever_the_pages(
    tmp_path, django_capture_on_commit_callbacks
):
    """A rebuild's task lost (with a worker, or a broker down): the next reads ask again, once per interval; a
    state that a rebuild is working on is not asked for; the reads never rebuild themselves."""
    from django.utils import timezone

    from evaluation.services import incremental

    work = breakdown_project(tmp_path, dialogues=2, annotators=2, k=2, slug="ask-again")
    live_state_rebuild(project_id=work.project.pk)
    LiveState.objects.filter(project=work.project).update(stale_since=timezone.now(), stale_because="import")
    with django_capture_on_commit_callbacks() as asked:
        for _ in range(3):
            state = incremental.live_state_read(work.project)
    assert len(asked) == 1 and state.stale_since is not None  # asked once, nothing rebuilt here
    LiveState.objects.filter(project=work.project).update(rebuilding_since=timezone.now())
    from django.core.cache import cache

    cache.clear()
    with django_capture_on_commit_callbacks() as asked:
        incremental.live_state_read(work.project)
    assert asked == []  # a rebuild is at work
