//! `index-builder ask`: the Ask agent from a terminal, with the app's defaults.

use anyhow::{Context, Result};
use inference::agent::ask::{AbstainReason, Answer, AskEnv, AskEvent, AskRun, AskSettings, CheckRule, Quote, Source};
use inference::bundle::Bundle;
use inference::llm::now;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The course bundle.
    #[arg(long)]
    bundle: PathBuf,
    /// The chat model (GGUF), e.g. models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf.
    #[arg(long)]
    model: PathBuf,
    /// The question (or use --queries).
    question: Option<String>,
    /// JSONL file of questions with fields `id` and `question`.
    #[arg(long, conflicts_with = "question")]
    queries: Option<PathBuf>,
    /// One JSON line per question instead of text.
    #[arg(long)]
    json: bool,
    /// Folder holding the bundle's encoder (a subfolder named as the bundle records it);
    /// default $PATHSHALA_MODELS or models/cache.
    #[arg(long)]
    models: Option<PathBuf>,
    /// Passages in the prompt (default: the app's).
    #[arg(long)]
    passages: Option<usize>,
    /// Characters of the top-ranked passage (default: the app's).
    #[arg(long)]
    first_passage_chars: Option<usize>,
    /// Characters of each other passage (default: the app's).
    #[arg(long)]
    passage_chars: Option<usize>,
    /// Most answer tokens (default: the app's).
    #[arg(long)]
    max_tokens: Option<usize>,
    /// Show the model's answer unchecked (for measuring the model alone).
    #[arg(long)]
    no_verify: bool,
    /// Write an answer none of whose sentences passed the check once more, in the passages' own
    /// words, before withholding it (`AskConfig::retry`; off in the app).
    #[arg(long)]
    retry: bool,
    /// Answer in the passages' own sentences from the start (`AskConfig::book_words`; off in the app).
    #[arg(long)]
    book_words: bool,
    /// Prompt-lookup drafts of up to this many tokens (`AskConfig::draft`; default: the app's).
    #[arg(long)]
    draft: Option<usize>,
    /// Least score of the check (`agent::ask::CheckRule`; default: the one fitted for the model's size; for tuning).
    #[arg(long, allow_hyphen_values = true)]
    min_score: Option<f64>,
    /// Least lexical support of the check (default: the app's; for tuning).
    #[arg(long)]
    min_lexical: Option<f32>,
    /// Answer without evidence (closed book): the same model and system turn, the question only.
    #[arg(long)]
    closed_book: bool,
    /// Run the evidence-sufficiency check before answering (off by default: see
    /// `agent::ask::Sufficiency`); a question the gate only doubted is then asked too.
    #[arg(long)]
    sufficiency: bool,
    /// Stop once the passages are chosen and the prompt is built: no model reading, no answer
    /// (for measuring the evidence stage, `tests/eval/evidence_eval.py`).
    #[arg(long)]
    sources_only: bool,
    /// A file whose text replaces the rules of Ask's system turn (`agent::ask::prompt::RULES`;
    /// for tuning the prompt).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// Longest book quote in characters (default: the app's; `AskConfig::quote_chars`).
    #[arg(long)]
    quote_chars: Option<usize>,
    /// Let the model write the whole answer, without the book's sentence that opens it by
    /// default (`AskConfig::lead`; for measuring).
    #[arg(long)]
    no_lead: bool,
    /// Least calibrated cosine between the question and the lead sentence (default: the app's;
    /// `AskConfig::min_lead_cosine`; for tuning).
    #[arg(long)]
    min_lead_cosine: Option<f32>,
    /// Characters of the book's sentences that open the answer (default: the app's;
    /// `AskConfig::lead_chars`; for tuning).
    #[arg(long)]
    lead_chars: Option<usize>,
    /// Least share of the lead's weight on the question another passage's best sentence needs
    /// to join the opening (default: the app's; `AskConfig::opening_others`; `inf`: never).
    #[arg(long)]
    opening_others: Option<f32>,
    /// How much a sentence's nearness to the question by meaning counts when the quote and
    /// the opening pick the book's sentences (default: the app's; `AskConfig::sentence_meaning`).
    #[arg(long)]
    sentence_meaning: Option<f32>,
}


