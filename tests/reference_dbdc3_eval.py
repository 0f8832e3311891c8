"""Reference: a Python 3 port of the DBDC3 official evaluation script, ``prog/eval/eval.py``.

Source: github.com/dbd-challenge/dbdc3, ``prog/eval/eval.py`` (Python 2.7, the version
"modified Sep 17 2017" that skips turns with an empty ``annotations`` list). The port keeps the
script's arithmetic and reading order and leaves out only its printing; it is deliberately
written turn by turn with plain floats, independent of the vectorised ``scoring`` library it
checks. The script's facts, kept here:

- every ``*log.json`` of the data folder is read; for each turn that is not a user turn (speaker
  ``U``) and has annotations, the gold distribution is (count_O, count_T, count_X) / count;
- the labels file ``<dialogue-id>.labels.json`` is read **in order**: the k-th such turn takes
  ``turns[k]["labels"][0]`` of the labels file (its ``turn-index`` is not looked at);
- gold label (``majority_label``): O if p_O >= p_T, p_O >= p_X and p_O >= t; else T if
  p_T >= p_O, p_T >= p_X and p_T >= t; else X if p_X >= p_T, p_X >= p_O and p_X >= t; else O;
- lenient gold label (``majority_label_lenient``): O_l if p_O >= p_T + p_X and p_O >= t; else X_l
  if p_T + p_X >= p_O and p_T + p_X >= t; else O_l;
- Accuracy: predicted breakdown label == gold label, over all such turns;
- Precision/Recall/F-measure (X): X predicted against gold label X (0 when nothing is right);
- Precision/Recall/F-measure (T+X): T or X predicted against lenient gold label X_l;
- JS divergence and mean squared error for (O,T,X), (O,T+X) and (O+T,X), the merged bins as sums
  of probabilities; KL over the bins where the first distribution is positive, log base 2;
  MSE divides by the number of bins; each averaged over the turns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path


def calc_distribution(annotations: list[dict]) -> list[float]:
    o = sum(1 for a in annotations if a["breakdown"] == "O")
    t = sum(1 for a in annotations if a["breakdown"] == "T")
    x = sum(1 for a in annotations if a["breakdown"] == "X")
    n = o + t + x
    return [o * 1.0 / n, t * 1.0 / n, x * 1.0 / n]


def majority_label(p_o: float, p_t: float, p_x: float, threshold: float) -> str:
    if p_o >= p_t and p_o >= p_x and p_o >= threshold:
        return "O"
    if p_t >= p_o and p_t >= p_x and p_t >= threshold:
        return "T"
    if p_x >= p_t and p_x >= p_o and p_x >= threshold:
        return "X"
    return "O"


def majority_label_lenient(p_o: float, p_t: float, p_x: float, threshold: float) -> str:
    if p_o >= p_t + p_x and p_o >= threshold:
        return "O_l"
    if p_t + p_x >= p_o and p_t + p_x >= threshold:
        return "X_l"
    return "O_l"


def kld(p: list[float], q: list[float]) -> float:
    total = 0.0
    for a, b in zip(p, q):
        if a > 0:
            total += a * math.log(a / b, 2)
    return total


def jsd(p: list[float], q: list[float]) -> float:
    m = [(a + b) / 2.0 for a, b in zip(p, q)]
    return (kld(p, m) + kld(q, m)) / 2.0


def mse(p: list[float], q: list[float]) -> float:
    return sum((a - b) ** 2 for a, b in zip(p, q)) / len(p)


def _groupings(p: list[float]) -> tuple[list[float], list[float], list[float]]:
    return p, [p[0], p[1] + p[2]], [p[0] + p[1], p[2]]


def evaluate(log_files: list[Path], labels_dir: Path, threshold: float = 0.0) -> dict[str, float]:
    """The script's printed numbers, unrounded, for ``log_files`` and the labels files in ``labels_dir``.

    Keys follow the script's output: "Accuracy", "Precision (X)", "Recall (X)", "F-measure (X)",
    "Precision (T+X)", "Recall (T+X)", "F-measure (T+X)", "JS divergence (O,T,X)",
    "JS divergence (O,T+X)", "JS divergence (O+T,X)", "Mean squared error (O,T,X)",
    "Mean squared error (O,T+X)", "Mean squared error (O+T,X)"; plus "System Utterance Num".
    """
    confusion = {(p, a): 0 for p in "OTX" for a in "OTX"}  # (predicted, gold) -> turns
    lenient = {(p, a): 0 for p in "OTX" for a in ("O_l", "X_l")}
    correct = incorrect = 0
    jsd_sums, mse_sums = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    for path in log_files:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        labels = json.loads((Path(labels_dir) / f"{data['dialogue-id']}.labels.json").read_text(encoding="utf-8"))
        k = 0
        for turn in data["turns"]:
            if turn["speaker"] == "U" or turn["annotations"] == []:
                continue
            gold = calc_distribution(turn["annotations"])
            gold_label = majority_label(gold[0], gold[1], gold[2], threshold)
            gold_lenient = majority_label_lenient(gold[0], gold[1], gold[2], threshold)
            target = labels["turns"][k]["labels"][0]
            k += 1
            predicted = [float(target["prob-O"]), float(target["prob-T"]), float(target["prob-X"])]
            for i, (g, p) in enumerate(zip(_groupings(gold), _groupings(predicted))):
                jsd_sums[i] += jsd(g, p)
                mse_sums[i] += mse(g, p)
            label = target["breakdown"]
            if label == gold_label:
                correct += 1
            else:
                incorrect += 1
            if (label, gold_label) in confusion:
                confusion[(label, gold_label)] += 1
            if (label, gold_lenient) in lenient:
                lenient[(label, gold_lenient)] += 1
    n = correct + incorrect
    out: dict[str, float] = {"System Utterance Num": n, "Accuracy": correct * 1.0 / n}

    tp = confusion[("X", "X")]
    predicted_x = sum(confusion[("X", a)] for a in "OTX")
    gold_x = sum(confusion[(p, "X")] for p in "OTX")
    precision = recall = f_measure = 0.0
    if tp > 0:
        if predicted_x > 0:
            precision = tp * 1.0 / predicted_x
        if gold_x > 0:
            recall = tp * 1.0 / gold_x
    if precision > 0 and recall > 0:
        f_measure = 2 * precision * recall / (precision + recall)
    out.update({"Precision (X)": precision, "Recall (X)": recall, "F-measure (X)": f_measure})

    tp_l = lenient[("T", "X_l")] + lenient[("X", "X_l")]
    predicted_tx = lenient[("X", "O_l")] + lenient[("X", "X_l")] + lenient[("T", "O_l")] + lenient[("T", "X_l")]
    gold_xl = lenient[("O", "X_l")] + lenient[("T", "X_l")] + lenient[("X", "X_l")]
    precision = recall = f_measure = 0.0
    if tp_l > 0 and predicted_tx > 0:
        precision = tp_l * 1.0 / predicted_tx
    if tp_l > 0 and gold_xl > 0:
        recall = tp_l * 1.0 / gold_xl
    if precision > 0 and recall > 0:
        f_measure = 2 * precision * recall / (precision + recall)
    out.update({"Precision (T+X)": precision, "Recall (T+X)": recall, "F-measure (T+X)": f_measure})

    for i, grouping in enumerate(("O,T,X", "O,T+X", "O+T,X")):
        out[f"JS divergence ({grouping})"] = jsd_sums[i] / n
        out[f"Mean squared error ({grouping})"] = mse_sums[i] / n
    return out


# The script's names -> ours (``scoring.breakdown.BREAKDOWN_METRICS``).
OURS = {
    "Accuracy": "Accuracy(NB,PB,B)",
    "Precision (X)": "Precision(B)",
    "Recall (X)": "Recall(B)",
    "F-measure (X)": "F1(B)",
    "Precision (T+X)": "Precision(PB+B)",
    "Recall (T+X)": "Recall(PB+B)",
    "F-measure (T+X)": "F1(PB+B)",
    "JS divergence (O,T,X)": "JSD(NB,PB,B)",
    "JS divergence (O,T+X)": "JSD(NB,PB+B)",
    "JS divergence (O+T,X)": "JSD(NB+PB,B)",
    "Mean squared error (O,T,X)": "MSE(NB,PB,B)",
    "Mean squared error (O,T+X)": "MSE(NB,PB+B)",
    "Mean squared error (O+T,X)": "MSE(NB+PB,B)",
}
