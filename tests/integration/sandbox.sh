#!/bin/sh
# The harvest sandbox against tests that try to leave it (tests/data/hostile-pytest/escape_*.py):
# typing into the terminal ferry runs on with TIOCSTI (ferry is given a pseudo-terminal of this
# script's own, as its controlling terminal), remounting the read-only root as root and writing the
# host, reaching a loopback listener and an abstract unix socket of this script's, reading a file
# outside the suite, and printing terminal escapes. Each must fail, and the test's harvest go on.
# Then a harvest killed with SIGKILL: the next one removes the scratch directory it left, and no
# live one's. Where the machine refuses a part of the sandbox, ferry's warning must name it, and
# the checks of that part are skipped.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
need_python_module pytest
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
hostile=$top_srcdir/tests/data/hostile-pytest

mkdir tmp
TMPDIR=$work/tmp
export TMPDIR
listener=
# Processes this script started, and what a killed ferry left: found by the scratch directories on
# their command lines.
leftovers() { for p in /proc/[0-9]*; do grep -qF "$work/" "$p/cmdline" 2>/dev/null && echo "${p#/proc/}"; done; true; }
cleanup() {
	[ -z "$listener" ] || kill "$listener" 2>/dev/null || true
	for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$work"
}

set +e
"$FERRY" harvest torch -q --pytest "$hostile/test_print.py" -o probe.jsonl 2>probe.err
set -e
case "$(cat probe.err)" in *"harvesting without a sandbox"*) skip_all "bubblewrap cannot make a sandbox here: $(grep -m1 sandbox probe.err)" ;; esac
plan 33
# A part the machine refuses is named in one warning; its checks are skipped, not failed.
missing=$(grep "the harvest sandbox is incomplete here" probe.err || true)
skip_unless() {  # skip_unless MISSING NAME: when the warning says MISSING, a SKIP and 0; else 1
	case "$missing" in *"$1"*) ok 0 "$2 # SKIP $1 on this machine" ;; *) return 1 ;; esac
}

# --- (a) the terminal ----------------------------------------------------------------------------
# ferry runs on a pseudo-terminal that is its controlling terminal, in raw mode: what TIOCSTI
# pushes waits in the terminal's input, where a shell would read it; this script reads it instead.
cat > pty.py <<'PY'
import fcntl, os, select, subprocess, sys, termios, tty
master, slave = os.openpty()
tty.setraw(slave)
def take_terminal():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
p = subprocess.Popen(sys.argv[3:], stdin=slave, stdout=slave, stderr=slave, preexec_fn=take_terminal)
out = b""
while True:
    ready, _, _ = select.select([master], [], [], 0.2)
    if ready:
        try:
            out += os.read(master, 65536)
        except OSError:
            pass
    elif p.poll() is not None:
        break
os.set_blocking(slave, False)
try:
    typed = os.read(slave, 65536)
except BlockingIOError:
    typed = b""
open(sys.argv[1], "wb").write(out)
open(sys.argv[2], "wb").write(typed)
sys.exit(p.returncode)
PY
HOSTILE_TYPED="touch $work/typed-by-a-test
" expect_exit 0 "a harvest on a terminal completes" -- \
	"$py" pty.py tty.out typed.bin "$FERRY" harvest torch -q --pytest "$hostile/escape_tty.py" -o tty.jsonl
check "the test's instance is in the corpus" -- grep -q '"op":"torch.relu"' tty.jsonl
check "nothing was typed into the terminal ($(wc -c < typed.bin) bytes)" -- test ! -s typed.bin
contains "the test could not open /dev/tty" "$(cat tty.out)" "hostile-tty: /dev/tty not opened"
# Without bubblewrap the child is in the user's session, and lets go of the terminal itself.
FERRY_BWRAP=$work/no-such-bwrap expect_exit 0 "without bubblewrap, a harvest on a terminal completes" -- \
	"$py" pty.py tty2.out typed2.bin "$FERRY" harvest torch -q --pytest "$hostile/escape_tty.py" -o tty2.jsonl
