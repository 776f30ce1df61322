"""The recogniser's rooms on their own (no model run): presets, the machine's settings, the spec, the plan, the memo."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tableref.vision.recognition import (MachineSettings, ModelError, RecognizerConfig, camera_preset,
                                         live_table_preset, photo_preset, read_spec)
from tableref.vision.recognition import memo as memo_mod
from tableref.vision.recognition import plan as plan_mod
from tableref.vision.recognition.presets import COUNT_TABLE, LIVE_VIDEO, PHOTO, PHOTO_QUALITY, QUICK_COUNT_TABLE
from tableref.vision.views import letterbox_view

ROOT = Path(__file__).resolve().parents[1]


def test_the_presets_read_at_photo_quality_unless_quick():
    camera = camera_preset()
    assert all(getattr(camera, k) == v for k, v in PHOTO_QUALITY.items())
    assert not camera.fast_classifier and camera.vote_turns == (1, 2, 3) and camera.doubt_contradicted
    assert camera_preset(quick=True) == RecognizerConfig() and RecognizerConfig().fast_classifier
    assert camera_preset(det_conf=0.3).det_conf == 0.3
    photo = photo_preset(precision="fp32")
    assert all(getattr(photo, k) == v for k, v in PHOTO.items()) and photo.precision == "fp32"
    # a photo keeps a doubted card and is read as it is (no glare taken off, not sharpened, never
    # declared blurred), in float32 by the backend chosen for both networks; a camera's frames are
    # read with the classifier in bfloat16 and the detector in OpenVINO where each was checked
    assert photo == camera_preset(doubt_contradicted=False, deglare=False, unsoften=False, precision="fp32",
                                  classifier_bf16="off", detector_openvino="off", max_motion_blur=0.0)
    assert camera.max_motion_blur > 0 and live_table_preset().max_motion_blur == camera.max_motion_blur
    assert camera.classifier_bf16 == "auto" and live_table_preset().classifier_bf16 == "auto"
    assert camera.detector_openvino == "auto" and live_table_preset().detector_openvino == "auto"
    assert camera_preset(quick=True).detector_openvino == "off"      # ONNX Runtime's passes side by side
    desmoche, marriage = live_table_preset(), live_table_preset(count=True, several_packs=True)
    for k, v in {**LIVE_VIDEO, **PHOTO_QUALITY}.items():
        assert getattr(desmoche, k) == v
        assert getattr(marriage, k) == COUNT_TABLE.get(k, v)        # a count reads its own index size
    assert not desmoche.several_packs and marriage.several_packs
    # either table's loop sharpens a soft frame for its detector and classifier
    assert desmoche.unsoften and desmoche.unsoften_reads and marriage.unsoften and marriage.unsoften_reads
    quick = live_table_preset(count=True, quick=True)
    assert all(getattr(quick, k) == v for k, v in {**LIVE_VIDEO, **QUICK_COUNT_TABLE}.items()) and quick.fast_classifier
    assert quick.index_px_fallback is None and marriage.index_px_fallback == (22.0, 26.0)
    assert live_table_preset(quick=True).index_px_min is None
    assert live_table_preset(count=True, index_px_min=30.0).index_px_min == 30.0     # a change wins
    with pytest.raises(dataclasses.FrozenInstanceError):
        camera_preset().det_conf = 0.1          # a settings value is frozen: changes make a new one
    assert camera_preset().but(tiling=False) == camera_preset(tiling=False)


def test_the_environment_is_read_into_machine_settings_once():
    assert MachineSettings.from_environment({}) == MachineSettings("auto", False, 2)
    m = MachineSettings.from_environment({"TABLEREF_BACKEND": "onnxruntime", "TABLEREF_READING": "quick",
                                          "TABLEREF_ORT_THREADS": "4"})
    assert m == MachineSettings("onnxruntime", True, 4)
    assert m.config_changes() == {"backend": "onnxruntime"}
    assert camera_preset(quick=m.quick, **m.config_changes()) == camera_preset(quick=True, backend="onnxruntime")
    with pytest.raises(ValueError, match="TABLEREF_READING"):
        MachineSettings.from_environment({"TABLEREF_READING": "fast"})
    assert MachineSettings.from_environment({"TABLEREF_BACKEND": "", "TABLEREF_ORT_THREADS": ""}).backend == "auto"
    for bad in ("two", "-1"):
        with pytest.raises(ValueError, match="TABLEREF_ORT_THREADS"):
            MachineSettings.from_environment({"TABLEREF_ORT_THREADS": bad})


def test_a_bad_thread_count_in_the_environment_is_one_line(monkeypatch, capsys, tmp_path):
    from tableref.cli import main

    monkeypatch.setenv("TABLEREF_ORT_THREADS", "many")
    assert main(["detect", str(tmp_path / "none.jpg")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "TABLEREF_ORT_THREADS" in err and "Traceback" not in err


def test_no_module_of_vision_or_the_live_table_reads_the_environment():
    """The command line reads it (MachineSettings) and passes values in; only the models' folder
    (TABLEREF_MODELS, ``vision.runtime.default_models_dir``) is looked up where it is used."""
    reads = re.compile(r"os\.environ|os\.getenv|getenv\(")
    bad = [str(p.relative_to(ROOT)) for folder in ("vision", "tableref/live") for p in (ROOT / folder).rglob("*.py")
           if p.name != "runtime.py" and reads.search(p.read_text(encoding="utf-8"))]
    assert not bad, bad


def _spec_dir(tmp_path, spec) -> Path:
    (tmp_path / "recognition.json").write_text(spec if isinstance(spec, str) else json.dumps(spec))
    return tmp_path


GOOD = {"detector": {"file": "d.onnx", "imgsz": [640, 640], "index_px": {"min": 12, "max": 40}},
        "classifier": {"file": "c.onnx", "fast_file": "f.onnx", "names": ["AS", "none"], "imgsz": 64, "margin": 0.2}}


def test_the_spec_is_a_typed_value(tmp_path):
    spec = read_spec(_spec_dir(tmp_path, GOOD))
    assert (spec.detector_file, spec.classifier_file, spec.fast_classifier_file) == ("d.onnx", "c.onnx", "f.onnx")
    assert spec.names == ("AS", "none") and spec.none_index == 1 and spec.imgsz == 640 and spec.stride == 32
    assert spec.index_px == (12.0, None, 40.0) and spec.index_px_trained is None
    band = plan_mod.index_band(spec, camera_preset(quick=True))     # the spec's own band
    assert (band.min, band.max) == (12.0, 40.0)
    assert band.target == pytest.approx((6.0 * 90.0) ** 0.5 * plan_mod.READ_TARGET_FACTOR)
    assert plan_mod.index_band(spec, camera_preset(quick=True, index_px_min=20.0)).min == 20.0
    assert plan_mod.index_band(spec, camera_preset()).min == 28.0              # photo quality enlarges further
    with pytest.raises(ModelError, match="c.onnx is missing"):
        spec.model_file("c.onnx")


@pytest.mark.parametrize("spec, says", [
    ("{", "cannot read"),
    ({"detector": {"file": "d.onnx"}}, "lacks the detector or classifier entry"),
    ({**GOOD, "classifier": {**GOOD["classifier"], "names": ["AS"]}}, "lack the 'none' class"),
    ({**GOOD, "detector": {**GOOD["detector"], "imgsz": "big"}}, "not a number"),
])
def test_a_bad_spec_is_a_clear_model_error(tmp_path, spec, says):
    with pytest.raises(ModelError, match=says):
        read_spec(_spec_dir(tmp_path, spec))
    with pytest.raises(ModelError, match="is missing"):
        read_spec(tmp_path / "nowhere")


def _plan(**changes) -> plan_mod.ScalePlan:
    config = camera_preset(quick=True, **changes)
    band = plan_mod.IndexBand(16.0, 20.0, 60.0)
    return plan_mod.ScalePlan(config=config, band=band, imgsz=640, dynamic=True, rect_stride=32)


def test_the_plan_enlarges_small_indices_shrinks_large_ones_and_looks_again_where_it_saw_none():
    plan = _plan()
    full = plan.full_view(1280, 720)
    assert full.scale == pytest.approx(0.5)
    sure = np.full(5, 0.9, np.float32)
    assert plan.second_views(1280, 720, full, np.full(5, 18.0, np.float32), sure) == []     # in the band
    (enlarged,) = plan.second_views(1280, 720, full, np.full(5, 10.0, np.float32), sure)  # one piece: dynamic
    assert enlarged.scale == pytest.approx(min(2.0, 0.5 * 20.0 / 10.0))
    tiles = _plan(max_rect_pixels=0).second_views(1280, 720, full, np.full(5, 10.0, np.float32), sure)
    assert len(tiles) > 1 and all(t.scale == pytest.approx(1.0) for t in tiles)
    (shrunk,) = plan.second_views(1280, 720, full, np.full(5, 120.0, np.float32), sure)
    assert shrunk.scale < full.scale
    none = np.zeros(0, np.float32)
    (small,) = plan.second_views(640, 480, plan.full_view(640, 480), none, none)   # a card filling the frame?
    assert small.scale == pytest.approx(plan.full_view(640, 480).scale * plan_mod.SHRINK_WHEN_EMPTY)
    big = plan.second_views(4000, 3000, plan.full_view(4000, 3000), none, none)     # indices too small to see?
    assert 1 < len(big) <= plan.config.max_tiles
    assert _plan(tiling=False).second_views(1280, 720, full, np.full(5, 10.0, np.float32), sure) == []


def test_a_count_table_falls_back_to_its_smaller_size_where_the_larger_takes_tiles_or_the_picture_is_small():
    """A count's indices are read at 32 px where the enlarged frame is read in one piece (a real 720p
    camera's table), a soft one too (at 26 px the real fan's defocused 7H was read in one frame of 40);
    where 32 px would take tiles (a rendered count's tiny indices) or the picture is small (under 720
    lines), at the fallback's 26 px, enlarged only where they come out under its 22 px."""
    config = camera_preset(index_px_fallback=(22.0, 26.0), max_rect_pixels=2_200_000)
    plan = plan_mod.ScalePlan(config=config, band=plan_mod.IndexBand(28.0, 32.0, 60.0), imgsz=640, dynamic=True,
                              rect_stride=32)
    full = plan.full_view(1280, 720)
    sure = np.full(5, 0.9, np.float32)
    (one,) = plan.second_views(1280, 720, full, np.full(5, 16.0, np.float32), sure)
    assert one.scale == pytest.approx(0.5 * 32.0 / 16.0)
    small_full = plan.full_view(640, 360)
    (small,) = plan.second_views(640, 360, small_full, np.full(5, 16.0, np.float32), sure)
    assert small.scale == pytest.approx(small_full.scale * 26.0 / 16.0)
    assert plan.second_views(640, 360, small_full, np.full(5, 24.0, np.float32), sure) == []
    tiles = plan.second_views(1280, 720, full, np.full(5, 8.0, np.float32), sure)    # 32 px: 4.7 M pixels
    assert len(tiles) > 1 and all(t.scale == pytest.approx(0.5 * 26.0 / 8.0) for t in tiles)


