#!/usr/bin/env bash
# Write DIST/assets.json: the course bundle and model files the app downloads once and keeps in
# IndexedDB, each with its URL (relative to index.html), size, sha256 and version.
#
#   scripts/assets-manifest.sh dist
set -euo pipefail
dist="${1:?usage: scripts/assets-manifest.sh DIST}"
cd "$dist"
entry() { # name url [on_demand]
  [ -f "$2" ] || { echo "assets-manifest: $dist/$2 is missing" >&2; exit 1; }
  local sha bytes extra=""
  sha="$(sha256sum "$2" | cut -d' ' -f1)"
  bytes="$(stat -c %s "$2")"
  [ "${3:-}" = on_demand ] && extra=', "on_demand": true'
  printf '    {"name": "%s", "url": "%s", "bytes": %s, "sha256": "%s", "version": "%s"%s}' "$1" "$2" "$bytes" "$sha" "${sha:0:12}" "$extra"
}
# The sentence encoder the bundle was built with: multilingual-e5-small (one file, in
# models/e5-small/) when present, else all-MiniLM-L6-v2 (three files).
if [ -f models/e5-small/e5-small-q4.bin ]; then
  enc=models/e5-small
  enc_entries=("$(entry encoder-weights $enc/e5-small-q4.bin)")
else
  enc=models/all-MiniLM-L6-v2
  enc_entries=(
    "$(entry encoder-config $enc/config.json)"
    "$(entry encoder-tokenizer $enc/tokenizer.json)"
    "$(entry encoder-weights $enc/model.safetensors)"
  )
fi
# The course's chat model: Ask, the Code tutor and every other agent run on it (one download per
# course). TUTOR_LLM names a separate coder model for the tutor, downloaded the first time a
# learner plans a task of their own (the tests use it: a tiny course model, a real tutor model).
llm="${LLM:-qwen2.5-coder-0.5b-instruct-q4_k_m.gguf}"
tutor_llm="${TUTOR_LLM:-}"
[ "$tutor_llm" = "$llm" ] && tutor_llm=""
entries=(
  "$(entry bundle course.bundle)"
  "${enc_entries[@]}"
  "$(entry llm "models/$llm")"
)
[ -n "$tutor_llm" ] && entries+=("$(entry tutor-llm "models/$tutor_llm" on_demand)")
version="$(printf '%s\n' "${entries[@]}" | sha256sum | cut -c1-16)"
{
  printf '{\n  "version": "%s",\n  "assets": [\n' "$version"
  (IFS=$'\n'; echo "${entries[*]}" | sed '$!s/$/,/')
  printf '  ]\n}\n'
} > assets.json
echo "assets.json: version $version, $(du -ch course.bundle $enc/* "models/$llm" | tail -1 | cut -f1) at load ($llm)$([ -n "$tutor_llm" ] && echo ", $(du -h "models/$tutor_llm" | cut -f1) on demand ($tutor_llm)")"
