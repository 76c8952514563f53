#!/bin/sh
# venvs.sh DIR: clean virtualenvs under DIR, each holding one frontend and its library only, at
# requirements.txt's versions (issue 32: a reproducer must run where nothing of ferry is), and
# DIR/venvs.txt, lines "ADAPTER PYTHON" for bench/file/run.py --venvs. Made from the Python ferry
# embeds; the second time only what is missing is made.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: venvs.sh DIR}
base=$("$top/.venv/bin/python" -c 'import sys; print(sys._base_executable)')
pin() { grep -i "^$1==" "$top/requirements.txt"; }
mk() {
	name=$1
	shift
	if [ ! -f "$dir/$name/.done" ]; then
		rm -rf "${dir:?}/$name"
		"$base" -m venv "$dir/$name"
		"$dir/$name/bin/pip" -q install "$@"
		touch "$dir/$name/.done"
	fi
}
mkdir -p "$dir"
common="$(pin numpy) $(pin ml_dtypes)"
# shellcheck disable=SC2086 # the pins are words
{
	mk ort $common "$(pin onnx)" "$(pin onnxruntime)"
	mk openvino $common "$(pin onnx)" "$(pin openvino)"
	mk tvm $common "$(pin onnx)" "$(pin apache-tvm)"
	mk iree $common "$(pin onnx)" "$(pin iree-base-compiler)" "$(pin iree-base-runtime)"
	mk torch $common "$(pin torch)"
	mk torch-onnx $common "$(pin torch)" "$(pin onnx)" "$(pin onnxscript)" "$(pin onnxruntime)"
	mk torch-openvino $common "$(pin torch)" "$(pin openvino)"
	mk torch-tvm $common "$(pin torch)" "$(pin apache-tvm)"
}
cat >"$dir/venvs.txt" <<EOT
ort $dir/ort/bin/python
openvino-onnx $dir/openvino/bin/python
tvm-onnx $dir/tvm/bin/python
iree-onnx $dir/iree/bin/python
inductor $dir/torch/bin/python
torch-onnx-ort $dir/torch-onnx/bin/python
openvino-fx $dir/torch-openvino/bin/python
openvino-pytorch $dir/torch-openvino/bin/python
openvino-export $dir/torch-openvino/bin/python
tvm-pytorch $dir/torch-tvm/bin/python
EOT
echo "$dir/venvs.txt"
