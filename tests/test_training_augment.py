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


def test_a_pruned_slim_net_keeps_the_strongest_channels_and_loads(tmp_path):
    """``prune_state`` cuts a full checkpoint to the slim trunk: the channels with the largest
    batch-norm scale survive, the next convolution keeps the matching inputs, and the slim net
    (recognised from its weights) loads it and runs."""
    from tableref.training import classifier as C

    full = C.build_net(head="spatial")
    state = full.state_dict()
    state["0.1.weight"] = torch.arange(C.WIDTHS[0], dtype=torch.float32) - 5.0   # |gamma|: channel 23 largest
    slim_state = C.prune_state(state, C.SLIM_WIDTHS)
    assert C.widths_of(slim_state) == C.SLIM_WIDTHS and C.head_of(slim_state) == "spatial"
    kept = slim_state["0.1.weight"]
    assert len(kept) == C.SLIM_WIDTHS[0] and 18.0 in kept.tolist() and 0.0 not in kept.tolist()
    # block 1's convolution reads only the surviving channels of block 0
    order = torch.argsort(state["0.1.weight"].abs(), descending=True)[:C.SLIM_WIDTHS[0]].sort().values
    assert torch.equal(slim_state["1.0.weight"][:, :], state["1.0.weight"][:, order][
        torch.argsort(state["1.1.weight"].abs(), descending=True)[:C.SLIM_WIDTHS[1]].sort().values])
    torch.save({"model": slim_state}, tmp_path / "slim.pt")
    net = C.load_classifier(tmp_path / "slim.pt").eval()
    with torch.no_grad():
        p = C.to_probs(net(torch.rand(3, 3, C.SIZE, C.SIZE)))
    assert p.shape == (3, len(C.CLASS_NAMES)) and torch.allclose(p.sum(1), torch.ones(3), atol=1e-5)
    with pytest.raises(ValueError):
        C.prune_state(slim_state, C.WIDTHS)


def test_the_distillation_loss_is_the_kl_divergence_of_the_53_probabilities():
    """``log_probs`` is the log of ``to_probs``; the distillation loss is zero for a student that
    reads as its teacher does and grows as it reads otherwise."""
    from tableref.training import classifier as C

    z = torch.randn(5, C.N_HEAD) * 3
    assert torch.allclose(C.log_probs(z, torch).exp(), C.to_probs(z), atol=1e-6)
    assert float(C._distill_loss(z, z, torch)) == pytest.approx(0.0, abs=1e-6)
    near, far = z + 0.1 * torch.randn_like(z), -z
    assert 0 < float(C._distill_loss(near, z, torch)) < float(C._distill_loss(far, z, torch))


def test_camera_effects_change_the_given_share_of_crops_and_keep_their_range():
    """``--camera-effects``: the picked crops are softened (blur, coarser sensor, noise, JPEG...); the
    others stay as they were; the result stays a batch of 64x64 pictures in 0..1."""
    from tableref.training import classifier as C

    rng = np.random.default_rng(2)
    x = torch.zeros(64, 3, C.SIZE, C.SIZE)
    x[:, :, 20:44, 28:36] = 1.0                 # a sharp white bar on black
    assert C._camera_effects(x, rng, torch, 0.0) is x
    y = C._camera_effects(x, rng, torch, 0.5)
    assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1
    changed = (y - x).abs().amax(dim=(1, 2, 3)) > 0.02
    assert 16 <= int(changed.sum()) <= 48
    assert torch.equal(y[~changed], x[~changed])
    bar = torch.zeros(C.SIZE, C.SIZE, dtype=torch.bool)
    bar[20:44, 28:36] = True
    contrast = y[changed][:, :, bar].mean() - y[changed][:, :, ~bar].mean()
    assert float(contrast) < 0.9                # softened, dimmed or washed out: less contrast on average
