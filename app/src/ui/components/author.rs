//! The Author view (teachers): a request (typed, with counts, difficulty, language and optionally
//! chapters or sections from the outline), what it gave, and the course's question bank least
//! supported first — each item with its evidence, verification report and caution flag, to
//! accept, edit (checked again; the edit kept as it is typed) or discard — then exports (JSON,
//! Moodle XML, GIFT) and a printable paper with its answer key on a separate page.

use crate::i18n::{Lang, Texts};
use crate::protocol::{AuthorOutcome, AuthorRequest, Authored, OutlineItem, Task};
use crate::ui::author::AuthorUi;
use inference::agent::author::gates::teacher_note;
use inference::agent::author::{Body, Decision, Difficulty, FromBook, code_cq, export, option_label};
use inference::agent::route::Lang as CourseLang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub author: AuthorUi,
    pub ready: bool,
    pub lang: Lang,
    pub outline: Rc<Vec<OutlineItem>>,
    pub on_write: Callback<AuthorRequest>,
    pub on_decide: Callback<(String, Decision)>,
    pub on_edit: Callback<Authored>,
    /// An edit in progress, or `None` with the item's id: the editor closed unsaved.
    pub on_draft: Callback<(String, Option<Authored>)>,
    /// Opens a section of the book.
    pub on_open: Callback<u32>,
}

fn value<T: wasm_bindgen::JsCast + AsRef<web_sys::Node> + From<wasm_bindgen::JsValue>>(r: &NodeRef, get: impl Fn(&T) -> String) -> String {
    r.cast::<T>().map(|e| get(&e)).unwrap_or_default()
}

