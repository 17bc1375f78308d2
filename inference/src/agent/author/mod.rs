//! Teacher authoring (TeachMateGPT): board-style MCQs and creative questions (CQ) from the
//! course, each with its evidence, the six deterministic gates, a repair ladder and a
//! verification report, for a teacher to review and export.
//!
//! 1. [`AuthorRequest::parse`] reads counts, formats, difficulty and language from a teacher's
//!    sentence ("5 MCQs and 1 creative question on photosynthesis, intermediate"); the app's
//!    form and the CLI's flags set them directly.
//! 2. [`prepare`]: intent and ambiguity control with the router's rules (harmful and off-topic
//!    requests get a fixed refusal; a request naming no topic gets one clarifying question with
//!    sections of the outline), then retrieval with Ask's coverage gate (a topic the book does
//!    not cover gets "not covered" and its nearest sections; nothing is written), then concept
//!    detection (chapter and concept: the best evidence's heading path) → a [`Job`].
//! 3. [`Job::make`] writes one item at a time. A beginner's MCQ is the book's own definition
//!    turned into a question where the evidence has one ([`quiz::define`]; no model). MCQ: the quiz's item writer
//!    ([`crate::agent::quiz::write_item`]) on a key fact of the evidence no earlier item used,
//!    with the difficulty's cue words ([`prompt::mcq_task`]). CQ: the CQ specialist
//!    ([`prompt::CQ_SCHEMA`]; the stimulus is a list of 5–8 sentences, so the structure holds the
//!    board format). Both under JSON schemas with the constrained decoder.
//! 4. Gates ([`gates`]) and the repair ladder: strict (first attempt passes) → retry (up to
//!    [`AuthorConfig::retries`] more, the failed gate named in the prompt) → relaxed (the last
//!    attempt whose format and language gates pass is kept, flagged) → missing (reported, never
//!    padded).
//! 5. [`Job::verify`]: SAVER ([`verify`]) scores every item, never editing or dropping it; the
//!    review lists them least supported first ([`review_order`]).
//! 6. [`export`]: JSON records in TeachMateGPT's schema, Moodle XML, GIFT.
//!
//! The app's worker and `index-builder author` drive the same calls with [`AuthorConfig::default`].

pub mod code_cq;
pub mod export;
pub mod gates;
pub mod prompt;
pub mod reason_cq;
pub mod verify;

use crate::agent::ask::{self, AskError};
use crate::agent::quiz::{self, Bloom, ItemEvidence, QuizConfig};
use crate::agent::route::{self, Lang, RouteConfig, rules};
use crate::bundle::Bundle;
use crate::embed::SentenceEncoder;
use crate::index::outline::SectionKind;
use crate::llm::{ChatMessage, GenerateOptions, JsonError, Sampling, Schema, Session, SessionError};
use crate::retrieve::RetrievalConfig;
use gates::Gates;
use serde::{Deserialize, Serialize};
pub use verify::{Calibration, Thresholds, Verification};

/// Why authoring failed (an item that cannot be written is not an error: it is reported missing).
#[derive(Debug, thiserror::Error)]
pub enum AuthorError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Ask(#[from] AskError),
    #[error(transparent)]
    Quiz(#[from] quiz::QuizError),
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("{0}")]
    BadInput(String),
}

/// TeachMateGPT's three difficulty tiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Beginner,
    Intermediate,
    Advanced,
}

impl Difficulty {
    pub fn name(self) -> &'static str {
        match self {
            Difficulty::Beginner => "beginner",
            Difficulty::Intermediate => "intermediate",
            Difficulty::Advanced => "advanced",
        }
    }

    pub fn parse(s: &str) -> Option<Difficulty> {
        match s.trim().to_lowercase().as_str() {
            "beginner" | "easy" | "basic" | "সহজ" | "প্রাথমিক" => Some(Difficulty::Beginner),
            "intermediate" | "medium" | "moderate" | "মাঝারি" | "মধ্যম" => Some(Difficulty::Intermediate),
            "advanced" | "hard" | "difficult" | "কঠিন" | "উচ্চতর" => Some(Difficulty::Advanced),
            _ => None,
        }
    }

    /// The Bloom level an MCQ of this difficulty is tagged with.
    pub fn bloom(self) -> Bloom {
        match self {
            Difficulty::Beginner => Bloom::Remember,
            Difficulty::Intermediate => Bloom::Understand,
            Difficulty::Advanced => Bloom::Apply,
        }
    }
}

/// An item format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    Mcq,
    Cq,
}

/// What a teacher asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuthorRequest {
    /// The request as the teacher typed it ([`AuthorRequest::parse`]; empty when built otherwise).
    #[serde(default)]
    pub text: String,
    /// The topic in the teacher's words (may be empty when sections are chosen).
    pub query: String,
    /// Sections chosen from the outline (empty: found by retrieval from `query`).
    #[serde(default)]
    pub sections: Vec<u32>,
    pub mcq: usize,
    pub cq: usize,
    pub difficulty: Difficulty,
    /// Bangla or English (`None`: the course's language, else the request's).
    #[serde(default)]
    pub lang: Option<Lang>,
    /// Items the teacher already has: this request writes others.
    #[serde(default)]
    pub avoid: Avoid,
}

/// What items a teacher already has rest on and ask (the app's bank, or an earlier export): a
/// request asks none of those questions again and rests no item on those sentences, so asking
/// twice on one chapter gives new items, not the same ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Avoid {
    /// The book's sentences the items rest on (their evidence's quotes).
    pub evidence: Vec<String>,
    /// Their questions: an MCQ's stem, a CQ's story.
    pub questions: Vec<String>,
}

impl Avoid {
    /// What `items` rest on and ask.
    pub fn of<'a>(items: impl IntoIterator<Item = &'a Authored>) -> Avoid {
        let mut avoid = Avoid::default();
        for item in items {
            avoid.add(item.sources.iter().map(|s| s.quote.clone()), match &item.body {
                Body::Mcq(m) => m.question.clone(),
                Body::Cq(c) => c.clue.clone(),
            });
        }
        avoid
    }

    /// What the records of an export in JSON ([`export::Format::Json`], one per line) rest on
    /// and ask.
    pub fn from_json_records(text: &str) -> Result<Avoid, String> {
        let mut avoid = Avoid::default();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
            let question = v["mcq"]["question"].as_str().or(v["creative"]["clue"].as_str());
            let Some(question) = question else { return Err(format!("line {}: neither an MCQ's question nor a creative question's clue", n + 1)) };
            let quotes = v["sources"].as_array().into_iter().flatten().filter_map(|s| s["excerpt"].as_str()).map(str::to_string);
            avoid.add(quotes, question.to_string());
        }
        Ok(avoid)
    }

    fn add(&mut self, quotes: impl Iterator<Item = String>, question: String) {
        for q in quotes {
            if !self.evidence.contains(&q) {
                self.evidence.push(q);
            }
        }
        if !self.questions.contains(&question) {
            self.questions.push(question);
        }
    }
}

impl AuthorRequest {
    /// The request in the teacher's words: as typed, else its topic.
    pub fn words(&self) -> &str {
        if self.text.is_empty() { &self.query } else { &self.text }
    }

    /// The formats asked for, each once: MCQ, then CQ.
    pub fn selected_tasks(&self) -> Vec<Task> {
        [(Task::Mcq, self.mcq), (Task::Cq, self.cq)].into_iter().filter(|&(_, n)| n > 0).map(|(t, _)| t).collect()
    }
}

/// Words of a request that ask for formats, counts and levels, not for a topic.
const FORMAT_WORDS: &[&str] = &[
    "mcq", "mcqs", "multiple", "choice", "multiple-choice", "question", "questions", "creative", "cq", "cqs", "make", "write", "give", "create",
    "generate", "me", "please", "and", "on", "about", "of", "for", "a", "an", "set", "practice", "level", "difficulty", "in", "with", "bangla",
    "english", "বহুনির্বাচনি", "এমসিকিউ", "সৃজনশীল", "প্রশ্ন", "নিয়ে", "নিয়ে", "উপর", "ওপর", "বিষয়ে", "সম্পর্কে", "এবং", "ও", "আর", "দাও", "করো",
    "তৈরি", "বানাও", "লেখো", "টি", "টা", "স্তরের", "মানের", "বাংলায়", "ইংরেজিতে",
];

/// Count words (English and Bangla) up to ten.
fn number(word: &str) -> Option<usize> {
    let w = word.trim_end_matches("টি").trim_end_matches("টা");
    let bn_digits: String = w.chars().map(|c| if ('০'..='৯').contains(&c) { char::from(b'0' + (c as u32 - '০' as u32) as u8) } else { c }).collect();
    if let Ok(n) = bn_digits.parse::<usize>() {
        return Some(n);
    }
    const EN: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    const BN: [&str; 11] = ["শূন্য", "এক", "দুই", "তিন", "চার", "পাঁচ", "ছয়", "সাত", "আট", "নয়", "দশ"];
    EN.iter().position(|&e| e == w).or_else(|| BN.iter().position(|&b| b == w)).or_else(|| ["a", "an", "একটি", "একটা"].contains(&word).then_some(1))
}

impl AuthorRequest {
    /// Reads a teacher's sentence: "N MCQs", "N creative questions" (English, Bangla and Bangla
    /// digits), a difficulty word, "in Bangla"/"in English"; the rest is the topic. With no
    /// format named, TeachMateGPT's targets: 5 MCQs and 1 CQ.
    pub fn parse(text: &str) -> AuthorRequest {
        let lowered = text.to_lowercase().replace([',', ';', '?', '!', '।', ':'], " ").replace("multiple choice", "mcq").replace("multiple-choice", "mcq");
        let words: Vec<&str> = lowered.split_whitespace().collect();
        let is_mcq = |w: &str| w.starts_with("mcq") || w == "বহুনির্বাচনি" || w == "এমসিকিউ";
        let is_cq = |w: &str| w == "cq" || w == "cqs" || w == "creative" || w == "সৃজনশীল";
        let (mut mcq, mut cq) = (None, None);
        let mut difficulty = Difficulty::Intermediate;
        let mut lang = None;
        let mut topic = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let count_before = || words[i.saturating_sub(2)..i].iter().rev().find_map(|p| number(p));
            if is_mcq(w) {
                mcq = Some(count_before().unwrap_or(5));
            } else if is_cq(w) {
                cq = Some(count_before().unwrap_or(1));
            } else if let Some(d) = Difficulty::parse(w) {
                difficulty = d;
            } else if *w == "bangla" || *w == "bengali" || *w == "বাংলায়" {
                lang = Some(Lang::Bn);
            } else if *w == "english" || *w == "ইংরেজিতে" {
                lang = Some(Lang::En);
            }
        }
        for w in &words {
            if number(w).is_none() && !FORMAT_WORDS.contains(w) && !is_mcq(w) && !is_cq(w) && Difficulty::parse(w).is_none() && *w != "bengali" {
                topic.push(*w);
            }
        }
        let (mcq, cq) = match (mcq, cq) {
            (None, None) => (5, 1),
            (m, c) => (m.unwrap_or(0), c.unwrap_or(0)),
        };
        AuthorRequest { text: text.trim().to_string(), query: topic.join(" "), sections: Vec::new(), mcq, cq, difficulty, lang, avoid: Avoid::default() }
    }
}

