//! The inference worker binary (loaded by `worker_loader.js`): see `app::worker`.

fn main() {
    inference::run_static_constructors();
    app::worker::start();
}
