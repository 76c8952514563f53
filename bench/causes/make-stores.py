"""Write bench/causes/stores/NAME.db: a copy of each labelled store that holds only what the labels need.

Each copy keeps the store's schema (every table and index, so that ferry opens it as the store it was),
its meta and runs tables, and of the rest only the rows of the labelled failures: their results rows and
the instances rows of their tests, which is what `ferry bugs` reads to group them. The bugs and
bug_members tables are left empty (ferry bugs rebuilds them); support, reductions and mutations are left
empty too.

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
    for table in ("meta", "runs"):
        rows = s.execute("SELECT * FROM %s" % table).fetchall()
        if rows:
            d.executemany("INSERT INTO %s VALUES (%s)" % (table, ",".join("?" * len(rows[0]))), rows)
    ids = sorted({i for _, i in keys})
    for fe, i in sorted(keys):
        row = s.execute("SELECT * FROM results WHERE frontend = ? AND id = ?", (fe, i)).fetchone()
        if row is None:
            sys.exit("make-stores: %s has no result for %s %s" % (src, fe, i))
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
