# Sourced by the threaded wasm builds (scripts/build-threaded.sh, tests/reference/llm_bench_browser.sh):
# the pinned nightly (`-Z build-std`: std rebuilt with shared memory) and the flags.
#
# RUSTFLAGS replaces .cargo/config.toml's wasm32 flags, so they are repeated here. The linker is
# told about shared memory explicitly (this nightly does not add it for `+atomics`): memory
# imported and shared, a 4 GiB maximum (wasm32's limit, so the larger models fit), and the TLS
# symbols wasm-bindgen's thread start needs.
# nightly-2026-05-20 is rustc 1.97.0-nightly (e50aa6fba 2026-05-19); a machine whose plain
# `nightly` is that same build may use it under that name.
PATHSHALA_NIGHTLY="${PATHSHALA_NIGHTLY:-nightly-2026-05-20}"
if ! rustc "+$PATHSHALA_NIGHTLY" -V >/dev/null 2>&1 && rustc +nightly -V 2>/dev/null | grep -q "(e50aa6fba 2026-05-19)"; then
  PATHSHALA_NIGHTLY=nightly
fi
WASM_MT_TARGET_DIR="${WASM_MT_TARGET_DIR:-$HOME/.cache/pathshala/target-wasm-mt}"
THREADED_RUSTFLAGS='--cfg getrandom_backend="wasm_js" -C target-feature=+simd128,+atomics,+bulk-memory'
for arg in --shared-memory --import-memory --max-memory=4294967296 \
  --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base; do
  THREADED_RUSTFLAGS+=" -C link-arg=$arg"
done
if ! rustc "+$PATHSHALA_NIGHTLY" -V >/dev/null 2>&1; then
  echo "the $PATHSHALA_NIGHTLY toolchain is missing; run scripts/install-web-tools.sh" >&2
  exit 1
fi
