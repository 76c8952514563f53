"""Write bench/causes/stores/NAME.db: a copy of each labelled store that holds only what the labels need.

Each copy keeps the store's schema (every table and index, so that ferry opens it as the store it was),
its meta, runs, support and environment tables (the probes' verdicts per operator and dtype, the canary's per
frontend and release), and of the rest only
the rows of the labelled tests: the results of every frontend that ran them (the labelled failures and
what the other frontends made of the same test, the evidence a grouping may weigh; without their
tracebacks, which no grouping reads and which were most of the size) and their instances rows. The
bugs and bug_members tables are left empty (ferry bugs rebuilds them); reductions and mutations are
left empty too.

usage: make-stores.py LABELS OUTDIR NAME=STORE...
"""

import json
import os
import sqlite3
import sys


def copy(src, dst, keys):
    if os.path.exists(dst):
        os.unlink(dst)
    s = sqlite3.connect("file:" + src + "?mode=ro", uri=True)
    d = sqlite3.connect(dst)
    for (sql,) in s.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                            "ORDER BY type = 'index', name"):
        d.execute(sql)
    for table in ("meta", "runs", "support", "environment"):
        if not s.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            continue
        rows = s.execute("SELECT * FROM %s" % table).fetchall()
        if rows:
            d.executemany("INSERT INTO %s VALUES (%s)" % (table, ",".join("?" * len(rows[0]))), rows)
    ids = sorted({i for _, i in keys})
    for fe, i in sorted(keys):
        if s.execute("SELECT 1 FROM results WHERE frontend = ? AND id = ?", (fe, i)).fetchone() is None:
            sys.exit("make-stores: %s has no result for %s %s" % (src, fe, i))
    cols = [r[1] for r in s.execute("PRAGMA table_info(results)")]
    for i in ids:
        for row in s.execute("SELECT * FROM results WHERE id = ? ORDER BY frontend", (i,)).fetchall():
            row = list(row)
            # The traceback (detail) is no part of what a grouping weighs, and most of the size.
            row[cols.index("detail")] = None
            d.execute("INSERT INTO results VALUES (%s)" % ",".join("?" * len(row)), row)
    for i in ids:
        row = s.execute("SELECT * FROM instances WHERE id = ?", (i,)).fetchone()
        if row is not None:
            d.execute("INSERT INTO instances VALUES (%s)" % ",".join("?" * len(row)), row)
    d.commit()
    d.execute("VACUUM")
    d.close()


def main():
    labels = [json.loads(line) for line in open(sys.argv[1])]
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for arg in sys.argv[3:]:
        name, src = arg.split("=", 1)
        keys = {(lab["frontend"], lab["test"]) for lab in labels if lab["store"] == name}
        dst = os.path.join(outdir, name + ".db")
        copy(src, dst, keys)
        print("%s: %d failures, %d bytes" % (dst, len(keys), os.path.getsize(dst)))


if __name__ == "__main__":
    main()
