#!/usr/bin/env python3
"""Check that an inference backend reads the real photos as well as ONNX Runtime (fp32), and record it.

    python scripts/validate_backend.py --real DIR                  # OpenVINO against ONNX Runtime, print only
    python scripts/validate_backend.py --real DIR --write          # and record the result in models/backends.json

The recogniser picks a faster backend automatically (``RecognizerConfig(backend="auto")``) only
where ``models/backends.json`` says it passed this check on exactly the model files in use
(their SHA-256): a retrained model falls back to ONNX Runtime until the check is run again.

    python scripts/validate_backend.py --classifier-bf16 --real DIR --real-table DIR [--write]

``--classifier-bf16`` checks instead the classifier computed by OpenVINO in bfloat16 (where the
processor does that natively) against ONNX Runtime in float32, as a camera's frames are read: the
single-frame table of ``scripts/bench_camera.py`` (the real-table frames as a one-pack and as a
three-pack table, and the rank photos, each under every camera condition) read both ways. It passes
when bfloat16 reads, in every set and condition, at least as many cards right and no more wrong;
recorded (``--write``) under the classifier file's SHA-256, it lets a camera's frames be read so.

    python scripts/validate_backend.py --camera-detector --real DIR --real-table DIR [--write]

``--camera-detector`` checks the detector run by OpenVINO in float32 against ONNX Runtime the same
way, on a camera's frames only (the classifier as a camera's frames read it either way): where it
passes, recorded under the detector file's SHA-256, a camera's frames are read with it (the two
runtimes round differently, so a photo may read one borderline card differently; photos keep the
backend the photo check chose).

The backend check: every one of the real rank-labelled photos (``--real``), the rendered scenes
(``--render``, card level) and the real fanned-deal frames (``--real-table``) are read with both
backends. It passes when the candidate's recall and precision on the real photos are at least
ONNX Runtime's and its recall and precision on the rendered scenes are within ``--tolerance``
points of ONNX Runtime's. The number of images where the two report different cards is printed
too.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2

from tableref import bench
from tableref.training import evaluation
from tableref.vision.recognition import CardRecognizer, RecognizerConfig, camera_preset
from tableref.vision.runtime import VALIDATION_FILE, file_sha256


def cards_of(rec, img):
    return sorted(c.card for c in rec.recognize(img))


def check_classifier_bf16(args) -> int:
    """The bfloat16 classifier against float32 on the real camera frames (``--classifier-bf16``)."""
    from tableref.vision.runtime import CLASSIFIER_BF16, bf16_native

    if not bf16_native():
        print("error: OpenVINO is not installed or this processor does not compute bfloat16 natively", file=sys.stderr)
        return 2
    return check_camera_frames(args, "--classifier-bf16", "classifier in bfloat16", CLASSIFIER_BF16,
                               ("float32", {"classifier_bf16": "off"}), ("bfloat16", {"classifier_bf16": "on"}),
                               lambda rec: rec.cls_path)


def check_camera_detector(args) -> int:
    """The detector run by OpenVINO (float32) against ONNX Runtime on the real camera frames
    (``--camera-detector``); the classifier as a camera's frames are read either way."""
    from tableref.vision.runtime import CAMERA_DETECTOR, openvino_available

    if not openvino_available():
        print("error: OpenVINO is not installed", file=sys.stderr)
        return 2
    return check_camera_frames(args, "--camera-detector", "detector in OpenVINO", CAMERA_DETECTOR,
                               ("ONNX Runtime", {"detector_openvino": "off"}), ("OpenVINO", {"detector_openvino": "on"}),
                               lambda rec: rec.det_path)


def check_camera_frames(args, option: str, what: str, key: str, ref: tuple[str, dict], cand: tuple[str, dict],
                        model_file) -> int:
    """The single-frame table of ``scripts/bench_camera.py`` (the real-table frames as a one-pack and
    as a three-pack table, and the rank photos, each under every camera condition) read with a
    camera's settings changed as ``ref`` and as ``cand`` ((name, settings)). It passes when ``cand``
    reads, in every set and condition, at least as many cards right and no more wrong; recorded
    (``--write``) under ``key`` with the SHA-256 of the model file ``model_file(recogniser)`` names."""
    import bench_camera as bc

    from tableref.vision.runtime import ModelError

    if not args.real_table or not Path(args.real_table).is_dir():
        print(f"error: {option} needs --real-table DIR", file=sys.stderr)
        return 2
    table = bc.real_table_frames(Path(args.real_table))
    sets = {k: v for k, v in (("real-table frames", table), (bc.THREE_PACKS, table),
                              ("rank photos", bc.rank_photos(Path(args.real)))) if v}
    try:
        runs = {name: bc.single_frames(sets, args.models, 0, **changes) for name, changes in (ref, cand)}
        rec = CardRecognizer(args.models, config=camera_preset(**cand[1]))
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ok, rows = True, []
    for set_name in sets:
        for cond in bc.CONDITIONS:
            a, b = runs[ref[0]][set_name][cond], runs[cand[0]][set_name][cond]
            row_ok = b.read >= a.read and len(b.wrong) <= len(a.wrong)
            ok = ok and row_ok
            rows.append(f"{set_name} | {cond} | read {a.read} -> {b.read} of {a.labelled} | wrong {len(a.wrong)} -> "
                        f"{len(b.wrong)}{'' if row_ok else ' | FAILED'}")
            print(rows[-1])
    path = model_file(rec)
    entry = {"passed": ok, "checked": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             "models": {path.name: file_sha256(path)},
             f"{ref[0]} -> {cand[0]}": rows}
    print(f"{what}: {'PASSED' if ok else 'FAILED'} (every set and condition: at least as many "
          f"cards read, no more wrong)")
    if args.write:
        _record(rec.models_dir, key, entry)
    return 0 if ok else 1


