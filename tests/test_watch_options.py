"""``tableref watch`` and ``bench-detect``: a bad option ends in one line naming it and exit 2, no traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tableref.cli import main


def _refused(capsys, argv) -> str:
    try:
        rc = main(argv)
    except SystemExit as exc:           # a usage error found by the parser
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv,says", [
    (["watch", "--seats", "-1"], "argument --seats: must be a whole number from 1 up, got '-1'"),
    (["watch", "--seats", "0"], "argument --seats: must be a whole number from 1 up"),
    (["watch", "--seats", "9"], "--seats: Desmoche is played by 2 to 4 players, not 9"),
    (["watch", "--game", "marriage", "--seats", "9"], "--seats: Marriage is played by 2 to 5 players, not 9"),
    (["watch", "--seats", "3", "--players", "A,B"], "--players: 'players' must name 3 players"),
    (["watch", "--players", "A,A"], "--players: two players are called 'A'"),
    (["watch", "--players", "A,B,C,D,E"], "--players: Desmoche is played by 2 to 4 players, not 5"),
    (["watch", "--stake", "nan"], "argument --stake: must be a whole number"),
    (["watch", "--stake", "1.5"], "argument --stake: must be a whole number"),
    (["watch", "--stake", "0"], "argument --stake: must be a whole number from 1 up"),
    (["watch", "--every", "0"], "argument --every: must be a whole number from 1 up"),
    (["watch", "--max-seconds", "-5"], "argument --max-seconds: must be a number of seconds above 0"),
    (["watch", "--max-seconds", "inf"], "argument --max-seconds: must be a number of seconds above 0"),
    (["watch", "--finish", "{x"], "--finish is not valid JSON"),
    (["watch", "--finish", "[1]"], "--finish must be a JSON object"),
    (["watch", "--rules", "{x"], "--rules is not valid JSON"),
    (["watch", "/nope.mp4"], "SOURCE: source not found: '/nope.mp4'"),
    (["watch", "--db", "/proc/x.sqlite3"], "--db: cannot open the ledger /proc/x.sqlite3: no file can be made"),
    (["bench-detect", "--repeat", "0"], "argument --repeat: must be a whole number from 1 up"),
    (["bench-detect", "--repeat", "-1"], "argument --repeat: must be a whole number from 1 up"),
    (["bench-detect", "--threads", "0"], "argument --threads: must be a whole number from 1 up"),
])
def test_bad_options_are_one_line(capsys, argv, says):
    err = _refused(capsys, argv)
    assert says in err, err


def test_a_folder_of_unreadable_images_says_so(tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        (folder / f"{i}.jpg").write_bytes(b"not a picture")
    assert main(["watch", str(folder), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "NOT DECIDED" in out and f"no picture could be read from {folder}" in out, out
    assert "3 unreadable skipped" in out, out


def _photo(path: Path) -> Path:
    """A plain grey 640x360 photo written at ``path``."""
    import cv2
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((360, 640, 3), 90, np.uint8))
    return path


def test_a_folder_of_one_photo_says_a_live_table_needs_frames(tmp_path, capsys):
    """A photo given to watch is one frame: the answer says why no card came, and what reads a photo."""
    folder = _photo(tmp_path / "photo" / "table.jpg").parent
    assert main(["watch", str(folder), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "NOT DECIDED" in out and f"{folder} gave 1 picture, and a card counts once" in out, out
    assert "tableref detect PHOTO" in out, out


def test_a_single_photo_as_source_points_to_detect(tmp_path, capsys):
    photo = _photo(tmp_path / "table.jpg")
    err = _refused(capsys, ["watch", str(photo)])
    assert f"SOURCE: {photo} is a single image: a live table is read from a video, a camera or a folder" in err, err
    assert f"(to read a photo: tableref detect {photo})" in err, err


def test_a_camera_that_fails_leaves_no_opencv_noise():
    """OpenCV's and FFmpeg's own warnings stay off the terminal: watch says what went wrong itself."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    out = subprocess.run([sys.executable, "-m", "tableref", "watch", "7", "--max-seconds", "2", "--no-progress"],
                         cwd=Path(__file__).resolve().parents[1], env=env, capture_output=True, text=True, timeout=120)
    text = out.stdout + out.stderr
    assert out.returncode == 1 and "NOT DECIDED" in text and "camera 7 cannot be opened" in text, text
    assert "[ WARN" not in text and "VIDEOIO" not in text and "Traceback" not in text, text
