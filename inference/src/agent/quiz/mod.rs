//! The adaptive quiz (ACE-TA): Bloom-tagged multiple-choice items written from the course,
//! checked before a learner sees them, harder after a right answer and corrective after a wrong
//! one.
//!
//! 1. [`subtopics`]: the topic is searched with Ask's coverage gate (a topic the course does not
//!    cover gets its nearest sections and no items); the sections of the 25 quiz-evidence
//!    chunks near it are the candidates, and the model picks up to 5 of them under a schema
//!    whose only strings are those sections' names (it cannot name one the course lacks).
//! 2. [`Quiz::start`]: 50 chunks for the chosen subtopic, MMR keeps 25 (λ = 0.7,
//!    [`quiz_evidence`]); items are planned over them, first on passages in the subtopic's own
//!    section and the sections under it, then on the others, each on a passage whose section
//!    has been used least ([`Quiz::plan`]).
//! 3. [`Quiz::make`]: the writer (kept prefix [`prompt::WRITER_PREFIX`]: system turn and one worked
//!    example, in Bangla for a Bangla quiz) writes the item as JSON under [`prompt::ITEM_SCHEMA`] (the correct answer, its
//!    reason, three wrong options with theirs, the concepts); the key's position is spread by
//!    [`check::key_position`]. The validator runs the deterministic checks
//!    ([`check::deterministic`]), then the examiner ([`judge_options`]): the model judges, one
//!    option at a time, whether the passage supports it as the answer (label scoring, calibrated
//!    by a content-free pair), and the key must not fall behind the likeliest wrong option by
//!    more than [`min_key_gap`] — run only by a model large enough for its judgement to separate
//!    right keys from wrong ones (from 1B parameters). A failing item is written again with the
//!    failure named, at most [`QuizConfig::repairs`] times, then skipped with the reason.
//!    A recall (Remember) item, and every item of a quiz in a language the model does not write
//!    ([`QuizConfig::write_bangla`]), is instead the book's own definition turned into a
//!    question ([`define`]) when the passage has one: no model, the key right by construction;
//!    in a language the model writes, a recall item without one asks which of four of the
//!    book's claims holds, three of them turned so that they do not ([`statement`]).
//!    In such a language an Understand item or above asks instead why, for a reason the book
//!    gives ([`cause`]), which is a member of a kind the book lists ([`example`]), or how two
//!    things the book compares in a table differ ([`contrast`]), whichever the quiz has asked
//!    least; an Apply item or above (not after a wrong answer), first which of three numbered
//!    statements on those members or rows hold, the board's multiple-completion item
//!    ([`completion`]; Analyse); an Evaluate item or above, first whether a classmate's answer
//!    to a why or "respectively" item is right ([`judge`]).
//!    An Apply or Analyse item is, where the passage holds one, a line or program of the book
//!    asked back as "what does Python show?" ([`predict`]): the book's output the key, each
//!    wrong option what Python shows for a common misreading, all run while the bundle was built.
//! 4. [`Quiz::answer`]: right → the next item one Bloom level up on a fresh passage; wrong → both
//!    rationales and the passage, then one level down on the same passage and concepts. The
//!    host prepares the likelier branch ([`Branch::Right`]) while the learner reads.
//!
//! The app's worker and `index-builder quiz` drive the same calls with the same [`QuizConfig`].

pub mod cause;
pub mod check;
pub mod completion;
pub mod contrast;
pub mod define;
pub mod example;
pub mod judge;
pub mod predict;
pub mod prompt;
pub mod statement;

use crate::agent::ask::{self, AskError};
use crate::agent::route::{Lang, rules};
use crate::bundle::Bundle;
use crate::embed::SentenceEncoder;
use crate::index::outline::SectionKind;
use crate::llm::{ChatMessage, GenerateOptions, JsonError, Sampling, Schema, Session, SessionError};
use crate::retrieve::{Query, RetrievalConfig, quiz_evidence};
use check::Checks;
use serde::{Deserialize, Serialize};

/// Why a quiz step failed (a broken item is not an error: it is skipped).
#[derive(Debug, thiserror::Error)]
pub enum QuizError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Ask(#[from] AskError),
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("{0}")]
    BadInput(String),
}

/// Bloom's revised taxonomy, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bloom {
    Remember,
    Understand,
    Apply,
    Analyse,
    Evaluate,
    Create,
}

impl Bloom {
    pub const ALL: [Bloom; 6] = [Bloom::Remember, Bloom::Understand, Bloom::Apply, Bloom::Analyse, Bloom::Evaluate, Bloom::Create];

    pub fn name(self) -> &'static str {
        match self {
            Bloom::Remember => "remember",
            Bloom::Understand => "understand",
            Bloom::Apply => "apply",
            Bloom::Analyse => "analyse",
            Bloom::Evaluate => "evaluate",
            Bloom::Create => "create",
        }
    }

    pub fn parse(s: &str) -> Option<Bloom> {
        Bloom::ALL.into_iter().find(|b| b.name() == s.to_lowercase())
    }

    /// One level higher (Create stays).
    pub fn up(self) -> Bloom {
        Bloom::ALL[(self as usize + 1).min(5)]
    }

    /// One level lower (Remember stays).
    pub fn down(self) -> Bloom {
        Bloom::ALL[(self as usize).saturating_sub(1)]
    }
}

/// One choice of the subtopic menu: a section of the course.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Subtopic {
    pub section: u32,
    /// What the menu shows: the section's heading, with its chapter's when headings repeat.
    pub name: String,
    pub heading_path: Vec<String>,
}

/// What a topic gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topic {
    /// Up to 5 subtopics, the most relevant first (one when the topic is narrow).
    Covered { subtopics: Vec<Subtopic> },
    /// The course does not cover it: what to say, and the nearest sections.
    NotCovered { message: String, nearest: Vec<u32> },
}

/// A passage an item rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemEvidence {
    pub chunk: u32,
    pub section: u32,
    pub file: String,
    pub heading_path: Vec<String>,
    /// The passage's sentence the item rests on (verbatim): a quiz item's key fact, an authored
    /// item's excerpt.
    #[serde(default)]
    pub quote: String,
}

/// A multiple-choice item as a learner sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// The stem.
    pub question: String,
    /// Exactly four options.
    pub options: Vec<String>,
    /// The correct option (0–3).
    pub answer_index: usize,
    /// One sentence per option: why it is right, or why a partial learner picks it and why it
    /// is wrong.
    pub rationales: Vec<String>,
    pub bloom: Bloom,
    /// The concepts it assesses.
    pub concepts: Vec<String>,
    pub evidence: Vec<ItemEvidence>,
}

/// What the validator found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub passed: bool,
    /// Every check of the last attempt: the deterministic ones, then `key_supported` (the
    /// examiner's, when it ran).
    pub checks: Checks,
    /// Attempts made (1 + repairs).
    pub attempts: usize,
    /// The examiner's probability that the passage supports each option, last attempt.
    pub examiner: Option<Vec<f64>>,
    /// Why each failed attempt was rejected.
    pub rejected: Vec<String>,
    /// Made from one of the book's definitions ([`define`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_definition: bool,
    /// Made by running the book's own session ([`predict`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_running: bool,
    /// Made from a reason the book gives ([`cause`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_reason: bool,
    /// Made from the members of a kind the book lists ([`example`]), not written by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_example: bool,
    /// Made from a row of a table the book compares two things in ([`contrast`]), not written
    /// by the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_contrast: bool,
    /// Made from claims the book makes, three of them turned ([`statement`]), not written by
    /// the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_statement: bool,
}

/// What an item made from the book, with no model, is made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Book {
    Definition,
    Running,
    Reason,
    Example,
    Contrast,
    Statement,
}

impl Validation {
    /// An item made from the book that passed `checks` at once.
    fn from_book(checks: Checks, from: Book) -> Validation {
        Validation {
            passed: true,
            checks,
            attempts: 1,
            examiner: None,
            rejected: Vec::new(),
            by_definition: from == Book::Definition,
            by_running: from == Book::Running,
            by_reason: from == Book::Reason,
            by_example: from == Book::Example,
            by_contrast: from == Book::Contrast,
            by_statement: from == Book::Statement,
        }
    }
}

/// Which answer the next item follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    /// The first item of a quiz.
    First,
    /// After a right answer: one level up, a fresh passage.
    Right,
    /// After a wrong answer: one level down, the same passage and concepts.
    Wrong,
}

/// What the next item will be.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub branch: Branch,
    pub bloom: Bloom,
    pub chunk: u32,
    /// Concepts to reinforce (after a wrong answer).
    pub concepts: Vec<String>,
    /// The sentence to ask about again (after a wrong answer); otherwise the passage's best
    /// sentence no earlier item rests on.
    #[serde(default)]
    pub focus: Option<String>,
}

