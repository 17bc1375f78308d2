//! One answer (`data-testid="answer"`, `data-state` streaming | done | abstained | error): the
//! book's own sentence ("From the book", linked to its section), the Markdown body with `[n]`
//! citations as links to their passages (while streaming the model's words; once checked, only
//! the sentences the book supports), the sources, the figures.

use crate::i18n::{Lang, Texts};
use crate::markdown;
use crate::protocol::{AbstainReason, SourceRef};
use crate::ui::state::{Answer, Phase};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub answer: Answer,
    pub lang: Lang,
    /// Opens a section, marking a byte range of it.
    pub on_open: Callback<(u32, Option<(u32, u32)>)>,
}

/// A link to a cited passage: `data-testid="citation"` in the answer, `"source"` in the list.
pub fn citation(source: &SourceRef, on_open: &Callback<(u32, Option<(u32, u32)>)>, testid: &'static str) -> Html {
    let (section, range) = (source.section, (source.start, source.end));
    let onclick = on_open.reform(move |e: MouseEvent| {
        e.prevent_default();
        (section, Some(range))
    });
    let heading = source.heading_path.last().cloned().unwrap_or_default();
    html! {
        <a class="cite" href={format!("#section-{section}")} data-testid={testid} data-heading={heading}
           data-n={source.n.to_string()} title={source.heading_path.join(" ▸ ")} {onclick}>
            { format!("[{}]", source.n) }
        </a>
    }
}

#[function_component]
pub fn AnswerView(p: &Props) -> Html {
    let t = Texts(p.lang);
    let a = &p.answer;
    let sources = a.sources.clone();
    let on_open = p.on_open.clone();
    let cite = move |n: usize| match sources.iter().find(|s| s.n == n) {
        Some(s) => citation(s, &on_open, "citation"),
        None => html! { { format!("[{n}]") } },
    };
    let body = markdown::render(&markdown::parse(&a.text, a.sources.len()), &cite);
    let phase = match &a.phase {
        Phase::Thinking => html! { <p class="phase">{ t.thinking() }</p> },
        Phase::Reading { done, total } => html! {
            <p class="phase">{ format!("{}… {done}/{total} {}", t.reading(), t.tokens()) }</p>
        },
        Phase::Checking { done, total } => html! {
            <p class="phase" data-testid="checking">{ format!("{}… {done}/{total}", t.checking_answer()) }</p>
        },
        _ => html! {},
    };
    let nearest = a.nearest.iter().map(|s| {
        let id = s.section;
        let onclick = p.on_open.reform(move |e: MouseEvent| {
            e.prevent_default();
            (id, None)
        });
        html! { <li><a href={format!("#section-{id}")} data-testid="nearest" {onclick}>{ s.heading_path.join(" ▸ ") }</a></li> }
    });
    let quote = a.quote.as_ref().map(|q| {
        let section = q.section;
        let onclick = p.on_open.reform(move |e: MouseEvent| {
            e.prevent_default();
            (section, None)
        });
        html! {
            <blockquote class="quote" data-testid="quote" data-heading={q.heading_path.last().cloned().unwrap_or_default()}>
                <span class="quote-label">{ format!("{}: ", t.from_book()) }</span>
                { format!("“{}”", q.text) }{ " " }
                <a href={format!("#section-{section}")} data-testid="quote-link" {onclick}>{ format!("— {}", q.heading_path.join(" ▸ ")) }</a>
            </blockquote>
        }
    });
    let sources = a.sources.iter().map(|s| html! {
        <li>{ citation(s, &p.on_open, "source") }{ " " }{ s.heading_path.join(" ▸ ") }</li>
    });
    html! {
        <article class="answer" data-testid="answer" data-state={a.state()} aria-live="polite">
            <p class="question">{ a.question.clone() }</p>
            { phase }
            if let Phase::Abstained(reason) = a.phase {
                <p data-testid="abstain-message" data-reason={format!("{reason:?}").to_lowercase()}>{ match reason {
                    AbstainReason::BadInput => t.bad_input(),
                    AbstainReason::Model => t.abstain_model(),
                    AbstainReason::Gate | AbstainReason::Sufficiency => t.abstain(),
                } }</p>
                <ul>{ for nearest }</ul>
            }
            { for quote }
            if let Phase::Error(message) = &a.phase {
                <p class="error" data-testid="answer-error">{ message.clone() }</p>
            }
            <div class="body" data-testid="answer-body">{ body }</div>
            if a.stopped { <p class="phase">{ t.stopped() }</p> }
            if !a.sources.is_empty() {
                <details class="sources" open={a.state() == "done"}>
                    <summary>{ t.sources() }</summary>
                    <ol>{ for sources }</ol>
                </details>
            }
            if a.dropped > 0 && a.state() == "done" {
                <p class="hint" data-testid="dropped" data-dropped={a.dropped.to_string()}>{ format!("{} {}", a.dropped, t.dropped()) }</p>
            }
            if let Some(s) = &a.stats {
                <p class="stats" data-testid="answer-stats"
                   data-first-token-ms={s.first_token_ms.map(|v| format!("{v:.0}")).unwrap_or_default()}
                   data-tokens={s.tokens.to_string()}
                   data-tokens-per-s={s.tokens_per_s.map(|v| format!("{v:.2}")).unwrap_or_default()}
                   data-prompt-tokens={s.prompt_tokens.to_string()}
                   data-total-ms={format!("{:.0}", s.total_ms)}>
                    { format!(
                        "{} prompt tokens · first token {} · {} tokens{} · {:.1} s",
                        s.prompt_tokens,
                        s.first_token_ms.map(|v| format!("{:.1} s", v / 1000.0)).unwrap_or_else(|| "—".into()),
                        s.tokens,
                        s.tokens_per_s.map(|v| format!(" at {v:.1}/s")).unwrap_or_default(),
                        s.total_ms / 1000.0
                    ) }
                </p>
            }
            if a.state() == "done" && !a.text.is_empty() { <p class="hint">{ t.small_model() }</p> }
        </article>
    }
}
