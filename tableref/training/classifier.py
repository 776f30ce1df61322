"""Train the corner-index classifier (52 cards + ``none``) and export it to ONNX.

Training only: torch is imported inside the functions. The network is a small CNN
(:func:`build_net`, ~0.4 M parameters (0.45 M with the spatial head), ~20 M multiply-adds per crop) with a
factorised head (card-vs-none, rank, suit; :func:`to_probs` combines them) on 64×64 RGB crops cut by
``vision.crops.index_crop``; the ONNX model takes (N, 3, 64, 64) float32 RGB in 0..1
(``vision.crops.to_classifier_input``) and returns (N, 53) probabilities (softmax
inside), with a dynamic batch axis. Output order = ``CLASS_NAMES``.

Data: ``<data>/{train,val}/<class>/*.png`` (ultralytics classify layout, written by
``tableref dataset build``). Augmentation on the fly: 90° turns, small shifts,
brightness/contrast/colour, colour shifts that make ink colour unreliable (darkened red ink,
warm/cold white balance, hue/saturation, grey-scale; :func:`_colour_shift`), noise, blur;
never mirror images. With ``camera`` > 0 that share of the crops also goes through a real camera's
effects (:func:`_camera_effects`: defocus, motion blur, glare, dim and warm light, grey-scale, a
coarser sensor, sensor noise, JPEG; ``datasets/camera_effects.py``), and a teacher reads each crop
before them, so the net learns to read a soft picture as the teacher reads the sharp one.
Checkpoints: ``runs/classifier/last.pt`` every epoch (``--resume`` continues),
``runs/classifier/best.pt`` by validation accuracy.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tableref.models import MODELS_DIR

import cv2
import numpy as np

# The repository root (an editable install: models/ lies at its top; runs/ goes beside it).
ROOT = MODELS_DIR.parent
MODELS = MODELS_DIR
RUNS = ROOT / "runs"
CLASSIFIER_ONNX = "index_classifier.onnx"
# the slimmer classifier a camera's frames are read with (any widths narrower than WIDTHS;
# recognition.json "fast_file" and "fast_widths")
CLASSIFIER_FAST_ONNX = "index_classifier_fast.onnx"

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
CLASS_NAMES = [r + s for s in SUITS for r in RANKS] + ["none"]
SIZE = 64


def load_split(folder: Path, max_per_class: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All crops of one split as (N, 64, 64, 3) RGB uint8 and (N,) labels."""
    from tqdm import tqdm

    xs, ys = [], []
    for k, name in enumerate(tqdm(CLASS_NAMES, desc=f"load {folder.name}", leave=False)):
        d = folder / name
        files = sorted(d.glob("*.png")) + sorted(d.glob("*.jpg")) if d.is_dir() else []
        if max_per_class:
            files = files[:max_per_class]
        for f in files:
            img = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if img is None:
                continue
            if img.shape[:2] != (SIZE, SIZE):
                img = cv2.resize(img, (SIZE, SIZE), interpolation=cv2.INTER_AREA)
            xs.append(img[:, :, ::-1])
            ys.append(k)
    if not xs:
        raise FileNotFoundError(f"no crops under {folder} (run `tableref dataset build` first)")
    return np.stack(xs), np.array(ys, np.int64)


N_HEAD = 1 + len(RANKS) + len(SUITS)  # card-vs-none logit, 13 rank logits, 4 suit logits


HEADS = ("pool", "spatial")
FEATURES = 160                 # channels of the trunk's last feature map
HEAD_POSITIONS = 16            # the trunk's 4x4 feature map on a 64x64 crop
HEAD_KEY = "10.weight"         # the linear layer's weights in a state dict
# output channels of the trunk's six blocks before the last (which gives FEATURES)
WIDTHS = (24, 32, 48, 64, 96, 128)
# a slimmer trunk, about half the multiply-adds (16.7 M a crop instead of 31.9 M): pruned from a
# WIDTHS checkpoint (:func:`prune_state`) and taught by it (``train_classifier(teacher=...)``)
SLIM_WIDTHS = (16, 24, 32, 48, 64, 96)


