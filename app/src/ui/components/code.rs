//! The Code view (`code-view`): a problem from `problems.json` practised step by step, a task
//! in the learner's words (`code-task-input`, `code-plan`) that the model plans and prepares
//! step by step in the sandbox worker, or free practice; an editor with line numbers (`code-editor`: Tab indents, Shift+Tab dedents, Enter
//! keeps the indentation, Ctrl/Cmd+Enter runs), Run (`code-run`) and Check (`code-check`), the
//! output (`code-output`, `data-status` ok|error|timeout|killed|running) and the tutor's feedback
//! (`code-feedback`, `data-verdict`). Steps are `code-step` (`data-state` done|current|todo).
//!
//! The view owns its state ([`CodeState`]) and the sandbox worker's client, and stays mounted
//! while hidden so the worker stays warm and a run survives a tab switch. Progress and typing are
//! saved in IndexedDB (`storage::records::CODE`): [`SAVE_QUIET_MS`] after the last change, at
//! once when the tab is hidden or closed (with a synchronous `localStorage` backup, [`BACKUP_KEY`]),
//! and read back on start; a failed save (a full quota) shows `code-save-error`.

use crate::fetch;
use crate::i18n::{Lang, Texts};
use crate::sandbox_protocol::RUN_TIMEOUT_MS;
use crate::storage::records;
use crate::ui::code::{CodeAction, CodeState, Kind, Output, Problem, Said, Saved};
use crate::ui::lazy::Python;
use crate::ui::sandbox::SandboxClient;
use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use inference::agent::tutor::Verdict;
use inference::sandbox::RunStatus;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// How long typing must pause before the Code view is written to IndexedDB.
const SAVE_QUIET_MS: u32 = 400;

/// The newest progress not yet handed to IndexedDB, and the timer that will hand it over.
#[derive(Default)]
struct PendingSave {
    dirty: bool,
    revision: u32,
    json: String,
    /// Replacing it cancels the previous timer (typing goes on).
    timer: Option<Timeout>,
}

/// Where the progress goes synchronously when the page is hidden or closing: an IndexedDB write
/// started then may not finish before the page is gone, a `localStorage` write always does. It
/// is removed once IndexedDB holds the same progress, and wins on the next start when it is left.
const BACKUP_KEY: &str = "pathshala-code-unsaved";

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Writes the pending progress now, if any: when the quiet time ends, or (`leaving`) when the
/// tab is hidden or closing, then with the synchronous backup first.
fn flush_save(pending: &RefCell<PendingSave>, dispatch: &UseReducerDispatcher<CodeState>, leaving: bool) {
    let (revision, json) = {
        let mut p = pending.borrow_mut();
        if !std::mem::take(&mut p.dirty) {
            return;
        }
        (p.revision, std::mem::take(&mut p.json))
    };
    let backup = leaving && local_storage().is_some_and(|ls| ls.set_item(BACKUP_KEY, &json).is_ok());
    let dispatch = dispatch.clone();
    wasm_bindgen_futures::spawn_local(async move {
        match records::save(records::CODE, "current", &json).await {
            Ok(()) => {
                if backup && let Some(ls) = local_storage() && ls.get_item(BACKUP_KEY).ok().flatten().as_deref() == Some(json.as_str()) {
                    let _ = ls.remove_item(BACKUP_KEY);
                }
                dispatch.dispatch(CodeAction::Saved(revision));
            }
            Err(e) => dispatch.dispatch(CodeAction::SaveFailed(e.to_string())),
        }
    });
}

/// The saved progress: a backup left by a page that closed before IndexedDB finished (moved
/// into IndexedDB now), else IndexedDB's.
async fn load_saved() -> Option<Saved> {
    let backup = local_storage().and_then(|ls| ls.get_item(BACKUP_KEY).ok().flatten());
    if let Some(json) = backup
        && let Ok(saved) = serde_json::from_str::<Saved>(&json)
    {
        if records::save(records::CODE, "current", &json).await.is_ok()
            && let Some(ls) = local_storage()
        {
            let _ = ls.remove_item(BACKUP_KEY);
        }
        return Some(saved);
    }
    records::load(records::CODE, "current").await.ok().flatten().and_then(|j| serde_json::from_str::<Saved>(&j).ok())
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub lang: Lang,
    pub visible: bool,
    /// A task sent here from the front door (the message's id, its text): it fills the task box.
    #[prop_or_default]
    pub task: Option<(u32, String)>,
    /// The sandbox's files: its worker starts once they are here.
    pub python: Python,
}

