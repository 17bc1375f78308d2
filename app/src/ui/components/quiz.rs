//! The Quiz view: a topic (typed, or sent by the router), its subtopic menu, then one item at a
//! time with four options; after an answer, the rationales and the passage in the Book; the
//! results per Bloom level and every answered item with its reasons at the end; earlier quizzes
//! (saved on this device) can be reviewed and retaken.

use crate::i18n::{Lang, Texts};
use crate::protocol::{OutlineItem, Subtopic};
use crate::ui::quiz::{QUIZ_LENGTH, QuizUi, Shown, Stage};
use inference::agent::author::option_label;
use inference::agent::route::Lang as CourseLang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub quiz: QuizUi,
    pub ready: bool,
    pub lang: Lang,
    pub outline: Rc<Vec<OutlineItem>>,
    pub on_find: Callback<String>,
    pub on_start: Callback<Subtopic>,
    pub on_choose: Callback<usize>,
    pub on_next: Callback<()>,
    /// Opens a section of the book.
    pub on_open: Callback<u32>,
}

/// The label of an item's option `i`: ক–ঘ for a question in Bengali script, A–D otherwise (as
/// the Author view labels them).
fn label(item: &crate::protocol::Item, i: usize) -> &'static str {
    let bengali = item.question.chars().any(inference::text::is_bengali);
    option_label(i, if bengali { CourseLang::Bn } else { CourseLang::En })
}

/// Whether an item asks what Python shows for the book's code (`quiz::predict`): its code and
/// options are shown as code.
fn asks_code(item: &crate::protocol::Item) -> bool {
    inference::agent::quiz::predict::asks(&item.question)
}

/// The stem: its question, and the code it shows in a code block when it asks about the book's
/// code (what Python shows, why, or whether a classmate is right).
fn stem(item: &crate::protocol::Item, level: Html) -> Html {
    match item.question.split_once("\n\n").filter(|_| inference::agent::quiz::predict::shows_code(&item.question)) {
        Some((ask, code)) => html! {
            <>
                <p class="stem">{ ask }{ level }</p>
                <pre class="stem-code" data-testid="quiz-code"><code>{ code }</code></pre>
            </>
        },
        None => html! { <p class="stem">{ item.question.clone() }{ level }</p> },
    }
}

/// Every answered item again, for a finished quiz and a saved one: the stem and its level, each
/// option marked as the right one (✓) or the learner's wrong choice (✗), and the reasons for
/// both.
fn review(t: Texts, items: &[Shown]) -> Html {
    let answered = items.iter().filter_map(|s| Some((s, s.feedback.as_ref()?)));
    html! {
        <ol class="quiz-review" data-testid="quiz-review">
            { for answered.map(|(s, f)| {
                let item = &s.item;
                let options = item.options.iter().enumerate().map(|(i, o)| {
                    let (class, mark) = match (i == f.answer_index, i == f.chosen) {
                        (true, _) => ("right", " ✓"),
                        (false, true) => ("wrong", " ✗"),
                        _ => ("", ""),
                    };
                    let text = if asks_code(item) { html! { <code>{ o.clone() }</code> } } else { html! { { o.clone() } } };
                    html! { <li class={class}><b>{ format!("{}) ", label(item, i)) }</b>{ text }{ mark }</li> }
                });
                html! {
                    <li data-testid="quiz-review-item" data-correct={f.correct.to_string()} data-bloom={item.bloom.name()}>
                        { stem(item, html! { <small>{ format!(" · {}", t.bloom(item.bloom)) }</small> }) }
                        <ul class="options">{ for options }</ul>
                        <p>{ format!("{} {}) — ", t.quiz_your_choice(), label(item, f.chosen)) }{ f.chosen_rationale.clone() }</p>
                        if !f.correct {
                            <p>{ format!("{} {}) — ", t.quiz_correct_is(), label(item, f.answer_index)) }{ f.right_rationale.clone() }</p>
                        }
                    </li>
                }
            }) }
        </ol>
    }
}