/// An item made for a plan, or why none could be.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Made {
    Item { item: Item, validation: Validation },
    /// `last`: the last attempt's item, when it parsed (never shown to a learner; for audits).
    Skipped { reason: String, attempts: usize, validation: Validation, last: Option<Item> },
}

/// One item shown and the learner's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub item: Item,
    pub validation: Validation,
    pub learner_answer: Option<usize>,
    pub correct: Option<bool>,
}

/// What a learner's answer gets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    pub correct: bool,
    pub chosen: usize,
    pub answer_index: usize,
    /// The chosen option's rationale, and the right one's (the same when right).
    pub chosen_rationale: String,
    pub right_rationale: String,
    pub evidence: Vec<ItemEvidence>,
    pub next_bloom: Bloom,
}

impl Feedback {
    /// What answering `item` with option `chosen` shows (`None`: no such option). A function of
    /// the item alone, so the page shows it at once, while the worker may be busy.
    pub fn of(item: &Item, chosen: usize) -> Option<Feedback> {
        let correct = chosen == item.answer_index;
        Some(Feedback {
            correct,
            chosen,
            answer_index: item.answer_index,
            chosen_rationale: item.rationales.get(chosen)?.clone(),
            right_rationale: item.rationales.get(item.answer_index)?.clone(),
            evidence: item.evidence.clone(),
            next_bloom: if correct { item.bloom.up() } else { item.bloom.down() },
        })
    }
}

/// Score of one Bloom level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelScore {
    pub bloom: Bloom,
    pub right: usize,
    pub asked: usize,
}

/// The quiz's settings (the app's and the CLI's defaults).
#[derive(Clone, Debug)]
pub struct QuizConfig {
    /// Subtopics offered for a broad topic.
    pub subtopics: usize,
    /// Candidate sections the model picks them from.
    pub candidates: usize,
    /// Passages items are planned over first (in MMR order; the rest of the 25 after them).
    pub pool: usize,
    /// Characters of a passage the writer reads.
    pub passage_chars: usize,
    /// Passages shorter than this are not quizzed on.
    pub min_passage_chars: usize,
    /// Most tokens of an item's JSON, in English and in Bangla.
    pub item_tokens: usize,
    pub item_tokens_bn: usize,
    /// Attempts after the first when an item fails validation.
    pub repairs: usize,
    /// Plans (passages) tried for one item before the quiz says no more can be written.
    pub plans_per_item: usize,
    /// Repetition penalty while an English item is written (1: off); see [`repeat_penalty`].
    pub repeat_penalty: f32,
    /// Whether the examiner (the model's check) runs, where the model can judge
    /// ([`min_key_gap`]).
    pub examine: bool,
    /// The examiner's threshold ([`min_key_gap`]'s by the model's size when `None`; set, the
    /// examiner runs whatever the size).
    pub min_key_gap: Option<f64>,
    /// A first quiz's level (no earlier level on the subtopic) when its first passage holds
    /// nothing of the book to run ([`Quiz::start`]).
    pub start: Bloom,
    /// Whether the model writes items for a Bangla quiz. Off: a Bangla quiz asks the book's own
    /// definitions ([`define`]) at every level, because neither Qwen2.5-Coder model wrote a
    /// usable Bangla item (docs/EVALUATION.md, "Quiz": sessions 29 and 30, with and without the
    /// repetition penalty), each failed plan costing minutes.
    pub write_bangla: bool,
}

impl QuizConfig {
    /// Whether the model writes items in `language` ("English", "Bangla").
    pub fn writes(&self, language: &str) -> bool {
        language != "Bangla" || self.write_bangla
    }
}

impl Default for QuizConfig {
    fn default() -> Self {
        QuizConfig {
            subtopics: 5,
            candidates: 8,
            pool: 12,
            passage_chars: 900,
            min_passage_chars: 150,
            item_tokens: 450,
            item_tokens_bn: 1000,
            repairs: 2,
            plans_per_item: 3,
            repeat_penalty: 1.2,
            examine: true,
            min_key_gap: None,
            start: Bloom::Understand,
            write_bangla: false,
        }
    }
}

/// What a quiz needs from its host.
pub struct QuizEnv<'a> {
    pub bundle: &'a Bundle,
    pub encoder: Option<&'a SentenceEncoder>,
    pub session: &'a mut Session,
}

/// The topic in a message such as "quiz me on loops" (the quiz words taken away).
pub fn topic_of(message: &str) -> String {
    const FILLER: &[&str] = &[
        "me", "on", "about", "a", "an", "the", "some", "please", "give", "can", "you", "could", "questions", "question", "with", "of", "for", "i",
        "want", "take", "do", "let's", "lets", "ask", "make", "quick", "short", "few", "my", "knowledge", "understanding", "হবে", "নিয়ে",
        "নিয়ে", "উপর", "ওপর", "সম্পর্কে", "আমাকে", "একটা", "একটি", "কিছু", "দাও", "করো", "নাও", "on:", "topic",
    ];
    let norm = rules::normalise(message);
    let mut text = format!(" {norm} ");
    for p in rules::QUIZ.iter().chain(rules::QUIZ_BN) {
        text = text.replace(&format!(" {p} "), " ");
        if !p.is_ascii() {
            text = text.replace(p, " ");
        }
    }
    let words: Vec<&str> = text.split_whitespace().filter(|w| !FILLER.contains(w)).collect();
    if words.is_empty() { message.trim().to_string() } else { words.join(" ") }
}

