//! `index-builder quiz`: the adaptive quiz from a terminal, with the app's defaults and a
//! scripted learner.

use anyhow::{Result, bail};
use inference::agent::quiz::{self, Bloom, Branch, Made, Quiz, QuizConfig, QuizEnv, Topic};
use inference::llm::now;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Clone, Copy, clap::ValueEnum)]
enum Learner {
    /// Always the right option.
    Correct,
    /// Always a wrong option.
    Wrong,
    /// Right, wrong, right, …
    Alternate,
}

#[derive(clap::Args)]
pub struct Args {
    /// The course bundle.
    #[arg(long)]
    bundle: PathBuf,
    /// The course's chat model (GGUF).
    #[arg(long)]
    model: PathBuf,
    /// What to be quizzed on ("loops", or a whole request: "quiz me on loops").
    #[arg(long)]
    topic: String,
    /// Which subtopic: its 1-based number in the list printed to stderr, or its name (default:
    /// the first).
    #[arg(long)]
    subtopic: Option<String>,
    /// Items to show.
    #[arg(long, default_value_t = 8)]
    n: usize,
    /// A scripted learner answers each item (none: items are not answered and stay at the
    /// starting level).
    #[arg(long, value_enum)]
    learner: Option<Learner>,
    /// The first item's Bloom level (default: the app's for a first quiz: apply, or analyse,
    /// when the first passage holds a line of the book to run at it, else understand).
    #[arg(long)]
    start: Option<String>,
    /// One JSON line per shown or skipped item instead of text; a summary line on stderr.
    #[arg(long)]
    json: bool,
    /// Folder holding the bundle's encoder (default $PATHSHALA_MODELS or models/cache).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Skip the model's check of each item (for measuring what it adds).
    #[arg(long)]
    no_examine: bool,
    /// How far the key's probability may fall below the best wrong option's in the examiner's
    /// judgement (default: the app's, by the model's size; set, the examiner runs on any model).
    #[arg(long, allow_hyphen_values = true)]
    min_key_gap: Option<f64>,
    /// Repairs of a failing item before it is skipped (default: the app's, 2).
    #[arg(long)]
    repairs: Option<usize>,
    /// Repetition penalty while an item is written (default: the app's; for tuning).
    #[arg(long)]
    repeat_penalty: Option<f32>,
    /// Write no items: print the passages the first `--n` items would rest on if the learner
    /// answered each one right (one JSON line each: the passage's section and whether it lies
    /// in the chosen subtopic), to see how a quiz covers a subtopic without the model's time.
    #[arg(long)]
    plans_only: bool,
    /// Plan items over all the evidence's sections alike, not the subtopic's own first (the
    /// quiz before session 34; for comparison).
    #[arg(long)]
    no_subtopic_first: bool,
    /// A retake: an earlier run's `--json` output; the questions answered right there are asked
    /// last, as the app does for the last quiz on a subtopic.
    #[arg(long)]
    known: Option<PathBuf>,
}

#[derive(Serialize)]
struct EvidenceLine<'a> {
    chunk: u32,
    file: &'a str,
    heading_path: &'a [String],
    /// The sentence the key rests on.
    quote: &'a str,
}

#[derive(Serialize)]
struct ValidatorLine<'a> {
    passed: bool,
    checks: &'a std::collections::BTreeMap<String, bool>,
    attempts: usize,
    examiner: Option<&'a [f64]>,
    rejected: &'a [String],
    /// From one of the book's definitions, not written by the model.
    by_definition: bool,
    /// From running a line of the book's session, not written by the model.
    by_running: bool,
    /// From a reason the book gives, not written by the model.
    by_reason: bool,
    /// From the members of a kind the book lists, not written by the model.
    by_example: bool,
    /// From a row of a table the book compares two things in, not written by the model.
    by_contrast: bool,
    /// From claims the book makes, three of them turned, not written by the model.
    by_statement: bool,
}

#[derive(Serialize)]
struct ItemLine<'a> {
    subtopic: &'a str,
    bloom: Bloom,
    question: &'a str,
    options: &'a [String],
    answer_index: usize,
    rationales: &'a [String],
    concepts: &'a [String],
    evidence: Vec<EvidenceLine<'a>>,
    validator: ValidatorLine<'a>,
    learner_answer: Option<usize>,
    correct: Option<bool>,
    next_bloom: Bloom,
    ms: f64,
}

