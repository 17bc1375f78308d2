//! The page's one store: what the worker reported and what the learner chose. Pure logic, so
//! it is tested natively.

use crate::i18n::Lang;
use crate::protocol::{AbstainReason, AnswerStats, Label, Progress, QuoteRef, ReadyInfo, Reply, Results, Route, SectionRef, SectionView, SourceRef, StorageInfo, Subtopic};
pub use crate::ui::quiz::{QuizUi, Saved};
pub use crate::ui::author::AuthorUi;
use std::rc::Rc;
use yew::Reducible;

#[derive(Clone, Debug, PartialEq)]
pub enum Load {
    Loading(Option<Progress>),
    Ready(ReadyInfo),
    Error { message: String, retry: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Ask,
    Book,
    Quiz,
    Code,
    /// Teachers: MCQs and creative questions from the book, reviewed and exported.
    Author,
    Storage,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Gpu {
    Checking,
    /// An adapter; `software` when it is a CPU renderer (the models then run on the CPU runtime).
    Available { name: String, software: bool },
    Missing(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Routing, retrieval and the prompt.
    Thinking,
    /// No agent answers here: the route's reply is the answer (a greeting, a refusal, an
    /// off-topic note, a clarifying question, the quiz to come, the Code view).
    Routed,
    /// The model reads the prompt.
    Reading { done: usize, total: usize },
    Streaming,
    /// The answer's sentences are checked against the book.
    Checking { done: usize, total: usize },
    Done,
    Abstained(AbstainReason),
    Error(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub id: u32,
    /// The learner's message.
    pub question: String,
    /// The learner's answer to the clarifying question asked about `question`.
    pub followup: Option<String>,
    /// Where the router sent the message, and how long routing took (ms).
    pub route: Option<(Route, f64)>,
    pub phase: Phase,
    pub text: String,
    pub sources: Vec<SourceRef>,
    /// The book's sentence that best answers the question.
    pub quote: Option<QuoteRef>,
    pub nearest: Vec<SectionRef>,
    /// Sentences left out of the checked answer.
    pub dropped: usize,
    pub stopped: bool,
    pub stats: Option<AnswerStats>,
}

impl Answer {
    /// `data-state` of the answer: streaming | done | abstained | error, or for a message no
    /// agent answers here refused | off_topic | greeting | clarifying | quiz | code.
    pub fn state(&self) -> &'static str {
        match self.phase {
            Phase::Thinking | Phase::Reading { .. } | Phase::Streaming | Phase::Checking { .. } => "streaming",
            Phase::Routed => match self.label() {
                Some(Label::Harmful) => "refused",
                Some(Label::OffTopic) => "off_topic",
                Some(Label::Greeting) => "greeting",
                Some(Label::Ambiguous) => "clarifying",
                Some(Label::Quiz) => "quiz",
                Some(Label::Code) => "code",
                Some(Label::Conceptual) | None => "done",
            },
            Phase::Done => "done",
            Phase::Abstained(_) => "abstained",
            Phase::Error(_) => "error",
        }
    }

    pub fn busy(&self) -> bool {
        self.state() == "streaming"
    }

    pub fn label(&self) -> Option<Label> {
        self.route.as_ref().map(|(r, _)| r.label)
    }

    /// The message as the agents read it: with the answer to the clarifying question.
    pub fn message(&self) -> String {
        inference::agent::route::joined(&self.question, self.followup.as_deref())
    }

    /// Whether the next message the learner sends answers this one's clarifying question (one
    /// clarification per message: a reply to it is never asked again).
    pub fn awaits_followup(&self) -> bool {
        self.state() == "clarifying" && self.followup.is_none()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub lang: Lang,
    pub view: View,
    pub load: Load,
    /// A note from loading that should stay visible (e.g. a damaged copy was downloaded again).
    pub load_note: Option<String>,
    pub gpu: Gpu,
    pub answer: Option<Answer>,
    /// Hybrid search (Find passages).
    pub results: Option<Results>,
    /// BM25 search over the book.
    pub book_results: Option<Results>,
    pub section: Option<SectionView>,
    /// Byte range to mark in the open section (a cited passage).
    pub highlight: Option<(u32, u32, u32)>,
    pub storage: Option<StorageInfo>,
    /// A task the router sent to the Code view: (the message's id, its text).
    pub code_task: Option<(u32, String)>,
    pub quiz: QuizUi,
    pub author: AuthorUi,
    /// A message that belongs to no panel (e.g. a failed request).
    pub notice: Option<String>,
    pub update_available: bool,
    /// `?bench=` results (JSON).
    pub bench: Option<String>,
}

impl State {
    pub fn new(lang: Lang) -> State {
        State {
            lang,
            view: View::Ask,
            load: Load::Loading(None),
            load_note: None,
            gpu: Gpu::Checking,
            answer: None,
            results: None,
            book_results: None,
            section: None,
            highlight: None,
            storage: None,
            code_task: None,
            quiz: QuizUi::default(),
            author: AuthorUi::default(),
            notice: None,
            update_available: false,
            bench: None,
        }
    }

    pub fn ready(&self) -> Option<&ReadyInfo> {
        match &self.load {
            Load::Ready(info) => Some(info),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Reply(Reply),
    SetLang(Lang),
    SetView(View),
    Asked { id: u32, question: String, followup: Option<String> },
    /// A section is requested; `highlight` marks a passage in it (section, start, end).
    Open { highlight: Option<(u32, u32, u32)> },
    Retry,
    Gpu(Gpu),
    UpdateAvailable,
    Notice(Option<String>),
    /// Opens the Code view with this message (its id, its text) as the task.
    CodeTask(u32, String),
    /// The quiz's menu for a topic was asked for under this id.
    QuizFind { id: u32, topic: String },
    /// A quiz on this subtopic was started under this id.
    QuizStart { id: u32, topic: String, subtopic: Subtopic },
    /// The learner chose an option of the quiz item on screen.
    QuizChoose(usize),
    QuizNext,
    /// Saved quizzes of this course, read from IndexedDB, or one just saved.
    QuizSaved(Vec<Saved>),
    /// A teacher's request was sent under this id.
    AuthorStart(u32),
    /// The course's question bank, read from IndexedDB.
    AuthorBank(crate::ui::author::Bank),
    /// The bank was saved (`None`) or could not be (why).
    AuthorSaved(Option<String>),
    AuthorDecide(String, inference::agent::author::Decision),
    /// The teacher saved an edit of an item (it is checked again).
    AuthorEdited(Box<crate::protocol::Authored>),
    /// An edit in progress ([`AuthorUi::draft`]).
    AuthorDraft(Box<crate::protocol::Authored>),
    /// The editor of this item was closed without saving.
    AuthorDropDraft(String),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::SetLang(lang) => s.lang = lang,
            Action::SetView(view) => s.view = view,
            Action::Asked { id, question, followup } => {
                s.answer = Some(Answer {
                    id,
                    question,
                    followup,
                    route: None,
                    phase: Phase::Thinking,
                    text: String::new(),
                    sources: Vec::new(),
                    quote: None,
                    nearest: Vec::new(),
                    dropped: 0,
                    stopped: false,
                    stats: None,
                });
            }
            Action::Open { highlight } => {
                s.highlight = highlight;
                s.view = View::Book;
            }
            Action::Retry => {
                s.load = Load::Loading(None);
                s.load_note = None;
            }
            Action::Gpu(g) => s.gpu = g,
            Action::UpdateAvailable => s.update_available = true,
            Action::Notice(n) => s.notice = n,
            Action::CodeTask(id, text) => {
                s.code_task = Some((id, text));
                s.view = View::Code;
            }
            Action::QuizFind { id, topic } => s.quiz.finding(id, topic),
            Action::QuizStart { id, topic, subtopic } => s.quiz.started(id, topic, subtopic),
            Action::QuizChoose(choice) => {
                s.quiz.choose(choice);
            }
            Action::QuizNext => s.quiz.next(),
            Action::QuizSaved(saved) => {
                for q in saved.into_iter().rev() {
                    s.quiz.remember(q);
                }
            }
            Action::AuthorStart(id) => s.author.started(id),
            Action::AuthorBank(items) => s.author.load(items),
            Action::AuthorSaved(error) => s.author.save_error = error,
            Action::AuthorDecide(id, decision) => s.author.decide(&id, decision),
            Action::AuthorEdited(item) => s.author.edited(*item),
            Action::AuthorDraft(item) => s.author.draft(*item),
            Action::AuthorDropDraft(id) => s.author.drop_draft(&id),
            Action::Reply(reply) => s.apply(reply),
        }
        Rc::new(s)
    }
}

impl State {
    fn answer_mut(&mut self, id: u32) -> Option<&mut Answer> {
        self.answer.as_mut().filter(|a| a.id == id)
    }

    fn apply(&mut self, reply: Reply) {
        if self.quiz.apply(&reply) || self.author.apply(&reply) {
            return;
        }
        match reply {
            Reply::Started => {}
            Reply::Progress(p) => {
                if p.note.is_some() {
                    self.load_note = p.note.clone();
                }
                self.load = Load::Loading(Some(p));
            }
            Reply::Ready(info) => self.load = Load::Ready(info),
            Reply::Results(r) => {
                if r.lexical {
                    self.book_results = Some(r);
                } else {
                    self.results = Some(r);
                }
            }
            Reply::Routed { id, route, ms } => {
                let Some(a) = self.answer_mut(id) else { return };
                let (label, asks_for_code) = (route.label, route.reply.is_some());
                a.route = Some((route, ms));
                if label != Label::Conceptual {
                    a.phase = Phase::Routed;
                }
                let message = a.message();
                if label == Label::Code && !asks_for_code {
                    // The task goes to the Code view, filled in.
                    self.code_task = Some((id, message));
                    self.view = View::Code;
                } else if label == Label::Quiz {
                    // The Quiz view opens on the message's topic.
                    self.quiz.routed(message);
                    self.view = View::Quiz;
                }
            }
            Reply::AskSources { id, sources, quote, prompt_tokens } => {
                if let Some(a) = self.answer_mut(id) {
                    a.sources = sources;
                    a.quote = quote;
                    a.phase = Phase::Reading { done: 0, total: prompt_tokens };
                }
            }
            Reply::Reading { id, done, total } => {
                if let Some(a) = self.answer_mut(id) {
                    a.phase = Phase::Reading { done, total };
                }
            }
            Reply::Token { id, text } => {
                if let Some(a) = self.answer_mut(id) {
                    a.text.push_str(&text);
                    a.phase = Phase::Streaming;
                }
            }
            Reply::Checking { id, done, total } => {
                if let Some(a) = self.answer_mut(id) {
                    a.phase = Phase::Checking { done, total };
                }
            }
            Reply::Done { id, text, dropped, stopped, stats } => {
                if let Some(a) = self.answer_mut(id) {
                    // The checked answer replaces the streamed one.
                    a.text = text;
                    a.dropped = dropped;
                    a.stopped = stopped;
                    a.stats = Some(stats);
                    a.phase = Phase::Done;
                }
            }
            Reply::Abstained { id, reason, nearest, stats } => {
                if let Some(a) = self.answer_mut(id) {
                    a.nearest = nearest;
                    a.text.clear();
                    a.stats = stats;
                    a.phase = Phase::Abstained(reason);
                }
            }
            Reply::Section(view) => {
                if self.highlight.is_some_and(|(s, _, _)| s != view.id) {
                    self.highlight = None;
                }
                self.section = Some(view);
                self.view = View::Book;
            }
            Reply::Storage(info) => self.storage = Some(info),
            // A stale reply of an earlier quiz.
            Reply::QuizTopic { .. } | Reply::QuizPreparing { .. } | Reply::QuizItem { .. } | Reply::QuizFeedback { .. } | Reply::QuizSkipped { .. } | Reply::QuizOver { .. } => {}
            // A stale reply of an earlier request.
            Reply::AuthorPrepared { .. } | Reply::AuthorWriting { .. } | Reply::AuthorItem { .. } | Reply::AuthorMissing { .. } | Reply::AuthorDone { .. } | Reply::AuthorRechecked { .. } => {}
            Reply::Bench { json } => self.bench = Some(json),
            Reply::Error { id: Some(id), message, .. } => match self.answer_mut(id) {
                Some(a) => a.phase = Phase::Error(message),
                None => self.notice = Some(message),
            },
            Reply::Error { id: None, message, retry } => {
                if matches!(self.load, Load::Ready(_)) {
                    self.notice = Some(message);
                } else {
                    self.load = Load::Error { message, retry };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(s: State, a: Action) -> State {
        (*Rc::new(s).reduce(a)).clone()
    }

    #[test]
    fn an_answer_streams_then_finishes() {
        let mut s = State::new(Lang::En);
        s = reduce(s, Action::Asked { id: 1, question: "q".into(), followup: None });
        assert_eq!(s.answer.as_ref().unwrap().state(), "streaming");
        let src = SourceRef { n: 1, section: 4, heading_path: vec!["A".into()], start: 0, end: 5 };
        s = reduce(s, Action::Reply(Reply::AskSources { id: 1, sources: vec![src], quote: None, prompt_tokens: 9 }));
        assert_eq!(s.answer.as_ref().unwrap().phase, Phase::Reading { done: 0, total: 9 });
        s = reduce(s, Action::Reply(Reply::Token { id: 1, text: "Hi".into() }));
        s = reduce(s, Action::Reply(Reply::Token { id: 2, text: "stale".into() }));
        s = reduce(s, Action::Reply(Reply::Token { id: 1, text: " there".into() }));
        assert_eq!(s.answer.as_ref().unwrap().text, "Hi there");
        s = reduce(s, Action::Reply(Reply::Checking { id: 1, done: 1, total: 2 }));
        assert_eq!(s.answer.as_ref().unwrap().state(), "streaming", "still busy while checking");
        let done = Reply::Done { id: 1, text: "Hi there [1]".into(), dropped: 1, stopped: false, stats: AnswerStats::default() };
        s = reduce(s, Action::Reply(done));
        let a = s.answer.as_ref().unwrap();
        assert_eq!((a.state(), a.text.as_str(), a.dropped), ("done", "Hi there [1]", 1));
    }

    #[test]
    fn abstaining_and_errors() {
        let mut s = reduce(State::new(Lang::En), Action::Asked { id: 3, question: "q".into(), followup: None });
        s = reduce(s, Action::Reply(Reply::Abstained { id: 3, reason: AbstainReason::Gate, nearest: vec![], stats: None }));
        assert_eq!(s.answer.as_ref().unwrap().state(), "abstained");
        s = reduce(s, Action::Reply(Reply::Error { id: None, message: "offline".into(), retry: true }));
        assert_eq!(s.load, Load::Error { message: "offline".into(), retry: true });
        s = reduce(s, Action::Retry);
        assert_eq!(s.load, Load::Loading(None));
    }

    fn routed(id: u32, label: Label, reply: Option<&str>) -> Action {
        let route = Route { label, decided_by: inference::agent::route::DecidedBy::Rule, scores: None, lang: inference::agent::route::Lang::En, reply: reply.map(Into::into), clarification: None };
        Action::Reply(Reply::Routed { id, route, ms: 0.1 })
    }

    #[test]
    fn a_routed_message_shows_its_reply_state() {
        for (label, state) in [(Label::Harmful, "refused"), (Label::OffTopic, "off_topic"), (Label::Greeting, "greeting"), (Label::Ambiguous, "clarifying"), (Label::Quiz, "quiz")] {
            let s = reduce(State::new(Lang::En), Action::Asked { id: 1, question: "q".into(), followup: None });
            let s = reduce(s, routed(1, label, Some("reply")));
            assert_eq!(s.answer.as_ref().unwrap().state(), state);
            assert!(!s.answer.as_ref().unwrap().busy());
            assert_eq!(s.view, if label == Label::Quiz { View::Quiz } else { View::Ask });
        }
        // A question for the book goes on to Ask.
        let s = reduce(State::new(Lang::En), Action::Asked { id: 1, question: "q".into(), followup: None });
        let s = reduce(s, routed(1, Label::Conceptual, None));
        assert_eq!(s.answer.as_ref().unwrap().state(), "streaming");
    }

    #[test]
    fn one_clarification_per_message() {
        let s = reduce(State::new(Lang::En), Action::Asked { id: 1, question: "explain".into(), followup: None });
        let s = reduce(s, routed(1, Label::Ambiguous, Some("Which topic?")));
        assert!(s.answer.as_ref().unwrap().awaits_followup());
        let s = reduce(s, Action::Asked { id: 2, question: "explain".into(), followup: Some("lists".into()) });
        assert_eq!(s.answer.as_ref().unwrap().message(), "explain lists");
        let s = reduce(s, routed(2, Label::Ambiguous, Some("Which topic?")));
        assert!(!s.answer.as_ref().unwrap().awaits_followup(), "a reply to a clarification is not asked again");
    }

    #[test]
    fn a_quiz_request_opens_the_quiz_view_on_its_topic() {
        let s = reduce(State::new(Lang::En), Action::Asked { id: 3, question: "quiz me on loops".into(), followup: None });
        let s = reduce(s, routed(3, Label::Quiz, None));
        assert_eq!((s.view, s.quiz.pending_topic.clone()), (View::Quiz, Some("quiz me on loops".to_string())));
        let s = reduce(s, Action::QuizFind { id: 4, topic: "quiz me on loops".into() });
        assert_eq!((s.quiz.pending_topic.clone(), s.quiz.id), (None, 4), "looked up once");
    }

    #[test]
    fn a_programming_task_opens_the_code_view_filled_in() {
        let s = reduce(State::new(Lang::En), Action::Asked { id: 4, question: "write a program that adds two numbers".into(), followup: None });
        let s = reduce(s, routed(4, Label::Code, None));
        assert_eq!((s.view, s.code_task.clone()), (View::Code, Some((4, "write a program that adds two numbers".to_string()))));
        // "debug my code" without the code: asked for it, in the Ask view.
        let s = reduce(State::new(Lang::En), Action::Asked { id: 5, question: "debug my code".into(), followup: None });
        let s = reduce(s, routed(5, Label::Code, Some("Paste your program")));
        assert_eq!((s.view, s.code_task.clone(), s.answer.as_ref().unwrap().state()), (View::Ask, None, "code"));
    }

    #[test]
    fn a_highlight_belongs_to_its_section() {
        let view = |id| SectionView { id, heading_path: vec!["S".into()], file: "f".into(), line: 1, text: "t".into(), parent: None, children: vec![] };
        let mut s = reduce(State::new(Lang::En), Action::Open { highlight: Some((2, 0, 1)) });
        assert_eq!(s.view, View::Book);
        s = reduce(s, Action::Reply(Reply::Section(view(2))));
        assert_eq!(s.highlight, Some((2, 0, 1)));
        s = reduce(s, Action::Reply(Reply::Section(view(5))));
        assert_eq!(s.highlight, None);
    }
}
