#!/bin/sh
# How much faster ferry wrap is than it was, measured in one run on a fixed sample of real harvested
# PyTorch and Keras instances. Run from the top of a built tree (or: make bench-wrap):
#     bench/wrap/run.sh [WORKDIR]
# The samples: PyTorch's modules suite (convolutions, normalizations, poolings) and OpInfo
# functions, Keras's docstring examples, harvested once into WORKDIR (kept for the next run), each
# sorted by id and cut to its first lines: BENCH_TORCH_MODULES (default 150) and BENCH_TORCH_OPINFO
# (default 450) of PyTorch's, BENCH_KERAS (default 60) of Keras's; BENCH_LIBS (default "torch keras")
# names the libraries benchmarked (BENCH_LIBS=keras: Keras alone). A sample that small is wrapped in
# a minute or two, so a worker's start (importing torch or TensorFlow: seconds, tens of seconds on
# a busy machine) weighs in every run, before and after alike.
# Each sample is wrapped three times with -j JOBS (default: the number of cores):
#   before     FERRY_WRAP_SLOW=1, every format: the path and settings wrap had before
#   after      every format (ferry wrap without --frontend)
#   after -F   only the formats of the frontends named (BENCH_TORCH_FE, BENCH_KERAS_FE; by default
#              the main job's, scripts/main: PyTorch's six, which read every PyTorch format, ts, pt2
#              and json; Keras's four, openvino-tf, tvm-tflite, tflite, xla-tf, which read every
#              format Keras makes)
# and prints instances per second and the ratios against before. Each run's wall clock includes
# the workers' start (importing torch or TensorFlow), the same before and after: a fourth run wraps
# JOBS instances alone (one per worker: the start and one instance), and the ratios are printed
# again with that time taken off every run and JOBS instances off its count: the rates of a long
# wrap, where the start is paid once. Then bench/wrap/same.py checks
# that each after made the same tests as before (statuses, meta.json, inputs and references, array
# by array). The machine's load average is printed before and after: other work on the machine
# slows every run, so compare the ratios, measured back to back, rather than the rates.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
ferry=${FERRY:-$top/ferry}
py=${FERRY_PYTHON:-$top/.venv/bin/python}
work=${1:-$top/work/bench-wrap}
jobs=${JOBS:-$(nproc)}
nmodules=${BENCH_TORCH_MODULES:-150}
nopinfo=${BENCH_TORCH_OPINFO:-450}
nkeras=${BENCH_KERAS:-60}
torch_fe=${BENCH_TORCH_FE:-openvino-pytorch,openvino-export,openvino-fx,tvm-pytorch,inductor,torch-onnx-ort}
keras_fe=${BENCH_KERAS_FE:-openvino-tf,tvm-tflite,tflite,xla-tf}
libs=${BENCH_LIBS:-torch keras}
mkdir -p "$work"

case " $libs " in *" torch "*) torch=1 ;; *) torch=0 ;; esac
case " $libs " in *" keras "*) keras=1 ;; *) keras=0 ;; esac
if [ "$torch" = 1 ] && [ ! -s "$work/torch-modules.jsonl" ]; then
	"$ferry" harvest torch --suite modules -f 'torch.nn.Conv*' -f 'torch.nn.*Norm*' -f 'torch.nn.*Pool*' \
		-q -o "$work/torch-modules.jsonl" >/dev/null
fi
if [ "$torch" = 1 ] && [ ! -s "$work/torch-opinfo.jsonl" ]; then
	"$ferry" harvest torch --suite opinfo -f 'torch.nn.functional.[a-e]*' -f 'torch.[a-c]*' \
		-q -o "$work/torch-opinfo.jsonl" >/dev/null
fi
if [ "$keras" = 1 ] && [ ! -s "$work/keras-corpus.jsonl" ]; then
	"$ferry" harvest keras --suite docstrings -q -o "$work/keras-corpus.jsonl" >/dev/null
