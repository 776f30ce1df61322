"""Draw the session's view on a frame: zones, each tracked card with its label, verdict colours.

Green: a card in a valid meld laid in order; orange: a valid meld out of order;
red: an invalid meld; grey: loose or centre cards; blue: corrected by the host; magenta: unread
(its looks do not agree yet), labelled with what it might be and a question mark (``8C/8H?``).
"""
from __future__ import annotations

import cv2
import numpy as np

GREEN = (60, 200, 60)
ORANGE = (0, 160, 255)
RED = (40, 40, 230)
GREY = (180, 180, 180)
BLUE = (255, 150, 40)
MAGENTA = (220, 60, 220)


def _colours(views: list[dict]) -> dict[int, tuple[int, int, int]]:
    out = {}
    for v in views:
        for m in v.get("melds", []):
            if m.get("valid") is False:
                col = RED
            elif m.get("in_order") is False:
                col = ORANGE
            elif m.get("valid"):
                col = GREEN
            else:
                col = GREY
            for tid in m.get("track_ids", []):
                out[tid] = col
    return out


def draw_crown(img: np.ndarray, x: int, y: int, h: int, colour=(0, 215, 255)) -> int:
    """A crown ``h`` pixels high with its top-left at (x, y): the winner's mark, the same in every
    language (the page says "winner" in the player's own). Returns the crown's width."""
    w = int(h * 1.4)
    pts = np.array([[x, y + h], [x, y + h // 4], [x + w // 4, y + h // 2], [x + w // 2, y],
                    [x + 3 * w // 4, y + h // 2], [x + w, y + h // 4], [x + w, y + h]], np.int32)
    cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    cv2.polylines(img, [pts], True, (0, 0, 0), 1, cv2.LINE_AA)
    return w


def draw_no_signal(img: np.ndarray, x: int, y: int, r: int) -> None:
    """A red warning disc with "!" (camera trouble), language-neutral."""
    cv2.circle(img, (x, y), r, (0, 0, 220), -1, cv2.LINE_AA)
    cv2.line(img, (x, y - r // 2), (x, y + r // 6), (255, 255, 255), max(2, r // 4), cv2.LINE_AA)
    cv2.circle(img, (x, y + r // 2), max(2, r // 7), (255, 255, 255), -1, cv2.LINE_AA)


def annotate(image: np.ndarray, tracker, zones, views: list[dict], corrections: dict, winner: str | None,
             camera_status: str = "") -> np.ndarray:
    # the shared video carries no words (each phone has its own language): the centre zone is its colour
    img = zones.draw(image, centre_label="") if zones is not None else image.copy()
    cols = _colours(views)
    for tr in tracker.confirmed_tracks() if tracker is not None else []:
        reading = getattr(tr, "reading", tr.label)
        if tr.id in corrections:
            label, col = corrections[tr.id] or "x", BLUE
        elif reading:
            label, col = reading, cols.get(tr.id, GREY)
        else:
            label, col = "/".join(tr.evidence.candidates(2)) + "?", MAGENTA
        pts = tr.outline().astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, col, 2, cv2.LINE_AA)
        x, y = int(pts[:, 0, 0].min()), int(pts[:, 0, 1].min())
        text = f"{label} #{tr.id}"
        cv2.putText(img, text, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(img, text, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1, cv2.LINE_AA)
    if winner:  # no words on the shared video: a crown and the name (every phone has its own language)
        cv2.rectangle(img, (0, 0), (img.shape[1], 44), (0, 120, 0), -1)
        w = draw_crown(img, 14, 8, 28)
        cv2.putText(img, winner, (14 + w + 12, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2, cv2.LINE_AA)
    if camera_status and camera_status != "ok":
        draw_no_signal(img, 30, img.shape[0] - 30, 16)
    return img
