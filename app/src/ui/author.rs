//! The Author view's state (teachers): the request being written, what it gave, and the course's
//! question bank with the teacher's decisions, saved in IndexedDB after every change
//! (`storage::records::AUTHOR`, one record per course). Pure data, tested natively;
//! `components/author.rs` renders it.

use crate::protocol::{AuthorOutcome, Authored, Reply, Task};
use inference::agent::author::{Decision, review_order};
use serde::{Deserialize, Serialize};

/// What is kept of a course's bank.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bank {
    pub course: String,
    pub items: Vec<Authored>,
    /// Edits being written, not yet saved (so a reload or a killed tab loses none).
    #[serde(default)]
    pub drafts: Vec<Authored>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AuthorUi {
    /// Id of the request being written; replies with another id are stale.
    pub id: u32,
    pub running: bool,
    /// Item `n` of `total` being written, and its format.
    pub writing: Option<(usize, usize, Task)>,
    pub outcome: Option<AuthorOutcome>,
    /// Items of the last request that could not be written, and why.
    pub missing: Vec<(Task, String)>,
    /// The course's bank, least supported first.
    pub bank: Vec<Authored>,
    /// Items open in the editor, as edited so far (saved with the bank).
    pub drafts: Vec<Authored>,
    /// The bank was read from IndexedDB (nothing is saved before, so nothing is overwritten).
    pub loaded: bool,
    /// Bumped on every change of the bank: the page saves it then.
    pub revision: u32,
    /// Items being checked again after an edit.
    pub rechecking: Vec<String>,
    pub error: Option<String>,
    /// Why the last save failed (quota); cleared by the next good save.
    pub save_error: Option<String>,
}

impl AuthorUi {
    /// Request `id` was sent.
    pub fn started(&mut self, id: u32) {
        self.id = id;
        self.running = true;
        self.writing = None;
        self.outcome = None;
        self.missing.clear();
        self.error = None;
    }

    /// The bank read from IndexedDB (items written before it arrived are kept too), with the
    /// edits that were open.
    pub fn load(&mut self, bank: Bank) {
        for i in bank.items {
            if !self.bank.iter().any(|b| b.question_id == i.question_id) {
                self.bank.push(i);
            }
        }
        for d in bank.drafts {
            if !self.drafts.iter().any(|o| o.question_id == d.question_id) {
                self.drafts.push(d);
            }
        }
        self.loaded = true;
        self.sort();
    }

    /// The item open in the editor, as edited so far.
    pub fn draft_of(&self, question_id: &str) -> Option<&Authored> {
        self.drafts.iter().find(|d| d.question_id == question_id)
    }

    /// An edit in progress (the editor opened, or a field changed): kept, and saved.
    pub fn draft(&mut self, item: Authored) {
        match self.drafts.iter_mut().find(|d| d.question_id == item.question_id) {
            Some(slot) => *slot = item,
            None => self.drafts.push(item),
        }
        self.revision += 1;
    }

    /// The editor was closed without saving.
    pub fn drop_draft(&mut self, question_id: &str) {
        self.drafts.retain(|d| d.question_id != question_id);
        self.revision += 1;
    }

    fn sort(&mut self) {
        review_order(&mut self.bank);
    }

    fn changed(&mut self) {
        self.sort();
        self.revision += 1;
    }

    /// The teacher's decision on an item.
    pub fn decide(&mut self, question_id: &str, decision: Decision) {
        if let Some(i) = self.bank.iter_mut().find(|i| i.question_id == question_id) {
            i.decision = decision;
            self.changed();
        }
    }

    /// The teacher saved an edit: the item is kept as edited (a CQ part's answer only where the
    /// part and its story are unchanged) and checked again.
    pub fn edited(&mut self, mut item: Authored) {
        item.decision = Decision::Edited;
        let id = item.question_id.clone();
        self.drafts.retain(|d| d.question_id != id);
        match self.bank.iter_mut().find(|i| i.question_id == id) {
            Some(slot) => {
                inference::agent::author::drop_stale_answers(slot, &mut item);
                *slot = item;
            }
            None => self.bank.push(item),
        }
        if !self.rechecking.contains(&id) {
            self.rechecking.push(id);
        }
        self.changed();
    }

    /// Items to export or print: every item not discarded, least supported first.
    pub fn exportable(&self) -> Vec<Authored> {
        self.bank.iter().filter(|i| i.decision != Decision::Discarded).cloned().collect()
    }

