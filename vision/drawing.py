"""Drawing recognised cards onto a frame (quads or boxes, index boxes, labels)."""
from __future__ import annotations

import cv2
import numpy as np


def draw_cards(image, cards):
    """A copy of ``image`` with each card's quad (or box) and label drawn."""
    out = image.copy()
    h, w = out.shape[:2]
    thick = max(2, int(round(max(h, w) / 500)))
    font = max(0.5, max(h, w) / 1400)
    for c in cards:
        color = (0, 200, 0) if c.confidence >= 0.7 else (0, 200, 255)
        if c.quad:
            pts = np.array(c.quad, dtype=np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], True, color, thick, cv2.LINE_AA)
        else:
            x1, y1, x2, y2 = (int(round(v)) for v in c.box)
            cv2.rectangle(out, (x1, y1), (x2, y2), color, thick, cv2.LINE_AA)
        for b in c.indices:
            x1, y1, x2, y2 = (int(round(v)) for v in b)
            cv2.rectangle(out, (x1, y1), (x2, y2), (255, 120, 0), max(1, thick // 2), cv2.LINE_AA)
        label = f"{c.card} {c.confidence:.2f}"
        cx, cy = c.centre
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        org = (int(min(max(0, cx - tw / 2), w - tw)), int(min(max(th + 2, cy), h - 2)))
        cv2.rectangle(out, (org[0] - 2, org[1] - th - 2), (org[0] + tw + 2, org[1] + base), (0, 0, 0), -1)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, font, color, thick, cv2.LINE_AA)
    return out
