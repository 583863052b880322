"""Request bodies: per-unit scores as NDJSON or NPZ, and the multipart body
of an evaluation of NumPy rankings.

The layouts are those ``verdict log`` and ``verdict evaluate`` read:

- NDJSON (JSON Lines): one flat object a line, ``{"sample_id": "u1",
  "ndcg@10": 0.5}``, the same keys on every line; an optional ``draw`` key
  numbers the scorings of one sample;
- NPZ: a zip of 1-D .npy arrays, one named ``sample_id`` (strings or
  integers), an optional ``draw`` (integers), and one per metric (numbers),
  all of one length, as ``np.savez(f, sample_id=ids, **metrics)`` writes;
- evaluate: items (n×K integers), scores (n×K floats), sample_ids (n
  strings or integers) as .npy files, targets as the .npz file of
  ``scipy.sparse.save_npz`` for a CSR matrix.

NumPy and pandas are never imported here: an input is taken for an array
or a DataFrame only when its module is already loaded, which it is when the
caller made one.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
import tempfile
import uuid
import zipfile
from collections.abc import Mapping
from typing import IO, Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from .transport import Body

# Chunks of a streamed body hold about this many bytes.
CHUNK_BYTES = 64 * 1024

def _numpy() -> Any:
    """NumPy, imported only when input that needs it is given: an array
    means the caller has imported it already."""
    np = sys.modules.get("numpy")
    if np is None:
        import numpy as np
    return np


def _is_ndarray(x: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


def _is_dataframe(x: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.DataFrame)


def _is_series(x: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(x, pd.Series)


def scores_body(per_user: Any) -> Body:
    """The body of a log request for per_user, in the form it comes in:

    - a dict of sample ID → {metric: value}: NDJSON, streamed; a key may be
      a (sample ID, draw) pair;
    - a dict of columns, ``{"sample_id": ids, "ndcg@10": values, ...}``:
      NPZ when a column is a NumPy array or pandas Series, else NDJSON;
    - a pandas DataFrame (a sample_id column, or the index as sample IDs,
      and one numeric column per metric) or a NumPy structured array: NPZ.
    """
    if _is_dataframe(per_user):
        return npz_body(dataframe_columns(per_user))
    if _is_ndarray(per_user):
        if per_user.dtype.names is None:
            raise TypeError(
                "per_user is a NumPy array without fields; pass a structured array with a sample_id field, "
                'or a dict of arrays: {"sample_id": ids, "ndcg@10": values, ...}'
            )
        return npz_body(array_columns({name: per_user[name] for name in per_user.dtype.names}))
    if isinstance(per_user, Mapping):
        if _is_columns(per_user):
            if any(_is_ndarray(v) or _is_series(v) for v in per_user.values()):
                return npz_body(array_columns(per_user))
            return ndjson_body(lambda: _column_rows(per_user))
        return ndjson_body(lambda: _sample_rows(per_user))
    raise TypeError(
        f"per_user is a {type(per_user).__name__}; pass a dict of sample ID → {{metric: value}}, "
        "a dict of columns with a sample_id column, a pandas DataFrame or a NumPy structured array"
    )


def _is_columns(m: Mapping) -> bool:
    """Whether m is a dict of columns rather than of samples: it has a
    sample_id key whose value is a sequence of IDs, not a sample's
    metrics."""
    ids = m.get("sample_id")
    if ids is None or isinstance(ids, (Mapping, str, bytes)):
        return False
    return _is_ndarray(ids) or _is_series(ids) or isinstance(ids, Sequence)


# -- NDJSON -------------------------------------------------------------


def ndjson_body(rows: Callable[[], Iterable[Dict[str, Any]]]) -> Body:
    """A chunked NDJSON body of the rows that rows() yields (dicts), encoded
    as it is sent: a retry calls rows() again."""

    def chunks() -> Iterator[bytes]:
        buf: List[bytes] = []
        size = 0
        for row in rows():
            line = json.dumps(row, separators=(",", ":")).encode("utf-8") + b"\n"
            buf.append(line)
            size += len(line)
            if size >= CHUNK_BYTES:
                yield b"".join(buf)
                buf, size = [], 0
        if buf:
            yield b"".join(buf)

    return Body(content_type="application/x-ndjson", chunks=chunks)


def _sample_rows(per_user: Mapping) -> Iterator[Dict[str, Any]]:
    for key, metrics in per_user.items():
        if isinstance(key, tuple):
            if len(key) != 2:
                raise ValueError(f"per_user key {key!r}: a tuple key is (sample ID, draw)")
            sid, draw = key
            row: Dict[str, Any] = {"sample_id": sample_id(sid), "draw": _integer(draw, "draw", sid)}
        else:
            row = {"sample_id": sample_id(key)}
        if not isinstance(metrics, Mapping):
            raise TypeError(
                f"per_user[{key!r}] is a {type(metrics).__name__}; each sample's value is a dict of metric → value "
                '(for columns, give per_user a "sample_id" list or array)'
            )
        for name, value in metrics.items():
            name = str(name)
            if name in row:
                raise ValueError(f"per_user[{key!r}] has a metric named {name!r}, which names a column of its own")
            row[name] = number(value, name, key)
        yield row


def _column_rows(columns: Mapping) -> Iterator[Dict[str, Any]]:
    names = [str(k) for k in columns]
    cols = [list(v) for v in columns.values()]
    n = len(cols[names.index("sample_id")])
    for name, col in zip(names, cols):
        if len(col) != n:
            raise ValueError(f"per_user's columns differ in length: sample_id has {n} values, {name!r} has {len(col)}")
    for i in range(n):
        row: Dict[str, Any] = {}
        sid = cols[names.index("sample_id")][i]
        for name, col in zip(names, cols):
            if name == "sample_id":
                row[name] = sample_id(col[i])
            elif name == "draw":
                row[name] = _integer(col[i], "draw", sid)
            else:
                row[name] = number(col[i], name, sid)
        yield row


def sample_id(x: Any) -> Union[str, int]:
    """A sample ID as JSON holds it: a string, or an integer (which the
    server keeps as its decimal text)."""
    if isinstance(x, bool):
        raise TypeError(f"sample ID {x!r} is a bool; a sample ID is a string or an integer")
    if isinstance(x, str):
        return str(x)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, bytes):
        return x.decode("utf-8")
    raise TypeError(f"sample ID {x!r} is a {type(x).__name__}; a sample ID is a string or an integer")


def number(x: Any, metric: str, sample: Any) -> Any:
    """A metric value as JSON holds it. NaN and ±Inf are sent as JSON Lines
    writes them from Python, so that the server refuses them with their
    line and sample; a bool is 1 or 0; None is sent as null (missing)."""
    if x is None:
        return None
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, float):
        return x
    if isinstance(x, (str, bytes)):
        raise TypeError(f"sample {sample!r}, metric {metric!r}: {x!r} is text, not a number")
    try:
        return float(x)
    except (TypeError, ValueError):
        raise TypeError(f"sample {sample!r}, metric {metric!r}: {x!r} is not a number") from None


def _integer(x: Any, what: str, sample: Any) -> int:
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise TypeError(f"sample {sample!r}: {what} {x!r} is not a whole number")


# -- NPZ ----------------------------------------------------------------


def dataframe_columns(df: Any) -> Dict[str, Any]:
    """The arrays of a DataFrame: its sample_id column, or else its index,
    then every other column."""
    np = _numpy()
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"the DataFrame has duplicate columns: {', '.join(map(repr, dup))}")
    cols: Dict[str, Any] = {}
    if "sample_id" in names:
        cols["sample_id"] = _series_array(df[df.columns[names.index("sample_id")]], np)
    else:
        if getattr(df.index, "nlevels", 1) != 1:
            raise ValueError("the DataFrame has a MultiIndex; give it a sample_id column, or reset_index() first")
        cols["sample_id"] = _series_array(df.index, np)
    for name, col in zip(names, df.columns):
        if name != "sample_id":
            cols[name] = _series_array(df[col], np)
    return array_columns(cols)


def _series_array(s: Any, np: Any) -> Any:
    """A pandas Series' or Index's values as a NumPy array: a nullable
    dtype (Int64, Float64, boolean) as floats with NaN for missing values,
    the string dtype as objects."""
    dtype = s.dtype
    if not isinstance(dtype, np.dtype):  # a pandas extension dtype
        kind = getattr(dtype, "kind", "O")
        if kind in "iufb":
            return s.to_numpy(dtype="float64", na_value=np.nan)
        return s.to_numpy(dtype=object)
    return s.to_numpy()


def array_columns(columns: Mapping) -> Dict[str, Any]:
    """The arrays of an NPZ body: sample_id as strings or integers, draw as
    integers, and each metric as numbers."""
    np = _numpy()
    out: Dict[str, Any] = {}
    for key, col in columns.items():
        name = str(key)
        if name in out:
            raise ValueError(f"per_user has two columns named {name!r}")
        a = col.to_numpy() if _is_series(col) else np.asarray(col)
        if name == "sample_id":
            a = _id_array(a, np)
        elif name != "draw":
            a = _value_array(a, name, np)
        out[name] = np.ascontiguousarray(a)
    if "sample_id" not in out:
        raise ValueError("per_user has no sample_id column")
    return out


def _id_array(a: Any, np: Any) -> Any:
    if a.dtype.kind != "O":
        return a
    # Objects, as pandas holds strings: integers stay integers, anything
    # else is text; a missing ID is refused here, since "None" or "nan"
    # would be taken for an ID.
    items = a.tolist()
    for i, x in enumerate(items):
        if _missing(x):
            raise ValueError(f"sample_id is missing at row {i + 1}")
    if all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in items):
        return np.asarray(items, dtype=np.int64)
    return np.asarray([x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in items], dtype=str)


def _missing(x: Any) -> bool:
    """Whether x is a missing value: None, NaN, or pandas' NA or NaT."""
    if x is None:
        return True
    if isinstance(x, float):
        return math.isnan(x)
    return type(x).__name__ in ("NAType", "NaTType")