def build_net(n_out: int = N_HEAD, head: str = "pool", widths: tuple[int, ...] = WIDTHS):
    """The trunk + a factorised head: [card logit, rank logits (13), suit logits (4)].

    Rank and suit are learnt separately (every seven of any suit teaches "7"), which
    needs about 4x fewer examples than 52 independent classes; :func:`to_probs` turns
    the head into the 53 class probabilities.

    ``head``: ``"pool"`` averages the trunk's 4x4 feature map before the linear layer (every
    position counts alike); ``"spatial"`` gives the linear layer each position (160x16 inputs),
    so it can tell the index in the middle of the crop from a neighbour's glyphs at its edge
    (a tight fan puts the next card's rank and suit inside the crop). A ``pool`` checkpoint
    loads into a ``spatial`` net as the same function (:func:`load_weights`).

    ``widths``: the output channels of the first six blocks (:data:`WIDTHS`, or the slimmer
    :data:`SLIM_WIDTHS`); the last block always gives FEATURES channels, so the head is the same.
    """
    import torch.nn as nn

    if head not in HEADS:
        raise ValueError(f"unknown classifier head {head!r}; one of {', '.join(HEADS)}")
    if len(widths) != 6 or min(widths) < 1:
        raise ValueError(f"the trunk needs six positive widths, not {widths!r}")
    w1, w2, w3, w4, w5, w6 = (int(w) for w in widths)

    def block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    return nn.Sequential(
        block(3, w1, 2),                            # 32
        block(w1, w2, 1), block(w2, w3, 2),         # 16
        block(w3, w4, 1), block(w4, w5, 2),         # 8
        block(w5, w6, 1), block(w6, FEATURES, 2),   # 4
        nn.AdaptiveAvgPool2d(1) if head == "pool" else nn.Identity(),
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(FEATURES if head == "pool" else FEATURES * HEAD_POSITIONS, n_out),
    )


def head_of(state: dict) -> str:
    """The head a checkpoint's weights were trained with."""
    w = state.get(HEAD_KEY)
    return "spatial" if w is not None and w.shape[1] == FEATURES * HEAD_POSITIONS else "pool"


def widths_of(state: dict) -> tuple[int, ...]:
    """The trunk widths a checkpoint's weights were trained with (:func:`build_net`)."""
    return tuple(int(state[f"{k}.0.weight"].shape[0]) for k in range(6))


def prune_state(state: dict, widths: tuple[int, ...]) -> dict:
    """A checkpoint's weights cut down to a slimmer trunk (``widths``): each block keeps the output
    channels whose batch-norm scale is largest (the ones the next layer listens to most), and the
    next convolution keeps the matching input channels. The last block and the head are kept whole.
    A start for a slim net that is then taught by the full one (``train_classifier(teacher=...)``)."""
    import torch

    old = widths_of(state)
    if any(w > o for w, o in zip(widths, old)):
        raise ValueError(f"cannot prune widths {old} to wider {tuple(widths)}")
    out = dict(state)
    keep_in = torch.arange(3)
    for k in range(7):
        w = state[f"{k}.0.weight"][:, keep_in]
        if k < 6:
            gamma = state[f"{k}.1.weight"].abs()
            keep = torch.sort(torch.argsort(gamma, descending=True)[:widths[k]]).values
        else:
            keep = torch.arange(w.shape[0])
        out[f"{k}.0.weight"] = w[keep].clone()
        for name in ("weight", "bias", "running_mean", "running_var"):
            out[f"{k}.1.{name}"] = state[f"{k}.1.{name}"][keep].clone()
        keep_in = keep
    return out


