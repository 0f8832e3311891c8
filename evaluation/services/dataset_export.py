"""A project as a Parquet dataset folder: a table per gold format and the raw judgements, with a dataset card.

The folder is what ``datasets.load_dataset("parquet", data_dir=DIR / "judgements")``, ``load_dataset(DIR,
"judgements")`` (the card's ``configs``) and ``pandas.read_parquet(DIR / "judgements")`` read::

    README.md                               the dataset card (Hugging Face format: YAML header, then text)
    judgements/train-00000-of-00001.parquet one row per judgement
    distributions/train-00000-of-00001.parquet
    stc3/... or dbdc/...                    the project's own community format, when it has one

The card gives the criteria with their wording in each language, the annotators and K, and the agreement of
the stored statistics with their intervals where the payload has them; its ``license`` is left for the lead.
The tables are written a batch of rows at a time (``annotator.exporters.parquet``); ``dataset_zip_chunks``
streams the folder as a zip for the API and the pages.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from annotator.exporters.parquet import parquet_check, parquet_table_write, parquet_tables
from annotator.exporters.stream import zip_chunks
from annotator.models import Project
from annotator.selectors.population import annotators_included
from annotator.wording import WORDING_LANGUAGES, criterion_wording
from evaluation.models import ProjectStatistics
from evaluation.services.incremental import live_state_peek, statistics_with_running_figures

DATA_FILE = "train-00000-of-00001.parquet"
DEFAULT_CONFIG = "distributions"
_FIGURES = (("fleiss_kappa", "Fleiss' kappa"), ("randolph_kappa", "Randolph's kappa"))


def dataset_write(*, project: Project, directory: Path, aggregation: str = "votes") -> dict[str, int]:
    """Write the project's dataset into ``directory`` (created if missing); rows written per table."""
    parquet_check()
    directory.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    tables = parquet_tables(project)
    for table in tables:
        folder = directory / table.name
        folder.mkdir(exist_ok=True)
        counts[table.name] = parquet_table_write(
            project=project, table=table, path=folder / DATA_FILE, aggregation=aggregation
        )
    card = dataset_card(project=project, tables=tables, counts=counts, aggregation=aggregation)
    (directory / "README.md").write_text(card, encoding="utf-8")
    return counts


def dataset_zip_chunks(*, project: Project, aggregation: str = "votes") -> Iterator[bytes]:
    """The dataset folder as a zip, as it is written: the folder is made in a temporary directory (removed
    when the stream ends), and each file is read back in pieces. ``ParquetUnavailable`` and ``ValueError``
    (an aggregation that cannot be fitted) are raised here, before the first chunk."""
    parquet_check()
    temporary = Path(tempfile.mkdtemp(prefix=f"{project.slug}-parquet-"))
    try:
        dataset_write(project=project, directory=temporary, aggregation=aggregation)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return _zip_folder(temporary, project.slug)


def _zip_folder(folder: Path, name: str) -> Iterator[bytes]:
    def pieces(path: Path):
        def read():
            with open(path, "rb") as handle:
                while piece := handle.read(1 << 20):
                    yield piece

        return read

    try:
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        yield from zip_chunks((f"{name}/{p.relative_to(folder).as_posix()}", pieces(p)) for p in files)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _yaml(value) -> str:
    """A YAML scalar: JSON's double-quoted strings and numbers are YAML too."""
    return json.dumps(value, ensure_ascii=False)


def _interval(entry: dict, *path: str) -> str:
    """`` [lo, hi] (method)`` from the criterion's ``intervals`` when the payload has one, else ""."""
    node = entry.get("intervals") or {}
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or not node.get("ci") or None in node["ci"]:
        return ""
    low, high = node["ci"]
    method = f", {node['ci_method']}" if node.get("ci_method") else ""
    return f" (95% CI {low:.3f} to {high:.3f}{method})"


