//! Find passages: hybrid retrieval without the model (`search-input`, `search-submit`,
//! `results` with `data-state` done | abstained, one `evidence` per passage).

use crate::i18n::{Lang, Texts};
use crate::protocol::Results;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub results: Option<Results>,
    pub lang: Lang,
    pub on_search: Callback<String>,
    pub on_open: Callback<(u32, Option<(u32, u32)>)>,
}

#[function_component]
pub fn FindPanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let input = use_node_ref();
    let onsubmit = {
        let (input, on_search) = (input.clone(), p.on_search.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(el) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let q = el.value();
            if !q.trim().is_empty() {
                on_search.emit(q);
            }
        })
    };
    let open = |section: u32| p.on_open.reform(move |e: MouseEvent| {
        e.prevent_default();
        (section, None)
    });
    let results = p.results.as_ref().map(|r| {
        let nearest = r.nearest.iter().map(|s| html! {
            <li><a href={format!("#section-{}", s.section)} onclick={open(s.section)}>{ s.heading_path.join(" ▸ ") }</a></li>
        });
        let hits = r.hits.iter().map(|h| html! {
            <li data-testid="evidence" data-heading={h.heading_path.last().cloned().unwrap_or_default()}>
                <a href={format!("#section-{}", h.section)} onclick={open(h.section)}><strong>{ h.heading_path.join(" ▸ ") }</strong></a>
                <small>{ format!(" {} · {}:{}", h.tier, h.file, h.line) }</small>
                <p>{ h.text.clone() }</p>
            </li>
        });
        html! {
            <section data-testid="results" data-state={ if r.abstained { "abstained" } else { "done" } }>
                <p>{ format!("“{}” — {} {:.2} · {:.0} ms", r.question, t.coverage(), r.coverage, r.ms) }</p>
                if r.abstained {
                    <p>{ t.not_covered() }</p>
                    <ul>{ for nearest }</ul>
                } else {
                    <ol>{ for hits }</ol>
                }
            </section>
        }
    });
    html! {
        <section class="find">
            <h2>{ t.find() }</h2>
            <form {onsubmit}>
                <input ref={input} data-testid="search-input" placeholder={t.search_placeholder()} aria-label={t.search()} />
                <button data-testid="search-submit" type="submit">{ t.search() }</button>
            </form>
            { for results }
        </section>
    }
}