fi
if [ "$torch" = 1 ]; then
	{
		LC_ALL=C sort "$work/torch-modules.jsonl" | head -n "$nmodules"
		LC_ALL=C sort "$work/torch-opinfo.jsonl" | head -n "$nopinfo"
	} > "$work/torch.jsonl"
fi
[ "$keras" = 0 ] || LC_ALL=C sort "$work/keras-corpus.jsonl" | head -n "$nkeras" > "$work/keras.jsonl"

# wrap LABEL SAMPLE [options]: wrap SAMPLE into WORKDIR/LABEL; print the wall clock and the CPU time
# of ferry and its workers (less sensitive than the wall clock to what else the machine runs)
wrap() {
	label=$1 sample=$2
	shift 2
	rm -rf "${work:?}/$label"
	/usr/bin/time -f '%e %U %S' -o "$work/$label.time" \
		"$ferry" wrap "$sample" -o "$work/$label" -j "$jobs" -q "$@" >"$work/$label.txt" 2>&1
	n=$(wc -l < "$sample")
	awk -v n="$n" -v l="$label" '{ printf "  %-16s %4d instances  %7.1f s  %6.2f instances/s  %6.3f CPU s/instance\n",
		l, n, $1, n / $1, ($2 + $3) / n }' "$work/$label.time" | tee -a "$work/rates.txt"
}
ratio() {
	awk -v a="$1" -v b="$2" '$1 == a { ra = $6; ca = $8 } $1 == b { rb = $6; cb = $8 }
		END { printf "  %s against %s: %.2fx the instances per second, %.2fx less CPU time\n", b, a, rb / ra, ca / cb }' \
		"$work/rates.txt"
}
# steady LIB: the rates once the workers have started, from the runs' times less the start run's
steady() {
	awk -v lib="$1" -v j="$jobs" '
		$1 == lib "-start" { st = $4; sc = $8 * $2 }
		$1 ~ "^" lib "-(before|after|after-F)$" { n[$1] = $2; t[$1] = $4; c[$1] = $8 * $2 }
		END {
			b = lib "-before"
			rb = (n[b] - j) / (t[b] - st)
			cb = (c[b] - sc) / (n[b] - j)
			printf "  without the workers\047 start (%.1f s, %.1f CPU s):\n", st, sc
			printf "    %-16s %6.2f instances/s  %6.3f CPU s/instance\n", b, rb, cb
			for (k in n) if (k != b) {
				r = (n[k] - j) / (t[k] - st); c1 = (c[k] - sc) / (n[k] - j)
				printf "    %-16s %6.2f instances/s  %6.3f CPU s/instance: %.2fx the rate, %.2fx less CPU time\n",
					k, r, c1, r / rb, cb / c1
			}
		}' "$work/rates.txt"
}

echo "bench-wrap: $(nproc) cores, -j $jobs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/rates.txt"
status=0
for lib in $libs; do
	if [ "$lib" = torch ]; then fe=$torch_fe; else fe=$keras_fe; fi
	echo "$lib ($(wc -l < "$work/$lib.jsonl") instances; after -F: $fe):"
	FERRY_WRAP_SLOW=1 wrap "$lib-before" "$work/$lib.jsonl"
	wrap "$lib-after" "$work/$lib.jsonl"
	wrap "$lib-after-F" "$work/$lib.jsonl" -F "$fe"
	head -n "$jobs" "$work/$lib.jsonl" > "$work/$lib-start.jsonl"
	wrap "$lib-start" "$work/$lib-start.jsonl"
	ratio "$lib-before" "$lib-after"
	ratio "$lib-before" "$lib-after-F"
	steady "$lib"
	echo "  the same tests (after against before):"
	"$py" "$top/bench/wrap/same.py" "$work/$lib-before" "$work/$lib-after" | tail -n 5 || status=1
	echo "  the same tests (after -F against before):"
	"$py" "$top/bench/wrap/same.py" "$work/$lib-before" "$work/$lib-after-F" | tail -n 5 || status=1
done
echo "bench-wrap: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
