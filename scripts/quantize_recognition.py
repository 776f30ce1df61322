#!/usr/bin/env python3
"""Make int8 copies of the recognition models (faster on CPUs with int8 dot products).

    python scripts/quantize_recognition.py [--models models] [--scenes 48]

Writes ``<stem>.int8.onnx`` beside ``index_detector.onnx`` and
``index_classifier.onnx``: static QDQ quantization (per-channel int8 weights,
uint8 activations), calibrated on synthetic table scenes rendered from the deck
artwork (``datasets.decks``) -- never on the real validation photos. The
detector's box/score decoding stays in float (one uint8 scale cannot hold pixel
coordinates and probabilities at once). Each copy records the SHA-256 of its
source model; ``vision.recognition`` uses a copy only while it matches (retraining
makes it stale, and the float model is used again).

Needs the ``onnx`` package (``pip install -e '.[train]'``); run time does not.
Check the accuracy afterwards: ``tableref evaluate --real DIR`` with and without
``--precision fp32``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


from tableref.vision.crops import index_crop, to_classifier_input
from tableref.vision.recognition import CardRecognizer, RecognizerConfig
from tableref.vision.runtime import file_sha256
from tableref.vision.views import letterbox_view, render_view
from tableref.training.evaluation import compose_meld_scene, compose_random_scene


def calibration_scenes(n: int, seed: int = 0):
    from tableref.datasets import decks

    names = [d for d in decks.available_decks() if d.startswith(("kennard", "svg", "younes", "kde-standard",
                                                                 "kde-dondorf", "kde-nicu"))]
    rng = np.random.default_rng(seed)
    faces_cache = {}
    for k in range(n):
        deck = names[k % len(names)]
        if deck not in faces_cache:
            faces_cache[deck] = decks.load_deck_bgra(deck)
        faces = faces_cache[deck]
        w, h = [(1280, 720), (1920, 1080), (960, 540), (504, 378), (640, 480)][k % 5]
        card_h = float(rng.uniform(0.12, 0.45)) * h
        if k % 3 == 0:
            img, _ = compose_meld_scene(faces, list(faces)[: int(rng.integers(8, 40))], w, h, card_h, seed=k)
        else:
            img, _ = compose_random_scene(faces, int(rng.integers(1, 12)), w, h, card_h, seed=k)
        yield img


class _Reader:
    def __init__(self, name, batches):
        self.name, self.batches = name, iter(batches)

    def get_next(self):
        b = next(self.batches, None)
        return None if b is None else {self.name: b}


def quantize(src: Path, dst: Path, input_name: str, batches, exclude_decode: bool, method: str = "entropy") -> None:
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pre = dst.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    model = onnx.load(str(pre))
    outs = {o.name for o in model.graph.output}
    exclude = []
    last = [n for n in model.graph.node if set(n.output) & outs]
    if exclude_decode and last and last[0].name.count("/") >= 2:
        # Ultralytics head: keep its convolutions quantized, its decoding (DFL, anchors, sigmoid) float
        prefix = "/".join(last[0].name.split("/")[:2]) + "/"
        exclude = [n.name for n in model.graph.node
                   if n.name.startswith(prefix) and "/cv2" not in n.name and "/cv3" not in n.name]
    else:
        # the classifier's head turns its last Gemm's logits into probabilities (softmaxes, a sigmoid,
        # their products): quantized to uint8 they flatten every card's probability to a few per
        # cent (the top reading stays right, but no card reaches the confidence to be reported,
        # which is why an earlier int8 copy "read nothing right"); everything after the last
        # Gemm/MatMul stays in float
        # (the last Gemm itself and the first convolution, which sees the picture itself, stay
        # float too: cheap, and the readings then follow the float model's closely)
        nodes = list(model.graph.node)
        last_mm = max((k for k, n in enumerate(nodes) if n.op_type in ("Gemm", "MatMul")), default=None)
        exclude = ([n.name for n in nodes[last_mm:]] if last_mm is not None else []) or [n.name for n in last]
        exclude += [n.name for n in nodes if n.op_type == "Conv"][:1]

    class Reader(_Reader, CalibrationDataReader):
        pass

    # the activations' ranges: "minmax" takes the largest value seen, so one outlier widens a layer's
    # whole uint8 scale (the classifier's top readings then agreed with float on 77 % of the real
    # photos' crops); "entropy" and "percentile" (99.99 %) clip the outliers (100 % and 99.7 %)
    calibrate = {"minmax": CalibrationMethod.MinMax, "entropy": CalibrationMethod.Entropy,
                 "percentile": CalibrationMethod.Percentile}[method]
    extra = {"CalibPercentile": 99.99} if method == "percentile" else {}
    quantize_static(str(pre), str(dst), Reader(input_name, batches), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
                    nodes_to_exclude=exclude, calibrate_method=calibrate, extra_options=extra)
    pre.unlink(missing_ok=True)
    q = onnx.load(str(dst))
    meta = {p.key: p.value for p in q.metadata_props}
    meta["source_sha256"] = file_sha256(src)
    meta["quantization"] = (f"static QDQ int8 (per-channel weights, uint8 activations, {method} calibration), "
                            "scripts/quantize_recognition.py")
    del q.metadata_props[:]
    for k, v in meta.items():
        q.metadata_props.add(key=k, value=v)
    onnx.save(q, str(dst))
    print(f"{dst}: {dst.stat().st_size / 1e6:.1f} MB (from {src.stat().st_size / 1e6:.1f} MB), "
          f"{len(exclude)} nodes left in float")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=None, help="models directory (default: the committed models)")
    ap.add_argument("--scenes", type=int, default=48, help="calibration scenes (default 48)")
    ap.add_argument("--method", choices=("entropy", "percentile", "minmax"), default="entropy",
                    help="how the activations' ranges are calibrated (default entropy)")
    ap.add_argument("--only", choices=("detector", "classifier"), default=None,
                    help="quantize only this model (the other keeps no int8 copy made here)")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    rec = CardRecognizer(args.models, config=RecognizerConfig(precision="fp32", fast_classifier=False))
    det_in, crops = [], []
    for img in tqdm(list(calibration_scenes(args.scenes)), desc="calibration scenes"):
        h, w = img.shape[:2]
        view = letterbox_view(w, h, rec.imgsz, rect_stride=rec.rect_stride)
        x = render_view(img, view)[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        if not rec.plan.dynamic or len(det_in) % 2 == 0:
            det_in.append(np.ascontiguousarray(x))
        boxes, _ = rec.find_indices(img)
        crops += [index_crop(img, b, size=rec.crop_size, margin=rec.crop_margin) for b in boxes]
    if rec.plan.dynamic:  # calibrate on square inputs of the nominal size
        det_in = [np.ascontiguousarray(render_view(img, letterbox_view(img.shape[1], img.shape[0], rec.imgsz))
                                       [:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0)
                  for img in calibration_scenes(min(args.scenes, 24))]
    rng = np.random.default_rng(0)
    if len(crops) < 256:  # too few detections (an untrained model?): add crops of random places
        for img in calibration_scenes(8, seed=1):
            h, w = img.shape[:2]
            for _ in range(32):
                s = float(rng.uniform(0.03, 0.1)) * h
                x, y = float(rng.uniform(0, w - s)), float(rng.uniform(0, h - 2 * s))
                crops.append(index_crop(img, (x, y, x + s, y + 2 * s), size=rec.crop_size, margin=rec.crop_margin))
    rng.shuffle(crops)
    # whole batches only (the histogram calibrators stack them)
    cls_batches = [to_classifier_input(crops[i:i + 32]) for i in range(0, min(len(crops), 1024) - 31, 32)]
    print(f"calibrating on {len(det_in)} detector inputs and {sum(len(b) for b in cls_batches)} index crops")
    if args.only != "classifier":
        quantize(rec.det_path, rec.det_path.with_name(rec.det_path.stem + ".int8.onnx"), rec.det_net.input_name,
                 det_in, True, args.method)
    if args.only != "detector":
        quantize(rec.cls_path, rec.cls_path.with_name(rec.cls_path.stem + ".int8.onnx"), rec.cls_net.input_name,
                 cls_batches, False, args.method)
    return 0


if __name__ == "__main__":
    sys.exit(main())
