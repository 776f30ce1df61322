"""Matching rules of the recognition evaluation (tableref.training.evaluation), on synthetic lists."""
from __future__ import annotations

import pytest

from tableref.training.evaluation import DatasetError, Tally, Truth, load_rank_labels, match


def test_match_rank_level_rules():
    truths = [Truth.from_box("Q", (0, 0, 100, 140)), Truth.from_box("10", (200, 0, 300, 140))]
    reported = [("Q", (50, 70)), ("10", (250, 20)), ("9", (260, 100)), ("K", (500, 500))]
    m = match(reported, truths)
    assert m["found"] == [True, True]
    assert m["correct"] == [True, True, False, False]
    assert m["confusions"] == [("10", "9")]
    t = Tally()
    t.add(m, truths, [r for r, _ in reported], 12.0)
    s = t.summary()
    assert s["recall"] == 1.0 and s["precision"] == 0.5
    assert s["per_label"]["9"]["precision"] == 0.0 and s["per_label"]["Q"]["recall"] == 1.0


def test_match_centre_outside_box_is_a_miss():
    truths = [Truth.from_box("A", (0, 0, 100, 140))]
    m = match([("A", (150, 70))], truths)
    assert m["found"] == [False] and m["correct"] == [False] and m["confusions"] == []


def test_match_rotated_polygon():
    diamond = Truth("KH", [(50, 0), (100, 50), (50, 100), (0, 50)])
    assert match([("KH", (50, 50))], [diamond])["found"] == [True]
    assert match([("KH", (5, 5))], [diamond])["found"] == [False]


def test_load_rank_labels(tmp_path):
    (tmp_path / "labels.csv").write_text(
        "filename,width,height,class,xmin,ymin,xmax,ymax\n"
        "a.jpg,10,10,nine,1,2,3,4\na.jpg,10,10,ace,5,5,9,9\nb.jpg,10,10,Ten,0,0,1,1\n")
    labels = load_rank_labels(tmp_path)
    assert [t.label for t in labels["a.jpg"]] == ["9", "A"] and labels["b.jpg"][0].label == "10"
    (tmp_path / "labels.csv").write_text("filename,width,height,class,xmin,ymin,xmax,ymax\na.jpg,1,1,joker,0,0,1,1\n")
    with pytest.raises(DatasetError):
        load_rank_labels(tmp_path)
    with pytest.raises(DatasetError):
        load_rank_labels(tmp_path / "nowhere")
