//! The one front door ("Ask anything": `ask-input`, `ask-submit`, `ask-stop`) and the latest
//! answer. Every message is routed; while a clarifying question waits, what the learner sends
//! next answers it.

use super::answer::AnswerView;
use crate::i18n::{Lang, Texts};
use crate::protocol::Label;
use crate::ui::state::Answer;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub answer: Option<Answer>,
    pub ready: bool,
    pub lang: Lang,
    pub on_ask: Callback<String>,
    pub on_stop: Callback<()>,
    pub on_open: Callback<(u32, Option<(u32, u32)>)>,
    pub on_followup: Callback<String>,
    pub on_reroute: Callback<Label>,
    pub on_open_code: Callback<()>,
    pub on_open_quiz: Callback<()>,
}

#[function_component]
pub fn AskPanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let input = use_node_ref();
    let busy = p.answer.as_ref().is_some_and(Answer::busy);
    let onsubmit = {
        let (input, on_ask, on_followup) = (input.clone(), p.on_ask.clone(), p.on_followup.clone());
        let awaits = p.answer.as_ref().is_some_and(Answer::awaits_followup);
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(el) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let q = el.value();
            if !q.trim().is_empty() {
                if awaits { on_followup.emit(q.trim().to_string()) } else { on_ask.emit(q.trim().to_string()) }
                el.set_value("");
            }
        })
    };
    let on_stop = p.on_stop.reform(|_: MouseEvent| ());
    html! {
        <section class="ask">
            <form {onsubmit}>
                <input ref={input} data-testid="ask-input" placeholder={t.ask_placeholder()} aria-label={t.ask()} />
                if busy {
                    <button data-testid="ask-stop" type="button" onclick={on_stop}>{ t.stop() }</button>
                } else {
                    <button data-testid="ask-submit" type="submit" disabled={!p.ready}>{ t.ask() }</button>
                }
            </form>
            if let Some(a) = &p.answer {
                <AnswerView answer={a.clone()} lang={p.lang} on_open={p.on_open.clone()} on_followup={p.on_followup.clone()}
                            on_reroute={p.on_reroute.clone()} on_open_code={p.on_open_code.clone()}
                            on_open_quiz={p.on_open_quiz.clone()} />
            }
        </section>
    }
}