/// The subtopic menu for a topic (see the module docs).
pub async fn subtopics(env: &mut QuizEnv<'_>, topic: &str, cfg: &QuizConfig) -> Result<Topic, QuizError> {
    if let Some(why) = ask::bad_input(topic) {
        return Err(QuizError::BadInput(why));
    }
    let found = ask::search(env.bundle, env.encoder, topic, &RetrievalConfig::default()).await?;
    if found.abstained {
        let message = match rules::language(topic) {
            Lang::Bn => "এই বিষয়টি কোর্সের বইয়ে নেই, তাই এ নিয়ে কুইজ দেওয়া যাবে না। কাছাকাছি অংশগুলো দেখো:".to_string(),
            _ => "The course book does not cover this topic, so there is no quiz on it. The nearest sections are:".to_string(),
        };
        return Ok(Topic::NotCovered { message, nearest: found.nearest_sections });
    }
    // Sections of the retrieved evidence first (the gate's own order), then of the wider set.
    let wide = evidence_chunks(env, topic).await?;
    let mut sections: Vec<u32> = Vec::new();
    for s in found.evidence.iter().map(|e| e.section).chain(wide.iter().map(|&c| env.bundle.chunks[c as usize].section)) {
        if !sections.contains(&s) && quizzable(env.bundle, s, cfg) {
            sections.push(s);
        }
    }
    sections.truncate(cfg.candidates);
    let names = menu_names(env.bundle, &sections);
    let subtopic = |i: usize| Subtopic { section: sections[i], name: names[i].clone(), heading_path: env.bundle.sections[sections[i] as usize].heading_path.clone() };
    if sections.len() <= cfg.subtopics {
        return Ok(Topic::Covered { subtopics: (0..sections.len()).map(subtopic).collect() });
    }
    // The model picks; the schema's strings are the candidates' names, so it cannot invent one.
    let n = cfg.subtopics;
    let schema = Schema::parse(&prompt::pick_schema(&names, n)).map_err(JsonError::from)?;
    let turn = prompt::pick_turn(topic, &names, n);
    let messages = [ChatMessage { role: "system", content: prompt::PICK_SYSTEM }, ChatMessage { role: "user", content: &turn }];
    let (ids, _) = env.session.chat_ids(&messages, &[])?;
    let out = env.session.json(&ids, &schema, GenerateOptions { max_new_tokens: 40 * n + 20, ..Default::default() }).await?;
    let mut picked: Vec<usize> = Vec::new();
    for v in out.value["subtopics"].as_array().into_iter().flatten() {
        if let Some(i) = v.as_str().and_then(|s| names.iter().position(|n| n == s)) {
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
    }
    // A repeated pick leaves room: fill it in retrieval's order; show them in that order too.
    for i in 0..names.len() {
        if picked.len() >= n {
            break;
        }
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    picked.sort();
    Ok(Topic::Covered { subtopics: picked.into_iter().map(subtopic).collect() })
}

/// Whether a section can be quizzed on: not an exercise list, and holding a passage long enough.
fn quizzable(bundle: &Bundle, section: u32, cfg: &QuizConfig) -> bool {
    let s = &bundle.sections[section as usize];
    s.kind != SectionKind::Exercise && bundle.chunks.iter().any(|c| c.section == section && bundle.chunk_text(c.id).chars().count() >= cfg.min_passage_chars)
}

/// Menu names: each section's heading, with its parent's when two candidates share a heading.
fn menu_names(bundle: &Bundle, sections: &[u32]) -> Vec<String> {
    let heading = |s: u32| bundle.sections[s as usize].heading().to_string();
    sections
        .iter()
        .map(|&s| {
            let h = heading(s);
            let path = &bundle.sections[s as usize].heading_path;
            if sections.iter().filter(|&&o| heading(o) == h).count() > 1 && path.len() > 1 {
                format!("{} ▸ {h}", path[path.len() - 2])
            } else {
                h
            }
        })
        .collect()
}

/// The 25 quiz-evidence chunks for a query, in MMR order.
async fn evidence_chunks(env: &QuizEnv<'_>, query: &str) -> Result<Vec<u32>, QuizError> {
    let vector = ask::query_vector(env.encoder, query).await?;
    Ok(Query::with_encoder(query, vector.as_deref(), env.encoder, |q| quiz_evidence(env.bundle, q)).into_iter().map(|e| e.chunk).collect())
}

/// One quiz on one subtopic: its evidence, the items shown and the learner's answers. Serde, so
/// a worker or the app can keep it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quiz {
    pub topic: String,
    pub subtopic: Subtopic,
    /// The language items are written in ("English", "Bangla").
    pub language: String,
    /// The 25 MMR chunks, in MMR order.
    pub evidence: Vec<u32>,
    /// Of those, the ones long enough to write an item on: (chunk, section); the subtopic's own
    /// first ([`Quiz::inside`]), each part in MMR order.
    pub passages: Vec<(u32, u32)>,
    /// How many passages, at the front of `passages`, lie in the subtopic's section or a section
    /// under it: items are planned on them first (0 in a quiz saved before this was kept).
    #[serde(default)]
    pub inside: usize,
    /// In a quiz the model does not write: how many definitions and reasons each passage can
    /// be asked about ([`define::Pools::askable`], [`cause::askable_in`]); such a passage stays
    /// fresh until each has been.
    #[serde(default)]
    pub defined: Vec<(u32, usize)>,
    /// Passages holding a line or program of the book that an item can ask about, with the
    /// item's level ([`predict::within`], [`predict::levels`]: what it shows at Apply or
    /// Analyse, why at Understand, a classmate's misreading judged at Evaluate): an item is
    /// planned first on a passage that has one at its level.
    #[serde(default)]
    pub runnable: Vec<(u32, Bloom)>,
    /// In a quiz the model does not write: passages holding a list of a kind's members or a
    /// comparison table of three rows to ask, the stuff of a multiple-completion item
    /// ([`completion`]): an item above Understand is planned first on one of them.
    #[serde(default)]
    pub statements: Vec<u32>,
    pub rounds: Vec<Round>,
    /// Plans that gave no valid item, and why.
    pub skipped: Vec<(Plan, String)>,
    /// The level of the first item.
    pub start: Bloom,
    /// The examiner's calibration: its margin for a content-free pair, measured once.
    #[serde(default)]
    bias: Option<f64>,
    /// Questions the learner answered right in an earlier quiz on this subtopic ([`Quiz::know`]):
    /// the book's items ask other lines and definitions first, so a retake is not the same quiz.
    #[serde(default)]
    pub known: Vec<String>,
    /// Of [`Quiz::runnable`], the passages and levels whose every line's item is known: planned
    /// after the others.
    #[serde(default)]
    stale: Vec<(u32, Bloom)>,
}

/// The book's item on line `p` of passage `chunk` at `bloom`: what it shows (Apply, Analyse),
/// why (Understand), or whether a classmate's misreading is right (Evaluate); `None` where the
/// line gives none at that level.
fn line_item(bundle: &Bundle, p: &crate::index::predict::Prediction, chunk: u32, bloom: Bloom) -> Option<Item> {
    let section = bundle.section_of(chunk);
    let evidence = ItemEvidence { chunk, section: section.id, file: section.file.clone(), heading_path: section.heading_path.clone(), quote: p.quote() };
    match bloom {
        Bloom::Understand => predict::why_item(p, None, &predict::chapter_rules(bundle, p), evidence),
        Bloom::Evaluate => predict::judge_item(p, &predict::chapter_rules(bundle, p), evidence),
        level => (p.is_multiple_choice() && predict::level(p) == level).then(|| predict::item(p, evidence)),
    }
}

/// What a course's book gives for one kind of item made from it (definitions, reasons, lists
/// of members), for the wrong options: each chapter's read once, when first needed, and the
/// whole course's only when a chapter gives too few ([`define::Pools`], [`cause::Pools`],
/// [`example::Pools`]).
pub struct Pools<'b, T> {
    bundle: &'b Bundle,
    /// What `files` give (all files when empty).
    read: fn(&Bundle, &[&str]) -> Vec<T>,
    chapters: std::collections::HashMap<&'b str, Vec<T>>,
    course: Option<Vec<T>>,
}

impl<'b, T> Pools<'b, T> {
    fn with(bundle: &'b Bundle, read: fn(&Bundle, &[&str]) -> Vec<T>) -> Self {
        Pools { bundle, read, chapters: Default::default(), course: None }
    }

    /// What the chapter of section `section` gives.
    fn chapter(&mut self, section: u32) -> &[T] {
        let (bundle, read) = (self.bundle, self.read);
        let file = bundle.sections[section as usize].file.as_str();
        self.chapters.entry(file).or_insert_with(|| read(bundle, &[file]))
    }

    /// `make` on what the chapter of section `section` gives, else on the whole course's.
    fn chapter_then_course<R>(&mut self, section: u32, make: impl Fn(&[T]) -> Option<R>) -> Option<R> {
        if let Some(r) = make(self.chapter(section)) {
            return Some(r);
        }
        let (bundle, read) = (self.bundle, self.read);
        make(self.course.get_or_insert_with(|| read(bundle, &[])))
    }
}

/// The evidence of an item resting on `quote` of chunk `chunk`.
fn source(bundle: &Bundle, chunk: u32, quote: String) -> ItemEvidence {
    let section = bundle.section_of(chunk);
    ItemEvidence { chunk, section: section.id, file: section.file.clone(), heading_path: section.heading_path.clone(), quote }
}

/// One of the book's item makers ([`Quiz::reason_item`], [`Quiz::example_item`], …).
/// Items from one section before a fresh passage of another comes first, whatever it holds
/// ([`Quiz::fresh`]).
const SECTION_ITEMS: usize = 2;

/// Whether a shown item is of one kind ([`Validation::by_reason`], …).
type Shown = fn(&Validation) -> bool;
type Maker = fn(&Quiz, &Bundle, &Plan, &[&str], &[String]) -> Option<Made>;

impl Quiz {
    /// A quiz on `subtopic` (of the learner's `topic`), starting at `start`: the learner's last
    /// level on this subtopic. Without one, a quiz whose first passage holds a line of the book
    /// to run starts with it ([`Quiz::opening`]: an item made while the bundle was built, shown
    /// at once, at Apply or Analyse, where ACE-TA's items begin), otherwise at
    /// [`QuizConfig::start`].
    pub async fn start(env: &QuizEnv<'_>, topic: &str, subtopic: Subtopic, start: Option<Bloom>, cfg: &QuizConfig) -> Result<Quiz, QuizError> {
        let query = format!("{} {}", subtopic.heading_path.join(" "), topic);
        let evidence = evidence_chunks(env, &query).await?;
        let (mut passages, outside): (Vec<(u32, u32)>, Vec<(u32, u32)>) = evidence
            .iter()
            .map(|&c| (c, env.bundle.chunks[c as usize].section))
            .filter(|&(c, _)| env.bundle.chunk_text(c).chars().count() >= cfg.min_passage_chars && env.bundle.section_of(c).kind != SectionKind::Exercise)
            .partition(|&(_, s)| env.bundle.section_within(s, subtopic.section));
        let bengali = env.bundle.header.course.lang.as_deref() == Some("bn") || rules::language(&format!("{topic} {}", subtopic.name)) == Lang::Bn;
        let language = if bengali { "Bangla" } else { "English" }.to_string();
        let mut outside = outside;
        let mut defined = Vec::new();
        if !cfg.writes(&language) {
            // Only passages that define a term, give a reason, list a kind's members or compare
            // two things in a table, where no earlier passage does, can give an item (a section's chunk and a chunk inside it hold the same sentences).
            let mut pools = define::Pools::new(env.bundle);
            let mut lists = example::Pools::new(env.bundle);
            let mut seen: Vec<String> = Vec::new();
            let mut defines = |&(c, _): &(u32, u32)| {
                let sentences = pools
                    .askable(c)
                    .into_iter()
                    .map(|d| d.sentence)
                    .chain(cause::askable_in(env.bundle, c).into_iter().map(|r| r.sentence))
                    .chain(lists.askable(c).into_iter().map(|e| e.sentence))
                    .chain(contrast::askable_in(env.bundle, c).into_iter().flat_map(|t| (0..t.rows.len()).map(|r| contrast::quote(&t, r)).collect::<Vec<_>>()));
                let fresh: Vec<String> = sentences.filter(|s| !seen.contains(s)).collect();
                let n = fresh.len();
                seen.extend(fresh);
                if n > 0 {
                    defined.push((c, n));
                }
                n > 0
            };
            passages.retain(&mut defines);
            outside.retain(&mut defines);
        }
        let inside = passages.len();
        passages.extend(outside);
        let mut runnable: Vec<(u32, Bloom)> =
            passages.iter().flat_map(|&(c, _)| predict::within(env.bundle, c).into_iter().flat_map(move |p| predict::levels(env.bundle, p).into_iter().map(move |b| (c, b)))).collect();
        runnable.sort_unstable();
        runnable.dedup();
        let statements = if cfg.writes(&language) {
            Vec::new()
        } else {
            let mut lists = example::Pools::new(env.bundle);
            passages.iter().map(|&(c, _)| c).filter(|&c| !lists.askable(c).is_empty() || contrast::askable_in(env.bundle, c).iter().any(|t| completion::table_quote(t, 0).is_some())).collect()
        };
        let mut quiz =
            Quiz { topic: topic.to_string(), subtopic, language, evidence, passages, inside, defined, runnable, statements, rounds: Vec::new(), skipped: Vec::new(), start: cfg.start, bias: None, known: Vec::new(), stale: Vec::new() };
        quiz.start = start.unwrap_or_else(|| quiz.opening(cfg));
        Ok(quiz)
    }

