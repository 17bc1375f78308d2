#!/usr/bin/env bash
# Write DIST/assets.json: the course bundle and model files the app downloads once and keeps in
# IndexedDB, each with its URL (relative to index.html), size, sha256 and version.
#
#   scripts/assets-manifest.sh dist
set -euo pipefail
dist="${1:?usage: scripts/assets-manifest.sh DIST}"
cd "$dist"
entry() { # name url
  [ -f "$2" ] || { echo "assets-manifest: $dist/$2 is missing" >&2; exit 1; }
  local sha bytes
  sha="$(sha256sum "$2" | cut -d' ' -f1)"
  bytes="$(stat -c %s "$2")"
  printf '    {"name": "%s", "url": "%s", "bytes": %s, "sha256": "%s", "version": "%s"}' "$1" "$2" "$bytes" "$sha" "${sha:0:12}"
}
enc=models/all-MiniLM-L6-v2
llm="$(cd models && ls *.gguf | head -1)"
entries=(
  "$(entry bundle course.bundle)"
  "$(entry encoder-config $enc/config.json)"
  "$(entry encoder-tokenizer $enc/tokenizer.json)"
  "$(entry encoder-weights $enc/model.safetensors)"
  "$(entry llm "models/$llm")"
)
version="$(printf '%s\n' "${entries[@]}" | sha256sum | cut -c1-16)"
{
  printf '{\n  "version": "%s",\n  "assets": [\n' "$version"
  (IFS=$'\n'; echo "${entries[*]}" | sed '$!s/$/,/')
  printf '  ]\n}\n'
} > assets.json
echo "assets.json: version $version, $(du -ch course.bundle $enc/* models/$llm | tail -1 | cut -f1)"
