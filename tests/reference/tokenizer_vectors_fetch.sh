#!/usr/bin/env bash
# llama.cpp's tokenizer test vectors, from the llama-cpp-python source distribution on PyPI.
#
#   tests/reference/tokenizer_vectors_fetch.sh
#
# The sdist vendors llama.cpp; its models/ folder holds vocabulary-only GGUF files
# (ggml-vocab-*.gguf) with test inputs (.gguf.inp: texts separated by "\n__ggml_vocab_test__\n")
# and llama.cpp's token ids for them (.gguf.out: one line of ids per text; made with
# add_special = false, parse_special = false). They land in $PATHSHALA_MODELS/llama-vocab/
# (default models/cache/llama-vocab/, git-ignored) and are read by
# inference/tests/llm_tokenizer_vectors.rs. Already-fetched files are kept.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${PATHSHALA_MODELS:-$here/models/cache}/llama-vocab"
version=0.3.36
sdist_sha=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
stamp="$dest/.llama-cpp-python-$version"

if [ -f "$stamp" ]; then
  echo "tokenizer vectors: $dest (cached, llama-cpp-python $version)"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
# --no-binary for this package only: its build dependencies may still come as wheels.
python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python -d "$tmp" "llama-cpp-python==$version"
sdist="$tmp/llama_cpp_python-$version.tar.gz"
[ "$(sha256sum "$sdist" | cut -d' ' -f1)" = "$sdist_sha" ] || { echo "error: $sdist does not match its sha256; refusing to use it" >&2; exit 1; }
mkdir -p "$dest"
tar xzf "$sdist" -C "$tmp" --wildcards "llama_cpp_python-$version/vendor/llama.cpp/models/ggml-vocab-*"
cp "$tmp/llama_cpp_python-$version/vendor/llama.cpp/models/"ggml-vocab-* "$dest/"
touch "$stamp"
echo "tokenizer vectors: $dest ($(ls "$dest"/*.gguf.inp | wc -l) vocabularies with vectors, llama-cpp-python $version)"
