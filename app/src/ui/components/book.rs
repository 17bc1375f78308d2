//! The book: the course outline, one section to read (a cited passage marked), and a BM25
//! search box over the book.

use crate::i18n::{Lang, Texts};
use crate::protocol::{OutlineItem, Results, SectionView};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub outline: Rc<Vec<OutlineItem>>,
    pub section: Option<SectionView>,
    /// (section, start, end): a passage to mark.
    pub highlight: Option<(u32, u32, u32)>,
    pub results: Option<Results>,
    pub lang: Lang,
    pub on_open: Callback<(u32, Option<(u32, u32)>)>,
    pub on_search: Callback<String>,
}

#[function_component]
pub fn BookPanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let input = use_node_ref();
    let open = |section: u32| p.on_open.reform(move |e: MouseEvent| {
        e.prevent_default();
        (section, None)
    });
    let onsubmit = {
        let (input, on_search) = (input.clone(), p.on_search.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(el) = input.cast::<web_sys::HtmlInputElement>() {
                if !el.value().trim().is_empty() {
                    on_search.emit(el.value());
                }
            }
        })
    };
    // Bring a marked passage into view once it is drawn.
    let marked = p.highlight.filter(|h| p.section.as_ref().is_some_and(|s| s.id == h.0));
    use_effect_with(marked, |marked| {
        if marked.is_some() {
            let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector("[data-testid=passage]").ok().flatten());
            if let Some(el) = el {
                el.scroll_into_view();
            }
        }
    });
    let current = p.section.as_ref().map(|s| s.id);
    let outline = p.outline.iter().map(|item| {
        let class = if Some(item.id) == current { "current" } else { "" };
        html! {
            <li style={format!("padding-left: {}rem", item.depth as f32 * 0.9)} class={class}>
                <a href={format!("#section-{}", item.id)} data-testid="outline-item" data-id={item.id.to_string()} onclick={open(item.id)}>
                    { item.heading.clone() }
                </a>
            </li>
        }
    });
    let results = p.results.as_ref().map(|r| {
        let hits = r.hits.iter().map(|h| html! {
            <li data-testid="book-hit" data-heading={h.heading_path.last().cloned().unwrap_or_default()}>
                <a href={format!("#section-{}", h.section)} onclick={open(h.section)}>{ h.heading_path.join(" ▸ ") }</a>
                <p>{ h.text.chars().take(200).collect::<String>() }</p>
            </li>
        });
        html! {
            <section data-testid="book-results">
                if r.hits.is_empty() { <p>{ t.no_hits() }</p> } else { <ol>{ for hits }</ol> }
            </section>
        }
    });
    let reader = match &p.section {
        None => html! { <p class="hint">{ t.choose_section() }</p> },
        Some(s) => {
            let body = match marked {
                Some((_, a, b)) => match (s.text.get(..a as usize), s.text.get(a as usize..b as usize), s.text.get(b as usize..)) {
                    (Some(before), Some(passage), Some(after)) => html! {
                        <>{ before.to_string() }<mark data-testid="passage">{ passage.to_string() }</mark>{ after.to_string() }</>
                    },
                    _ => html! { { s.text.clone() } },
                },
                None => html! { { s.text.clone() } },
            };
            let children = s.children.iter().map(|c| html! {
                <li><a href={format!("#section-{}", c.section)} onclick={open(c.section)}>{ c.heading_path.last().cloned().unwrap_or_default() }</a></li>
            });
            html! {
                <article data-testid="section" data-id={s.id.to_string()} data-heading={s.heading_path.last().cloned().unwrap_or_default()} id={format!("section-{}", s.id)}>
                    <p class="crumbs">{ s.heading_path[..s.heading_path.len().saturating_sub(1)].join(" ▸ ") }</p>
                    <h2>{ s.heading_path.last().cloned().unwrap_or_default() }</h2>
                    if let Some(parent) = &s.parent {
                        <p><a href={format!("#section-{}", parent.section)} onclick={open(parent.section)}>{ format!("↑ {}: {}", t.up(), parent.heading_path.last().cloned().unwrap_or_default()) }</a></p>
                    }
                    <div class="section-text">{ body }</div>
                    <p class="source"><small>{ format!("{}:{}", s.file, s.line) }</small></p>
                    if !s.children.is_empty() {
                        <h3>{ t.subsections() }</h3>
                        <ul>{ for children }</ul>
                    }
                </article>
            }
        }
    };
    html! {
        <div class="book">
            <nav class="outline" aria-label={t.contents()}>
                <h2>{ t.contents() }</h2>
                <form {onsubmit}>
                    <input ref={input} data-testid="book-search-input" placeholder={t.book_search_placeholder()} aria-label={t.search()} />
                    <button data-testid="book-search-submit" type="submit">{ t.search() }</button>
                </form>
                { for results }
                <ul data-testid="outline">{ for outline }</ul>
            </nav>
            <div class="reader">{ reader }</div>
        </div>
    }
}
