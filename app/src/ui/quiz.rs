//! The Quiz view's state: the topic, its subtopic menu, the items shown with the learner's
//! answers and the feedback, what the worker prepares, and the saved result of each subtopic
//! (IndexedDB, `storage::records::QUIZ`). Pure data, tested natively; `components/quiz.rs`
//! renders it.

use crate::protocol::{Bloom, Branch, Feedback, Item, Reply, Subtopic, Topic};
use serde::{Deserialize, Serialize};

/// Items in one quiz.
pub const QUIZ_LENGTH: usize = 8;

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Stage {
    #[default]
    Idle,
    /// The menu was asked for.
    Finding,
    Menu(Vec<Subtopic>),
    /// The course does not cover the topic: the message and the nearest sections (ids).
    NotCovered { message: String, nearest: Vec<u32> },
    Running,
    /// Every item answered, or no more could be written (`Some(why)`).
    Finished(Option<String>),
    Error(String),
}

/// An item as shown, with the learner's answer once given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shown {
    pub number: usize,
    pub item: Item,
    /// From the learner's previous answer (or the start) to this item being ready (ms).
    pub wait_ms: f64,
    pub attempts: usize,
    pub chosen: Option<usize>,
    pub feedback: Option<Feedback>,
}

/// What is kept of one subtopic's last quiz.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub course: String,
    pub topic: String,
    pub subtopic: Subtopic,
    pub items: Vec<Shown>,
    /// Where the next quiz on this subtopic starts.
    pub next_bloom: Bloom,
    pub finished: bool,
}

impl Saved {
    /// The IndexedDB key: one record per course and subtopic.
    pub fn key(course: &str, subtopic: &Subtopic) -> String {
        format!("{course}#{}", subtopic.section)
    }

    /// (right, answered).
    pub fn score(&self) -> (usize, usize) {
        score(&self.items)
    }
}