/// The author's settings (the app's and the CLI's defaults).
#[derive(Clone, Debug)]
pub struct AuthorConfig {
    /// Most MCQs and CQs one request may ask for.
    pub max_mcq: usize,
    pub max_cq: usize,
    /// Attempts after the first when an item fails a gate.
    pub retries: usize,
    /// Passages (chunks) items are written from.
    pub passages: usize,
    /// Characters of a passage an MCQ is written from (Bangla: `passage_chars_bn`; Qwen reads
    /// about one token per Bangla letter).
    pub passage_chars: usize,
    pub passage_chars_bn: usize,
    /// Characters of evidence a CQ is written from (English, Bangla).
    pub cq_passage_chars: usize,
    pub cq_passage_chars_bn: usize,
    /// Most tokens of a CQ's JSON (an MCQ's: the quiz writer's).
    pub cq_tokens: usize,
    pub repeat_penalty: f32,
    /// Whether SAVER runs (off: items carry no report; for measuring generation alone).
    pub verify: bool,
    /// The accept rule's thresholds; `None`: those fitted for the judge's size
    /// ([`Thresholds::for_judge`]).
    pub thresholds: Option<Thresholds>,
    /// Whether the model writes a Bangla item where the book gives none (a beginner's MCQ once
    /// the chapter's definitions and lists are all asked, an intermediate one once its reasons
    /// and tables are, an advanced one once its lists and tables are; a CQ once the request's
    /// sections have no two reasons left to notice). Off:
    /// such an item is reported missing at once; neither Qwen2.5-Coder model wrote a usable
    /// Bangla item (docs/EVALUATION.md, "Quiz", "Authoring"), and each try cost the teacher
    /// minutes.
    pub write_bangla: bool,
}

impl Default for AuthorConfig {
    fn default() -> Self {
        AuthorConfig {
            max_mcq: 20,
            max_cq: 5,
            retries: 2,
            passages: 6,
            passage_chars: 900,
            passage_chars_bn: 700,
            cq_passage_chars: 1200,
            cq_passage_chars_bn: 800,
            cq_tokens: 1000,
            repeat_penalty: 1.2,
            verify: true,
            write_bangla: false,
            thresholds: None,
        }
    }
}

impl AuthorConfig {
    /// The accept rule's thresholds for this judge: the fixed ones, or those fitted for its size.
    pub fn thresholds_for(&self, judge: &Session) -> Thresholds {
        self.thresholds.unwrap_or_else(|| Thresholds::for_judge(judge.parameters()))
    }
}

/// What authoring needs from its host.
pub struct AuthorEnv<'a> {
    pub bundle: &'a Bundle,
    pub encoder: Option<&'a SentenceEncoder>,
    pub session: &'a mut Session,
}

/// A multiple-choice item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mcq {
    pub question: String,
    /// Four options, without labels (shown as ক) খ) গ) ঘ) or A)–D)).
    pub options: Vec<String>,
    pub answer_index: usize,
    /// Why each option is right or wrong (Moodle's per-option feedback).
    pub rationales: Vec<String>,
}

/// One part of a creative question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// ক খ গ ঘ (Bangla) or a b c d.
    pub label: String,
    /// knowledge, comprehension, application, higher-order (in the item's language).
    pub skill: String,
    pub question: String,
    pub marks: u32,
    /// What a full answer says (the marking guide), where the item was made from the book
    /// ([`code_cq`]); empty where the model wrote the part.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub answer: String,
}

/// A creative question: the stimulus (the clue) and four parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Creative {
    pub headline: String,
    /// The stimulus, starting with its marker ("উদ্দীপক:").
    pub clue: String,
    pub parts: Vec<Part>,
}

/// An item's content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Body {
    Mcq(Mcq),
    Cq(Creative),
}

/// Which rung of the repair ladder an item passed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ladder {
    /// Every gate at the first attempt.
    Strict,
    /// Every gate after a retry with the failure named.
    Retry,
    /// Format and language valid, some other check failed: kept, flagged.
    Relaxed,
}

/// The teacher's decision on an item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    #[default]
    Pending,
    Accepted,
    Edited,
    Discarded,
}

/// An authored item with everything a teacher reviews.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Authored {
    pub question_id: String,
    pub task: Task,
    pub body: Body,
    pub chapter: String,
    pub concept: String,
    /// Where the item comes from, each with the sentence of the book it rests on (the export's
    /// `sources`, `quote` as `excerpt`).
    pub sources: Vec<ItemEvidence>,
    pub difficulty: Difficulty,
    pub language: Lang,
    /// The gates and the writer's other checks, by name (see [`gates`]).
    pub gates: Gates,
    pub ladder: Ladder,
    pub attempts: usize,
    /// Why each failed attempt was rejected.
    pub rejected: Vec<String>,
    pub verification: Option<Verification>,
    #[serde(default)]
    pub decision: Decision,
    /// The teacher's request it was written for, in their words, and the formats that request
    /// asked for (the export's `query` and `selected_tasks`).
    #[serde(default)]
    pub query: String,
    #[serde(default)]
    pub selected_tasks: Vec<Task>,
    /// Made from one of the book's definitions ([`quiz::define`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_definition: bool,
    /// Made by running a line or program of the book ([`quiz::predict`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_running: bool,
    /// Made from a reason the book gives ([`quiz::cause`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_reason: bool,
    /// Made from the members of a kind the book lists ([`quiz::example`]), not written by the
    /// model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_example: bool,
    /// Made from a row of a table the book compares two things in ([`quiz::contrast`]), not
    /// written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_contrast: bool,
    /// Made from the book's own claims, the wrong options claims turned ([`quiz::statement`]),
    /// not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_statement: bool,
}

/// What a book-made MCQ was made from ([`Authored::from_book`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FromBook {
    Definition,
    Running,
    Reason,
    Example,
    Contrast,
    Statement,
}

impl Authored {
    /// What the item was made from, when the book made it; `None` when the model wrote it.
    pub fn from_book(&self) -> Option<FromBook> {
        [
            (self.by_definition, FromBook::Definition),
            (self.by_running, FromBook::Running),
            (self.by_reason, FromBook::Reason),
            (self.by_example, FromBook::Example),
            (self.by_contrast, FromBook::Contrast),
            (self.by_statement, FromBook::Statement),
        ]
        .into_iter()
        .find_map(|(by, from)| by.then_some(from))
    }

    /// An item as written: no gates recorded yet, passed strict at one attempt, not verified,
    /// its decision pending (callers set what differs).
    pub fn new(question_id: String, body: Body, chapter: String, concept: String, sources: Vec<ItemEvidence>, difficulty: Difficulty, language: Lang) -> Authored {
        let task = match body {
            Body::Mcq(_) => Task::Mcq,
            Body::Cq(_) => Task::Cq,
        };
        Authored {
            question_id,
            task,
            body,
            chapter,
            concept,
            sources,
            difficulty,
            language,
            gates: Gates::new(),
            ladder: Ladder::Strict,
            attempts: 1,
            rejected: Vec::new(),
            verification: None,
            decision: Decision::Pending,
            query: String::new(),
            selected_tasks: Vec::new(),
            by_definition: false,
            by_running: false,
            by_reason: false,
            by_example: false,
            by_contrast: false,
            by_statement: false,
        }
    }
}

/// One item of a job, or why it could not be written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Made {
    Item(Box<Authored>),
    Missing { task: Task, reason: String, attempts: usize },
}

/// What a request gives before any item is written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Prepared {
    /// Harmful or off-topic: a fixed message, nothing written.
    Refused { reason: String, message: String },
    /// No topic named: one clarifying question with sections to choose from.
    Clarify { question: String, options: Vec<String> },
    /// The book does not cover it: the nearest sections.
    NotCovered { message: String, nearest: Vec<u32> },
    Ready(Box<Job>),
}

/// A request ready to write: its evidence, chapter and concept, and what has been written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub request: AuthorRequest,
    pub language: Lang,
    pub chapter: String,
    pub concept: String,
    /// Passages items are written from: (chunk, section), best first.
    pub passages: Vec<(u32, u32)>,
    /// Sections the request covers (an item's evidence outside them lowers its relevance).
    pub scope: Vec<u32>,
    /// Key facts and questions already used.
    used: Vec<String>,
    earlier: Vec<String>,
    next_passage: usize,
    /// Items written so far, and CQs among them.
    written: usize,
    cqs: usize,
    /// Beginner MCQs made from the book's definitions and from the members it lists,
    /// intermediate ones from its reasons and its comparison tables, and advanced ones (which
    /// of three statements hold) from its lists and tables (each pair alternates).
    #[serde(default)]
    definitions: usize,
    #[serde(default)]
    examples: usize,
    #[serde(default)]
    reasons: usize,
    #[serde(default)]
    contrasts: usize,
    /// English beginner MCQs from the book's claims (alternating with its definitions), and
    /// every option of the book-made MCQs so far (no wrong claim is shown twice).
    #[serde(default)]
    statements: usize,
    #[serde(default)]
    options: Vec<String>,
    id_stem: String,
    #[serde(skip)]
    calibration: Calibration,
}

