"""A real camera's effects on a picture (datasets/camera_effects.py): what each does, point maps, seeds."""
from __future__ import annotations

import numpy as np
import pytest

from tableref.datasets import camera_effects as ce


def _chart(h: int = 90, w: int = 160) -> np.ndarray:
    """A grey picture with a black bar and a red square: edges to blur, colour to tint."""
    img = np.full((h, w, 3), 128, np.uint8)
    img[20:70, 40:46] = 0
    img[30:50, 100:120] = (30, 30, 200)
    return img


def _edge_energy(img: np.ndarray) -> float:
    g = img.astype(np.float32).mean(axis=2)
    return float(np.abs(np.diff(g, axis=1)).sum() + np.abs(np.diff(g, axis=0)).sum())


def test_blur_softens_edges_and_zero_changes_nothing():
    img = _chart()
    assert np.array_equal(ce.defocus(img, 0), img) and np.array_equal(ce.motion_blur(img, 1, 30), img)
    soft, softer = ce.defocus(img, 1.0), ce.defocus(img, 2.0)
    assert soft.dtype == np.uint8 and soft.shape == img.shape
    assert _edge_energy(softer) < _edge_energy(soft) < _edge_energy(img)
    # a horizontal smear widens the vertical bar, a vertical one does not
    row = ce.motion_blur(img, 9, 0)[45].astype(int).sum(axis=1)
    col = ce.motion_blur(img, 9, 90)[45].astype(int).sum(axis=1)
    assert (row < 300).sum() > (col < 300).sum()


def test_motion_kernel_is_a_line_of_the_given_length():
    k = ce.motion_kernel(7, 0)
    assert k.shape == (7, 7) and abs(float(k.sum()) - 1) < 1e-5
    assert np.count_nonzero(k.sum(axis=1) > 1e-6) == 1            # one row: horizontal
    assert np.count_nonzero(ce.motion_kernel(7, 90).sum(axis=0) > 1e-6) == 1


def test_light_dims_and_warms():
    img = _chart()
    dim = ce.light(img, 0.5)
    assert abs(float(dim.mean()) - 0.5 * float(img.mean())) < 1.5
    warm = ce.light(img, 1.0, warmth=1.0).astype(int)
    grey = warm[5, 5]                                               # BGR of a grey pixel
    assert grey[2] > 128 > grey[0]                                  # red up, blue down
    f = ce.light(img.astype(np.float32), 0.5)
    assert f.dtype == np.float32


def test_glare_whitens_the_given_share_of_the_picture():
    img = np.full((200, 300, 3), 100, np.uint8)
    out = ce.glare(img, 0.05, np.random.default_rng(0), centre=(150, 100))
    washed = (out.astype(int).mean(axis=2) > 180).mean()
    assert 0.02 < washed < 0.08
    assert out[100, 150].min() > 200 and out[5, 5].max() == 100


def test_noise_and_jpeg_are_seeded_and_keep_the_picture():
    img = _chart()
    a = ce.sensor_noise(img, 4, np.random.default_rng(3))
    b = ce.sensor_noise(img, 4, np.random.default_rng(3))
    assert np.array_equal(a, b) and not np.array_equal(a, img)
    assert 2 < float(np.std(a.astype(int) - img.astype(int))) < 8
    j = ce.jpeg(img, 40)
    assert j.shape == img.shape and j.dtype == np.uint8
    assert float(np.abs(j.astype(int) - img.astype(int)).mean()) < 6


def test_low_resolution_loses_fine_detail_only():
    img = np.zeros((64, 64, 3), np.uint8)
    img[:, ::2] = 255                                               # one-pixel stripes
    out = ce.low_resolution(img, 0.5)
    assert out.shape == img.shape and float(out.std()) < 0.2 * float(img.std())
    assert np.array_equal(ce.low_resolution(img, 1.0), img)