def read_state(path) -> dict:
    """The network weights (state dict) of a checkpoint written by :func:`train_classifier`."""
    import torch

    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def load_weights(net, path_or_state) -> None:
    """Load a checkpoint's weights (its path, or its :func:`read_state`) into ``net``.

    A ``pool`` checkpoint into a ``spatial`` net: each position gets the pooled weight / 16, so the
    net computes exactly what the checkpoint did and fine-tuning starts from there."""
    state = path_or_state if isinstance(path_or_state, dict) else read_state(path_or_state)
    if head_of(state) == "pool" and net[-1].weight.shape[1] == FEATURES * HEAD_POSITIONS:
        w = state[HEAD_KEY]                                      # (n_out, FEATURES)
        state = dict(state, **{HEAD_KEY: w.repeat_interleave(HEAD_POSITIONS, dim=1) / HEAD_POSITIONS})
    net.load_state_dict(state)


def average_checkpoints(first, second, share: float, out) -> Path:
    """Write to ``out`` a checkpoint whose weights are ``1 - share`` of ``first``'s and ``share`` of
    ``second``'s (the rest of the checkpoint: ``second``'s), and return ``out``. Two runs of one
    chain (a net fine-tuned from another) averaged so keep much of what each reads well: the
    fine-tuned net's new conditions and its start's photos. ValueError: the two nets differ in shape,
    or ``share`` is outside 0..1."""
    import torch

    if not 0.0 <= share <= 1.0:
        raise ValueError(f"the share must be 0..1, not {share}")
    a = torch.load(first, map_location="cpu", weights_only=False)
    b = torch.load(second, map_location="cpu", weights_only=False)
    sa, sb = a["model"], b["model"]
    if sa.keys() != sb.keys() or any(sa[k].shape != sb[k].shape for k in sa):
        raise ValueError(f"{first} and {second} are not the same network (widths or head differ)")
    mixed = {k: ((1.0 - share) * sa[k].double() + share * sb[k].double()).to(sb[k].dtype)
             if sb[k].is_floating_point() else sb[k] for k in sb}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({**{k: v for k, v in b.items() if k not in ("opt", "sched")}, "model": mixed,
                "averaged": {"first": str(first), "second": str(second), "share": share}}, out)
    return out


def load_classifier(path):
    """A network with the head of the checkpoint at ``path``, its weights loaded."""
    state = read_state(path)
    net = build_net(head=head_of(state), widths=widths_of(state))
    load_weights(net, state)
    return net


def to_probs(z):
    """Head output (N, 18) -> (N, 53) probabilities in ``CLASS_NAMES`` order (suit-major, then none)."""
    import torch

    p_card = torch.sigmoid(z[:, :1])
    pr = torch.softmax(z[:, 1:1 + len(RANKS)], dim=1)
    ps = torch.softmax(z[:, 1 + len(RANKS):], dim=1)
    cards = (ps[:, :, None] * pr[:, None, :]).reshape(z.shape[0], len(SUITS) * len(RANKS))
    return torch.cat([cards * p_card, 1.0 - p_card], dim=1)