impl PartialEq for Calibration {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The option label for position `i` (ক) খ) গ) ঘ) in Bangla, A)–D) otherwise), without ")".
pub fn option_label(i: usize, lang: Lang) -> &'static str {
    let bn = ["ক", "খ", "গ", "ঘ"];
    let en = ["A", "B", "C", "D"];
    if lang == Lang::Bn { bn.get(i).copied().unwrap_or("?") } else { en.get(i).copied().unwrap_or("?") }
}

/// The language items of a request are written in.
pub fn language_of(bundle: &Bundle, req: &AuthorRequest) -> Lang {
    if let Some(l) = req.lang.filter(|l| *l != Lang::Mixed) {
        return l;
    }
    match bundle.header.course.lang.as_deref() {
        Some("bn") => Lang::Bn,
        Some("en") => Lang::En,
        _ if rules::language(&req.query) == Lang::Bn => Lang::Bn,
        _ => {
            // A request by sections alone: the sections' own language.
            let text: String = req.sections.iter().filter_map(|&s| bundle.sections.get(s as usize)).map(|s| s.heading_path.join(" ")).collect();
            if rules::language(&text) == Lang::Bn { Lang::Bn } else { Lang::En }
        }
    }
}

/// Checks a request's shape: something to write about, and counts within the limits.
pub fn check_request(bundle: &Bundle, req: &AuthorRequest, cfg: &AuthorConfig) -> Result<(), AuthorError> {
    let bad = |m: String| Err(AuthorError::BadInput(m));
    if req.query.trim().is_empty() && req.sections.is_empty() {
        return bad("Type a topic or choose sections of the book first.".into());
    }
    if let Some(why) = (!req.query.trim().is_empty()).then(|| ask::bad_input(&req.query)).flatten() {
        return bad(why);
    }
    if req.mcq + req.cq == 0 {
        return bad("Ask for at least one MCQ or one creative question.".into());
    }
    if req.mcq > cfg.max_mcq {
        return bad(format!("At most {} MCQs per request ({} asked).", cfg.max_mcq, req.mcq));
    }
    if req.cq > cfg.max_cq {
        return bad(format!("At most {} creative questions per request ({} asked).", cfg.max_cq, req.cq));
    }
    if let Some(s) = req.sections.iter().find(|&&s| s as usize >= bundle.sections.len()) {
        return bad(format!("Section {s} is not in this course (it has {}).", bundle.sections.len()));
    }
    Ok(())
}

fn refusal(lang: Lang, harmful: bool, subjects: &str) -> String {
    match (lang == Lang::Bn, harmful) {
        (false, true) => "This request asks for harmful content, so no questions are written.".into(),
        (true, true) => "এই অনুরোধে ক্ষতিকর বিষয় আছে, তাই কোনো প্রশ্ন তৈরি করা হবে না।".into(),
        (false, false) => format!("This request is outside the course ({subjects}); choose a chapter or name a topic from the book."),
        (true, false) => format!("এই অনুরোধটি কোর্সের ({subjects}) বাইরে; বইয়ের কোনো অধ্যায় বেছে নিন বা বিষয়ের নাম লিখুন।"),
    }
}

