#!/usr/bin/env python3
"""Does the index classifier read suits by shape or by ink colour?

    python scripts/check_suit_colour.py --crops datasets/build/v2cls/classifier/val [--models DIR ...]

Reads the validation crops of the card classes (never trained on) with each ONNX classifier
given, as they are and turned: red ink darkened to maroon/near black, a warm dim white
balance, grey-scale. Prints the card accuracy and the suit accuracy of the red suits
(D, H) and black suits (C, S) for each. A classifier that leans on colour loses the red
suits when the red turns dark or grey; one that reads shape keeps them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def darken_red(bgr: np.ndarray, f: float = 0.45) -> np.ndarray:
    c = bgr.astype(np.float32)
    b, g, r = c[:, :, 0], c[:, :, 1], c[:, :, 2]
    redness = np.clip((r - np.maximum(g, b) - 40) / 80.0, 0, 1)
    return np.clip(c * (1 - (1 - f) * redness)[..., None], 0, 255).astype(np.uint8)


def warm_dim(bgr: np.ndarray) -> np.ndarray:
    return np.clip(bgr.astype(np.float32) * np.array([0.55, 0.75, 0.95]) * 0.8, 0, 255).astype(np.uint8)


def grey(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


TURNS = {"as is": lambda x: x, "red darkened": darken_red, "dark red + warm dim": lambda x: warm_dim(darken_red(x)),
         "grey-scale": grey}


def load(folder: Path, per_class: int):
    xs, ys = [], []
    for d in sorted(folder.iterdir()):
        if not d.is_dir() or d.name == "none":
            continue
        for f in sorted(d.glob("*.png"))[:per_class]:
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if img is not None:
                xs.append(img)
                ys.append(d.name)
    return xs, ys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crops", required=True, help="a classifier split folder (<class>/*.png), e.g. .../classifier/val")
    p.add_argument("--models", nargs="*", default=[str(ROOT / "models")], help="model folders (recognition.json + ONNX)")
    p.add_argument("--per-class", type=int, default=60)
    a = p.parse_args(argv)
    folder = Path(a.crops)
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of crops", file=sys.stderr)
        return 1
    import onnxruntime as ort

    from tableref.vision.crops import to_classifier_input

    xs, ys = load(folder, a.per_class)
    if not xs:
        print(f"error: no crops under {folder}", file=sys.stderr)
        return 1
    ys = np.array(ys)
    red = np.array([y[-1] in "DH" for y in ys])
    print(f"{len(ys)} card crops ({red.sum()} red, {(~red).sum()} black) from {folder}")
    for mdir in a.models:
        spec = json.loads((Path(mdir) / "recognition.json").read_text())
        names = spec["classifier"]["names"]
        sess = ort.InferenceSession(str(Path(mdir) / spec["classifier"]["file"]), providers=["CPUExecutionProvider"])
        inp = sess.get_inputs()[0].name
        print(f"\n{mdir} ({spec['classifier']['file']})")
        print("| crops | card acc | red suit acc | black suit acc |\n|---|---|---|---|")
        for tname, fn in TURNS.items():
            preds = []
            imgs = [fn(x) for x in xs]
            for i in range(0, len(imgs), 256):
                preds.append(sess.run(None, {inp: to_classifier_input(imgs[i:i + 256])})[0].argmax(1))
            pred = np.array([names[k] for k in np.concatenate(preds)])
            card = (pred == ys).mean()
            suit_ok = np.array([pp != "none" and pp[-1] == y[-1] for pp, y in zip(pred, ys)])
            print(f"| {tname} | {100 * card:.1f} % | {100 * suit_ok[red].mean():.1f} % | {100 * suit_ok[~red].mean():.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