pub fn run(a: Args) -> Result<()> {
    let (bundle, encoder) = super::bundle_and_encoder(&a.bundle, a.models.as_deref())?;
    let mut session = super::chat_session(&a.model)?;
    let mut cfg = QuizConfig::default();
    cfg.examine = !a.no_examine;
    cfg.min_key_gap = a.min_key_gap;
    cfg.repairs = a.repairs.unwrap_or(cfg.repairs);
    cfg.repeat_penalty = a.repeat_penalty.unwrap_or(cfg.repeat_penalty);
    let start = a.start.as_deref().map(|s| Bloom::parse(s).ok_or_else(|| anyhow::anyhow!("--start: one of remember, understand, apply, analyse, evaluate, create"))).transpose()?;
    let mut env = QuizEnv { bundle: &bundle, encoder: encoder.as_ref(), session: &mut session };
    let topic = quiz::topic_of(&a.topic);
    let t0 = Instant::now();
    let subtopics = match now(quiz::subtopics(&mut env, &topic, &cfg)) {
        Ok(Topic::Covered { subtopics }) => subtopics,
        Ok(Topic::NotCovered { message, nearest }) => {
            eprintln!("{message}");
            for s in nearest {
                eprintln!("  - {}", bundle.sections[s as usize].heading_path.join(" ▸ "));
            }
            return Ok(());
        }
        Err(quiz::QuizError::BadInput(m)) => bail!("{m}"),
        Err(e) => return Err(e.into()),
    };
    eprintln!("subtopics of \"{topic}\" ({:.0} ms):", t0.elapsed().as_secs_f64() * 1000.0);
    for (i, s) in subtopics.iter().enumerate() {
        eprintln!("  {}. {}  ({})", i + 1, s.name, s.heading_path.join(" ▸ "));
    }
    let chosen = match &a.subtopic {
        None => 0,
        Some(k) => match k.parse::<usize>() {
            Ok(i) if (1..=subtopics.len()).contains(&i) => i - 1,
            Ok(_) => bail!("--subtopic {k}: give a number from 1 to {}", subtopics.len()),
            Err(_) => match subtopics.iter().position(|s| s.name.eq_ignore_ascii_case(k)) {
                Some(i) => i,
                None => bail!("--subtopic {k:?} is not in the list above"),
            },
        },
    };
    let subtopic = subtopics[chosen].clone();
    eprintln!("quiz on: {}", subtopic.name);
    let mut q = now(Quiz::start(&env, &topic, subtopic, start, &cfg))?;
    if a.no_subtopic_first {
        q.inside = 0;
    }
    if let Some(path) = &a.known {
        let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("--known {}: {e}", path.display()))?;
        let mut known = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| anyhow::anyhow!("--known {}: {e}", path.display()))?;
            if let (Some(question), Some(true)) = (v["question"].as_str(), v["correct"].as_bool()) {
                known.push(question.to_string());
            }
        }
        q.know(&bundle, known);
    }
    if a.plans_only {
        return plans_only(&bundle, &mut q, a.n, &cfg);
    }
    let stdout = std::io::stdout();
    let mut next = q.plan(Branch::First, &cfg);
    let (mut shown, mut skips_in_row) = (0, 0);
    while shown < a.n {
        if skips_in_row == cfg.plans_per_item {
            eprintln!("no item passed the checks on {skips_in_row} passages in a row: the quiz ends here");
            break;
        }
        let Some(plan) = next.take() else {
            eprintln!("every passage of this subtopic has been used");
            break;
        };
        let t = Instant::now();
        let made = now(q.make(&mut env, &plan, &cfg))?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let mut out = stdout.lock();
        match made {
            Made::Skipped { reason, attempts, validation, last } => {
                if a.json {
                    let line = serde_json::json!({"skipped": reason, "attempts": attempts, "bloom": plan.bloom, "checks": validation.checks,
                        "rejected": validation.rejected, "examiner": validation.examiner, "last_attempt": last, "ms": ms});
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "(skipped after {attempts} attempts: {reason})\n")?;
                }
                next = q.replan(&plan, &cfg);
                q.skip(plan, reason);
                skips_in_row += 1;
            }
            Made::Item { item, validation } => {
                q.show(item, validation);
                shown += 1;
                skips_in_row = 0;
                let answer = a.learner.map(|l| {
                    let key = q.current().map_or(0, |r| r.item.answer_index);
                    let right = match l {
                        Learner::Correct => true,
                        Learner::Wrong => false,
                        Learner::Alternate => shown % 2 == 1,
                    };
                    if right { key } else { (key + 1) % 4 }
                });
                let feedback = answer.and_then(|c| q.answer(c));
                let round = q.current().expect("just shown");
                let next_bloom = feedback.as_ref().map_or(round.item.bloom, |f| f.next_bloom);
                if a.json {
                    writeln!(out, "{}", serde_json::to_string(&item_line(&q, round, next_bloom, ms))?)?;
                } else {
                    print_round(&mut out, &q, round, ms)?;
                }
                let branch = match feedback.map(|f| f.correct) {
                    Some(true) => Branch::Right,
                    Some(false) => Branch::Wrong,
                    None => Branch::First,
                };
                next = q.plan(branch, &cfg);
            }
        }
    }
    let (h, j, k) = q.evenness(&bundle);
    let summary = serde_json::json!({"summary": {
        "topic": topic, "subtopic": q.subtopic.name, "shown": q.rounds.len(), "skipped": q.skipped.len(),
        "entropy": h, "pielou_j": j, "k_sections": k, "scores": q.scores(),
        "tokens_evaluated": session.evaluated(), "ms": t0.elapsed().as_secs_f64() * 1000.0,
    }});
    eprintln!("{summary}");
    Ok(())
}

