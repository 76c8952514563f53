#!/bin/sh
# A wrap directory is data (issue 27): its model.pt2 may come from someone else. torch.export.load
# falls back to an unrestricted torch.load (weights_only=False) when the weights-only load of one of
# the archive's pickles fails, and so runs whatever that pickle names. ferry loads ExportedPrograms
# with the fallback kept to weights only: a model.pt2 whose pickle would write a marker file, run
# through the frontends that read it (and wrap's own load), writes nothing. The same file loaded by
# plain torch.export.load writes the marker, so the test can tell.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
fes=""
"$py" -c 'import openvino' 2>/dev/null && fes="openvino-export"
"$py" -c 'import tvm' 2>/dev/null && fes="${fes:+$fes,}tvm-pytorch"
[ -n "$fes" ] || skip_all "neither OpenVINO nor TVM, which read model.pt2, is installed"
plan 6

"$FERRY" harvest torch -s nn -f torch.nn.ReLU -q -o corpus.jsonl >/dev/null 2>&1
"$FERRY" wrap corpus.jsonl -o w -q >/dev/null 2>&1
pt2=$(find w -name model.pt2 | head -n 1)
check "the wrap made a model.pt2" -- test -n "$pt2"
dir=$(dirname "$pt2")

# The archive's pickled sample inputs replaced by a pickle whose load runs a shell command.
"$py" - "$pt2" "$work/evil.pt2" "$work/marker" <<'EOF'
import io, os, sys, zipfile
import torch

src, dst, marker = sys.argv[1:]
class Payload:
    def __reduce__(self):
        return (os.system, (f"touch {marker}",))
buf = io.BytesIO()
torch.save(Payload(), buf)
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zo:
    for info in zi.infolist():
        data = zi.read(info.filename)
        zo.writestr(info, buf.getvalue() if info.filename.endswith(".pt") else data)
EOF
"$py" -c 'import sys, torch
try:
    torch.export.load(sys.argv[1])
except Exception:
    pass' "$work/evil.pt2" >/dev/null 2>&1
check "the payload runs under plain torch.export.load (the test can tell)" -- test -f marker
rm -f marker

cp "$work/evil.pt2" "$pt2"
"$FERRY" run w -F "$fes" -o s.db -q >/dev/null 2>&1
check "a run of $fes on it ran no payload" -- test ! -f marker
for fe in $(echo "$fes" | tr , ' '); do
	"$FERRY" run --one "$dir" -F "$fe" >/dev/null 2>&1
done
check "nor did run --one" -- test ! -f marker
outcomes=$("$py" -c 'import sqlite3, sys
print(" ".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT DISTINCT outcome FROM results")))' s.db)
check "no frontend passed the hostile model ($outcomes)" -- sh -c "! echo '$outcomes' | grep -qw pass"
"$FERRY" report s.db -o rep >/dev/null 2>&1
check "nor did report -o" -- test ! -f marker
finish