def _figure(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _agreement_lines(project: Project) -> list[str]:
    statistics = ProjectStatistics.objects.filter(project=project).first()
    if statistics is None:
        return ["No statistics have been computed for this project yet."]
    # the running figures (units, kappas, alpha) from the live state, as the dashboard and the API give them
    state = live_state_peek(project)
    payload, _said = statistics_with_running_figures(project, statistics.payload or {}, state=state)
    live = (
        " Units, kappas and alpha are the live figures, current to the last save"
        + (" before a change still being counted" if state.stale_since else "")
        + "; the intervals are that computation's."
        if state.built_at
        else ""
    )
    lines = [
        f"From the statistics computed {statistics.computed_at:%Y-%m-%d %H:%M} UTC over "
        f"{statistics.n_judgements} judgements (fingerprint `{statistics.fingerprint}`), on the units with at "
        f"least two judgements.{live}",
        "",
        "| criterion | units | annotators | figure | value |",
        "|---|---|---|---|---|",
    ]
    for key, entry in (payload.get("criteria") or {}).items():
        head = f"| {key} | {entry.get('n_units', '')} | {entry.get('n_annotators', '')} "
        for name, label in _FIGURES:
            if name in entry:
                lines.append(f"{head}| {label} | {_figure(entry[name])}{_interval(entry, name)} |")
        for level, value in (entry.get("krippendorff_alpha") or {}).items():
            lines.append(
                f"{head}| Krippendorff's alpha ({level}) | "
                f"{_figure(value)}{_interval(entry, 'krippendorff_alpha', level)} |"
            )
    return lines


def dataset_card(*, project: Project, tables: list, counts: dict[str, int], aggregation: str = "votes") -> str:
    """The README.md of the dataset: a YAML header (``configs`` naming each table's data files) and the text."""
    languages = sorted(set(project.dialogues.exclude(language="").values_list("language", flat=True)))
    # A table without rows is no config: ``datasets`` cannot load a split of no examples ("corresponds to no
    # data"); its folder holds the schema, which pandas, pyarrow and streaming ``datasets`` read.
    loadable = [t for t in tables if counts.get(t.name, 0)]
    default = DEFAULT_CONFIG if any(t.name == DEFAULT_CONFIG for t in loadable) else (loadable or tables)[0].name
    header = [
        "---",
        f"pretty_name: {_yaml(project.name)}",
        "# the licence of the data: for the lead to fill in (e.g. cc-by-4.0), as a Hugging Face licence identifier",
        'license: ""',
    ]
    if languages:
        header.append("language:")
        header += [f"- {_yaml(code.lower())}" for code in languages]
    header += ["tags:", "- dialogue", "- human-evaluation", "- annotation"]
    header += ["configs:"] if loadable else []
    for table in loadable:
        header += [
            f"- config_name: {table.name}",
            "  data_files:",
            "  - split: train",
            f"    path: {table.name}/*.parquet",
        ]
        if table.name == default:
            header.append("  default: true")
    header.append("---")

    included = annotators_included(project)
    criteria = list(project.criteria.all())
    body = [
        f"# {project.name}",
        "",
        f"Human judgements of dialogues collected for the project `{project.slug}` ({project.get_preset_display()}).",
        "",
        "## Tables",
        "",
        "| config | rows | what |",
        "|---|---|---|",
    ]
    body += [
        f"| `{t.name}` | {counts.get(t.name, 0)} | {t.description}"
        + ("" if counts.get(t.name, 0) else " (empty here: no config; the folder holds its columns)")
        + " |"
        for t in tables
    ]
    if aggregation != "votes":
        body += ["", f"The distributions are the posteriors of the `{aggregation}` model, not vote shares."]
    body += [
        "",
        'Load a table with `datasets.load_dataset(PATH, "judgements")` (or `load_dataset("parquet", '
        'data_dir=PATH + "/judgements")`), or `pandas.read_parquet(PATH + "/judgements")`.',
        "",
        "## Criteria",
        "",
    ]
    for criterion in criteria:
        scale = ", ".join(f"`{v['value']}` ({v['label']})" for v in criterion.values)
        body += [
            f"### {criterion.key}: {criterion.label}",
            "",
            f"- unit: {criterion.unit}; level of measurement: {criterion.level}"
            + (f"; only units by {criterion.speaker}" if criterion.speaker else ""),
            f"- scale: {scale}",
            f"- question (en): {criterion_wording(project, criterion, 'en').question or '—'}",
        ]
        for language in WORDING_LANGUAGES:
            body.append(f"- question ({language}): {criterion_wording(project, criterion, language).question or '—'}")
        body.append("")
    excluded = "; ".join(f"{e['annotator']} ({e['reason']})" for e in included.excluded) or "none"
    body += [
        "## Annotators",
        "",
        f"- annotators per dialogue (K): {project.annotators_per_dialogue}",
        f"- judgements counted: {included.source} (imported from a collection, given on the platform, or both)",
        f"- included ({len(included.included)}): {', '.join(included.included) or 'none'}",
        f"- excluded by the lead: {excluded}",
        "",
        "## Agreement",
        "",
        *_agreement_lines(project),
        "",
        "## Licence",
        "",
        "To be filled in by the project's lead (the `license` field above).",
        "",
    ]
    return "\n".join(header + [""] + body)
