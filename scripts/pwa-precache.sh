#!/usr/bin/env bash
# Trunk post_build hook: write the app-shell list and a version into the staged sw.js.
#
# The shell is every file Trunk staged (index.html, the hashed app wasm/js/css, the worker, the
# manifest and icons); the version hashes their names and contents, so any change to the app
# installs a new service worker and a new cache, and the old cache is deleted on activation.
# The threaded worker build (mt/) counts in the version but is not precached: only a cross-origin
# isolated page (never a first visit) loads it, and the service worker keeps it once fetched.
set -euo pipefail
dir="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
cd "$dir"
[ -f sw.js ] || { echo "pwa-precache: no sw.js in $dir (index.html must copy static/sw.js)" >&2; exit 1; }
files="$(find . -type f ! -name sw.js ! -name assets.json ! -path './models/*' ! -name '*.bundle' | sed 's|^\./||' | LC_ALL=C sort)"
version="$(for f in $files; do printf '%s ' "$f"; sha256sum "$f" | cut -d' ' -f1; done | sha256sum | cut -c1-16)"
shell="$(for f in $files; do case "$f" in mt/*) ;; *) printf "'./%s', " "$f" ;; esac; done)"
shell="[${shell%, }]"
tmp="$(mktemp)"
sed -e "s|^const VERSION = .*|const VERSION = '$version';|" -e "s|^const SHELL = .*|const SHELL = $shell;|" sw.js > "$tmp"
mv "$tmp" sw.js
chmod 644 sw.js
echo "pwa-precache: shell version $version, $(echo "$files" | wc -l) files"