    /// Applies an author reply; returns whether it was one.
    pub fn apply(&mut self, reply: &Reply) -> bool {
        match reply {
            Reply::AuthorPrepared { id, outcome, .. } if *id == self.id => self.outcome = Some(outcome.clone()),
            Reply::AuthorWriting { id, number, total, task } if *id == self.id => self.writing = Some((*number, *total, *task)),
            Reply::AuthorItem { id, item, .. } if *id == self.id => {
                self.bank.push((**item).clone());
                self.changed();
            }
            Reply::AuthorMissing { id, task, reason } if *id == self.id => self.missing.push((*task, reason.clone())),
            Reply::AuthorDone { id, .. } if *id == self.id => {
                self.running = false;
                self.writing = None;
            }
            Reply::AuthorRechecked { item, .. } => {
                let qid = item.question_id.clone();
                self.rechecking.retain(|r| *r != qid);
                if let Some(slot) = self.bank.iter_mut().find(|i| i.question_id == qid) {
                    let decision = slot.decision;
                    *slot = (**item).clone();
                    slot.decision = decision;
                }
                self.changed();
            }
            Reply::Error { id: Some(id), message, .. } if *id == self.id && (self.running || !self.rechecking.is_empty()) => {
                self.running = false;
                self.writing = None;
                self.rechecking.clear();
                self.error = Some(message.clone());
            }
            _ => return false,
        }
        true
    }
}

// The page's wiring: requests to the worker, IndexedDB, downloads and printing.

use crate::protocol::{AuthorRequest, Request};
use crate::storage::records;
use crate::ui::state::{Action, State};
use yew::prelude::*;

/// Sends a teacher's request (stopping one that runs), avoiding the items of the bank: asked
/// again, the same request writes new items.
pub fn on_write(state: &State, dispatch: &UseReducerDispatcher<State>, send: &Callback<Request>, new_id: impl Fn() -> u32 + 'static) -> Callback<AuthorRequest> {
    let (dispatch, send, old, running) = (dispatch.clone(), send.clone(), state.author.id, state.author.running);
    let avoid = inference::agent::author::Avoid::of(&state.author.bank);
    Callback::from(move |mut request: AuthorRequest| {
        if running {
            send.emit(Request::AuthorStop { id: old });
            return;
        }
        request.avoid = avoid.clone();
        let id = new_id();
        dispatch.dispatch(Action::AuthorStart(id));
        send.emit(Request::AuthorStart { id, request });
    })
}