/// Inserts or removes indentation in a textarea as the keyboard asks; returns the new text when
/// the key was handled.
fn key_edit(el: &web_sys::HtmlTextAreaElement, e: &KeyboardEvent) -> Option<String> {
    let text = el.value();
    let chars: Vec<char> = text.chars().collect();
    let (a, b) = (el.selection_start().ok()??.min(chars.len() as u32) as usize, el.selection_end().ok()??.min(chars.len() as u32) as usize);
    let line_start = chars[..a].iter().rposition(|&c| c == '\n').map_or(0, |i| i + 1);
    let (new, cursor): (Vec<char>, usize) = match e.key().as_str() {
        "Tab" if !e.shift_key() => {
            let mut v = chars[..a].to_vec();
            v.extend("    ".chars());
            v.extend_from_slice(&chars[b..]);
            (v, a + 4)
        }
        "Tab" => {
            let n = chars[line_start..].iter().take(4).take_while(|&&c| c == ' ').count();
            let mut v = chars[..line_start].to_vec();
            v.extend_from_slice(&chars[line_start + n..]);
            (v, a.saturating_sub(n).max(line_start))
        }
        "Enter" if !(e.ctrl_key() || e.meta_key()) => {
            let line: String = chars[line_start..a].iter().collect();
            let mut indent = line.chars().take_while(|&c| c == ' ').count();
            if line.trim_end().ends_with(':') {
                indent += 4;
            }
            let mut v = chars[..a].to_vec();
            v.push('\n');
            v.extend(std::iter::repeat_n(' ', indent));
            v.extend_from_slice(&chars[b..]);
            (v, a + 1 + indent)
        }
        _ => return None,
    };
    let new: String = new.into_iter().collect();
    el.set_value(&new);
    let _ = el.set_selection_range(cursor as u32, cursor as u32);
    Some(new)
}

/// An `oninput` handler that dispatches the textarea's new text as `action`.
fn on_textarea(state: &UseReducerHandle<CodeState>, action: fn(String) -> CodeAction) -> Callback<InputEvent> {
    let dispatch = state.dispatcher();
    Callback::from(move |e: InputEvent| {
        if let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
            dispatch.dispatch(action(el.value()));
        }
    })
}

