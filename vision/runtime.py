"""The recognition models on disk and their inference runtime.

``models/recognition.json`` names the committed ONNX files; :func:`int8_variant` finds a
quantised copy that still matches its source model; :class:`Network` runs a model
in an inference backend on the CPU: ONNX Runtime (the default) or OpenVINO where it was checked
to read the real photos as well (:func:`choose_backend`); the classifier of a camera's frames is
computed by OpenVINO in bfloat16 where the processor does that natively and it was checked to
read the real camera frames as well (:func:`classifier_bf16`), and its detector by OpenVINO in
float32 where that was checked to read the real camera frames alike (:func:`camera_detector_openvino`).
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np


def default_models_dir() -> Path:
    """The directory holding the committed models (the ``tableref.models`` data package), or the
    directory named by the environment variable ``TABLEREF_MODELS`` (other models to try, e.g. a
    candidate exported by ``tableref train export``, everywhere the committed ones are used)."""
    import os

    other = os.environ.get("TABLEREF_MODELS")
    if other:
        return Path(other)
    from tableref.models import MODELS_DIR

    return MODELS_DIR


# glibc's malloc: blocks this large (and larger) come from mmap, and freed memory above this is
# given back to the system (mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD)
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 256 << 20
_allocator_tuned = False


def keep_freed_memory() -> bool:
    """Let glibc keep the megabyte-sized arrays a frame allocates and frees (crops, classifier
    batches, remap tables) for the next frame, instead of mapping fresh pages for each: every
    fresh page costs a page fault, and in a virtual machine those made the same conversions
    2-3 times slower (a 720p table frame's non-network part 18 ms instead of 24 ms, measured).
    Once per process; False where the C library is not glibc (nothing changes there)."""
    global _allocator_tuned
    if _allocator_tuned:
        return True
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # glibc only
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    _allocator_tuned = bool(mallopt(m_mmap_threshold, MMAP_THRESHOLD)) and bool(mallopt(m_trim_threshold, TRIM_THRESHOLD))
    return _allocator_tuned


class ModelError(RuntimeError):
    """The recognition models are missing or do not match the expected contract."""


def file_sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def int8_variant(path: Path) -> Path | None:
    """``<stem>.int8.onnx`` beside ``path`` if it is a quantized copy of exactly this model.

    ``scripts/quantize_recognition.py`` writes the source model's SHA-256 into the
    quantized model's metadata; a stale copy (the model was retrained) is ignored.
    """
    q = path.with_name(path.stem + ".int8.onnx")
    if not q.exists() or not path.exists():
        return None
    try:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        meta = ort.InferenceSession(str(q), sess_options=opts, providers=["CPUExecutionProvider"]).get_modelmeta()
        src = meta.custom_metadata_map.get("source_sha256")
    except Exception:  # unreadable quantized file: fall back to the float model
        return None
    return q if src == file_sha256(path) else None


# which backends were checked to read the real photos as well as ONNX Runtime, for which model files
# (written by scripts/validate_backend.py; a retrained model is not covered until it is checked again)
VALIDATION_FILE = "backends.json"


def openvino_available() -> bool:
    """Whether the optional OpenVINO runtime (``pip install 'tableref[openvino]'``) is installed."""
    try:
        import openvino  # noqa: F401
    except ImportError:
        return False
    return True


def validated_backends(models_dir: Path, files: list[Path]) -> dict[str, str]:
    """{backend: when checked} for the backends ``backends.json`` records as checked on exactly these files."""
    import json

    try:
        spec = json.loads((Path(models_dir) / VALIDATION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    shas = {f.name: file_sha256(f) for f in files}
    for backend, entry in (spec.items() if isinstance(spec, dict) else []):
        models = entry.get("models") if isinstance(entry, dict) else None
        if isinstance(models, dict) and entry.get("passed") and models == shas:
            out[backend] = str(entry.get("checked", "?"))
    return out


def choose_backend(requested: str, models_dir: Path, files: list[Path]) -> tuple[str, str]:
    """(backend, why): ``requested`` ("auto", "onnxruntime" or "openvino"); "auto" takes OpenVINO only
    where it is installed and was checked on these very model files, else ONNX Runtime."""
    if requested == "onnxruntime":
        return "onnxruntime", "asked for"
    if requested == "openvino":
        if not openvino_available():
            raise ModelError("OpenVINO is not installed (pip install 'tableref[openvino]')")
        return "openvino", "asked for"
    if requested != "auto":
        raise ModelError(f"unknown backend {requested!r} (auto, onnxruntime, openvino)")
    if not openvino_available():
        return "onnxruntime", "OpenVINO not installed"
    checked = validated_backends(models_dir, files)
    if "openvino" in checked:
        return "openvino", f"checked on these model files {checked['openvino']}"
    return "onnxruntime", "OpenVINO not checked on these model files (scripts/validate_backend.py)"


# the entry of backends.json that records the check of the classifier computed by OpenVINO in
# bfloat16 against ONNX Runtime in float32, on a camera's frames (scripts/validate_backend.py
# --classifier-bf16)
CLASSIFIER_BF16 = "openvino-bf16-classifier"


@functools.lru_cache(maxsize=1)
def bf16_native() -> bool:
    """Whether OpenVINO is installed and this processor computes bfloat16 natively (AVX-512 BF16 or
    AMX: OpenVINO lists ``BF16`` among the CPU's optimisation capabilities); elsewhere OpenVINO
    would emulate it, slower than float32. Asked once."""
    try:
        import openvino as ov

        return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception:  # not installed, or the runtime cannot see the CPU: float32
        return False


# bfloat16 is taken where it runs the classifier in at most this share of float32's time (it reads
# alike where checked, but float32 is the reference)
BF16_PAYS = 0.9
# the batch timed to tell (``classify_batch``: a 720p table frame's crops come in batches this big
# and smaller), and the runs of each precision timed, one of each in turn, after one of each unseen
BF16_TIMED_BATCH, BF16_TIMED_RUNS = 64, 5


def bf16_pays(classifier: Path, threads: int, other: str) -> tuple[bool, str]:
    """(whether bfloat16 computes the classifier faster here, how it was measured): the classifier
    compiled by OpenVINO in bfloat16 and loaded in ``other`` (the backend of float32) in float32,
    each timed on a batch of ``BF16_TIMED_BATCH`` crops, in turn, ``BF16_TIMED_RUNS`` times; bfloat16
    is taken where its fastest run takes at most ``BF16_PAYS`` of float32's. A processor that computes
    bfloat16 natively may still run it slower than float32 (an Intel Xeon family 6 model 207 with
    AVX-512 BF16 and no AMX: 28 against 19 ms for 64 crops; a model 167: half float32's time), so it
    is measured once a process for each classifier file and backend, on the threads of the first
    recogniser of a camera's frames to ask (about 0.5 s as it loads; the live table's still looks,
    on one thread, take its answer)."""
    import time

    key = (Path(classifier).resolve(), other)
    if key in _BF16_MEASURED:
        return _BF16_MEASURED[key]

    nets = {"bfloat16": Network(classifier, threads, "openvino", bf16=True), "float32": Network(classifier, threads, other)}
    shape = [BF16_TIMED_BATCH] + [d if isinstance(d, int) else 1 for d in nets["float32"].input_shape[1:]]
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    times: dict[str, list[float]] = {k: [] for k in nets}
    for k in range(BF16_TIMED_RUNS + 1):
        for name, net in nets.items():
            t0 = time.perf_counter()
            net.run(x)
            if k:
                times[name].append((time.perf_counter() - t0) * 1000)
    # the fastest run of each: other work on the machine only ever slows a run down
    bf16, f32 = (min(times[k]) for k in ("bfloat16", "float32"))
    answer = _BF16_MEASURED[key] = (bf16 <= BF16_PAYS * f32, f"{bf16:.0f} against {f32:.0f} ms for {BF16_TIMED_BATCH} crops")
    if answer[0]:
        # the network compiled in bfloat16 to time it is the first recogniser's (take_timed_bf16)
        _BF16_TIMED[(key[0], threads)] = nets["bfloat16"]
    return answer


_BF16_MEASURED: dict[tuple[Path, str], tuple[bool, str]] = {}     # bf16_pays's answers in this process
_BF16_TIMED: dict[tuple[Path, int], "Network"] = {}     # bfloat16 networks timed and not yet taken


def take_timed_bf16(classifier: Path, threads: int) -> "Network | None":
    """The bfloat16 network :func:`bf16_pays` compiled to time ``classifier`` on ``threads`` threads,
    handed over once (its infer request is then that caller's alone, never shared between threads);
    None where there is none (float32 won, or it was taken)."""
    return _BF16_TIMED.pop((Path(classifier).resolve(), threads), None)


def classifier_bf16(wanted: str, backend: str, models_dir: Path, classifier: Path, threads: int = 2,
                    other: str = "onnxruntime") -> tuple[bool, str]:
    """(whether the classifier runs in bfloat16, why). ``wanted`` (``RecognizerConfig.classifier_bf16``):
    "off"; "on" (a ModelError where this processor does not compute bfloat16 natively,
    :func:`bf16_native`); "auto": only where the backend is not ONNX Runtime by request, the
    processor computes bfloat16 natively, ``backends.json`` records the check passed on this very
    classifier file (``CLASSIFIER_BF16``) and bfloat16 runs it faster here than float32 in
    ``other`` on ``threads`` threads (:func:`bf16_pays`)."""
    if wanted not in ("auto", "on", "off"):
        raise ModelError(f"unknown classifier precision {wanted!r} (auto, on, off)")
    if wanted == "off":
        return False, "float32 (these settings)"
    if wanted == "on":
        if not bf16_native():
            raise ModelError("bfloat16 asked for, but OpenVINO is not installed or this processor does not "
                             "compute bfloat16 natively")
        return True, "bfloat16 (OpenVINO, asked for)"
    if backend == "onnxruntime":
        return False, "float32 (ONNX Runtime asked for)"
    if not bf16_native():
        return False, "float32 (no native bfloat16 here)" if openvino_available() else "float32 (OpenVINO not installed)"
    if CLASSIFIER_BF16 not in validated_backends(models_dir, [classifier]):
        return False, "float32 (bfloat16 not checked, or not passed, on this classifier: scripts/validate_backend.py --classifier-bf16)"
    faster, timed = bf16_pays(Path(classifier), threads, other)
    if not faster:
        return False, f"float32 (bfloat16 measured no faster on this processor: {timed})"
    return True, f"bfloat16 (OpenVINO; measured faster on this processor: {timed})"


# the entry of backends.json that records the check of the detector run by OpenVINO (float32) against
# ONNX Runtime on a camera's frames (scripts/validate_backend.py --camera-detector)
CAMERA_DETECTOR = "openvino-camera-detector"


def camera_detector_openvino(wanted: str, requested: str, backend: str, models_dir: Path,
                             detector: Path) -> tuple[bool, str]:
    """(whether the detector runs in OpenVINO, why), for a backend ``backend`` chosen by
    :func:`choose_backend` from ``requested``. ``wanted`` (``RecognizerConfig.detector_openvino``):
    "off" (the chosen backend); "on" (OpenVINO: a ModelError where it is not installed); "auto":
    OpenVINO where it is the chosen backend, or where the backend was not asked for by name, OpenVINO
    is installed and ``backends.json`` records the camera check passed on this very detector file
    (``CAMERA_DETECTOR``)."""
    if wanted not in ("auto", "on", "off"):
        raise ModelError(f"unknown detector runtime {wanted!r} (auto, on, off)")
    if backend == "openvino":
        return True, "OpenVINO"
    if wanted == "off":
        return False, "ONNX Runtime"
    if wanted == "on":
        if not openvino_available():
            raise ModelError("OpenVINO asked for, but it is not installed")
        return True, "OpenVINO for the input sizes that repeat (asked for)"
    if requested == "onnxruntime":
        return False, "ONNX Runtime (asked for)"
    if not openvino_available():
        return False, "ONNX Runtime (OpenVINO not installed)"
    if CAMERA_DETECTOR not in validated_backends(models_dir, [detector]):
        return False, "ONNX Runtime (OpenVINO not checked on this detector's camera frames: " \
                      "scripts/validate_backend.py --camera-detector)"
    return True, "OpenVINO for the input sizes that repeat, ONNX Runtime for the others (checked on a camera's frames)"


class Network:
    """One model loaded in a backend: ``run(x)`` gives its first output for one float32 input.

    :meth:`image_blob` turns a BGR uint8 picture into the input of a model that takes images
    (float32 NCHW RGB 0..1), converted outside the model. (Converting it inside OpenVINO's compiled model saved ~15 %
    of the detector's CPU time but, in bfloat16, cost one false card on the real photos:
    not used.)
    """

    def __init__(self, path: Path, threads: int, backend: str = "onnxruntime", bf16: bool = False,
                 fixed_sizes: bool = False, compile_beside: bool = True):
        self.path = Path(path)
        self.backend = backend
        self.threads = threads
        if bf16 and backend != "openvino":
            raise ModelError("bfloat16 is computed by OpenVINO only")
        self.bf16 = bf16
        # OpenVINO for the sizes that repeat: the model is run by ONNX Runtime, and an input size met
        # FIXED_AFTER times gets a copy compiled by OpenVINO for that very size (``FIXED_SIZES`` of
        # them at most), compiled in a helper thread (one size after another) while ONNX Runtime goes
        # on running it. A fixed camera's views repeat, and OpenVINO runs a size compiled for it
        # faster than ONNX Runtime (the detector on a 720p frame's main view: 38 instead of 52 ms in
        # a live session); a
        # size met for the first time costs it 50-150 ms more than ONNX Runtime, and compiling one
        # about 0.3 s, so the sizes met a few times only (a view being chosen, the enlarged
        # tiles, which ONNX Runtime runs two side by side) stay with ONNX Runtime. ``compile_beside``
        # False: compiled before the run that asks for it (the same runs in the same runtime every
        # time: the check of scripts/validate_backend.py).
        self.fixed_sizes = fixed_sizes and backend == "openvino"
        self.compile_beside = compile_beside
        self._fixed: dict[tuple, object] = {}      # size -> its compiled copy's request
        self._met: dict[tuple, int] = {}           # size -> runs of it before its copy was asked for
        self._compiles: dict[tuple, object] = {}   # size -> its compile (a Future), one after another
        self._compiler = None
        self._blobs: dict[tuple[int, int], np.ndarray] = {}
        self._solo = None       # a one-thread copy of the session and a worker per run side by side (map_side_by_side)
        self._workers = None
        try:
            if self.fixed_sizes:
                self._load_onnxruntime(threads)
                self._load_sized_openvino(threads)
            elif backend == "openvino":
                self._load_openvino(threads)
            else:
                self._load_onnxruntime(threads)
        except ModelError:
            raise
        except Exception as exc:  # the runtimes raise their own exception types
            raise ModelError(f"cannot load model {path} in {backend}: {exc}") from exc

    def _load_onnxruntime(self, threads: int) -> None:
        sess = self._onnxruntime_session(threads)
        inp = sess.get_inputs()[0]
        self.input_name, self.input_shape = inp.name, list(inp.shape)
        self._run = lambda x: sess.run(None, {inp.name: x})[0]
        self.session = sess

    def _onnxruntime_session(self, threads: int):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # worker threads sleep after a run instead of spinning: the crops, assembly and tracking
        # between runs share the same two cores (spinning doubled the classifier's CPU time)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        return ort.InferenceSession(str(self.path), sess_options=opts, providers=["CPUExecutionProvider"])

    def _openvino_config(self, threads: int) -> dict:
        # float32 unless asked (OpenVINO would take bfloat16 by itself on a processor with AMX)
        return {"INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
                "INFERENCE_PRECISION_HINT": "bf16" if self.bf16 else "f32"}

    def _load_openvino(self, threads: int) -> None:
        import openvino as ov

        core = ov.Core()
        model = core.read_model(str(self.path))
        inp = model.inputs[0]
        self.input_name = inp.get_any_name()
        self.input_shape = [d.get_length() if d.is_static else d.to_string() for d in inp.get_partial_shape()]
        compiled = core.compile_model(model, "CPU", self._openvino_config(threads))
        request = compiled.create_infer_request()

        def run(x):
            # the input is read where it lies, not copied first (a 720p frame's enlarged view: 9 MB;
            # the run is synchronous, so nothing changes it meanwhile)
            request.infer({0: x}, share_inputs=True)
            return request.get_output_tensor(0).data.copy()

        self._run = run
        self.session = compiled

    def _load_sized_openvino(self, threads: int) -> None:
        """``fixed_sizes``: ONNX Runtime runs the model (loaded before), OpenVINO the sizes compiled."""
        from concurrent.futures import ThreadPoolExecutor

        import openvino as ov

        core, config, by_onnxruntime = ov.Core(), self._openvino_config(threads), self._run

        def compile_for(shape: tuple) -> None:
            try:
                sized = core.read_model(str(self.path))
                sized.reshape(list(shape))
                self._fixed[shape] = core.compile_model(sized, "CPU", config).create_infer_request()
            except Exception:       # noqa: BLE001 - the size stays with ONNX Runtime
                pass

        def run(x):
            request = self._fixed.get(x.shape)
            if request is not None:
                request.infer({0: x}, share_inputs=True)
                return request.get_output_tensor(0).data.copy()
            if x.shape not in self._compiles:
                met = self._met[x.shape] = self._met.get(x.shape, 0) + 1
                if met >= FIXED_AFTER and len(self._compiles) < FIXED_SIZES:
                    if self._compiler is None:
                        self._compiler = ThreadPoolExecutor(1, thread_name_prefix="tableref-compile")
                    job = self._compiles[x.shape] = self._compiler.submit(compile_for, x.shape)
                    if not self.compile_beside:
                        job.result()
                        return run(x)
            return by_onnxruntime(x)

        self._run = run

    def settle(self) -> None:
        """Wait for the sizes being compiled (``fixed_sizes``), so that the next run of each uses its copy."""
        for job in list(self._compiles.values()):
            job.result()

    @property
    def runtime(self) -> str:
        """Which runtime runs it, in words: "onnxruntime", "openvino", or "onnxruntime (openvino for
        the sizes that repeat)" (``fixed_sizes``)."""
        return "onnxruntime (openvino for the sizes that repeat)" if self.fixed_sizes else self.backend

    def run(self, x: np.ndarray) -> np.ndarray:
        return self._run(x)

    @property
    def side_by_side(self) -> int:
        """How many runs :meth:`map_side_by_side` puts side by side: two where ONNX Runtime runs
        them (also with ``fixed_sizes``) on at least two threads, else one (they go one after the other)."""
        return 2 if (self.backend == "onnxruntime" or self.fixed_sizes) and self.threads >= 2 else 1

    def map_side_by_side(self, work, items: list) -> list:
        """``work(run, slot, item)`` for each of ``items`` (in order), where ``run(x)`` is :meth:`run`.

        With several items and :attr:`side_by_side` two, they go side by side in worker threads
        (at most two items a call), each with a one-thread copy of the model: the same outputs, bit
        for bit, in less time. A small network divides one run between two cores badly (the
        detector on a 720p frame: 27 ms on one thread, 21 ms on two), and whatever ``work`` does
        around its run (converting the input before it, decoding the output after it) goes side by
        side too. Else they run one after the other in this thread. ``slot``: the item's position in
        the call, so that items run together keep their buffers apart (:meth:`image_blob`)."""
        if self.side_by_side < 2 or len(items) < 2:
            return [work(self.run, 0, item) for item in items]
        if len(items) > self.side_by_side:
            raise ValueError(f"at most {self.side_by_side} items side by side, not {len(items)}")
        if self._solo is None:
            from concurrent.futures import ThreadPoolExecutor

            sess = self._onnxruntime_session(1)
            name = self.input_name
            self._solo = lambda x: sess.run(None, {name: x})[0]
            self._workers = ThreadPoolExecutor(self.side_by_side, thread_name_prefix="tableref-net")
        jobs = [self._workers.submit(work, self._solo, slot, item) for slot, item in enumerate(items)]
        return [job.result() for job in jobs]

    def image_blob(self, image: np.ndarray, slot: int = 0) -> np.ndarray:
        """One BGR uint8 picture (H, W, 3) as the model's float32 NCHW RGB 0..1 input.

        The colour planes are split apart by OpenCV and each scaled into its place, into a buffer
        kept for the next picture of this size (a new 20 MB array per enlarged 720p view cost more
        in page faults than the conversion itself): the values of ``cv2.dnn.blobFromImage`` (each
        pixel times 1/255 in float32), in 0.4 instead of 0.7 ms for a 640×384 view. The blob is
        valid until the next call with the same ``slot`` and picture size (pictures converted to
        be run together take different slots).
        """
        import cv2

        h, w = image.shape[:2]
        buf = self._blobs.get((h, w, slot))
        if buf is None:
            if len(self._blobs) >= 4:
                self._blobs.clear()
            buf = self._blobs[(h, w, slot)] = np.empty((1, 3, h, w), np.float32)
        planes = cv2.split(image)
        for c in range(3):      # RGB from BGR
            np.multiply(planes[2 - c], _PIXEL_SCALE, out=buf[0, c], dtype=np.float32)
        return buf


# input sizes an OpenVINO network keeps a copy compiled for (``Network(fixed_sizes=True)``), each
# once it has met that size FIXED_AFTER times
FIXED_SIZES, FIXED_AFTER = 4, 3

# a pixel value's scale in the image models' input (as OpenCV's blobFromImage applies 1/255: in float32)
_PIXEL_SCALE = np.float32(1.0 / 255.0)
