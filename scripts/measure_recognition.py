#!/usr/bin/env python3
"""Measure the committed recognition models and write the numbers into the model card.

    python scripts/measure_recognition.py                 # print the section
    python scripts/measure_recognition.py --write         # also replace it in models/MODEL_CARD.md

Runs (1) the rank-level evaluation on the real photos
(``../shared/data/real-photos-rank-only``), (2) the card-level evaluation on scenes
rendered by the training-data renderer on seeds the training set never uses, and
(3) the speed benchmark (``tableref.bench``: synthetic 52-card frames at 1280x720, 1920x1080,
12 MP, the real fanned deal and its 104-card tiling; 2 threads).
The section "## Measured: real photos and speed" of ``models/MODEL_CARD.md`` is
replaced (or appended); nothing else in the file is touched.
"""
from __future__ import annotations

import argparse
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tableref import bench as speed  # noqa: E402
from tableref.training import evaluation  # noqa: E402
from tableref.vision.detector import PHOTO_INDEX_PX, CardRecognizer, RecognizerConfig  # noqa: E402

SECTION = "## Measured: real photos and speed"
DEFAULT_REAL = ROOT.parent / "shared" / "data" / "real-photos-rank-only"


def _pct(v):
    return "n/a" if v is None else f"{100 * v:.1f} %"