check "... and nothing was typed into the terminal ($(wc -c < typed2.bin) bytes)" -- test ! -s typed2.bin
contains "... nor could the test open /dev/tty" "$(cat tty2.out)" "hostile-tty: /dev/tty not opened"

# --- (b) to (e) in one harvest: root, the network, the file system, escapes ----------------------
# A loopback listener and an abstract unix socket, out here: what reaches them is kept in net.got.
"$py" - "$work/net" <<'PY' &
import os, socket, sys, time
base = sys.argv[1]
tcp = socket.socket()
tcp.bind(("127.0.0.1", 0))
tcp.listen(8)
unix = socket.socket(socket.AF_UNIX)
name = f"ferry-test-sandbox-{os.getpid()}"
unix.bind("\0" + name)
unix.listen(8)
for s in (tcp, unix):
    s.settimeout(0.1)
with open(base + ".tmp", "w") as f:
    f.write(f"{tcp.getsockname()[1]} {name}\n")
os.rename(base + ".tmp", base + ".addr")
got = open(base + ".got", "ab")
end = time.time() + 600
while time.time() < end and not os.path.exists(base + ".stop"):
    for s in (tcp, unix):
        try:
            c, _ = s.accept()
        except OSError:
            continue
        c.settimeout(2)
        try:
            got.write(c.recv(4096) or b"(connected)\n")
        except OSError:
            got.write(b"(connected)\n")
        got.flush()
        c.close()
PY
listener=$!
i=0
while [ ! -e net.addr ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
read -r port abstract < net.addr
mkdir secret
echo "secret-$$-words" > secret/file
HOSTILE_PORT=$port HOSTILE_ABSTRACT=$abstract HOSTILE_SECRET=$work/secret/file \
HOSTILE_REMOUNT_TARGET=$work/remounted HOSTILE_TOKEN=token-$$-words \
	expect_exit 0 "a harvest of tests that try to leave the sandbox completes" -- \
	"$FERRY" harvest torch -q --env HOSTILE_PORT --env HOSTILE_ABSTRACT --env HOSTILE_SECRET \
	--env HOSTILE_REMOUNT_TARGET --pytest "$hostile/escape_root.py" --pytest "$hostile/escape_net.py" \
	--pytest "$hostile/escape_fs.py" --pytest "$hostile/escape_stderr.py" -o escape.jsonl
touch net.stop
wait "$listener" || true
listener=
for op in floor ceil round trunc; do
	check "torch.$op, recorded before its test misbehaved, is in the corpus" -- grep -q "\"op\":\"torch.$op\"" escape.jsonl
done

# (b) root
if [ "$(id -u)" -ne 0 ]; then
	for i in 1 2 3; do ok 0 "root's capabilities # SKIP not run as root"; done
else
	skip_unless "capabilities not dropped" "as root, a test has no capability left" ||
		contains "as root, a test has no capability left" "$err" "hostile-root: CapEff=0000000000000000 NoNewPrivs=1 Seccomp=2"
	contains "... cannot remount the read-only root" "$err" "hostile-root: remount: Operation not permitted"
	check "... and so did not write the host's file" -- test ! -e remounted
fi
skip_unless "user namespaces not disabled inside" "a test cannot make a user namespace to get them back" ||
	check "a test cannot make a user namespace to get them back" -- \
	sh -c 'printf "%s\n" "$1" | grep "hostile-root: user namespace:" | grep -qv made' _ "$err"

# (c) the network
if skip_unless "no network namespace" "no connection reached the listeners outside"; then
	ok 0 "... # SKIP no network namespace on this machine"
	ok 0 "... # SKIP no network namespace on this machine"
else
	check "no connection reached the listeners outside ($(wc -c < net.got) bytes)" -- test ! -s net.got
	contains "... the test was refused at the loopback" "$err" "hostile-net: tcp not connected"
	contains "... and the host's abstract unix sockets are not in its namespace" "$err" \
		"hostile-net: abstract name bound: a namespace of its own"
fi

# (d) the file system
secret=$(cat secret/file)
case "$err" in *"$secret"*) ok 1 "a file outside the suite cannot be read" ;; *) ok 0 "a file outside the suite cannot be read" ;; esac
contains "... nor its directory listed" "$err" "hostile-fs: not listed $work/secret: No such file or directory"
case "$err" in *token-$$-words*) ok 1 "ferry's environment stays outside, but what --env names" ;;
*) contains "ferry's environment stays outside, but what --env names" "$err" "hostile-fs: no token in the environment" ;; esac

