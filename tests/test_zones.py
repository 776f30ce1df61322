"""Table geometry: default seat layout, ArUco calibration, hand-drawn zones in JSON."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tableref.vision.zones import (
    MarkerCalibrator,
    ZoneError,
    TableZones,
    calibrate_aruco,
    default_zones,
    detect_markers,
    render_marker_sheet,
)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_default_layout_puts_seat0_at_bottom_and_centre_in_middle(n):
    z = default_zones(n, (1280, 720))
    assert z.n_seats == n
    assert z.zone_at(640, 360).is_centre
    assert z.zone_at(640, 715).id == "seat0"
    assert z.seats[0].forward == pytest.approx((0.0, -1.0))
    assert z.seats[0].right == pytest.approx((1.0, 0.0))
    # every seat owns the frame edge point straight out from the middle at its angle
    for s in z.seats:
        c = s.polygon.mean(axis=0)
        assert z.zone_at_table(*c) is s
    # every point of the frame is in exactly one zone
    for x in range(5, 1280, 90):
        for y in range(5, 720, 70):
            assert z.zone_at(x, y) is not None


def test_four_seats_go_clockwise_bottom_left_top_right():
    z = default_zones(4, (1000, 1000))
    assert [z.zone_at(*p).id for p in [(500, 990), (10, 500), (500, 10), (990, 500)]] == \
        ["seat0", "seat1", "seat2", "seat3"]
    # the player at the top looks down: their right hand is image-left
    assert z.seats[2].right == pytest.approx((-1.0, 0.0))
    assert z.seats[1].right == pytest.approx((0.0, 1.0))    # left seat faces +x, right hand is +y
    assert z.seats[3].right == pytest.approx((0.0, -1.0))


def test_default_layout_scales_to_other_frame_sizes():
    z = default_zones(2, (1920, 1080))
    assert z.zone_at(640, 700, frame_size=(1280, 720)).id == "seat0"
    assert z.zone_at(640, 360, frame_size=(1280, 720)).is_centre


def test_bad_seat_counts():
    with pytest.raises(ZoneError):
        default_zones(1, (640, 480))
    with pytest.raises(ZoneError):
        default_zones(6, (640, 480))


def _synthetic_table_photo(seed=0):
    """A table with corner markers, photographed by a tilted camera with a known homography."""
    rng = np.random.default_rng(seed)
    canvas = np.full((1100, 1500, 3), (40, 110, 40), np.uint8)              # green felt, top-down
    canvas = cv2.add(canvas, rng.integers(0, 20, canvas.shape, dtype=np.uint8))
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners = [(150, 150), (1350, 150), (1350, 950), (150, 950)]            # table rectangle 1200 x 800
    for mid, (cx, cy) in enumerate(corners):
        m = cv2.aruco.generateImageMarker(d, mid, 90)
        pad = cv2.copyMakeBorder(m, 15, 15, 15, 15, cv2.BORDER_CONSTANT, value=255)
        h = pad.shape[0] // 2
        canvas[cy - h:cy + h, cx - h:cx + h] = cv2.cvtColor(pad, cv2.COLOR_GRAY2BGR)
    src = np.float32([[0, 0], [1500, 0], [1500, 1100], [0, 1100]])
    dst = np.float32([[250, 60], [1050, 90], [1230, 700], [40, 660]])          # tilted view
    H_cam = cv2.getPerspectiveTransform(src, dst)
    photo = cv2.warpPerspective(canvas, H_cam, (1280, 720), borderValue=(30, 30, 30))
    return photo, H_cam, corners


def test_aruco_calibration_recovers_the_table_plane():
    photo, H_cam, corners = _synthetic_table_photo()
    z = calibrate_aruco(photo, 4, table_size=(1200, 800))
    assert z.source == "aruco" and z.frame_size == (1280, 720)
    (x0, y0), (x1, _), (_, y1) = corners[0], corners[1], corners[2]
    rng = np.random.default_rng(1)
    for _ in range(20):
        tx, ty = rng.uniform(0, 1200), rng.uniform(0, 800)
        canvas_pt = np.float32([[[x0 + tx * (x1 - x0) / 1200, y0 + ty * (y1 - y0) / 800]]])
        img_pt = cv2.perspectiveTransform(canvas_pt, H_cam)[0, 0]
        got = z.to_table([img_pt])[0]
        assert got == pytest.approx((tx, ty), abs=4.0)           # within 4 mm on a 1.2 m table
        back = z.to_image([got])[0]
        assert back == pytest.approx(img_pt, abs=0.5)
    # seat zones in table coordinates: seat 0 along the bottom edge (between markers 3 and 2)
    bottom_mid = cv2.perspectiveTransform(np.float32([[[750, 930]]]), H_cam)[0, 0]
    assert z.zone_at(*bottom_mid).id == "seat0"
    middle = cv2.perspectiveTransform(np.float32([[[750, 550]]]), H_cam)[0, 0]
    assert z.zone_at(*middle).is_centre


def test_aruco_calibration_with_a_marker_covered_says_which():
    photo, _, _ = _synthetic_table_photo()
    H, W = photo.shape[:2]
    markers = detect_markers(photo)
    assert sorted(markers) == [0, 1, 2, 3]
    c = markers[2].mean(axis=0).astype(int)
    photo[c[1] - 60:c[1] + 60, c[0] - 60:c[0] + 60] = (200, 180, 150)       # a hand over marker 2
    with pytest.raises(ZoneError, match="2 \\(bottom-right\\)"):
        calibrate_aruco(photo, 4)
    with pytest.raises(ZoneError, match="empty"):
        calibrate_aruco(np.zeros((0, 0, 3), np.uint8), 4)


def test_marker_sheet_is_detectable(tmp_path):
    out = tmp_path / "markers.png"
    img = render_marker_sheet(out)
    assert out.exists()
    assert img.shape[0] > img.shape[1]                          # portrait page
    found = detect_markers(cv2.imread(str(out)))
    assert sorted(found) == [0, 1, 2, 3]
    # printed layout matches the corner names: 0 top-left ... 3 bottom-left
    c = {k: v.mean(axis=0) for k, v in found.items()}
    assert c[0][0] < c[1][0] and c[0][1] < c[3][1] and c[2][0] > c[3][0] and c[2][1] > c[1][1]
    with pytest.raises(ZoneError):
        render_marker_sheet(tmp_path / "x.gif")


def test_save_and_load_round_trip(tmp_path):
    photo, _, _ = _synthetic_table_photo()
    z = calibrate_aruco(photo, 3, names=["Ana", "Boris", "Carla"])
    p = tmp_path / "zones.json"
    z.save(p)
    z2 = TableZones.load(p)
    assert [s.name for s in z2.seats] == ["Ana", "Boris", "Carla"]
    assert np.allclose(z2.homography, z.homography)
    for x, y in [(600, 650), (640, 360), (100, 300), (1100, 200)]:
        a, b = z.zone_at(x, y), z2.zone_at(x, y)
        assert (a.id if a else None) == (b.id if b else None)


def test_hand_drawn_zones_in_image_coordinates(tmp_path):
    data = {
        "coords": "image",
        "seats": [
            {"name": "South", "polygon": [[0, 500], [1280, 500], [1280, 720], [0, 720]]},
            {"name": "North", "polygon": [[0, 0], [1280, 0], [1280, 220], [0, 220]]},
        ],
        "centre": [[300, 220], [980, 220], [980, 500], [300, 500]],
    }
    p = tmp_path / "z.json"
    p.write_text(json.dumps(data))
    z = TableZones.load(p)
    assert z.zone_at(640, 600).name == "South"
    assert z.zone_at(640, 100).name == "North"
    assert z.zone_at(640, 300).is_centre
    assert z.zone_at(100, 300) is None                          # off every zone
    # forward points from the seat towards the centre zone when not given
    assert z.seats[0].forward == pytest.approx((0.0, -1.0), abs=1e-6)
    assert z.seats[1].forward == pytest.approx((0.0, 1.0), abs=1e-6)


@pytest.mark.parametrize("bad, msg", [
    ("{", "cannot read"),
    ("[]", "JSON object"),
    ('{"seats": [], "centre": [[0,0],[1,0],[1,1]]}', "2 to 5 seats"),
    ('{"seats": [{"polygon": [[0,0],[1,1]]}, {"polygon": [[0,0],[1,0],[1,1]]}], '
     '"centre": [[0,0],[1,0],[1,1]]}', "at least 3 points"),
    ('{"seats": [{"polygon": [[0,0],[1,0],[1,1]]}, {"polygon": [[0,0],[1,0],[1,1]]}]}', "centre"),
    ('{"coords": "cm", "seats": [], "centre": []}', "coords"),
])
def test_bad_zone_files_give_clear_errors(tmp_path, bad, msg):
    p = tmp_path / "z.json"
    p.write_text(bad)
    with pytest.raises(ZoneError, match=msg):
        TableZones.load(p)
    with pytest.raises(ZoneError, match="not found"):
        TableZones.load(tmp_path / "missing.json")


def test_calibrator_combines_frames_where_different_markers_are_covered():
    photo, H_cam, _ = _synthetic_table_photo()
    markers = detect_markers(photo)
    cal = MarkerCalibrator(4, table_size=(1200, 800), min_views=2)
    results = []
    for covered in [0, 1, 2, 3, 0, 1]:                     # a hand covers one marker per frame
        img = photo.copy()
        c = markers[covered].mean(axis=0).astype(int)
        img[c[1] - 60:c[1] + 60, c[0] - 60:c[0] + 60] = (190, 170, 150)
        results.append(cal.add(img))
        if results[-1] is None:
            assert "still looking" in cal.message
    assert results[:2] == [None, None] and results[2] is not None     # each marker seen twice by then
    z = next(r for r in results if r is not None)
    direct = calibrate_aruco(photo, 4, table_size=(1200, 800))
    pts = np.float32([[300, 200], [900, 600], [640, 360]])
    assert np.allclose(z.to_table(pts), direct.to_table(pts), atol=1.0)


def _calibrate(argv):
    import argparse

    from tableref.cli import zones as cli_zones
    parser = argparse.ArgumentParser()
    cli_zones.register(parser.add_subparsers())
    args = parser.parse_args(["calibrate", *argv])
    return args.func(args)


def test_calibrate_command_writes_zones_from_markers(tmp_path, capsys):
    photo, H_cam, _ = _synthetic_table_photo()
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "a.png"), photo)
    out, prev = tmp_path / "zones.json", tmp_path / "check.jpg"
    rc = _calibrate([str(frames), "--seats", "3", "--out", str(out), "--annotate", str(prev),
                     "--players", "Ana,Beto,Cris", "--timeout", "10"])
    assert rc == 0, capsys.readouterr().err
    z = TableZones.load(out)
    assert z.source == "aruco" and [s.name for s in z.seats] == ["Ana", "Beto", "Cris"]
    assert cv2.imread(str(prev)).shape == photo.shape
    assert "corner markers" in capsys.readouterr().out      # from one photo: the source ended


def test_calibrate_command_default_and_failure(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "a.png"), np.full((360, 640, 3), 90, np.uint8))
    out = tmp_path / "zones.json"
    assert _calibrate([str(frames), "--seats", "4", "--out", str(out), "--timeout", "5"]) == 2
    assert "still looking for marker 0" in capsys.readouterr().err
    assert not out.exists()
    assert _calibrate([str(frames), "--seats", "4", "--out", str(out), "--default"]) == 0
    z = TableZones.load(out)
    assert z.frame_size == (640, 360) and z.n_seats == 4
    assert _calibrate([str(tmp_path / "nope"), "--seats", "4", "--out", str(out)]) == 2
    assert _calibrate([str(frames), "--seats", "7", "--out", str(out)]) == 2
