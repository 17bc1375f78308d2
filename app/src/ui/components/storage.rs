//! The storage panel: what IndexedDB holds, its size, the browser's quota, and a button that
//! deletes it all.

use crate::i18n::{Lang, Texts};
use crate::protocol::StorageInfo;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub info: Option<StorageInfo>,
    pub lang: Lang,
    pub on_refresh: Callback<()>,
    pub on_clear: Callback<()>,
}

#[function_component]
pub fn StoragePanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let on_refresh = p.on_refresh.reform(|_: MouseEvent| ());
    let on_clear = p.on_clear.reform(|_: MouseEvent| ());
    let body = match &p.info {
        None => html! { <p>{ "…" }</p> },
        Some(info) => {
            let total: u64 = info.entries.iter().map(|e| e.bytes).sum();
            let rows = info.entries.iter().map(|e| html! {
                <tr data-testid="storage-entry" data-name={e.name.clone()}>
                    <td>{ e.url.clone() }</td>
                    <td class="num">{ t.mb(e.bytes as f64) }</td>
                    <td><code>{ e.version.clone() }</code></td>
                    <td>{ String::from(js_sys::Date::new(&e.stored_at_ms.into()).to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED)) }</td>
                </tr>
            });
            html! {
                <>
                    if info.entries.is_empty() {
                        <p data-testid="storage-empty">{ t.nothing_cached() }</p>
                    } else {
                        <table>
                            <tbody>{ for rows }</tbody>
                            <tfoot><tr><td></td><td class="num" data-testid="storage-total">{ t.mb(total as f64) }</td><td></td><td></td></tr></tfoot>
                        </table>
                    }
                    if let Some(v) = &info.complete_version { <p data-testid="storage-complete">{ format!("{}: {v}", t.complete_version()) }</p> }
                    if let (Some(u), Some(q)) = (info.usage, info.quota) {
                        <p>{ format!("{}: {} {} {}", t.storage_used(), t.mb(u), t.of(), t.mb(q)) }</p>
                    }
                </>
            }
        }
    };
    html! {
        <section class="storage" data-testid="storage">
            <h2>{ t.cached_here() }</h2>
            { body }
            <p>
                <button data-testid="storage-refresh" onclick={on_refresh}>{ t.refresh() }</button>
                { " " }
                <button data-testid="storage-clear" class="danger" onclick={on_clear}>{ t.clear() }</button>
            </p>
            <p class="hint">{ t.offline_note() }</p>
        </section>
    }
}
