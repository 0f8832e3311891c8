"""Power analysis from a pilot: how many annotators per item a project needs, by simulation."""

from __future__ import annotations


def power_analysis(
    item,
    value,
    *,
    target: str = "alpha_width",
    width: float = 0.1,
    system=None,
    effect: float | None = None,
    ks=range(2, 21),
    n_items: int | None = None,
    n_sim: int = 200,
    level: float = 0.95,
    alpha_level: str = "nominal",
    seed: int = 0,
) -> list[dict]:
    """Placeholder of the interface; implemented in the next commit."""
    raise NotImplementedError