/// Intent, ambiguity, retrieval with the coverage gate, and concept detection (see the module
/// docs).
pub async fn prepare(env: &mut AuthorEnv<'_>, mut req: AuthorRequest, cfg: &AuthorConfig) -> Result<Prepared, AuthorError> {
    check_request(env.bundle, &req, cfg)?;
    let bundle = env.bundle;
    let lang = language_of(bundle, &req);
    let course = &bundle.header.course;
    let subjects = if course.subjects.is_empty() { bundle.header.title.clone() } else { course.subjects.join(", ") };
    let q = req.query.trim().to_string();
    if !q.is_empty() {
        if rules::harmful(&q) {
            return Ok(Prepared::Refused { reason: "harmful".into(), message: refusal(lang, true, &subjects) });
        }
        let words = route::course_words(bundle);
        if rules::off_topic(&q, &words) {
            return Ok(Prepared::Refused { reason: "off_topic".into(), message: refusal(lang, false, &subjects) });
        }
    }
    // A request naming no topic word that names a section's heading word for word ("and, or
    // and not" for "and, or, not": every word a stop word) asks for that section, as if the
    // teacher had chosen it.
    // The whole sentence: reading the counts and formats out of it drops "and".
    if req.sections.is_empty() && rules::vague(&q) {
        let said = if req.text.is_empty() { q.clone() } else { format!("{} {q}", req.text) };
        req.sections.extend(named_section(bundle, &said));
    }
    let min_chars = 150;
    let long_enough = |c: u32| bundle.chunk_text(c).chars().count() >= min_chars && bundle.section_of(c).kind != SectionKind::Exercise;
    let mut passages: Vec<(u32, u32)> = Vec::new();
    let scope: Vec<u32>;
    if !req.sections.is_empty() {
        // The chosen sections and everything under them, in book order; the topic (if any)
        // ranks their passages.
        let mut s: Vec<u32> = Vec::new();
        let mut stack: Vec<u32> = req.sections.clone();
        while let Some(id) = stack.pop() {
            if !s.contains(&id) {
                s.push(id);
                stack.extend(bundle.sections[id as usize].children.iter().copied());
            }
        }
        s.sort();
        scope = s;
        if !q.is_empty() {
            let found = ask::search(bundle, env.encoder, &format!("{q} {}", bundle.sections[scope[0] as usize].heading_path.join(" ")), &RetrievalConfig::default()).await?;
            passages.extend(found.evidence.iter().filter(|e| scope.contains(&e.section) && long_enough(e.chunk)).map(|e| (e.chunk, e.section)));
        }
        for c in bundle.chunks.iter().filter(|c| scope.contains(&c.section)) {
            if long_enough(c.id) && !passages.iter().any(|p| p.0 == c.id) {
                passages.push((c.id, c.section));
            }
        }
        if passages.is_empty() {
            return Err(AuthorError::BadInput("The chosen sections have no passage long enough to write questions from.".into()));
        }
    } else {
        if rules::vague(&q) {
            let options = route::options(bundle, env.encoder, &q, &RouteConfig::default()).await;
            let question = if lang == Lang::Bn { "কোন অধ্যায় বা বিষয়ের উপর প্রশ্ন চান? যেমন:" } else { "Which chapter or topic should the questions be on? For example:" };
            return Ok(Prepared::Clarify { question: question.into(), options });
        }
        let found = ask::search(bundle, env.encoder, &q, &RetrievalConfig::default()).await?;
        if found.abstained {
            let message = if lang == Lang::Bn {
                "এই বিষয়টি কোর্সের বইয়ে নেই, তাই প্রশ্ন তৈরি করা হলো না। কাছাকাছি অংশগুলো:".to_string()
            } else {
                "The course book does not cover this topic, so no questions were written. The nearest sections are:".to_string()
            };
            return Ok(Prepared::NotCovered { message, nearest: found.nearest_sections });
        }
        passages.extend(found.evidence.iter().filter(|e| long_enough(e.chunk)).map(|e| (e.chunk, e.section)));
        if passages.is_empty() {
            passages.extend(found.evidence.iter().map(|e| (e.chunk, e.section)));
        }
        let mut s: Vec<u32> = passages.iter().map(|p| p.1).collect();
        s.dedup();
        scope = s;
    }
    passages.truncate(cfg.passages);
    if passages.is_empty() {
        let message = if lang == Lang::Bn { "বইয়ে এ বিষয়ে প্রশ্ন লেখার মতো অংশ নেই।" } else { "The book has no passage on this to write questions from." };
        return Ok(Prepared::NotCovered { message: message.into(), nearest: scope });
    }
    // Concept detection: the best passage's chapter and section.
    let best = &bundle.sections[passages[0].1 as usize];
    let chapter = best.heading_path.first().cloned().unwrap_or_default();
    let concept = best.heading_path.last().cloned().unwrap_or_default();
    // Another request on the same topic, with other items to avoid, gets other ids.
    let id_stem = format!("{:08x}", fnv(&format!("{q}|{}|{:?}|{:?}", chapter, req.sections, req.avoid)) as u32);
    let (used, earlier) = (req.avoid.evidence.clone(), req.avoid.questions.clone());
    let job = Job {
        request: req,
        language: lang,
        chapter,
        concept,
        passages,
        scope,
        used,
        earlier,
        next_passage: 0,
        written: 0,
        cqs: 0,
        definitions: 0,
        examples: 0,
        reasons: 0,
        contrasts: 0,
        statements: 0,
        options: Vec::new(),
        id_stem,
        calibration: Calibration::default(),
    };
    Ok(Prepared::Ready(Box::new(job)))
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl Job {
    /// The items the request asks for, in order: the MCQs, then the CQs.
    pub fn tasks(&self) -> Vec<Task> {
        std::iter::repeat_n(Task::Mcq, self.request.mcq).chain(std::iter::repeat_n(Task::Cq, self.request.cq)).collect()
    }

    fn source(&self, bundle: &Bundle, chunk: u32, quote: String) -> ItemEvidence {
        let section = bundle.section_of(chunk);
        ItemEvidence { chunk, section: section.id, file: section.file.clone(), heading_path: section.heading_path.clone(), quote }
    }

    fn next_id(&mut self, task: Task) -> String {
        self.written += 1;
        let kind = match task {
            Task::Mcq => "mcq",
            Task::Cq => "cq",
        };
        format!("{}-{kind}-{}", self.id_stem, self.written)
    }

    /// Writes one item of `task` (see the module docs).
    pub async fn make(&mut self, env: &mut AuthorEnv<'_>, task: Task, cfg: &AuthorConfig) -> Result<Made, AuthorError> {
        match task {
            Task::Mcq => self.make_mcq(env, cfg).await,
            Task::Cq => self.make_cq(env, cfg).await,
        }
    }

    async fn make_mcq(&mut self, env: &mut AuthorEnv<'_>, cfg: &AuthorConfig) -> Result<Made, AuthorError> {
        let bundle = env.bundle;
        let lang = self.language;
        // A beginner's MCQ is recall: the book's own definition, where the evidence or its
        // chapter has one.
        // On a Bangla course it may also ask which is a member of a kind the book lists
        // (TeachMateGPT's beginner cue "কোনটি"), every other item.
        // On an English course it may also ask which of four claims holds, the book's among
        // three turned (`quiz::statement`), every other item.
        if self.request.difficulty == Difficulty::Beginner {
            let other = |job: &mut Self| if lang == Lang::Bn { job.example_mcq(bundle, false) } else { job.statement_mcq(bundle) };
            let other_first = if lang == Lang::Bn { self.examples < self.definitions } else { self.statements < self.definitions };
            let made = if other_first { other(self).or_else(|| self.definition_mcq(bundle)) } else { self.definition_mcq(bundle).or_else(|| other(self)) };
            if let Some(made) = made {
                return Ok(made);
            }
        }
        // On a Bangla course an intermediate MCQ explains why, for a reason the book gives, or
        // asks how two things the book compares in a table differ (TeachMateGPT's cue
        // "পার্থক্য"), every other item.
        if lang == Lang::Bn && self.request.difficulty == Difficulty::Intermediate {
            if let Some(made) = self.reason_or_row_mcq(bundle, false) {
                return Ok(made);
            }
        }
        // On a Bangla course an advanced MCQ asks which of three statements hold (the board's
        // multiple-completion item, TeachMateGPT's several steps) on the members of a kind the
        // book lists or on one of two things it compares in a table, every other item; when
        // none is left, whether a classmate's answer to a why or "respectively" question is
        // right (`quiz::judge`: judge the answer, then correct it).
        if lang == Lang::Bn && self.request.difficulty == Difficulty::Advanced {
            let made = if self.contrasts < self.examples {
                self.table_completion_mcq(bundle).or_else(|| self.example_mcq(bundle, true))
            } else {
                self.example_mcq(bundle, true).or_else(|| self.table_completion_mcq(bundle))
            };
            let made = made.or_else(|| self.reason_or_row_mcq(bundle, true));
            if let Some(made) = made {
                return Ok(made);
            }
        }
        if lang == Lang::Bn && !cfg.write_bangla {
            let reason = match self.request.difficulty {
                Difficulty::Beginner => "the chapter defines no further term to ask about",
                Difficulty::Intermediate => "the book gives no further reason or comparison on this topic to ask about",
                Difficulty::Advanced => "the book gives no further list of members, comparison or reason on this topic to ask about",
            };
            return Ok(Made::Missing { task: Task::Mcq, reason: format!("{reason} (the model does not write Bangla questions)"), attempts: 0 });
        }
        // On a Python course, where the evidence or its chapter has a line or program to ask
        // about: an intermediate MCQ explains or applies a rule (why the book's code shows what
        // it shows, or what a line shows), an advanced one traces a loop or a branch (what a
        // program with one shows; else a line).
        if lang == Lang::En {
            let made = match self.request.difficulty {
                Difficulty::Intermediate => self.prediction_mcq(bundle, &[Bloom::Apply], true),
                Difficulty::Advanced => self.prediction_mcq(bundle, &[Bloom::Analyse, Bloom::Apply], false),
                Difficulty::Beginner => None,
            };
            if let Some(made) = made {
                return Ok(made);
            }
        }
        // The next passage (in turn) that still has a sentence no item rests on.
        let n = self.passages.len();
        let mut pick = None;
        for k in 0..n {
            let (chunk, _) = self.passages[(self.next_passage + k) % n];
            let max = if lang == Lang::Bn { cfg.passage_chars_bn } else { cfg.passage_chars };
            let passage = quiz::clip(bundle.chunk_text(chunk), max);
            let used: Vec<&str> = self.used.iter().map(String::as_str).collect();
            if let Some(fact) = quiz::key_fact(&passage, &used) {
                self.next_passage = (self.next_passage + k + 1) % n;
                pick = Some((chunk, passage, fact));
                break;
            }
        }
        let Some((chunk, passage, fact)) = pick else {
            return Ok(Made::Missing { task: Task::Mcq, reason: "every sentence of the evidence already has a question".into(), attempts: 0 });
        };
        self.used.push(fact.clone());
        let section = bundle.section_of(chunk);
        let place = section.heading_path.join(" ▸ ");
        let language = if lang == Lang::Bn { "Bangla" } else { "English" };
        let evidence = vec![self.source(bundle, chunk, fact.clone())];
        let spec = quiz::ItemSpec {
            place: &place,
            passage: &passage,
            focus: &fact,
            bloom: self.request.difficulty.bloom(),
            task: prompt::mcq_task(self.request.difficulty),
            language,
            concepts: &[],
            asked: &[],
            earlier: &self.earlier,
            evidence,
        };
        let qcfg = QuizConfig { repairs: cfg.retries, repeat_penalty: cfg.repeat_penalty, examine: false, ..QuizConfig::default() };
        let mut unused = None;
        let made = quiz::write_item(env.session, &spec, &qcfg, &mut unused).await?;
        let (item, checks, attempts, rejected, ladder) = match made {
            quiz::Made::Item { item, validation } => {
                let ladder = if validation.attempts == 1 { Ladder::Strict } else { Ladder::Retry };
                (item, validation.checks, validation.attempts, validation.rejected, ladder)
            }
            quiz::Made::Skipped { last: Some(item), validation, .. } => {
                let mut g = gates::mcq(&item.question, &item.options, item.answer_index, lang);
                let shape_ok = ["distinct_options", "no_all_or_none"].iter().all(|k| validation.checks.get(*k).copied().unwrap_or(false));
                g.insert("distinct_options".into(), shape_ok);
                if !gates::format_and_language(&g) || !shape_ok {
                    return Ok(Made::Missing { task: Task::Mcq, reason: validation.rejected.last().cloned().unwrap_or_default(), attempts: validation.attempts });
                }
                (item, validation.checks, validation.attempts, validation.rejected, Ladder::Relaxed)
            }
            quiz::Made::Skipped { reason, attempts, .. } => return Ok(Made::Missing { task: Task::Mcq, reason, attempts }),
        };
        let mut all_gates = gates::mcq(&item.question, &item.options, item.answer_index, lang);
        all_gates.extend(checks);
        self.earlier.push(item.question.clone());
        // The writer's evidence is the item's: the passage and the key fact.
        let quiz::Item { question, options, answer_index, rationales, evidence: sources, .. } = item;
        let body = Body::Mcq(Mcq { question, options, answer_index, rationales });
        let id = self.next_id(Task::Mcq);
        let authored = Authored {
            gates: all_gates,
            ladder,
            attempts,
            rejected,
            query: self.request.words().to_string(),
            selected_tasks: self.request.selected_tasks(),
            ..Authored::new(id, body, self.chapter.clone(), section.heading().to_string(), sources, self.request.difficulty, lang)
        };
        Ok(Made::Item(Box::new(authored)))
    }

    /// The evidence passages from the next one in turn, then the other chunks of their files
    /// (outline order, no exercises): where definitions and runnable lines are looked for.
    fn passages_then_chapters(&self, bundle: &Bundle) -> Vec<(u32, u32)> {
        let n = self.passages.len();
        let mut order: Vec<(u32, u32)> = (0..n).map(|k| self.passages[(self.next_passage + k) % n]).collect();
        let files: Vec<&str> = self.passages.iter().map(|&(c, _)| bundle.section_of(c).file.as_str()).collect();
        order.extend(bundle.chunks.iter().filter(|c| files.contains(&bundle.sections[c.section as usize].file.as_str()) && bundle.sections[c.section as usize].kind != SectionKind::Exercise).map(|c| (c.id, c.section)).filter(|p| !self.passages.contains(p)));
        order
    }

    /// The gates and the writer's checks of a book-made MCQ in `lang`, when it passes them all
    /// (not a repeat of an earlier item among them).
    fn passes(&self, item: &quiz::Item, lang: Lang) -> Option<Gates> {
        let earlier: Vec<&str> = self.earlier.iter().map(String::as_str).collect();
        let (checks, reason) = quiz::check::deterministic(item, &earlier, lang == Lang::Bn);
        let mut all = gates::mcq(&item.question, &item.options, item.answer_index, lang);
        if reason.is_some() || !all.values().all(|&ok| ok) {
            return None;
        }
        all.extend(checks);
        Some(all)
    }

    /// A book-made MCQ (a definition, reason, member or table row asked back, the book's code
    /// run) as
    /// the job's next item: the passage turn moves past it (`k`: its place in
    /// [`Job::passages_then_chapters`]), `used` (what it rests on) is not asked again.
    #[allow(clippy::too_many_arguments)]
    fn take_book_mcq(&mut self, item: quiz::Item, gates: Gates, k: usize, used: String, concept: String, lang: Lang, from: FromBook) -> Made {
        let n = self.passages.len();
        if k < n {
            self.next_passage = (self.next_passage + k + 1) % n;
        }
        self.used.push(used);
        self.earlier.push(item.question.clone());
        self.options.extend(item.options.iter().cloned());
        let quiz::Item { question, options, answer_index, rationales, evidence: sources, .. } = item;
        let id = self.next_id(Task::Mcq);
        Made::Item(Box::new(Authored {
            gates,
            query: self.request.words().to_string(),
            selected_tasks: self.request.selected_tasks(),
            by_definition: from == FromBook::Definition,
            by_running: from == FromBook::Running,
            by_reason: from == FromBook::Reason,
            by_example: from == FromBook::Example,
            by_contrast: from == FromBook::Contrast,
            by_statement: from == FromBook::Statement,
            ..Authored::new(id, Body::Mcq(Mcq { question, options, answer_index, rationales }), self.chapter.clone(), concept, sources, self.request.difficulty, lang)
        }))
    }

    /// An MCQ on a line or program of the next passage (in turn) that has one no item asked,
    /// then of the rest of those passages' chapters on the request's topic: what Python shows, for one at a level of
    /// `levels` ([`quiz::predict::level`]; the first level first within the passages, then
    /// within the chapters), or, with `why`, every other item why it shows it (the rule its
    /// commonest misreading breaks, [`quiz::predict::why_item`]; never both for one line: the
    /// "why" stem shows the output), passing the writer's checks and the gates; `None` when
    /// none is left.
    fn prediction_mcq(&mut self, bundle: &Bundle, levels: &[Bloom], why: bool) -> Option<Made> {
        use quiz::predict;
        let count = |f: fn(&str) -> bool| self.earlier.iter().filter(|q| f(q)).count();
        let why_first = why && count(predict::asks) > count(predict::explains);
        let order = self.passages_then_chapters(bundle);
        let n = self.passages.len();
        // Beyond the passages, only lines on the request's topic ([`names_topic`]): asked again,
        // a request on swapping went on to indexing and slicing elsewhere in the chapter.
        let sections_chosen = !self.request.sections.is_empty();
        let topic = ask::verify::terms(if self.request.query.trim().is_empty() { &self.concept } else { &self.request.query });
        // The passages at each level in turn, then the chapters at each level.
        let turns = [true, false].into_iter().flat_map(|in_passages| levels.iter().map(move |&level| (in_passages, level)));
        for (in_passages, level) in turns {
            for (k, &(chunk, section)) in order.iter().enumerate().filter(|(k, _)| (*k < n) == in_passages) {
                for p in predict::within(bundle, chunk) {
                    let quote = p.quote();
                    if self.used.contains(&quote) || !in_passages && !sections_chosen && !names_topic(bundle, p, &topic) {
                        continue;
                    }
                    let run = (p.is_multiple_choice() && predict::level(p) == level).then(|| predict::item(p, self.source(bundle, chunk, quote.clone())));
                    let why = why.then(|| predict::why_item(p, None, &predict::chapter_rules(bundle, p), self.source(bundle, chunk, quote.clone()))).flatten();
                    let items = if why_first { [why, run] } else { [run, why] };
                    // Only the same stem is a repeat: stems differ in their code, which the
                    // word-overlap check does not read (see `Quiz::code_item`).
                    for item in items.into_iter().flatten().filter(|i| !self.earlier.contains(&i.question)) {
                        let (checks, reason) = quiz::check::deterministic(&item, &[], false);
                        let mut all_gates = gates::mcq(&item.question, &item.options, item.answer_index, Lang::En);
                        if reason.is_some() || !all_gates.values().all(|&ok| ok) {
                            continue;
                        }
                        all_gates.extend(checks);
                        let concept = item.concepts.first().cloned().unwrap_or_else(|| bundle.sections[section as usize].heading().to_string());
                        return Some(self.take_book_mcq(item, all_gates, k, quote, concept, Lang::En, FromBook::Running));
                    }
                }
            }
        }
        None
    }

    /// An MCQ from a definition in the next passage (in turn) that has one no item rests on,
    /// then in the rest of those passages' chapters (outline order), in the request's language,
    /// passing the writer's checks and the gates; `None` when none is left.
    fn definition_mcq(&mut self, bundle: &Bundle) -> Option<Made> {
        let lang = self.language;
        let order = self.passages_then_chapters(bundle);
        let mut pools = quiz::define::Pools::new(bundle);
        for (k, &(chunk, section)) in order.iter().enumerate() {
            for def in pools.askable(chunk) {
                if def.lang != lang || self.used.contains(&def.sentence) {
                    continue;
                }
                let evidence = self.source(bundle, chunk, def.sentence.clone());
                let Some(item) = pools.item(&def, evidence) else { continue };
                let Some(all_gates) = self.passes(&item, lang) else { continue };
                let concept = bundle.sections[section as usize].heading().to_string();
                self.definitions += 1;
                return Some(self.take_book_mcq(item, all_gates, k, def.sentence.clone(), concept, lang, FromBook::Definition));
            }
        }
        None
    }

    /// A "which of these statements is true?" MCQ on a claim of the next passage (in turn) that
    /// no item rests on, then of the rest of those passages' chapters (outline order)
    /// ([`quiz::statement`]; English), no wrong option one an earlier item showed, passing the
    /// writer's checks and the gates; `None` when none is left.
    fn statement_mcq(&mut self, bundle: &Bundle) -> Option<Made> {
        let order = self.passages_then_chapters(bundle);
        let used: Vec<&str> = self.used.iter().map(String::as_str).collect();
        let shown: Vec<&str> = self.options.iter().map(String::as_str).collect();
        let found = order.iter().enumerate().find_map(|(k, &(chunk, section))| {
            let mut items = quiz::statement::items(bundle, section, bundle.chunk_text(chunk), None, &used, &shown, |quote| self.source(bundle, chunk, quote));
            items.find_map(|item| Some((k, section, self.passes(&item, Lang::En)?, item)))
        });
        let (k, section, all_gates, item) = found?;
        let key = item.options[item.answer_index].clone();
        let concept = bundle.sections[section as usize].heading().to_string();
        self.statements += 1;
        Some(self.take_book_mcq(item, all_gates, k, key, concept, Lang::En, FromBook::Statement))
    }

    /// A "which is a member of this kind?" MCQ, or with `completion` a "which of these three
    /// hold?" one ([`quiz::completion`]), on a list of members the next passage (in turn) gives
    /// that no item rests on, then the rest of those passages' chapters (outline order)
    /// ([`quiz::example`]; Bangla), passing the writer's checks and the gates; `None` when none
    /// is left.
    fn example_mcq(&mut self, bundle: &Bundle, completion: bool) -> Option<Made> {
        let order = self.passages_then_chapters(bundle);
        let mut pools = quiz::example::Pools::new(bundle);
        for (k, &(chunk, section)) in order.iter().enumerate() {
            for e in pools.askable(chunk) {
                if self.used.contains(&e.sentence) {
                    continue;
                }
                let evidence = self.source(bundle, chunk, e.sentence.clone());
                let made = if completion { pools.completion(&e, evidence) } else { pools.item(&e, evidence) };
                let Some(item) = made else { continue };
                let Some(all_gates) = self.passes(&item, Lang::Bn) else { continue };
                let concept = bundle.sections[section as usize].heading().to_string();
                self.examples += 1;
                return Some(self.take_book_mcq(item, all_gates, k, e.sentence.clone(), concept, Lang::Bn, FromBook::Example));
            }
        }
        None
    }

    /// A "which of these three hold?" MCQ ([`quiz::completion`]) on one of the two things a
    /// comparison table the best passage holds sets side by side, else one of the other
    /// passages', then their chapters' (outline order) whose things compared name the
    /// request's topic ([`Job::topic_word`]), that no item rests on, passing the writer's
    /// checks and the gates; `None` when none is left.
    fn table_completion_mcq(&mut self, bundle: &Bundle) -> Option<Made> {
        let order = self.passages_then_chapters(bundle);
        let sections_chosen = !self.request.sections.is_empty();
        let topic = self.topic_word(bundle);
        for (k, &(chunk, section)) in order.iter().enumerate() {
            for table in quiz::contrast::askable_in(bundle, chunk) {
                let on_topic = topic.as_deref().is_none_or(|t| ask::verify::terms(&format!("{} {}", table.sides[0], table.sides[1])).contains(t));
                if k > 0 && !sections_chosen && !on_topic {
                    continue;
                }
                for side in 0..2 {
                    let Some(quote) = quiz::completion::table_quote(&table, side) else { continue };
                    if self.used.contains(&quote) {
                        continue;
                    }
                    let Some(item) = quiz::completion::from_table(&table, side, self.source(bundle, chunk, quote.clone())) else { continue };
                    let Some(all_gates) = self.passes(&item, Lang::Bn) else { continue };
                    let concept = bundle.sections[section as usize].heading().to_string();
                    self.contrasts += 1;
                    return Some(self.take_book_mcq(item, all_gates, k, quote, concept, Lang::Bn, FromBook::Contrast));
                }
            }
        }
        None
    }

    /// A "why" MCQ ([`Job::reason_mcq`]) or a "respectively" one ([`Job::contrast_mcq`]), the
    /// kind made less so far first (a reason in a tie); with `judged`, each judging a
    /// classmate's answer.
    fn reason_or_row_mcq(&mut self, bundle: &Bundle, judged: bool) -> Option<Made> {
        if self.contrasts < self.reasons {
            self.contrast_mcq(bundle, judged).or_else(|| self.reason_mcq(bundle, judged))
        } else {
            self.reason_mcq(bundle, judged).or_else(|| self.contrast_mcq(bundle, judged))
        }
    }

    /// A "how do these two differ?" MCQ on a row of a comparison table the best passage holds,
    /// else one of the other passages', then their chapters' (outline order) whose things
    /// compared or aspect name the request's topic ([`Job::topic_word`]) ([`quiz::contrast`];
    /// Bangla), that no item rests on, passing the writer's checks and the gates; `None` when
    /// none is left. With `judged`, the item judges a classmate's answer, one of its pairings
    /// ([`quiz::judge`]).
    fn contrast_mcq(&mut self, bundle: &Bundle, judged: bool) -> Option<Made> {
        let order = self.passages_then_chapters(bundle);
        let sections_chosen = !self.request.sections.is_empty();
        let topic = self.topic_word(bundle);
        for (k, &(chunk, section)) in order.iter().enumerate() {
            for table in quiz::contrast::askable_in(bundle, chunk) {
                for row in 0..table.rows.len() {
                    let quote = quiz::contrast::quote(&table, row);
                    let on_topic = topic.as_deref().is_none_or(|t| ask::verify::terms(&format!("{} {} {}", table.sides[0], table.sides[1], table.rows[row].0)).contains(t));
                    if self.used.contains(&quote) || k > 0 && !sections_chosen && !on_topic {
                        continue;
                    }
                    let Some(item) = quiz::contrast::item(&table, row, self.source(bundle, chunk, quote.clone())) else { continue };
                    let Some(item) = judge(item, judged, None) else { continue };
                    let Some(all_gates) = self.passes(&item, Lang::Bn) else { continue };
                    let concept = bundle.sections[section as usize].heading().to_string();
                    self.contrasts += 1;
                    return Some(self.take_book_mcq(item, all_gates, k, quote, concept, Lang::Bn, FromBook::Contrast));
                }
            }
        }
        None
    }

    /// A "why" MCQ on a reason the best passage gives, else one naming the request's topic
    /// ([`Job::topic_word`]) that the other passages, then their chapters (outline order) give
    /// ([`quiz::cause`]; Bangla), that no item rests on, passing the writer's checks and the
    /// gates; `None` when none is left. (The passages hold neighbouring topics: five MCQs on
    /// "আলোর প্রতিফলন" asked about the sun's distance, shadows and dispersion.) With `judged`,
    /// the item judges a classmate's answer, the reason turned ([`quiz::judge`]; none where the
    /// reason has no word to turn).
    fn reason_mcq(&mut self, bundle: &Bundle, judged: bool) -> Option<Made> {
        let order = self.passages_then_chapters(bundle);
        let sections_chosen = !self.request.sections.is_empty();
        let topic = self.topic_word(bundle);
        let mut pools = quiz::cause::Pools::new(bundle);
        for (k, &(chunk, section)) in order.iter().enumerate() {
            for c in quiz::cause::askable_in(bundle, chunk) {
                // The best passage's reasons, else those naming the topic.
                if self.used.contains(&c.sentence) || k > 0 && !sections_chosen && !names(&c, &topic) {
                    continue;
                }
                let evidence = self.source(bundle, chunk, c.sentence.clone());
                let Some(item) = pools.item(&c, evidence) else { continue };
                let Some(item) = judge(item, judged, Some(quiz::cause::TURNED)) else { continue };
                let Some(all_gates) = self.passes(&item, Lang::Bn) else { continue };
                let concept = bundle.sections[section as usize].heading().to_string();
                self.reasons += 1;
                return Some(self.take_book_mcq(item, all_gates, k, c.sentence.clone(), concept, Lang::Bn, FromBook::Reason));
            }
        }
        None
    }

    async fn make_cq(&mut self, env: &mut AuthorEnv<'_>, cfg: &AuthorConfig) -> Result<Made, AuthorError> {
        let bundle = env.bundle;
        let lang = self.language;
        // On a Python course, where the request's sections have a line the build ran: the
        // book's own situation around that line ([`code_cq`]).
        if lang == Lang::En {
            if let Some(made) = self.code_cq(bundle) {
                return Ok(made);
            }
        }
        // On a Bangla course: two things the request's sections explain, noticed by two
        // learners ([`reason_cq`]).
        if lang == Lang::Bn {
            if let Some(made) = self.reason_cq(bundle) {
                return Ok(made);
            }
            if !cfg.write_bangla {
                let reason = "the request's sections give no two further reasons to build a stimulus on (the model does not write Bangla questions)".to_string();
                return Ok(Made::Missing { task: Task::Cq, reason, attempts: 0 });
            }
        }
        // The CQ after the first rests on the next passages, so two CQs tell different stories;
        // passages the teacher's items already rest on last ([`Avoid`]).
        let avoided = |c: u32| self.request.avoid.evidence.iter().any(|e| !e.is_empty() && bundle.chunk_text(c).contains(e.as_str()));
        let (mut order, rest): (Vec<u32>, Vec<u32>) = self.passages.iter().map(|p| p.0).partition(|&c| !avoided(c));
        order.extend(rest);
        let start = (self.cqs * 2) % order.len();
        let chunks: Vec<u32> = order.iter().cycle().skip(start).take(2.min(order.len())).copied().collect();
        let text: String = chunks.iter().map(|&c| bundle.chunk_text(c)).collect::<Vec<_>>().join("\n\n");
        let passage = quiz::clip(&text, if lang == Lang::Bn { cfg.cq_passage_chars_bn } else { cfg.cq_passage_chars });
        let section = bundle.section_of(chunks[0]);
        let place = section.heading_path.join(" ▸ ");
        let concept = section.heading().to_string();
        let concepts: Vec<String> = vec![concept.clone(), self.concept.clone()];
        // What the question must be about (`on_topic`): the concepts and the teacher's words.
        let topics = [concepts.clone(), vec![self.request.query.clone()]].concat();
        let schema = Schema::parse(prompt::CQ_SCHEMA).map_err(JsonError::from)?;
        let (example_user, example_reply) = prompt::cq_example(lang);
        let prefix = format!("{}_{}", prompt::CQ_PREFIX, if lang == Lang::Bn { "bn" } else { "en" });
        let mut rejected: Vec<String> = Vec::new();
        let mut relaxed: Option<(Creative, Gates, usize)> = None;
        for attempt in 0..=cfg.retries {
            let turn = prompt::cq_turn(&place, &passage, &concept, self.request.difficulty, lang, rejected.last().map(String::as_str));
            let fixed = [
                ChatMessage { role: "system", content: prompt::CQ_SYSTEM },
                ChatMessage { role: "user", content: &example_user },
                ChatMessage { role: "assistant", content: &example_reply },
            ];
            let (ids, n_fixed) = env.session.chat_ids(&fixed, &[ChatMessage { role: "user", content: &turn }])?;
            env.session.keep(&prefix, &ids[..n_fixed]).await?;
            let penalty = Sampling { repeat_penalty: quiz::repeat_penalty(lang == Lang::Bn, cfg.repeat_penalty), repeat_last_n: 256, ..Sampling::greedy() };
            let sampling = if attempt == 0 { penalty } else { Sampling { temperature: 0.7, seed: attempt as u64, ..penalty } };
            let value = match env.session.json(&ids, &schema, GenerateOptions { max_new_tokens: cfg.cq_tokens, sampling, ..Default::default() }).await {
                Ok(o) => o.value,
                Err(SessionError::Json(JsonError::Invalid { .. })) => {
                    rejected.push("it was too long; write shorter sentences".into());
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let cq = creative_from(&value, lang);
            let parts: Vec<String> = cq.parts.iter().map(|p| p.question.clone()).collect();
            let mut g = gates::cq(&cq.clue, &parts, &concepts, lang);
            // The writer's own rules beyond the six gates: a story, not the book's sentences.
            let copied = copies(&cq.clue, &passage);
            g.insert("stimulus_not_copied".into(), !copied);
            let about = on_topic(&cq.clue, &parts, &topics);
            g.insert("cq_on_topic".into(), about);
            let reason = gates::failure(&g, lang)
                .or_else(|| copied.then(|| "the stimulus copied sentences of the passage; tell a new situation in your own words".to_string()))
                .or_else(|| (!about).then(|| format!("it was not about {}; write the situation and the four questions about what the passage teaches", concepts[0])));
            match reason {
                None => {
                    self.cqs += 1;
                    let ladder = if attempt == 0 { Ladder::Strict } else { Ladder::Retry };
                    return Ok(Made::Item(Box::new(self.authored_cq(bundle, cq, g, ladder, attempt + 1, rejected, &chunks, &concept))));
                }
                Some(r) => {
                    if gates::format_and_language(&g) {
                        relaxed = Some((cq, g, attempt + 1));
                    }
                    rejected.push(r);
                }
            }
        }
        let attempts = cfg.retries + 1;
        match relaxed {
            Some((cq, g, _)) => {
                self.cqs += 1;
                Ok(Made::Item(Box::new(self.authored_cq(bundle, cq, g, Ladder::Relaxed, attempts, rejected, &chunks, &concept))))
            }
            None => Ok(Made::Missing { task: Task::Cq, reason: rejected.last().cloned().unwrap_or_default(), attempts }),
        }
    }

    /// A creative question ([`code_cq`]) on a line or program of the next passage (in turn)
    /// that no item rests on, then of the rest of the request's sections: lines a learner
    /// traces through rules first (loops and branches first for an advanced request,
    /// [`quiz::predict::level`]), its knowledge part a term the book defines in the line's
    /// section where there is one; on the request's topic ([`names_topic`]); on lines no earlier
    /// CQ of the request showed before lines of a session one did. `None` when none is left.
    fn code_cq(&mut self, bundle: &Bundle) -> Option<Made> {
        use quiz::predict;
        let order = self.passages_then_chapters(bundle);
        let n = self.passages.len();
        let levels = if self.request.difficulty == Difficulty::Advanced { [Bloom::Analyse, Bloom::Apply] } else { [Bloom::Apply, Bloom::Analyse] };
        let mut pools = quiz::define::Pools::new(bundle);
        let mut defs: Vec<(u32, quiz::define::Definition)> = Vec::new();
        for &(chunk, _) in order.iter().filter(|(_, section)| self.scope.contains(section)) {
            defs.extend(pools.askable(chunk).into_iter().filter(|d| d.lang == Lang::En && !self.used.contains(&d.sentence)).map(|d| (chunk, d)));
        }
        // On the request's topic (see `names_topic`): the teacher's words, else the concept;
        // sections the teacher chose are the topic themselves.
        let sections_chosen = !self.request.sections.is_empty();
        let topic = ask::verify::terms(if self.request.query.trim().is_empty() { &self.concept } else { &self.request.query });
        // Lines an earlier CQ did not show first, then another line of a session it showed.
        let turns = [true, false].into_iter().flat_map(|fresh| [true, false].into_iter().flat_map(move |in_passages| levels.into_iter().map(move |level| (fresh, in_passages, level))));
        for (fresh, in_passages, level) in turns {
            // Only the request's own sections: a line from elsewhere in the chapter was off the
            // topic in four of fifteen held-out CQs (docs/results/author/audit-cq-code-py5-s42.md).
            let within_scope = |(k, (_, section)): &(usize, &(u32, u32))| (*k < n) == in_passages && self.scope.contains(section);
            for (k, &(chunk, section)) in order.iter().enumerate().filter(within_scope) {
                for p in predict::within(bundle, chunk) {
                    let quote = p.quote();
                    if self.used.contains(&quote) || predict::level(p) != level {
                        continue;
                    }
                    if !sections_chosen && !names_topic(bundle, p, &topic) {
                        continue;
                    }
                    // Two CQs of a request show different lines where the sections have them
                    // (not one session twice, each asked at another of its lines).
                    let shown = format!("cq lines: {}", p.setup.first().unwrap_or(&p.code));
                    if fresh && self.used.contains(&shown) {
                        continue;
                    }
                    // A term defined in the line's own section (a term from elsewhere in the
                    // chapter was about something else in two of three tries).
                    let def = defs.iter().find(|(_, d)| d.section == section);
                    let heading = bundle.sections[section as usize].heading().to_string();
                    let concepts = vec![heading.clone(), self.concept.clone()];
                    // Its gates all pass; the story is a fixed frame around the book's code and a
                    // misreading's reason, so the model's copy and topic checks do not apply
                    // (`names_topic` did).
                    // The book's other lines, the same section's first, then the chapter's.
                    let file = &bundle.sections[section as usize].file;
                    let mut nearby: Vec<&crate::index::predict::Prediction> = bundle.predictions.iter().filter(|q| q.section == section).collect();
                    nearby.extend(bundle.predictions.iter().filter(|q| q.section != section && &bundle.sections[q.section as usize].file == file));
                    let Some((cq, g)) = code_cq::creative(p, def.map(|(_, d)| d), &heading, &concepts, &nearby, fnv(&quote)) else { continue };
                    if k < n {
                        self.next_passage = (self.next_passage + k + 1) % n;
                    }
                    self.used.push(quote.clone());
                    self.used.push(shown);
                    let mut sources = vec![self.source(bundle, chunk, quote)];
                    if let Some((def_chunk, d)) = def {
                        self.used.push(d.sentence.clone());
                        sources.push(self.source(bundle, *def_chunk, d.sentence.clone()));
                    }
                    self.cqs += 1;
                    let id = self.next_id(Task::Cq);
                    return Some(Made::Item(Box::new(Authored {
                        gates: g,
                        query: self.request.words().to_string(),
                        selected_tasks: self.request.selected_tasks(),
                        by_running: true,
                        ..Authored::new(id, Body::Cq(cq), self.chapter.clone(), heading, sources, self.request.difficulty, Lang::En)
                    })));
                }
            }
        }
        None
    }

    /// The request's most specific word (its rarest in the course: "প্রতিফলন" of "আলোর
    /// প্রতিফলন"), the concept's when the request names none; `None` when neither has one.
    fn topic_word(&self, bundle: &Bundle) -> Option<String> {
        let topic = ask::verify::terms(if self.request.query.trim().is_empty() { &self.concept } else { &self.request.query });
        topic.into_iter().max_by(|a, b| bundle.bm25.idf(a).total_cmp(&bundle.bm25.idf(b)).then_with(|| b.cmp(a)))
    }

    /// A Bangla creative question ([`reason_cq`]) whose stimulus notices two things the best
    /// passage or reasons naming the request's topic explain, reasons no item rests on,
    /// part খ a third reason of the sections or their chapter, part ক a term
    /// the sections (else the chapter) define; `None` when they give too few.
    fn reason_cq(&mut self, bundle: &Bundle) -> Option<Made> {
        use quiz::cause;
        let order = self.passages_then_chapters(bundle);
        let sections_chosen = !self.request.sections.is_empty();
        let topic = self.topic_word(bundle);
        let on_topic = |c: &cause::Cause| sections_chosen || names(c, &topic);
        let mut within: Vec<(u32, cause::Cause)> = Vec::new();
        let mut rest: Vec<(u32, cause::Cause)> = Vec::new();
        for (k, &(chunk, _)) in order.iter().enumerate() {
            for c in cause::askable_in(bundle, chunk) {
                if self.used.contains(&c.sentence) || within.iter().chain(&rest).any(|(_, d)| d.sentence == c.sentence) {
                    continue;
                }
                // The best passage's reasons and those naming the topic, wherever in the
                // passages and their chapters (the passages hold neighbouring topics too: a
                // request on reflection noticed the sun's distance and a shadow).
                if k == 0 || on_topic(&c) { within.push((chunk, c)) } else { rest.push((chunk, c)) }
            }
        }
        within.sort_by_key(|(_, c)| !on_topic(c));
        let mut seen = within.iter().filter(|(_, c)| reason_cq::noticeable(c));
        let (first, second) = (seen.next()?.clone(), seen.next()?.clone());
        // Part খ: a reason no stimulus can use (its effect is not something that happens) first,
        // then one of the chapter's, keeping the topic's noticeable ones for the next CQ.
        let other = within
            .iter()
            .filter(|(_, c)| !reason_cq::noticeable(c))
            .chain(&rest)
            .chain(&within)
            .find(|(_, c)| c.sentence != first.1.sentence && c.sentence != second.1.sentence)?
            .clone();
        let mut pools = quiz::define::Pools::new(bundle);
        let defs: Vec<(u32, quiz::define::Definition)> = order
            .iter()
            .flat_map(|&(chunk, _)| pools.askable(chunk).into_iter().map(move |d| (chunk, d)))
            .filter(|(_, d)| d.lang == Lang::Bn && !self.used.contains(&d.sentence))
            .collect();
        let def = defs.iter().find(|(_, d)| self.scope.contains(&d.section)).or(defs.first())?.clone();
        let heading = bundle.sections[first.1.section as usize].heading().to_string();
        let concepts = vec![heading.clone(), self.concept.clone()];
        let (cq, g) = reason_cq::creative(&first.1, &second.1, &other.1, &def.1, &heading, &concepts, fnv(&first.1.sentence))?;
        let mut sources = Vec::new();
        for (chunk, quote) in [(def.0, &def.1.sentence), (other.0, &other.1.sentence), (first.0, &first.1.sentence), (second.0, &second.1.sentence)] {
            self.used.push(quote.clone());
            sources.push(self.source(bundle, chunk, quote.clone()));
        }
        self.cqs += 1;
        let id = self.next_id(Task::Cq);
        Some(Made::Item(Box::new(Authored {
            gates: g,
            query: self.request.words().to_string(),
            selected_tasks: self.request.selected_tasks(),
            by_reason: true,
            ..Authored::new(id, Body::Cq(cq), self.chapter.clone(), heading, sources, self.request.difficulty, Lang::Bn)
        })))
    }

    #[allow(clippy::too_many_arguments)]
    fn authored_cq(&mut self, bundle: &Bundle, cq: Creative, g: Gates, ladder: Ladder, attempts: usize, rejected: Vec<String>, chunks: &[u32], concept: &str) -> Authored {
        // The excerpt: the passage's sentence the knowledge part rests on (the most shared words).
        let k = ask::verify::terms(&cq.parts[0].question);
        let excerpt = |c: u32| {
            let text = bundle.chunk_text(c);
            let mut best = (0usize, String::new());
            for line in text.lines() {
                for s in ask::verify::sentences(line) {
                    let n = ask::verify::terms(s).intersection(&k).count();
                    if n > best.0 || best.1.is_empty() {
                        best = (n, s.trim().to_string());
                    }
                }
            }
            best.1
        };
        let sources = chunks.iter().map(|&c| self.source(bundle, c, excerpt(c))).collect();
        let id = self.next_id(Task::Cq);
        Authored {
            gates: g,
            ladder,
            attempts,
            rejected,
            query: self.request.words().to_string(),
            selected_tasks: self.request.selected_tasks(),
            ..Authored::new(id, Body::Cq(cq), self.chapter.clone(), concept.to_string(), sources, self.request.difficulty, self.language)
        }
    }

    /// Starts from a calibration measured earlier (the host keeps it across requests).
    pub fn calibrate(&mut self, cal: Calibration) {
        self.calibration = cal;
    }

    /// The judge's calibration as measured so far.
    pub fn calibration(&self) -> &Calibration {
        &self.calibration
    }

    /// Whether an item's evidence lies in the request's scope (its sections, or their chapter).
    pub fn in_scope(&self, bundle: &Bundle, item: &Authored) -> bool {
        item.sources.iter().all(|s| self.scope.contains(&s.section) || bundle.sections[s.section as usize].heading_path.first() == Some(&self.chapter))
    }

    /// SAVER's report for an item (see [`verify`]); sets `item.verification`.
    pub async fn verify(&mut self, env: &mut AuthorEnv<'_>, item: &mut Authored, cfg: &AuthorConfig) -> Result<(), AuthorError> {
        let scope = self.in_scope(env.bundle, item);
        let request = if self.request.query.trim().is_empty() { self.concept.clone() } else { self.request.query.clone() };
        let th = cfg.thresholds_for(env.session);
        let mut venv = verify::VerifyEnv { bundle: env.bundle, encoder: env.encoder, session: env.session };
        item.verification = Some(verify::verify(&mut venv, item, &request, scope, &th, &mut self.calibration).await?);
        Ok(())
    }
}

/// Verifies an item outside its request (after the teacher edited it, or from the bank): its own
/// sections are its scope and its concept the request.
pub async fn verify_alone(env: &mut AuthorEnv<'_>, item: &mut Authored, cfg: &AuthorConfig, cal: &mut Calibration) -> Result<(), AuthorError> {
    let th = cfg.thresholds_for(env.session);
    let mut venv = verify::VerifyEnv { bundle: env.bundle, encoder: env.encoder, session: env.session };
    let request = item.concept.clone();
    item.verification = Some(verify::verify(&mut venv, item, &request, true, &th, cal).await?);
    Ok(())
}

/// Whether `c`'s sentence or section heading holds `word` (none: every reason does).
fn names(c: &quiz::cause::Cause, word: &Option<String>) -> bool {
    word.as_ref().is_none_or(|w| ask::verify::terms(&format!("{} {}", c.sentence, c.heading)).contains(w))
}

/// Whether a creative question is on its topic: its stimulus and parts name at least one content
/// word of the topics (the section's heading, the job's concept, the teacher's words), as the
/// knowledge part names what it asks about. The 1.5B answered a passage on default parameter
/// values with the worked example's physics (water's density and temperature), which shared two
/// content words with the passage but none with its topic.
fn on_topic(clue: &str, parts: &[String], topics: &[String]) -> bool {
    let want: std::collections::HashSet<String> = topics.iter().flat_map(|t| ask::verify::terms(t)).collect();
    let cq = ask::verify::terms(&std::iter::once(clue).chain(parts.iter().map(String::as_str)).collect::<Vec<_>>().join(" "));
    want.is_empty() || !cq.is_disjoint(&want)
}

/// Whether the request's `topic` (content words) names what the book's line `p` is about: its
/// section's headings below the chapter's ("Slicing", "2.1 Lists") or what its misreadings test
/// ("slicing", "list methods", [`crate::index::predict::concept`]). A word anywhere in the item
/// let lines through on an incidental word: a list's index for "for loops and range" (on
/// "count"), `pop()` for "default arguments" (on "argument") and a slice for "dictionaries"
/// (on "first"), docs/results/author/audit-cq-code-py5-s42.md.
/// The section whose heading's words (two or more, numbers aside) all occur in `request`, the
/// longest such heading first.
fn named_section(bundle: &Bundle, request: &str) -> Option<u32> {
    let said: std::collections::HashSet<String> = rules::normalise(request).split(' ').map(str::to_string).collect();
    bundle
        .sections
        .iter()
        .filter_map(|s| {
            let heading = rules::normalise(s.heading());
            let words: Vec<&str> = heading.split(' ').filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_numeric())).collect();
            (words.len() >= 2 && words.iter().all(|w| said.contains(*w))).then_some((words.len(), s.id))
        })
        .max_by_key(|&(n, id)| (n, std::cmp::Reverse(id)))
        .map(|(_, id)| id)
}

fn names_topic(bundle: &Bundle, p: &crate::index::predict::Prediction, topic: &std::collections::HashSet<String>) -> bool {
    let mut names: Vec<String> = bundle.sections[p.section as usize].heading_path.iter().skip(1).cloned().collect();
    names.extend(p.wrong.iter().flat_map(|w| w.rule.split('+')).filter_map(|r| crate::index::predict::concept(r).map(str::to_string)));
    let named = ask::verify::terms(&names.join(" "));
    !named.is_disjoint(topic)
}

/// Whether some stimulus sentence repeats a passage sentence (≥ 0.6 of its content words).
fn copies(clue: &str, passage: &str) -> bool {
    let book: Vec<std::collections::HashSet<String>> = passage.lines().flat_map(ask::verify::sentences).map(ask::verify::terms).filter(|t| t.len() >= 4).collect();
    gates::sentences(clue).iter().map(|s| ask::verify::terms(s)).filter(|t| t.len() >= 4).any(|t| {
        book.iter().any(|b| {
            let inter = t.intersection(b).count() as f64;
            inter / t.len().min(b.len()) as f64 >= 0.6
        })
    })
}

/// Labels, skills and marks of the four parts (Bangladesh's boards: 1, 2, 3, 4).
pub fn part_meta(i: usize, lang: Lang) -> (&'static str, &'static str, u32) {
    const BN: [(&str, &str, u32); 4] = [("ক", "জ্ঞানমূলক", 1), ("খ", "অনুধাবনমূলক", 2), ("গ", "প্রয়োগমূলক", 3), ("ঘ", "উচ্চতর দক্ষতা", 4)];
    const EN: [(&str, &str, u32); 4] = [("a", "knowledge", 1), ("b", "comprehension", 2), ("c", "application", 3), ("d", "higher-order", 4)];
    if lang == Lang::Bn { BN[i.min(3)] } else { EN[i.min(3)] }
}

/// The CQ as the teacher sees it: the marker and the stimulus's sentences, the four parts.
fn creative_from(v: &serde_json::Value, lang: Lang) -> Creative {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().trim().to_string();
    // Each item of the list is one sentence: one without a stop gets the language's (a small
    // model often leaves the দাঁড়ি out, which would run two sentences together).
    let stop = if lang == Lang::Bn { '।' } else { '.' };
    let story: Vec<String> = v["stimulus"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .filter(|x| !x.is_empty())
        .map(|x| if x.ends_with(['.', '!', '?', '।']) { x } else { format!("{x}{stop}") })
        .collect();
    let clue = format!("{} {}", gates::marker(lang), story.join(" "));
    let parts = ["knowledge", "comprehension", "application", "higher_order"]
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let (label, skill, marks) = part_meta(i, lang);
            Part { label: label.into(), skill: skill.into(), question: s(&v[*k]), marks, answer: String::new() }
        })
        .collect();
    Creative { headline: s(&v["headline"]), clue, parts }
}