    /// A first quiz's level: Apply, or else Analyse, when the passage an item at that level
    /// would rest on holds a line or program of the book to run at it; else
    /// [`QuizConfig::start`].
    fn opening(&self, cfg: &QuizConfig) -> Bloom {
        let runs = |bloom: Bloom| self.fresh(cfg, bloom).is_some_and(|c| self.runnable.contains(&(c, bloom)));
        [Bloom::Apply, Bloom::Analyse].into_iter().find(|&b| runs(b)).unwrap_or(cfg.start)
    }

    /// The item being answered (the last shown).
    pub fn current(&self) -> Option<&Round> {
        self.rounds.last()
    }

    /// The next item's plan after `branch`; `None` when every passage has been used.
    pub fn plan(&self, branch: Branch, cfg: &QuizConfig) -> Option<Plan> {
        let current = self.current().map(|r| &r.item);
        match (branch, current) {
            // After a wrong answer to a run item the easier item explains the passage's prose (the
            // model handed the session as its key fact copied the stem without the code).
            (Branch::Wrong, Some(item)) => Some(Plan {
                branch,
                bloom: item.bloom.down(),
                chunk: item.evidence[0].chunk,
                concepts: item.concepts.clone(),
                focus: Some(item.evidence[0].quote.clone()).filter(|q| !q.is_empty() && !predict::asks(&item.question)),
            }),
            (Branch::Right, Some(item)) => self.fresh(cfg, item.bloom.up()).map(|chunk| Plan { branch, bloom: item.bloom.up(), chunk, concepts: Vec::new(), focus: None }),
            _ => self.fresh(cfg, self.next_level()).map(|chunk| Plan { branch: Branch::First, bloom: self.next_level(), chunk, concepts: Vec::new(), focus: None }),
        }
    }

    /// Another plan like `skipped` (its level, branch and concepts) on a fresh passage, when
    /// `skipped` gave no valid item; `None` when every passage has been used. Its key sentence
    /// is the new passage's own (a wrong answer's plan named the old passage's).
    pub fn replan(&self, skipped: &Plan, cfg: &QuizConfig) -> Option<Plan> {
        let mut used = self.clone();
        used.skipped.push((skipped.clone(), String::new()));
        used.fresh(cfg, skipped.bloom).map(|chunk| Plan { chunk, focus: None, ..skipped.clone() })
    }

    /// A retake: `known` are the questions the learner answered right last time
    /// ([`Quiz::known`]); passages whose lines at a level all ask one of them come last.
    pub fn know(&mut self, bundle: &Bundle, known: Vec<String>) {
        self.known = known;
        if self.known.is_empty() {
            self.stale.clear();
            return;
        }
        let known_at = |&(c, bloom): &(u32, Bloom)| {
            let items: Vec<Item> = predict::within(bundle, c).into_iter().filter_map(|p| line_item(bundle, p, c, bloom)).collect();
            !items.is_empty() && items.iter().all(|i| self.known.contains(&i.question))
        };
        self.stale = self.runnable.iter().filter(|r| known_at(r)).copied().collect();
    }

    /// The level after the last answer (the start before any).
    fn next_level(&self) -> Bloom {
        match self.rounds.iter().rev().find(|r| r.correct.is_some()) {
            Some(r) if r.correct == Some(true) => r.item.bloom.up(),
            Some(r) => r.item.bloom.down(),
            None => self.start,
        }
    }

    /// An unused passage whose section has the fewest items so far (MMR order among equals):
    /// from the subtopic's own sections first, then the first `cfg.pool` passages, then the rest;
    /// within each of those a passage with a line of the book to run at the item's level
    /// ([`Quiz::runnable`]) first.
    fn fresh(&self, cfg: &QuizConfig, bloom: Bloom) -> Option<u32> {
        // Where a passage has no line at the level, or only lines the learner answered right
        // last time, it comes after those that have one; above Understand, in a quiz the model
        // does not write, one with no statements to ask after those that have some.
        let other = |c: u32| (!self.runnable.contains(&(c, bloom)) || self.stale.contains(&(c, bloom))) && !(bloom >= Bloom::Apply && self.statements.contains(&c));
        // A passage is used once an item rests on it or it gave none; one with several
        // definitions to ask ([`Quiz::defined`]), once each has been asked.
        let used = |c: u32| {
            let asked = self.rounds.iter().filter(|r| r.item.evidence[0].chunk == c).count();
            self.skipped.iter().any(|(p, _)| p.chunk == c) || asked >= self.defined.iter().find(|d| d.0 == c).map_or(1, |d| d.1)
        };
        let sections: Vec<u32> = self.rounds.iter().map(|r| r.item.evidence[0].section).collect();
        // A section that has given two items yields to any other first: one passage with many
        // rows to ask (a table of three things) would otherwise hold the whole quiz.
        let pick = |pool: &[(u32, u32)]| {
            pool.iter()
                .enumerate()
                .filter(|(_, (c, _))| !used(*c))
                .min_by_key(|&(i, &(c, s))| {
                    let asked = sections.iter().filter(|&&t| t == s).count();
                    (asked >= SECTION_ITEMS, other(c), asked, i)
                })
                .map(|(_, &(c, _))| c)
        };
        let own = &self.passages[..self.inside.min(self.passages.len())];
        let head = &self.passages[..self.passages.len().min(cfg.pool)];
        pick(own).or_else(|| pick(head)).or_else(|| pick(&self.passages))
    }

