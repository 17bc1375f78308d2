//! The page: one store ([`state::State`]), the worker bridge, and the views (Ask, Book, Quiz,
//! Code, Author, Storage). The Code view keeps its own state ([`code::CodeState`]) and the sandbox worker
//! ([`sandbox::SandboxClient`]).

pub mod author;
pub mod bridge;
pub mod code;
pub mod components;
pub mod gpu;
pub mod lazy;
pub mod pwa;
pub mod quiz;
pub mod sandbox;
pub mod state;

use crate::fetch;
use crate::i18n::{Lang, Texts};
use crate::markdown;
use crate::protocol::{AssetList, Label, Reply, Request, Runtime};
use bridge::Bridge;
use components::{ask::AskPanel, author::AuthorPanel, book::BookPanel, code::CodeView, find::FindPanel, quiz::QuizPanel, status::StatusLine, storage::StoragePanel};
use state::{Action, State, View};
use std::rc::Rc;
use yew::prelude::*;

/// Detects WebGPU, reads `assets.json` (network first; the service worker answers offline) and
/// asks the worker to load. Without it the worker falls back to the last complete set in
/// IndexedDB. The LLM runs on WebGPU when the adapter is a real GPU; `?llm=` overrides.
fn start_load(send: Callback<Request>, on_gpu: Callback<state::Gpu>) {
    wasm_bindgen_futures::spawn_local(async move {
        let gpu = gpu::detect().await;
        let hardware = matches!(gpu, state::Gpu::Available { software: false, .. });
        on_gpu.emit(gpu);
        let assets = match fetch::text("assets.json").await {
            Ok(text) => serde_json::from_str::<AssetList>(&text).ok(),
            Err(_) => None,
        };
        let runtime = fetch::query_param("llm")
            .as_deref()
            .and_then(Runtime::from_param)
            .unwrap_or(if hardware { Runtime::WebGpu } else { Runtime::Quantized });
        let number = |name: &str| fetch::query_param(name).and_then(|n| n.parse().ok());
        let flag = |name: &str| fetch::query_param(name).map(|v| v != "0");
        send.emit(Request::Load { assets, runtime, answer_tokens: number("answer_tokens"), passages: number("passages"), check: flag("check"), route: flag("route"), quiz_quick: fetch::query_param("quiz").as_deref() == Some("quick") });
    });
}