#[derive(Serialize)]
struct Place<'a> {
    file: &'a str,
    heading_path: &'a [String],
}

#[derive(Serialize)]
struct Numbered<'a> {
    n: usize,
    file: &'a str,
    heading_path: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

#[derive(Serialize)]
struct SentenceLine<'a> {
    text: &'a str,
    cites: Vec<usize>,
    supported: bool,
    margin: Option<f64>,
    lexical: f32,
    /// Left out unchecked: it repeats an earlier sentence.
    repeated: bool,
}

#[derive(Serialize)]
struct QuoteLine<'a> {
    text: &'a str,
    file: &'a str,
    heading_path: &'a [String],
}

#[derive(Serialize)]
struct AnswerLine<'a> {
    id: &'a serde_json::Value,
    abstained: bool,
    abstain_reason: Option<AbstainReason>,
    /// The evidence-sufficiency check's verdict and yes-minus-no margin (`null`: it did not run).
    sufficient: Option<bool>,
    sufficiency_margin: Option<f64>,
    message: Option<&'a str>,
    answer: Option<&'a str>,
    raw_answer: Option<&'a str>,
    /// The first answer's text when none of it passed the check and the model answered again
    /// in the passages' words (`raw_answer` is then the second).
    first_raw_answer: Option<&'a str>,
    sentences: Vec<SentenceLine<'a>>,
    dropped: usize,
    quote: Option<QuoteLine<'a>>,
    citations: Vec<Numbered<'a>>,
    sources: Vec<Numbered<'a>>,
    nearest: Vec<Place<'a>>,
    prompt_tokens: usize,
    sources_ms: Option<f64>,
    /// The answer's opening from the book (`AskConfig::lead`) and when it was shown.
    lead: Option<&'a str>,
    lead_ms: Option<f64>,
    first_token_ms: Option<f64>,
    new_tokens: usize,
    check_ms: Option<f64>,
    ms: f64,
}

/// Everything one question produced.
#[derive(Default)]
struct Outcome {
    sources: Vec<Source>,
    quote: Option<Quote>,
    prompt_tokens: usize,
    answer: Option<Answer>,
    /// The withdrawn first answer, when there was a second try.
    first_try: Option<Answer>,
    abstained: Option<(AbstainReason, String, Vec<u32>)>,
    sufficiency: Option<(bool, f64)>,
    sources_ms: Option<f64>,
    lead: Option<String>,
    lead_ms: Option<f64>,
    first_token_ms: Option<f64>,
    answer_ms: Option<f64>,
    ms: f64,
}

