"""Bring the labelled stores up to what ferry's wrap flags today: a result that a re-run of the same
test with today's wrap records "undefined" (its inputs lie where the operator's result is undefined:
a float cast out of an integer type's range, integer arithmetic that overflows; templates/onnx.py)
replaces the stored one. Every other row is left as the original run made it, so no other outcome
moves with the environment of the re-run.

usage: refresh-undefined.py RERUN.db STORE.db...   (RERUN: ferry run of the labelled tests, re-wrapped)
"""

import sqlite3
import sys


def main(rerun, stores):
    new = sqlite3.connect("file:" + rerun + "?mode=ro", uri=True)
    rows = new.execute("SELECT frontend, id, outcome, stage, exc_type, message FROM results"
                       " WHERE outcome = 'undefined'").fetchall()
    for path in stores:
        d = sqlite3.connect(path)
        changed = 0
        for fe, i, outcome, stage, exc, msg in rows:
            cur = d.execute("UPDATE results SET outcome = ?, stage = ?, exc_type = ?, message = ?, detail = NULL"
                            " WHERE frontend = ? AND id = ? AND outcome != 'undefined'",
                            (outcome, stage, exc, msg, fe, i))
            changed += cur.rowcount
        d.commit()
        print("%s: %d results now undefined" % (path, changed))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