#[function_component]
pub fn CodeView(p: &Props) -> Html {
    let t = Texts(p.lang);
    let state = use_reducer(CodeState::default);
    let client: Rc<RefCell<Option<SandboxClient>>> = use_mut_ref(|| None);
    let next_id = use_mut_ref(|| 0u32);
    let editor = use_node_ref();
    let pending: Rc<RefCell<PendingSave>> = use_mut_ref(PendingSave::default);
    // The sandbox worker exists (requests sent before are dropped, so the effects below wait).
    let started = use_state(|| false);

    {
        // Problems and saved progress, once.
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let d = dispatch.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let problems = fetch::text("problems.json").await.ok().and_then(|t| serde_json::from_str::<Vec<Problem>>(&t).ok()).unwrap_or_default();
                d.dispatch(CodeAction::Problems(problems));
            });
            wasm_bindgen_futures::spawn_local(async move {
                dispatch.dispatch(CodeAction::Restore(load_saved().await));
            });
        });
    }
    {
        let dispatch = state.dispatcher();
        use_effect_with(p.task.clone(), move |task| {
            if let Some((_, text)) = task {
                dispatch.dispatch(CodeAction::TaskText(text.clone()));
            }
        });
    }
    {
        // The sandbox worker starts the first time the view is shown (not on every page load),
        // once its files are here.
        let (client, dispatch, started) = (client.clone(), state.dispatcher(), started.clone());
        use_effect_with((p.visible, p.python.settled()), move |&(visible, settled)| {
            if visible && settled && client.borrow().is_none() {
                started.set(true);
                let cfg = crate::sandbox::tutor_config();
                let c = SandboxClient::new(Callback::from(move |e| dispatch.dispatch(CodeAction::Event(e))), cfg.check.timeout_ms, cfg.test.timeout_ms);
                *client.borrow_mut() = Some(c);
            }
        });
    }
    {
        // Save every change (typing included) once it pauses for SAVE_QUIET_MS.
        let (restored, saved, dispatch, pending) = (state.restored, state.saved(), state.dispatcher(), pending.clone());
        use_effect_with(state.revision, move |revision| {
            if restored && let Ok(json) = serde_json::to_string(&saved) {
                let p2 = pending.clone();
                let timer = Timeout::new(SAVE_QUIET_MS, move || flush_save(&p2, &dispatch, false));
                let mut p = pending.borrow_mut();
                (p.dirty, p.revision, p.json, p.timer) = (true, *revision, json, Some(timer));
            }
        });
    }
    {
        // Hidden or closing (a tab switch, a reload, the phone locking): write at once.
        let (dispatch, pending) = (state.dispatcher(), pending.clone());
        use_effect_with((), move |_| {
            let listeners = web_sys::window().and_then(|w| w.document().map(|d| (w, d))).map(|(window, document)| {
                let (d1, p1) = (dispatch.clone(), pending.clone());
                let hidden_doc = document.clone();
                [
                    EventListener::new(&window, "pagehide", move |_| flush_save(&p1, &d1, true)),
                    EventListener::new(&document, "visibilitychange", move |_| {
                        if hidden_doc.hidden() {
                            flush_save(&pending, &dispatch, true);
                        }
                    }),
                ]
            });
            move || drop(listeners)
        });
    }

    let send = {
        let (client, dispatch, next_id) = (client.clone(), state.dispatcher(), next_id.clone());
        Rc::new(move |req: crate::sandbox_protocol::SandboxRequest, kind: Kind| {
            if let Some(c) = client.borrow().as_ref() {
                dispatch.dispatch(CodeAction::Sent { id: req.id(), kind });
                c.send(&req);
            }
            let _ = &next_id;
        })
    };
    let new_id = {
        let next_id = next_id.clone();
        move || {
            *next_id.borrow_mut() += 1;
            *next_id.borrow()
        }
    };
    {
        // Every step done: run the tests once.
        let (send, s, new_id) = (send.clone(), state.clone(), new_id.clone());
        use_effect_with((state.finished(), state.tests.is_none(), state.busy.is_none(), state.problem.clone(), *started), move |(finished, untested, idle, _, started)| {
            if *finished && *untested && *idle && *started {
                if let Some(req) = s.test_request(new_id()) {
                    send(req, Kind::Test);
                }
            }
        });
    }

    {
        // A model session: the model writes each step when it comes up.
        let (send, s, new_id) = (send.clone(), state.clone(), new_id.clone());
        use_effect_with((state.needs_prepare(), state.busy.is_none(), state.revision, *started), move |(needed, idle, _, started)| {
            if *needed && *idle && *started {
                if let Some(req) = s.prepare_request(new_id()) {
                    send(req, Kind::Prepare);
                }
            }
        });
    }

    let on_plan = {
        let (send, s, new_id) = (send.clone(), state.clone(), new_id.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(req) = s.plan_request(new_id()) {
                send(req, Kind::Plan);
            }
        })
    };
    let on_retry = {
        let (send, s, new_id) = (send.clone(), state.clone(), new_id.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some((req, kind)) = s.retry_request(new_id()) {
                send(req, kind);
            }
        })
    };
    let on_task_text = on_textarea(&state, CodeAction::TaskText);
    let on_run = {
        let (send, s, new_id) = (send.clone(), state.clone(), new_id.clone());
        Callback::from(move |_: ()| send(s.run_request(new_id()), Kind::Run))
    };
    let on_check = {
        let (send, s, new_id) = (send.clone(), state.clone(), new_id.clone());
        Callback::from(move |_: ()| {
            if let Some(req) = s.check_request(new_id()) {
                send(req, Kind::Check);
            }
        })
    };
    let on_input = on_textarea(&state, CodeAction::Edit);
    let on_keydown = {
        let (dispatch, on_run) = (state.dispatcher(), on_run.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                on_run.emit(());
                return;
            }
            let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) else { return };
            if let Some(text) = key_edit(&el, &e) {
                e.prevent_default();
                dispatch.dispatch(CodeAction::Edit(text));
            }
        })
    };
    let on_pick = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: Event| {
            if let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
                let v = el.value();
                dispatch.dispatch(CodeAction::Pick((!v.is_empty()).then_some(v)));
            }
        })
    };
    let on_reveal = {
        let dispatch = state.dispatcher();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(CodeAction::Reveal))
    };

    // Nothing can run before the sandbox worker has started.
    let busy = state.busy.is_some() || !*started;
    let offset = state.offset();
    let session = state.session();
    let steps = session.map(|s| {
        let total = s.steps.len();
        html! {
            <section class="steps">
                <p class="progress" data-testid="code-progress">{ format!("{} {} / {}", t.code_steps_done(), t.num(s.current.min(total)), t.num(total)) }</p>
                <ol>
                    { for s.steps.iter().enumerate().map(|(i, step)| {
                        let st = if i < s.current { "done" } else if i == s.current { "current" } else { "todo" };
                        html! { <li data-testid="code-step" data-state={st} class={st}>{ step.text.clone() }</li> }
                    }) }
                </ol>
            </section>
        }
    });
    let task = match (state.problem(), session) {
        (Some(pr), _) => Some(pr.task.description.clone()),
        (None, Some(s)) => Some(s.task.description.clone()),
        _ => None,
    }
    .map(|d| html! { <p class="task" data-testid="code-task">{ d }</p> });
    let above = state.code_above();
    let above = (!above.is_empty()).then(|| {
        html! {
            <div class="code-above" aria-label={t.code_so_far()}>
                <div class="gutter" aria-hidden="true">{ for above.lines().enumerate().map(|(i, _)| html! { <span>{ i + 1 }</span> }) }</div>
                <pre data-testid="code-above">{ above.clone() }</pre>
            </div>
        }
    });
    let finished = state.finished();
    let editor_lines = state.editor.split('\n').count().max(6);
    let output = state.output.as_ref().map(|o| {
        let status = o.status();
        let badge = match status {
            "ok" => t.status_ok(),
            "error" => t.status_error(),
            "timeout" => t.status_timeout(),
            "killed" => t.status_killed(),
            _ => t.running(),
        };
        let line_of = |l: usize| if l > offset { format!("{} {}", t.your_line(), l - offset) } else { format!("{} {l}", t.line()) };
        let body = match o {
            Output::Running => html! { <p>{ t.running() }</p> },
            Output::Syntax(issue) => {
                let line = if issue.line > offset { issue.line - offset } else { issue.line };
                html! {
                    <div class="syntax" data-ran="false" data-line={line.to_string()} data-column={issue.column.to_string()}>
                        <p><strong>{ t.syntax_error() }</strong>{ format!(" {}, {} {}: {}", line_of(issue.line), t.column(), issue.column, issue.message) }</p>
                        <p class="hint" data-testid="code-hint">{ format!("{} {}", t.hint(), issue.hint) }</p>
                        <p class="help">{ t.not_run() }</p>
                    </div>
                }
            }
            Output::Ran(r) => {
                let why = match &r.status {
                    RunStatus::Timeout => Some(format!("{} ({} s)", t.stopped_time(), RUN_TIMEOUT_MS / 1000)),
                    RunStatus::Killed(reason) if reason.contains("output") => Some(t.stopped_output().to_string()),
                    RunStatus::Killed(_) => Some(t.stopped_memory().to_string()),
                    _ => None,
                };
                html! {
                    <>
                        if !r.stdout.is_empty() { <pre class="stdout" data-testid="code-stdout">{ r.stdout.clone() }</pre> }
                        if let Some(e) = &r.exception {
                            <p class="exception" data-testid="code-exception" data-line={e.line.map(|l| l.to_string())}>
                                <strong>{ e.type_name.clone() }</strong>{ format!(": {}", e.message) }
                                { e.line.map(|l| format!(" ({})", line_of(l))).unwrap_or_default() }
                            </p>
                        }
                        if !r.stderr.is_empty() { <pre class="stderr">{ r.stderr.clone() }</pre> }
                        if let Some(w) = why { <p class="stopped">{ w }</p> }
                        <p class="help">{ format!("{} ms", r.duration_ms) }</p>
                    </>
                }
            }
            Output::TimedOut { after_ms } => html! { <p class="stopped">{ format!("{} ({} ms). {}", t.stopped_time(), after_ms, t.restarted()) }</p> },
            Output::Killed(m) => {
                let why = if m.contains("call stack") { t.stopped_stack() } else { t.stopped_memory() };
                html! { <p class="stopped">{ format!("{why} ({m}). {}", t.restarted()) }</p> }
            }
        };
        html! {
            <section class="output" data-testid="code-output" data-status={status} aria-live="polite">
                <span class={classes!("badge", status)}>{ badge }</span>
                { body }
            </section>
        }
    });
    let feedback = state.said.as_ref().map(|said| {
        let body = match said {
            Said::Checking => html! { <p>{ t.checking_lines() }</p> },
            Said::Testing => html! { <p>{ t.testing() }</p> },
            Said::Planning => html! { <p>{ t.planning() }</p> },
            Said::Fetching(pr) => html! {
                <>
                    <p>{ t.tutor_model_once() }</p>
                    <p data-testid="code-model-progress">{ super::status::progress_line(t, pr) }</p>
                    <progress value={pr.done.to_string()} max={pr.total.max(1).to_string()}></progress>
                </>
            },
            Said::Preparing => html! { <p>{ t.preparing_step() }</p> },
            Said::Stuck { index, problem } => html! { <><p>{ t.stuck() }</p><p class="where">{ format!("{} {}: {problem}", t.code_step(), index + 1) }</p></> },
            Said::Unavailable(m) => html! { <p>{ m.clone() }</p> },
            Said::TimedOut => html! { <p>{ t.check_timeout() }</p> },
            Said::Killed(m) => html! { <p>{ format!("{} ({m})", if m.contains("call stack") { t.stopped_stack() } else { t.stopped_memory() }) }</p> },
            Said::Tested(run) if run.passed => html! { <p>{ t.tests_passed() }</p> },
            Said::Tested(run) => html! { <p>{ format!("{} {}", t.tests_failed(), run.problem.clone().unwrap_or_default()) }</p> },
            Said::Feedback(f) => html! {
                <>
                    <p>{ f.message.clone() }</p>
                    if let Verdict::Syntax { line, issue } = &f.verdict {
                        <p class="where" data-line={line.to_string()} data-column={issue.column.to_string()}>{ format!("{} {line}, {} {}", t.your_line(), t.column(), issue.column) }</p>
                    }
                    if let Some(h) = &f.hint { <p class="hint">{ h.clone() }</p> }
                    if let Some(a) = &f.answer {
                        <p>{ t.tutor_lines() }</p>
                        <pre data-testid="code-answer">{ a.clone() }</pre>
                        <button data-testid="code-reveal" onclick={on_reveal.clone()}>{ t.use_lines() }</button>
                    }
                </>
            },
        };
        let retry = state.failed.is_some() && state.busy.is_none();
        html! {
            <section class="feedback" data-testid="code-feedback" data-verdict={said.verdict()} aria-live="polite">
                { body }
                if retry { <button data-testid="code-retry" onclick={on_retry.clone()}>{ t.retry() }</button> }
            </section>
        }
    });
    let selected = state.problem.clone().unwrap_or_default();
    html! {
        <section class="code" data-testid="code-view" hidden={!p.visible} data-saved={(state.saved_revision >= state.revision).to_string()}>
            <label class="picker">{ t.code_problem() }{ " " }
                <select data-testid="code-problem" onchange={on_pick}>
                    <option value="" selected={selected.is_empty()}>{ t.free_practice() }</option>
                    { for state.problems.iter().map(|pr| html! { <option value={pr.id.clone()} selected={pr.id == selected}>{ pr.title.clone() }</option> }) }
                </select>
            </label>
            <form class="own-task" onsubmit={on_plan}>
                <label for="code-task-input">{ t.own_task() }</label>
                <textarea id="code-task-input" data-testid="code-task-input" rows="2" placeholder={t.own_task_placeholder()}
                          value={state.task_text.clone()} oninput={on_task_text}></textarea>
                <button data-testid="code-plan" type="submit" disabled={busy || state.task_text.trim().is_empty()}>{ t.plan_task() }</button>
            </form>
            if state.problem.is_none() && session.is_none() { <p class="help">{ t.free_note() }</p> }
            { for task }
            { for steps }
            { for above }
            if !finished && (session.is_none() || session.is_some_and(|s| s.view().is_some())) {
                <div class="editor">
                    <div class="gutter" aria-hidden="true">{ for (1..=editor_lines).map(|i| html! { <span>{ i }</span> }) }</div>
                    <textarea ref={editor} data-testid="code-editor" spellcheck="false" autocapitalize="off" autocomplete="off"
                              aria-label={t.code_editor()} rows={editor_lines.to_string()} value={state.editor.clone()}
                              oninput={on_input} onkeydown={on_keydown}></textarea>
                </div>
                <p class="help">{ t.editor_keys() }</p>
            }
            <div class="actions">
                <button data-testid="code-run" disabled={busy} onclick={on_run.reform(|_: MouseEvent| ())}>{ t.run() }</button>
                if session.is_some_and(|s| s.view().is_some()) && !finished {
                    <button data-testid="code-check" disabled={busy} onclick={on_check.reform(|_: MouseEvent| ())}>{ t.check_step() }</button>
                }
            </div>
            { for output }
            { for feedback }
            if let Some(e) = &state.save_error { <p class="error" role="alert" data-testid="code-save-error">{ format!("{} {e}", t.code_save_failed()) }</p> }
        </section>
    }
}