pub fn run(a: Args) -> Result<()> {
    let (bundle, encoder) = super::bundle_and_encoder(&a.bundle, a.models.as_deref())?;
    let mut session = super::chat_session(&a.model)?;
    let mut settings = AskSettings::default();
    if let Some(n) = a.passages {
        settings.ask.passages = n;
    }
    if let Some(n) = a.first_passage_chars {
        settings.ask.first_passage_chars = n;
    }
    if let Some(n) = a.passage_chars {
        settings.ask.passage_chars = n;
    }
    if let Some(n) = a.max_tokens {
        settings.ask.max_new_tokens = n;
    }
    settings.verify.enabled = !a.no_verify;
    settings.ask.retry = a.retry;
    if let Some(path) = &a.rules {
        settings.ask.rules = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    }
    settings.ask.book_words = a.book_words;
    if let Some(n) = a.quote_chars {
        settings.ask.quote_chars = n;
    }
    if let Some(d) = a.draft {
        settings.ask.draft = d;
    }
    settings.ask.lead = !a.no_lead;
    if let Some(x) = a.min_lead_cosine {
        settings.ask.min_lead_cosine = x;
    }
    if let Some(x) = a.lead_chars {
        settings.ask.lead_chars = x;
    }
    if let Some(x) = a.opening_others {
        settings.ask.opening_others = x;
    }
    if let Some(x) = a.sentence_meaning {
        settings.ask.sentence_meaning = x;
    }
    if a.min_score.is_some() || a.min_lexical.is_some() {
        let fitted = CheckRule::for_checker(session.parameters());
        let min_score = a.min_score.unwrap_or(fitted.min_score);
        settings.verify.rule = Some(CheckRule { min_score, min_lexical: a.min_lexical.unwrap_or(fitted.min_lexical), ..fitted });
    }
    settings.closed_book = a.closed_book;
    settings.sufficiency.enabled = a.sufficiency;
    let questions = super::questions(a.question.as_deref(), a.queries.as_deref())?;
    let stdout = std::io::stdout();
    for q in &questions {
        let mut env = AskEnv { bundle: &bundle, encoder: encoder.as_ref(), session: &mut session };
        let stream = !a.json;
        let outcome = answer(&mut env, &q.question, settings.clone(), stream, a.sources_only);
        let mut out = stdout.lock();
        match outcome {
            Ok(o) if a.json => writeln!(out, "{}", serde_json::to_string(&line(&bundle, &q.id, &o))?)?,
            Ok(o) => print_text(&mut out, &bundle, &o)?,
            Err(e) if a.json => writeln!(out, "{}", serde_json::json!({"id": q.id, "error": format!("{e:#}")}))?,
            Err(e) => eprintln!("error: {e:#}"),
        }
        out.flush()?;
    }
    Ok(())
}

/// Runs the agent on one question; streams the answer to stdout when `stream`.
/// With `sources_only`, stops after the sources (and the answer's opening from the book).
fn answer(env: &mut AskEnv<'_>, question: &str, settings: AskSettings, stream: bool, sources_only: bool) -> Result<Outcome> {
    let t0 = Instant::now();
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let mut run = AskRun::new(question, settings);
    let mut o = Outcome::default();
    while let Some(event) = now(run.step(env))? {
        match event {
            AskEvent::Sources { sources, quote, prompt_tokens } => {
                o.sources_ms = Some(ms(t0));
                if stream {
                    if let Some(q) = &quote {
                        eprintln!("From the book [{}] {}: “{}”\n", q.n, q.heading_path.join(" ▸ "), q.text);
                    }
                }
                (o.sources, o.quote, o.prompt_tokens) = (sources, quote, prompt_tokens);
            }
            AskEvent::Lead(text) => {
                o.lead_ms = Some(ms(t0));
                if stream {
                    print!("{text}");
                    std::io::stdout().flush()?;
                }
                o.lead = Some(text);
            }
            _ if sources_only && o.sources_ms.is_some() => break,
            AskEvent::Reading { .. } => {}
            AskEvent::Sufficiency { margin, sufficient, .. } => o.sufficiency = Some((sufficient, margin)),
            AskEvent::Token(text) => {
                o.first_token_ms.get_or_insert_with(|| ms(t0));
                if stream {
                    print!("{text}");
                    std::io::stdout().flush()?;
                }
            }
            AskEvent::Checking { done, .. } => {
                if done == 0 {
                    o.answer_ms = Some(ms(t0));
                    if stream {
                        println!();
                    }
                }
            }
            AskEvent::Retrying(first) => {
                if stream {
                    println!("\n(None of that could be checked against the book; answering again in its words.)");
                }
                o.first_try = Some(first);
            }
            AskEvent::Answered(answer) => o.answer = Some(answer),
            AskEvent::Abstained { reason, message, nearest, answer } => {
                o.abstained = Some((reason, message, nearest));
                o.answer = answer;
            }
        }
    }
    o.ms = ms(t0);
    Ok(o)
}