# (e) escapes
esc=$(printf '\033')
case "$err" in *"$esc"*) ok 1 "no escape character of a test reaches ferry's stderr" ;; *) ok 0 "no escape character of a test reaches ferry's stderr" ;; esac
contains "... the escapes are shown escaped, marked as the test's" "$err" \
	'test| hostile-esc: \x1b]0;retitled by a test\x07\x1b[2J\x1b[31mred\x1b[0m'
contains "... what it wrote to fd 1 too" "$err" 'test| hostile-esc on fd 1: \x1b[2J\x9b31m'

# --- the machine refuses parts: said once, by name -----------------------------------------------
# A bwrap that refuses --unshare-net and --seccomp, as a machine without network namespaces and
# seccomp would: the harvest goes on with the rest, and says which parts are missing.
cat > refusing-bwrap <<EOF
#!/bin/sh
for a; do case "\$a" in --unshare-net|--seccomp) echo "bwrap: refused \$a here" >&2; exit 1 ;; esac; done
exec "$(command -v bwrap)" "\$@"
EOF
chmod +x refusing-bwrap
FERRY_BWRAP=$work/refusing-bwrap expect_exit 0 "where the machine refuses parts, the harvest goes on" -- \
	"$FERRY" harvest torch -q --pytest "$hostile/test_print.py" -o refused.jsonl
n=$(printf '%s\n' "$err" | grep -c "the harvest sandbox is incomplete here" || true)
check "... saying so once ($n)" -- test "$n" -eq 1
contains "... naming each refused part and what it leaves open" "$err" \
	"no seccomp filter: the tests can call mount, ptrace, keyctl, unshare, bpf and ioctl TIOCSTI; no network namespace: the tests can reach the network"

# --- (f) a killed harvest's scratch directory ----------------------------------------------------
mkdir kill
TMPDIR=$work/kill "$FERRY" harvest torch -q --timeout 600 --pytest "$hostile/escape_hang.py" -o killed.jsonl \
	>/dev/null 2>killed.err &
pid=$!
# the test says when it hangs, through ferry's stderr, at once
i=0
while ! grep -q "hostile-hang: hanging" killed.err 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $pid
wait $pid 2>/dev/null || true
# ferry's children outlive it, hanging; they are this script's to end
for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || true; done
left=$(ls kill | grep '^ferry-scratch\.' || true)
check "a harvest killed with SIGKILL leaves its scratch directory (${left:-none})" -- test -n "$left"
# one in use by a live process, one of another program without an owner file
mkdir kill/ferry-scratch.LIVE00 kill/ferry-scratch.NOOWNR
echo 1 > kill/ferry-scratch.LIVE00/owner
flock kill/ferry-scratch.LIVE00/owner sleep 120 &
holder=$!
sleep 0.5
TMPDIR=$work/kill expect_exit 0 "the next harvest runs" -- \
	"$FERRY" harvest torch -q --pytest "$hostile/test_print.py" -o after.jsonl
check "... and removes the killed one's scratch directory" -- test ! -e "kill/$left"
check "... but not one whose owner lives" -- test -e kill/ferry-scratch.LIVE00/owner
check "... nor one that is not provably ferry's and abandoned" -- test -d kill/ferry-scratch.NOOWNR
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
finish