def _record(models_dir: Path, key: str, entry: dict) -> None:
    """``entry`` written under ``key`` in the models' backends.json, the other entries kept."""
    path = Path(models_dir) / VALIDATION_FILE
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {}
    old[key] = entry
    path.write_text(json.dumps(old, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="openvino", help="the backend to check (default openvino)")
    ap.add_argument("--models", default=None)
    ap.add_argument("--real", required=True, metavar="DIR", help="the real rank-labelled photos (with labels.csv)")
    ap.add_argument("--real-table", metavar="DIR", help="the real-table data (fanned-deal-1280x720.jpg, fanned-deal.jpg), "
                    "compared image by image too")
    ap.add_argument("--render", type=int, default=24, help="rendered scenes to compare (0 = none)")
    ap.add_argument("--tolerance", type=float, default=0.2, help="points of recall/precision on rendered scenes")
    ap.add_argument("--write", action="store_true", help=f"record the result in the models' {VALIDATION_FILE}")
    ap.add_argument("--classifier-bf16", action="store_true",
                    help="check the classifier in bfloat16 (OpenVINO) on the real camera frames instead")
    ap.add_argument("--camera-detector", action="store_true",
                    help="check the detector in OpenVINO (float32) on the real camera frames instead")
    args = ap.parse_args(argv)
    if not Path(args.real).exists():
        print(f"error: --real {args.real}: no such folder", file=sys.stderr)
        return 2
    if args.classifier_bf16:
        return check_classifier_bf16(args)
    if args.camera_detector:
        return check_camera_detector(args)
    settings = dict(precision="fp32", fast_classifier=False, classifier_bf16="off", detector_openvino="off")
    ref = CardRecognizer(args.models, config=RecognizerConfig(backend="onnxruntime", **settings))
    cand = CardRecognizer(args.models, config=RecognizerConfig(backend=args.backend, **settings))
    result = {}
    for name, rec in (("onnxruntime", ref), (args.backend, cand)):
        real = evaluation.evaluate_rank_photos(rec, args.real)
        synth = (evaluation.evaluate_images(rec, evaluation.render_synthetic_scenes(args.render), desc="rendered")
                 if args.render else None)
        result[name] = {"real": {k: real[k] for k in ("recall", "precision", "labelled", "reported", "ms_median")},
                        "rendered": ({k: synth[k] for k in ("recall", "precision", "labelled", "reported", "ms_median")}
                                     if synth else None)}
    # image by image: where do the two report different cards?
    labels = evaluation.load_rank_labels(args.real)
    differ = []
    images = [(fn, cv2.imread(str(Path(args.real) / fn))) for fn in sorted(labels)]
    images += [(name, img) for name, img, _ in bench.real_frames(args.real_table)] if args.real_table else []
    for fn, img in images:
        if img is not None and cards_of(ref, img) != cards_of(cand, img):
            differ.append(fn)
    a, b = result["onnxruntime"], result[args.backend]
    ok = b["real"]["recall"] >= a["real"]["recall"] and b["real"]["precision"] >= a["real"]["precision"]
    if a["rendered"] and b["rendered"]:
        tol = args.tolerance / 100.0
        ok = ok and all(b["rendered"][k] >= a["rendered"][k] - tol for k in ("recall", "precision"))
    entry = {"passed": bool(ok), "checked": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             "models": {p.name: file_sha256(p) for p in (cand.det_path, cand.cls_path)},
             "results": result, "images_with_different_cards": len(differ), "images": len(images),
             "different": differ[:20]}
    print(json.dumps(entry, indent=1))
    print(f"{args.backend}: {'PASSED' if ok else 'FAILED'} (real photos recall/precision "
          f"{b['real']['recall']:.4f}/{b['real']['precision']:.4f} vs {a['real']['recall']:.4f}/"
          f"{a['real']['precision']:.4f}; {len(differ)} of {len(images)} images read differently)")
    if args.write:
        _record(cand.models_dir, args.backend, entry)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