fn line<'a>(bundle: &'a Bundle, id: &'a serde_json::Value, o: &'a Outcome) -> AnswerLine<'a> {
    let file = |section: u32| bundle.sections[section as usize].file.as_str();
    let numbered = |s: &'a Source, text: bool| Numbered { n: s.n, file: file(s.section), heading_path: &s.heading_path, text: text.then_some(s.text.as_str()) };
    let mut cited: Vec<usize> = o.answer.iter().flat_map(|a| a.units.iter().filter(|u| u.supported).filter_map(|u| u.support)).collect();
    cited.sort();
    cited.dedup();
    let abstained = o.abstained.is_some();
    AnswerLine {
        id,
        abstained,
        abstain_reason: o.abstained.as_ref().map(|(r, _, _)| *r),
        sufficient: o.sufficiency.map(|s| s.0),
        sufficiency_margin: o.sufficiency.map(|s| s.1),
        message: o.abstained.as_ref().map(|(_, m, _)| m.as_str()),
        answer: o.answer.as_ref().filter(|_| !abstained).map(|a| a.shown.as_str()),
        raw_answer: o.answer.as_ref().map(|a| a.raw.as_str()),
        first_raw_answer: o.first_try.as_ref().map(|a| a.raw.as_str()),
        sentences: o
            .answer
            .iter()
            .flat_map(|a| &a.units)
            .map(|u| SentenceLine {
                text: &u.text,
                cites: if u.supported { u.support.into_iter().collect() } else { u.cited.clone() },
                supported: u.supported,
                margin: u.margin,
                lexical: u.lexical,
                repeated: u.repeated,
            })
            .collect(),
        dropped: o.answer.as_ref().map_or(0, |a| a.dropped),
        quote: o.quote.as_ref().map(|q| QuoteLine { text: &q.text, file: file(q.section), heading_path: &q.heading_path }),
        citations: if abstained { Vec::new() } else { cited.iter().filter_map(|&n| o.sources.get(n - 1)).map(|s| numbered(s, false)).collect() },
        sources: o.sources.iter().map(|s| numbered(s, true)).collect(),
        nearest: o
            .abstained
            .iter()
            .flat_map(|(_, _, n)| n)
            .map(|&s| Place { file: file(s), heading_path: &bundle.sections[s as usize].heading_path })
            .collect(),
        prompt_tokens: o.prompt_tokens,
        sources_ms: o.sources_ms,
        lead: o.lead.as_deref(),
        lead_ms: o.lead_ms,
        first_token_ms: o.first_token_ms,
        new_tokens: o.answer.as_ref().map_or(0, |a| a.tokens),
        check_ms: o.answer_ms.map(|t| o.ms - t),
        ms: o.ms,
    }
}

fn print_text(out: &mut impl Write, bundle: &Bundle, o: &Outcome) -> Result<()> {
    if let Some((_, message, nearest)) = &o.abstained {
        writeln!(out, "\n{message}")?;
        for &s in nearest.iter().take(3) {
            writeln!(out, "  nearest: {}", bundle.sections[s as usize].heading_path.join(" ▸ "))?;
        }
    }
    if let Some(a) = o.answer.as_ref().filter(|_| o.abstained.is_none()) {
        writeln!(out, "\nChecked answer:\n{}", a.shown)?;
        if a.dropped > 0 {
            writeln!(out, "({} sentence(s) left out: the book does not support them)", a.dropped)?;
        }
    }
    if !o.sources.is_empty() {
        writeln!(out, "\nSources:")?;
        for s in &o.sources {
            writeln!(out, "  [{}] {} ({})", s.n, s.heading_path.join(" ▸ "), bundle.sections[s.section as usize].file)?;
        }
    }
    eprintln!(
        "sources {:.0} ms, the book's opening {}, first token {}, {} prompt tokens, total {:.0} ms",
        o.sources_ms.unwrap_or(0.0),
        o.lead_ms.map_or("-".into(), |t| format!("{t:.0} ms")),
        o.first_token_ms.map_or("-".into(), |t| format!("{t:.0} ms")),
        o.prompt_tokens,
        o.ms
    );
    Ok(())
}