def _loss(z, y, torch):
    """BCE for card-vs-none plus cross-entropies of rank and suit on the card crops."""
    none = len(CLASS_NAMES) - 1
    is_card = (y != none)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z[:, 0], is_card.float())
    if is_card.any():
        yc = y[is_card]
        zc = z[is_card]
        loss = loss + torch.nn.functional.cross_entropy(zc[:, 1:1 + len(RANKS)], yc % len(RANKS), label_smoothing=0.05)
        loss = loss + torch.nn.functional.cross_entropy(zc[:, 1 + len(RANKS):], yc // len(RANKS), label_smoothing=0.05)
    return loss


def log_probs(z, torch):
    """Head output (N, 18) -> log of :func:`to_probs` (N, 53), computed stably."""
    f = torch.nn.functional
    lr = f.log_softmax(z[:, 1:1 + len(RANKS)], dim=1)
    ls = f.log_softmax(z[:, 1 + len(RANKS):], dim=1)
    cards = (ls[:, :, None] + lr[:, None, :]).reshape(z.shape[0], len(SUITS) * len(RANKS))
    return torch.cat([cards + f.logsigmoid(z[:, :1]), f.logsigmoid(-z[:, :1])], dim=1)


def _distill_loss(z, zt, torch):
    """KL divergence from the teacher's 53 probabilities to the student's (what the pipeline reads:
    the student learns the teacher's confidence as well as its choice)."""
    lt = log_probs(zt, torch)
    return (lt.exp() * (lt - log_probs(z, torch))).sum(dim=1).mean()


def _augment(x, rng, torch):
    """x: (B, 3, 64, 64) float 0..1 -> augmented copy (no mirroring)."""
    b = x.shape[0]
    k = int(rng.integers(4))
    if k:
        x = torch.rot90(x, k, dims=(2, 3))
    # shift up to 5 px
    pad = 5
    xp = torch.nn.functional.pad(x, (pad, pad, pad, pad), mode="replicate")
    dx, dy = rng.integers(0, 2 * pad + 1, 2)
    x = xp[:, :, dy:dy + SIZE, dx:dx + SIZE]
    # scale 0.85..1.15 (resample)
    s = float(rng.uniform(0.85, 1.15))
    if abs(s - 1) > 0.03:
        n = max(8, int(round(SIZE * s)))
        y = torch.nn.functional.interpolate(x, size=(n, n), mode="bilinear", align_corners=False)
        if n >= SIZE:
            o = (n - SIZE) // 2
            x = y[:, :, o:o + SIZE, o:o + SIZE]
        else:
            p1 = (SIZE - n) // 2
            x = torch.nn.functional.pad(y, (p1, SIZE - n - p1, p1, SIZE - n - p1), mode="replicate")
    x = _colour_shift(x, rng, torch)
    g = torch.from_numpy(rng.uniform(0.6, 1.3, (b, 1, 1, 1)).astype(np.float32))
    c = torch.from_numpy(rng.uniform(0.9, 1.1, (b, 3, 1, 1)).astype(np.float32))
    o = torch.from_numpy(rng.uniform(-0.12, 0.12, (b, 1, 1, 1)).astype(np.float32))
    m = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - m) * g + m + o
    x = x * c
    noise = torch.from_numpy(rng.uniform(0, 0.05, (b, 1, 1, 1)).astype(np.float32))
    x = x + torch.randn_like(x) * noise
    if rng.random() < 0.3:  # blur
        w = torch.tensor([0.25, 0.5, 0.25])
        kern = (w[:, None] * w[None, :]).expand(3, 1, 3, 3).contiguous()
        x = torch.nn.functional.conv2d(torch.nn.functional.pad(x, (1, 1, 1, 1), mode="replicate"), kern, groups=3)
    return x.clamp(0, 1)


# a camera's effects on a crop (:func:`_camera_effects`): sizes are pixels of a 720-line frame
CAMERA_INDEX_PX = (20.0, 60.0)     # printed index heights in a 720p frame (log-uniform)
CAMERA_DEFOCUS = 2.2               # defocus sigma up to this
CAMERA_MOTION = 8.0                # motion blur up to this many pixels
INDEX_IN_CROP = SIZE / 1.3         # an index's height in a crop (vision.crops.index_crop, margin 0.15)


