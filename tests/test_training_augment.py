"""The classifier's colour augmentation: ink colour must stop being a reliable cue (suits by shape)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tableref.training.classifier import _augment, _colour_shift  # noqa: E402


def test_colour_shift_darkens_red_greys_and_keeps_range():
    x = torch.zeros(400, 3, 8, 8)
    x[:, 0] = 0.85            # pure red ink
    x[:, 1:] = 0.1
    y = _colour_shift(x.clone(), np.random.default_rng(0), torch)
    assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1
    red_left = y[:, 0] - torch.maximum(y[:, 1], y[:, 2])
    per_crop = red_left.mean(dim=(1, 2))
    assert (per_crop < 0.05).float().mean() > 0.08          # grey-scale crops: no redness left
    brightness = y.mean(dim=(1, 2, 3))
    assert (brightness < 0.8 * float(x.mean())).float().mean() > 0.1   # darkened red / dim crops
    assert (per_crop > 0.5).float().mean() > 0.3             # most crops stay reddish


def test_augment_batch_shape():
    x = torch.rand(16, 3, 64, 64)
    y = _augment(x, np.random.default_rng(1), torch)
    assert y.shape == (16, 3, 64, 64) and float(y.min()) >= 0 and float(y.max()) <= 1


def test_spatial_head_starts_as_the_pooled_checkpoint(tmp_path):
    """A pool checkpoint loaded into the spatial head computes the same probabilities; the head of a
    checkpoint is recognised from its weights (export and fine-tuning pick the right network)."""
    from tableref.training import classifier as C

    pool = C.build_net()
    torch.save({"model": pool.state_dict()}, tmp_path / "pool.pt")
    spatial = C.build_net(head="spatial")
    C.load_weights(spatial, tmp_path / "pool.pt")
    pool.eval()
    spatial.eval()
    x = torch.rand(4, 3, C.SIZE, C.SIZE)
    with torch.no_grad():
        assert torch.allclose(C.to_probs(pool(x)), C.to_probs(spatial(x)), atol=1e-5)
    torch.save({"model": spatial.state_dict()}, tmp_path / "spatial.pt")
    assert C.head_of(torch.load(tmp_path / "spatial.pt", weights_only=False)["model"]) == "spatial"
    again = C.load_classifier(tmp_path / "spatial.pt")
    assert again[-1].weight.shape[1] == 160 * C.HEAD_POSITIONS
    with pytest.raises(ValueError):
        C.build_net(head="attention")
