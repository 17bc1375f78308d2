#!/usr/bin/env bash
# Trunk post_build hook: write the app-shell list, the lazy list and a version into the staged
# sw.js, and the lazy list into lazy.json.
#
# The shell is every file Trunk staged (index.html, the hashed app wasm/js/css, the worker, the
# manifest and icons); the version hashes their names and contents, so any change to the app
# installs a new service worker and a new cache, and the old cache is deleted on activation.
# Counted in the version but not precached, so a first visit downloads only what asking needs:
# - the sandbox worker's wasm (RustPython, the largest file): LAZY, fetched by the page when the
#   Code view first needs it or once the course is ready (app/src/ui/lazy.rs reads lazy.json for
#   names and sizes), kept by the service worker, and carried into the next version's cache
#   when its sha256 is unchanged (Trunk does not hash worker file names);
# - the threaded worker build (mt/): only a cross-origin isolated page (never a first visit)
#   loads it, and the service worker keeps it once fetched.
set -euo pipefail
dir="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
cd "$dir"
[ -f sw.js ] || { echo "pwa-precache: no sw.js in $dir (index.html must copy static/sw.js)" >&2; exit 1; }
lazy="$(find . -maxdepth 1 -type f -name 'sandbox*_bg.wasm' | sed 's|^\./||' | LC_ALL=C sort)"
[ -n "$lazy" ] || { echo "pwa-precache: no sandbox*_bg.wasm in $dir (index.html must build the sandbox worker)" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
# Each lazy file hashed once, for lazy.json (the page) and LAZY (the service worker).
lazy_json="" lazy_js=""
for f in $lazy; do
  h="$(sha "$f")"
  lazy_json+="{\"path\": \"$f\", \"bytes\": $(stat -c %s "$f"), \"sha256\": \"$h\"}, "
  lazy_js+="{ path: './$f', sha256: '$h' }, "
done
printf '{"sandbox": [%s]}\n' "${lazy_json%, }" > lazy.json
lazy_js="[${lazy_js%, }]"
files="$(find . -type f ! -name sw.js ! -name assets.json ! -path './models/*' ! -name '*.bundle' | sed 's|^\./||' | LC_ALL=C sort)"
version="$(for f in $files; do printf '%s %s ' "$f" "$(sha "$f")"; done | sha256sum | cut -c1-16)"
is_lazy() { case " $(echo $lazy) " in *" $1 "*) return 0 ;; esac; return 1; }
shell="$(for f in $files; do case "$f" in mt/*) ;; *) is_lazy "$f" || printf "'./%s', " "$f" ;; esac; done)"
shell="[${shell%, }]"
tmp="$(mktemp)"
sed -e "s|^const VERSION = .*|const VERSION = '$version';|" -e "s|^const SHELL = .*|const SHELL = $shell;|" \
  -e "s|^const LAZY = .*|const LAZY = $lazy_js;|" sw.js > "$tmp"
grep -q "^const LAZY = \[" "$tmp" || { echo "pwa-precache: sw.js has no LAZY line" >&2; exit 1; }
mv "$tmp" sw.js
chmod 644 sw.js
echo "pwa-precache: shell version $version, $(echo "$files" | wc -l) files, lazy: $(echo $lazy)"