def test_the_second_pass_wins_where_both_passes_see_one_index_and_the_turned_merge_keeps_rivals():
    plan = _plan(rival_reread=True)
    first = np.array([[0, 0, 10, 20], [50, 50, 60, 70]], np.float32)
    second = np.array([[1, 0, 11, 20]], np.float32)
    boxes, scores, full_only = plan.merge_second(second, np.array([0.3], np.float32), first,
                                                 np.array([0.9, 0.8], np.float32))
    assert boxes.tolist() == [[1, 0, 11, 20], [50, 50, 60, 70]] and scores.tolist() == pytest.approx([0.3, 0.8])
    assert full_only.tolist() == [False, True]
    boxes, scores, rivals = plan.merge_turned(first, np.array([0.9, 0.8], np.float32), second,
                                              np.array([0.3], np.float32))
    assert boxes.tolist() == first.tolist()
    rival_boxes, rival_scores, keeper = rivals
    assert rival_boxes.tolist() == second.tolist() and keeper.tolist() == [0]
    assert _plan().merge_turned(first, np.array([0.9, 0.8], np.float32), second, np.array([0.3], np.float32))[2] is None


def test_the_memo_keeps_views_for_a_few_frames_only():
    memo = memo_mod.FrameMemo()
    views = [letterbox_view(1280, 720, 640, scale=1.0, rect_stride=32)]
    memo.keep_views((1280, 720), views, 2)
    assert memo.kept_views((1280, 720)) == views and memo.kept_views((1280, 720)) == views
    assert memo.kept_views((1280, 720)) is None and memo.kept_views((1280, 720)) is None
    memo.keep_views((1280, 720), views, 2)
    assert memo.kept_views((640, 480)) is None and memo.kept_views((1280, 720)) is None   # another size forgets
    sign = np.zeros((48, 80, 3), np.uint8)
    boxes, scores = np.ones((1, 4), np.float32), np.ones(1, np.float32)
    memo.remember_view("v", sign, boxes, scores)
    for _ in range(memo_mod.REUSE_MAX_FRAMES):
        kept = memo.view_boxes("v", sign + 3)                  # noise: unchanged
        assert kept is not None and kept[0] is not boxes and kept[0].tolist() == boxes.tolist()
    assert memo.view_boxes("v", sign) is None                  # kept long enough: read afresh
    memo.remember_view("v", sign, boxes, scores)
    assert memo.view_boxes("v", sign + 100) is None            # changed
    for k in range(memo_mod.VIEW_MEMO_SIZE + 3):
        memo.remember_view(k, sign, boxes, scores)
    assert memo.view_boxes("v", sign) is None and memo.view_boxes(memo_mod.VIEW_MEMO_SIZE + 2, sign) is not None


