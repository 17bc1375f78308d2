#!/bin/sh
# Builds llama_dump (and llama_requant) against node-llama-cpp's prebuilt llama.cpp: the very
# binaries tests/reference/llm_reference.mjs ran, so dumps match the fixtures bit for bit.
#   mkdir -p /tmp/nlc && cd /tmp/nlc && npm install node-llama-cpp@3.21.1 --ignore-scripts
#   sh tests/reference/llama_dump/build.sh            # -> /tmp/llama_dump/{llama_dump,llama_requant}
# Headers come from the llama.cpp sources node-llama-cpp ships (llama/gitRelease.bundle).
set -eu
NLC=${NLC:-/tmp/nlc/node_modules}
OUT=${OUT:-/tmp/llama_dump}
BIN=$NLC/@node-llama-cpp/linux-x64/bins/linux-x64
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
if [ ! -d "$OUT/llama.cpp" ]; then
    git clone -q "$NLC/node-llama-cpp/llama/gitRelease.bundle" "$OUT/llama.cpp"
fi
for tool in llama_dump llama_requant; do
    g++ -O2 -std=c++17 "$HERE/$tool.cpp" -I"$OUT/llama.cpp/include" -I"$OUT/llama.cpp/ggml/include" \
        -L"$BIN" -l:libllama.v0.4.0.so -l:libggml.v0.4.0.so -l:libggml-base.so -Wl,-rpath,"$BIN" -o "$OUT/$tool"
done
echo "built $OUT/llama_dump and $OUT/llama_requant; run them with LLAMA_DUMP_BACKENDS=$BIN"
