//! Ask: grounded conceptual Q&A (ACE-TA), as a step-driven state machine.
//!
//! One [`AskRun`] answers one question. Each [`AskRun::step`] does one unit of work and returns
//! what a host shows:
//!
//! 1. the question is checked (empty, too long, no words: [`AbstainReason::BadInput`]), the
//!    course is searched, and the coverage gate decides ([`AbstainReason::Gate`]: no model call,
//!    the nearest sections instead) → [`AskEvent::Sources`] with the book quote, the
//!    sentences of the best passage on the question, verbatim ([`verify::quote`]; less the
//!    one that opens the answer, step 3), before the model reads anything;
//! 2. the prompt is read ([`AskEvent::Reading`]): the fixed system turn comes from the session's
//!    kept prefix `"ask"`, so only the passages and the question are new; then the
//!    evidence-sufficiency check asks the model, in the same conversation, whether the passages
//!    answer the question ([`sufficiency`], [`AskEvent::Sufficiency`]; a few more tokens): a
//!    "no" is [`AbstainReason::Sufficiency`]. A question the gate doubted (few of its words in
//!    the book, [`crate::retrieve::Retrieval::uncertain`]) is answered only on a sure "yes";
//! 3. the answer streams: its opening, the book's sentences that best answer the question
//!    ([`AskConfig::lead`], [`verify::Quoted::opening`], [`AskEvent::Lead`]), at once, then
//!    the model's text after it ([`AskEvent::Token`]);
//! 4. every sentence (and code block) is checked against the passage it cites, or, uncited,
//!    against the passage that holds most of its words: the model's yes/no judgement of that
//!    passage's nearest sentences and lexical support together ([`VerifyConfig::supported`]).
//!    Supported units keep (or get) the passage's `[n]`; the others are left out of the shown
//!    answer and counted ([`AskEvent::Checking`], then [`AskEvent::Answered`]). An answer with no
//!    supported sentence, or one where the model says the book does not cover the question, is
//!    [`AbstainReason::Model`] — or, with [`AskConfig::retry`] (off by default), first withdrawn
//!    and written once more asking for the passages' own sentences ([`AskEvent::Retrying`],
//!    [`AskPrompt::in_book_words`]; steps 3–4 again).
//!
//! The app's worker and `index-builder ask` both drive this, so they build the same prompt and
//! show the same answer for the same bundle and question.

pub mod prompt;
pub mod sufficiency;
pub mod verify;

pub use prompt::{AskConfig, AskPrompt, Citation, Plan, Source, citations, plan};
pub use sufficiency::Sufficiency;
pub use verify::{CheckRule, VerifyConfig};

use crate::bundle::Bundle;
use crate::embed::{EncoderError, Role, SentenceEncoder};
use crate::llm::{ChatError, ChatMessage, Event, GenerateOptions, Generator, LmError, Session, SessionError};
use crate::retrieve::{FeatureReranker, Query, Reranker, Retrieval, RetrievalConfig, retrieve};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use verify::Unit;

/// Longest question in characters; a longer one is refused before any search.
pub const MAX_QUESTION_CHARS: usize = 2000;

/// Name of Ask's kept prompt prefix in the session.
pub const PREFIX: &str = "ask";

/// Name of Ask's kept prefix for questions in Bengali letters ([`prompt::EXAMPLE_BN`]).
pub const PREFIX_BN: &str = "ask_bn";

/// Why an answer could not be given.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Model(#[from] LmError),
    #[error(transparent)]
    Template(#[from] ChatError),
    #[error("the question could not be embedded: {0}")]
    Encoder(#[from] EncoderError),
}

/// Why Ask gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbstainReason {
    /// The coverage gate: the course does not cover the question (no model call).
    Gate,
    /// The evidence-sufficiency check judged the passages insufficient.
    Sufficiency,
    /// The model said the book does not cover it, or none of its sentences was supported.
    Model,
    /// Empty, too long, or no words.
    BadInput,
}

/// The book's sentence shown with every answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// The passage it is from (1-based into the sources).
    pub n: usize,
    pub section: u32,
    pub heading_path: Vec<String>,
    pub text: String,
}

/// One checked unit of the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    /// As shown: the text without the model's citations, then the supporting passage's `[n]`.
    pub text: String,
    /// The passages the model cited.
    pub cited: Vec<usize>,
    /// The passage that supports it (`None`: unsupported, or a unit with no content words).
    pub support: Option<usize>,
    pub supported: bool,
    /// Yes-minus-no log-probability of the model's judgement for the passage last tried.
    pub margin: Option<f64>,
    /// Lexical support by that passage.
    pub lexical: f32,
    pub code: bool,
    /// It says again what an earlier unit said (left out unchecked).
    #[serde(default)]
    pub repeated: bool,
}

/// The answer after its check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The model's text, before the check.
    pub raw: String,
    /// What the learner sees: the supported units, each with its passage's `[n]`.
    pub shown: String,
    pub units: Vec<Checked>,
    /// Units left out as unsupported.
    pub dropped: usize,
    /// Tokens generated.
    pub tokens: usize,
    /// The answer reached the token limit.
    pub truncated: bool,
    /// The learner stopped it.
    pub stopped: bool,
}