def section(real: dict | None, synth: dict | None, bench: dict | None, rec: CardRecognizer, machine: str,
            label: str | None = None, photos: CardRecognizer | None = None) -> str:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    photo_cls = (photos or rec).cls_path.name
    classifiers = (f"`{photo_cls}` (photos) / `{rec.cls_path.name}` (camera frames)"
                   if photo_cls != rec.cls_path.name else f"`{photo_cls}`")
    models = label or (f"`{rec.det_path.name}` + {classifiers} (recognition.json version "
                       f"{rec.spec.get('version')})")
    out = [SECTION, "",
           f"Measured {when} by `scripts/measure_recognition.py` on {machine}; models {models}; "
           f"pipeline `vision.detector.CardRecognizer` with its default thresholds (detector "
           f"{rec.config.det_conf}, card {rec.config.min_card_confidence}), backend {rec.backend} "
           f"({rec.backend_reason}); the photos and scenes are read with the settings for photos "
           f"(`RecognizerConfig.for_photos`, as `tableref detect` reads them: indices under "
           f"{PHOTO_INDEX_PX[0]:.0f} px read enlarged), the speed frames with a camera's (as the live "
           f"session and `tableref bench-detect` read them). Rerun after every model "
           "export: `python scripts/measure_recognition.py --write`.", ""]
    if real:
        out += ["### Real photos, rank level (`../shared/data/real-photos-rank-only`)", "",
                f"{real['images']} photos, {real['labelled']} labelled cards (ranks 9-A, one Bicycle-style "
                "deck, never used for training). A labelled card is found when a reported card of "
                "that rank has its centre inside the labelled whole-card box; precision = reported "
                "cards lying on a labelled card of their rank / all reported cards.", "",
                f"**recall {_pct(real['recall'])}, precision {_pct(real['precision'])}** "
                f"(targets: recall >= 95 %, precision >= 97 %); median {real['ms_median']:.0f} ms per photo.", "",
                "| rank | labelled | found | recall | reported | correct | precision |",
                "|---|---|---|---|---|---|---|"]
        for lab, p in real["per_label"].items():
            out.append(f"| {lab} | {p['labelled']} | {p['found']} | {_pct(p['recall'])} | {p['reported']} | "
                       f"{p['correct']} | {_pct(p['precision'])} |")
        conf = ", ".join(f"{a}->{b} ({n})" for a, b, n in real["confusions"][:12]) or "none"
        out += ["", f"Confusions (true -> reported): {conf}.", ""]
    if synth:
        out += ["### Synthetic scenes, card level", "",
                f"{synth['images']} scenes of 1280x720 rendered by `datasets.scenes` on seeds not used "
                f"for training (all decks, overlaps, tilt, blur); {synth['labelled']} cards with a "
                f"visible index: **recall {_pct(synth['recall'])}, precision {_pct(synth['precision'])}** "
                "(full card value must match).", ""]
        conf = ", ".join(f"{a}->{b} ({n})" for a, b, n in synth["confusions"][:12]) or "none"
        out += [f"Confusions: {conf}.", ""]
    if bench:
        backend = ", ".join(sorted({e.get("backend", "onnxruntime") for e in bench.values()}))
        out += ["### Speed", "",
                f"Model loaded, 2 threads, backend {backend}, image already decoded; medians per frame in ms "
                f"(load average {speed.loadavg()} when written: timings on a shared machine are inflated, "
                "the CPU times less so). Total = wall time of `recognize`; detector = finding the index "
                "boxes (views, network, decoding, NMS); classifier = reading them (crops, network); "
                "assembly; outlines; nets = the two networks alone; other = everything else, with its CPU "
                "time in the calling thread and the helper threads that do part of it beside it.", "",
                "| frame | total (p90) | detector | classifier | assembly | outlines | nets | other (CPU) "
                "| process CPU | detector runs | cards |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, e in bench.items():
            found = (f"{e['cards_found']}/{e['cards_in_frame']}" if "cards_found" in e
                     else f"{e['cards_reported']} reported of {e.get('cards_in_frame', '?')}")
            out.append(f"| {name} | {e['ms_median']:.0f} ({e['ms_p90']:.0f}) | {e['ms_detect']:.0f} | "
                       f"{e['ms_classify']:.0f} | {e['ms_assembly']:.1f} | {e['ms_outlines']:.1f} | "
                       f"{e['ms_detector_net']:.0f}+{e['ms_classifier_net']:.0f} | {e['ms_non_network']:.0f} "
                       f"({e['cpu_ms_non_network']:.1f}) | {e['cpu_ms_median']:.0f} | "
                       f"{e['detector_runs']} ({' '.join(e['passes'])}) | {found} |")
        out.append("")
    return "\n".join(out)


def write_section(card: Path, text: str) -> None:
    old = card.read_text(encoding="utf-8") if card.exists() else "# Card recognition models\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(old):
        new = pattern.sub(lambda _m: text.rstrip() + "\n\n", old)
    else:
        new = old.rstrip() + "\n\n" + text.rstrip() + "\n"
    card.write_text(new.rstrip() + "\n", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=None)
    ap.add_argument("--real", default=str(DEFAULT_REAL))
    ap.add_argument("--render", type=int, default=24, help="synthetic scenes to render (0 = skip)")
    ap.add_argument("--repeat", type=int, default=10, help="timed runs per benchmark frame (0 = skip)")
    ap.add_argument("--machine", default=None,
                    help="describe the machine (default: the processor from /proc/cpuinfo, e.g. "
                         "'AMD EPYC (family 25 model 1, AVX2, no AVX-512), 2 cores')")
    ap.add_argument("--write", action="store_true", help="replace the section in models/MODEL_CARD.md")
    ap.add_argument("--card", default=str(ROOT / "models" / "MODEL_CARD.md"), help="model card to write")
    ap.add_argument("--label", default=None, help="describe the models measured (default: file names, version)")
    args = ap.parse_args(argv)
    rec = CardRecognizer(args.models, config=RecognizerConfig())
    photos = CardRecognizer(args.models, config=RecognizerConfig.for_photos())
    real = synth = bench = None
    if args.real and Path(args.real).exists():
        real = evaluation.evaluate_rank_photos(photos, args.real)
        print(evaluation.format_report("real photos", real), file=sys.stderr)
    if args.render:
        synth = evaluation.evaluate_images(photos, evaluation.render_synthetic_scenes(args.render),
                                           desc="rendered scenes")
        print(evaluation.format_report("synthetic scenes", synth), file=sys.stderr)
    if args.repeat:
        frames, notes = speed.default_frames()
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        bench = speed.benchmark(rec, frames, repeat=args.repeat)
        print(speed.format_bench(bench, 2), file=sys.stderr)
    machine = args.machine or f"{speed.cpu_description()}, no GPU"
    text = section(real, synth, bench, rec, f"{machine}, {platform.machine()}", args.label, photos)
    print(text)
    if args.write:
        write_section(Path(args.card), text)
        print(f"wrote the section into {args.card}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
