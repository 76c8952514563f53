"""Bring the labelled stores up to what ferry's ONNX template keeps today: an instance beyond a limit of
its operator's specification that onnx leaves unchecked (templates/_limits.py: a LayerNormalization
axis outside [-r, r), NonMaxSuppression boxes and scores that disagree, a loss target outside [0, C)
and not ignore_index, ...) is one ferry vary no longer keeps and ferry wrap refuses. Its results leave the
copy, as a run of today's ferry would never have made them, and the instance is marked invalid with
the limit, as ferry wrap records one it refuses; its labels stay in labels.jsonl (score.py scores
only the labelled tests the copy holds a result of). Every other row is left as the
original run made it.

usage: PYTHONPATH=python .venv/bin/python refresh-limits.py STORE.db...
"""

import json
import sqlite3
import sys
import warnings

from ferry.templates import _limits
from ferry.templates import onnx as template


def beyond(record_json):
    """The reason an ONNX node record is beyond its operator's specification, else None."""
    record = json.loads(record_json)
    if record.get("library") != "onnx" or record.get("kind") == "graph":
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = template._Plan(record)
            _limits.check(template._model(plan), template._feeds(plan))
    except _limits.OutsideSpec as e:
        return str(e)
    except Exception:  # a record today's template cannot build is no business of this script's
        return None
    return None


def main(stores):
    for path in stores:
        d = sqlite3.connect(path)
        gone = [(i, why) for i, rec in d.execute("SELECT id, record FROM instances") if (why := beyond(rec))]
        tables = [t for (t,) in d.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                  if any(c[1] == "id" for c in d.execute("PRAGMA table_info(%s)" % t))]
        for i, why in gone:
            for table in tables:
                if table != "instances":
                    d.execute("DELETE FROM %s WHERE id = ?" % table, (i,))
            # as ferry wrap records an instance it refuses
            d.execute("UPDATE instances SET status = 'invalid', reason = ? WHERE id = ?", ("OutsideSpec: " + why, i))
        d.commit()
        d.execute("VACUUM")
        print("%s: %d instances beyond their operator's specification, their results out of the copy" % (path, len(gone)))
        for i, why in gone:
            print("  %s %s" % (i, why[:120]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
