"""Draw the session's view on a frame: zones, each tracked card with its label, verdict colours.

Green: a card in a valid meld laid in order; orange: a valid meld out of order;
red: an invalid meld; grey: loose or centre cards; blue: corrected by the host.
"""
from __future__ import annotations

import cv2
import numpy as np

GREEN = (60, 200, 60)
ORANGE = (0, 160, 255)
RED = (40, 40, 230)
GREY = (180, 180, 180)
BLUE = (255, 150, 40)


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


def annotate(image: np.ndarray, tracker, zones, views: list[dict], corrections: dict, winner: str | None,
             camera_status: str = "") -> np.ndarray:
    img = zones.draw(image) if zones is not None else image.copy()
    cols = _colours(views)
    for tr in tracker.confirmed_tracks() if tracker is not None else []:
        label = corrections.get(tr.id, tr.label) if tr.id in corrections else tr.label
        col = BLUE if tr.id in corrections else cols.get(tr.id, GREY)
        pts = tr.outline().astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, col, 2, cv2.LINE_AA)
        x, y = int(pts[:, 0, 0].min()), int(pts[:, 0, 1].min())
        text = f"{label or 'x'} #{tr.id}"
        cv2.putText(img, text, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(img, text, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1, cv2.LINE_AA)
    if winner:
        msg = f"WINNER: {winner}"
        cv2.rectangle(img, (0, 0), (img.shape[1], 44), (0, 120, 0), -1)
        cv2.putText(img, msg, (16, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2, cv2.LINE_AA)
    if camera_status and camera_status != "ok":
        cv2.putText(img, f"camera: {camera_status}", (16, img.shape[0] - 16), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    (0, 0, 255), 2, cv2.LINE_AA)
    return img
