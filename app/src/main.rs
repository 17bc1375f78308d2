//! The page binary: mounts [`app::ui::App`]. The inference worker is `src/bin/worker.rs`.
//!
//! Debug hooks: `?bench=URL` times the questions of the JSON list at URL (`data-testid="bench"`,
//! used by `tests/browser/bench.mjs`); `?md=TEXT` renders TEXT with the answer renderer
//! (`data-testid="md-preview"`, used by the safety test).

fn main() {
    inference::run_static_constructors();
    yew::Renderer::<app::ui::App>::new().render();
}