#[function_component]
pub fn QuizPanel(p: &Props) -> Html {
    let t = Texts(p.lang);
    let q = &p.quiz;
    let input = use_node_ref();
    {
        // A topic the router sent is looked up once, when the course is ready.
        let (pending, on_find, ready) = (q.pending_topic.clone(), p.on_find.clone(), p.ready);
        use_effect_with((pending, ready), move |(pending, ready)| {
            if let (Some(topic), true) = (pending, *ready) {
                on_find.emit(topic.clone());
            }
        });
    }
    let onsubmit = {
        let (input, on_find) = (input.clone(), p.on_find.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(el) = input.cast::<web_sys::HtmlInputElement>() else { return };
            let topic = el.value();
            if !topic.trim().is_empty() {
                on_find.emit(topic.trim().to_string());
            }
        })
    };
    let stage = match &q.stage {
        Stage::Idle => "idle",
        Stage::Finding => "finding",
        Stage::Menu(_) => "menu",
        Stage::NotCovered { .. } => "not_covered",
        Stage::Running => "running",
        Stage::Finished(_) => "finished",
        Stage::Error(_) => "error",
    };
    let start_button = |s: &Subtopic, testid: &'static str, label: String| {
        let on_start = p.on_start.clone();
        let section = s.section.to_string();
        let s = s.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_start.emit(s.clone()));
        html! { <button data-testid={testid} data-section={section} {onclick}>{ label }</button> }
    };
    let body = match &q.stage {
        Stage::Idle => html! { <p class="hint">{ t.quiz_intro() }</p> },
        Stage::Finding => html! { <p class="phase" data-testid="quiz-finding">{ t.quiz_finding() }</p> },
        Stage::Menu(subtopics) => html! {
            <div class="quiz-menu">
                <p>{ t.quiz_choose_part() }</p>
                <ul class="options">
                    { for subtopics.iter().map(|s| html! { <li>{ start_button(s, "quiz-subtopic", s.name.clone()) }<small>{ s.heading_path.join(" ▸ ") }</small></li> }) }
                </ul>
            </div>
        },
        Stage::NotCovered { message, nearest } => {
            let nearest = nearest.iter().map(|&id| {
                let heading = p.outline.iter().find(|o| o.id == id).map(|o| o.heading.clone()).unwrap_or_default();
                let on_open = p.on_open.clone();
                let onclick = Callback::from(move |_: MouseEvent| on_open.emit(id));
                html! { <li><button class="link" data-testid="quiz-nearest" {onclick}>{ heading }</button></li> }
            });
            html! {
                <div data-testid="quiz-not-covered">
                    <p>{ message.clone() }</p>
                    <ul>{ for nearest }</ul>
                </div>
            }
        }
        Stage::Error(m) => html! { <p class="error" data-testid="quiz-error">{ m.clone() }</p> },
        Stage::Running | Stage::Finished(_) => running(p, t),
    };
    let saved = (matches!(q.stage, Stage::Idle | Stage::Finished(_) | Stage::Menu(_)) && !q.saved.is_empty()).then(|| {
        html! {
            <div class="quiz-saved" data-testid="quiz-saved">
                <h3>{ t.quiz_saved() }</h3>
                <ul>
                    { for q.saved.iter().map(|s| {
                        let (right, answered) = s.score();
                        html! {
                            <li data-testid="quiz-saved-row" data-section={s.subtopic.section.to_string()}>
                                { format!("{} — {}/{} — {} {} ", s.subtopic.name, t.num(right), t.num(answered), t.quiz_next_level(), t.bloom(s.next_bloom)) }
                                { start_button(&s.subtopic, "quiz-retake", t.quiz_retake().to_string()) }
                                if answered > 0 {
                                    <details><summary>{ t.quiz_review() }</summary>{ review(t, &s.items) }</details>
                                }
                            </li>
                        }
                    }) }
                </ul>
            </div>
        }
    });
    html! {
        <section class="quiz" data-testid="quiz" data-stage={stage}>
            <form {onsubmit}>
                <input ref={input} data-testid="quiz-topic" placeholder={t.quiz_topic_placeholder()} aria-label={t.tab_quiz()} value={q.topic.clone()} />
                <button data-testid="quiz-find" type="submit" disabled={!p.ready}>{ t.quiz_find() }</button>
            </form>
            { body }
            { for saved }
        </section>
    }
}