def test_what_the_full_view_alone_found_is_kept_with_its_views_where_its_picture_is_unchanged():
    """An index the detector finds at the full view's scale and not at the enlarged one (a KD of
    the rendered evaluation read at one scale only) is not lost in the frames that skip the full
    view: its box comes back with the kept views while the picture inside it is unchanged."""
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    views = [letterbox_view(1280, 720, 640, scale=1.6, rect_stride=32)]
    boxes = np.array([[100, 100, 112, 124], [600, 300, 612, 324]], np.float32)
    scores = np.array([0.3, 0.4], np.float32)
    memo = memo_mod.FrameMemo()
    memo.keep_views((1280, 720), views, 2, (boxes, scores, memo_mod.box_patches(image, boxes)))
    assert memo.kept_views((1280, 720)) == views
    noisy = np.clip(image.astype(np.int16) + rng.integers(-3, 4, image.shape), 0, 255).astype(np.uint8)
    noisy[300:324, 600:612] = 255 - noisy[300:324, 600:612]       # a hand over the second index
    kept_boxes, kept_scores = memo.kept_full_only(noisy)
    assert kept_boxes.tolist() == boxes[:1].tolist() and kept_scores.tolist() == pytest.approx([0.3])
    assert memo.kept_views((1280, 720)) == views and len(memo.kept_full_only(image)[0]) == 2
    assert memo.kept_views((1280, 720)) is None and len(memo.kept_full_only(image)[0]) == 0   # chosen afresh
    memo.keep_views((1280, 720), views, 2)
    assert memo.kept_views((1280, 720)) == views and len(memo.kept_full_only(image)[0]) == 0
    # a box the classifier read as no index (a pip, a speck) is not kept for the frames that follow
    memo.keep_views((1280, 720), views, 2, (boxes, scores, memo_mod.box_patches(image, boxes)))
    memo.keep_read_full_only(np.concatenate([boxes, [[0, 0, 9, 9]]]), np.array([False, True, True]))
    assert memo.kept_views((1280, 720)) == views and memo.kept_full_only(image)[0].tolist() == boxes[1:].tolist()


def test_a_crop_is_unchanged_within_the_reuse_bound_of_its_block_means():
    """``memo.reading_unchanged`` compares crops averaged down to 16 x 16 blocks: a block whose mean
    moved by REUSE_MAX_DIFF grey levels in one colour is unchanged, by one more is changed (exact
    sums, no rounding at the bound)."""
    from tableref.vision.recognition.memo import REUSE_MAX_DIFF, reading_unchanged

    read = np.full((4, 64, 64, 3), 100, np.uint8)
    now = read.copy()
    now[0, :4, :4, 0] += REUSE_MAX_DIFF          # a whole 4 x 4 block: its mean by the bound
    now[1, :4, :4, 0] += REUSE_MAX_DIFF + 1
    now[2, :4, :2, 1] += 2 * REUSE_MAX_DIFF + 1  # half a block by twice the bound and one
    now[3, :4, :2, 1] += 2 * REUSE_MAX_DIFF
    assert reading_unchanged(read, now).tolist() == [True, False, False, True]
    assert reading_unchanged(read[:0], now[:0]).shape == (0,)
