//! The inference worker binary (loaded by `worker_loader.js`): see `app::worker`.

fn main() {
    app::worker::start();
}
