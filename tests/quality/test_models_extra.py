"""Dawid-Skene and GLAD are the optional "models" extra (requirements-models.txt; crowd-kit installed with
``--no-deps``); MACE is the library's own numpy fit and needs nothing more. Without the extra, MACE is fitted
and estimated as with it, and asking for Dawid-Skene or GLAD says how to install it - in the library, the gold
export's command and API, and on the dashboard - and nothing fails; with it, crowd-kit's aggregation runs
without the heavy packages its declared dependencies would bring (transformers, torch, pyarrow, tokenizers)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from evaluation.models import ModelReliability
from evaluation.services.model_reliability import model_reliability_recompute
from scoring.aggregation import MODELS_EXTRA_MISSING, ModelsNotInstalled, aggregate, models_installed
from tests.factories import project_with_submissions
from tests.live_servers import ROOT

LABELS = {"unit": [0, 0, 0, 1, 1, 1], "annotator": [0, 1, 2, 0, 1, 2], "value": [1, 1, 0, 0, 0, 0]}


@pytest.fixture
def without_crowdkit(monkeypatch):
    """crowd-kit as if not installed: its import fails as for a missing package."""
    monkeypatch.setitem(sys.modules, "crowdkit", None)
    assert not models_installed()


def test_a_model_without_the_extra_says_how_to_install_it(without_crowdkit):
    votes = aggregate(**LABELS, n_units=2, n_values=2, n_annotators=3, method="votes")
    assert votes.posteriors.round(3).tolist() == [[0.333, 0.667], [1.0, 0.0]]  # votes need no extra
    for method in ("dawid-skene", "glad"):
        with pytest.raises(ModelsNotInstalled, match=r"\./scripts/bootstrap\.sh --models"):
            aggregate(**LABELS, n_units=2, n_values=2, n_annotators=3, method=method)
    # MACE needs no extra: its fit is the library's own
    mace = aggregate(**LABELS, n_units=2, n_values=2, n_annotators=3, method="mace")
    assert mace.posteriors.argmax(axis=1).tolist() == [1, 0] and np.isfinite(mace.reliability).all()


@pytest.mark.django_db
@pytest.mark.eager_tasks(reason="the export's job done in the request: its refusal is the answer")
def test_export_estimate_and_dashboard_without_the_extra(without_crowdkit, client, tmp_path):
    work = project_with_submissions("stc3", slug="no-models", annotators=3)
    with pytest.raises(CommandError, match="optional models extra"):
        call_command(
            "export_gold",
            "no-models",
            "--format",
            "distributions-json",
            "--aggregation",
            "glad",
            "--output",
            str(tmp_path / "x"),
        )
    # the estimate holds MACE, and says of the other two why they are missing
    assert model_reliability_recompute(project_id=work.project.pk) is True
    stored = ModelReliability.objects.get(project=work.project).payload
    for criterion in stored.values():
        assert criterion["methods"]["mace"]["skipped"] == ""
        assert criterion["methods"]["dawid-skene"]["skipped"] == MODELS_EXTRA_MISSING
        assert criterion["methods"]["glad"]["skipped"] == MODELS_EXTRA_MISSING
        assert criterion["annotators"] and all("mace" in m for m in criterion["annotators"].values())
        assert not any("glad" in m or "dawid-skene" in m for m in criterion["annotators"].values())
    client.force_login(work.lead)
    api = client.get("/api/projects/no-models/export/?format=distributions-json&aggregation=dawid-skene")
    assert api.status_code == 400 and MODELS_EXTRA_MISSING in api.content.decode()
    from evaluation.services.statistics import statistics_recompute

    statistics_recompute(project_id=work.project.pk)
    page = client.get("/projects/no-models/dashboard/").content.decode()
    assert 'id="models-extra-missing"' in page and "./scripts/bootstrap.sh --models" in page


def test_crowdkit_aggregation_runs_without_its_heavy_declared_dependencies():
    """What ``pip install --no-deps crowd-kit`` relies on: its aggregation models import none of them."""
    script = """
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {'transformers', 'torch', 'pyarrow', 'tokenizers', 'huggingface_hub'}:
            raise ImportError(f'blocked: {name}')
sys.meta_path.insert(0, Blocked())
from scoring.aggregation import aggregate
for method in ('dawid-skene', 'glad', 'mace'):
    r = aggregate([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 0], n_units=2, n_values=2,
                  n_annotators=3, method=method)
    print(method, r.posteriors.argmax(axis=1).tolist())
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["dawid-skene [1, 0]", "glad [1, 0]", "mace [1, 0]"]
    # and the same numbers as in this process, where nothing is blocked
    here = aggregate(**LABELS, n_units=2, n_values=2, n_annotators=3, method="dawid-skene")
    assert np.argmax(here.posteriors, axis=1).tolist() == [1, 0]
