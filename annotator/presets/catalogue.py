"""The presets: the schemes of the source papers, shipped as scheme files in ``files/`` (one per preset, in the
format of ``scheme.schema.json``), read once per process when first asked (``PRESETS``): a process that loads
the URLs and serves no project parses no YAML (``tests/platform/test_startup_imports.py``).

Scales and labels follow the source papers: DCH-1 (Zeng et al. 2017), STC-3/DialEval (Sakai 2017; the
NTCIR-14 data), dialogue coherence (Gandhe & Traum 2008), dialogue breakdown (Tsunomori et al. 2020, DBDC3),
the NLPCC 2019 open-domain evaluation (Shan et al. 2019) and pairwise comparison (ACUTE-Eval, Li et al. 2019;
Chatbot Arena, Chiang et al. 2024). Their Japanese and Chinese wording is in the files (the DBDC labels are
the official Japanese ones).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

from annotator.presets.document import scheme_read
from annotator.presets.spec import Scheme

PRESET_FILES = Path(__file__).with_name("files")
PRESET_ORDER = ("dch1", "stc3", "coherence", "dbdc", "nlpcc", "pairwise")


@cache
def _load() -> dict[str, Scheme]:
    schemes = {}
    for key in PRESET_ORDER:
        path = PRESET_FILES / f"{key}.yaml"
        scheme = scheme_read(path.read_bytes(), str(path.relative_to(PRESET_FILES.parent.parent.parent)))
        assert scheme.key == key, f"{path} holds scheme {scheme.key}"
        schemes[key] = scheme
    return schemes


class _Presets(Mapping[str, Scheme]):
    """The presets by key, in ``PRESET_ORDER``; their files are read on the first question."""

    def __getitem__(self, key: str) -> Scheme:
        return _load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_load())

    def __len__(self) -> int:
        return len(_load())

    def __contains__(self, key: object) -> bool:
        return key in _load()


PRESETS: Mapping[str, Scheme] = _Presets()


def preset_choices() -> list[tuple[str, str]]:
    """``Project.preset``'s choices, read from ``PRESETS`` when asked (so a new preset needs no migration), and
    ``custom`` for a project made from a scheme file of its own."""
    return [(key, spec.label) for key, spec in PRESETS.items()] + [(CUSTOM, "Own scheme")]


CUSTOM = "custom"