@pytest.mark.parametrize("effect", ["rescale", "rotate", "tilt", "shift_scale"])
def test_moving_effects_say_where_each_point_goes(effect):
    """A marked pixel lands where the returned point map sends it."""
    img = np.zeros((180, 320, 3), np.uint8)
    x, y = 90, 60
    img[y - 2:y + 3, x - 2:x + 3] = 255
    out, m = {"rescale": lambda: ce.rescale(img, (160, 90)), "rotate": lambda: ce.rotate(img, 15),
              "tilt": lambda: ce.tilt(img, 0.2), "shift_scale": lambda: ce.shift_scale(img, 3, -2, 1.01)}[effect]()
    ys, xs = np.nonzero(out.max(axis=2) > 100)
    px, py = ce.map_points(m, [(x, y)])[0]
    assert abs(xs.mean() - px) < 1.0 and abs(ys.mean() - py) < 1.0
    if effect == "rescale":
        assert out.shape[:2] == (90, 160)
    else:
        assert out.shape == img.shape


def test_tilt_narrows_the_far_edge():
    m = ce.tilt(np.zeros((100, 200, 3), np.uint8), 0.2)[1]
    top = ce.map_points(m, [(0, 0), (199, 0)])
    bottom = ce.map_points(m, [(0, 99), (199, 99)])
    assert abs((top[1, 0] - top[0, 0]) - 0.8 * 199) < 1.0 and abs((bottom[1, 0] - bottom[0, 0]) - 199) < 1e-6


def test_a_hand_covers_part_of_the_picture_near_its_tip():
    img = np.full((180, 320, 3), 60, np.uint8)
    out = ce.hand_over(img, (160, 90), np.random.default_rng(1))
    changed = np.abs(out.astype(int) - img.astype(int)).max(axis=2) > 30
    assert 0.03 < changed.mean() < 0.5
    assert changed[80:100, 140:180].any()


def test_camera_feed_sways_within_bounds_and_a_hand_passes():
    img = np.full((144, 256, 3), 90, np.uint8)
    img[40:100, 60:200] = 220
    s = ce.FeedSettings(frames=24, sway_px=3.0, hand_frames=4)
    frames = list(ce.camera_feed(img, s, seed=5))
    assert len(frames) == 24
    again = list(ce.camera_feed(img, s, seed=5))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(frames, again))
    limit = ce.at_720p(3.0, 144) + 256 * 0.01
    centre = np.array([[127.5, 71.5]])
    for frame, m in frames:
        assert frame.shape == img.shape and frame.dtype == np.uint8
        assert np.abs(ce.map_points(m, centre) - centre).max() <= limit + 1e-6
    # the hand: skin (red well above blue) on a grey table, in four consecutive frames
    skin = [int(((f[:, :, 2].astype(int) - f[:, :, 0]) > 40).sum()) for f, _ in frames]
    with_hand = [i for i, n in enumerate(skin) if n > 200]
    assert len(with_hand) == 4 and with_hand == list(range(with_hand[0], with_hand[0] + 4))
    assert max(n for i, n in enumerate(skin) if i not in with_hand) < 20


def test_a_knocked_camera_shakes_a_run_of_frames_in_the_last_third():
    """``shake_frames``: that many frames in a row, in the last third, smeared along one direction; the
    feed is otherwise the feed without the knock."""
    img = np.full((144, 256, 3), 90, np.uint8)
    for x in range(20, 236, 24):
        img[30:110, x:x + 10] = 230                  # upright bars: a sideways shake smears their edges
        img[60:66, x - 6:x + 16] = 230                # and a short flat one across each
    plain = ce.FeedSettings(frames=30, hand_frames=0, noise=0.0, jpeg_quality=(95, 95), flicker=0.0)
    knocked = ce.FeedSettings(frames=30, hand_frames=0, noise=0.0, jpeg_quality=(95, 95), flicker=0.0,
                              shake_frames=5, shake_px=40.0)      # 8 px at 144 lines
    a = [f for f, _ in ce.camera_feed(img, plain, seed=2)]
    b = [f for f, _ in ce.camera_feed(img, knocked, seed=2)]
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if not np.array_equal(x, y)]
    assert len(differ) == 5 and differ == list(range(differ[0], differ[0] + 5)) and differ[0] >= 20
    # the gradients' energy (a blur spreads an edge's step over more pixels: less energy)
    edges = [float((np.diff(f.astype(float), axis=1) ** 2).sum() + (np.diff(f.astype(float), axis=0) ** 2).sum())
             for f in b]
    assert max(edges[i] for i in differ) < 0.8 * min(edges[i] for i in range(30) if i not in differ)
