"""The recogniser's one helper thread: work of a frame done beside the detector and the classifier."""
from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor

from tableref.vision.recognition.timing import RecognitionStats


def _timed(work, *args, **kwargs) -> tuple:
    """``work(*args, **kwargs)`` (in the helper thread) and its CPU time there (ms)."""
    c0 = time.thread_time()
    result = work(*args, **kwargs)
    return result, (time.thread_time() - c0) * 1000


class HelperThread:
    """One worker thread, started on first use."""

    def __init__(self):
        self._pool: ThreadPoolExecutor | None = None

    def submit(self, work, *args, **kwargs) -> Future:
        """A job running ``work(*args, **kwargs)``; :func:`job_result` waits for it."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="tableref-helper")
        return self._pool.submit(_timed, work, *args, **kwargs)


def job_result(job: Future, stats: RecognitionStats):
    """The result of a job of :meth:`HelperThread.submit`, its CPU time counted in
    ``stats.cpu_ms_helpers``."""
    result, cpu = job.result()
    stats.cpu_ms_helpers += cpu
    return result
