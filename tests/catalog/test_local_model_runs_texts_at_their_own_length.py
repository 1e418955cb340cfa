"""A long request and its short needs are not padded to one length: the model runs texts of
equal length together, and answers in input order with the vectors each text has alone."""
from __future__ import annotations

import multiprocessing
import multiprocessing.queues

import numpy as np

from toolcatalog.local_model import OnnxEncoder, ensure_export, length_runs

REQUEST = ("Enroll in the Advocacy Training Course with course ID RM3X9fowiAPT. Provide your name as Ana "
           "and your email as ana@example.org. Choose PayPal as your payment method.")
NEEDS = ["Enroll in the Advocacy Training Course with course ID RM3X9fowiAPT",
         "Provide your name as Ana and your email as ana@example.org",
         "Choose PayPal as your payment method"]


def test_texts_of_one_length_run_together_longest_first() -> None:
    assert length_runs([80, 20, 18, 20], batch_size=16) == [[0], [1, 3], [2]]
    assert length_runs([10, 10, 10], batch_size=2) == [[0, 1], [2]]
    assert length_runs([12], batch_size=16) == [[0]]
    assert length_runs([], batch_size=16) == []


def test_no_run_pads_a_text() -> None:
    lengths = [97, 5, 64, 33, 31, 30, 8, 8, 120, 7, 60, 59, 3, 8, 8, 8]
    runs = length_runs(lengths, batch_size=3)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    assert all(len({lengths[i] for i in run}) == 1 and len(run) <= 3 for run in runs)
    assert [lengths[run[0]] for run in runs] == sorted((lengths[run[0]] for run in runs), reverse=True)


def test_a_request_and_its_needs_get_the_vectors_each_has_alone() -> None:
    encoder = OnnxEncoder(ensure_export(), "int8")
    texts = [NEEDS[2], REQUEST, NEEDS[0], NEEDS[1]]  # not in length order: the answer keeps the input order
    together = encoder.encode(texts)
    alone = np.vstack([encoder.encode([text]) for text in texts])
    assert together.shape == (4, 384)
    assert np.min(np.sum(together * alone, axis=1)) > 0.99999


def test_runs_side_by_side_give_the_vectors_of_runs_one_after_another() -> None:
    texts = [NEEDS[1], REQUEST, *NEEDS, "book a table for two tonight at an Italian place near the station"]
    one_thread = OnnxEncoder(ensure_export(), "int8", threads=1)
    two_threads = OnnxEncoder(ensure_export(), "int8", threads=2)
    after_another = one_thread.encode(texts)
    side_by_side = two_threads.encode(texts)
    assert np.min(np.sum(after_another * side_by_side, axis=1)) > 0.99999
    assert one_thread._side_by_side is None  # a web worker's one thread never makes a second session
    assert two_threads._side_by_side is not None


def _encode_in_child(encoder: OnnxEncoder, texts: list[str], answers: multiprocessing.queues.Queue) -> None:
    answers.put(encoder.encode(texts))


def test_a_forked_process_runs_side_by_side_with_threads_of_its_own() -> None:
    """gunicorn and Celery fork: a child inherits the parent's pool object but none of its threads."""
    texts = [REQUEST, *NEEDS]
    encoder = OnnxEncoder(ensure_export(), "int8", threads=2)
    in_parent = encoder.encode(texts)
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=_encode_in_child, args=(encoder, texts, answers))
    child.start()
    try:
        in_child = answers.get(timeout=60)
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()
    assert np.min(np.sum(in_parent * in_child, axis=1)) > 0.99999