fn item_line<'a>(q: &'a Quiz, r: &'a quiz::Round, next_bloom: Bloom, ms: f64) -> ItemLine<'a> {
    let i = &r.item;
    ItemLine {
        subtopic: &q.subtopic.name,
        bloom: i.bloom,
        question: &i.question,
        options: &i.options,
        answer_index: i.answer_index,
        rationales: &i.rationales,
        concepts: &i.concepts,
        evidence: i.evidence.iter().map(|e| EvidenceLine { chunk: e.chunk, file: &e.file, heading_path: &e.heading_path, quote: &e.quote }).collect(),
        validator: ValidatorLine {
            passed: r.validation.passed,
            checks: &r.validation.checks,
            attempts: r.validation.attempts,
            examiner: r.validation.examiner.as_deref(),
            rejected: &r.validation.rejected,
            by_definition: r.validation.by_definition,
            by_running: r.validation.by_running,
            by_reason: r.validation.by_reason,
            by_example: r.validation.by_example,
            by_contrast: r.validation.by_contrast,
            by_statement: r.validation.by_statement,
        },
        learner_answer: r.learner_answer,
        correct: r.correct,
        next_bloom,
        ms,
    }
}

fn print_round(out: &mut impl Write, q: &Quiz, r: &quiz::Round, ms: f64) -> Result<()> {
    let i = &r.item;
    let letters: &[&str] = if q.language == "Bangla" { &["ক", "খ", "গ", "ঘ"] } else { &["A", "B", "C", "D"] };
    let how = if r.validation.by_definition {
        "the book's definition".to_string()
    } else if r.validation.by_running {
        "the book's session, run".to_string()
    } else if r.validation.by_reason {
        "the book's reason".to_string()
    } else if r.validation.by_example {
        "the book's examples".to_string()
    } else if r.validation.by_contrast {
        "the book's comparison table".to_string()
    } else if r.validation.by_statement {
        "the book's claims, three turned".to_string()
    } else {
        format!("{} attempt(s)", r.validation.attempts)
    };
    writeln!(out, "[{}] {}  ({:.1} s, {how})", i.bloom.name(), i.question, ms / 1000.0)?;
    for (n, o) in i.options.iter().enumerate() {
        let mark = if n == i.answer_index { "*" } else { " " };
        writeln!(out, " {mark}{}) {o}", letters[n])?;
        writeln!(out, "      {}", i.rationales[n])?;
    }
    let e = &i.evidence[0];
    writeln!(out, "  concepts: {}; from {} ({})", i.concepts.join(", "), e.heading_path.join(" ▸ "), e.file)?;
    if let (Some(a), Some(c)) = (r.learner_answer, r.correct) {
        writeln!(out, "  learner chose {}): {}", letters[a], if c { "right" } else { "wrong" })?;
    }
    writeln!(out)?;
    Ok(())
}

/// `--plans-only`: the passages of the first `n` items on the all-right path, as JSON lines.
fn plans_only(bundle: &inference::bundle::Bundle, q: &mut Quiz, n: usize, cfg: &QuizConfig) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let mut branch = Branch::First;
    for number in 1..=n {
        let Some(plan) = q.plan(branch, cfg) else { break };
        let section = bundle.section_of(plan.chunk);
        let inside = q.passages.iter().any(|p| p.0 == plan.chunk && bundle.section_within(p.1, q.subtopic.section));
        writeln!(out, "{}", serde_json::json!({"number": number, "chunk": plan.chunk, "heading_path": section.heading_path, "inside": inside, "subtopic": q.subtopic.heading_path}))?;
        // A stand-in item on that passage, answered right, so the next plan follows it.
        let evidence = vec![quiz::ItemEvidence { chunk: plan.chunk, section: section.id, file: section.file.clone(), heading_path: section.heading_path.clone(), quote: String::new() }];
        let item = quiz::Item { question: String::new(), options: vec![String::new(); 4], answer_index: 0, rationales: vec![String::new(); 4], bloom: plan.bloom, concepts: vec![], evidence };
        q.show(item, quiz::Validation { passed: true, checks: Default::default(), attempts: 1, examiner: None, rejected: vec![], ..Default::default() });
        q.answer(0);
        branch = Branch::Right;
    }
    eprintln!("{} of {} passages lie in the subtopic", q.inside, q.passages.len());
    Ok(())
}