/// Reruns the gates on an item the teacher edited (its verification must be run again).
pub fn recheck(item: &mut Authored) {
    let lang = item.language;
    item.gates = match &item.body {
        Body::Mcq(m) => {
            let mut g = gates::mcq(&m.question, &m.options, m.answer_index, lang);
            let mut opts: Vec<String> = m.options.iter().map(|o| o.trim().to_lowercase()).collect();
            opts.sort();
            opts.dedup();
            g.insert("distinct_options".into(), opts.len() == m.options.len());
            g
        }
        Body::Cq(c) => {
            let parts: Vec<String> = c.parts.iter().map(|p| p.question.clone()).collect();
            gates::cq(&c.clue, &parts, &[item.concept.clone()], lang)
        }
    };
    item.verification = None;
}

/// After a teacher's edit of a creative question: a part keeps its answer (the marking guide,
/// [`Part::answer`]) only where neither the stimulus nor that part's question changed.
pub fn drop_stale_answers(before: &Authored, after: &mut Authored) {
    let (Body::Cq(b), Body::Cq(a)) = (&before.body, &mut after.body) else { return };
    let same_story = a.clue == b.clue;
    for (i, part) in a.parts.iter_mut().enumerate() {
        if !same_story || b.parts.get(i).is_none_or(|q| q.question != part.question) {
            part.answer.clear();
        }
    }
}