def _value_array(a: Any, name: str, np: Any) -> Any:
    kind = a.dtype.kind
    if kind == "b":
        return a.astype(np.uint8)
    if kind == "f" and a.dtype.itemsize not in (4, 8):
        return a.astype(np.float64)
    if kind in "iuf":
        return a
    if kind == "O":
        try:
            return a.astype(np.float64)
        except (TypeError, ValueError):
            pass
    raise ValueError(f"column {name!r} has dtype {a.dtype}; a metric's values must be numbers")


def npz_body(columns: Dict[str, Any]) -> Body:
    """An NPZ body of 1-D arrays, written to a temporary file."""
    return file_body(write_npz(columns), "application/x-npz")


def write_npz(arrays: Dict[str, Any]) -> IO[bytes]:
    """Writes arrays to a new temporary .npz file, as numpy.savez does (a zip
    of .npy members, written with NumPy's own .npy writer) but without
    savez's keyword arguments, so that a metric may be named "file". The
    file is removed when closed."""
    np = _numpy()
    f = tempfile.TemporaryFile(prefix="verdict-", suffix=".npz")
    try:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name, a in arrays.items():
                with zf.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(a), allow_pickle=False)
    except BaseException:
        f.close()
        raise
    return f


def write_npy(a: Any) -> IO[bytes]:
    """Writes one array to a new temporary .npy file."""
    np = _numpy()
    f = tempfile.TemporaryFile(prefix="verdict-", suffix=".npy")
    try:
        np.lib.format.write_array(f, np.ascontiguousarray(a), allow_pickle=False)
    except BaseException:
        f.close()
        raise
    return f