def _camera_crop(crop: np.ndarray, rng) -> np.ndarray:
    """One RGB crop (64, 64, 3) float32 0..255 as a real camera would have delivered it: the
    index is given a height in a 720p frame, the blur of a lens out of focus or of motion (in the
    frame's pixels), maybe a lamp's glare, dim and warm light or no colour, and then the frame's own
    sensor (720p, or a coarser 640x360 or finer 1080p one) with its noise and JPEG."""
    from tableref.datasets import camera_effects as ce

    img = np.ascontiguousarray(crop[:, :, ::-1])            # the effects take BGR
    index_px = float(np.exp(rng.uniform(*np.log(CAMERA_INDEX_PX))))
    k = INDEX_IN_CROP / index_px                             # crop pixels per frame pixel
    kind = rng.random()
    if kind < 0.45:
        img = ce.defocus(img, rng.uniform(0.4, CAMERA_DEFOCUS) * k)
    elif kind < 0.7:
        img = ce.motion_blur(img, rng.uniform(2.0, CAMERA_MOTION) * k, rng.uniform(0, 180))
    if rng.random() < 0.12:
        img = ce.glare(img, rng.uniform(0.1, 0.5), rng, strength=rng.uniform(0.3, 0.8))
    if rng.random() < 0.45:
        img = ce.light(img, rng.uniform(0.35, 1.05), rng.uniform(-0.3, 1.0))
    if rng.random() < 0.1:
        img = np.repeat(img.mean(axis=2, keepdims=True), 3, axis=2)
    sensor = rng.choice([1.0, 0.5, 1.5], p=[0.6, 0.3, 0.1])  # 720p, 640x360, 1080p
    f = min(1.0, index_px * sensor / INDEX_IN_CROP)
    n = max(6, int(round(SIZE * f)))
    small = cv2.resize(img, (n, n), interpolation=cv2.INTER_AREA) if n < SIZE else img
    small = ce.sensor_noise(small, rng.uniform(0.5, 6.0), rng)
    if rng.random() < 0.6:
        small = ce.jpeg(small, int(rng.integers(35, 92)))
    if n < SIZE:
        small = cv2.resize(small, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)
    return small[:, :, ::-1]


def _camera_effects(x, rng, torch, share: float):
    """x: (B, 3, 64, 64) float 0..1 -> a copy in which ``share`` of the crops went through a real
    camera's effects (:func:`_camera_crop`)."""
    picked = np.nonzero(rng.random(x.shape[0]) < share)[0]
    if len(picked) == 0:
        return x
    x = x.clone()
    arr = (x[picked].permute(0, 2, 3, 1).numpy() * 255.0).astype(np.float32)
    out = np.stack([_camera_crop(c, rng) for c in arr]).astype(np.float32) / 255.0
    x[picked] = torch.from_numpy(out).permute(0, 3, 1, 2)
    return x.clamp(0, 1)


def _colour_shift(x, rng, torch):
    """Make ink colour an unreliable cue, so suits are read by shape.

    Per crop: red ink printed or lit darker (maroon, brick: reddish pixels pulled towards
    black), warm / cold white balance, a hue rotation with saturation change (a random
    mix of the channels), or no colour at all (grey-scale). x: (B, 3, H, W) RGB 0..1.
    """
    b = x.shape[0]
    r, g, bl = x[:, 0:1], x[:, 1:2], x[:, 2:3]
    redness = ((r - torch.maximum(g, bl) - 0.15) / 0.3).clamp(0, 1)
    dark = torch.from_numpy((rng.random((b, 1, 1, 1)) < 0.25) * rng.uniform(0.3, 0.65, (b, 1, 1, 1))).float()
    x = x * (1.0 - dark * redness)
    # white balance: warm (tungsten) or cold casts
    wb = np.ones((b, 3), np.float32)
    kind = rng.random(b)
    warm = kind < 0.25
    wb[warm] = np.stack([rng.uniform(1.0, 1.2, warm.sum()), rng.uniform(0.8, 0.95, warm.sum()),
                         rng.uniform(0.5, 0.8, warm.sum())], 1)
    cold = (kind >= 0.25) & (kind < 0.35)
    wb[cold] = np.stack([rng.uniform(0.75, 0.95, cold.sum()), rng.uniform(0.95, 1.1, cold.sum()),
                         rng.uniform(1.05, 1.25, cold.sum())], 1)
    x = x * torch.from_numpy(wb)[:, :, None, None]
    # hue rotation + saturation: a mix of the channels around the grey axis
    m = np.tile(np.eye(3, dtype=np.float32), (b, 1, 1))
    grey = np.full((3, 3), 1 / 3, np.float32)
    for i in np.nonzero(rng.random(b) < 0.3)[0]:
        t = rng.uniform(-0.5, 0.5)   # radians of hue
        c, s_ = np.cos(t), np.sin(t)
        k = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], np.float32) / np.sqrt(3)
        rot = np.eye(3, dtype=np.float32) * c + (1 - c) * grey + s_ * k   # Rodrigues about (1,1,1)
        sat = rng.uniform(0.3, 1.4)
        m[i] = grey + sat * (rot - grey)
    greys = rng.random(b) < 0.15
    m[greys] = grey
    x = torch.einsum("bij,bjhw->bihw", torch.from_numpy(m), x)
    return x.clamp(0, 1)


