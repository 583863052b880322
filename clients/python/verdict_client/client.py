"""The client of a verdict server's HTTP API (``verdict serve``)."""

from __future__ import annotations

import json
import numbers
import os
import platform
import uuid
from collections.abc import Mapping
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import bodies
from ._version import __version__
from .errors import VerdictError
from .transport import Body, Transport

# A query parameter's value: None leaves it out, a list repeats it.
QueryValue = Union[None, str, int, float, bool, Sequence[Union[str, int, float]]]

# A run or an evaluation: a run's name (with an experiment), or an
# evaluation's ID (without one).
RunRef = Union[str, int]

# A repeated query parameter: one string, or several.
Strs = Union[None, str, Sequence[str]]

# Key-values (param, meta): a dict, its values sent as JSON so that the
# server keeps their types; or "KEY=VALUE" strings, sent as they are.
KeyValues = Union[None, Mapping[str, Any], str, Sequence[str]]

# A run's tags: a mapping of key to value, or "KEY=VALUE" strings (one or a
# list), where a bare "KEY" is KEY=true.
Tags = Union[None, Mapping[str, Any], str, Sequence[str]]

# The answer of GET /api/v1/compare, POST /api/v1/compare: one result per
# metric, keyed by the metric.
Comparison = Dict[str, Dict[str, Any]]