def _read_from(f: IO[bytes], start: int = 0) -> Iterator[bytes]:
    f.seek(start)
    while True:
        b = f.read(CHUNK_BYTES * 16)
        if not b:
            return
        yield b


def file_body(f: IO[bytes], content_type: str) -> Body:
    """A body of an open file's content, with its length; closing the body
    closes the file."""
    size = f.seek(0, os.SEEK_END)
    return Body(content_type=content_type, chunks=lambda: _read_from(f), length=size, close=f.close)


# -- evaluate -----------------------------------------------------------


class _Part:
    """A file part of a multipart body: a path, an open temporary file, or
    a Body (streamed, its length maybe unknown)."""

    def __init__(
        self,
        name: str,
        filename: str,
        path: Optional[str] = None,
        temp: Optional[IO[bytes]] = None,
        body: Optional[Body] = None,
        content_type: str = "application/octet-stream",
    ) -> None:
        self.name, self.filename, self.path, self.temp, self.body = name, filename, path, temp, body
        self.content_type = content_type
        self.size: Optional[int]
        if path is not None:
            self.size = os.path.getsize(path)
        elif body is not None:
            self.size = body.length
        else:
            assert temp is not None
            self.size = temp.seek(0, os.SEEK_END)

    def header(self, boundary: str) -> bytes:
        filename = self.filename.replace("\\", "_").replace('"', "_").replace("\r", "_").replace("\n", "_")
        return (
            f"--{boundary}\r\n"
            f'Content-Disposition: form-data; name="{self.name}"; filename="{filename}"\r\n'
            f"Content-Type: {self.content_type}\r\n\r\n"
        ).encode("utf-8")

    def chunks(self) -> Iterator[bytes]:
        if self.body is not None:
            yield from self.body.chunks()
            return
        if self.temp is not None:
            yield from _read_from(self.temp)
            return
        assert self.path is not None
        with open(self.path, "rb") as f:
            yield from _read_from(f)

    def close(self) -> None:
        if self.body is not None:
            self.body.close()
        if self.temp is not None:
            self.temp.close()


