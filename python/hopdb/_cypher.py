"""Table conversions of :class:`hopdb.QueryResult` (``to_arrow``, ``to_polars``, ``to_pandas``).

Each column becomes one Arrow array whose type pyarrow infers from the values; nodes and
relationships are their ``to_dict()`` structs and paths lists of them. A column whose values
Arrow cannot hold as one type (an int in one row, a str in the next) is stored as JSON text.
"""

from __future__ import annotations

import json


def _json_default(v):
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    return str(v)


def to_arrow(result):
    import pyarrow as pa

    arrays = []
    for values in result._column_values():
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError, TypeError):
            text = [None if v is None else json.dumps(v, default=_json_default) for v in values]
            arrays.append(pa.array(text, pa.string()))
    return pa.Table.from_arrays(arrays, names=list(result.columns))


def to_polars(result):
    import polars as pl

    return pl.from_arrow(to_arrow(result))


def to_pandas(result):
    return to_arrow(result).to_pandas()