/// What a step of [`AskRun`] produced.
#[derive(Clone, Debug, PartialEq)]
pub enum AskEvent {
    /// Retrieval is done: the passages the answer may cite, the book's sentence, and the
    /// prompt's length in tokens.
    Sources { sources: Vec<Source>, quote: Option<Quote>, prompt_tokens: usize },
    /// The evidence-sufficiency check's yes-minus-no margin, whether the gate had doubted the
    /// question, and the decision.
    Sufficiency { margin: f64, uncertain: bool, sufficient: bool },
    /// The model read `done` of the prompt's `total` tokens (kept ones count).
    Reading { done: usize, total: usize },
    /// The answer's opening, the book's sentence ([`AskConfig::lead`]), before the model reads
    /// its prompt; the model's text follows it.
    Lead(String),
    /// Text of the answer as it streams (may be empty).
    Token(String),
    /// `done` of `total` units checked.
    Checking { done: usize, total: usize },
    /// None of the answer's units passed the check: it is withdrawn (the text streamed so far
    /// is to be cleared) and the model answers once more in the passages' own words
    /// ([`AskPrompt::in_book_words`]); tokens, the check and the outcome follow again.
    Retrying(Answer),
    Answered(Answer),
    /// No answer: why, what to say, the nearest sections, and the model's answer if there was
    /// one.
    Abstained { reason: AbstainReason, message: String, nearest: Vec<u32>, answer: Option<Answer> },
}

/// What a run needs from its host.
pub struct AskEnv<'a> {
    pub bundle: &'a Bundle,
    /// The bundle's encoder (None: BM25 only).
    pub encoder: Option<&'a SentenceEncoder>,
    pub session: &'a mut Session,
}

/// Ask's settings: retrieval, prompt and answer, and the check.
#[derive(Clone, Debug, Default)]
pub struct AskSettings {
    pub retrieval: RetrievalConfig,
    pub ask: AskConfig,
    pub verify: VerifyConfig,
    /// Prompt tokens read per step (the host answers messages between steps); 0: all at once.
    pub prompt_chunk: usize,
    /// No retrieval and no evidence: the model answers from what it knows (the baseline an
    /// evaluation compares grounded answers with). Nothing is checked.
    pub closed_book: bool,
    pub sufficiency: Sufficiency,
}