    /// Writes and validates the item `plan` asks for (see the module docs).
    pub async fn make(&mut self, env: &mut QuizEnv<'_>, plan: &Plan, cfg: &QuizConfig) -> Result<Made, QuizError> {
        let bundle = env.bundle;
        let section = &bundle.sections[bundle.chunks[plan.chunk as usize].section as usize];
        let passage = clip(bundle.chunk_text(plan.chunk), cfg.passage_chars);
        let place = section.heading_path.join(" ▸ ");
        let used: Vec<&str> = self.rounds.iter().map(|r| r.item.evidence[0].quote.as_str()).collect();
        let earlier: Vec<String> = self.rounds.iter().map(|r| r.item.question.clone()).collect();
        // An Apply or Analyse item: a line of the book's session, when the passage has one no
        // item has asked yet.
        if matches!(plan.bloom, Bloom::Apply | Bloom::Analyse) {
            if let Some(made) = self.code_item(bundle, plan, &earlier) {
                return Ok(made);
            }
        }
        // After a wrong answer to a "what does Python show?" item: why Python shows it, the
        // rule the learner's misreading breaks against misreadings stated as rules.
        if plan.branch == Branch::Wrong && plan.bloom <= Bloom::Apply {
            if let Some(made) = self.why_item(bundle) {
                return Ok(made);
            }
        }
        // An Understand item: why Python shows what it shows for a line of the passage; an
        // Evaluate one: is a classmate's misreading of it right?
        if matches!(plan.bloom, Bloom::Understand | Bloom::Evaluate) {
            if let Some(made) = self.code_item(bundle, plan, &earlier) {
                return Ok(made);
            }
        }
        // A recall item, or any item in a language the model does not write: the book's own
        // definition, when the passage has one no item has asked yet (in a language the model
        // writes, else which of four of the book's claims holds, three of them turned:
        // [`statement`]); in a language it does not write an Understand item or above asks
        // first why, for a reason the passage gives.
        let writes = cfg.writes(&self.language);
        if plan.bloom == Bloom::Remember || !writes {
            let made = if writes {
                self.definition_item(bundle, plan, &used, &earlier).or_else(|| self.statement_item(bundle, plan, &used, &earlier))
            } else if plan.bloom >= Bloom::Understand {
                let harder = plan.bloom >= Bloom::Analyse || plan.bloom == Bloom::Apply && plan.branch != Branch::Wrong;
                let least = |makers: &[(Shown, Maker)]| self.least_shown_first(makers, bundle, plan, &used, &earlier);
                // Evaluate and up: whether a classmate's answer to a why or "respectively" item
                // is right; above Understand (not on the way down after a wrong answer): which of
                // three statements hold, on the members of a kind or the rows of a table; then
                // why, which is a member of a kind, or how two things differ — each the kind the
                // quiz has asked least first.
                (plan.bloom >= Bloom::Evaluate)
                    .then(|| least(&[(|v| v.by_reason, Self::reason_judge_item), (|v| v.by_contrast, Self::contrast_judge_item)]))
                    .flatten()
                    .or_else(|| harder.then(|| least(&[(|v| v.by_example, Self::list_completion_item), (|v| v.by_contrast, Self::table_completion_item)])).flatten())
                    .or_else(|| least(&[(|v| v.by_reason, Self::reason_item), (|v| v.by_example, Self::example_item), (|v| v.by_contrast, Self::contrast_item)]))
                    .or_else(|| self.definition_item(bundle, plan, &used, &earlier))
            } else {
                self.definition_item(bundle, plan, &used, &earlier)
                    .or_else(|| self.example_item(bundle, plan, &used, &earlier))
                    .or_else(|| self.reason_item(bundle, plan, &used, &earlier))
                    .or_else(|| self.contrast_item(bundle, plan, &used, &earlier))
            };
            if let Some(made) = made {
                return Ok(made);
            }
            if !writes {
                return Ok(Made::Skipped {
                    reason: "the passage defines no term, gives no reason, lists no kind's members and compares nothing that has not been asked".into(),
                    attempts: 0,
                    validation: Validation { passed: false, checks: Checks::new(), attempts: 0, examiner: None, rejected: Vec::new(), by_definition: true, ..Default::default() },
                    last: None,
                });
            }
        }
        let Some(focus) = plan.focus.clone().or_else(|| key_fact(&passage, &used)) else {
            return Ok(Made::Skipped {
                reason: "the passage has no sentence to ask about".into(),
                attempts: 0,
                validation: Validation { passed: false, checks: Checks::new(), attempts: 0, examiner: None, rejected: Vec::new(), ..Default::default() },
                last: None,
            });
        };
        let evidence = vec![ItemEvidence { chunk: plan.chunk, section: section.id, file: section.file.clone(), heading_path: section.heading_path.clone(), quote: focus.clone() }];
        let asked: Vec<String> = self.rounds.iter().filter(|r| r.item.evidence[0].chunk == plan.chunk).map(|r| r.item.question.clone()).collect();
        let spec = ItemSpec {
            place: &place,
            passage: &passage,
            focus: &focus,
            bloom: plan.bloom,
            task: prompt::level_task(plan.bloom),
            language: &self.language,
            concepts: &plan.concepts,
            asked: &asked,
            earlier: &earlier,
            evidence,
        };
        write_item(env.session, &spec, cfg, &mut self.bias).await
    }

    /// The first item `makers` make, those of the kind the quiz has shown least first (in
    /// their order among equals).
    fn least_shown_first(&self, makers: &[(Shown, Maker)], bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let shown = |f: Shown| self.rounds.iter().filter(|r| f(&r.validation)).count();
        let mut order: Vec<&(Shown, Maker)> = makers.iter().collect();
        order.sort_by_key(|(f, _)| shown(*f));
        order.iter().find_map(|(_, make)| make(self, bundle, plan, used, earlier))
    }