#[function_component]
pub fn AuthorPanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let a = &p.author;
    let (request, mcq, cq, difficulty, language) = (use_node_ref(), use_node_ref(), use_node_ref(), use_node_ref(), use_node_ref());
    let chosen = use_state(Vec::<u32>::new);
    let onsubmit = {
        let (request, mcq, cq, difficulty, language, chosen, on_write, running) =
            (request.clone(), mcq.clone(), cq.clone(), difficulty.clone(), language.clone(), chosen.clone(), p.on_write.clone(), a.running);
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if running {
                // The button reads Stop while a request runs.
                on_write.emit(AuthorRequest::parse(""));
                return;
            }
            let text = value::<web_sys::HtmlTextAreaElement>(&request, |e| e.value());
            let mut req = AuthorRequest::parse(&text);
            let number = |r: &NodeRef| value::<web_sys::HtmlInputElement>(r, |e| e.value()).trim().parse::<usize>().ok();
            if let (Some(m), Some(c)) = (number(&mcq), number(&cq)) {
                req.mcq = m;
                req.cq = c;
            }
            if let Some(d) = Difficulty::parse(&value::<web_sys::HtmlSelectElement>(&difficulty, |e| e.value())) {
                req.difficulty = d;
            }
            req.lang = match value::<web_sys::HtmlSelectElement>(&language, |e| e.value()).as_str() {
                "bn" => Some(CourseLang::Bn),
                "en" => Some(CourseLang::En),
                _ => req.lang,
            };
            req.sections = (*chosen).clone();
            on_write.emit(req);
        })
    };
    // A chapter, or any section under it, may be chosen (as `index-builder author --section`).
    let section_box = |o: &OutlineItem, testid: &'static str| {
        let id = o.id;
        let checked = chosen.contains(&id);
        let chosen = chosen.clone();
        let onchange = Callback::from(move |_: Event| {
            let mut c = (*chosen).clone();
            if let Some(i) = c.iter().position(|&x| x == id) {
                c.remove(i);
            } else {
                c.push(id);
            }
            chosen.set(c);
        });
        let indent = format!("padding-left: {}em", o.depth.saturating_sub(1));
        html! { <label class="chapter" style={indent}><input type="checkbox" data-testid={testid} data-section={id.to_string()} {checked} {onchange} />{ o.heading.clone() }</label> }
    };
    let chapter_boxes = p.outline.iter().enumerate().filter(|(_, o)| o.parent.is_none()).map(|(i, o)| {
        let inner: Vec<&OutlineItem> = p.outline[i + 1..].iter().take_while(|s| s.depth > o.depth).collect();
        html! {
            <div class="chapter-group">
                { section_box(o, "author-chapter") }
                if !inner.is_empty() {
                    <details><summary>{ t.author_sections() }</summary>{ for inner.iter().map(|s| section_box(s, "author-section")) }</details>
                }
            </div>
        }
    });
    let outcome = a.outcome.as_ref().map(|o| match o {
        AuthorOutcome::Refused { message } => html! { <p class="notice" data-testid="author-refused">{ message.clone() }</p> },
        AuthorOutcome::Clarify { question, options } => html! {
            <div class="notice" data-testid="author-clarify"><p>{ question.clone() }</p><ul>{ for options.iter().map(|o| html! { <li>{ o.clone() }</li> }) }</ul></div>
        },
        AuthorOutcome::NotCovered { message, nearest } => html! {
            <div class="notice" data-testid="author-not-covered">
                <p>{ message.clone() }</p>
                <ul>{ for nearest.iter().map(|s| {
                    let (on_open, id) = (p.on_open.clone(), s.section);
                    html! { <li><button class="link" onclick={Callback::from(move |_: MouseEvent| on_open.emit(id))}>{ s.heading_path.join(" ▸ ") }</button></li> }
                }) }</ul>
            </div>
        },
        AuthorOutcome::Ready { chapter, concept, .. } => html! { <p class="hint" data-testid="author-ready">{ format!("{chapter} ▸ {concept}") }</p> },
    });
    let writing = a.writing.map(|(n, total, task)| {
        let kind = if task == Task::Mcq { t.author_mcq() } else { t.author_cq() };
        html! { <p class="phase" data-testid="author-writing">{ format!("{} {} / {} ({kind})…", t.author_writing(), t.num(n), t.num(total)) }</p> }
    });
    let missing = (!a.missing.is_empty()).then(|| {
        html! {
            <div class="notice" data-testid="author-missing">
                <p>{ t.author_missing() }</p>
                <ul>{ for a.missing.iter().map(|(task, why)| html! { <li>{ format!("{}: {why}", if *task == Task::Mcq { t.author_mcq() } else { t.author_cq() }) }</li> }) }</ul>
            </div>
        }
    });
    let exportable = a.exportable();
    let exports = (!exportable.is_empty()).then(|| {
        let button = |label: &'static str, testid: &'static str, format: export::Format, name: &'static str, mime: &'static str| {
            let items = exportable.clone();
            let onclick = Callback::from(move |_: MouseEvent| crate::ui::author::download(name, mime, &export::export(&items, format)));
            html! { <button data-testid={testid} {onclick}>{ label }</button> }
        };
        let print = Callback::from(|_: MouseEvent| {
            if let Some(w) = web_sys::window() {
                let _ = w.print();
            }
        });
        html! {
            <p class="exports">
                { t.author_export() }{ " " }
                { button("JSON", "author-export-json", export::Format::Json, "questions.jsonl", "application/jsonl") }{ " " }
                { button("Moodle XML", "author-export-moodle", export::Format::MoodleXml, "questions-moodle.xml", "application/xml") }{ " " }
                { button("GIFT", "author-export-gift", export::Format::Gift, "questions-gift.txt", "text/plain") }{ " " }
                <button data-testid="author-print" onclick={print}>{ t.author_print() }</button>
            </p>
        }
    });
    html! {
        <section class="author" data-testid="author" data-running={a.running.to_string()} data-items={a.bank.len().to_string()}>
            <p class="hint">{ t.author_intro() }</p>
            <form class="author-form" {onsubmit}>
                <textarea ref={request} data-testid="author-request" rows="2" placeholder={t.author_placeholder()} aria-label={t.tab_author()} />
                <div class="author-options">
                    <label>{ t.author_mcq() }<input ref={mcq} type="number" min="0" max="20" value="5" data-testid="author-mcq" /></label>
                    <label>{ t.author_cq() }<input ref={cq} type="number" min="0" max="5" value="1" data-testid="author-cq" /></label>
                    <label>{ t.author_difficulty() }
                        <select ref={difficulty} data-testid="author-difficulty">
                            <option value="beginner">{ t.difficulty_beginner() }</option>
                            <option value="intermediate" selected=true>{ t.difficulty_intermediate() }</option>
                            <option value="advanced">{ t.difficulty_advanced() }</option>
                        </select>
                    </label>
                    <label>{ t.author_language() }
                        <select ref={language} data-testid="author-language">
                            <option value="" selected=true>{ t.author_lang_course() }</option>
                            <option value="bn">{ "বাংলা" }</option>
                            <option value="en">{ "English" }</option>
                        </select>
                    </label>
                </div>
                <details class="author-chapters"><summary>{ t.author_chapters() }</summary>{ for chapter_boxes }</details>
                <button type="submit" data-testid="author-write" disabled={!p.ready}>{ if a.running { t.author_stop() } else { t.author_write() } }</button>
            </form>
            { for outcome }
            { for writing }
            { for missing }
            if let Some(e) = &a.error { <p class="error" data-testid="author-error">{ e.clone() }</p> }
            if let Some(e) = &a.save_error { <p class="error" data-testid="author-save-error">{ format!("{} {e}", t.author_save_failed()) }</p> }
            <h3>{ t.author_bank() }</h3>
            if a.bank.is_empty() { <p class="hint">{ t.author_empty() }</p> }
            { for a.bank.iter().map(|item| html! {
                <ItemCard key={item.question_id.clone()} item={item.clone()} draft={a.draft_of(&item.question_id).cloned()} lang={p.lang}
                          rechecking={a.rechecking.contains(&item.question_id)} on_decide={p.on_decide.clone()} on_edit={p.on_edit.clone()}
                          on_draft={p.on_draft.clone()} on_open={p.on_open.clone()} />
            }) }
            { for exports }
            if !exportable.is_empty() { { paper(t, &exportable) } }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct CardProps {
    item: Authored,
    /// The item as being edited (the editor is open), kept in the page's state and IndexedDB.
    draft: Option<Authored>,
    lang: Lang,
    rechecking: bool,
    on_decide: Callback<(String, Decision)>,
    on_edit: Callback<Authored>,
    on_draft: Callback<(String, Option<Authored>)>,
    on_open: Callback<u32>,
}

/// One item of the bank: its content, evidence, report and the teacher's buttons; or its editor.
#[function_component]
fn ItemCard(p: &CardProps) -> Html {
    let t = Texts(p.lang);
    let item = &p.item;
    let decide = |d: Decision| {
        let (on_decide, id) = (p.on_decide.clone(), item.question_id.clone());
        Callback::from(move |_: MouseEvent| on_decide.emit((id.clone(), d)))
    };
    let v = item.verification.as_ref();
    let flagged = v.is_some_and(|v| !v.accepted);
    // The gates and the writer's checks: how many passed, and each failed one in words.
    let total = item.gates.len();
    let passed = item.gates.values().filter(|ok| **ok).count();
    let failed: Vec<String> = item.gates.iter().filter(|(_, ok)| !**ok).map(|(k, _)| teacher_note(k, t.0 == Lang::Bn)).collect();
    let gates = (total > 0).then(|| {
        html! {
            <small class="gates" data-testid="author-gates" data-passed={passed.to_string()} data-total={total.to_string()}>
                { format!("{} {}/{}", t.author_checks(), t.num(passed), t.num(total)) }
                if !failed.is_empty() { { format!(" — {}", failed.join("; ")) } }
            </small>
        }
    });
    let report = v.map(|v| {
        html! {
            <div class="report">
                <small data-testid="author-scores">{ format!("{} {:.2} / {:.2} / {:.2}", t.author_scores(), v.faithfulness, v.relevance, v.hallucination) }</small>
                if !v.accepted {
                    <p class="caution" data-testid="author-caution">{ "⚠ " }{ t.author_caution() }{ " " }{ v.reasons.join("; ") }</p>
                }
            </div>
        }
    });
    let evidence = item.sources.iter().map(|s| {
        let (on_open, id) = (p.on_open.clone(), s.section);
        html! {
            <p class="evidence">
                { t.author_evidence() }{ " " }
                <button class="link" data-testid="author-evidence" onclick={Callback::from(move |_: MouseEvent| on_open.emit(id))}>{ s.heading_path.join(" ▸ ") }</button>
                if !s.quote.is_empty() { <q>{ s.quote.clone() }</q> }
            </p>
        }
    });
    let body = match &p.draft {
        Some(draft) => editor(p, t, draft),
        None => content(item, t),
    };
    let decided = match item.decision {
        Decision::Pending => "pending",
        Decision::Accepted => "accepted",
        Decision::Edited => "edited",
        Decision::Discarded => "discarded",
    };
    let start_edit = {
        let (on_draft, item) = (p.on_draft.clone(), item.clone());
        Callback::from(move |_: MouseEvent| on_draft.emit((item.question_id.clone(), Some(item.clone()))))
    };
    let kind = if item.task == Task::Mcq { t.author_mcq() } else { t.author_cq() };
    html! {
        <article class={classes!("author-item", flagged.then_some("flagged"), (item.decision == Decision::Discarded).then_some("discarded"))}
                 data-testid="author-item" data-task={if item.task == Task::Mcq { "mcq" } else { "cq" }} data-decision={decided}
                 data-accepted={v.map_or("unknown".to_string(), |v| v.accepted.to_string())} data-ladder={format!("{:?}", item.ladder).to_lowercase()}>
            <p class="meta">{ format!("{kind} · {} · {} · {} · {}", t.difficulty(item.difficulty), item.chapter, item.concept, match item.from_book() {
                Some(FromBook::Definition) => t.author_from_book(),
                Some(FromBook::Running) => t.author_from_run(),
                Some(FromBook::Reason) => t.author_from_reason(),
                Some(FromBook::Example) => t.author_from_example(),
                Some(FromBook::Contrast) => t.author_from_contrast(),
                Some(FromBook::Statement) => t.author_from_statement(),
                None => t.author_ai(),
            }) }</p>
            { body }
            { for evidence }
            if p.rechecking { <p class="phase" data-testid="author-rechecking">{ t.author_checking() }</p> } else { { for gates } { for report } }
            if p.draft.is_none() {
                <p class="decisions">
                    if item.decision == Decision::Discarded {
                        <button data-testid="author-restore" onclick={decide(Decision::Pending)}>{ t.author_restore() }</button>
                    } else {
                        <button data-testid="author-accept" disabled={item.decision == Decision::Accepted} onclick={decide(Decision::Accepted)}>{ t.author_accept() }</button>{ " " }
                        <button data-testid="author-edit" onclick={start_edit}>{ t.author_edit() }</button>{ " " }
                        <button class="danger" data-testid="author-discard" onclick={decide(Decision::Discarded)}>{ t.author_discard() }</button>
                    }
                </p>
            }
        </article>
    }
}

/// An item as read: the stem and labelled options with the key, or the stimulus and its parts.
fn content(item: &Authored, t: Texts) -> Html {
    match &item.body {
        Body::Mcq(m) => html! {
            <>
                <p class="stem" data-testid="author-question">{ m.question.clone() }</p>
                <ol class="author-options-list">{ for m.options.iter().enumerate().map(|(i, o)| html! {
                    <li class={classes!((i == m.answer_index).then_some("key"))}><b>{ format!("{}) ", option_label(i, item.language)) }</b>{ o.clone() }</li>
                }) }</ol>
                <p class="key">{ t.author_answer() }{ format!(" {}) {}", option_label(m.answer_index, item.language), m.options.get(m.answer_index).cloned().unwrap_or_default()) }</p>
            </>
        },
        Body::Cq(c) => html! {
            <>
                if !c.headline.is_empty() { <p class="stem"><b>{ c.headline.clone() }</b></p> }
                <div class="stimulus" data-testid="author-question">{ stimulus(&c.clue) }</div>
                <ol class="parts">{ for c.parts.iter().map(|p| html! {
                    <li>
                        { format!("{}) {} ({} {})", p.label, p.question, p.marks, t.author_marks()) }<small>{ format!(" {}", p.skill) }</small>
                        if !p.answer.is_empty() { <p class="part-answer">{ format!("{} {}", t.author_answer(), p.answer) }</p> }
                    </li>
                }) }</ol>
            </>
        },
    }
}

/// A stimulus's paragraphs; those that are code (the book's lines, [`code_cq::is_code`]) as code blocks.
fn stimulus(clue: &str) -> Html {
    html! { for clue.split("\n\n").map(|para| if code_cq::is_code(para) {
        html! { <pre class="stem-code">{ code_cq::unindent(para) }</pre> }
    } else {
        html! { <p>{ para.to_string() }</p> }
    }) }
}

/// The inline editor: every text field of the item; Save sends it to be checked again.
fn editor(p: &CardProps, t: Texts, draft: &Authored) -> Html {
    // Each field writes into the draft as it changes (kept by the page, so a reload loses nothing).
    let id = draft.question_id.clone();
    let set = |f: Rc<dyn Fn(&mut Authored, String)>| {
        let (on_draft, draft, id) = (p.on_draft.clone(), draft.clone(), id.clone());
        Callback::from(move |e: InputEvent| {
            let Some(target) = e.target_dyn_into::<web_sys::HtmlTextAreaElement>() else { return };
            let mut d = draft.clone();
            f(&mut d, target.value());
            on_draft.emit((id.clone(), Some(d)));
        })
    };
    let field = |text: String, f: Rc<dyn Fn(&mut Authored, String)>, rows: &'static str| html! { <textarea data-testid="author-field" {rows} value={text} oninput={set(f)} /> };
    let fields = match &draft.body {
        Body::Mcq(m) => {
            let mut out = vec![field(m.question.clone(), Rc::new(|d, v| if let Body::Mcq(m) = &mut d.body { m.question = v }), "2")];
            for i in 0..m.options.len() {
                out.push(html! { <label class="option-edit"><b>{ format!("{}) ", option_label(i, draft.language)) }</b>
                    { field(m.options[i].clone(), Rc::new(move |d, v| if let Body::Mcq(m) = &mut d.body { m.options[i] = v }), "1") }</label> });
            }
            let key = {
                let (on_draft, draft, id) = (p.on_draft.clone(), draft.clone(), id.clone());
                Callback::from(move |e: Event| {
                    let Some(s) = e.target_dyn_into::<web_sys::HtmlSelectElement>() else { return };
                    let mut d = draft.clone();
                    if let (Body::Mcq(m), Ok(k)) = (&mut d.body, s.value().parse::<usize>()) {
                        m.answer_index = k;
                    }
                    on_draft.emit((id.clone(), Some(d)));
                })
            };
            out.push(html! {
                <label>{ t.author_answer() }
                    <select data-testid="author-key" onchange={key}>{ for (0..m.options.len()).map(|i| html! {
                        <option value={i.to_string()} selected={i == m.answer_index}>{ option_label(i, draft.language) }</option>
                    }) }</select>
                </label>
            });
            out
        }
        Body::Cq(c) => {
            let mut out = vec![field(c.clue.clone(), Rc::new(|d, v| if let Body::Cq(c) = &mut d.body { c.clue = v }), "5")];
            for i in 0..c.parts.len() {
                out.push(html! { <label class="option-edit"><b>{ format!("{}) ", c.parts[i].label) }</b>
                    { field(c.parts[i].question.clone(), Rc::new(move |d, v| if let Body::Cq(c) = &mut d.body { c.parts[i].question = v }), "2") }</label> });
            }
            out
        }
    };
    let save = {
        let (on_edit, draft) = (p.on_edit.clone(), draft.clone());
        Callback::from(move |_: MouseEvent| on_edit.emit(draft.clone()))
    };
    let cancel = {
        let on_draft = p.on_draft.clone();
        Callback::from(move |_: MouseEvent| on_draft.emit((id.clone(), None)))
    };
    html! {
        <div class="author-editor" data-testid="author-editor">
            { for fields }
            <p><button data-testid="author-save" onclick={save}>{ t.author_save() }</button>{ " " }<button class="tab" data-testid="author-cancel" onclick={cancel}>{ t.author_cancel() }</button></p>
        </div>
    }
}

/// The printable exam paper (shown only when printing): the questions, then the answer key on a
/// page of its own.
fn paper(t: Texts, items: &[Authored]) -> Html {
    let mcqs: Vec<&Authored> = items.iter().filter(|i| i.task == Task::Mcq).collect();
    let cqs: Vec<&Authored> = items.iter().filter(|i| i.task == Task::Cq).collect();
    let lang = items.first().map_or(CourseLang::En, |i| i.language);
    let number = |n: usize| if lang == CourseLang::Bn { crate::i18n::bengali_digits(&n.to_string()) } else { n.to_string() };
    html! {
        <div class="print-paper" data-testid="print-paper" lang={if lang == CourseLang::Bn { "bn" } else { "en" }}>
            { for mcqs.iter().enumerate().map(|(n, i)| match &i.body {
                Body::Mcq(m) => html! {
                    <div class="paper-item">
                        <p>{ format!("{}. {}", number(n + 1), m.question) }</p>
                        <p class="paper-options">{ for m.options.iter().enumerate().map(|(k, o)| html! { <span>{ format!("{}) {o}", option_label(k, i.language)) }</span> }) }</p>
                    </div>
                },
                Body::Cq(_) => html! {},
            }) }
            { for cqs.iter().enumerate().map(|(n, i)| match &i.body {
                Body::Cq(c) => html! {
                    <div class="paper-item">
                        <p>{ format!("{}. {}", number(mcqs.len() + n + 1), c.clue) }</p>
                        { for c.parts.iter().map(|p| html! { <p class="paper-part">{ format!("{}) {} ({} {})", p.label, p.question, number(p.marks as usize), t.author_marks()) }</p> }) }
                    </div>
                },
                Body::Mcq(_) => html! {},
            }) }
            <div class="print-key" data-testid="print-key">
                <h3>{ t.author_answer_key() }</h3>
                { for mcqs.iter().enumerate().map(|(n, i)| match &i.body {
                    Body::Mcq(m) => html! { <p>{ format!("{}. {}) {}", number(n + 1), option_label(m.answer_index, i.language), m.options.get(m.answer_index).cloned().unwrap_or_default()) }</p> },
                    Body::Cq(_) => html! {},
                }) }
                // A CQ made from the book carries each part's answer (the marking guide).
                { for cqs.iter().enumerate().map(|(n, i)| match &i.body {
                    Body::Cq(c) => html! { for c.parts.iter().filter(|p| !p.answer.is_empty()).map(|p| html! {
                        <p class="paper-answer">{ format!("{}. {}) {}", number(mcqs.len() + n + 1), p.label, p.answer) }</p>
                    }) },
                    Body::Mcq(_) => html! {},
                }) }
            </div>
        </div>
    }
}
