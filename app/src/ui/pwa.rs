//! Service worker registration and clean updates: a new version installs in the background,
//! waits, and the page offers "update available — reload"; the reload tells it to take over.

use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use yew::Callback;

thread_local! {
    static REGISTRATION: RefCell<Option<web_sys::ServiceWorkerRegistration>> = const { RefCell::new(None) };
}

fn container() -> Option<web_sys::ServiceWorkerContainer> {
    let navigator = web_sys::window()?.navigator();
    // Absent outside secure contexts (plain http on another host than localhost).
    let present = js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false);
    present.then(|| navigator.service_worker())
}

/// Registers `sw.js` (relative, so it scopes to the app's folder); `on_update` fires when a new
/// version is installed and waiting.
pub fn register(on_update: Callback<()>) {
    let Some(sw) = container() else { return };
    wasm_bindgen_futures::spawn_local(async move {
        let Ok(reg) = JsFuture::from(sw.register("./sw.js")).await else { return };
        let Ok(reg) = reg.dyn_into::<web_sys::ServiceWorkerRegistration>() else { return };
        if reg.waiting().is_some() && sw.controller().is_some() {
            on_update.emit(());
        }
        let reg2 = reg.clone();
        let on_found = Closure::<dyn FnMut()>::new(move || {
            let Some(installing) = reg2.installing() else { return };
            let watched = installing.clone();
            let on_update = on_update.clone();
            let on_state = Closure::<dyn FnMut()>::new(move || {
                let controlled = container().and_then(|c| c.controller()).is_some();
                if watched.state() == web_sys::ServiceWorkerState::Installed && controlled {
                    on_update.emit(());
                }
            });
            installing.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
            on_state.forget();
        });
        reg.set_onupdatefound(Some(on_found.as_ref().unchecked_ref()));
        on_found.forget();
        REGISTRATION.with(|r| *r.borrow_mut() = Some(reg));
    });
}

/// Activates the waiting version and reloads once it controls the page.
pub fn apply_update() {
    let waiting = REGISTRATION.with(|r| r.borrow().as_ref().and_then(|r| r.waiting()));
    let (Some(waiting), Some(container)) = (waiting, container()) else {
        let _ = web_sys::window().map(|w| w.location().reload());
        return;
    };
    let reload = Closure::<dyn FnMut()>::new(|| {
        let _ = web_sys::window().map(|w| w.location().reload());
    });
    container.set_oncontrollerchange(Some(reload.as_ref().unchecked_ref()));
    reload.forget();
    let _ = waiting.post_message(&JsValue::from_str("SKIP_WAITING"));
}
