#!/bin/sh
# ferry report --html DIR: one self-contained page, rendered here in headless Chromium (Debian's
# chromium) and checked by what it shows: outcomes per frontend, the frontend x operator grid, the
# unsupported reasons, every bug with its whole message and a reproducer that exists, the queues'
# bug-discovery curves and the timings, drawn as inline SVG. The page loads nothing (no network, no
# other file) and runs only its own script, which its CSP names by hash; hostile messages
# (</script>, <img onerror>) are text on it. The
# screenshot is kept in the work directory and copied to tests/cli/report-html.png in the build
# tree, to look at.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module onnx
need_python_module onnxruntime
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || skip_all "no chromium (Debian's chromium package; scripts/setup installs it)"
plan 33
export FERRY_ADAPTERS="$top_srcdir/tests/data/adapters"
"$FERRY" harvest onnx -q -o corpus.jsonl -f test_ceil -f test_relu -f test_exp -f test_floor -f test_add >/dev/null
"$FERRY" wrap corpus.jsonl -o wrapped -q >/dev/null
"$FERRY" run wrapped -F fault:onnx,offbyone,ort -o results.db -q --timeout 30 >/dev/null
"$FERRY" rank corpus.jsonl -o queue.jsonl -q
sort -r queue.jsonl > reversed.jsonl
# A frontend's message is data: one that would close a script, load an image and run code.
hostile='injected </script><script>document.title="pwned"</script><img src=x onerror="document.title=1"> & <b>bold</b>'
"$py" - results.db "$hostile" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE results SET message = ?, exc_type = '<i>Err</i>' WHERE frontend = 'fault' AND outcome = 'crash' "
          "AND id IN (SELECT id FROM instances WHERE op = 'Exp')", (sys.argv[2],))
c.commit()
PY

expect_exit 0 "report --html" -- "$FERRY" report results.db --html page --queue ranked=queue.jsonl \
	--queue reversed=reversed.jsonl
contains "it says what it wrote" "$out" "wrote page/index.html ("
check "one page" -- test -s page/index.html
# One script, ferry's own (the bug lists' sort and filter), which the page's CSP names by its hash:
# none that a message could bring runs.
check "one script on it" -- test "$(grep -oi '<script' page/index.html | wc -l)" -eq 1
check "the CSP names it by its SHA-256" -- "$py" -c '
import base64, hashlib, re
page = open("page/index.html").read()
csp = re.search(r"Content-Security-Policy\" content=\"([^\"]*)", page).group(1)
body = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
assert "script-src '"'"'sha256-%s'"'"'" % digest in csp, csp'
check "nothing fetched: no URL on it" -- sh -c '! grep -Eqi "(https?|ftp):|//[a-z]" page/index.html'
check "no other file: no src attribute, and links only to reproducers and anchors" -- "$py" -c '
from html.parser import HTMLParser
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            assert name not in ("src", "srcset", "action", "data") and not name.startswith("on"), (tag, name)
            assert name != "href" or value.startswith(("#", "reproducers/")), value
P().feed(open("page/index.html").read())'
check "plots are inline SVG" -- test "$(grep -c '<svg' page/index.html)" -ge 3

# Chromium, headless: the DOM after rendering, and a screenshot.
chrome_run() {
	"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
		--user-data-dir="$work/chrome" "$@" 2>>chrome.log
}
t0=$(date +%s%N)
chrome_run --dump-dom "file://$work/page/index.html" > dom.html || true
t1=$(date +%s%N)
echo "# rendered $(wc -c < page/index.html) bytes in $(( (t1 - t0) / 1000000 )) ms"
check "Chromium rendered it" -- grep -q '</html>' dom.html
# The text a reader sees: the DOM's text nodes.
"$py" - > text.txt <<'PY'
from html.parser import HTMLParser
class T(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.title, self.tags, self.in_title = [], "", [], False
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.in_title = tag == "title"
    def handle_endtag(self, tag):
        self.in_title = False
    def handle_data(self, data):
        self.parts.append(data)
        if self.in_title:
            self.title += data
t = T()
t.feed(open("dom.html").read())
print("TITLE", t.title)
print("TAGS", " ".join(sorted(set(t.tags))))
print(" ".join(" ".join(t.parts).split()))
PY
text=$(cat text.txt)
contains "the title is the store's, not the message's" "$(grep '^TITLE' text.txt)" "TITLE ferry report: results.db"
case "$(grep '^TAGS' text.txt) " in *" img "*) ok 1 "no element made of a message" ;; *) ok 0 "no element made of a message" ;; esac
check "the DOM's one script is the page's" -- test "$(grep -o '<script' dom.html | wc -l)" -eq 1
check "which ran under the CSP: the filter shows" -- grep -q '<div id="bug-filter" class="filter">' dom.html
contains "the hostile message shows as text" "$text" 'injected </script><script>document.title="pwned"</script><img src=x onerror="document.title=1"> & <b>bold</b>'
contains "its exception type too" "$text" "<i>Err</i>: injected"
contains "outcomes per frontend" "$text" "Outcomes per frontend"
for fe in fault offbyone ort; do
	contains "frontend $fe in the table" "$text" "$fe"
done
contains "the grid" "$text" "Frontends and operators"
contains "the unsupported reasons" "$text" "injected: operator Floor is not supported by this frontend"
contains "the bugs" "$text" "Unique bugs"
contains "a mismatch's line" "$text" "output 0: 60 of 60 elements beyond atol 0.001 + rtol 0.001"
contains "a crash's" "$text" "the worker killed by signal 11 (SIGSEGV) during compile"
contains "the curves of both queues" "$text" "ranked APFD"
contains "with their table" "$text" "reversed 5 8 0"
contains "the timings" "$text" "slowest tests"
nrep=$(grep -o 'href="reproducers/[^"]*"' page/index.html | wc -l)
check "a reproducer per bug ($nrep)" -- test "$nrep" -eq "$("$FERRY" bugs results.db --json | "$py" -c 'import json, sys; print(len(json.load(sys.stdin)["bugs"]))')"
check "each link leads to its script" -- sh -c 'for f in $(grep -o "href=\"reproducers/[^\"]*\"" page/index.html | sed "s/href=\"//; s/\"$//"); do test -s "page/$f" || exit 1; done'
check "a reproducer is a Python script" -- sh -c "'$py' -m py_compile page/reproducers/offbyone/Ceil-*.py"
chrome_run --screenshot="$work/page.png" --window-size=1300,3200 "file://$work/page/index.html" >/dev/null || true
check "a screenshot" -- "$py" -c '
import sys
data = open("page.png", "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50000, len(data)'
cp page.png "$top_builddir/tests/cli/report-html.png" 2>/dev/null || true
# --op narrows the page to the operators it matches.
expect_exit 0 "report --html --op" -- "$FERRY" report results.db --html ceil --op Ceil
check "only Ceil's bugs on it" -- sh -c '! grep -q "operators <code>Relu" ceil/index.html && grep -q "operators <code>Ceil" ceil/index.html'
finish
