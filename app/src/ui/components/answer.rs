//! One answer (`data-testid="answer"`, `data-state` streaming | done | abstained | error, or
//! refused | off_topic | greeting | clarifying | quiz | code when no agent answers here): the
//! route chip (`route-chip`, `data-label`; `route-pick` buttons send the message elsewhere), the
//! route's reply (`route-reply`; a clarifying question's options are `clarify-option`), the
//! book's own sentence ("From the book", linked to its section), the Markdown body with `[n]`
//! citations as links to their passages (while streaming the model's words; once checked, only
//! the sentences the book supports), the sources, the figures.

use crate::i18n::{Lang, Texts};
use crate::markdown;
use crate::protocol::{AbstainReason, Label, Route, SourceRef};
use crate::ui::state::{Answer, Phase};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub answer: Answer,
    pub lang: Lang,
    /// Opens a section, marking a byte range of it.
    pub on_open: Callback<(u32, Option<(u32, u32)>)>,
    /// The learner answers the clarifying question (an option clicked).
    pub on_followup: Callback<String>,
    /// The learner sends the message to another agent ("not what I meant").
    pub on_reroute: Callback<Label>,
    pub on_open_code: Callback<()>,
    pub on_open_quiz: Callback<()>,
}

/// The chip's words for a label.
fn label_text(t: Texts, label: Label) -> &'static str {
    match label {
        Label::Conceptual => t.route_conceptual(),
        Label::Quiz => t.route_quiz(),
        Label::Code => t.route_code(),
        Label::Greeting => t.route_greeting(),
        Label::Harmful => t.route_harmful(),
        Label::OffTopic => t.route_off_topic(),
        Label::Ambiguous => t.route_ambiguous(),
    }
}

/// Where the message went, with one-click alternatives: for a refusal only Ask, and only where
/// the scores alone refused it (`Route::refused_by_scores`; the lexicon's refusals have none).
fn route_chip(t: Texts, route: &Route, ms: f64, busy: bool, on_reroute: &Callback<Label>) -> Html {
    let label = route.label;
    let decided_by = serde_json::to_value(route.decided_by).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
    let others = [Label::Conceptual, Label::Quiz, Label::Code]
        .into_iter()
        .filter(|&l| l != label && (label != Label::Harmful || (l == Label::Conceptual && route.refused_by_scores())));
    let picks = others
        .map(|l| {
            let onclick = on_reroute.reform(move |_: MouseEvent| l);
            html! { <button class="route-pick" data-testid="route-pick" data-label={l.name()} disabled={busy} {onclick}>{ label_text(t, l) }</button> }
        })
        .collect::<Vec<_>>();
    html! {
        <div class="route" data-testid="route-chip" data-label={label.name()} data-decided-by={decided_by} data-ms={format!("{ms:.1}")}>
            <span class="chip">{ format!("{} {}", t.routed_to(), label_text(t, label)) }</span>
            if !picks.is_empty() {
                <span class="reroute">{ " " }{ t.not_what_i_meant() }{ " " }{ for picks }</span>
            }
        </div>
    }
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
        Phase::Thinking if a.route.is_none() => html! { <p class="phase">{ t.routing() }</p> },
        Phase::Thinking => html! { <p class="phase">{ t.thinking() }</p> },
        Phase::Reading { done, total } => html! {
            <p class="phase">{ format!("{}… {}/{} {}", t.reading(), t.num(done), t.num(total), t.tokens()) }</p>
        },
        Phase::Checking { done, total } => html! {
            <p class="phase" data-testid="checking">{ format!("{}… {}/{}", t.checking_answer(), t.num(done), t.num(total)) }</p>
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
    let chip = a.route.as_ref().map(|(r, ms)| route_chip(t, r, *ms, a.busy(), &p.on_reroute));
    let routed = (a.phase == Phase::Routed).then(|| {
        let (route, _) = a.route.as_ref().expect("a routed answer has its route");
        let reply = route.reply.clone();
        let open_code = p.on_open_code.reform(|_: MouseEvent| ());
        let open_quiz = p.on_open_quiz.reform(|_: MouseEvent| ());
        match route.label {
            Label::Ambiguous if a.awaits_followup() => {
                let options = route.clarification.iter().flat_map(|c| c.options.iter()).map(|o| {
                    let onclick = p.on_followup.reform({
                        let o = o.clone();
                        move |_: MouseEvent| o.clone()
                    });
                    html! { <li><button data-testid="clarify-option" {onclick}>{ o.clone() }</button></li> }
                });
                html! {
                    <div class="clarify">
                        <p data-testid="route-reply">{ reply.unwrap_or_default() }</p>
                        <ul class="options">{ for options }</ul>
                        <p class="hint">{ t.clarify_hint() }</p>
                    </div>
                }
            }
            Label::Quiz => html! {
                <p data-testid="route-reply">{ t.quiz_sent() }{ " " }
                    <button data-testid="route-open-quiz" onclick={open_quiz}>{ t.open_quiz() }</button></p>
            },
            Label::Code => html! {
                <p data-testid="route-reply">{ reply.unwrap_or_else(|| t.code_sent().to_string()) }{ " " }
                    <button data-testid="route-open-code" onclick={open_code}>{ t.open_code() }</button></p>
            },
            _ => html! { <p data-testid="route-reply">{ reply.unwrap_or_default() }</p> },
        }
    });
    let question = match &a.followup {
        Some(f) => format!("{} — {f}", a.question),
        None => a.question.clone(),
    };
    html! {
        <article class="answer" data-testid="answer" data-state={a.state()} aria-live="polite">
            <p class="question">{ question }</p>
            { for chip }
            { for routed }
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
                <p class="hint" data-testid="dropped" data-dropped={a.dropped.to_string()}>{ format!("{} {}", t.num(a.dropped), t.dropped()) }</p>
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