/// The review's order: least supported (lowest faithfulness) first; unverified items last.
pub fn review_order(items: &mut [Authored]) {
    items.sort_by(|a, b| {
        let f = |i: &Authored| i.verification.as_ref().map_or(f64::INFINITY, |v| v.faithfulness);
        f(a).partial_cmp(&f(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
}

/// `item`, or with `judged` the item that judges a classmate's answer to it (a wrong option
/// whose reason opens with `misreading`, any where `None`, or at times its key:
/// [`quiz::judge::answer`]).
fn judge(item: quiz::Item, judged: bool, misreading: Option<&str>) -> Option<quiz::Item> {
    if judged { quiz::judge::item(&item, quiz::judge::answer(&item, misreading)?) } else { Some(item) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_teachers_sentence_gives_counts_formats_level_and_topic() {
        let r = AuthorRequest::parse("Five MCQs and one creative question on acid rain, advanced");
        assert_eq!((r.mcq, r.cq, r.difficulty, r.query.as_str()), (5, 1, Difficulty::Advanced, "acid rain"));
        let r = AuthorRequest::parse("সালোকসংশ্লেষণ নিয়ে ৩টি বহুনির্বাচনি প্রশ্ন দাও, সহজ");
        assert_eq!((r.mcq, r.cq, r.difficulty, r.query.as_str()), (3, 0, Difficulty::Beginner, "সালোকসংশ্লেষণ"));
        let r = AuthorRequest::parse("list comprehensions");
        assert_eq!((r.mcq, r.cq, r.difficulty), (5, 1, Difficulty::Intermediate), "TeachMateGPT's targets when no format is named");
        let r = AuthorRequest::parse("2 creative questions on functions in Bangla");
        assert_eq!((r.mcq, r.cq, r.lang, r.query.as_str()), (0, 2, Some(Lang::Bn), "functions"));
        assert_eq!(AuthorRequest::parse("7 multiple choice questions about loops").mcq, 7);
        // The export's `query` is the teacher's words; `selected_tasks` each format once.
        let r = AuthorRequest::parse(" Five MCQs and one creative question on acid rain ");
        assert_eq!((r.words(), r.selected_tasks()), ("Five MCQs and one creative question on acid rain", vec![Task::Mcq, Task::Cq]));
        let r = AuthorRequest { text: String::new(), ..AuthorRequest::parse("2 creative questions on functions") };
        assert_eq!((r.words(), r.selected_tasks()), ("functions", vec![Task::Cq]));
    }

    #[test]
    fn parts_carry_the_boards_labels_and_marks() {
        let v = serde_json::json!({"headline": "h", "stimulus": ["এক।", "দুই"], "knowledge": "ক?", "comprehension": "খ?", "application": "গ?", "higher_order": "ঘ?"});
        let c = creative_from(&v, Lang::Bn);
        assert_eq!(c.clue, "উদ্দীপক: এক। দুই।", "a sentence without its stop gets one");
        let labels: Vec<(&str, u32)> = c.parts.iter().map(|p| (p.label.as_str(), p.marks)).collect();
        assert_eq!(labels, [("ক", 1), ("খ", 2), ("গ", 3), ("ঘ", 4)]);
        assert_eq!(part_meta(3, Lang::En), ("d", "higher-order", 4));
        assert_eq!(option_label(1, Lang::Bn), "খ");
    }

    #[test]
    fn an_edited_part_or_story_loses_its_answer() {
        let parts = (0..4).map(|i| Part { label: "a".into(), skill: "k".into(), question: format!("Q{i}?"), marks: 1, answer: format!("A{i}") }).collect();
        let before = Authored::new("x".into(), Body::Cq(Creative { headline: String::new(), clue: "Stimulus: s.".into(), parts }), String::new(), String::new(), vec![], Difficulty::Beginner, Lang::En);
        let answers = |i: &Authored| match &i.body {
            Body::Cq(c) => c.parts.iter().map(|p| p.answer.clone()).collect::<Vec<_>>(),
            Body::Mcq(_) => vec![],
        };
        let mut after = before.clone();
        if let Body::Cq(c) = &mut after.body {
            c.parts[1].question = "Another?".into();
        }
        drop_stale_answers(&before, &mut after);
        assert_eq!(answers(&after), ["A0", "", "A2", "A3"]);
        if let Body::Cq(c) = &mut after.body {
            c.clue = "Stimulus: another story.".into();
        }
        drop_stale_answers(&before, &mut after);
        assert!(answers(&after).iter().all(String::is_empty), "a new story: no answer holds");
    }

    #[test]
    fn a_stimulus_that_copies_the_book_is_caught() {
        let p = "Green plants make glucose from carbon dioxide and water using sunlight. Oxygen is released.";
        assert!(copies("Stimulus: Green plants make glucose from carbon dioxide and water using sunlight.", p));
        assert!(!copies("Stimulus: Rina kept a potted plant in a dark cupboard for a week and its leaves turned pale.", p));
    }

    #[test]
    fn a_creative_question_on_another_topic_is_caught() {
        // The worked examples are on their concepts, in both languages.
        for (lang, concept) in [(Lang::En, "expansion of solids"), (Lang::Bn, "কঠিন পদার্থের প্রসারণ")] {
            let (_, reply) = prompt::cq_example(lang);
            let c = creative_from(&serde_json::from_str(&reply).unwrap(), lang);
            let parts: Vec<String> = c.parts.iter().map(|p| p.question.clone()).collect();
            assert!(on_topic(&c.clue, &parts, &[concept.to_string()]), "{lang:?}");
        }
        // A passage on default parameter values answered with physics names none of its topic.
        let topics = ["Parameter default values".to_string(), "default argument values functions".to_string()];
        let clue = "Stimulus: At room temperature, pure water has a specific gravity of about 1. When ice melts, its volume changes.";
        let parts = ["What happens to the volume of a liquid when heated?", "Why do some substances expand?", "Explain why hot water feels warmer.", "How might sea levels change?"].map(String::from);
        assert!(!on_topic(clue, &parts, &topics));
        let parts = ["What is a default value of a parameter?", "Why can a default be a string?", "c?", "d?"].map(String::from);
        assert!(on_topic("Stimulus: Rafi wrote a program that greets his friends.", &parts, &topics));
    }
}