def multipart_body(make: Callable[[List[_Part]], None]) -> Body:
    """A multipart/form-data body of the parts make appends to the list it
    is given, with its length when every part's is known, else chunked.
    The parts are closed with the body, or at once when make fails."""
    parts: List[_Part] = []
    try:
        make(parts)
    except BaseException:
        for p in parts:
            p.close()
        raise
    boundary = "verdict-" + uuid.uuid4().hex
    tail = f"--{boundary}--\r\n".encode("ascii")
    length: Optional[int] = None
    if all(p.size is not None for p in parts):
        length = sum(len(p.header(boundary)) + (p.size or 0) + 2 for p in parts) + len(tail)

    def chunks() -> Iterator[bytes]:
        for p in parts:
            yield p.header(boundary)
            yield from p.chunks()
            yield b"\r\n"
        yield tail

    def close() -> None:
        for p in parts:
            p.close()

    return Body(content_type=f"multipart/form-data; boundary={boundary}", chunks=chunks, length=length, close=close)


def evaluate_body(
    items: Any,
    targets: Any,
    scores: Any = None,
    sample_ids: Any = None,
    trec_run: Any = None,
    trec_qrels: Any = None,
    predictions: Any = None,
) -> Body:
    """The multipart/form-data body of POST /api/v1/evaluate: the parts
    items, scores, targets and sample_ids (NumPy), each a file; or the
    files trec_run and trec_qrels; or the long tables predictions and
    targets (CSV or Parquet files, their format read from their names)."""

    def make(parts: List[_Part]) -> None:
        if items is not None:
            parts.append(_array_part("items", items))
        if scores is not None:
            parts.append(_array_part("scores", scores))
        for name, path in (("trec_run", trec_run), ("trec_qrels", trec_qrels), ("predictions", predictions)):
            if path is not None:
                parts.append(_file_part(name, path))
        if targets is not None:
            table = predictions is not None and _is_path(targets)
            parts.append(_file_part("targets", targets) if table else _targets_part(targets))
        if sample_ids is not None:
            parts.append(_array_part("sample_ids", sample_ids, ids=True))

    return multipart_body(make)


def _file_part(name: str, path: Any) -> _Part:
    """A part holding the file at path, named as the file is: the server
    reads a table's format from the name."""
    if not _is_path(path):
        raise TypeError(f"{name} is a {type(path).__name__}; pass the path of a file")
    p = os.fspath(path)
    return _Part(name, os.path.basename(p), path=p)


# -- log ----------------------------------------------------------------

# The media types of the scores formats, as the server reads them.
MEDIA_TYPES = {
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "jsonl": "application/x-ndjson",
    "ndjson": "application/x-ndjson",
    "parquet": "application/vnd.apache.parquet",
    "npz": "application/x-npz",
}

_EXTENSIONS = {"application/x-ndjson": "jsonl", "application/x-npz": "npz"}