/// Reads the course's bank once the course is ready, and saves it after every change; a failed
/// save (a full quota) is shown and the bank stays on screen.
#[hook]
pub fn use_bank(state: &State, dispatch: &UseReducerDispatcher<State>) {
    let course = state.ready().map(|r| r.title.clone());
    {
        let dispatch = dispatch.clone();
        use_effect_with(course.clone(), move |course| {
            if let Some(course) = course.clone() {
                wasm_bindgen_futures::spawn_local(async move {
                    let empty = || Bank { course: course.clone(), items: Vec::new(), drafts: Vec::new() };
                    let bank = match records::load(records::AUTHOR, &course).await {
                        Ok(Some(json)) => serde_json::from_str::<Bank>(&json).unwrap_or_else(|_| empty()),
                        _ => empty(),
                    };
                    dispatch.dispatch(Action::AuthorBank(bank));
                });
            }
        });
    }
    let bank = course.filter(|_| state.author.loaded).map(|course| Bank { course, items: state.author.bank.clone(), drafts: state.author.drafts.clone() });
    let dispatch = dispatch.clone();
    use_effect_with(state.author.revision, move |_| {
        if let Some(bank) = bank {
            wasm_bindgen_futures::spawn_local(async move {
                let result = match serde_json::to_string(&bank) {
                    Ok(json) => records::save(records::AUTHOR, &bank.course, &json).await.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                dispatch.dispatch(Action::AuthorSaved(result.err()));
            });
        }
    });
}

/// Offers `text` as a file download.
pub fn download(name: &str, mime: &str, text: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Ok(a) = document.create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", name);
        if let Some(a) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&a) {
            a.click();
        }
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

#[cfg(test)]
mod tests {
    use super::*;
    use inference::agent::author::{Body, Difficulty, Mcq, Verification, verify::Detail};
    use inference::agent::route::Lang;

    fn item(id: &str, faith: f64) -> Authored {
        let body = Body::Mcq(Mcq { question: "Q?".into(), options: vec!["a".into(), "b".into(), "c".into(), "d".into()], answer_index: 0, rationales: vec![] });
        let verification = Verification { faithfulness: faith, relevance: 1.0, hallucination: 0.0, accepted: faith >= 0.5, reasons: vec![], detail: Detail::default() };
        Authored { verification: Some(verification), ..Authored::new(id.into(), body, "C".into(), "S".into(), vec![], Difficulty::Beginner, Lang::En) }
    }

    #[test]
    fn a_request_fills_the_bank_least_supported_first_and_decisions_are_kept() {
        let mut a = AuthorUi::default();
        a.load(bank(vec![item("old", 0.9)], vec![]));
        a.started(3);
        assert!(!a.apply(&Reply::AuthorItem { id: 2, item: Box::new(item("stale", 0.1)), ms: 1.0 }), "a stale reply");
        a.apply(&Reply::AuthorPrepared { id: 3, outcome: AuthorOutcome::Ready { chapter: "C".into(), concept: "S".into(), total: 2 }, ms: 1.0 });
        a.apply(&Reply::AuthorWriting { id: 3, number: 1, total: 2, task: Task::Mcq });
        let rev = a.revision;
        a.apply(&Reply::AuthorItem { id: 3, item: Box::new(item("new", 0.2)), ms: 1.0 });
        assert!(a.revision > rev, "a new item is saved");
        a.apply(&Reply::AuthorMissing { id: 3, task: Task::Cq, reason: "the stimulus was missing".into() });
        a.apply(&Reply::AuthorDone { id: 3, ms: 2.0 });
        assert!(!a.running && a.writing.is_none());
        let ids: Vec<&str> = a.bank.iter().map(|i| i.question_id.as_str()).collect();
        assert_eq!(ids, ["new", "old"], "least supported first");
        assert_eq!(a.missing.len(), 1);
        a.decide("old", Decision::Discarded);
        assert_eq!(a.exportable().len(), 1, "a discarded item is not exported");
        // An edit is kept as edited, checked again, and its check keeps the decision.
        let mut e = item("new", 0.2);
        if let Body::Mcq(m) = &mut e.body {
            m.question = "Better?".into();
        }
        a.edited(e);
        assert_eq!(a.rechecking, ["new"]);
        a.apply(&Reply::AuthorRechecked { id: 9, item: Box::new(item("new", 0.8)) });
        let new = a.bank.iter().find(|i| i.question_id == "new").unwrap();
        assert_eq!((new.decision, a.rechecking.len()), (Decision::Edited, 0));
        // A bank read late keeps what was written meanwhile.
        let mut late = AuthorUi::default();
        late.apply(&Reply::AuthorItem { id: 0, item: Box::new(item("x", 0.5)), ms: 1.0 });
        late.load(bank(vec![item("y", 0.4), item("x", 0.5)], vec![]));
        assert_eq!(late.bank.len(), 2);
    }

    fn bank(items: Vec<Authored>, drafts: Vec<Authored>) -> Bank {
        Bank { course: "C".into(), items, drafts }
    }

    #[test]
    fn an_edit_in_progress_is_saved_and_comes_back_after_a_reload() {
        let mut a = AuthorUi::default();
        a.load(bank(vec![item("q", 0.5)], vec![]));
        let mut d = item("q", 0.5);
        if let Body::Mcq(m) = &mut d.body {
            m.question = "Half typed".into();
        }
        let rev = a.revision;
        a.draft(d.clone());
        assert!(a.revision > rev, "each keystroke's draft is saved");
        // What the page saves, read back by a new page.
        let saved: Bank = serde_json::from_str(&serde_json::to_string(&bank(a.bank.clone(), a.drafts.clone())).unwrap()).unwrap();
        let mut reloaded = AuthorUi::default();
        reloaded.load(saved);
        assert_eq!(reloaded.draft_of("q"), Some(&d));
        // Saving ends the draft; so does Cancel. A bank saved before drafts existed still reads.
        reloaded.edited(d);
        assert!(reloaded.draft_of("q").is_none() && reloaded.bank[0].decision == Decision::Edited);
        a.drop_draft("q");
        assert!(a.drafts.is_empty());
        let old: Bank = serde_json::from_str(r#"{"course": "C", "items": []}"#).unwrap();
        assert!(old.drafts.is_empty());
    }

    #[test]
    fn the_browser_tests_bank_reads() {
        // tests/browser/app.test.mjs puts this bank in IndexedDB and prints its paper; the app
        // starts from an empty bank when it cannot read one, so its shape is checked here.
        let saved: Bank = serde_json::from_str(include_str!("../../../tests/browser/fixtures/author-bank.json")).expect("a saved bank");
        assert_eq!(saved.course, "Pathshala test course", "the browser test course's title");
        let mut a = AuthorUi::default();
        a.load(saved);
        let tasks: Vec<Task> = a.exportable().iter().map(|i| i.task).collect();
        assert_eq!(tasks, [Task::Mcq, Task::Cq, Task::Mcq], "least supported first: two MCQs and a creative question");
        assert!(a.bank.iter().all(|i| i.language == Lang::Bn));
    }
}