/// A running or finished quiz: the item on screen, its feedback, what is being prepared, and
/// the results once finished.
fn running(p: &Props, t: Texts) -> Html {
    let q = &p.quiz;
    let name = q.subtopic.as_ref().map(|s| s.name.clone()).unwrap_or_default();
    let preparing = q.preparing.map(|(branch, bloom)| {
        use crate::protocol::Branch;
        let text = match branch {
            Branch::First => t.quiz_writing_first().to_string(),
            Branch::Right => format!("{} ({}, {})…", t.quiz_writing_next(), t.bloom(bloom), t.quiz_if_right()),
            Branch::Wrong => format!("{} ({}, {})…", t.quiz_writing_next(), t.bloom(bloom), t.quiz_if_wrong()),
        };
        html! { <p class="phase" data-testid="quiz-preparing" data-branch={format!("{branch:?}").to_lowercase()}>{ text }</p> }
    });
    let item = q.current().map(|s| item_view(p, t, s));
    let skipped = (!q.skipped.is_empty()).then(|| html! { <p class="hint" data-testid="quiz-skipped">{ format!("{} {}", t.num(q.skipped.len()), t.quiz_skipped()) }</p> });
    let results = match &q.stage {
        Stage::Finished(reason) => {
            let (right, answered) = q.score();
            let rows = q.by_level().into_iter().map(|(b, r, n)| html! { <tr data-bloom={b.name()}><td>{ t.bloom(b) }</td><td>{ format!("{} / {}", t.num(r), t.num(n)) }</td></tr> });
            let retake = q.subtopic.clone().map(|s| {
                let on_start = p.on_start.clone();
                let onclick = Callback::from(move |_: MouseEvent| on_start.emit(s.clone()));
                html! { <button data-testid="quiz-retake" {onclick}>{ t.quiz_retake() }</button> }
            });
            html! {
                <div class="quiz-results" data-testid="quiz-results" data-right={right.to_string()} data-answered={answered.to_string()}>
                    <h3>{ format!("{}: {} / {}", t.quiz_results(), t.num(right), t.num(answered)) }</h3>
                    if let Some(r) = reason { <p>{ r.clone() }</p> }
                    <table><tbody>{ for rows }</tbody></table>
                    { for retake }
                    if answered > 0 {
                        <h4>{ t.quiz_review() }</h4>
                        { review(t, &q.items) }
                    }
                </div>
            }
        }
        _ => html! {},
    };
    let waiting = q.want_next && !matches!(q.stage, Stage::Finished(_));
    html! {
        <div class="quiz-run">
            <h3 data-testid="quiz-subtopic-name">{ name }</h3>
            if !waiting { { for item } }
            { for preparing }
            { for skipped }
            { results }
        </div>
    }
}

fn item_view(p: &Props, t: Texts, s: &Shown) -> Html {
    let q = &p.quiz;
    let item = &s.item;
    let options = item.options.iter().enumerate().map(|(i, o)| {
        let class = match (&s.feedback, s.chosen) {
            (Some(_), _) if i == item.answer_index => "option right",
            (Some(_), Some(c)) if c == i => "option wrong",
            _ => "option",
        };
        let on_choose = p.on_choose.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_choose.emit(i));
        html! {
            <li><button class={class} data-testid="quiz-option" data-index={i.to_string()} disabled={s.chosen.is_some()} {onclick}>
                <b>{ format!("{}) ", label(item, i)) }</b><span class={if asks_code(item) { "text code" } else { "text" }}>{ o.clone() }</span>
            </button></li>
        }
    });
    let feedback = s.feedback.as_ref().map(|f| {
        let e = f.evidence.first().cloned();
        let open = e.map(|e| {
            let on_open = p.on_open.clone();
            let section = e.section;
            let onclick = Callback::from(move |_: MouseEvent| on_open.emit(section));
            html! { <p>{ t.quiz_read_book() }{ " " }<button class="link" data-testid="quiz-evidence" {onclick}>{ e.heading_path.join(" ▸ ") }</button></p> }
        });
        let next = (s.number < QUIZ_LENGTH && !matches!(q.stage, Stage::Finished(_))).then(|| {
            let onclick = p.on_next.reform(|_: MouseEvent| ());
            html! { <button data-testid="quiz-next" {onclick}>{ t.quiz_next() }</button> }
        });
        html! {
            <div class="quiz-feedback" data-testid="quiz-feedback" data-correct={f.correct.to_string()}>
                <p><b>{ if f.correct { t.quiz_right() } else { t.quiz_wrong() } }</b>{ " " }{ f.chosen_rationale.clone() }</p>
                if !f.correct {
                    <p>{ format!("{} {}) {} — ", t.quiz_correct_is(), label(item, f.answer_index), item.options[f.answer_index]) }{ f.right_rationale.clone() }</p>
                }
                { for open }
                { for next }
            </div>
        }
    });
    html! {
        <article class="quiz-item" data-testid="quiz-item" data-number={s.number.to_string()} data-bloom={item.bloom.name()}
                 data-wait-ms={format!("{:.0}", s.wait_ms)} data-attempts={s.attempts.to_string()}>
            <p class="meta">
                { format!("{} {} {} {} · {} ", t.quiz_question(), t.num(s.number), t.quiz_of(), t.num(QUIZ_LENGTH), t.quiz_level()) }
                <span class="level" data-testid="quiz-level">{ t.bloom(item.bloom) }</span>
            </p>
            { stem(item, html! {}) }
            <ol class="quiz-options">{ for options }</ol>
            { for feedback }
        </article>
    }
}