    /// An item from a definition in `plan`'s passage that no earlier item rests on (the plan's
    /// own sentence first, after a wrong answer), with wrong options from the terms its chapter
    /// defines (the whole course's when the chapter has too few); checked as a written item is.
    fn definition_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let mut pools = define::Pools::new(bundle);
        let mut defs: Vec<define::Definition> = pools.askable(plan.chunk).into_iter().filter(|d| !used.contains(&d.sentence.as_str())).collect();
        defs.sort_by_key(|d| plan.focus.as_deref() != Some(d.sentence.as_str()));
        let items = defs.into_iter().filter_map(|d| Some((pools.item(&d, source(bundle, plan.chunk, d.sentence.clone()))?, d.lang == Lang::Bn)));
        self.first_unknown(items, earlier, Book::Definition)
    }

    /// A "which of these statements is true?" item on a claim of `plan`'s passage that no
    /// earlier item rests on (the plan's own sentence first), three claims of its chapter,
    /// nearest first, turned or swapped as the wrong options ([`statement::items`]); checked as
    /// a written item is.
    fn statement_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let chunk = plan.chunk;
        let section = bundle.chunks[chunk as usize].section;
        // No wrong option the learner has been shown in this quiz already.
        let shown: Vec<&str> = self.rounds.iter().flat_map(|r| r.item.options.iter().map(String::as_str)).collect();
        let items = statement::items(bundle, section, bundle.chunk_text(chunk), plan.focus.as_deref(), used, &shown, move |quote| source(bundle, chunk, quote)).map(|item| (item, false));
        self.first_unknown(items, earlier, Book::Statement)
    }

    /// A "why" item on a reason `plan`'s passage gives that no earlier item rests on (the
    /// plan's own sentence first, after a wrong answer), with wrong options from the reasons
    /// its chapter gives (the whole course's when the chapter has too few); checked as a
    /// written item is.
    fn reason_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let items = Self::reason_items(bundle, plan, used).map(|item| (item, true));
        self.first_unknown(items, earlier, Book::Reason)
    }

    /// Whether a classmate's answer to a why item ([`Quiz::reason_item`]'s) is right: the
    /// reason turned, or at times the book's ([`judge::answer`]; none where the reason has no
    /// word to turn).
    fn reason_judge_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let items = Self::reason_items(bundle, plan, used).filter_map(|base| Some((judge::item(&base, judge::answer(&base, Some(cause::TURNED))?)?, true)));
        self.first_unknown(items, earlier, Book::Reason)
    }

    /// The why items on the reasons `plan`'s passage gives that no earlier item rests on (the
    /// plan's own sentence first, after a wrong answer).
    fn reason_items<'a>(bundle: &'a Bundle, plan: &Plan, used: &[&str]) -> impl Iterator<Item = Item> + 'a {
        let mut reasons: Vec<cause::Cause> = cause::askable_in(bundle, plan.chunk).into_iter().filter(|c| !used.contains(&c.sentence.as_str())).collect();
        reasons.sort_by_key(|c| plan.focus.as_deref() != Some(c.sentence.as_str()));
        let mut pools = cause::Pools::new(bundle);
        let chunk = plan.chunk;
        reasons.into_iter().filter_map(move |c| pools.item(&c, source(bundle, chunk, c.sentence.clone())))
    }

    /// A "which is a member of this kind?" item on a list of members `plan`'s passage gives
    /// that no earlier item rests on (the plan's own sentence first, after a wrong answer), with
    /// wrong options the members its chapter lists for other kinds (the whole course's when the
    /// chapter has too few); checked as a written item is.
    fn example_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let items = Self::member_items(bundle, plan, used, example::Pools::item).map(|item| (item, true));
        self.first_unknown(items, earlier, Book::Example)
    }

    /// The items `make` makes on the lists of members `plan`'s passage gives that no earlier
    /// item rests on (the plan's own sentence first, after a wrong answer).
    fn member_items<'a>(bundle: &'a Bundle, plan: &Plan, used: &[&str], make: fn(&mut example::Pools<'a>, &example::Examples, ItemEvidence) -> Option<Item>) -> impl Iterator<Item = Item> + 'a {
        let mut pools = example::Pools::new(bundle);
        let mut lists: Vec<example::Examples> = pools.askable(plan.chunk).into_iter().filter(|e| !used.contains(&e.sentence.as_str())).collect();
        lists.sort_by_key(|e| plan.focus.as_deref() != Some(e.sentence.as_str()));
        let chunk = plan.chunk;
        lists.into_iter().filter_map(move |e| make(&mut pools, &e, source(bundle, chunk, e.sentence.clone())))
    }

    /// A "how do these two differ?" item on a row of a comparison table in `plan`'s passage
    /// that no earlier item rests on (the plan's own row first, after a wrong answer); checked
    /// as a written item is.
    fn contrast_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let items = Self::contrast_items(bundle, plan, used).map(|item| (item, true));
        self.first_unknown(items, earlier, Book::Contrast)
    }

    /// Whether a classmate's answer to a "respectively" item ([`Quiz::contrast_item`]'s) is
    /// right: one of its pairings ([`judge::answer`]).
    fn contrast_judge_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let items = Self::contrast_items(bundle, plan, used).filter_map(|base| Some((judge::item(&base, judge::answer(&base, None)?)?, true)));
        self.first_unknown(items, earlier, Book::Contrast)
    }

    /// The "respectively" items on the rows of the comparison tables in `plan`'s passage that
    /// no earlier item rests on (the plan's own row first, after a wrong answer).
    fn contrast_items<'a>(bundle: &'a Bundle, plan: &Plan, used: &[&str]) -> impl Iterator<Item = Item> + 'a {
        let mut rows: Vec<(contrast::Contrast, usize, String)> =
            contrast::askable_in(bundle, plan.chunk).into_iter().flat_map(|t| (0..t.rows.len()).map(move |r| (t.clone(), r, contrast::quote(&t, r)))).filter(|(_, _, q)| !used.contains(&q.as_str())).collect();
        rows.sort_by_key(|(_, _, q)| plan.focus.as_deref() != Some(q.as_str()));
        let chunk = plan.chunk;
        rows.into_iter().filter_map(move |(t, r, quote)| contrast::item(&t, r, source(bundle, chunk, quote)))
    }

    /// A "which of these hold?" item ([`completion`]) on a list of members `plan`'s passage
    /// gives that no earlier item rests on (the plan's own sentence first), the statement that
    /// does not hold a member its chapter lists for another kind (the whole course's when the
    /// chapter has none); checked as a written item is.
    fn list_completion_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let items = Self::member_items(bundle, plan, used, example::Pools::completion).map(|item| (item, true));
        self.first_unknown(items, earlier, Book::Example)
    }

    /// A "which of these hold?" item ([`completion`]) on one of the two things a comparison
    /// table in `plan`'s passage sets side by side, that no earlier item rests on; checked as a
    /// written item is.
    fn table_completion_item(&self, bundle: &Bundle, plan: &Plan, used: &[&str], earlier: &[String]) -> Option<Made> {
        let sides = contrast::askable_in(bundle, plan.chunk).into_iter().flat_map(|t| (0..2).filter_map(move |side| Some((completion::table_quote(&t, side)?, t.clone(), side))));
        let items = sides.filter(|(q, _, _)| !used.contains(&q.as_str())).filter_map(|(quote, t, side)| Some((completion::from_table(&t, side, source(bundle, plan.chunk, quote))?, true)));
        self.first_unknown(items, earlier, Book::Contrast)
    }

    /// Of items made from the book (each with whether it is Bangla), in turn, the first that
    /// passes the deterministic checks and that the learner did not answer right before
    /// ([`Quiz::know`]); else the first that passes.
    fn first_unknown(&self, items: impl Iterator<Item = (Item, bool)>, earlier: &[String], from: Book) -> Option<Made> {
        let earlier: Vec<&str> = earlier.iter().map(String::as_str).collect();
        let mut again = None;
        for (item, bangla) in items {
            let (checks, reason) = check::deterministic(&item, &earlier, bangla);
            if reason.is_none() {
                let made = Made::Item { item, validation: Validation::from_book(checks, from) };
                if !self.is_known(&made) {
                    return Some(made);
                }
                again = again.or(Some(made));
            }
        }
        again
    }

    /// An item on a line of `plan`'s passage that no earlier item rests on, at the plan's
    /// level: what Python shows (Apply, Analyse: [`predict::level`]; a harder one after a wrong
    /// answer would undo the step down), why (Understand: [`predict::why_item`] for the
    /// commonest misreading), or whether a classmate's misreading is right (Evaluate:
    /// [`predict::judge_item`]); checked as a written item is.
    fn code_item(&self, bundle: &Bundle, plan: &Plan, earlier: &[String]) -> Option<Made> {
        let earlier: Vec<&str> = earlier.iter().map(String::as_str).collect();
        let mut again = None;
        for p in predict::within(bundle, plan.chunk) {
            // One item per line: a "why" stem shows the output the other asks for.
            let quote = p.quote();
            if self.rounds.iter().any(|r| r.item.evidence[0].quote == quote) {
                continue;
            }
            let Some(item) = line_item(bundle, p, plan.chunk, plan.bloom).filter(|i| !earlier.contains(&i.question.as_str())) else { continue };
            // Stems differ in their code, which the word-overlap repeat check does not read
            // (`word[0:2]` and `word[-2]` share every word): only the same stem is a repeat.
            let (checks, reason) = check::deterministic(&item, &[], false);
            if reason.is_none() {
                let made = Made::Item { item, validation: Validation::from_book(checks, Book::Running) };
                if !self.is_known(&made) {
                    return Some(made);
                }
                again = again.or(Some(made));
            }
        }
        again
    }

    /// Whether the learner answered `made`'s question right in an earlier quiz on this subtopic
    /// ([`Quiz::known`]): such an item is asked only when the passage has no other.
    fn is_known(&self, made: &Made) -> bool {
        matches!(made, Made::Item { item, .. } if self.known.contains(&item.question))
    }

    /// After a wrong answer to the current item, when it asked what Python shows: the
    /// Understand item asking why ([`predict::why_item`]; wrong options also from the misreadings
    /// of the chapter's other questions); checked as a written item is. Made before the learner
    /// answers, it explains the item's commonest misreading; a host that prepares items ahead
    /// makes it again once the answer is known (at once: no model).
    pub fn why_item(&self, bundle: &Bundle) -> Option<Made> {
        let round = self.current()?;
        let item = &round.item;
        let chosen = round.learner_answer.and_then(|a| item.options.get(a)).map(String::as_str);
        let p = predict::asked(bundle, item.evidence[0].chunk, &item.question)?;
        let why = predict::why_item(p, chosen, &predict::chapter_rules(bundle, p), item.evidence[0].clone())?;
        if self.rounds.iter().any(|r| r.item.question == why.question) {
            return None;
        }
        let (checks, reason) = check::deterministic(&why, &[], false);
        reason.is_none().then(|| Made::Item { item: why, validation: Validation::from_book(checks, Book::Running) })
    }

    /// Keeps the examiner's calibration measured on a copy of this quiz (a host that makes
    /// items on a copy, so the quiz stays readable while the model works).
    pub fn adopt_calibration(&mut self, other: &Quiz) {
        if self.bias.is_none() {
            self.bias = other.bias.clone();
        }
    }

    /// Records an item as shown.
    pub fn show(&mut self, item: Item, validation: Validation) {
        self.rounds.push(Round { item, validation, learner_answer: None, correct: None });
    }

    /// Records a plan that gave no item.
    pub fn skip(&mut self, plan: Plan, reason: String) {
        self.skipped.push((plan, reason));
    }

    /// The learner answers the current item with option `chosen`.
    pub fn answer(&mut self, chosen: usize) -> Option<Feedback> {
        let round = self.rounds.last_mut()?;
        if round.learner_answer.is_some() || chosen >= round.item.options.len() {
            return None;
        }
        let feedback = Feedback::of(&round.item, chosen)?;
        round.learner_answer = Some(chosen);
        round.correct = Some(feedback.correct);
        Some(feedback)
    }

    /// Right answers per Bloom level, over the answered items.
    pub fn scores(&self) -> Vec<LevelScore> {
        Bloom::ALL
            .into_iter()
            .filter_map(|b| {
                let answered: Vec<&Round> = self.rounds.iter().filter(|r| r.item.bloom == b && r.correct.is_some()).collect();
                (!answered.is_empty()).then(|| LevelScore { bloom: b, right: answered.iter().filter(|r| r.correct == Some(true)).count(), asked: answered.len() })
            })
            .collect()
    }

    /// Coverage evenness: Shannon entropy H of the shown items over the outline sections their
    /// evidence comes from, and Pielou's J = H / ln k, k the sections among the 25 MMR chunks.
    pub fn evenness(&self, bundle: &Bundle) -> (f64, f64, usize) {
        let mut k: Vec<u32> = self.evidence.iter().map(|&c| bundle.chunks[c as usize].section).collect();
        k.sort();
        k.dedup();
        let n = self.rounds.len() as f64;
        let mut counts: std::collections::BTreeMap<u32, usize> = Default::default();
        for r in &self.rounds {
            *counts.entry(r.item.evidence[0].section).or_default() += 1;
        }
        let h: f64 = counts.values().map(|&c| c as f64 / n).map(|p| -p * p.ln()).sum();
        let j = if k.len() > 1 { h / (k.len() as f64).ln() } else { 0.0 };
        (h, j, k.len())
    }
}