class Client:
    """A client of a verdict server.

    ``url`` (e.g. ``https://verdict.example.com``) and ``token`` (made with
    ``verdict token create``) default to the environment variables
    VERDICT_URL and VERDICT_TOKEN. A writer token may log and record
    comparisons; a reader token only read.

    ``timeout`` is how many seconds a connection may stay silent while
    connecting, sending or waiting for the answer; a large log can take the
    server minutes, so it is generous. ``retries`` is how many times a
    request is sent again after a connection error (refused, reset, timed
    out), with pauses that double from ``backoff`` seconds. A request is
    retried only when that cannot act twice: when it never reached the
    server whole, or when it is a read, or a log (every log carries an
    idempotency key, generated when none is given, so that a retry returns
    the evaluation the first attempt stored). An answer of 4xx is never
    retried.

    Every answer that is not 2xx raises VerdictError, with the status and
    the server's error code and message.

    Each request uses its own connection: a Client may be shared between
    threads.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 300.0,
        retries: int = 3,
        *,
        backoff: float = 0.5,
    ) -> None:
        url = url or os.environ.get("VERDICT_URL")
        token = token or os.environ.get("VERDICT_TOKEN")
        if not url:
            raise VerdictError(
                "no server URL: pass url= to Client, or set VERDICT_URL (e.g. http://localhost:8080)",
                code="no_url",
            )
        if not token:
            raise VerdictError(
                "no token: pass token= to Client, or set VERDICT_TOKEN "
                "(make one on the server with: verdict token create --name NAME --role writer)",
                code="no_token",
            )
        self.url: str = url.rstrip("/")
        self._token = token.strip()
        self._transport = Transport(
            self.url,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            user_agent=f"verdict-client/{__version__} python/{platform.python_version()}",
        )

    def __repr__(self) -> str:
        return f"Client(url={self.url!r})"  # never the token

    # -- requests -------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        query: Iterable[Tuple[str, QueryValue]] = (),
        *,
        body: Optional[Body] = None,
        headers: Optional[Dict[str, str]] = None,
        idempotent: Optional[bool] = None,
        auth: bool = True,
    ) -> Any:
        """Sends a request and returns its decoded JSON answer, or raises
        VerdictError."""
        h = dict(headers or {})
        if auth:
            h["Authorization"] = "Bearer " + self._token
        if idempotent is None:
            idempotent = method == "GET" or "Idempotency-Key" in h
        try:
            resp = self._transport.request(method, path, _query(query), h, body, idempotent=idempotent)
        finally:
            if body is not None:
                body.close()
        if not 200 <= resp.status < 300:
            raise resp.error()
        try:
            return resp.json()
        except ValueError as e:
            raise VerdictError(
                f"the answer of {method} {path} is not JSON: {resp.data[:200]!r}", status=resp.status, code="bad_answer"
            ) from e

    # -- logging --------------------------------------------------------

    def log(
        self,
        experiment: str,
        run: str,
        eval_set: str,
        per_user: Any,
        param: KeyValues = None,
        tag: Tags = None,
        lower_is_better: Strs = None,
        idempotency_key: Optional[str] = None,
        meta: KeyValues = None,
        git_commit: Optional[str] = None,
        target_fingerprint: Optional[str] = None,
        *,
        protocol: Optional[str] = None,
        required_k: Optional[int] = None,
        folds: Optional[int] = None,
        repeats: Optional[int] = None,
        n_train: Optional[int] = None,
        n_test: Optional[int] = None,
        aggregates_only: Optional[bool] = None,
        predictions: Optional[bool] = None,
        threshold: Optional[float] = None,
        bins: Optional[int] = None,
        labels: Any = None,
        step: Optional[int] = None,
        group: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Logs an evaluation: each unit's metric values, from which the
        server computes the aggregates (POST /api/v1/evaluations).

        ``per_user`` is one of:

        - a dict of sample ID → {metric: value}, e.g.
          ``{"u1": {"ndcg@10": 0.5}, "u2": {"ndcg@10": 0.25}}``, every
          sample with the same metrics; a key may be a (sample ID, draw)
          pair for a sample scored several times. It is sent as NDJSON,
          encoded as it streams out, so memory never holds the body whole;
        - a dict of columns, ``{"sample_id": ids, "ndcg@10": values, ...}``,
          of lists (sent as NDJSON) or NumPy arrays (sent as NPZ);
        - a pandas DataFrame with a sample_id column, or with the sample IDs
          as its index, and one numeric column per metric (sent as NPZ);
        - a NumPy structured array with a sample_id field (sent as NPZ).

        With ``predictions=True``, the values are a classifier's
        predictions instead, e.g. ``{"u1": {"label": 1, "score": 0.8}}``
        (binary) or a ``label`` and one ``p_<class>`` per class
        (multi-class), and the server computes the metrics; ``threshold``
        (default 0.5 on the server) makes a binary prediction positive,
        ``bins`` (default 10) are the bins of the calibration error.

        Sample IDs are strings or integers. A NaN, an infinity, a missing
        value or a sample ID given twice is refused by the server: status
        422, with a message that names the line (or row) and the sample.

        The other arguments are the API's query parameters, by the same
        names: ``param`` the run's parameters (a dict of any JSON values, or
        "KEY=VALUE" strings), ``tag`` its tags (a dict of key → value,
        e.g. ``{"team": "recsys", "nightly": True}``, or "KEY=VALUE"
        strings, a bare "KEY" being KEY=true), ``lower_is_better`` the
        metrics for which lower is better, ``meta`` the evaluation's own
        key-values (like ``param``), ``git_commit`` the run's commit,
        ``target_fingerprint`` the targets' SHA-256 (see ``verdict
        fingerprint``). ``protocol`` (holdout, kfold, repeated_kfold, 5x2)
        and the counts after it describe the evaluation protocol, as
        ``verdict log`` takes them. ``aggregates_only`` stores the means and
        counts but not the per-unit values (such an evaluation cannot be
        compared). A repeated parameter takes a string or a list. None (the
        default) leaves a parameter out, so that the server's default holds.

        ``step`` is the point of training the evaluation was taken at (an
        epoch, a global step, a build number): ``"RUN@STEP"`` then names
        it wherever a run is named (compare, diff, ...), while the run
        alone is still its newest evaluation. A run has one evaluation per
        evaluation set and step: the same step again with other content
        raises VerdictError with status 409 and code ``conflict``.

        A run's params are fixed once logged: a param the run already has,
        given another value (0.1 and 0.10 are the same), raises
        VerdictError with status 409 and code ``conflict``, naming the
        param and both values, and nothing is stored; new params may be
        added. Tags are labels, and change: a new value replaces the old.

        ``labels`` are the samples' 0/1 labels, recorded with the
        evaluation set (for DeLong's test of correlated AUCs): a dict (or a
        pandas Series) of sample ID → 0 or 1, or the path of a CSV file
        with the columns sample_id and label. The body is then
        multipart/form-data, with the parts scores and labels.

        ``idempotency_key`` names this log and its content: a second log
        with the same key (for the same run) and the same content stores
        nothing and returns the first evaluation, with ``existing`` true;
        one with other content (values, parameters, tags) raises
        VerdictError with status 409 and code ``conflict``, and stores
        nothing. Make keys unique to the content (include a hash of it).
        When none is given, one is made for this call, so that the client's
        own retries never store twice.

        Returns the server's answer: evaluation_id, existing, experiment,
        run, evaluation_set, n_rows, n_units, metrics, aggregates,
        fingerprint, ...
        """
        query = _run_query(experiment, run, eval_set, param, tag, meta, git_commit, step, group) + _log_query(
            target_fingerprint, lower_is_better, protocol, required_k, folds, repeats, n_train, n_test,
            aggregates_only, predictions, threshold, bins,
        )
        # The body's Content-Type (or the scores part's) tells the server
        # its format: NDJSON or NPZ, as scores_body encodes per_user.
        body = bodies.log_body(bodies.scores_body(per_user), None, labels)
        return self._call("POST", "/api/v1/evaluations", query, body=body, headers=_key(idempotency_key))

    def log_file(
        self,
        experiment: str,
        run: str,
        eval_set: str,
        path: Union[str, "os.PathLike[str]"],
        input_format: Optional[str] = None,
        param: KeyValues = None,
        tag: Tags = None,
        lower_is_better: Strs = None,
        idempotency_key: Optional[str] = None,
        meta: KeyValues = None,
        git_commit: Optional[str] = None,
        target_fingerprint: Optional[str] = None,
        *,
        protocol: Optional[str] = None,
        required_k: Optional[int] = None,
        folds: Optional[int] = None,
        repeats: Optional[int] = None,
        n_train: Optional[int] = None,
        n_test: Optional[int] = None,
        aggregates_only: Optional[bool] = None,
        predictions: Optional[bool] = None,
        threshold: Optional[float] = None,
        bins: Optional[int] = None,
        labels: Any = None,
        step: Optional[int] = None,
        group: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Logs an evaluation from a scores file a job already wrote, in any
        format ``verdict log`` reads: CSV, TSV, NDJSON (JSON Lines), Parquet
        or NPZ, the text ones gzipped or not (with ``predictions=True``, a
        classifier's predictions). The file is streamed as it is, never
        held in memory. ``input_format`` is csv, tsv, jsonl (ndjson),
        parquet or npz; when not given, the body's Content-Type says the
        format the file's name tells (``scores.csv.gz`` is csv). The other
        arguments are ``log``'s.
        """
        path = os.fspath(path)
        fmt = input_format or _file_format(path)
        if fmt is None:
            raise ValueError(f"{path}: say input_format=, one of csv, tsv, jsonl, parquet, npz: the name does not tell")
        query = _run_query(experiment, run, eval_set, param, tag, meta, git_commit, step, group) + _log_query(
            target_fingerprint, lower_is_better, protocol, required_k, folds, repeats, n_train, n_test,
            aggregates_only, predictions, threshold, bins,
        ) + [("input_format", input_format)]
        media = bodies.MEDIA_TYPES.get(fmt.lower(), "application/octet-stream")
        body = bodies.log_body(bodies.file_body(open(path, "rb"), media), os.path.basename(path), labels)
        return self._call("POST", "/api/v1/evaluations", query, body=body, headers=_key(idempotency_key))

    def evaluate(
        self,
        experiment: Optional[str],
        run: Optional[str],
        eval_set: Optional[str],
        items: Any = None,
        targets: Any = None,
        scores: Any = None,
        sample_ids: Any = None,
        metrics: Strs = None,
        no_log: Optional[bool] = None,
        param: KeyValues = None,
        tag: Tags = None,
        *,
        meta: KeyValues = None,
        git_commit: Optional[str] = None,
        no_validate: Optional[bool] = None,
        no_per_user: Optional[bool] = None,
        catalogue_size: Optional[int] = None,
        debug_users: Optional[int] = None,
        debug_sample_ids: Strs = None,
        trec_run: Any = None,
        trec_qrels: Any = None,
        predictions: Any = None,
        idempotency_key: Optional[str] = None,
        step: Optional[int] = None,
        group: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Computes ranking metrics from top-K predictions on the server,
        and logs them unless ``no_log`` (POST /api/v1/evaluate), as
        ``verdict evaluate --items ...`` does.

        - ``items``: an n×K NumPy array of integers, each row a sample's top
          K item indices, best first; or the path of a .npy file;
        - ``targets``: the relevant items, n rows × one column per item: a
          SciPy CSR matrix (another sparse format is converted with
          .tocsr()), any object with indptr, indices, data and shape, a
          dense 2-D NumPy array (non-zero is relevant), or the path of an
          .npz file that scipy.sparse.save_npz wrote. SciPy is not needed;
        - ``scores``: optional n×K floats, the items' scores, only used to
          check the rankings (descending along each row);
        - ``sample_ids``: optional n strings or integers; without them a
          row's sample ID is its index;
        - ``metrics``: metric specs, e.g. ``"ndcg@10,20"``,
          ``["ndcg@10", "recall@20"]`` or ``"coverage@10"`` (the share of
          the catalogue in the top 10 of all users; ``catalogue_size`` is
          the catalogue's number of items, by default the targets'
          columns). Without them, the server's default.

        Instead of NumPy arrays, the inputs may be ``trec_run`` and
        ``trec_qrels`` (paths of a TREC run and its qrels), or
        ``predictions`` and ``targets`` as paths of long tables
        (sample_id,item,rank or sample_id,item,score; sample_id,item), CSV
        or Parquet by their file names, as ``verdict evaluate`` reads them.

        ``no_per_user`` logs the means and counts only (such an evaluation
        cannot be compared); ``debug_users`` spells out the first N users
        with targets (their top items, targets, hit ranks and every
        metric's value), ``debug_sample_ids`` these users. The run's
        arguments (``experiment``, ``run``, ``eval_set``, ``param``,
        ``tag``, ``meta``, ``git_commit``, ``step``) are ``log``'s; with ``no_log``
        nothing is stored, and they may be None.

        Returns the server's answer: metrics, aggregates, n_rows,
        n_scored_rows, n_units, required_k, fingerprint, and evaluation_id
        (null with ``no_log``).
        """
        query = _run_query(experiment, run, eval_set, param, tag, meta, git_commit, step, group) + [
            ("metrics", _strs(metrics)),
            ("catalogue_size", catalogue_size),
            ("no_validate", no_validate),
            ("no_log", no_log),
            ("no_per_user", no_per_user),
            ("debug_users", debug_users),
            ("debug_sample_ids", _strs(debug_sample_ids)),
        ]
        headers = {} if no_log else _key(idempotency_key)
        body = bodies.evaluate_body(items, targets, scores, sample_ids, trec_run, trec_qrels, predictions)
        return self._call("POST", "/api/v1/evaluate", query, body=body, headers=headers, idempotent=True)

    # -- deciding -------------------------------------------------------

    def compare(
        self,
        baseline: RunRef,
        candidate: RunRef,
        experiment: Optional[str] = None,
        metric: Strs = None,
        method: Optional[str] = None,
        record: bool = True,
        seed: Optional[int] = None,
        alpha: Optional[float] = None,
        *,
        eval_set: Optional[str] = None,
        confidence: Optional[float] = None,
        resamples: Optional[int] = None,
        resampling: Optional[str] = None,
        no_stratify: Optional[bool] = None,
        adjust: Optional[str] = None,
        margin: Union[None, float, str, Sequence[Union[float, str]]] = None,
        rope: Optional[float] = None,
        decide_at: Optional[float] = None,
        allow_different_targets: Optional[bool] = None,
        fdr: Optional[str] = None,
        fdr_alpha: Optional[float] = None,
        fail_on: Optional[str] = None,
        groups: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
    ) -> Comparison:
        """Compares two evaluations user by user and tells whether the
        difference is real (GET or POST /api/v1/compare).

        ``baseline`` and ``candidate`` are run names, with ``experiment``
        (the runs' newest evaluations on ``eval_set``), or evaluation IDs,
        without it. ``metric`` is one metric or a list (default:
        every metric both share). ``record`` records the comparison in the
        history (POST, a writer token); ``record=False`` only computes it
        (GET, a reader token is enough). A recorded comparison carries
        ``idempotency_key`` (generated when not given), so that a retry
        after a lost answer returns the first answer and records nothing
        more.

        The other arguments are the API's query parameters, by the same
        names; None (the default) leaves one out, so that the server's
        default holds:

        - ``method``: the paired test (bootstrap, t, wilcoxon, mcnemar,
          delong, corrected-t, 5x2; default: from the evaluations'
          protocols); ``adjust``: the multiplicity adjustment across
          metrics (holm, bonferroni, bh, by, none);
        - ``alpha``, ``confidence``, ``resamples``, ``seed`` (the same seed
          gives the same answer), ``resampling`` (auto, multinomial,
          poisson), ``no_stratify``;
        - ``margin``: the practical margin, in the metric's units: a number
          for every metric, "METRIC=DELTA" for one, or a list of these.
          Each result then has ``margin``, ``margin_decision`` (superior,
          equivalent, non_inferior, inferior or inconclusive, the first
          that holds, at ``alpha``) and ``margin_test`` (the one-sided
          bounds, and the t's p-values);
        - ``rope``: the margin of every metric ``margin`` does not set;
          with k-fold evaluations the margin is also the half-width of the
          region of practical equivalence of the Bayesian correlated t,
          whose decision needs a posterior probability above ``decide_at``
          (which needs ``rope`` or ``margin``);
        - ``fdr``: test under an online FDR procedure (lond-dep, lord-dep,
          lond, lord++) over the experiment's recorded history, at false
          discovery rate ``fdr_alpha`` (which needs ``fdr``); it needs
          ``record`` and no ``adjust``. Each result then has ``fdr``: the
          test's position, level, whether it rejected, and the wealth;
        - ``fail_on``: "regression" or "difference", or with a margin
          "regression-beyond-margin" (the candidate is shown worse by more
          than the margin) or "unproven-non-inferiority" (it is not shown
          non-inferior, equivalent or superior): each result then has
          ``fails_gate``, whether the metric fails that gate;
        - ``allow_different_targets``: compare the units two evaluations
          share even when their targets differ;
        - ``groups``: ``baseline`` and ``candidate`` name groups of runs of
          ``experiment`` (configurations, each trained with several seeds,
          logged with ``group=``), compared by a two-level bootstrap of
          runs and users that counts the seeds' variance with the users'.
          Each result then has ``seeds``: the runs compared, the variance
          components, ``run_to_run_sd`` (how far two runs of one
          configuration land apart), ``p_candidate_run_better`` and
          ``seed_noise_dominates``. It is not recorded in the history.

        Returns a dict of metric → result, in the server's order; each
        result holds, among others, ``verdict`` (a sentence), ``winner``
        ("baseline", "candidate" or None), ``distinguishable``,
        ``baseline_mean``, ``candidate_mean``, ``difference`` (baseline −
        candidate, with its interval), ``p_value`` and ``comparison_id``
        (when recorded). The candidate is distinguishably worse on a metric
        when ``distinguishable`` and ``winner == "baseline"``; a metric for
        which lower is better is decided that way round.
        """
        query = [
            ("experiment", experiment),
            ("eval_set", eval_set),
            ("baseline", _ref(baseline, experiment)),
            ("candidate", _ref(candidate, experiment)),
            ("metric", _strs(metric)),
            ("method", method),
            ("adjust", adjust),
            ("margin", _margins(margin)),
            ("alpha", alpha),
            ("confidence", confidence),
            ("resamples", resamples),
            ("seed", seed),
            ("resampling", resampling),
            ("no_stratify", no_stratify),
            ("rope", rope),
            ("decide_at", decide_at),
            ("allow_different_targets", allow_different_targets),
            ("fdr", fdr),
            ("fdr_alpha", fdr_alpha),
            ("fail_on", fail_on),
            ("groups", groups),
        ]
        if record:
            answer = self._call("POST", "/api/v1/compare", query, headers=_key(idempotency_key))
        else:
            answer = self._call("GET", "/api/v1/compare", query)
        return _by_metric(answer)

    def leaderboard(
        self,
        experiment: str,
        metric: str,
        eval_set: Optional[str] = None,
        limit: Optional[int] = None,
        *,
        baseline: Optional[str] = None,
        alpha: Optional[float] = None,
        confidence: Optional[float] = None,
        resamples: Optional[int] = None,
        seed: Optional[int] = None,
        by_group: Optional[bool] = None,
    ) -> Dict[str, Any]:
        """Ranks an experiment's runs by a metric, each compared with the
        best (or ``baseline``) user by user (GET /api/v1/leaderboard).
        ``limit`` is the best N runs (the server's default is 10; 0 for
        every run).

        Returns metric, evaluation_set, reference, lower_is_better, n_runs,
        and rows: rank, run, evaluation_id, mean (a number), mean_ci_low,
        mean_ci_high, difference_to_reference, p_value, distinguishable, ...

        ``by_group=True`` ranks the groups of runs instead (configurations,
        each trained with several seeds, logged with ``group=``), with
        two-level bootstrap intervals of runs and users; ``baseline`` then
        names a group. Each row is a group: ``run`` is its name, and
        ``seeds`` holds its runs, ``run_sd`` and ``p_run_beats_reference``;
        the answer adds n_groups and n_runs_without_group.
        """
        query = [
            ("experiment", experiment),
            ("eval_set", eval_set),
            ("metric", metric),
            ("baseline", baseline),
            ("limit", limit),
            ("alpha", alpha),
            ("confidence", confidence),
            ("resamples", resamples),
            ("seed", seed),
            ("by_group", by_group),
        ]
        return self._call("GET", "/api/v1/leaderboard", query)

    def history(
        self,
        experiment: Optional[str] = None,
        metric: Optional[str] = None,
        run: Optional[str] = None,
        limit: Optional[int] = None,
        *,
        winner: Optional[str] = None,
        distinguishable: Union[None, bool, str] = None,
        since: Optional[str] = None,
        fdr: Optional[bool] = None,
    ) -> Any:
        """The recorded comparisons, newest first (GET /api/v1/history):
        of an experiment, a metric, a run on either side; ``winner`` is
        "baseline", "candidate" or "none"; ``since`` a date (2026-11-01) or
        an age (30d, 12h); ``limit`` defaults to 50 on the server.

        Returns a list of comparisons; with ``fdr`` (which needs
        ``experiment``), a dict: ``ledger``, where the experiment's online
        FDR stream stands, and ``comparisons``, each with its test in the
        stream (fdr_test, fdr_level, fdr_rejected, ...).
        """
        query = [
            ("experiment", experiment),
            ("run", run),
            ("metric", metric),
            ("winner", winner),
            ("distinguishable", distinguishable),
            ("since", since),
            ("limit", limit),
            ("fdr", fdr),
        ]
        return self._call("GET", "/api/v1/history", query)

    def rank(
        self,
        run: Union[RunRef, Sequence[RunRef]],
        metric: str,
        experiment: Optional[str] = None,
        *,
        eval_set: Optional[str] = None,
        control: Optional[RunRef] = None,
        alpha: Optional[float] = None,
        across_eval_sets: Optional[bool] = None,
        record: bool = True,
        idempotency_key: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Ranks two or more evaluations user by user (Friedman, then Holm
        against the best or ``control``); ``run`` lists them: runs' names
        with ``experiment``, else evaluation IDs. ``across_eval_sets`` ranks
        the runs of ``experiment`` on every evaluation set they share (the
        sets are the blocks), and takes no ``eval_set``. ``record`` records
        the Holm comparisons (POST /api/v1/rank, with ``idempotency_key``,
        generated when not given, so that a retry records nothing more),
        else GET."""
        runs = [run] if isinstance(run, (str, numbers.Integral)) else list(run)
        query = [
            ("experiment", experiment),
            ("eval_set", eval_set),
            ("run", [_ref(r, experiment) for r in runs]),
            ("metric", metric),
            ("control", _ref(control, experiment) if control is not None else None),
            ("alpha", alpha),
            ("across_eval_sets", across_eval_sets),
        ]
        if record:
            return self._call("POST", "/api/v1/rank", query, headers=_key(idempotency_key))
        return self._call("GET", "/api/v1/rank", query)

    def diff(
        self,
        baseline: RunRef,
        candidate: RunRef,
        metric: str,
        experiment: Optional[str] = None,
        *,
        eval_set: Optional[str] = None,
        worst: Optional[int] = None,
        best: Optional[int] = None,
        allow_different_targets: Optional[bool] = None,
    ) -> Dict[str, Any]:
        """The users two evaluations differ most on (GET /api/v1/diff): the
        ``worst`` N for the candidate (the server's default is 10), or the
        ``best`` N instead (give one of them)."""
        query = [
            ("experiment", experiment),
            ("eval_set", eval_set),
            ("baseline", _ref(baseline, experiment)),
            ("candidate", _ref(candidate, experiment)),
            ("metric", metric),
            ("worst", worst),
            ("best", best),
            ("allow_different_targets", allow_different_targets),
        ]
        return self._call("GET", "/api/v1/diff", query)

    # -- reading --------------------------------------------------------

    def runs(
        self,
        experiment: Optional[str] = None,
        eval_set: Optional[str] = None,
        filter: Optional[str] = None,
        order_by: Optional[str] = None,
        limit: Optional[int] = None,
        metrics: Strs = None,
    ) -> List[Dict[str, Any]]:
        """Lists runs (GET /api/v1/runs), with their params, tags, git
        commit, number of evaluations and ``metrics``: the newest
        evaluation's mean of each metric (on ``eval_set`` when given).
        ``filter`` is a run filter, e.g. ``"params.lr < 0.01 AND
        tags.nightly = 'true'"``; ``order_by`` is ``"KEY [asc|desc]"``.
        ``metrics`` (one name or a list) chooses the metrics the command
        line's table shows; the answer has every one."""
        query = [
            ("experiment", experiment),
            ("eval_set", eval_set),
            ("filter", filter),
            ("order_by", order_by),
            ("limit", limit),
            ("metrics", _strs(metrics)),
        ]
        return self._call("GET", "/api/v1/runs", query)

    def runs_frame(
        self,
        experiment: Optional[str] = None,
        eval_set: Optional[str] = None,
        filter: Optional[str] = None,
        order_by: Optional[str] = None,
        limit: Optional[int] = None,
        metrics: Strs = None,
    ) -> Any:
        """The runs of ``runs`` as a pandas DataFrame, one row per run, as
        mlflow.search_runs gives them: the columns ``run_id``,
        ``experiment``, ``run``, ``created_at``, ``last_logged`` (pandas
        timestamps), ``evaluations``, ``git_commit``, then ``params.NAME``
        for each param, ``tags.NAME`` for each tag (a tag logged without a
        value is ``"true"``) and ``metrics.NAME`` for each metric, in name
        order; a run without one has NaN (None for params and tags). Needs
        pandas."""
        import pandas as pd

        runs = self.runs(experiment, eval_set, filter, order_by, limit, metrics)
        fixed = ["run_id", "experiment", "run", "created_at", "last_logged", "evaluations", "git_commit"]
        rows, params, tags, metric_names = [], set(), set(), set()
        for r in runs:
            row = {k: r.get(k) for k in fixed}
            for k, v in (r.get("params") or {}).items():
                row["params." + k] = v
                params.add(k)
            for k, v in _tag_values(r).items():
                row["tags." + k] = v
                tags.add(k)
            for k, v in (r.get("metrics") or {}).items():
                row["metrics." + k] = float("nan") if v is None else v
                metric_names.add(k)
            rows.append(row)
        columns = (
            fixed
            + ["params." + k for k in sorted(params)]
            + ["tags." + k for k in sorted(tags)]
            + ["metrics." + k for k in sorted(metric_names)]
        )
        df = pd.DataFrame(rows, columns=columns)
        for k in ("created_at", "last_logged"):
            df[k] = _timestamps(pd, df[k])
        for k in sorted(metric_names):
            df["metrics." + k] = df["metrics." + k].astype(float)
        return df

    def curve(
        self,
        experiment: str,
        run: Strs,
        metric: str,
        eval_set: Optional[str] = None,
        confidence: Optional[float] = None,
        resamples: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> Dict[str, Any]:
        """A training curve (GET /api/v1/curve): for each run (one name or
        a list), its evaluations logged with a step, in step order, each
        with its mean of ``metric`` and the bootstrap interval of its
        per-unit values at ``confidence`` (the server's 0.95) from
        ``resamples`` (2000) resamples drawn with ``seed`` (0), as
        ``verdict curve`` computes it.

        Returns experiment, evaluation_set, metric, lower_is_better,
        confidence, resamples, seed, runs and points: each with run, step,
        evaluation_id, mean, mean_ci_low, mean_ci_high (None for an
        evaluation logged with its aggregates only), n_units and
        logged_at."""
        query = [
            ("experiment", experiment),
            ("run", _strs(run)),
            ("eval_set", eval_set),
            ("metric", metric),
            ("confidence", confidence),
            ("resamples", resamples),
            ("seed", seed),
        ]
        return self._call("GET", "/api/v1/curve", query)

    def evaluations(
        self,
        experiment: Optional[str] = None,
        run: Optional[str] = None,
        eval_set: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> List[Dict[str, Any]]:
        """Lists evaluations, newest first (GET /api/v1/evaluations): of an
        experiment, a run, an evaluation set; ``limit`` defaults to 100 on
        the server."""
        query = [
            ("experiment", experiment),
            ("run", run),
            ("eval_set", eval_set),
            ("limit", limit),
        ]
        return self._call("GET", "/api/v1/evaluations", query)

    def experiments(self) -> List[Dict[str, Any]]:
        """Lists the experiments the token may see (GET /api/v1/experiments)."""
        return self._call("GET", "/api/v1/experiments")

    def evaluation(self, evaluation_id: int, debug: Optional[bool] = None) -> Dict[str, Any]:
        """One evaluation, as stored (GET /api/v1/evaluations/{id}); with
        ``debug=True``, also its debug rows (``debug_rows``), logged by
        ``evaluate(debug_users=..)`` or ``debug_sample_ids``."""
        return self._call("GET", f"/api/v1/evaluations/{int(evaluation_id)}", [("debug", debug)])

    def comparison(self, comparison_id: int) -> Dict[str, Any]:
        """One recorded comparison (GET /api/v1/comparisons/{id})."""
        return self._call("GET", f"/api/v1/comparisons/{int(comparison_id)}")

    def openapi(self) -> Dict[str, Any]:
        """The server's OpenAPI description (GET /api/v1/openapi.json)."""
        return self._call("GET", "/api/v1/openapi.json")

    def health(self) -> Dict[str, Any]:
        """Checks that the server answers (GET /healthz, no token needed):
        ``{"status": "ok", "version": ...}``."""
        return self._call("GET", "/healthz", auth=False)


# -- query parameters ---------------------------------------------------


def _query(pairs: Iterable[Tuple[str, QueryValue]]) -> List[Tuple[str, str]]:
    """Query pairs as text: None is left out, a list repeated, a bool is
    true or false."""
    out: List[Tuple[str, str]] = []
    for name, value in pairs:
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if v is None:
                continue
            if isinstance(v, bool):
                out.append((name, "true" if v else "false"))
            else:
                out.append((name, str(v)))
    return out


def _strs(x: Any) -> Optional[List[str]]:
    """One string or several (a list, a tuple, any other iterable but a
    mapping), as a list."""
    if x is None:
        return None
    if isinstance(x, str):
        return [x]
    if isinstance(x, (bytes, Mapping)):
        raise TypeError(f"{x!r}: want a string or a sequence of strings")
    return [str(s) for s in x]


def _margins(x: Any) -> Optional[List[str]]:
    """A margin or several: a number (every metric's), "METRIC=DELTA", or a
    sequence of these, as the query's repeated values."""
    if x is None:
        return None
    if isinstance(x, (str, numbers.Real)) and not isinstance(x, bool):
        x = [x]
    if isinstance(x, (bytes, Mapping, bool)):
        raise TypeError(f"{x!r}: want a number, \"METRIC=DELTA\" or a sequence of these")
    return [s if isinstance(s, str) else repr(float(s)) for s in x]


def _timestamps(pd: Any, column: Any) -> Any:
    """RFC 3339 times as UTC timestamps, with or without fractions of a
    second (pandas 2 wants format="ISO8601" for a mix; pandas 1 has none)."""
    try:
        return pd.to_datetime(column, utc=True, format="ISO8601")
    except (ValueError, TypeError):
        return pd.to_datetime(column, utc=True)


def _tag_values(run: Mapping[str, Any]) -> Dict[str, str]:
    """A run's tags as keys and values: tag_values when the server sends
    them, else the tags' text, KEY (for "true") or KEY=VALUE."""
    values = run.get("tag_values")
    if isinstance(values, Mapping):
        return {str(k): str(v) for k, v in values.items()}
    out: Dict[str, str] = {}
    for tag in run.get("tags") or []:
        key, sep, value = str(tag).partition("=")
        out[key] = value if sep else "true"
    return out


def _ref(x: RunRef, experiment: Optional[str]) -> str:
    """A run's name, or an evaluation's ID. The server takes a run's name
    with an experiment, and an evaluation's ID without one."""
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        if experiment is not None:
            raise ValueError(
                f"evaluation ID {int(x)} given with experiment={experiment!r}: with an experiment, "
                "runs are named; without one, evaluations are given by ID"
            )
        return str(int(x))
    if isinstance(x, str):
        return x
    raise TypeError(f"{x!r} is neither a run name nor an evaluation ID")


def _key_values(what: str, m: KeyValues) -> Optional[List[str]]:
    """KEY=VALUE pairs. From a mapping, VALUE is JSON so that the server
    keeps its type: a string stays a string even when it looks like a
    number. Strings ("KEY=VALUE", one or a list) are sent as they are."""
    if m is None:
        return None
    if not isinstance(m, Mapping):
        pairs = _strs(m) or []
        for pair in pairs:
            if "=" not in pair or not pair.split("=", 1)[0].strip():
                raise ValueError(f"{what} {pair!r}: want KEY=VALUE")
        return pairs
    out = []
    for k, v in m.items():
        k = str(k)
        if not k.strip() or "=" in k:
            raise ValueError(f"{what} key {k!r}: a key is not empty and holds no '='")
        out.append(f"{k}={json.dumps(v, separators=(',', ':'), default=_json_default)}")
    return out


def _json_default(x: Any) -> Any:
    """NumPy scalars and arrays as JSON values."""
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"{x!r} ({type(x).__name__}) is not a JSON value")


def _run_query(
    experiment: Optional[str],
    run: Optional[str],
    eval_set: Optional[str],
    param: KeyValues,
    tag: Strs,
    meta: KeyValues,
    git_commit: Optional[str],
    step: Optional[int] = None,
    group: Optional[str] = None,
) -> List[Tuple[str, QueryValue]]:
    """The query parameters that name a run and describe it and its
    evaluation, as log and evaluate take them."""
    return [
        ("experiment", experiment),
        ("run", run),
        ("eval_set", eval_set),
        ("param", _key_values("param", param)),
        ("tag", _tags(tag)),
        ("meta", _key_values("meta", meta)),
        ("git_commit", git_commit),
        ("step", step),
        ("group", group),
    ]


def _tags(m: Tags) -> Optional[List[str]]:
    """A run's tags as the API takes them, KEY=VALUE. From a mapping, a
    value is kept as a string (True is "true", so {"nightly": True} is the
    bare tag nightly); strings are sent as they are, a bare KEY meaning
    KEY=true."""
    if m is None or not isinstance(m, Mapping):
        return _strs(m)
    out = []
    for k, v in m.items():
        k = str(k)
        if not k.strip() or "=" in k:
            raise ValueError(f"tag key {k!r}: a key is not empty and holds no '='")
        if isinstance(v, bool):
            v = "true" if v else "false"
        out.append(f"{k}={v}")
    return out


def _log_query(
    target_fingerprint: Optional[str],
    lower_is_better: Strs,
    protocol: Optional[str],
    required_k: Optional[int],
    folds: Optional[int],
    repeats: Optional[int],
    n_train: Optional[int],
    n_test: Optional[int],
    aggregates_only: Optional[bool],
    predictions: Optional[bool],
    threshold: Optional[float],
    bins: Optional[int],
) -> List[Tuple[str, QueryValue]]:
    """The query parameters of a log beyond the run's."""
    return [
        ("target_fingerprint", target_fingerprint),
        ("lower_is_better", _strs(lower_is_better)),
        ("protocol", protocol),
        ("required_k", required_k),
        ("folds", folds),
        ("repeats", repeats),
        ("n_train", n_train),
        ("n_test", n_test),
        ("aggregates_only", aggregates_only),
        ("predictions", predictions),
        ("threshold", threshold),
        ("bins", bins),
    ]


def _by_metric(answer: Any) -> Comparison:
    """A comparison's answer, a list with one result per metric, as a dict
    keyed by metric."""
    if isinstance(answer, list):
        return {r["metric"]: r for r in answer}
    return answer


def _key(idempotency_key: Optional[str]) -> Dict[str, str]:
    """The Idempotency-Key header of a request that records: the caller's
    key, or a new one, so that the transport may send it again."""
    return {"Idempotency-Key": idempotency_key if idempotency_key is not None else str(uuid.uuid4())}


def _file_format(path: str) -> Optional[str]:
    """A scores file's format from its name, as verdict log reads it."""
    name = os.path.basename(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    ext = os.path.splitext(name)[1].lstrip(".")
    return {"csv": "csv", "tsv": "tsv", "jsonl": "jsonl", "ndjson": "jsonl", "parquet": "parquet", "npz": "npz"}.get(ext)