def log_body(scores: Body, filename: Optional[str], labels: Any) -> Body:
    """The body of a log: scores alone, or, with labels, a multipart body
    of the parts scores (named filename) and labels (a CSV of
    sample_id,label)."""
    if labels is None:
        return scores

    def make(parts: List[_Part]) -> None:
        name = filename or "scores." + _EXTENSIONS.get(scores.content_type, "bin")
        parts.append(_Part("scores", name, body=scores, content_type=scores.content_type))
        parts.append(labels_part(labels))

    try:
        return multipart_body(make)
    except BaseException:
        scores.close()  # twice is harmless
        raise


def labels_part(labels: Any) -> _Part:
    """The part labels of a log: the path of a CSV file with the columns
    sample_id and label, or a mapping (a dict, a pandas Series) of sample
    ID → 0 or 1, written as such a CSV."""
    if _is_path(labels):
        path = os.fspath(labels)
        return _Part("labels", os.path.basename(path), path=path, content_type="text/csv")
    if not (isinstance(labels, Mapping) or _is_series(labels)):
        raise TypeError(
            f"labels is a {type(labels).__name__}; pass a dict of sample ID → 0 or 1, a pandas Series, "
            "or the path of a CSV file with the columns sample_id and label"
        )
    f = tempfile.TemporaryFile(prefix="verdict-", suffix=".csv")
    try:
        f.write(b"sample_id,label\n")
        for sample, label in labels.items():
            sid = str(sample_id(sample))
            if any(c in sid for c in ',"\r\n'):
                sid = '"' + sid.replace('"', '""') + '"'
            if isinstance(label, bool) or _is_numpy_bool(label):
                label = int(label)
            if not isinstance(label, numbers.Real) or label not in (0, 1):
                raise ValueError(f"labels: sample {sample!r}: label {label!r} is not 0 or 1")
            f.write(f"{sid},{int(label)}\n".encode("utf-8"))
    except BaseException:
        f.close()
        raise
    return _Part("labels", "labels.csv", temp=f, content_type="text/csv")


def _is_numpy_bool(x: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.bool_)


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _array_part(name: str, a: Any, ids: bool = False) -> _Part:
    if _is_path(a):
        return _Part(name, name + ".npy", path=os.fspath(a))
    if _is_series(a):
        a = a.to_numpy()
    if not _is_ndarray(a):
        raise TypeError(f"{name} is a {type(a).__name__}; pass a NumPy array or the path of a .npy file")
    if ids:
        a = _id_array(a, _numpy())
    return _Part(name, name + ".npy", temp=write_npy(a))


def _targets_part(t: Any) -> _Part:
    if _is_path(t):
        return _Part("targets", "targets.npz", path=os.fspath(t))
    if hasattr(t, "tocsr") and getattr(t, "format", "csr") != "csr":
        t = t.tocsr()  # a SciPy matrix in another format
    if all(hasattr(t, a) for a in ("indptr", "indices", "data", "shape")):
        if getattr(t, "format", "csr") != "csr":
            raise TypeError(f"targets is a sparse matrix in {t.format} format; pass a CSR matrix (.tocsr())")
        np = _numpy()
        arrays = {
            "indices": np.asarray(t.indices),
            "indptr": np.asarray(t.indptr),
            "format": np.array(b"csr"),
            "shape": np.asarray(t.shape, dtype=np.int64),
            "data": np.asarray(t.data),
        }
    elif _is_ndarray(t) and t.ndim == 2:
        # A dense matrix: its non-zero entries are the relevant items.
        np = _numpy()
        rows, cols = np.nonzero(t)
        arrays = {
            "indices": cols.astype(np.int64),
            "indptr": np.searchsorted(rows, np.arange(t.shape[0] + 1)).astype(np.int64),
            "format": np.array(b"csr"),
            "shape": np.asarray(t.shape, dtype=np.int64),
            "data": np.asarray(t[rows, cols]),
        }
    else:
        raise TypeError(
            f"targets is a {type(t).__name__}; pass a SciPy CSR matrix, an object with indptr, indices, data "
            "and shape, a dense 2-D NumPy array, or the path of a .npz file of scipy.sparse.save_npz"
        )
    return _Part("targets", "targets.npz", temp=write_npz(arrays))