/// One item to write: what the writer reads and what the item must do. The quiz's plans and the
/// author's MCQ requests both give one.
pub struct ItemSpec<'a> {
    /// Where the passage is from ("Chapter ▸ Section").
    pub place: &'a str,
    pub passage: &'a str,
    /// The sentence the correct answer must rest on.
    pub focus: &'a str,
    /// The level the item is tagged with.
    pub bloom: Bloom,
    /// The writer's instruction for the level ([`prompt::level_task`], or the author's
    /// difficulty cue).
    pub task: String,
    /// "English" or "Bangla".
    pub language: &'a str,
    /// Concepts the item must test (may be empty).
    pub concepts: &'a [String],
    /// Questions already asked on this passage (the writer is told not to repeat them).
    pub asked: &'a [String],
    /// Every earlier question (a near repeat is rejected).
    pub earlier: &'a [String],
    pub evidence: Vec<ItemEvidence>,
}

/// The repetition penalty for writing in a language: `configured` for English, off for Bangla.
/// Qwen's tokenizer spells Bengali a letter or a UTF-8 byte at a time, so over the last 256
/// tokens the penalty lands on every common letter and on the bytes all Bengali letters share:
/// with 1.2 both Qwen models wrote non-words with Devanagari letters in them (the byte Bengali
/// letters share, E0 A6, penalised into Devanagari's E0 A4), with 1.0 real Bangla words (session
/// 29, demo topic সালোকসংশ্লেষণ).
pub fn repeat_penalty(bangla: bool, configured: f32) -> f32 {
    if bangla { 1.0 } else { configured }
}

/// Writes and validates one item (see the module docs): the writer under [`prompt::ITEM_SCHEMA`],
/// the deterministic checks, then (when `cfg.examine`) the examiner; a failing attempt is
/// written again with its failure named, at most `cfg.repairs` times. `bias` keeps the
/// examiner's content-free calibration between items.
pub async fn write_item(session: &mut Session, spec: &ItemSpec<'_>, cfg: &QuizConfig, bias: &mut Option<f64>) -> Result<Made, QuizError> {
    let schema = Schema::parse(prompt::ITEM_SCHEMA).map_err(JsonError::from)?;
    let bangla = spec.language == "Bangla";
    let (example_user, example_reply) = prompt::example(bangla);
    let prefix = if bangla { prompt::WRITER_PREFIX_BN } else { prompt::WRITER_PREFIX };
    // Bangla costs Qwen's tokenizer about one token per letter, twice English's per item.
    let item_tokens = if bangla { cfg.item_tokens_bn } else { cfg.item_tokens };
    let mut rejected: Vec<String> = Vec::new();
    let mut last_checks = Checks::new();
    let mut last_examiner = None;
    let mut last_item = None;
    let gap = if cfg.examine { cfg.min_key_gap.or_else(|| min_key_gap(session.parameters())) } else { None };
    for attempt in 0..=cfg.repairs {
        let turn = prompt::writer_turn(spec.place, spec.passage, spec.focus, &spec.task, spec.language, spec.concepts, rejected.last().map(String::as_str), spec.asked);
        let fixed = [
            ChatMessage { role: "system", content: prompt::WRITER_SYSTEM },
            ChatMessage { role: "user", content: &example_user },
            ChatMessage { role: "assistant", content: &example_reply },
        ];
        let (ids, n_fixed) = session.chat_ids(&fixed, &[ChatMessage { role: "user", content: &turn }])?;
        session.keep(prefix, &ids[..n_fixed]).await?;
        // The first attempt is greedy; a repair samples, so it can leave the first one's path.
        // A repetition penalty keeps a small model from writing one wrong option three times.
        let penalty = Sampling { repeat_penalty: repeat_penalty(bangla, cfg.repeat_penalty), repeat_last_n: 256, ..Sampling::greedy() };
        let sampling = if attempt == 0 { penalty } else { Sampling { temperature: 0.7, seed: attempt as u64, ..penalty } };
        let out = session.json(&ids, &schema, GenerateOptions { max_new_tokens: item_tokens, sampling, ..Default::default() }).await;
        let value = match out {
            Ok(o) => o.value,
            // Out of tokens before the JSON closed: too long an item.
            Err(SessionError::Json(JsonError::Invalid { .. })) => {
                rejected.push("it was too long".into());
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let item = item_from(&value, spec.bloom, spec.evidence.clone());
        let earlier: Vec<&str> = spec.earlier.iter().map(String::as_str).collect();
        let (mut checks, mut reason) = check::deterministic(&item, &earlier, bangla);
        if let (None, Some(gap)) = (&reason, gap) {
            let probs = judge_options(session, &examiner_text(spec.passage, spec.focus), &item.question, &item.options, bias).await?;
            let key = probs[item.answer_index];
            let wrong = probs.iter().enumerate().filter(|&(i, _)| i != item.answer_index).map(|(_, &p)| p).fold(0.0, f64::max);
            let ok = key - wrong >= gap;
            checks.insert("key_supported".into(), ok);
            if !ok {
                reason = Some(if key < 0.5 {
                    "the passage did not support the answer you marked correct".into()
                } else {
                    "a wrong option looked as correct as the answer according to the passage".into()
                });
            }
            last_examiner = Some(probs);
        }
        last_checks = checks.clone();
        match reason {
            Some(r) => {
                rejected.push(r);
                last_item = Some(item);
            }
            None => {
                let validation = Validation { passed: true, checks, attempts: attempt + 1, examiner: last_examiner, rejected, ..Default::default() };
                return Ok(Made::Item { item, validation });
            }
        }
    }
    let attempts = cfg.repairs + 1;
    let reason = rejected.last().cloned().unwrap_or_default();
    let validation = Validation { passed: false, checks: last_checks, attempts, examiner: last_examiner, rejected, ..Default::default() };
    Ok(Made::Skipped { reason, attempts, validation, last: last_item })
}

/// The examiner's threshold for a model of `parameters` ([`Session::parameters`]): how far the
/// key's probability of being supported ([`judge_options`]) may fall below the likeliest wrong
/// option's. Fitted with Qwen2.5-Coder-1.5B on the tuning half (odd ids) of our hand-labelled
/// MCQs (`tests/eval/data/own/author_verify_en.jsonl`): every sound item's key was within 0.08
/// of its best wrong option, four of five wrong keys 0.22 or more below (docs/EVALUATION.md,
/// "Quiz"). `None` below 1B: Qwen2.5-Coder-0.5B's judgements do not separate right keys from
/// wrong ones (nor did its letter answers, which followed the letter's slot), so its examiner
/// would reject sound items at random and cost a rewrite each time.
pub fn min_key_gap(parameters: u64) -> Option<f64> {
    (parameters >= 1_000_000_000).then_some(-0.15)
}

/// The examiner's judgement of each option: the probability (σ of the calibrated yes-minus-no
/// margin) that `evidence` supports "question — option" — one option at a time, so no letter or
/// slot is favoured. `bias` keeps the calibration ([`ask::judge_margin`]). Authoring's
/// verification asks the same of its MCQs.
pub async fn judge_options(session: &mut Session, evidence: &str, question: &str, options: &[String], bias: &mut Option<f64>) -> Result<Vec<f64>, AskError> {
    let mut probs = Vec::with_capacity(options.len());
    for o in options {
        let margin = ask::judge_support(session, &format!("{question} — {o}"), evidence, bias).await?;
        probs.push(ask::sigmoid(margin));
    }
    Ok(probs)
}

/// The item in a learner's order: the key at [`check::key_position`], the wrong options in the
/// order written.
fn item_from(v: &serde_json::Value, bloom: Bloom, evidence: Vec<ItemEvidence>) -> Item {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().trim().to_string();
    let question = s(&v["question"]);
    let mut wrong: Vec<(String, String)> = v["wrong"].as_array().into_iter().flatten().map(|w| (s(&w["option"]), s(&w["why_wrong"]))).collect();
    let key = check::key_position(&question).min(wrong.len());
    wrong.insert(key, (s(&v["answer"]), s(&v["why_right"])));
    let (options, rationales) = wrong.into_iter().unzip();
    let concepts = v["concepts"].as_array().into_iter().flatten().map(s).filter(|c| !c.is_empty()).collect();
    Item { question, options, answer_index: key, rationales, bloom, concepts, evidence }
}

/// The passage's sentence an item should rest on: prose (not code, see
/// [`prose_sentences`](crate::agent::ask::verify::prose_sentences)), 40–300 characters, with the
/// most distinct content words; not one an earlier item used. `None` when none is left.
pub fn key_fact(passage: &str, used: &[&str]) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for (_, s) in crate::agent::ask::verify::prose_sentences(passage) {
        let n = s.chars().count();
        if !(40..=300).contains(&n) || used.contains(&s) {
            continue;
        }
        let score = crate::agent::ask::verify::terms(s).len();
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, s));
        }
    }
    best.map(|(_, s)| s.to_string())
}

/// What the examiner reads: the key fact, then the passage's other text up to 400 characters.
fn examiner_text(passage: &str, focus: &str) -> String {
    let rest = clip(&passage.replace(focus, ""), 400);
    format!("{focus}\n{rest}")
}