enum State {
    Start,
    /// The shared part of the answer's and the check's prompts is read, then the check runs.
    Reading { prompt: AskPrompt, ids: Vec<u32>, fixed: usize, check: Vec<u32>, reader: Generator<'static>, kept: bool, uncertain: bool },
    /// The check said yes: the answer's prompt (its shared part already read) is generated from.
    Sufficient { prompt: AskPrompt, ids: Vec<u32>, fixed: usize },
    Answering { prompt: AskPrompt, ids: Vec<u32>, fixed: usize, generation: Generator<'static>, kept: bool },
    Checking { prompt: AskPrompt, raw: String, tokens: usize, truncated: bool, units: Vec<Unit>, checked: Vec<Checked> },
    /// The check said no: the abstention is next.
    Refused,
    Done,
}

/// One question being answered.
pub struct AskRun {
    question: String,
    settings: AskSettings,
    state: State,
    stopped: bool,
    nearest: Vec<u32>,
    /// The judge's calibration: its margin for a content-free pair.
    bias: Option<f64>,
    /// The answer is the second try ([`AskEvent::Retrying`]).
    retried: bool,
    /// The answer's opening, the book's sentence ([`AskConfig::lead`]).
    lead: Option<Lead>,
}

/// Most examples of the book an answer's opening shows ([`verify::examples_after`]), each
/// [`verify::EXAMPLE_CHARS`] at most. 4, chosen on our English tuning half: with 2, 15 sentences
/// of 10 openings came without the example they introduce ("A strange thing happens if you just
/// print a range [1]." without `range(0, 10)`), 9 of 6 with 4 (the rest have none the opening
/// can show); 4 showed 8 more examples (35–328 characters each), the key facts' words in the
/// opening 0.608 → 0.623 (3: 0.618; 6: as 4) (docs/EVALUATION.md, "The book's examples that
/// short lines introduce").
const MAX_EXAMPLES: usize = 4;

/// Characters of a comparison table's rows an answer's opening holds however long the opening
/// before them ([`compared`]).
const MIN_ROWS_CHARS: usize = 300;

/// Whether a question asks how two things differ or compare.
fn asks_difference(question: &str) -> bool {
    let q = question.to_lowercase();
    ["পার্থক্য", "তফাত", "তফাৎ", "অমিল", "তুলনা", "বৈসাদৃশ্য", "difference", "differ", "compare", "comparison", " vs", "versus"].iter().any(|w| q.contains(w))
}

/// The rows of the first table among `sources` that compares two things the question names
/// (its terms `asked`, with the course's words that stood for those in the other script) — as
/// its columns ([`crate::agent::quiz::contrast::tables`]) or as two of its rows
/// ([`crate::agent::quiz::contrast::rows_compared`]) — as sentences with the source's number,
/// within `max_chars`; none unless the question asks how things differ.
fn compared(bundle: &Bundle, question: &str, asked: &std::collections::HashSet<String>, sources: &[Source], max_chars: usize) -> Vec<(usize, String)> {
    use crate::agent::quiz::contrast;
    if !asks_difference(question) {
        return Vec::new();
    }
    let named = |side: &str| {
        let t = verify::terms(side);
        !t.is_empty() && t.is_subset(asked)
    };
    // A table with the two things as columns, else as rows.
    let table = sources.iter().find_map(|s| {
        let text = bundle.chunk_text(s.chunk);
        contrast::tables(text, s.section).into_iter().find(|t| t.sides.iter().all(|x| named(x))).or_else(|| contrast::rows_compared(text, s.section, &named)).map(|t| (s.n, t))
    });
    let Some((n, table)) = table else { return Vec::new() };
    let mut used = 0;
    contrast::sentences(&table)
        .into_iter()
        .take_while(|row| {
            used += row.chars().count();
            used <= max_chars
        })
        .map(|row| {
            let stop = if crate::agent::author::gates::script_share(&row, crate::agent::route::Lang::Bn) >= 0.5 { '।' } else { '.' };
            (n, format!("{row}{stop}"))
        })
        .collect()
}

/// The answer's opening from the book ([`AskConfig::lead`]): read by the model as the start of
/// its own turn.
struct Lead {
    text: String,
    ids: Vec<u32>,
    /// Sent to the host yet ([`AskEvent::Lead`]).
    sent: bool,
    /// The rows of a comparison table among its sentences ([`compared`]), as cited: the
    /// table's own cells, so the check passes them as they are (the passage the model reads
    /// may be cut before a table's last rows, and the small judge reads a row poorly).
    rows: Vec<String>,
    /// The book's examples among its sentences, fenced, and the short lines that introduce them
    /// ("For example:", "On Windows, run:"), each with its passage's number: shown as they are,
    /// like the rows.
    examples: Vec<(usize, String)>,
}

impl AskRun {
    pub fn new(question: &str, settings: AskSettings) -> AskRun {
        AskRun { question: question.to_string(), settings, state: State::Start, stopped: false, nearest: Vec::new(), bias: None, retried: false, lead: None }
    }

    /// Stops the answer where it is (a Stop button); what was written is still checked.
    pub fn stop(&mut self) {
        self.stopped = true;
        if let State::Answering { generation, .. } = &mut self.state {
            generation.cancel();
        }
    }

    /// Does the next unit of work; `None` once the run is over.
    pub async fn step(&mut self, env: &mut AskEnv<'_>) -> Result<Option<AskEvent>, AskError> {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Start => self.start(env).await.map(Some),
            State::Reading { prompt, ids, fixed, check, mut reader, kept, uncertain } => {
                let total = ids.len();
                if !kept {
                    env.session.keep(prompt.prefix(), &ids[..fixed]).await?;
                    self.state = State::Reading { prompt, ids, fixed, check, reader, kept: true, uncertain };
                    return Ok(Some(AskEvent::Reading { done: fixed, total }));
                }
                if !self.stopped {
                    if let Event::Reading { done, .. } = reader.step(env.session).await? {
                        self.state = State::Reading { prompt, ids, fixed, check, reader, kept, uncertain };
                        return Ok(Some(AskEvent::Reading { done, total }));
                    }
                }
                if self.stopped {
                    // Stopped before the answer began: an empty, stopped answer.
                    return Ok(Some(self.finish(String::new(), 0, false, Vec::new())));
                }
                let margin = sufficiency::margin(env.session, prompt.prefix(), &check, fixed).await?;
                let sufficient = self.settings.sufficiency.sufficient(margin, uncertain);
                self.state = if sufficient { State::Sufficient { prompt, ids, fixed } } else { State::Refused };
                Ok(Some(AskEvent::Sufficiency { margin, uncertain, sufficient }))
            }
            State::Sufficient { prompt, ids, fixed } => {
                let generation = self.generator(env, &ids)?;
                let n = ids.len();
                self.state = State::Answering { prompt, ids, fixed, generation, kept: true };
                Ok(Some(AskEvent::Reading { done: n.saturating_sub(1), total: n }))
            }
            State::Answering { prompt, ids, fixed, mut generation, kept } => {
                // The book's sentence opens the answer before the model has read its prompt.
                if let Some(lead) = self.lead.as_mut().filter(|lead| !lead.sent) {
                    lead.sent = true;
                    let text = lead.text.clone();
                    self.state = State::Answering { prompt, ids, fixed, generation, kept };
                    return Ok(Some(AskEvent::Lead(text)));
                }
                if !kept {
                    env.session.keep(prompt.prefix(), &ids[..fixed]).await?;
                    let total = ids.len();
                    self.state = State::Answering { prompt, ids, fixed, generation, kept: true };
                    return Ok(Some(AskEvent::Reading { done: fixed, total }));
                }
                if self.stopped {
                    generation.cancel();
                }
                let event = generation.step(env.session).await?;
                let out = match event {
                    Event::Reading { done, total } => Some(AskEvent::Reading { done, total }),
                    Event::Token { text, .. } | Event::Text(text) => Some(AskEvent::Token(text)),
                    Event::Done => None,
                };
                match out {
                    Some(e) => {
                        if matches!(&e, AskEvent::Token(t) if t.contains(['.', '!', '?', '\n', '।'])) && verify::looping(generation.text()) {
                            // The model repeats itself: end the answer here (the repeat is left out).
                            generation.cancel();
                        }
                        self.state = State::Answering { prompt, ids, fixed, generation, kept };
                        Ok(Some(e))
                    }
                    None => {
                        let lead = self.lead.as_ref().map_or("", |lead| lead.text.as_str());
                        let raw = format!("{lead}{}", generation.text()).trim().to_string();
                        let truncated = matches!(generation.finish(), Some(crate::llm::Finish::Length));
                        let units = verify::units(&raw, prompt.sources.len());
                        let total = units.len();
                        let tokens = generation.ids().len();
                        self.state = State::Checking { prompt, raw, tokens, truncated, units, checked: Vec::new() };
                        Ok(Some(AskEvent::Checking { done: 0, total }))
                    }
                }
            }
            State::Checking { prompt, raw, tokens, truncated, units, mut checked } => {
                if checked.len() < units.len() {
                    let (unit, earlier) = (&units[checked.len()], &units[..checked.len()]);
                    let cut = truncated && checked.len() + 1 == units.len();
                    let c = self.check(env, &prompt, unit, earlier, cut).await?;
                    checked.push(c);
                    let (done, total) = (checked.len(), units.len());
                    self.state = State::Checking { prompt, raw, tokens, truncated, units, checked };
                    return Ok(Some(AskEvent::Checking { done, total }));
                }
                let event = self.finish(raw, tokens, truncated, checked);
                match event {
                    AskEvent::Abstained { reason: AbstainReason::Model, answer: Some(first), .. } if self.may_retry(&first) => {
                        // None of it could be checked: once more, in the passages' own words.
                        self.retried = true;
                        self.lead = None;
                        let prompt = prompt.in_book_words();
                        let messages = prompt.messages();
                        let (ids, fixed) = env.session.chat_ids(&messages[..prompt.fixed()], &messages[prompt.fixed()..])?;
                        let generation = self.generator(env, &ids)?;
                        self.state = State::Answering { prompt, ids, fixed, generation, kept: true };
                        Ok(Some(AskEvent::Retrying(first)))
                    }
                    event => Ok(Some(event)),
                }
            }
            State::Refused => Ok(Some(AskEvent::Abstained {
                reason: AbstainReason::Sufficiency,
                message: "The course book does not cover this.".into(),
                nearest: self.nearest.clone(),
                answer: None,
            })),
            State::Done => Ok(None),
        }
    }

    async fn start(&mut self, env: &mut AskEnv<'_>) -> Result<AskEvent, AskError> {
        if let Some(message) = bad_input(&self.question) {
            return Ok(AskEvent::Abstained { reason: AbstainReason::BadInput, message, nearest: Vec::new(), answer: None });
        }
        if self.settings.closed_book {
            let system = prompt::system_closed_book(&env.bundle.header.title);
            let user = format!("Question: {}", self.question.trim());
            let p = AskPrompt { system, user, sources: Vec::new(), example: None };
            return self.answering(env, p, None, None);
        }
        let mut retrieval = search(env.bundle, env.encoder, &self.question, &self.settings.retrieval).await?;
        self.nearest = retrieval.nearest_sections.clone();
        // The passages are the book's teaching: an exercise section's scenario or task shares
        // the question's words and answers nothing (kept only when nothing else was found).
        let taught = |section: u32| env.bundle.sections[section as usize].kind != crate::index::SectionKind::Exercise;
        if retrieval.evidence.iter().any(|e| taught(e.section)) {
            retrieval.evidence.retain(|e| taught(e.section));
        }
        // A question asked in another script than its best passage (English or romanised
        // Bangla over a Bangla chapter, Bangla over an English one) is answered from passages in
        // the best passage's script only: in a course of two languages a passage of the
        // question's own is there for a shared word ("old" buildings, a list built from an old
        // one), and the answer would cite and copy it.
        if let Some(first) = retrieval.evidence.first() {
            let bengali = crate::text::mostly_bengali(&first.text);
            if crate::text::mostly_bengali(&self.question) != bengali {
                retrieval.evidence.retain(|e| crate::text::mostly_bengali(&e.text) == bengali);
            }
        }
        // The model reads the part of each passage's section that is about the question: its
        // terms, and the course's words that stood for those the book does not write (the
        // other script's "কারখানা" for "factory"), so a question in one script finds its
        // sentences in the other.
        let mut asked = verify::terms(&self.question);
        asked.extend(retrieval.coverage.alikes.iter().flat_map(|(_, found)| found.iter().cloned()));
        let weight = |t: &str| env.bundle.bm25.idf(t);
        for (rank, e) in retrieval.evidence.iter_mut().enumerate() {
            e.text = crate::retrieve::context::focus(env.bundle, e.chunk, &asked, &weight, self.settings.ask.chars(rank));
        }
        let session = &*env.session;
        let title = &env.bundle.header.title;
        let count = |p: &AskPrompt| prompt_tokens(session, p);
        let check = self.settings.sufficiency.enabled;
        let prompt = match plan(title, &self.question, &retrieval, &self.settings.ask, &count, check) {
            Plan::Abstain { nearest_sections } => {
                return Ok(AskEvent::Abstained {
                    reason: AbstainReason::Gate,
                    message: "The course book does not cover this.".into(),
                    nearest: nearest_sections,
                    answer: None,
                });
            }
            Plan::Answer(p) => p,
        };
        let idf = |t: &str| env.bundle.bm25.idf(t);
        // The book's teaching is quoted, not its exercises (an exercise passage is left only
        // when nothing else was found, and then nothing is quoted).
        let quotable: Vec<Source> = prompt.sources.iter().filter(|s| taught(s.section)).cloned().collect();
        // How near each sentence is to the question by meaning (the encoder's calibrated cosine),
        // when that counts ([`AskConfig::sentence_meaning`]).
        let meaning = self.settings.ask.sentence_meaning;
        let cosines = if meaning > 0.0 { sentence_cosines(env.bundle, env.encoder, &self.settings, &self.question, &quotable).await? } else { HashMap::new() };
        let near = |sentence: &str| cosines.get(sentence).map_or(0.0, |c| meaning * c);
        let quoted = verify::quote(&asked, &quotable, &idf, &near, self.settings.ask.quote_chars);
        // The quote's lead opens the answer, cited as the model cites (the worked example's
        // "… [2]. "), so it goes on writing; not a question the book asks (an exercise answers
        // nothing), nor a sentence far from the question.
        let mut opening = verify::Opening::default();
        if let Some(q) = quoted.as_ref().filter(|q| self.settings.ask.lead && !verify::asks(q.lead())) {
            if near_question(env.bundle, env.encoder, &self.settings, &self.question, q.lead(), cosines.get(q.lead()).copied()).await? {
                // The lead, the other passages' sentences as much on the question, and the
                // quote's next best sentences while they fit, each cited.
                opening = q.opening(self.settings.ask.lead_chars, self.settings.ask.opening_others);
            }
        }
        // A question on how two things differ, over a table of the book that sets those two side
        // by side: its rows follow the opening, each cited (the model reads a table poorly, and
        // the quote holds prose only).
        let room = self.settings.ask.lead_chars.saturating_sub(opening.sentences.iter().map(|(_, t)| t.chars().count()).sum()).max(MIN_ROWS_CHARS);
        let rows = compared(env.bundle, &self.question, &asked, &quotable, room);
        let cite = |(n, text): (usize, &str)| {
            let text = verify::sentence_case(text.trim_end());
            let stop = if text.ends_with('।') { '।' } else { '.' };
            format!("{} [{n}]{stop}", text.trim_end_matches(['.', ':', '।']))
        };
        let rows: Vec<String> = rows.iter().map(|(n, text)| cite((*n, text.as_str()))).collect();
        // A sentence that introduces what follows it, cited before its colon.
        let introduce = |n: usize, text: &str| format!("{} [{n}]:", verify::sentence_case(text.trim_end()).trim_end_matches(':'));
        // A sentence that introduces the book's example ("… as follows:") shows it, fenced.
        let mut examples = Vec::new();
        // The fenced examples among `examples` (the rest are the lines that introduce them).
        let mut shown = 0;
        let mut pieces = Vec::new();
        // A sentence that introduces its example itself ("To deactivate it, type:") says nothing
        // without it: the examples short lines introduce ("For example:") come after those.
        let passage = |n: usize| quotable.iter().find(|s| s.n == n).map_or("", |s| s.text.as_str());
        let introducing: Vec<bool> = opening.sentences.iter().map(|&(n, text)| verify::example_after(passage(n), text).is_some()).collect();
        for (k, &(n, text)) in opening.sentences.iter().enumerate() {
            let later = if introducing[k] { 0 } else { introducing[k + 1..].iter().filter(|&&x| x).count() };
            let found = verify::examples_after(passage(n), text, MAX_EXAMPLES.saturating_sub(shown + later));
            let mut piece = match found.first() {
                // A sentence that introduces the sentences after it in the book ("There are also
                // many other specialized generators in this module, such as:") keeps its colon
                // when the next one of the opening is the one after it.
                None if text.trim_end().ends_with(':') && opening.sentences.get(k + 1).is_some_and(|&(m, next)| m == n && verify::follows(passage(n), text, next)) => {
                    pieces.push(introduce(n, text));
                    continue;
                }
                None => {
                    pieces.push(cite((n, text)));
                    continue;
                }
                // The sentence introduces the example itself.
                Some((None, _)) => introduce(n, text),
                Some((Some(_), _)) => cite((n, text)),
            };
            for (intro, example) in found {
                if let Some(intro) = intro {
                    if !piece.ends_with('\n') {
                        piece.push(' ');
                    }
                    piece.push_str(intro);
                    examples.push((n, intro.to_string()));
                }
                let block = format!("```\n{example}\n```");
                piece.push_str(&format!("\n{block}\n"));
                examples.push((n, block));
                shown += 1;
            }
            pieces.push(piece);
        }
        pieces.extend(rows.iter().cloned());
        let lead = (!pieces.is_empty()).then(|| {
            let mut text = String::new();
            for piece in pieces {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push(' ');
                }
                text.push_str(&piece);
            }
            text
        });
        // Above an answer its opening, the quote shows the book's other sentences.
        let quote = quoted.and_then(|q| {
            let text = q.text(opening.own)?;
            Some(Quote { n: q.source.n, section: q.source.section, heading_path: q.source.heading_path.clone(), text })
        });
        self.lead = match lead {
            Some(text) => Some(Lead { ids: env.session.encode(&text)?, text, sent: false, rows, examples }),
            None => None,
        };
        let uncertain = retrieval.abstained && retrieval.uncertain;
        self.answering(env, prompt, quote, check.then_some(uncertain))
    }

