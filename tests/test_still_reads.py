"""The still table read again at photo quality beside the camera loop, and the unsure readings
passed on as weak evidence (no model: a stand-in recogniser)."""
from __future__ import annotations

import threading
import time

import numpy as np

from tableref.vision.recognition import camera_preset, photo_preset
from tableref.vision.recognition.confidence import reported_cards, unsure_cards
from tableref.vision.recognition.still import StillReader
from tableref.vision.types import DetectedCard


class SlowRecognizer:
    """Finds one card in the middle of whatever it is given, after ``delay`` seconds."""

    def __init__(self, delay=0.05):
        self.delay = delay
        self.seen = []
        self.thread = None

    def recognize(self, image):
        self.thread = threading.current_thread().name
        self.seen.append(image.shape)
        time.sleep(self.delay)
        h, w = image.shape[:2]
        return [DetectedCard("QH", 0.9, (w / 2 - 10, h / 2 - 15, w / 2 + 10, h / 2 + 15),
                             indices=[(w / 2 - 10, h / 2 - 15, w / 2, h / 2)])]


def wait_for(reader, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = reader.take()
        if done is not None:
            return done
        time.sleep(0.01)
    raise AssertionError("no reading came back")


def test_a_region_is_read_in_the_background_and_comes_back_in_frame_pixels():
    rec = SlowRecognizer()
    reader = StillReader(lambda: rec)
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert reader.submit(frame, (100, 200, 300, 400), t=1.5)
    assert not reader.submit(frame, (0, 0, 50, 50), t=1.6)        # one region at a time
    t, region, cards = wait_for(reader)
    assert t == 1.5 and region == (100, 200, 300, 400) and rec.seen == [(200, 200, 3)]
    assert rec.thread.startswith("tableref-still")
    assert cards[0].box == (190.0, 285.0, 210.0, 315.0) and cards[0].indices == [(190.0, 285.0, 200.0, 300.0)]
    assert reader.take() is None                                   # taken once
    assert reader.submit(frame, (0, 0, 50, 50), t=2.0)             # free again
    reader.close()


def test_a_reading_that_fails_gives_nothing_and_frees_the_reader():
    class Broken:
        def recognize(self, image):
            raise RuntimeError("model gone")

    reader = StillReader(Broken)
    frame = np.zeros((100, 100, 3), np.uint8)
    assert reader.submit(frame, (0, 0, 100, 100), t=0.0)
    end = time.monotonic() + 5
    while reader.busy and time.monotonic() < end:
        time.sleep(0.01)
    assert reader.take() is None and reader.submit(frame, (0, 0, 100, 100), t=0.1)
    reader.close()


def test_unsure_readings_are_never_reported_as_cards():
    config = camera_preset()
    cards = [DetectedCard(lab, conf, (0, 0, 10, 10)) for lab, conf in
             (("AS", 0.9), ("8C", 0.3), ("8H", 0.1), ("2D", 0.01))]
    assert [c.card for c in reported_cards(list(cards), config, set())] == ["AS"]
    assert [c.card for c in unsure_cards(list(cards), config, set())] == ["8C", "8H"]


def test_a_card_one_of_its_own_corners_contradicts_is_not_reported():
    from tableref.vision.assembly import IndexReading
    from tableref.vision.recognition.confidence import split_cards

    names = ["7H", "KH", "AD", "none"]

    def reading(box, probs):
        return IndexReading(box=box, score=0.8, probs=np.array(probs, np.float32))

    corners = [reading((0, 0, 10, 20), [0.74, 0.05, 0.01, 0.2]), reading((90, 120, 100, 140), [0.26, 0.28, 0.06, 0.1])]
    agree = [reading((200, 0, 210, 20), [0.0, 0.01, 0.9, 0.09]), reading((290, 120, 300, 140), [0.05, 0.0, 0.7, 0.25])]
    seven = DetectedCard("7H", 0.86, (0, 0, 100, 140), indices=[(0, 0, 10, 20), (90, 120, 100, 140)])
    ace = DetectedCard("AD", 0.9, (200, 0, 300, 140), indices=[(200, 0, 210, 20), (290, 120, 300, 140)])
    sure, unsure = split_cards([seven, ace], camera_preset(), set(), corners + agree, names)
    assert [c.card for c in sure] == ["AD"] and [c.card for c in unsure] == ["7H"]
    # a photo keeps it (no next frame settles it)
    assert [c.card for c in split_cards([seven, ace], photo_preset(), set(), corners + agree, names)[0]] == ["AD", "7H"]


def test_a_one_pack_table_reports_a_label_read_at_two_places_once_where_it_is_surest():
    from tableref.vision.recognition import live_table_preset
    from tableref.vision.recognition.confidence import split_cards

    ks, misread, nine = (DetectedCard("KS", 0.8, (0, 0, 10, 10)), DetectedCard("KS", 0.55, (40, 0, 50, 10)),
                         DetectedCard("9C", 0.6, (80, 0, 90, 10)))
    sure, unsure = split_cards([misread, ks, nine], camera_preset(one_pack=True), set())
    assert [c.card for c in sure] == ["KS", "9C"] and sure[0] is ks and unsure == [misread]
    # a table of unknown packs, or several (Marriage), reports both
    assert len(split_cards([misread, ks, nine], camera_preset(), set())[0]) == 3
    desmoche = live_table_preset(one_pack=True)
    assert desmoche.one_pack and not live_table_preset(several_packs=True).one_pack


def test_a_label_read_about_as_surely_at_two_places_of_one_pack_is_reported_at_neither():
    from tableref.vision.recognition.confidence import READ_TWICE_LEAD, split_cards

    # a soft fan: the KS, and the 6S beside it read KS just as surely: the frame cannot tell which
    ks, misread = DetectedCard("KS", 0.574, (0, 0, 10, 10)), DetectedCard("KS", 0.571, (40, 0, 50, 10))
    sure, unsure = split_cards([misread, ks], camera_preset(one_pack=True), set())
    assert sure == [] and sorted(c.confidence for c in unsure) == [0.571, 0.574]
    # a clear lead keeps the surer
    lead = DetectedCard("KS", 0.571 * READ_TWICE_LEAD + 0.01, (0, 0, 10, 10))
    assert split_cards([misread, lead], camera_preset(one_pack=True), set())[0] == [lead]