def train_classifier(data: str, epochs: int = 20, batch: int = 128, lr: float = 3e-3, resume: bool = False,
                     name: str = "classifier", threads: int = 2, seed: int = 0, init: str | None = None,
                     head: str | None = None, widths: tuple[int, ...] | None = None,
                     teacher: str | None = None, distill: float = 0.8, camera: float = 0.0,
                     teacher_reads: str = "sharp", export: bool = True) -> dict:
    """Train (or resume) the classifier on ``data``, then export ONNX to models/. Returns a summary.

    ``init``: start from the weights of an earlier checkpoint with a fresh optimiser and LR schedule
    (fine-tuning for ``epochs`` more epochs); ``resume`` continues an interrupted run where it stopped.
    ``head``: ``pool`` or ``spatial`` (see :func:`build_net`; default: the head of ``init`` or of the
    run resumed, else ``pool``).
    ``widths``: the trunk's widths (:func:`build_net`; default: those of ``init`` or of the run
    resumed, else :data:`WIDTHS`); narrower than ``init``'s, its weights are pruned to them
    (:func:`prune_state`).
    ``teacher``: a checkpoint whose readings of the same augmented crops the net also learns
    (knowledge distillation): the loss is ``distill`` x the KL divergence from the teacher's 53
    probabilities + (1 - ``distill``) x the loss on the labels.
    ``camera``: the share of the crops (0..1) given a real camera's effects (:func:`_camera_effects`);
    ``teacher_reads``: ``"sharp"`` (the teacher reads those crops as they were before: the net learns
    to read a soft crop as the teacher reads the sharp one) or ``"camera"`` (the teacher reads what
    the net reads: the net learns the teacher's doubt on a soft crop too).
    ``export``: write the best weights to models/ at the end (False: the checkpoints only; export
    later with ``tableref train export classifier --weights runs/NAME/best.pt``).
    """
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    from tqdm import tqdm

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    data = Path(data)
    run_dir = RUNS / name
    run_dir.mkdir(parents=True, exist_ok=True)
    last, best = run_dir / "last.pt", run_dir / "best.pt"
    if init and not resume and not Path(init).exists():
        raise FileNotFoundError(f"initial weights {init} not found")
    if resume and not last.exists():
        raise FileNotFoundError(f"nothing to resume: {last} does not exist")
    if head is not None and head not in HEADS:
        raise ValueError(f"unknown classifier head {head!r}; one of {', '.join(HEADS)}")
    # the checkpoint is read once: its head decides the net's, its weights start it
    ck = torch.load(last, map_location="cpu", weights_only=False) if resume else None
    init_state = ck["model"] if resume else (read_state(init) if init else None)
    if teacher is None and resume:
        teacher, distill = ck.get("teacher"), ck.get("distill", distill)
    if teacher is not None and not Path(teacher).exists():
        raise FileNotFoundError(f"teacher weights {teacher} not found")
    if not 0.0 <= distill <= 1.0:
        raise ValueError(f"distill must lie in 0..1, not {distill}")
    if resume and camera == 0.0:
        camera, teacher_reads = ck.get("camera", 0.0), ck.get("teacher_reads", teacher_reads)
    if not 0.0 <= camera <= 1.0:
        raise ValueError(f"camera effects: the share of crops must lie in 0..1, not {camera}")
    if teacher_reads not in ("sharp", "camera"):
        raise ValueError(f"the teacher reads 'sharp' or 'camera' crops, not {teacher_reads!r}")
    if resume or widths is None:
        widths = widths_of(init_state) if init_state is not None else WIDTHS
    elif init_state is not None and tuple(widths) != widths_of(init_state):
        init_state = prune_state(init_state, tuple(widths))
    teacher_net = load_classifier(teacher).eval() if teacher else None

    xtr, ytr = load_split(data / "train")
    xva, yva = load_split(data / "val")
    print(f"classifier data: {len(ytr)} train, {len(yva)} val crops; "
          f"per class min {np.bincount(ytr, minlength=len(CLASS_NAMES)).min()}")
    xtr_t = torch.from_numpy(xtr).permute(0, 3, 1, 2).contiguous()   # uint8
    xva_t = torch.from_numpy(xva).permute(0, 3, 1, 2).contiguous()
    ytr_t, yva_t = torch.from_numpy(ytr), torch.from_numpy(yva)

    if init_state is not None and (resume or head is None):
        head = head_of(init_state)
    net = build_net(head=head or "pool", widths=tuple(widths))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    start, best_acc, history = 0, 0.0, []
    if resume:
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start, best_acc, history = ck["epoch"] + 1, ck.get("best_acc", 0.0), ck.get("history", [])
        epochs = max(epochs, ck.get("epochs", epochs))
        rng = np.random.default_rng(seed + start)
    elif init_state is not None:
        load_weights(net, init_state)
    steps_per_epoch = max(1, len(ytr) // batch)
    # a resumed run with the saved epoch count continues its one-cycle schedule; a longer one
    # (--epochs above the saved count) starts a new one-cycle over the remaining epochs
    # (OneCycleLR cannot be stretched)
    same_schedule = resume and "sched" in ck and ck.get("epochs") == epochs
    total = max(1, (epochs - start if resume and not same_schedule else epochs) * steps_per_epoch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=total, pct_start=0.1)
    if same_schedule:
        try:
            sched.load_state_dict(ck["sched"])
        except (KeyError, ValueError):
            pass
    t0 = time.time()
    for ep in range(start, epochs):
        net.train()
        perm = torch.from_numpy(rng.permutation(len(ytr)))
        tl, n = 0.0, 0
        bar = tqdm(range(steps_per_epoch), desc=f"epoch {ep + 1}/{epochs}", leave=False)
        for s in bar:
            idx = perm[s * batch:(s + 1) * batch]
            xb = _augment(xtr_t[idx].float() / 255.0, rng, torch)
            xs = _camera_effects(xb, rng, torch, camera) if camera else xb
            z = net(xs)
            loss = _loss(z, ytr_t[idx], torch)
            if teacher_net is not None:
                with torch.no_grad():
                    zt = teacher_net(xb if teacher_reads == "sharp" else xs)
                loss = (1.0 - distill) * loss + distill * _distill_loss(z, zt, torch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch < total - 1:
                sched.step()
            tl += loss.item() * len(idx)
            n += len(idx)
            bar.set_postfix(loss=f"{tl / n:.3f}")
        acc, card_acc, none_rec = evaluate(net, xva_t, yva_t, torch)
        history.append({"epoch": ep + 1, "loss": round(tl / max(n, 1), 4), "val_acc": round(acc, 4),
                        "val_card_acc": round(card_acc, 4), "val_none_recall": round(none_rec, 4),
                        "seconds": round(time.time() - t0, 1)})
        print(json.dumps(history[-1]), flush=True)
        ck = {"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": ep,
              "epochs": epochs, "best_acc": max(best_acc, acc), "history": history, "classes": CLASS_NAMES,
              "widths": tuple(widths), "teacher": teacher, "distill": distill, "camera": camera,
              "teacher_reads": teacher_reads}
        torch.save(ck, last)
        if acc >= best_acc:
            best_acc = acc
            torch.save(ck, best)
    load_weights(net, best if best.exists() else last)
    onnx_path = export_classifier(net) if export else None
    return {"onnx": str(onnx_path) if onnx_path else None, "best": str(best), "best_val_acc": best_acc, "history": history,
            "train_seconds": round(time.time() - t0, 1)}


def evaluate(net, x_u8, y, torch, batch: int = 512):
    """(accuracy, accuracy on card crops, recall of 'none') on uint8 NCHW tensors."""
    net.eval()
    preds = []
    with torch.no_grad():
        for i in range(0, len(y), batch):
            preds.append(to_probs(net(x_u8[i:i + batch].float() / 255.0)).argmax(1))
    p = torch.cat(preds)
    none = len(CLASS_NAMES) - 1
    acc = float((p == y).float().mean())
    cm = y != none
    card_acc = float((p[cm] == y[cm]).float().mean()) if cm.any() else 0.0
    nm = y == none
    none_rec = float((p[nm] == none).float().mean()) if nm.any() else 0.0
    return acc, card_acc, none_rec


def onnx_name(net) -> str:
    """The ONNX file a classifier exports to: the full one's, or the fast one's for narrower widths."""
    return CLASSIFIER_ONNX if widths_of(net.state_dict()) == WIDTHS else CLASSIFIER_FAST_ONNX


def export_classifier(net, out: Path | None = None, record: bool = True, also=()) -> Path:
    """Write the ONNX model (softmax included, dynamic batch) and record it in recognition.json.

    A full net becomes the classifier (``index_classifier.onnx``, "file"); a slimmer one the fast
    classifier a camera's frames are read with (``index_classifier_fast.onnx``, "fast_file"). Each
    export keeps the other's entry. ``record=False`` writes the file only (a candidate to try in a
    copy of the models folder). ``also``: more nets of the same widths read beside ``net``; the
    model's probabilities are then the mean of theirs (an ensemble: where the nets disagree, neither
    reading is sure)."""
    import torch
    from tableref.training.meta import load_meta, update_meta

    widths = widths_of(net.state_dict())
    fast = widths != WIDTHS
    if any(widths_of(m.state_dict()) != widths for m in also):
        raise ValueError("the nets of an ensemble must have the same widths")

    class WithSoftmax(torch.nn.Module):
        def __init__(self, m, others):
            super().__init__()
            self.m = m
            self.others = torch.nn.ModuleList(others)

        def forward(self, x):
            p = to_probs(self.m(x))
            if not len(self.others):
                return p
            return torch.stack([p] + [to_probs(o(x)) for o in self.others]).mean(dim=0)

    MODELS.mkdir(exist_ok=True)
    out = out or (MODELS / onnx_name(net))
    model = WithSoftmax(net, list(also)).eval()
    dummy = torch.zeros(2, 3, SIZE, SIZE)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(model, dummy, str(tmp), input_names=["images"], output_names=["probs"],
                      dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}}, opset_version=17,
                      dynamo=False)
    shutil.move(tmp, out)
    if not record:
        return out
    entry = dict(load_meta().get("classifier") or {})
    if fast:
        entry.update({"fast_file": out.name, "fast_widths": list(widths)})
    else:
        entry.update({"file": out.name, "imgsz": SIZE, "margin": 0.15, "names": CLASS_NAMES,
                      "input": "N,3,64,64 float32 RGB 0..1 (vision.crops.to_classifier_input)",
                      "output": "N,53 probabilities"})
    update_meta(classifier=entry)
    return out
