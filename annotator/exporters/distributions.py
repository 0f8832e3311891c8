"""Gold distributions per criterion and unit (Sakai 2017), as JSON or long-form CSV."""

from __future__ import annotations

import io
import json

from annotator.models import Project, Unit
from annotator.selectors.judgement_arrays import project_judgements
from scoring.gold import gold_distribution

from .cells import SafeCsvWriter


def distribution_records(project: Project) -> dict:
    """``{"project", "criteria": {KEY: {"unit", "scale" | "scales", "items": [...]}}}``.

    An item is one unit: its dialogue's external id, the unit number (0 for the dialogue, the
    post position or the utterance block index), the speaker, the number of judgements, and the
    counts and gold distribution over the scale that applies to the unit's speaker.
    """
    external = dict(project.dialogues.values_list("pk", "external_id"))
    out: dict = {"project": project.slug, "criteria": {}}
    for key, data in project_judgements(project, long_form=False).items():
        criterion = data.criterion
        counts = data.counts()
        entry: dict = {"unit": criterion.unit}
        speakers = criterion.speakers
        if speakers:
            entry["scales"] = {s: [data.values[i] for i in data.scale(s)] for s in speakers}
        else:
            entry["scale"] = list(data.values)
        items = []
        for u in range(data.n_units):
            columns = data.scale(data.unit_speaker[u]) if speakers else list(range(len(data.values)))
            row = counts[u, columns]
            distribution = gold_distribution(row)
            item = {"dialogue": external[int(data.unit_dialogue[u])], "unit": int(data.unit_index[u])}
            if criterion.unit != Unit.DIALOGUE:
                item["speaker"] = data.unit_speaker[u]
            item["n"] = int(row.sum())
            item["counts"] = {data.values[c]: int(n) for c, n in zip(columns, row)}
            item["distribution"] = {data.values[c]: float(p) for c, p in zip(columns, distribution)}
            items.append(item)
        entry["items"] = items
        out["criteria"][key] = entry
    return out


def export_distributions_json(project: Project) -> bytes:
    return json.dumps(distribution_records(project), ensure_ascii=False, indent=1).encode("utf-8")


def export_distributions_csv(project: Project) -> bytes:
    buffer = io.StringIO()
    writer = SafeCsvWriter(buffer, lineterminator="\n")
    writer.writerow(["criterion", "dialogue", "unit", "speaker", "n", "value", "count", "probability"])
    for key, entry in distribution_records(project)["criteria"].items():
        for item in entry["items"]:
            for value, count in item["counts"].items():
                writer.writerow(
                    [
                        key,
                        item["dialogue"],
                        item["unit"],
                        item.get("speaker", ""),
                        item["n"],
                        value,
                        count,
                        repr(item["distribution"][value]),
                    ]
                )
    return buffer.getvalue().encode("utf-8")