    /// The model is to answer `prompt`: the reading (and the sufficiency check when `check` is
    /// `Some(uncertain)`) or the generation is set up, and the sources go out.
    fn answering(&mut self, env: &mut AskEnv<'_>, prompt: AskPrompt, quote: Option<Quote>, check: Option<bool>) -> Result<AskEvent, AskError> {
        let messages = prompt.messages();
        let (ids, fixed) = env.session.chat_ids(&messages[..prompt.fixed()], &messages[prompt.fixed()..])?;
        // The answer's lead is read as prompt too.
        let lead = self.lead.as_ref().map_or(0, |lead| lead.ids.len());
        let event = AskEvent::Sources { sources: prompt.sources.clone(), quote, prompt_tokens: ids.len() + lead };
        self.state = match check {
            Some(uncertain) => {
                let (check, _) = sufficiency::ids(env.session, &prompt)?;
                // The part the answer shares with the check is read once, for both.
                let shared = check.iter().zip(&ids).take_while(|(a, b)| a == b).count();
                let read = GenerateOptions { max_new_tokens: 0, ..Default::default() };
                let reader = self.chunked(env.session.generator(&check[..shared.max(1)], read));
                State::Reading { prompt, ids, fixed, check, reader, kept: fixed == 0, uncertain }
            }
            None => {
                let generation = self.generator(env, &ids)?;
                State::Answering { prompt, ids, fixed, generation, kept: fixed == 0 }
            }
        };
        Ok(event)
    }

