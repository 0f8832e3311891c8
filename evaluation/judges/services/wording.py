"""What the judge page and ``manage.py judge_report`` say of an alt-test verdict, in the active language:
every sentence built from the report's own figures (``report["alt_test"]``), never from anything else."""

from __future__ import annotations

from django.utils.translation import gettext, pgettext

from scoring.judges.alt_test import ACCURACY
from scoring.judges.references import CONSTANT, FAILED, NOT_INFORMATIVE, NOT_TESTED, PASSED, RANDOM

TENTATIVE_ALPHA = 0.667  # Krippendorff (2004): the least alpha for tentative conclusions


def _n(x, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def alignment_name(scoring: str) -> str:
    return gettext("accuracy") if scoring == ACCURACY else gettext("negative RMSE")


def state_name(state: str | None) -> str:
    return {
        PASSED: pgettext("alt-test verdict", "passed"),
        FAILED: pgettext("alt-test verdict", "failed"),
        NOT_INFORMATIVE: pgettext("alt-test verdict", "not informative here"),
        NOT_TESTED: pgettext("alt-test verdict", "not tested"),
    }.get(state or "", "–")


def reference_name(reference: dict | None) -> str:
    """``always "PB"``, ``labels drawn from the humans' distribution``, ``held-out annotator a17``."""
    if not reference:
        return "–"
    if reference["kind"] == CONSTANT:
        return gettext("always “%(label)s”") % {"label": reference["label"]}
    if reference["kind"] == RANDOM:
        return gettext("labels drawn at random from the humans' label distribution")
    return gettext("held-out annotator %(name)s") % {"name": reference["label"]}


def margin_sentence(margin: dict) -> str:
    """Which epsilon the test used and why."""
    epsilon = f"{margin['epsilon']:g}"
    who = {
        "experts": gettext("experts"),
        "skilled": gettext("skilled annotators"),
        "crowd": gettext("crowd workers"),
    }.get(margin.get("annotators") or "", "")
    source = margin.get("source")
    if source == "given":
        return gettext("Margin ε = %(epsilon)s, given by hand.") % {"epsilon": epsilon}
    if source == "project":
        return gettext("Margin ε = %(epsilon)s: the project says its annotators are %(who)s.") % {
            "epsilon": epsilon,
            "who": who,
        }
    if source == "study":
        return gettext("Margin ε = %(epsilon)s: the annotators include crowd study participants (crowd workers).") % {
            "epsilon": epsilon
        }
    return gettext(
        "Margin ε = %(epsilon)s, the crowd workers' and the strictest: the project does not say who annotated "
        "(experts 0.2, skilled annotators 0.15, crowd workers 0.1; set it on the manage page)."
    ) % {"epsilon": epsilon}


def criterion_sentences(key: str, c: dict) -> list[str]:
    """The verdict on one criterion, why, the held-out human beside it, and the alignment used."""
    best, held = c.get("best_trivial"), c.get("held_out")
    state = c.get("verdict")
    alignment = alignment_name(c.get("scoring", ACCURACY))
    judge = (c.get("alignments") or {}).get(c.get("scoring"), {}).get("judge") or {}
    out = []
    values = {
        "criterion": key,
        "state": state_name(state),
        "test": state_name(PASSED if judge.get("passed") else FAILED),
        "rate": _n(judge.get("winning_rate")),
        "rho": _n(judge.get("rho")),
        "alignment": alignment,
        "reference": reference_name(best),
        "reference_rho": _n(best.get("rho") if best else None),
    }
    if state == NOT_INFORMATIVE and best:
        out.append(
            gettext(
                "%(criterion)s: not informative here. The judge does no better than %(reference)s (ρ %(rho)s "
                "against %(reference_rho)s, %(alignment)s), so its verdict (%(test)s, winning rate %(rate)s) says "
                "nothing about the judge."
            )
            % values
        )
    elif state in (PASSED, FAILED):
        out.append(
            gettext(
                "%(criterion)s: %(state)s (winning rate %(rate)s, ρ %(rho)s, %(alignment)s); better than the best "
                "trivial reference, %(reference)s (ρ %(reference_rho)s)."
            )
            % values
        )
    else:
        return [gettext("%(criterion)s: not tested.") % {"criterion": key}]
    agreement = c.get("human_agreement") or {}
    if state == NOT_INFORMATIVE or c.get("trivial_passes"):
        alpha = agreement.get("alpha")
        out.append(
            (
                gettext(
                    "The annotators agree little: Krippendorff's α (%(level)s) = %(alpha)s on the %(n)s items the "
                    "judge labelled (Krippendorff asks for 0.667 at the least for tentative conclusions)."
                )
                if alpha is None or alpha < TENTATIVE_ALPHA
                else gettext(
                    "The annotators agree: Krippendorff's α (%(level)s) = %(alpha)s on the %(n)s items the judge "
                    "labelled; the judge's labels carry no more than a trivial answer's."
                )
            )
            % {
                "level": agreement.get("level", ""),
                "alpha": _n(agreement.get("alpha"), 3),
                "n": agreement.get("n_items"),
            }
        )
    if c.get("trivial_passes") and best and best.get("passed"):
        out.append(
            gettext("The test passes %(reference)s too (winning rate %(rate)s).")
            % {"reference": reference_name(best), "rate": _n(best.get("winning_rate"))}
        )
    if held:
        against = c.get("held_out_against_best") or {}
        baseline = c.get("held_out_baseline") or {}
        values = {
            "name": held["label"],
            "rho": _n(held.get("rho")),
            "reference": reference_name(best),
            "reference_rho": _n(baseline.get("rho")),
        }
        if against.get("beats"):
            out.append(
                gettext(
                    "A held-out annotator (%(name)s) gets ρ %(rho)s on their items, where %(reference)s gets "
                    "%(reference_rho)s: a human beats the trivial answer here."
                )
                % values
            )
        else:
            out.append(
                gettext(
                    "A held-out annotator (%(name)s) gets ρ %(rho)s on their items, where %(reference)s gets "
                    "%(reference_rho)s: on these annotators the test cannot tell a human from a trivial answer."
                )
                % values
            )
    others = [s for s in (c.get("alignments") or {}) if s != c.get("scoring")]
    for other in others:
        a = c["alignments"][other]
        out.append(
            gettext(
                "The verdict uses %(alignment)s, chosen from the reference judges alone; under %(other)s the judge "
                "gets winning rate %(rate)s, ρ %(rho)s (%(state)s), and %(reference)s ρ %(reference_rho)s."
            )
            % {
                "alignment": alignment,
                "other": alignment_name(other),
                "rate": _n(a["judge"].get("winning_rate")),
                "rho": _n(a["judge"].get("rho")),
                "state": state_name(a.get("verdict")),
                "reference": reference_name(a.get("best_trivial")),
                "reference_rho": _n((a.get("best_trivial") or {}).get("rho")),
            }
        )
    return out


def verdict_sentences(alt_test: dict) -> list[str]:
    """The overall verdict, then each criterion's sentences, then the margin."""
    state = alt_test.get("verdict")
    best = (alt_test.get("references") or {}).get("best_trivial") or {}
    if state == NOT_TESTED or alt_test.get("winning_rate") is None:
        head = gettext("Not tested: no annotator labelled 30 or more items the judge also labelled.")
    else:
        head = gettext(
            "Verdict: %(state)s. Winning rate %(rate)s, average advantage probability ρ %(rho)s; the best trivial "
            "references get ρ %(reference_rho)s."
        ) % {
            "state": state_name(state),
            "rate": _n(alt_test.get("winning_rate")),
            "rho": _n(alt_test.get("rho")),
            "reference_rho": _n(best.get("rho")),
        }
    lines = [head]
    for key, c in (alt_test.get("criteria") or {}).items():
        if "verdict" in c:
            lines.extend(criterion_sentences(key, c))
    if alt_test.get("margin"):
        lines.append(margin_sentence(alt_test["margin"]))
    return lines
