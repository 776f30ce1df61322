"""Trained weights (ONNX) and their model card. See models/MODEL_CARD.md."""
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
