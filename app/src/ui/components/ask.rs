//! The Ask form (`ask-input`, `ask-submit`, `ask-stop`) and the latest answer.

use super::answer::AnswerView;
use crate::i18n::{Lang, Texts};
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
}

#[function_component]
pub fn AskPanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let input = use_node_ref();
    let busy = p.answer.as_ref().is_some_and(Answer::busy);
    let onsubmit = {
        let (input, on_ask) = (input.clone(), p.on_ask.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(el) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let q = el.value();
            if !q.trim().is_empty() {
                on_ask.emit(q.trim().to_string());
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
                <AnswerView answer={a.clone()} lang={p.lang} on_open={p.on_open.clone()} />
            }
        </section>
    }
}