fn gpu_callback(dispatch: &UseReducerDispatcher<State>) -> Callback<state::Gpu> {
    let dispatch = dispatch.clone();
    Callback::from(move |gpu| dispatch.dispatch(Action::Gpu(gpu)))
}

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(|| State::new(Lang::load()));
    let dispatch = state.dispatcher();
    let bridge = use_state(|| {
        let d = dispatch.clone();
        Bridge::spawn(Callback::from(move |r: Reply| d.dispatch(Action::Reply(r)))).map(Rc::new)
    });
    let send = {
        let bridge = bridge.clone();
        Callback::from(move |req: Request| {
            if let Ok(b) = &*bridge {
                b.send(&req);
            }
        })
    };
    let next_id = use_mut_ref(|| 0u32);
    let new_id = {
        let next_id = next_id.clone();
        move || {
            *next_id.borrow_mut() += 1;
            *next_id.borrow()
        }
    };

    {
        let (dispatch, send, bridge) = (dispatch.clone(), send.clone(), bridge.clone());
        use_effect_with((), move |_| {
            let on_gpu = gpu_callback(&dispatch);
            match &*bridge {
                Ok(_) => start_load(send, on_gpu),
                Err(e) => {
                    dispatch.dispatch(Action::Reply(Reply::Error { id: None, message: e.clone(), retry: false }));
                    wasm_bindgen_futures::spawn_local(async move { on_gpu.emit(gpu::detect().await) });
                }
            }
            pwa::register(Callback::from(move |_| dispatch.dispatch(Action::UpdateAvailable)));
        });
    }
    {
        // The document's language follows the switch (fonts, screen readers).
        use_effect_with(state.lang, |lang| {
            if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                let _ = root.set_attribute("lang", lang.code());
            }
        });
    }
    {
        // `?bench=URL`: time the questions listed at URL once ready.
        let send = send.clone();
        let ready = state.ready().is_some();
        use_effect_with(ready, move |ready| {
            if let (true, Some(url)) = (*ready, fetch::query_param("bench")) {
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(questions) = fetch::text(&url).await.and_then(|t| serde_json::from_str::<Vec<String>>(&t).map_err(|e| e.to_string())) {
                        send.emit(Request::Bench { questions });
                    }
                });
            }
        });
    }

    // The sandbox's files: when the Code view first needs them, or once the course is ready.
    let python = use_state(lazy::Python::default);
    {
        let (python, started) = (python.clone(), use_mut_ref(|| false));
        let wanted = state.ready().is_some() || state.view == View::Code;
        use_effect_with(wanted, move |wanted| {
            if *wanted && !std::mem::replace(&mut *started.borrow_mut(), true) {
                let setter = python.setter();
                lazy::fetch_python(Callback::from(move |p| setter.set(p)));
            }
        });
    }

    quiz::use_saved_quizzes(&state, &dispatch);
    author::use_bank(&state, &dispatch);

    let t = Texts(state.lang);
    let ready = state.ready().is_some();
    let on_retry = {
        let (dispatch, send) = (dispatch.clone(), send.clone());
        Callback::from(move |_| {
            dispatch.dispatch(Action::Retry);
            start_load(send.clone(), gpu_callback(&dispatch));
        })
    };
    // Every message goes through the router: a new one, the answer to a clarifying question
    // (joined to the message it clarifies), or the same message sent where the learner chose.
    let message = {
        let (dispatch, send, new_id) = (dispatch.clone(), send.clone(), new_id.clone());
        Callback::from(move |(question, followup, route): (String, Option<String>, Option<Label>)| {
            let id = new_id();
            dispatch.dispatch(Action::Asked { id, question: question.clone(), followup: followup.clone() });
            send.emit(Request::Ask { id, question, followup, route });
        })
    };
    let on_ask = message.reform(|question: String| (question, None, None));
    let last = state.answer.clone();
    let on_followup = {
        let last = last.clone();
        message.reform(move |reply: String| match &last {
            Some(a) => (a.question.clone(), Some(reply), None),
            None => (reply, None, None),
        })
    };
    let on_reroute = {
        let last = last.clone();
        let message = message.clone();
        Callback::from(move |label: Label| {
            if let Some(a) = &last {
                message.emit((a.question.clone(), a.followup.clone(), Some(label)));
            }
        })
    };
    let on_open_code = {
        let (dispatch, last) = (dispatch.clone(), last.clone());
        Callback::from(move |_| {
            if let Some(a) = &last {
                dispatch.dispatch(Action::CodeTask(a.id, a.message()));
            }
        })
    };
    let on_open_quiz = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::SetView(View::Quiz)))
    };
    let on_stop = send.reform(|_| Request::Stop);
    let on_open = {
        let (dispatch, send) = (dispatch.clone(), send.clone());
        Callback::from(move |(section, range): (u32, Option<(u32, u32)>)| {
            dispatch.dispatch(Action::Open { highlight: range.map(|(a, b)| (section, a, b)) });
            send.emit(Request::Section { id: section });
        })
    };
    let search = |lexical: bool| {
        let (send, new_id) = (send.clone(), new_id.clone());
        Callback::from(move |question: String| send.emit(Request::Search { id: new_id(), question, lexical }))
    };
    let on_lang = {
        let (dispatch, lang) = (dispatch.clone(), state.lang);
        Callback::from(move |_: MouseEvent| {
            lang.other().save();
            dispatch.dispatch(Action::SetLang(lang.other()));
        })
    };
    let tab = |view: View, label: &'static str, testid: &'static str| {
        let (dispatch, send) = (dispatch.clone(), send.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            if view == View::Storage {
                send.emit(Request::Storage);
            }
            dispatch.dispatch(Action::SetView(view));
        });
        let current = (state.view == view).then_some("page");
        html! { <button class="tab" data-testid={testid} aria-current={current} {onclick}>{ label }</button> }
    };
    let outline = Rc::new(state.ready().map(|r| r.outline.clone()).unwrap_or_default());
    let md_preview = fetch::query_param("md").map(|md| {
        html! {
            <section class="md-preview" data-testid="md-preview">
                <h2>{ t.md_preview() }</h2>
                { markdown::render(&markdown::parse(&md, 0), &|n| html! { { format!("[{n}]") } }) }
            </section>
        }
    });
    let view = match state.view {
        View::Ask => html! {
            <>
                <AskPanel answer={state.answer.clone()} ready={ready} lang={state.lang} on_ask={on_ask}
                          on_stop={on_stop} on_open={on_open.clone()} {on_followup} {on_reroute} {on_open_code} {on_open_quiz} />
                <FindPanel results={state.results.clone()} lang={state.lang} on_search={search(false)} on_open={on_open.clone()} />
            </>
        },
        View::Book => html! {
            <BookPanel outline={outline} section={state.section.clone()} highlight={state.highlight}
                       results={state.book_results.clone()} lang={state.lang} on_open={on_open.clone()} on_search={search(true)} />
        },
        View::Quiz => {
            let on_section = {
                let on_open = on_open.clone();
                Callback::from(move |section: u32| on_open.emit((section, None)))
            };
            html! {
                <QuizPanel quiz={state.quiz.clone()} ready={ready} lang={state.lang} outline={outline.clone()}
                           on_find={quiz::on_find(&state, &dispatch, &send, new_id.clone())}
                           on_start={quiz::on_start(&state, &dispatch, &send, new_id.clone())}
                           on_choose={quiz::on_choose(&state, &dispatch, &send)}
                           on_next={{ let d = dispatch.clone(); Callback::from(move |_| d.dispatch(Action::QuizNext)) }} on_open={on_section} />
            }
        }
        View::Author => {
            let on_section = {
                let on_open = on_open.clone();
                Callback::from(move |section: u32| on_open.emit((section, None)))
            };
            let on_decide = {
                let dispatch = dispatch.clone();
                Callback::from(move |(id, d): (String, inference::agent::author::Decision)| dispatch.dispatch(Action::AuthorDecide(id, d)))
            };
            let on_edit = {
                let (dispatch, send, id) = (dispatch.clone(), send.clone(), state.author.id);
                Callback::from(move |item: crate::protocol::Authored| {
                    dispatch.dispatch(Action::AuthorEdited(Box::new(item.clone())));
                    send.emit(Request::AuthorRecheck { id, item: Box::new(item) });
                })
            };
            let on_draft = {
                let dispatch = dispatch.clone();
                Callback::from(move |(id, draft): (String, Option<crate::protocol::Authored>)| match draft {
                    Some(d) => dispatch.dispatch(Action::AuthorDraft(Box::new(d))),
                    None => dispatch.dispatch(Action::AuthorDropDraft(id)),
                })
            };
            html! {
                <AuthorPanel author={state.author.clone()} ready={ready} lang={state.lang} outline={outline.clone()}
                             on_write={author::on_write(&state, &dispatch, &send, new_id.clone())} {on_decide} {on_edit} {on_draft} on_open={on_section} />
            }
        }
        View::Code => html! {},
        View::Storage => html! {
            <StoragePanel info={state.storage.clone()} lang={state.lang}
                          on_refresh={send.reform(|_| Request::Storage)} on_clear={send.reform(|_| Request::ClearStorage)} />
        },
    };
    let on_update = Callback::from(|_: MouseEvent| pwa::apply_update());
    let on_dismiss = {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::Notice(None)))
    };
    html! {
        <div class="app">
            <header>
                <h1>{ t.title() }<small>{ t.tagline() }</small></h1>
                <nav>
                    { tab(View::Ask, t.tab_ask(), "tab-ask") }
                    { tab(View::Book, t.tab_book(), "tab-book") }
                    { tab(View::Quiz, t.tab_quiz(), "tab-quiz") }
                    { tab(View::Code, t.tab_code(), "tab-code") }
                    { tab(View::Author, t.tab_author(), "tab-author") }
                    { tab(View::Storage, t.tab_storage(), "tab-storage") }
                    <button class="lang" data-testid="lang-switch" lang={state.lang.other().code()} onclick={on_lang}>{ t.switch_to() }</button>
                </nav>
            </header>
            if state.update_available {
                <div class="update" data-testid="update" role="alert">
                    { t.update_available() }{ " " }
                    <button data-testid="update-reload" onclick={on_update}>{ t.reload() }</button>
                </div>
            }
            <StatusLine load={state.load.clone()} gpu={state.gpu.clone()} note={state.load_note.clone()} python={(*python).clone()} lang={state.lang} {on_retry} />
            if let Some(n) = &state.notice {
                <p class="notice" data-testid="notice">{ n.clone() }{ " " }<button onclick={on_dismiss}>{ "×" }</button></p>
            }
            { for md_preview }
            <main>{ view }<CodeView lang={state.lang} visible={state.view == View::Code} task={state.code_task.clone()} python={(*python).clone()} /></main>
            if let Some(b) = &state.bench { <pre data-testid="bench">{ b.clone() }</pre> }
        </div>
    }
}
