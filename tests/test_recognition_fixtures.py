"""The committed recognition models read the committed fixtures correctly.

The fixtures (``tests/fixtures/*.jpg`` + ``*.json``, rendered by
``scripts/make_detect_fixtures.py`` from Adrian Kennard's CC0 deck) hold known cards:
separated cards at several rotations, an overlapped run with two identical kings at
different places (Marriage, three packs), and a fanned hand.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from tableref.cli import main
from tableref.training.evaluation import load_scene_labels, match

FIXTURES = Path(__file__).parent / "fixtures"
SCENES = sorted(FIXTURES.glob("*.jpg"))


def truth(path):
    return load_scene_labels(path.with_suffix(".json"))


@pytest.fixture(scope="module")
def recognizer():
    from tableref.vision.recognition import CardRecognizer

    return CardRecognizer()


@pytest.fixture(scope="module")
def quick_recognizer():
    from tableref.vision.recognition import CardRecognizer, camera_preset

    return CardRecognizer(config=camera_preset(quick=True))


def test_fixtures_present():
    assert {p.stem for p in SCENES} >= {"cards_apart", "meld_and_duplicates", "fan"}


@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.stem)
def test_model_reads_fixture_cards(recognizer, path):
    img = cv2.imread(str(path))
    cards = recognizer.recognize(img)
    truths = truth(path)
    assert Counter(c.card for c in cards) == Counter(t.label for t in truths)
    m = match([(c.card, c.centre) for c in cards], truths)
    assert all(m["found"]) and all(m["correct"])
    for c in cards:
        assert 0.0 < c.confidence <= 1.0
        x1, y1, x2, y2 = c.box
        assert 0 <= x1 < x2 <= img.shape[1] and 0 <= y1 < y2 <= img.shape[0]


@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.stem)
def test_the_quick_reading_reads_fixture_cards_too(quick_recognizer, path):
    """A camera on a slow machine reads quick (the fast classifier, smaller indices): the fixtures too."""
    cards = quick_recognizer.recognize(cv2.imread(str(path)))
    assert Counter(c.card for c in cards) == Counter(t.label for t in truth(path))


def test_the_quick_reading_uses_the_fast_classifier_and_photo_quality_the_full_one(tmp_path):
    """recognition.json names a fast classifier: the quick reading of a camera's frames
    (TABLEREF_READING=quick) uses it, photo quality (a camera's frames and photos) the full one;
    models without the fast file read with the full one."""
    import shutil

    from tableref.models import MODELS_DIR
    from tableref.vision.recognition import CardRecognizer, MachineSettings, camera_preset, photo_preset

    spec = json.loads((MODELS_DIR / "recognition.json").read_text())
    fast, full = spec["classifier"]["fast_file"], spec["classifier"]["file"]
    assert fast != full and (MODELS_DIR / fast).exists()
    machine = MachineSettings.from_environment({"TABLEREF_READING": "quick"})
    quick = CardRecognizer(config=camera_preset(quick=machine.quick))
    assert quick.cls_path.name == fast and quick.fast_classifier
    assert CardRecognizer(config=photo_preset()).cls_path.name == full
    assert CardRecognizer(config=camera_preset()).cls_path.name == full
    assert MachineSettings.from_environment({}).config_changes() == {"backend": "auto"}
    for name in ("recognition.json", spec["detector"]["file"], full):
        shutil.copy(MODELS_DIR / name, tmp_path / name)
    without = CardRecognizer(tmp_path, config=camera_preset(quick=True))
    assert without.cls_path.name == full and not without.fast_classifier


def test_two_corner_cards_get_whole_card_quads(recognizer):
    path = FIXTURES / "cards_apart.jpg"
    cards = recognizer.recognize(cv2.imread(str(path)))
    truths = {t.label: np.array(t.polygon) for t in truth(path)}
    with_quad = [c for c in cards if c.quad]
    assert len(with_quad) >= 4
    for c in with_quad:
        true_centre = truths[c.card].mean(axis=0)
        assert np.linalg.norm(np.array(c.centre) - true_centre) < 20
        # card size right within 25 %
        side = np.linalg.norm(np.array(c.quad[0]) - np.array(c.quad[1]))
        true_side = np.linalg.norm(truths[c.card][0] - truths[c.card][1])
        assert 0.75 < side / true_side < 1.25


def test_observe_returns_frame_observation(recognizer):
    img = cv2.imread(str(FIXTURES / "fan.jpg"))
    obs = recognizer.observe(img, t=1.5)
    assert obs.t == 1.5 and (obs.width, obs.height) == (img.shape[1], img.shape[0])
    assert len(obs.cards) == 5 and 0 < obs.sharpness <= 1


def test_blank_table_has_no_cards(recognizer):
    from tableref.training.evaluation import table_background

    assert recognizer.recognize(table_background(1280, 720, seed=2)) == []


def test_evaluate_on_fixture_scenes(tmp_path, capsys):
    out = tmp_path / "eval.json"
    rc = main(["evaluate", "--synthetic", str(FIXTURES), "--json", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "recall 100.0 %" in text and "precision 100.0 %" in text
    res = json.loads(out.read_text())
    (only,) = res.values()
    assert only["labelled"] == sum(len(truth(p)) for p in SCENES) and only["images"] == len(SCENES)



def test_detect_json_reads_fixture_cards(capsys):
    assert main(["detect", "--json", *map(str, SCENES)]) == 0
    for line, path in zip(capsys.readouterr().out.strip().splitlines(), SCENES):
        obj = json.loads(line)
        assert Counter(c["card"] for c in obj["cards"]) == Counter(t.label for t in truth(path))


def test_detect_table_lists_both_identical_kings(capsys):
    assert main(["detect", str(FIXTURES / "meld_and_duplicates.jpg")]) == 0
    out = capsys.readouterr().out
    assert "7 cards" in out and out.count(" KC ") == 2



def test_a_video_keeps_the_enlarged_views_for_a_few_frames():
    import cv2

    from tableref.vision.recognition import CardRecognizer, camera_preset

    cap = cv2.VideoCapture(str(Path(__file__).parent / "fixtures" / "table_clip" / "video.mp4"))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    cap.set(cv2.CAP_PROP_POS_FRAMES, n - 2)
    ok, frame = cap.read()
    assert ok
    once = CardRecognizer(threads=2)
    video = CardRecognizer(threads=2, config=camera_preset(reuse_scale_frames=2))
    expected = sorted(c.card for c in once.recognize(frame))
    assert len(once.last_stats.passes) == 2          # the clip's indices are small: read enlarged
    passes, cards = [], []
    for _ in range(4):
        cards.append(sorted(c.card for c in video.recognize(frame)))
        passes.append(video.last_stats.passes)
    assert [len(p) for p in passes] == [2, 1, 1, 2]   # full view + enlarged, kept, kept, anew
    assert "kept" in passes[1][0]
    assert all(c == expected for c in cards)


def test_unsure_readings_are_read_again_turned_and_sure_ones_are_kept(recognizer):
    """``tta_uncertain``: with many crops, only those read with less than it get the turned vote."""
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig

    img = cv2.imread(str(FIXTURES / "meld_and_duplicates.jpg"))
    boxes, _ = recognizer.find_indices(img)
    assert len(boxes) >= 4
    plain = CardRecognizer(config=RecognizerConfig(tight_reread=0.0))
    once = plain.classify(img, boxes, tta=False)
    turned = plain.classify(img, boxes, tta=True)
    limit = float(np.median(once.max(axis=1)))     # half of the crops count as unsure
    rec = CardRecognizer(config=RecognizerConfig(tta_max_crops=0, tta_uncertain=limit, tight_reread=0.0))
    mixed = rec.classify(img, boxes)
    unsure = once.max(axis=1) < limit
    assert unsure.any() and (~unsure).any()
    np.testing.assert_allclose(mixed[~unsure], once[~unsure], atol=1e-6)
    np.testing.assert_allclose(mixed[unsure], turned[unsure], atol=1e-5)


def test_the_turned_vote_reads_each_crop_turned(recognizer):
    """The turned readings (made on the stacked crops at once) are those of each crop turned on its own:
    the quick reading on its two sides, photo quality at all three turns (``vote_turns``)."""
    from tableref.vision.crops import index_crop, to_classifier_input
    from tableref.vision.recognition import RecognitionStats, camera_preset, photo_preset
    from tableref.vision.recognition.looks import geometric_mean, read_turned

    assert camera_preset(quick=True).vote_turns == (1, 3)
    assert camera_preset().vote_turns == photo_preset().vote_turns == (1, 2, 3)
    img = cv2.imread(str(FIXTURES / "meld_and_duplicates.jpg"))
    boxes, _ = recognizer.find_indices(img)
    crops = [index_crop(img, b, size=recognizer.crop_size, margin=recognizer.crop_margin) for b in boxes[:6]]

    def read(x):
        return recognizer.reader.read_inputs(x, RecognitionStats())

    once = read(to_classifier_input(crops))
    each = {k: read(to_classifier_input([np.ascontiguousarray(np.rot90(c, k)) for c in crops])) for k in (1, 2, 3)}
    for turns in ((1, 3), (1, 2, 3)):
        np.testing.assert_allclose(read_turned(read, to_classifier_input(crops), once.copy(), turns),
                                   geometric_mean(np.stack([once, *[each[k] for k in turns]])),
                                   atol=1e-6)
    assert np.array_equal(to_classifier_input(crops), to_classifier_input(np.stack(crops)))
    assert to_classifier_input(np.zeros((0, 64, 64, 3), np.uint8)).shape == (0, 3, 64, 64)


def test_a_frame_array_refilled_with_the_next_frame_is_read_afresh(recognizer):
    """A camera source may refill one array with each new frame: the recogniser keeps nothing cut
    from one frame (its picture for cutting crops) for the next, so the second frame reads as it
    does in an array of its own."""
    apart = cv2.imread(str(FIXTURES / "cards_apart.jpg"))
    meld = cv2.imread(str(FIXTURES / "meld_and_duplicates.jpg"))
    buffer = apart.copy()
    first = sorted(c.card for c in recognizer.recognize(buffer))
    buffer[:] = meld
    again = recognizer.recognize(buffer)
    fresh = recognizer.recognize(meld.copy())
    assert sorted(c.card for c in again) == sorted(c.card for c in fresh) != first
    assert [c.confidence for c in again] == [c.confidence for c in fresh]
    # one frame's state lives in an object made for that call: the recogniser holds no picture
    assert not any(isinstance(v, np.ndarray) for v in vars(recognizer).values())


def test_a_classifier_that_gives_logits_is_read_as_probabilities():
    """A classifier exported without its softmax gives logits: the recogniser tells so from its
    first output and turns every later output into the same probabilities; a classifier that
    gives probabilities is read as it is, even where a later batch would look like logits."""
    from tableref.vision.crops import index_crop, to_classifier_input
    from tableref.vision.recognition import CardRecognizer, RecognitionStats

    img = cv2.imread(str(FIXTURES / "meld_and_duplicates.jpg"))
    plain = CardRecognizer()
    boxes, _ = plain.find_indices(img)
    x = to_classifier_input([index_crop(img, b) for b in boxes[:5]])
    probs = plain.reader.read_inputs(x, RecognitionStats())
    assert plain.reader.gives_logits is False
    logits_rec = CardRecognizer()
    real_run = logits_rec.cls_net.run
    logits_rec.cls_net.run = lambda batch: np.log(real_run(batch)) + 3.0
    for _ in range(2):
        np.testing.assert_allclose(logits_rec.reader.read_inputs(x, RecognitionStats()), probs, rtol=1e-4, atol=1e-6)
    assert logits_rec.reader.gives_logits is True
    # decided once: a model giving probabilities stays read as probabilities
    plain.cls_net.run = lambda batch: np.full((len(batch), len(plain.names)), 0.5, np.float32)
    assert np.all(plain.reader.read_inputs(x, RecognitionStats()) == 0.5)


def test_still_unsure_readings_are_also_read_from_a_tighter_box(recognizer):
    """``tight_reread``: crops still unsure after the turned vote are read again from their box shrunk
    about its centre (once for a camera's frames, turned too with ``tight_turned`` as for photos), and
    the two readings are averaged; sure crops keep their reading."""
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig, photo_preset

    assert not RecognizerConfig().tight_turned and photo_preset().tight_turned
    img = cv2.imread(str(FIXTURES / "meld_and_duplicates.jpg"))
    boxes, _ = recognizer.find_indices(img)
    base = CardRecognizer(config=RecognizerConfig(tight_reread=0.0))
    first = base.classify(img, boxes, tta=True)
    limit = float(np.median(first.max(axis=1)))
    cfg = dict(tta_max_crops=0, tta_uncertain=limit)
    plain = CardRecognizer(config=RecognizerConfig(**cfg, tight_reread=0.0)).classify(img, boxes)
    unsure = plain.max(axis=1) < limit
    assert unsure.any() and (~unsure).any()
    b = boxes[unsure]
    centre, half = (b[:, :2] + b[:, 2:]) / 2, (b[:, 2:] - b[:, :2]) / 2 * 0.7
    tight_boxes = np.concatenate([centre - half, centre + half], axis=1)
    for turned in (False, True):
        tight = CardRecognizer(config=RecognizerConfig(**cfg, tight_reread=0.7, tight_turned=turned)).classify(img, boxes)
        np.testing.assert_allclose(tight[~unsure], plain[~unsure], atol=1e-6)
        again = base.classify(img, tight_boxes, tta=turned)
        g = np.sqrt(np.clip(plain[unsure], 1e-6, 1) * np.clip(again, 1e-6, 1))
        np.testing.assert_allclose(tight[unsure], g / g.sum(axis=1, keepdims=True), atol=1e-5)
        np.testing.assert_allclose(tight.sum(axis=1), 1.0, atol=1e-4)
        assert not np.allclose(tight[unsure], plain[unsure], atol=1e-3)


def test_the_turned_pass_maps_its_boxes_back_onto_the_indices(recognizer):
    from tableref.vision.geometry import pairwise_overlap
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig
    from tableref.vision.views import letterbox_view

    img = cv2.imread(str(FIXTURES / "cards_apart.jpg"))
    h, w = img.shape[:2]
    view = letterbox_view(w, h, recognizer.imgsz, rect_stride=recognizer.rect_stride)
    plain, _ = recognizer.detect_view(img, view)
    turned, _ = recognizer.detect_view(img, view, turned=True)
    assert len(plain) >= 8 and len(turned) >= 8
    iou, _ = pairwise_overlap(turned, plain)
    assert (iou.max(axis=1) > 0.5).mean() >= 0.9      # the turned boxes lie on the indices seen plain
    rec = CardRecognizer(config=RecognizerConfig(turned_pass=True))
    cards = rec.recognize(img)
    assert "turned" in rec.last_stats.passes and rec.last_stats.detector_runs >= 2
    assert Counter(c.card for c in cards) == Counter(t.label for t in truth(FIXTURES / "cards_apart.jpg"))


def test_a_camera_frame_read_turned_like_the_last_runs_both_passes_side_by_side():
    """A frame the size of the last one, which was read turned too, runs the full and the turned
    detector passes side by side (one core each): the same boxes and cards as one after the other."""
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig
    from tableref.vision.views import letterbox_view

    img = cv2.imread(str(FIXTURES / "fan.jpg"))
    rec = CardRecognizer(threads=2, config=RecognizerConfig())      # the quick reading: a turned pass
    first = rec.recognize(img)
    assert rec.last_stats.passes[-1] == "turned" and rec.last_stats.runs_side_by_side == 0
    second = rec.recognize(img)
    stats = rec.last_stats
    assert stats.runs_side_by_side == 2 and stats.detector_runs == 2
    # the runs' input pictures and decoding were done in the helper threads, and counted there
    assert stats.cpu_ms_helpers > 0 and stats.cpu_ms_non_network > stats.cpu_ms_thread - stats.cpu_ms_thread_net
    assert 0 < stats.ms_detector_net < stats.ms_detect and 0 < stats.ms_non_network < stats.ms_total
    assert [(c.card, c.confidence) for c in second] == [(c.card, c.confidence) for c in first]
    h, w = img.shape[:2]
    view = letterbox_view(w, h, rec.imgsz, rect_stride=rec.rect_stride)
    (plain, s1), (turned, s2) = rec.detect_full_and_turned(img, view)
    for got, want in ((plain, rec.detect_view(img, view)), (turned, rec.detect_view(img, view, turned=True))):
        np.testing.assert_array_equal(got, want[0])
    # a frame of another size is read one pass after the other again (nothing to go by)
    rec.recognize(cv2.resize(img, None, fx=0.9, fy=0.9))
    assert rec.last_stats.runs_side_by_side == 0


@pytest.mark.parametrize("name, frames", [("cards_apart.jpg", 1), ("fan.jpg", 2)])
def test_the_outlines_found_in_the_helper_thread_are_those_found_after_the_assembly(name, frames, monkeypatch):
    """``recognize`` looks for the lone cards' outlines in a helper thread while the indices are
    read (started by the first detector run side by side to finish, where they go side by side:
    the second frame of the fan): the same cards as looking for them afterwards, in the calling
    thread."""
    import threading

    from tableref.vision.assembly import assemble
    from tableref.vision.outlines import merge_outline_cards
    from tableref.vision.recognition import CardRecognizer, frame
    from tableref.vision.recognition.frame import FrameReading

    img = cv2.imread(str(FIXTURES / name))
    rec = CardRecognizer(threads=2)
    started, cut_in = [], []
    start, cut = FrameReading.start_helpers, frame.cutting_picture

    def spy(reading):
        if reading._outlines_wanted:
            started.append(threading.current_thread() is threading.main_thread())
        start(reading)

    def cut_spy(picture):
        cut_in.append(threading.current_thread() is threading.main_thread())
        return cut(picture)

    monkeypatch.setattr(FrameReading, "start_helpers", spy)
    monkeypatch.setattr(frame, "cutting_picture", cut_spy)
    for _ in range(frames):
        got = rec.recognize(img)
    side_by_side = rec.last_stats.runs_side_by_side == 2
    # (runs go side by side with ONNX Runtime only: OpenVINO, where installed, runs them in turn)
    assert side_by_side == (frames == 2 and rec.det_net.side_by_side == 2)
    # started once a frame: by a detector run's thread when side by side, else by this thread;
    # the crops' cutting picture made in the helper thread, once a frame
    assert started[-1] == (not side_by_side) and len(started) == frames
    assert cut_in == [False] * frames
    assert rec.last_stats.cpu_ms_helpers > 0
    readings = rec.read_indices(img)      # no helper: outline_cards finds the quads itself
    assert len(started) == frames and len(cut_in) == frames
    h, w = img.shape[:2]
    cards = assemble(readings, rec.names, rec.geometry, min_confidence=0.0, image_size=(w, h),
                     det_power=rec.config.det_score_power)
    want = merge_outline_cards(cards, rec.outline_cards(img, cards), rec.config.min_card_confidence)
    want = sorted((c for c in want if c.confidence >= rec.config.min_card_confidence), key=lambda c: -c.confidence)
    assert [(c.card, c.confidence, c.box) for c in got] == [(c.card, c.confidence, c.box) for c in want]
    if name == "cards_apart.jpg":
        assert len(got) >= 5 and any(c.quad for c in got)     # lone cards, their outlines found


def test_a_camera_reuses_the_readings_of_unchanged_indices_and_reads_changed_ones_again():
    """``reuse_readings``: an index whose picture is as in the last frame keeps its reading; one
    painted over with another card's index is read again; either way the readings are those of
    reading the frame afresh."""
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig
    from tableref.vision.recognition.memo import REUSE_MAX_FRAMES

    img = cv2.imread(str(FIXTURES / "cards_apart.jpg"))
    plain = CardRecognizer(threads=2, config=RecognizerConfig())
    camera = CardRecognizer(threads=2, config=RecognizerConfig(reuse_readings=True))
    first = camera.read_indices(img)
    assert camera.last_stats.readings_reused == 0 and len(first) >= 10
    again = camera.read_indices(img)
    assert camera.last_stats.readings_reused == camera.last_stats.indices == len(first)
    for _ in range(REUSE_MAX_FRAMES - 1):
        camera.read_indices(img)
    camera.read_indices(img)                     # kept REUSE_MAX_FRAMES frames in a row: read afresh
    assert camera.last_stats.readings_reused == 0
    camera.read_indices(img)
    # the two indices of one card painted over with another card's index
    names = [camera.names[int(r.probs.argmax())] for r in first]
    donor = next(r for r, n in zip(first, names) if n != names[0])
    x1, y1, x2, y2 = (int(round(v)) for v in donor.box)
    patch = img[y1:y2, x1:x2]
    changed = img.copy()
    for r, n in zip(first, names):
        if n == names[0]:
            a1, b1, a2, b2 = (int(round(v)) for v in r.box)
            changed[b1:b2, a1:a2] = cv2.resize(patch, (a2 - a1, b2 - b1))
    painted = sum(n == names[0] for n in names)
    now = camera.read_indices(changed)
    fresh = plain.read_indices(changed)
    assert camera.last_stats.readings_reused <= len(first) - painted
    assert [r.box for r in now] == [r.box for r in fresh]
    np.testing.assert_allclose(np.stack([r.probs for r in now]), np.stack([r.probs for r in fresh]), atol=1e-3)
    assert [r.probs.argmax() for r in again] == [r.probs.argmax() for r in first]


def test_a_card_whose_readings_were_all_kept_is_marked_as_a_repeated_look():
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig

    img = cv2.imread(str(FIXTURES / "cards_apart.jpg"))
    camera = CardRecognizer(threads=2, config=RecognizerConfig(reuse_readings=True))
    first = camera.recognize(img)
    assert first and all(c.fresh for c in first)
    kept = camera.recognize(img)
    assert camera.last_stats.readings_reused > 0
    assert [c.card for c in kept] == [c.card for c in first] and not any(c.fresh for c in kept)


def test_a_camera_reuses_the_boxes_of_unchanged_views_and_runs_the_detector_on_changed_ones():
    """``reuse_views``: a frame like the last (up to noise) keeps the boxes found in its views; a
    frame with cards covered is read afresh, as a recogniser without a memory reads it."""
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig
    from tableref.vision.recognition.memo import REUSE_MAX_FRAMES

    img = cv2.imread(str(FIXTURES / "fan.jpg"))
    camera = CardRecognizer(threads=2, config=RecognizerConfig(reuse_views=True))
    plain = CardRecognizer(threads=2, config=RecognizerConfig())
    first = camera.recognize(img)
    assert camera.last_stats.views_reused == 0 and camera.last_stats.detector_runs == 2   # full, turned
    rng = np.random.default_rng(2)
    noisy = np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    again = camera.recognize(noisy)
    assert camera.last_stats.views_reused == 2 and camera.last_stats.detector_runs == 0
    assert sorted(c.card for c in again) == sorted(c.card for c in first)
    # kept for REUSE_MAX_FRAMES frames in a row, then looked at afresh
    for _ in range(REUSE_MAX_FRAMES - 1):
        camera.recognize(img)
        assert camera.last_stats.detector_runs == 0
    camera.recognize(img)
    assert camera.last_stats.views_reused == 0 and camera.last_stats.detector_runs == 2
    covered = img.copy()
    h, w = img.shape[:2]
    covered[:, w // 2:] = img[2, 2]            # half the hand taken away
    now = camera.recognize(covered)
    assert camera.last_stats.views_reused == 0 and camera.last_stats.detector_runs == 2
    assert [(c.card, c.confidence) for c in now] == [(c.card, c.confidence) for c in plain.recognize(covered)]
    assert len(now) < len(first)


def test_only_the_tiles_a_change_touches_are_read_again():
    """A table read enlarged in tiles (as the Marriage count is): when one of four hands is taken
    away, the detector runs again on the tiles that show it, and the cards are those of reading the
    frame afresh."""
    from tableref.vision.recognition import CardRecognizer, RecognizerConfig

    img = cv2.imread(str(FIXTURES / "fan.jpg"))
    frame = np.empty((720, 1280, 3), np.uint8)
    frame[:] = img[2, 2]
    small = cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    for y, x in ((40, 40), (40, 700), (380, 40), (380, 700)):
        frame[y:y + h, x:x + w] = small
    setup = dict(index_px_min=22.0, index_px_target=26.0, max_rect_pixels=0, reuse_scale_frames=4)
    camera = CardRecognizer(threads=2, config=RecognizerConfig(reuse_views=True, **setup))
    plain = CardRecognizer(threads=2, config=RecognizerConfig(**setup))
    for rec in (camera, plain):
        rec.recognize(frame)
    tiles = len(camera.last_stats.passes) and int(camera.last_stats.passes[1].split("x@")[0])
    assert tiles >= 4
    changed = frame.copy()
    changed[380:380 + h, 700:700 + w] = img[2, 2]
    now = camera.recognize(changed)
    assert 0 < camera.last_stats.detector_runs < tiles
    assert camera.last_stats.views_reused == tiles - camera.last_stats.detector_runs
    assert [(c.card, c.confidence) for c in now] == [(c.card, c.confidence) for c in plain.recognize(changed)]


def test_noise_does_not_count_as_a_changed_index_but_another_glyph_does():
    from tableref.vision.crops import index_crop
    from tableref.vision.recognition.memo import reading_unchanged

    img = cv2.imread(str(FIXTURES / "cards_apart.jpg"))
    boxes = [(530, 382, 556, 422), (549, 157, 577, 191), (437, 248, 460, 286)]   # 3S, AD, QS
    crops = np.stack([index_crop(img, b) for b in boxes])
    rng = np.random.default_rng(1)
    noisy = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    assert reading_unchanged(crops, np.stack([index_crop(noisy, b) for b in boxes])).all()
    assert not reading_unchanged(crops, crops[[1, 2, 0]]).any()
    assert reading_unchanged(crops[:0], crops[:0]).shape == (0,)


def test_photo_quality_reads_enlarged_where_the_quick_reading_does_not():
    """Small indices (here ~20 px at the detector's scale: the fan in a 1280x720 frame) are read
    quick at their scale (and turned), at photo quality (a camera's frames and photos) enlarged to
    about 32 px; same cards."""
    from tableref.vision.recognition import CardRecognizer, camera_preset, photo_preset
    from tableref.vision.recognition.presets import PHOTO_INDEX_PX

    img = cv2.imread(str(FIXTURES / "fan.jpg"))
    h, w = img.shape[:2]
    frame = np.empty((720, 1280, 3), np.uint8)
    frame[:] = img[2, 2]
    frame[(720 - h) // 2:(720 - h) // 2 + h, (1280 - w) // 2:(1280 - w) // 2 + w] = img
    quick = CardRecognizer(threads=2, config=camera_preset(quick=True))
    photo = CardRecognizer(threads=2, config=photo_preset())
    assert photo.band.min == PHOTO_INDEX_PX[0] == CardRecognizer(threads=2).band.min > quick.band.min
    seen = quick.recognize(frame)
    assert quick.last_stats.passes == ["full@0.500", "turned"]
    read = photo.recognize(frame)
    first, second = photo.last_stats.passes
    assert first == "full@0.500" and second.startswith("1x@") and float(second[3:]) > 0.7
    expected = Counter(t.label for t in truth(FIXTURES / "fan.jpg"))
    assert Counter(c.card for c in read) == expected == Counter(c.card for c in seen)


def test_detect_and_evaluate_read_photos_and_bench_reads_a_camera_frame(monkeypatch, tmp_path):
    from tableref.cli import vision as cli_vision

    asked = []
    monkeypatch.setattr(cli_vision, "load_recognizer", lambda *a, photos=False, **k: asked.append(photos))
    main(["detect", str(FIXTURES / "fan.jpg")])
    main(["evaluate", "--real", str(tmp_path)])
    main(["bench-detect", str(FIXTURES / "fan.jpg")])
    assert asked == [True, True, False]