fn score(items: &[Shown]) -> (usize, usize) {
    let answered: Vec<&Shown> = items.iter().filter(|s| s.feedback.is_some()).collect();
    (answered.iter().filter(|s| s.feedback.as_ref().is_some_and(|f| f.correct)).count(), answered.len())
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuizUi {
    /// Id of the menu request, then of the running quiz; replies with another id are stale.
    pub id: u32,
    pub topic: String,
    /// A topic the router sent ("quiz me on loops"): the view asks for its menu once.
    pub pending_topic: Option<String>,
    pub stage: Stage,
    pub subtopic: Option<Subtopic>,
    pub items: Vec<Shown>,
    /// The item on screen (index into `items`).
    pub at: usize,
    /// The learner pressed Next before the next item was ready.
    pub want_next: bool,
    /// What the worker is writing now.
    pub preparing: Option<(Branch, Bloom)>,
    pub skipped: Vec<String>,
    /// Saved quizzes of this course (newest first), read from IndexedDB.
    pub saved: Vec<Saved>,
}

impl QuizUi {
    /// The router sent a quiz request: the view opens with its topic.
    pub fn routed(&mut self, topic: String) {
        self.pending_topic = Some(topic);
    }

    /// The menu for `topic` was asked for under `id`.
    pub fn finding(&mut self, id: u32, topic: String) {
        *self = QuizUi { id, topic, stage: Stage::Finding, saved: std::mem::take(&mut self.saved), ..QuizUi::default() };
    }

    /// Quiz `id` on `subtopic` was started.
    pub fn started(&mut self, id: u32, topic: String, subtopic: Subtopic) {
        *self = QuizUi { id, topic, subtopic: Some(subtopic), stage: Stage::Running, saved: std::mem::take(&mut self.saved), ..QuizUi::default() };
    }

    pub fn current(&self) -> Option<&Shown> {
        self.items.get(self.at)
    }

    /// The learner chose an option of the item on screen; `true` when it is the quiz's last.
    pub fn choose(&mut self, choice: usize) -> Option<bool> {
        let at = self.at;
        let s = self.items.get_mut(at).filter(|s| s.chosen.is_none())?;
        s.chosen = Some(choice);
        // The feedback is the item's own: shown at once, not when the worker replies (it may be
        // making the next item); its `QuizFeedback` then finds the item answered.
        s.feedback = Feedback::of(&s.item, choice);
        let last = s.number >= QUIZ_LENGTH;
        if last && s.feedback.is_some() {
            self.stage = Stage::Finished(None);
        }
        Some(last)
    }

    /// Next: the following item if it is ready, else it shows when it arrives.
    pub fn next(&mut self) {
        if self.at + 1 < self.items.len() {
            self.at += 1;
        } else {
            self.want_next = true;
        }
    }

    /// Right answers over answered items.
    pub fn score(&self) -> (usize, usize) {
        score(&self.items)
    }

    /// Right and answered per Bloom level, lowest level first (levels with answers only).
    pub fn by_level(&self) -> Vec<(Bloom, usize, usize)> {
        let mut out: Vec<(Bloom, usize, usize)> = Vec::new();
        for s in self.items.iter().filter(|s| s.feedback.is_some()) {
            let right = s.feedback.as_ref().is_some_and(|f| f.correct) as usize;
            match out.iter_mut().find(|(b, _, _)| *b == s.item.bloom) {
                Some(e) => {
                    e.1 += right;
                    e.2 += 1;
                }
                None => out.push((s.item.bloom, right, 1)),
            }
        }
        out.sort_by_key(|e| e.0);
        out
    }

    /// What to keep of this quiz (after each answer).
    pub fn to_saved(&self, course: &str) -> Option<Saved> {
        let subtopic = self.subtopic.clone()?;
        let next_bloom = self.items.iter().rev().find_map(|s| s.feedback.as_ref().map(|f| f.next_bloom))?;
        Some(Saved { course: course.to_string(), topic: self.topic.clone(), subtopic, items: self.items.clone(), next_bloom, finished: matches!(self.stage, Stage::Finished(_)) })
    }

    /// Records a saved quiz (replacing the subtopic's older one), newest first.
    pub fn remember(&mut self, saved: Saved) {
        self.saved.retain(|s| s.subtopic.section != saved.subtopic.section);
        self.saved.insert(0, saved);
    }

    /// Where a quiz on `subtopic` starts: the learner's last level there, if any (else the quiz
    /// picks its opening level).
    pub fn start_level(&self, subtopic: &Subtopic) -> Option<Bloom> {
        self.saved.iter().find(|s| s.subtopic.section == subtopic.section).map(|s| s.next_bloom)
    }

    /// The questions the learner answered right in the last quiz on `subtopic`: a retake asks
    /// others first.
    pub fn known(&self, subtopic: &Subtopic) -> Vec<String> {
        let saved = self.saved.iter().find(|s| s.subtopic.section == subtopic.section);
        saved.into_iter().flat_map(|s| &s.items).filter(|i| i.feedback.as_ref().is_some_and(|f| f.correct)).map(|i| i.item.question.clone()).collect()
    }

    /// Applies a quiz reply; returns whether it was one.
    pub fn apply(&mut self, reply: &Reply) -> bool {
        match reply {
            Reply::QuizTopic { id, topic, result, .. } if *id == self.id => {
                self.topic = topic.clone();
                self.stage = match result {
                    Topic::Covered { subtopics } => Stage::Menu(subtopics.clone()),
                    Topic::NotCovered { message, nearest } => Stage::NotCovered { message: message.clone(), nearest: nearest.clone() },
                };
            }
            Reply::QuizPreparing { id, branch, bloom } if *id == self.id => self.preparing = Some((*branch, *bloom)),
            Reply::QuizItem { id, number, item, attempts, wait_ms } if *id == self.id => {
                self.preparing = None;
                self.items.push(Shown { number: *number, item: item.clone(), wait_ms: *wait_ms, attempts: *attempts, chosen: None, feedback: None });
                if self.items.len() == 1 || self.want_next {
                    self.at = self.items.len() - 1;
                    self.want_next = false;
                }
            }
            Reply::QuizFeedback { id, feedback } if *id == self.id => {
                if let Some(s) = self.items.iter_mut().rev().find(|s| s.chosen == Some(feedback.chosen) && s.feedback.is_none()) {
                    s.feedback = Some(feedback.clone());
                    if s.number >= QUIZ_LENGTH {
                        self.stage = Stage::Finished(None);
                    }
                }
            }
            Reply::QuizSkipped { id, reason } if *id == self.id => self.skipped.push(reason.clone()),
            Reply::QuizOver { id, reason } if *id == self.id => {
                self.preparing = None;
                self.stage = Stage::Finished(Some(reason.clone()));
            }
            Reply::Error { id: Some(id), message, .. } if *id == self.id && self.stage != Stage::Idle => self.stage = Stage::Error(message.clone()),
            _ => return false,
        }
        true
    }
}

// The page's wiring: requests to the worker, and IndexedDB.

use crate::protocol::Request;
use crate::storage::records;
use crate::ui::state::{Action, State};
use yew::prelude::*;

/// Looks up a topic's subtopic menu (ending the quiz that runs, if any).
pub fn on_find(state: &State, dispatch: &UseReducerDispatcher<State>, send: &Callback<Request>, new_id: impl Fn() -> u32 + 'static) -> Callback<String> {
    let (dispatch, send, old) = (dispatch.clone(), send.clone(), state.quiz.id);
    Callback::from(move |topic: String| {
        send.emit(Request::QuizEnd { id: old });
        let id = new_id();
        dispatch.dispatch(Action::QuizFind { id, topic: topic.clone() });
        send.emit(Request::QuizTopic { id, topic });
    })
}

/// Starts a quiz on a subtopic at the learner's last level there.
pub fn on_start(state: &State, dispatch: &UseReducerDispatcher<State>, send: &Callback<Request>, new_id: impl Fn() -> u32 + 'static) -> Callback<Subtopic> {
    let (dispatch, send, quiz) = (dispatch.clone(), send.clone(), state.quiz.clone());
    Callback::from(move |subtopic: Subtopic| {
        send.emit(Request::QuizEnd { id: quiz.id });
        let id = new_id();
        let (start, known) = (quiz.start_level(&subtopic), quiz.known(&subtopic));
        // A retake from the saved list has its own topic.
        let topic = quiz.saved.iter().find(|s| s.subtopic.section == subtopic.section && quiz.topic.is_empty()).map_or(quiz.topic.clone(), |s| s.topic.clone());
        dispatch.dispatch(Action::QuizStart { id, topic: topic.clone(), subtopic: subtopic.clone() });
        send.emit(Request::QuizStart { id, topic, subtopic, start, known });
    })
}

/// The learner's answer to the item on screen.
pub fn on_choose(state: &State, dispatch: &UseReducerDispatcher<State>, send: &Callback<Request>) -> Callback<usize> {
    let (dispatch, send, id) = (dispatch.clone(), send.clone(), state.quiz.id);
    let last = state.quiz.current().is_some_and(|s| s.number >= QUIZ_LENGTH);
    Callback::from(move |choice: usize| {
        dispatch.dispatch(Action::QuizChoose(choice));
        send.emit(Request::QuizAnswer { id, choice, last });
    })
}

/// Reads this course's saved quizzes once it is ready, and saves the running quiz after each
/// answer.
#[hook]
pub fn use_saved_quizzes(state: &State, dispatch: &UseReducerDispatcher<State>) {
    let course = state.ready().map(|r| r.title.clone());
    {
        let dispatch = dispatch.clone();
        use_effect_with(course.clone(), move |course| {
            if let Some(course) = course.clone() {
                wasm_bindgen_futures::spawn_local(async move {
                    let all = records::all(records::QUIZ).await.unwrap_or_default();
                    let mut saved: Vec<Saved> = all.iter().filter_map(|j| serde_json::from_str::<Saved>(j).ok()).filter(|s| s.course == course).collect();
                    saved.reverse();
                    dispatch.dispatch(Action::QuizSaved(saved));
                });
            }
        });
    }
    let answered = state.quiz.items.iter().filter(|s| s.feedback.is_some()).count();
    let saved = course.as_deref().and_then(|c| state.quiz.to_saved(c));
    let dispatch = dispatch.clone();
    use_effect_with((state.quiz.id, answered, matches!(state.quiz.stage, Stage::Finished(_))), move |_| {
        if let Some(saved) = saved {
            wasm_bindgen_futures::spawn_local(async move {
                let key = Saved::key(&saved.course, &saved.subtopic);
                if let Ok(json) = serde_json::to_string(&saved) {
                    if records::save(records::QUIZ, &key, &json).await.is_ok() {
                        dispatch.dispatch(Action::QuizSaved(vec![saved]));
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use inference::agent::quiz::ItemEvidence;

    fn item(q: &str, bloom: Bloom) -> Item {
        Item {
            question: q.into(),
            options: vec!["a".into(), "b".into(), "c".into(), "d".into()],
            answer_index: 0,
            rationales: vec!["right".into(), "rb".into(), "rc".into(), "rd".into()],
            bloom,
            concepts: vec!["c".into()],
            evidence: vec![ItemEvidence { chunk: 1, section: 2, file: "f.md".into(), heading_path: vec!["Ch".into(), "S".into()], quote: "q".into() }],
        }
    }

    fn feedback(chosen: usize, bloom: Bloom) -> Feedback {
        let correct = chosen == 0;
        Feedback {
            correct,
            chosen,
            answer_index: 0,
            chosen_rationale: "x".into(),
            right_rationale: "right".into(),
            evidence: vec![],
            next_bloom: if correct { bloom.up() } else { bloom.down() },
        }
    }

    fn subtopic() -> Subtopic {
        Subtopic { section: 2, name: "S".into(), heading_path: vec!["Ch".into(), "S".into()] }
    }

    #[test]
    fn a_quiz_runs_from_the_menu_to_its_results() {
        let mut q = QuizUi::default();
        q.routed("loops".into());
        q.finding(5, "loops".into());
        assert_eq!(q.pending_topic, None, "asked once");
        assert!(q.apply(&Reply::QuizTopic { id: 5, topic: "loops".into(), result: Topic::Covered { subtopics: vec![subtopic()] }, ms: 1.0 }));
        assert!(matches!(&q.stage, Stage::Menu(s) if s.len() == 1));
        q.started(6, "loops".into(), subtopic());
        assert!(!q.apply(&Reply::QuizPreparing { id: 5, branch: Branch::First, bloom: Bloom::Understand }), "a stale reply");
        q.apply(&Reply::QuizPreparing { id: 6, branch: Branch::First, bloom: Bloom::Understand });
        q.apply(&Reply::QuizItem { id: 6, number: 1, item: item("Q1", Bloom::Understand), attempts: 1, wait_ms: 900.0 });
        assert_eq!((q.current().unwrap().number, q.preparing), (1, None));
        // The next item is prepared while the learner reads; it waits until Next.
        q.apply(&Reply::QuizPreparing { id: 6, branch: Branch::Right, bloom: Bloom::Apply });
        assert_eq!(q.choose(0), Some(false));
        assert_eq!(q.choose(1), None, "answered once");
        assert_eq!(q.current().unwrap().feedback, Feedback::of(&item("Q1", Bloom::Understand), 0), "shown at once, before the worker replies");
        q.apply(&Reply::QuizFeedback { id: 6, feedback: feedback(0, Bloom::Understand) });
        q.apply(&Reply::QuizItem { id: 6, number: 2, item: item("Q2", Bloom::Apply), attempts: 2, wait_ms: 0.0 });
        assert_eq!(q.current().unwrap().number, 1, "feedback stays on screen until Next");
        q.next();
        assert_eq!(q.current().unwrap().number, 2);
        q.choose(3);
        q.apply(&Reply::QuizFeedback { id: 6, feedback: feedback(3, Bloom::Apply) });
        // Next before the item is ready: it shows when it arrives.
        q.next();
        assert!(q.want_next);
        q.apply(&Reply::QuizItem { id: 6, number: 3, item: item("Q3", Bloom::Understand), attempts: 1, wait_ms: 4000.0 });
        assert_eq!(q.current().unwrap().number, 3);
        assert_eq!(q.score(), (1, 2));
        assert_eq!(q.by_level(), vec![(Bloom::Understand, 1, 1), (Bloom::Apply, 0, 1)]);
        let saved = q.to_saved("Course").unwrap();
        assert_eq!((saved.next_bloom, saved.finished, Saved::key("Course", &saved.subtopic)), (Bloom::Understand, false, "Course#2".to_string()));
        assert_eq!(q.start_level(&subtopic()), None, "a first quiz: the quiz picks its level");
        assert!(q.known(&subtopic()).is_empty());
        q.remember(saved);
        assert_eq!(q.start_level(&subtopic()), Some(Bloom::Understand));
        assert_eq!(q.known(&subtopic()), ["Q1"], "a retake asks the one answered right last");
        q.apply(&Reply::QuizOver { id: 6, reason: "no more".into() });
        assert_eq!(q.stage, Stage::Finished(Some("no more".into())));
        // A new quiz keeps the saved ones.
        q.finding(7, "functions".into());
        assert_eq!(q.saved.len(), 1);
    }

    #[test]
    fn the_eighth_answer_finishes_the_quiz() {
        let mut q = QuizUi::default();
        q.started(1, "t".into(), subtopic());
        q.apply(&Reply::QuizItem { id: 1, number: QUIZ_LENGTH, item: item("Q8", Bloom::Create), attempts: 1, wait_ms: 0.0 });
        assert_eq!(q.choose(0), Some(true), "the last item");
        q.apply(&Reply::QuizFeedback { id: 1, feedback: feedback(0, Bloom::Create) });
        assert_eq!(q.stage, Stage::Finished(None));
        assert!(q.to_saved("C").unwrap().finished);
    }

    #[test]
    fn the_browser_tests_saved_quiz_is_a_record_the_app_reads() {
        // tests/browser/app.test.mjs puts this record in IndexedDB and reviews it in the page;
        // the app skips a record it cannot read, so its shape is checked here.
        let saved: Saved = serde_json::from_str(include_str!("../../../tests/browser/fixtures/saved-quiz.json")).expect("a saved quiz");
        assert_eq!(saved.score(), (1, 2));
        assert_eq!(saved.course, "Pathshala test course", "the browser test course's title");
    }
}
