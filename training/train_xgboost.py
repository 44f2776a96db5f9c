#!/usr/bin/python3
"""Train a relevance model with XGBoost from `relevance features log` output.

Reads JSON lines {"q", "features": {name: number}, "label": number, "split"?: "train"|"holdout", ...},
trains a regressor (reg:squarederror) on feature set v1 in its canonical order, and writes:

  model.json     XGBoost save_model JSON, for `relevance model export --from xgboost --input model.json`
  golden.jsonl   {"features", "prediction"} for held-out rows, as XGBoost predicts them, for `--golden`
  metrics.json   held-out RMSE and Spearman of the model and of a constant baseline (also printed)

The held-out rows are those with "split": "holdout" when any row has a split field; otherwise
every fifth labelled row (positions 4, 9, ...). Rows without a label are skipped. Training is
deterministic: fixed seed, one thread, no sampling.

Run it with Debian's XGBoost:  /usr/bin/python3 training/train_xgboost.py --input features.jsonl
See docs/training.md.
"""

import argparse
import json
import math
import sys

import numpy as np
import xgboost as xgb

FEATURE_SET_V1 = [
    "query_token_count",
    "hit_count",
    "log_total_hits",
    "jaccard",
    "title_coverage",
    "query_words_in_titles",
    "topic_coherence",
    "tag_match_fraction",
    "avg_tag_count",
]


def fail(message):
    print(f"train_xgboost: {message}", file=sys.stderr)
    sys.exit(1)


def read_rows(path):
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as error:
        fail(f"cannot read {path}: {error.strerror}")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            fail(f"{where}: not valid JSON")
        if not isinstance(row, dict) or not isinstance(row.get("features"), dict):
            fail(f"{where}: must be an object with features (the output of relevance features log)")
        features = row["features"]
        unknown = sorted(set(features) - set(FEATURE_SET_V1))
        if unknown:
            fail(f"{where}: features outside set v1: {', '.join(unknown)}")
        values = []
        for name in FEATURE_SET_V1:
            value = features.get(name)
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)):
                fail(f"{where}: features.{name} must be a number or null")
            values.append(math.nan if value is None else float(value))
        label = row.get("label")
        if label is None:
            continue
        if not isinstance(label, (int, float)) or isinstance(label, bool) or not math.isfinite(label):
            fail(f"{where}: label must be a finite number")
        split = row.get("split")
        if split not in (None, "train", "holdout"):
            fail(f'{where}: split must be "train" or "holdout"')
        rows.append({"values": values, "label": float(label), "split": split, "features": features})
    return rows


def ranks(x):
    """Ranks from 1, ties get their average rank (as Spearman's rho needs)."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x), dtype=np.float64)
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        r[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Spearman's rho; None when either side is constant (a constant cannot rank anything)."""
    ra, rb = ranks(a), ranks(b)
    if np.std(ra) == 0 or np.std(rb) == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def rounded(value):
    return None if value is None else round(value, 6)


def rmse(pred, label):
    return float(np.sqrt(np.mean((np.asarray(pred) - np.asarray(label)) ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", required=True, help="features.jsonl from relevance features log")
    parser.add_argument("--model-out", default="model.json")
    parser.add_argument("--golden-out", default="golden.jsonl")
    parser.add_argument("--metrics-out", default="metrics.json")
    parser.add_argument("--golden-rows", type=int, default=32, help="held-out rows kept as golden rows")
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--max-depth", type=int, default=4)
    parser.add_argument("--eta", type=float, default=0.05)
    parser.add_argument("--min-child-weight", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    rows = read_rows(args.input)
    if any(r["split"] is not None for r in rows):
        train = [r for r in rows if r["split"] != "holdout"]
        held = [r for r in rows if r["split"] == "holdout"]
    else:
        train = [r for i, r in enumerate(rows) if i % 5 != 4]
        held = [r for i, r in enumerate(rows) if i % 5 == 4]
    if len(train) < 10 or len(held) < 2:
        fail(f"needs at least 10 training and 2 held-out labelled rows, got {len(train)} and {len(held)}")

    def matrix(part):
        return xgb.DMatrix(
            np.array([r["values"] for r in part], dtype=np.float32),
            label=np.array([r["label"] for r in part], dtype=np.float32),
            feature_names=FEATURE_SET_V1,
            missing=math.nan,
        )

    dtrain, dheld = matrix(train), matrix(held)
    params = {
        "objective": "reg:squarederror",
        "max_depth": args.max_depth,
        "eta": args.eta,
        "min_child_weight": args.min_child_weight,
        "subsample": 1.0,
        "colsample_bytree": 1.0,
        "tree_method": "exact",
        "seed": args.seed,
        "nthread": 1,
    }
    booster = xgb.train(params, dtrain, num_boost_round=args.rounds)
    booster.save_model(args.model_out)

    predicted = booster.predict(dheld)
    labels = np.array([r["label"] for r in held])
    train_mean = float(np.mean([r["label"] for r in train]))
    baseline = np.full(len(held), train_mean)
    metrics = {
        "xgboost": xgb.__version__,
        "params": {**params, "rounds": args.rounds},
        "rows": {"train": len(train), "heldOut": len(held)},
        "heldOutLabelMean": float(np.mean(labels)),
        "model": {
            "rmse": round(rmse(predicted, labels), 6),
            "spearman": rounded(spearman(predicted, labels)),
        },
        "constantBaseline": {
            "value": round(train_mean, 6),
            "rmse": round(rmse(baseline, labels), 6),
            "spearman": None,
        },
    }

    # Golden rows: held-out rows spread over the split, with XGBoost's own predictions.
    step = max(1, len(held) // max(1, args.golden_rows))
    with open(args.golden_out, "w", encoding="utf-8") as f:
        for i in range(0, len(held), step)[: args.golden_rows]:
            features = {name: held[i]["features"].get(name) for name in FEATURE_SET_V1}
            f.write(json.dumps({"features": features, "prediction": float(predicted[i])}) + "\n")
    with open(args.metrics_out, "w", encoding="utf-8") as f:
        f.write(json.dumps(metrics, indent=2) + "\n")
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
