#!/usr/bin/env python3
"""Card-level score and per-card diagnosis of the real fanned-deal photo (four tight fans, 51 labelled cards).

    python scripts/eval_fanned_deal.py DIR                     # DIR/fanned-deal.jpg, read as a photo
    python scripts/eval_fanned_deal.py DIR --frame720 --camera # its 1280x720 frame, read as a camera frame
    python scripts/eval_fanned_deal.py DIR --models MODELS --json out.json

DIR is the real-table data: ``fanned-deal.jpg``, ``fanned-deal-1280x720.jpg`` (the photo scaled
to 720x720, centred in a 1280x720 frame) and ``fanned-deal.labels.json``.

Labels: the real-table format (one box per visible corner index, relative centre/size,
names like ``10h``); a card counts once however many of its indices are labelled.
A labelled card is **found** when a reported card of its value has an index box on one of
that card's labelled indices (centre within the label box grown by half its size each
way, or the label's centre inside the reported index box); a reported card is **correct**
when it is found in that sense. Hands are the four fans of the photo, named by where they
lie (the card's highest labelled index decides).

For every missed card the script says why, index by index:

- ``no box``: the detector gave no box on the index at the pipeline's threshold
  (``weak box 0.xx``: a box exists below the threshold);
- ``read none`` / ``read XY``: the classifier calls the detector's box ``none`` or another
  card (the labelled box itself, read by the classifier, is shown too: ``gt-box read``);
- ``dropped``: the index was read right but no reported card of that value sits on it
  (assembly merged it away or its confidence was below the card threshold).

The photo is for development only: it is never trained on and never copied into the project.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from tableref.training.evaluation import on_index_label
from tableref.vision.recognition import CardRecognizer, ModelError, RecognizerConfig, camera_preset, photo_preset


def load_labels(path: Path, w: int, h: int, x0: float = 0.0, y0: float = 0.0) -> list[dict]:
    """The labelled boxes in pixels of a ``w``×``h`` picture placed at (``x0``, ``y0``) of the image."""
    out = []
    for item in json.loads(path.read_text()):
        r = item["relative_coordinates"]
        cx, cy, bw, bh = x0 + r["center_x"] * w, y0 + r["center_y"] * h, r["width"] * w, r["height"] * h
        name = item["name"].upper()
        out.append({"card": name, "box": (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2), "rel": (r["center_x"], r["center_y"])})
    return out


def hand_of(rel: tuple[float, float]) -> str:
    """The four fans of the shared photo: top, middle-left, middle-right, bottom."""
    x, y = rel
    if y < 0.25:
        return "top"
    if y > 0.55:
        return "bottom"
    return "middle-left" if x < 0.52 else "middle-right"


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0




def evaluate(rec, image: np.ndarray, labels: list[dict], diagnose: bool = True) -> dict:
    """Card-level recall/precision (overall and per hand) and, with ``diagnose``, why each card is missed."""
    cards = rec.recognize(image)
    by_card: dict[str, list[dict]] = {}
    for lab in labels:
        by_card.setdefault(lab["card"], []).append(lab)
    hand = {c: hand_of(min(ls, key=lambda l: l["rel"][1])["rel"]) for c, ls in by_card.items()}
    found = {c: False for c in by_card}
    correct = []
    wrong = []
    for dc in cards:
        boxes = list(dc.indices) or [dc.box]
        ok = dc.card in by_card and any(on_index_label(b, l["box"]) for b in boxes for l in by_card[dc.card])
        correct.append(ok)
        if ok:
            found[dc.card] = True
        else:
            wrong.append({"card": dc.card, "confidence": round(float(dc.confidence), 3),
                          "box": [round(float(v)) for v in (boxes[0])],
                          "labelled_elsewhere": dc.card in by_card})
    per_hand = {}
    for c, hnd in hand.items():
        d = per_hand.setdefault(hnd, {"labelled": 0, "found": 0, "reported": 0, "correct": 0, "missed": []})
        d["labelled"] += 1
        d["found"] += int(found[c])
        if not found[c]:
            d["missed"].append(c)
    for dc, ok in zip(cards, correct):
        boxes = list(dc.indices) or [dc.box]
        cx = float(np.mean([(b[0] + b[2]) / 2 for b in boxes])) / image.shape[1]
        cy = float(np.min([(b[1] + b[3]) / 2 for b in boxes])) / image.shape[0]
        hnd = hand[dc.card] if ok else hand_of((cx, cy))
        d = per_hand.setdefault(hnd, {"labelled": 0, "found": 0, "reported": 0, "correct": 0, "missed": []})
        d["reported"] += 1
        d["correct"] += int(ok)
    for d in per_hand.values():
        d["recall"] = d["found"] / d["labelled"] if d["labelled"] else None
        d["precision"] = d["correct"] / d["reported"] if d["reported"] else None
    n_lab, n_found = len(by_card), sum(found.values())
    res = {"labelled": n_lab, "found": n_found, "reported": len(cards), "correct": int(sum(correct)),
           "recall": n_found / n_lab, "precision": (sum(correct) / len(cards)) if cards else None,
           "per_hand": per_hand, "wrong": wrong, "passes": list(rec.last_stats.passes),
           "index_px_min": rec.band.min, "missed": {}}
    if not diagnose:
        return res
    # why: the pipeline's own boxes and readings, a low-threshold detector pass, and the labelled box read
    boxes, scores = rec.find_indices(image)
    probs = rec.classify(image, boxes)
    low = CardRecognizer(rec.models_dir, config=RecognizerConfig(det_conf=0.02))
    lboxes, lscores = low.find_indices(image)
    names = rec.names
    for c, ok in found.items():
        if ok:
            continue
        why = []
        for lab in by_card[c]:
            gt = rec.classify(image, np.array([lab["box"]], np.float32))[0]
            gk = int(np.argmax(gt))
            gt_read = f"gt-box read {names[gk]} {gt[gk]:.2f}"
            on = [k for k in range(len(boxes)) if on_index_label(boxes[k], lab["box"]) and iou(boxes[k], lab["box"]) > 0.1]
            if not on:
                lon = [k for k in range(len(lboxes)) if on_index_label(lboxes[k], lab["box"]) and iou(lboxes[k], lab["box"]) > 0.1]
                weak = f" (weak box {max(float(lscores[k]) for k in lon):.2f})" if lon else ""
                why.append(f"no box{weak}; {gt_read}")
                continue
            k = max(on, key=lambda k: iou(boxes[k], lab["box"]))
            p = probs[k]
            pk = int(np.argmax(p))
            if names[pk] == "none":
                why.append(f"read none {p[pk]:.2f} (score {scores[k]:.2f}); {gt_read}")
            elif names[pk] != c:
                why.append(f"read {names[pk]} {p[pk]:.2f} (score {scores[k]:.2f}); {gt_read}")
            else:
                conf = float(p[pk]) * float(scores[k]) ** rec.config.det_score_power
                low_conf = conf < rec.config.min_card_confidence
                why.append(f"read right {p[pk]:.2f} (score {scores[k]:.2f}), dropped"
                           + (f": p x score^{rec.config.det_score_power} = {conf:.2f} < {rec.config.min_card_confidence}"
                              if low_conf else " by assembly"))
        res["missed"][c] = {"hand": hand[c], "why": why}
    return res


def cause_of(why: list[str]) -> str:
    """One cause per missed card: the best thing that happened to any of its indices."""
    order = ["dropped", "read wrong", "read none", "no box"]
    kinds = []
    for w in why:
        if w.startswith("read right"):
            kinds.append("dropped")
        elif w.startswith("read none"):
            kinds.append("read none")
        elif w.startswith("read "):
            kinds.append("read wrong")
        else:
            kinds.append("no box")
    return min(kinds, key=order.index) if kinds else "?"


def report(res: dict) -> str:
    out = [f"fanned deal: recall {res['found']}/{res['labelled']} = {100 * res['recall']:.1f} %, "
           f"precision {res['correct']}/{res['reported']} = "
           f"{100 * res['precision']:.1f} %" if res["precision"] is not None else "no cards reported",
           f"passes: {', '.join(res['passes'])} (read as a {res['read_as']}: indices under "
           f"{res['index_px_min']:.0f} px read enlarged)", "", "| hand | labelled | found | recall | reported | correct | precision | missed |",
           "|---|---|---|---|---|---|---|---|"]
    for hnd in ("top", "middle-left", "middle-right", "bottom"):
        d = res["per_hand"].get(hnd)
        if not d:
            continue
        rc = f"{100 * d['recall']:.1f} %" if d["recall"] is not None else "n/a"
        pr = f"{100 * d['precision']:.1f} %" if d["precision"] is not None else "n/a"
        out.append(f"| {hnd} | {d['labelled']} | {d['found']} | {rc} | {d['reported']} | {d['correct']} | {pr} | "
                   f"{' '.join(sorted(d['missed'])) or '-'} |")
    if res["missed"]:
        out += ["", "| missed card | hand | cause | per labelled index |", "|---|---|---|---|"]
        for c, m in sorted(res["missed"].items()):
            out.append(f"| {c} | {m['hand']} | {cause_of(m['why'])} | {' / '.join(m['why'])} |")
        causes = Counter(cause_of(m["why"]) for m in res["missed"].values())
        out += ["", "causes: " + ", ".join(f"{k} {v}" for k, v in causes.most_common())]
    if res["wrong"]:
        out += ["", "wrong reports: " + ", ".join(
            f"{w['card']} ({w['confidence']}{', labelled elsewhere' if w['labelled_elsewhere'] else ''})" for w in res["wrong"])]
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", metavar="DIR", help="the real-table data (fanned-deal.jpg, fanned-deal-1280x720.jpg, "
                                                 "fanned-deal.labels.json)")
    p.add_argument("--frame720", action="store_true",
                   help="score the 1280x720 frame of the photo (fanned-deal-1280x720.jpg: the photo scaled to "
                        "720x720, centred) with the photo's labels")
    p.add_argument("--models", help="models folder (default: the committed models)")
    p.add_argument("--json", help="also write the result here")
    p.add_argument("--no-diagnose", action="store_true", help="only the scores")
    p.add_argument("--camera", action="store_true",
                   help="read with a camera's settings (the live session's; default: a photo's, as "
                        "`tableref detect` reads it, small indices enlarged further)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                   help="change a RecognizerConfig field for this run, e.g. --set turned_pass=1")
    a = p.parse_args(argv)
    folder = Path(a.folder)
    img_path = folder / ("fanned-deal-1280x720.jpg" if a.frame720 else "fanned-deal.jpg")
    lab_path = folder / "fanned-deal.labels.json"
    if not img_path.exists() or not lab_path.exists():
        print(f"error: DIR {folder}: no {img_path.name} and {lab_path.name} there", file=sys.stderr)
        return 2
    image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
    if image is None:
        print(f"error: cannot read {img_path}", file=sys.stderr)
        return 1
    changes = {}
    for item in a.set:
        field_name, _, value = item.partition("=")
        if field_name not in RecognizerConfig.__dataclass_fields__:
            print(f"error: RecognizerConfig has no field {field_name!r}", file=sys.stderr)
            return 2
        default = getattr(RecognizerConfig(), field_name)
        kind = type(default)
        try:
            changes[field_name] = (value if kind is str else (value.lower() in ("1", "true", "yes")) if kind is bool
                                   else float(value) if default is None else kind(float(value)))
        except ValueError:
            print(f"error: bad value for {field_name}: {value!r}", file=sys.stderr)
            return 2
    config = camera_preset(**changes) if a.camera else photo_preset(**changes)
    try:
        rec = CardRecognizer(a.models, config=config)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    h, w = image.shape[:2]
    labels = load_labels(lab_path, h, h, (w - h) / 2, 0) if a.frame720 else load_labels(lab_path, w, h)
    res = evaluate(rec, image, labels, diagnose=not a.no_diagnose)
    res["read_as"] = "camera frame" if a.camera else "photo"
    print(report(res))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