/// At most `max` characters, cut at a sentence or line end when one is near, else between
/// words ("…সিলভার কার্…" read as a word cut in two).
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => {
            let head = &text[..cut];
            let near = |(e, _): &(usize, char)| *e > cut / 2;
            let end = head
                .char_indices()
                .rev()
                .find(|&(_, c)| matches!(c, '.' | '\n' | '।'))
                .filter(near)
                .map(|(e, c)| e + c.len_utf8())
                .or_else(|| head.char_indices().rev().find(|&(_, c)| c.is_whitespace()).filter(near).map(|(e, _)| e))
                .unwrap_or(cut);
            format!("{}…", head[..end].trim_end())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bloom_steps_stay_in_range() {
        assert_eq!(Bloom::Understand.up(), Bloom::Apply);
        assert_eq!(Bloom::Create.up(), Bloom::Create);
        assert_eq!(Bloom::Remember.down(), Bloom::Remember);
        assert_eq!(Bloom::parse("Analyse"), Some(Bloom::Analyse));
        assert_eq!(serde_json::to_string(&Bloom::Evaluate).unwrap(), "\"evaluate\"");
    }

    #[test]
    fn the_topic_is_what_is_left_of_a_quiz_request() {
        assert_eq!(topic_of("quiz me on loops"), "loops");
        assert_eq!(topic_of("Can you give me some practice questions about list comprehensions?"), "list comprehensions");
        assert_eq!(topic_of("সালোকসংশ্লেষণ নিয়ে কুইজ দাও"), "সালোকসংশ্লেষণ");
        assert_eq!(topic_of("functions"), "functions");
    }

    fn quiz() -> Quiz {
        let subtopic = Subtopic { section: 0, name: "S".into(), heading_path: vec!["S".into()] };
        Quiz {
            topic: "t".into(),
            subtopic,
            language: "English".into(),
            evidence: vec![10, 11, 12, 13],
            passages: vec![(10, 1), (11, 1), (12, 2), (13, 3)],
            inside: 0,
            defined: Vec::new(),
            runnable: Vec::new(),
            statements: Vec::new(),
            rounds: Vec::new(),
            skipped: Vec::new(),
            start: Bloom::Understand,
            bias: None,
            known: Vec::new(),
            stale: Vec::new(),
        }
    }

    fn item(chunk: u32, section: u32, bloom: Bloom) -> Item {
        Item {
            question: format!("Q{chunk}"),
            options: vec!["a".into(), "b".into(), "c".into(), "d".into()],
            answer_index: 2,
            rationales: vec!["ra".into(), "rb".into(), "rc".into(), "rd".into()],
            bloom,
            concepts: vec!["scope".into()],
            evidence: vec![ItemEvidence { chunk, section, file: "f".into(), heading_path: vec![], quote: format!("fact {chunk}") }],
        }
    }

    fn validation() -> Validation {
        Validation { passed: true, checks: Checks::new(), attempts: 1, examiner: None, rejected: vec![], ..Default::default() }
    }

    #[test]
    fn right_goes_up_on_a_fresh_passage_and_wrong_goes_down_on_the_same() {
        let cfg = QuizConfig::default();
        let mut q = quiz();
        let first = q.plan(Branch::First, &cfg).unwrap();
        assert_eq!((first.bloom, first.chunk), (Bloom::Understand, 10));
        q.show(item(10, 1, first.bloom), validation());
        let right = q.plan(Branch::Right, &cfg).unwrap();
        assert_eq!((right.bloom, right.chunk), (Bloom::Apply, 12), "a section with no item yet comes first");
        let wrong = q.plan(Branch::Wrong, &cfg).unwrap();
        assert_eq!((wrong.bloom, wrong.chunk, wrong.concepts.clone()), (Bloom::Remember, 10, vec!["scope".to_string()]));
        assert_eq!(wrong.focus.as_deref(), Some("fact 10"), "the same sentence, asked more simply");
        let fb = q.answer(1).unwrap();
        assert!(!fb.correct && fb.chosen_rationale == "rb" && fb.right_rationale == "rc" && fb.next_bloom == Bloom::Remember);
        assert!(q.answer(2).is_none(), "an item is answered once");
        // After the answer, a plan from scratch follows it.
        assert_eq!(q.plan(Branch::First, &cfg).unwrap().bloom, Bloom::Remember);
        q.show(item(11, 1, Bloom::Remember), validation());
        assert!(q.answer(2).unwrap().correct);
        q.skip(Plan { branch: Branch::Right, bloom: Bloom::Understand, chunk: 12, concepts: vec![], focus: None }, "r".into());
        assert_eq!(q.plan(Branch::Right, &cfg).unwrap().chunk, 13, "a skipped passage is not planned again");
        let wrong = q.plan(Branch::Wrong, &cfg).unwrap();
        let again = q.replan(&wrong, &cfg).unwrap();
        assert_eq!((again.bloom, again.branch, again.chunk), (Bloom::Remember, Branch::Wrong, 13), "a skipped plan moves to a fresh passage at its level");
        assert_eq!((wrong.focus.is_some(), again.focus), (true, None), "with that passage's own key sentence, not the old one's");
        let scores = q.scores();
        assert_eq!(scores, vec![LevelScore { bloom: Bloom::Remember, right: 1, asked: 1 }, LevelScore { bloom: Bloom::Understand, right: 0, asked: 1 }]);
    }

    #[test]
    fn the_subtopics_own_passages_come_first() {
        let cfg = QuizConfig::default();
        let mut q = Quiz { inside: 2, ..quiz() };
        q.show(item(10, 1, Bloom::Understand), validation());
        assert_eq!(q.plan(Branch::Right, &cfg).unwrap().chunk, 11, "the subtopic's other passage, though its section has an item");
        q.show(item(11, 1, Bloom::Apply), validation());
        assert_eq!(q.plan(Branch::Right, &cfg).unwrap().chunk, 12, "then the rest, least-used section first");
    }

    #[test]
    fn a_passage_with_several_definitions_stays_fresh_until_each_is_asked() {
        let cfg = QuizConfig::default();
        let mut q = Quiz { passages: vec![(10, 1), (12, 2)], defined: vec![(10, 2), (12, 1)], ..quiz() };
        q.show(item(10, 1, Bloom::Remember), validation());
        assert_eq!(q.plan(Branch::Right, &cfg).unwrap().chunk, 12, "the least-used section first");
        q.show(item(12, 2, Bloom::Remember), validation());
        assert_eq!(q.plan(Branch::Right, &cfg).unwrap().chunk, 10, "its second definition is left");
        q.show(item(10, 1, Bloom::Remember), validation());
        assert_eq!(q.plan(Branch::Right, &cfg), None);
    }

    #[test]
    fn the_key_lands_where_its_position_says() {
        let v = serde_json::json!({"question": "Which?", "answer": "yes", "why_right": "because", "wrong": [
            {"option": "w1", "why_wrong": "r1"}, {"option": "w2", "why_wrong": "r2"}, {"option": "w3", "why_wrong": "r3"}], "concepts": ["c"]});
        let i = item_from(&v, Bloom::Apply, vec![]);
        let k = check::key_position("Which?");
        assert_eq!((i.answer_index, i.options[k].as_str(), i.rationales[k].as_str()), (k, "yes", "because"));
        assert_eq!(i.options.iter().filter(|o| o.starts_with('w')).count(), 3);
    }

    #[test]
    fn the_key_fact_is_an_unused_prose_sentence() {
        let p = "Lists hold items.\n\n    x = [1, 2, 3]  # a list of three numbers, written in code here\n\nThe append method adds one item to the end of a list and returns None.\nThe pop method removes the last item of a list and returns it to the caller.";
        let first = key_fact(p, &[]).unwrap();
        assert!(first.starts_with("The "), "prose, not code or a short line: {first}");
        let second = key_fact(p, &[first.as_str()]).unwrap();
        assert_ne!(first, second);
        assert!(key_fact(p, &[first.as_str(), second.as_str()]).is_none());
        assert!(examiner_text(p, &first).starts_with(&first));
        // A session's output line is not prose, however long; the sentence after the session is.
        let p = ">>> 'spam' + 1\nTypeError: can only concatenate str (not \"int\") to str, said the interpreter\n\nAdding a number to a string raises an error in Python.";
        assert_eq!(key_fact(p, &[]).as_deref(), Some("Adding a number to a string raises an error in Python."));
    }

    #[test]
    fn a_clip_ends_at_a_sentence() {
        assert_eq!(clip("One two three. Four five six seven", 20), "One two three.…");
        assert_eq!(clip("short", 15), "short");
        // A Bangla sentence end (দাঁড়ি, three bytes) is kept whole.
        assert_eq!(clip("এরা উৎপাদক। তারা খাদ্য তৈরি করে আর অন্যরা খায়", 20), "এরা উৎপাদক।…");
    }
}
