"""Letterbox / tiles / decode / NMS of the recogniser's views, on synthetic data (no model needed)."""
from __future__ import annotations

import numpy as np
import pytest

from tableref.vision.decoding import decode_yolo, nms
from tableref.vision.recognition import ensure_bgr
from tableref.vision.views import View, drop_cut_at_tile_edges, letterbox_view, render_view, tile_views


def test_letterbox_roundtrip_and_padding():
    v = letterbox_view(1280, 720, 640)
    assert v.scale == pytest.approx(0.5)
    img = np.zeros((720, 1280, 3), np.uint8)
    img[100:200, 300:500] = 255
    out = render_view(img, v)
    assert out.shape == (640, 640, 3)
    assert (out[:140] == 114).all() and (out[-140:] == 114).all()    # (640-360)/2 = 140 rows of padding
    # the white block lands where to_input says
    b = v.to_input(np.array([[300, 100, 500, 200]]))[0]
    assert b == pytest.approx([150, 190, 250, 240], abs=0.5)
    assert out[215, 200].min() == 255 and out[185, 200].max() == 0
    back = v.to_source(b[None])[0]
    assert back == pytest.approx([300, 100, 500, 200], abs=1e-3)


def test_letterbox_rect_for_dynamic_models():
    v = letterbox_view(1280, 720, 640, rect_stride=32)
    assert (v.width_px, v.height_px) == (640, 384)
    out = render_view(np.full((720, 1280, 3), 255, np.uint8), v)
    assert out.shape == (384, 640, 3)
    assert (out[:12] == 114).all() and (out[12:372] == 255).all() and (out[372:] == 114).all()
    assert v.to_source(v.to_input(np.array([[10, 20, 30, 40]])))[0] == pytest.approx([10, 20, 30, 40], abs=1e-3)


def test_letterbox_smaller_scale_shrinks():
    v = letterbox_view(640, 480, 640, scale=0.5)
    out = render_view(np.full((480, 640, 3), 255, np.uint8), v)
    assert (out[320, 160:480] == 255).all() and (out[320, :150] == 114).all()


