"""Card recognition: the corner-index detector and classifier read into physical cards.

Rooms: ``presets`` (the settings: a camera's, a live table's, a photo's), ``spec`` (the model
files' ``recognition.json``), ``plan`` (the views and scales a frame is read at), ``finder``
(the detector's side), ``reader`` and ``looks`` (the classifier's side and its extra looks),
``confidence`` (which cards are reported), ``ink`` (the colour of an index's ink against its
suit's), ``memo`` (what is kept from one frame to the next),
``frame`` (one frame's state), ``helper`` (the helper thread), ``timing`` (what a reading did),
``images`` (the pictures taken), and ``recognizer``, which wires them::

    from tableref.vision.recognition import CardRecognizer, camera_preset, photo_preset

    camera = CardRecognizer(config=camera_preset())
    photo = CardRecognizer(config=photo_preset())
    cards = photo.recognize(image_bgr)          # list[DetectedCard], most confident first
    obs = camera.observe(frame_bgr, t=0.2)      # FrameObservation: the cards, the frame's sharpness
"""
from tableref.vision.recognition.images import ensure_bgr, sharpness
from tableref.vision.recognition.presets import (MachineSettings, RecognizerConfig, camera_preset, live_table_preset,
                                                 photo_preset)
from tableref.vision.recognition.recognizer import CardRecognizer
from tableref.vision.recognition.spec import ModelSpec, read_spec
from tableref.vision.recognition.timing import RecognitionStats
from tableref.vision.runtime import ModelError

__all__ = ["CardRecognizer", "RecognizerConfig", "MachineSettings", "camera_preset", "live_table_preset",
           "photo_preset", "RecognitionStats", "ModelSpec", "read_spec", "ModelError", "ensure_bgr", "sharpness"]