    /// The answer's generation after `ids` (and after its [`AskConfig::lead`], when it has one).
    fn generator(&self, env: &AskEnv<'_>, ids: &[u32]) -> Result<Generator<'static>, AskError> {
        let opts = GenerateOptions { max_new_tokens: self.settings.ask.max_new_tokens, draft: self.settings.ask.draft, ..Default::default() };
        let mut ids = ids.to_vec();
        if let Some(lead) = &self.lead {
            ids.extend_from_slice(&lead.ids);
        }
        Ok(self.chunked(env.session.generator(&ids, opts)))
    }

    fn chunked(&self, g: Generator<'static>) -> Generator<'static> {
        if self.settings.prompt_chunk > 0 { g.prompt_chunk(self.settings.prompt_chunk) } else { g }
    }

    /// Checks one unit: against each passage it cites, else the one holding most of its words.
    /// A unit that repeats an `earlier` one is left out unchecked, and so is the last one of an
    /// answer `cut` at the token limit when it stops mid-sentence.
    async fn check(&mut self, env: &mut AskEnv<'_>, prompt: &AskPrompt, unit: &Unit, earlier: &[Unit], cut: bool) -> Result<Checked, AskError> {
        let max_n = prompt.sources.len();
        let plain = unit.plain(max_n);
        let words = verify::terms(&plain);
        let base = Checked { text: plain.clone(), cited: unit.cites.clone(), support: None, supported: false, margin: None, lexical: 0.0, code: unit.code, repeated: false };
        if !self.settings.verify.enabled || self.settings.closed_book {
            // Unchecked: shown as the model wrote it, its own citations kept; nothing is left out
            // (a two-token answer on a slow runtime is a fragment, and still the answer).
            return Ok(Checked { supported: true, support: unit.cites.first().copied(), text: unit.text.clone(), ..base });
        }
        // The book's example in the opening, the first time: a one-word command ("deactivate")
        // repeats the words of the sentence that introduces it, and is still the example.
        let example = self.lead.as_ref().and_then(|l| l.examples.iter().find(|(_, piece)| piece.trim() == unit.text.trim()));
        if let Some(&(n, _)) = example.filter(|_| !earlier.iter().any(|e| e.text.trim() == unit.text.trim())) {
            return Ok(Checked { supported: true, support: Some(n), text: unit.text.clone(), ..base });
        }
        if earlier.iter().any(|e| verify::repeats(&unit.words(max_n), &e.words(max_n))) {
            return Ok(Checked { repeated: true, ..base });
        }
        if let Some(&n) = unit.cites.first().filter(|_| self.lead.as_ref().is_some_and(|l| l.rows.iter().any(|r| r.trim() == unit.text.trim()))) {
            return Ok(Checked { supported: true, support: Some(n), text: with_citation(&plain, n), ..base });
        }
        if cut && (if unit.code { verify::open_block(unit) } else { !verify::ends_sentence(&plain) }) {
            return Ok(base);
        }
        if verify::fragment(unit, &words) {
            // A stray line ("spam/", "foo.py" of a file tree written outside a code block): no
            // claim to check, and meaningless alone.
            return Ok(base);
        }
        if prompt.sources.iter().any(|s| verify::is_label(&plain, &s.heading_path)) {
            // A passage's label copied from the prompt: not a sentence of the answer.
            return Ok(base);
        }
        if words.is_empty() {
            // Nothing to check: a sentence ("Sure!") is shown as it is; a connective between
            // units ("or" between two code blocks) means nothing alone, nor does a stop alone.
            return Ok(Checked { supported: verify::ends_sentence(&plain) && plain.chars().any(char::is_alphanumeric), ..base });
        }
        let cfg = self.settings.verify.rule.unwrap_or_else(|| verify::CheckRule::for_checker(env.session.parameters()));
        let idf = |t: &str| env.bundle.bm25.idf(t);
        let passages: Vec<_> = prompt.sources.iter().map(|s| verify::terms(&format!("{} {}", s.heading_path.join(" "), s.text))).collect();
        let lexical = |n: usize| verify::lexical_support(&words, &passages[n - 1], &idf);
        let best = (1..=max_n).max_by(|&a, &b| lexical(a).total_cmp(&lexical(b)).then(b.cmp(&a)));
        let mut tries: Vec<usize> = unit.cites.clone();
        if let Some(b) = best.filter(|b| !tries.contains(b)) {
            tries.push(b);
        }
        let mut last = base.clone();
        for n in tries.into_iter().take(2) {
            let lex = lexical(n);
            if lex < cfg.min_lexical {
                last = Checked { lexical: lex, margin: None, ..base.clone() };
                continue;
            }
            let margin = judge_support(env.session, &plain, &prompt.sources[n - 1].text, &mut self.bias).await?;
            let supported = cfg.supported(margin, lex);
            last = Checked { lexical: lex, margin: Some(margin), supported, support: supported.then_some(n), ..base.clone() };
            if supported {
                if !unit.code {
                    last.text = with_citation(&plain, n);
                }
                return Ok(last);
            }
        }
        Ok(last)
    }

    /// A withheld answer is tried once more ([`AskConfig::retry`]) unless the model said the
    /// book does not cover the question or the learner stopped it.
    fn may_retry(&self, first: &Answer) -> bool {
        self.settings.ask.retry && !self.settings.ask.book_words && !self.retried && !first.stopped && !first.raw.is_empty() && !verify::says_not_covered(&first.raw)
    }

    fn finish(&mut self, raw: String, tokens: usize, truncated: bool, mut units: Vec<Checked>) -> AskEvent {
        // A lead-in ("Here's an example:") whose example was left out is left out too (from the
        // end, so a lead-in to a left-out lead-in goes as well).
        for i in (0..units.len()).rev() {
            let next_shown = units.get(i + 1).is_some_and(|u| u.supported);
            if units[i].supported && !units[i].code && !next_shown && verify::strip_citations(&units[i].text, usize::MAX).trim_end().ends_with(':') {
                units[i].supported = false;
                units[i].support = None;
            }
        }
        let mut shown = String::new();
        for u in units.iter().filter(|u| u.supported) {
            if !shown.is_empty() {
                shown.push_str(if u.code || shown.ends_with("```") || verify::list_item(&u.text) { "\n" } else { " " });
            }
            // A session the model copied without its fence is shown as the code it is.
            shown.push_str(&if u.code { verify::fence_sessions(&u.text) } else { u.text.as_str().into() });
        }
        let dropped = units.iter().filter(|u| !u.supported).count();
        let content = units.iter().filter(|u| u.supported && u.support.is_some()).count();
        let answer = Answer { raw: raw.clone(), shown, units, dropped, tokens, truncated, stopped: self.stopped };
        if content == 0 && !self.stopped && !self.settings.closed_book && self.settings.verify.enabled {
            let message = if verify::says_not_covered(&raw) || raw.is_empty() {
                "The course book does not cover this."
            } else {
                "The answer could not be checked against the course book, so it is not shown."
            };
            return AskEvent::Abstained { reason: AbstainReason::Model, message: message.into(), nearest: self.nearest.clone(), answer: Some(answer) };
        }
        AskEvent::Answered(answer)
    }
}

/// `text` (without its citations) with `[n]` before its final punctuation.
fn with_citation(text: &str, n: usize) -> String {
    let body = text.trim_end();
    match body.char_indices().last() {
        Some((at, c)) if matches!(c, '.' | '!' | '?' | ':' | ';' | '।') => format!("{} [{n}]{}", body[..at].trim_end(), &body[at..]),
        _ => format!("{body} [{n}]"),
    }
}

/// Tokens of `prompt` in `session`'s chat template (`usize::MAX` when it cannot be rendered),
/// as [`plan`] counts them.
pub fn prompt_tokens(session: &Session, prompt: &AskPrompt) -> usize {
    let m = prompt.messages();
    session.chat_ids(&m[..prompt.fixed()], &m[prompt.fixed()..]).map_or(usize::MAX, |(ids, _)| ids.len())
}

/// The message for a question that cannot be searched, if it is one.
pub fn bad_input(question: &str) -> Option<String> {
    let q = question.trim();
    if q.is_empty() {
        return Some("Type a question first.".into());
    }
    let n = q.chars().count();
    if n > MAX_QUESTION_CHARS {
        return Some(format!("This question is {n} characters long; ask it in at most {MAX_QUESTION_CHARS}."));
    }
    if !q.chars().any(char::is_alphanumeric) {
        return Some("Ask the question in words, so the course book can be searched.".into());
    }
    None
}

/// The question's vector, when the encoder reads its script (`None`: BM25 alone). The same
/// text as the last call reuses its vector (the router, then Ask, embed one message).
pub async fn query_vector(encoder: Option<&SentenceEncoder>, text: &str) -> Result<Option<Vec<f32>>, AskError> {
    match encoder {
        Some(e) if e.can_read(text) => {
            if let Some(v) = e.remembered_query(text) {
                return Ok(Some(v));
            }
            let v = e.embed(&[text], Role::Query)?;
            let v = v.into_iter().next();
            if let Some(v) = &v {
                e.remember_query(text, v);
            }
            Ok(v)
        }
        _ => Ok(None),
    }
}

/// Hybrid retrieval for a question, as `index-builder search` runs it: the question's vector
/// when the encoder reads its script (else BM25 alone), the feature reranker, the coverage gate.
pub async fn search(bundle: &Bundle, encoder: Option<&SentenceEncoder>, question: &str, cfg: &RetrievalConfig) -> Result<Retrieval, AskError> {
    let vector = query_vector(encoder, question).await?;
    let reranker = FeatureReranker::default();
    Ok(Query::with_encoder(question, vector.as_deref(), encoder, |query| retrieve(bundle, cfg, query, Some(&reranker as &dyn Reranker))))
}

/// Whether `sentence` is near enough `question` to open its answer ([`AskConfig::lead`]): the
/// calibrated cosine of their vectors reaches [`AskConfig::min_lead_cosine`]. Without an encoder
/// that reads both, or with one whose cosines do not tell near from far
/// ([`crate::embed::Calibration::gates`], e5), every sentence is near. `cosine`: the calibrated
/// cosine when it is known already ([`sentence_cosines`]).
pub async fn near_question(bundle: &Bundle, encoder: Option<&SentenceEncoder>, settings: &AskSettings, question: &str, sentence: &str, cosine: Option<f32>) -> Result<bool, AskError> {
    let calibration = settings.retrieval.calibration(bundle);
    let Some(encoder) = encoder.filter(|e| calibration.gates && e.can_read(sentence)) else { return Ok(true) };
    if let Some(cosine) = cosine {
        return Ok(cosine >= settings.ask.min_lead_cosine);
    }
    let Some(asked) = query_vector(Some(encoder), question).await? else { return Ok(true) };
    let vector = encoder.embed(&[sentence], Role::Passage)?;
    Ok(vector.first().is_none_or(|v| calibration.apply(crate::embed::dot(&asked, v)) >= settings.ask.min_lead_cosine))
}

/// The calibrated cosine between the question and each sentence [`verify::quote`] may pick from
/// `sources`, embedded in one batch; empty without an encoder that reads the question, or with
/// one whose cosines do not tell near from far ([`crate::embed::Calibration::gates`], e5: on
/// the Bangla tuning questions they picked a neighbouring topic's sentences as often as better
/// ones). A sentence the encoder cannot read is left out.
pub async fn sentence_cosines(bundle: &Bundle, encoder: Option<&SentenceEncoder>, settings: &AskSettings, question: &str, sources: &[Source]) -> Result<HashMap<String, f32>, AskError> {
    let calibration = settings.retrieval.calibration(bundle);
    let Some(encoder) = encoder.filter(|_| calibration.gates) else { return Ok(HashMap::new()) };
    let Some(asked) = query_vector(Some(encoder), question).await? else { return Ok(HashMap::new()) };
    let mut texts: Vec<&str> = sources.iter().flat_map(|s| verify::quotable_sentences(&s.text)).filter(|t| encoder.can_read(t)).collect();
    texts.sort_unstable();
    texts.dedup();
    let vectors = encoder.embed(&texts, Role::Passage)?;
    Ok(texts.into_iter().zip(vectors).map(|(t, v)| (t.to_string(), calibration.apply(crate::embed::dot(&asked, &v)))).collect())
}

/// Ask's kept prefixes for a course, by name: its rules and worked example ([`PREFIX`], and
/// [`PREFIX_BN`] with the Bangla example when `bangla`), or, when `settings` answer closed-book,
/// the closed-book instruction alone.
pub fn prefixes(session: &Session, title: &str, bangla: bool, settings: &AskSettings) -> Result<Vec<(&'static str, Vec<u32>)>, SessionError> {
    if settings.closed_book {
        return Ok(vec![(PREFIX, session.fixed_ids(&prompt::fixed_messages(&prompt::system_closed_book(title), None))?)]);
    }
    let system = prompt::system(title, &settings.ask.rules);
    let examples = if bangla { &[&prompt::EXAMPLE, &prompt::EXAMPLE_BN][..] } else { &[&prompt::EXAMPLE][..] };
    examples.iter().map(|e| Ok((e.prefix, session.fixed_ids(&prompt::fixed_messages(&system, Some(e)))?))).collect()
}

/// The ids of the check's judge's kept prefix ([`verify::JUDGE_PREFIX`]).
pub fn judge_prefix(session: &Session) -> Result<Vec<u32>, SessionError> {
    session.fixed_ids(&[ChatMessage { role: "system", content: verify::JUDGE_SYSTEM }])
}

/// Yes-minus-no log-probability that `passage` supports `unit`, asked as a fresh prompt after
/// the judge's kept system turn with the passage's sentences nearest to the unit. The margin
/// is calibrated (Zhao et al. 2021): the same question with "N/A" for passage and sentence gives
/// the model's standing bias, computed once per run and subtracted ([`judge_margin`]).
pub async fn judge_support(session: &mut Session, unit: &str, passage: &str, bias: &mut Option<f64>) -> Result<f64, AskError> {
    let excerpt = nearest_sentences(unit, passage, 400);
    judge_margin(session, verify::Judge::Support, &excerpt, unit, bias).await
}

/// The judge's calibrated yes-minus-no log-probability for one [`verify::Judge`] question on
/// `text` and `claim`; `bias` holds the same question's margin with "N/A" for both (measured on
/// first use; keep one per kind).
pub async fn judge_margin(session: &mut Session, kind: verify::Judge, text: &str, claim: &str, bias: &mut Option<f64>) -> Result<f64, AskError> {
    if bias.is_none() {
        *bias = Some(judge_raw(session, kind, "N/A", "N/A").await?);
    }
    Ok(judge_raw(session, kind, text, claim).await? - bias.unwrap_or(0.0))
}

/// A judge's margin as a probability (the logistic function).
pub(crate) fn sigmoid(margin: f64) -> f64 {
    1.0 / (1.0 + (-margin).exp())
}

async fn judge_raw(session: &mut Session, kind: verify::Judge, text: &str, claim: &str) -> Result<f64, AskError> {
    let question = verify::judge_question(kind, text, claim);
    let messages = [ChatMessage { role: "system", content: verify::JUDGE_SYSTEM }, ChatMessage { role: "user", content: &question }];
    let (ids, fixed) = session.chat_ids(&messages[..1], &messages[1..])?;
    session.keep(verify::JUDGE_PREFIX, &ids[..fixed]).await?;
    let yes = session.encode("Yes")?;
    let no = session.encode("No")?;
    let scores = session.score(&ids, &[yes, no]).await?;
    Ok(scores[0].logprob_sum - scores[1].logprob_sum)
}

/// Up to `max` characters of `passage`: its sentences sharing most words with `unit`, in the
/// passage's order.
pub fn nearest_sentences(unit: &str, passage: &str, max: usize) -> String {
    let words = verify::terms(unit);
    let all: Vec<&str> = passage.lines().flat_map(verify::sentences).map(str::trim).filter(|s| !s.is_empty()).collect();
    let mut ranked: Vec<(usize, usize)> = all.iter().enumerate().map(|(i, s)| (i, verify::terms(s).intersection(&words).count())).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut keep = Vec::new();
    let mut len = 0;
    for (i, _) in ranked {
        let n = all[i].chars().count();
        if len + n > max && !keep.is_empty() {
            break;
        }
        keep.push(i);
        len += n + 1;
    }
    keep.sort();
    let text: String = keep.iter().map(|&i| all[i]).collect::<Vec<_>>().join(" ");
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_is_named() {
        assert!(bad_input("  ").unwrap().contains("Type a question"));
        assert!(bad_input(&"why ".repeat(2500)).unwrap().contains("at most 2000"));
        assert!(bad_input("🙂🙂🙂 ?!").unwrap().contains("in words"));
        assert_eq!(bad_input("তালিকা কী?"), None, "Bengali is words");
        assert_eq!(bad_input("What is a list?"), None);
    }

    #[test]
    fn a_citation_goes_before_the_final_stop() {
        assert_eq!(with_citation("Lists are mutable.", 2), "Lists are mutable [2].");
        assert_eq!(with_citation("- Lists are mutable", 1), "- Lists are mutable [1]");
    }

    #[test]
    fn the_excerpt_keeps_the_nearest_sentences_in_order() {
        let p = "Lists are sequences. Tuples cannot change. The append method adds an item to a list. Sets hold unique items.";
        let e = nearest_sentences("append adds an item to the list", p, 80);
        assert!(e.contains("The append method adds an item to a list."), "{e}");
        assert!(!e.contains("Tuples"), "a sentence sharing no word is the last kept: {e}");
        assert!(e.chars().count() <= 81);
    }
}