@pytest.mark.parametrize("w,h,scale", [(1920, 1080, 0.8), (4000, 3000, 0.5), (1280, 720, 1.0), (500, 400, 1.5)])
def test_tiles_cover_image_with_overlap(w, h, scale):
    size, overlap = 640, 90
    tiles = tile_views(w, h, size, scale, overlap)
    covered = np.zeros((h // 10 + 1, w // 10 + 1), bool)
    for t in tiles:
        x1, y1, x2, y2 = t.source_rect()
        covered[max(0, int(y1)) // 10: int(min(h, y2)) // 10, max(0, int(x1)) // 10: int(min(w, x2)) // 10] = True
    assert covered[:-1, :-1].all()
    # any 90-px object lies whole in some tile
    rng = np.random.default_rng(0)
    for _ in range(200):
        ox, oy = rng.uniform(0, w - overlap), rng.uniform(0, h - overlap)
        assert any(t.source_rect()[0] <= ox and t.source_rect()[1] <= oy and t.source_rect()[2] >= ox + overlap
                   and t.source_rect()[3] >= oy + overlap for t in tiles)


def test_decode_yolo_layout():
    out = np.zeros((1, 5, 4), np.float32)
    out[0, :, 0] = [100, 50, 20, 40, 0.9]
    out[0, :, 1] = [300, 300, 10, 10, 0.1]
    out[0, :, 2] = [10, 10, 4, 4, 0.6]
    boxes, scores = decode_yolo(out, 0.25)
    assert len(boxes) == 2
    assert boxes[0] == pytest.approx([90, 30, 110, 70])
    assert scores == pytest.approx([0.9, 0.6])


def test_nms_keeps_best_and_distinct():
    boxes = np.array([[0, 0, 10, 20], [1, 1, 11, 21], [50, 50, 60, 70], [1, 2, 11, 10]], np.float32)
    scores = np.array([0.8, 0.9, 0.7, 0.6], np.float32)
    assert list(nms(boxes, scores, 0.5)) == [1, 2, 3]
    # the small box lies inside the first: suppressed by intersection-over-smaller
    assert list(nms(boxes, scores, 0.5, ios_threshold=0.8)) == [1, 2]
    assert len(nms(np.zeros((0, 4)), np.zeros(0))) == 0


def test_suppressed_rivals_are_the_other_pass_boxes_set_aside_one_per_kept_box():
    from tableref.vision.decoding import suppressed_rivals

    boxes = np.array([[0, 0, 10, 20],      # pass 0, kept
                      [2, 1, 12, 21],      # pass 1, set aside by box 0: its rival
                      [1, 0, 11, 20],      # pass 1 as well, scored lower: not a second rival
                      [0, 1, 10, 21],      # pass 0, set aside by box 0 of its own pass: no rival
                      [50, 50, 60, 70],    # pass 1, kept, alone
                      [100, 0, 110, 20],   # pass 1, kept
                      [101, 1, 111, 21]],  # pass 0, set aside by box 5
                     np.float32)
    scores = np.array([0.9, 0.5, 0.4, 0.8, 0.7, 0.6, 0.55], np.float32)
    group = np.array([0, 1, 1, 0, 1, 1, 0])
    keep = nms(boxes, scores, 0.5)
    assert list(keep) == [0, 4, 5]
    rival, keeper = suppressed_rivals(boxes, scores, keep, group, 0.5)
    assert sorted(zip(rival.tolist(), keeper.tolist())) == [(1, 0), (6, 2)]
    # nothing set aside, or nothing kept
    assert [len(a) for a in suppressed_rivals(boxes[[0, 4]], scores[[0, 4]], np.array([0, 1]), group[[0, 4]])] == [0, 0]
    assert [len(a) for a in suppressed_rivals(boxes, scores, np.zeros(0, np.int64), group)] == [0, 0]


def test_index_crops_cut_each_square_as_an_affine_warp_would_all_at_once():
    """``index_crops`` (one remap for all boxes) gives each box's square resized as ``cv2.warpAffine``
    of that scale and shift does, up to a grey level of rounding in a few pixels; one box alone is
    cut exactly as in a batch; parts outside the image repeat its border."""
    import cv2

    from tableref.vision.crops import crop_square, cutting_picture, index_crop, index_crops

    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    img = cv2.GaussianBlur(img, (5, 5), 0)
    centres = rng.uniform(-20, 420, (600, 2))
    sizes = rng.uniform(3, 150, (600, 2))
    boxes = np.concatenate([centres - sizes / 2, centres + sizes / 2], axis=1).astype(np.float32)
    crops = index_crops(img, boxes)
    assert crops.shape == (600, 64, 64, 3) and crops.dtype == np.uint8
    warped = []
    for b in boxes:
        cx, cy, half = crop_square(b)
        s = 64 / (2.0 * half)
        m = np.array([[s, 0.0, 32 - cx * s], [0.0, s, 32 - cy * s]], np.float32)
        warped.append(cv2.warpAffine(img, m, (64, 64), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    diff = np.abs(crops.astype(int) - np.stack(warped))
    assert diff.max() <= 1 and (diff > 0).mean() < 1e-3
    assert all(np.array_equal(index_crop(img, b), c) for b, c in zip(boxes[:20], crops[:20]))
    assert index_crops(img, np.zeros((0, 4))).shape == (0, 64, 64, 3)
    many = np.repeat(boxes[:1], 700, axis=0)        # more rows than one remap call takes
    assert (index_crops(img, many) == crops[0]).all()
    # the same crops, BGR, cut from the frame's cutting picture (4 channels)
    four = cutting_picture(img)
    assert four.shape == (300, 400, 4)
    for b in (boxes, many, np.zeros((0, 4))):
        assert np.array_equal(index_crops(four, b), index_crops(img, b))


def test_classifier_input_is_the_crops_in_rgb_planes_scaled_to_one():
    """``to_classifier_input``: BGR uint8 crops (stacked, a list, or a strided view) as float32
    NCHW RGB in 0..1, the same values as the plain numpy formula."""
    from tableref.vision.crops import to_classifier_input

    rng = np.random.default_rng(5)
    crops = rng.integers(0, 256, (9, 64, 64, 3), dtype=np.uint8)
    want = crops.transpose(0, 3, 1, 2)[:, ::-1].astype(np.float32) / np.float32(255.0)
    for given in (crops, list(crops), crops[:, :, :, :]):
        x = to_classifier_input(given)
        assert x.dtype == np.float32 and x.shape == (9, 3, 64, 64) and x.flags["C_CONTIGUOUS"]
        assert np.array_equal(x, want)
    assert np.array_equal(to_classifier_input(crops[::2]), want[::2])
    assert np.array_equal(to_classifier_input(crops[:, 8:40, 8:40]), want[:, :, 8:40, 8:40])
    assert to_classifier_input([]).shape == (0, 3, 64, 64)


def test_drop_cut_at_tile_edges():
    v = View(x0=500, y0=0, scale=1.0, size=640)      # tile in the middle of a 2000-wide image
    boxes = np.array([[0, 100, 20, 140], [300, 100, 320, 140], [620, 0, 640, 30]], np.float32)
    ok = drop_cut_at_tile_edges(boxes, v, 2000, 640)
    assert list(ok) == [False, True, False]
    # at the image border the box is real
    v0 = View(x0=0, y0=0, scale=1.0, size=640)
    assert list(drop_cut_at_tile_edges(boxes, v0, 2000, 640)) == [True, True, False]


def test_ensure_bgr():
    assert ensure_bgr(np.zeros((5, 6), np.uint8)).shape == (5, 6, 3)
    assert ensure_bgr(np.zeros((5, 6, 4), np.uint8)).shape == (5, 6, 3)
    assert ensure_bgr(np.ones((5, 6, 3), np.float32)).max() == 255
    with pytest.raises(ValueError):
        ensure_bgr(np.zeros((0, 0, 3), np.uint8))


def _greedy_nms_all_pairs(boxes, scores, iou_t, ios_t):
    """The plain greedy NMS over every pair: the reference the sweep must equal."""
    from tableref.vision.geometry import pairwise_overlap

    iou, ios = pairwise_overlap(boxes, boxes)
    suppressed = np.zeros(len(boxes), bool)
    keep = []
    for i in np.argsort(-scores, kind="stable"):
        if suppressed[i]:
            continue
        keep.append(int(i))
        suppressed |= (iou[i] > iou_t) | ((ios[i] > ios_t) if ios_t is not None else False)
    return keep


def test_nms_sweep_equals_greedy_over_all_pairs():
    rng = np.random.default_rng(7)
    for trial in range(120):
        n = int(rng.integers(1, 250))
        centres = rng.uniform(0, 800, (max(1, n // 4), 2))
        centres = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 4, (n, 2))  # clusters, as a detector gives
        wh = rng.uniform(3, 50, (n, 2))
        boxes = np.concatenate([centres - wh / 2, centres + wh / 2], 1).astype(np.float32)
        scores = np.round(rng.uniform(0, 1, n), 1 if trial % 2 else 4).astype(np.float32)  # ties too
        for ios_t in (None, 0.6):
            assert list(nms(boxes, scores, 0.5, ios_t)) == _greedy_nms_all_pairs(boxes, scores, 0.5, ios_t)


def test_render_view_into_a_reused_buffer_equals_a_fresh_one():
    from tableref.vision.views import ViewCanvas

    rng = np.random.default_rng(3)
    canvas = ViewCanvas(keep=2)
    views = [letterbox_view(1280, 720, 640, rect_stride=32), letterbox_view(1280, 720, 640, scale=1.41, rect_stride=32),
             View(x0=300.0, y0=-20.0, scale=1.7, size=640)]
    for _ in range(3):
        img = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
        for v in views:
            assert np.array_equal(canvas.render(img, v), render_view(img, v))


def test_a_view_shrinks_by_area_but_by_less_than_a_tenth_bilinearly():
    """A view shrinks the frame by averaging areas, but bilinearly where it shrinks it by less
    than ``LINEAR_SHRINK_MIN`` (nearly the same pixels, several times faster); only a picture
    shrunk by averaging areas is the outline finder's shrunk frame."""
    import cv2

    from tableref.vision.views import LINEAR_SHRINK_MIN, shown_whole, view_rects

    rng = np.random.default_rng(5)
    img = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    for scale, interp in ((0.5, cv2.INTER_AREA), (0.84, cv2.INTER_AREA), (LINEAR_SHRINK_MIN, cv2.INTER_LINEAR),
                          (0.97, cv2.INTER_LINEAR), (1.3, cv2.INTER_LINEAR)):
        v = letterbox_view(1280, 720, 2000, scale=scale, rect_stride=32)
        out = render_view(img, v)
        x1, y1, x2, y2 = view_rects(v, 1280, 720)[1]
        np.testing.assert_array_equal(out[y1:y2, x1:x2], cv2.resize(img, (x2 - x1, y2 - y1), interpolation=interp))
        assert (shown_whole(out, v, 1280, 720) is not None) == (interp == cv2.INTER_AREA)
    # and the two differ little there: a real picture shrunk by 0.95
    real = cv2.GaussianBlur(img, (0, 0), 2.0)
    size = (1216, 684)
    diff = np.abs(cv2.resize(real, size, interpolation=cv2.INTER_AREA).astype(int)
                  - cv2.resize(real, size, interpolation=cv2.INTER_LINEAR).astype(int))
    assert diff.mean() < 0.5 and np.percentile(diff, 99) <= 2


def test_image_blob_is_the_networks_rgb_input():
    import cv2

    from tableref.vision.runtime import Network, default_models_dir

    net = Network(default_models_dir() / "index_detector.onnx", 1)
    rng = np.random.default_rng(5)
    for shape in ((384, 640, 3), (1024, 1824, 3), (384, 640, 3)):
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        img[0, :256] = np.arange(256, dtype=np.uint8)[:, None]     # every value in every channel
        expected = cv2.dnn.blobFromImage(img, 1 / 255.0, swapRB=True)
        assert np.array_equal(net.image_blob(img), expected)
    # the buffers of items run side by side are apart
    a, b = (rng.integers(0, 256, (384, 640, 3), dtype=np.uint8) for _ in range(2))
    blob_a, blob_b = net.image_blob(a, slot=0), net.image_blob(b, slot=1)
    assert np.array_equal(blob_a, cv2.dnn.blobFromImage(a, 1 / 255.0, swapRB=True)) and blob_a is not blob_b
