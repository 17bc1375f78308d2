//! `index-builder author`: a teacher's request → MCQs and creative questions with evidence, gates
//! and a verification report, exported on stdout (the app's Author view runs the same calls).

use anyhow::{Result, bail};
use inference::agent::author::{self, AuthorConfig, AuthorEnv, AuthorRequest, Difficulty, Made, Prepared, Task, export};
use inference::agent::route::Lang;
use inference::llm::now;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The course bundle.
    #[arg(long)]
    bundle: PathBuf,
    /// The course's chat model (GGUF).
    #[arg(long)]
    model: PathBuf,
    /// The request, e.g. "5 MCQs and 1 creative question on photosynthesis, intermediate"
    /// (counts, formats, difficulty and language in it are read; flags override them).
    #[arg(long, required_unless_present = "verify_items")]
    request: Option<String>,
    /// Verify hand-written items instead of writing any: a JSONL file of labelled items
    /// (tests/eval/data/own/author_verify_*.jsonl); prints one line of scores per item.
    #[arg(long)]
    verify_items: Option<PathBuf>,
    /// MCQs to write (overrides the request's count).
    #[arg(long)]
    mcq: Option<usize>,
    /// Creative questions to write (overrides the request's count).
    #[arg(long)]
    cq: Option<usize>,
    /// beginner, intermediate or advanced.
    #[arg(long)]
    difficulty: Option<String>,
    /// bn or en (default: the course's, else the request's).
    #[arg(long)]
    lang: Option<String>,
    /// Sections to write from, by heading (a chapter or section name; repeatable) instead of
    /// retrieval.
    #[arg(long)]
    section: Vec<String>,
    /// Items the teacher already has, as an earlier run's JSON output (one record per line;
    /// repeatable): new items rest on other sentences and ask other questions.
    #[arg(long)]
    avoid: Vec<PathBuf>,
    /// json (one record per line), gift or moodle-xml.
    #[arg(long, default_value = "json")]
    format: String,
    /// Also write the run's report (shortfalls, refusals, gate and ladder counts, times) as JSON.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Skip verification (for measuring generation alone).
    #[arg(long)]
    no_verify: bool,
    /// Folder holding the bundle's encoder (default $PATHSHALA_MODELS or models/cache).
    #[arg(long)]
    models: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<()> {
    let Some(format) = export::Format::parse(&a.format) else { bail!("--format: json, gift or moodle-xml") };
    let (bundle, encoder) = super::bundle_and_encoder(&a.bundle, a.models.as_deref())?;
    if let Some(path) = &a.verify_items {
        return verify_items(&bundle, encoder.as_ref(), &a.model, path);
    }
    let request = a.request.clone().unwrap_or_default();
    let mut req = AuthorRequest::parse(&request);
    if a.mcq.is_some() || a.cq.is_some() {
        req.mcq = a.mcq.unwrap_or(0);
        req.cq = a.cq.unwrap_or(0);
    }
    if let Some(d) = &a.difficulty {
        req.difficulty = Difficulty::parse(d).ok_or_else(|| anyhow::anyhow!("--difficulty: beginner, intermediate or advanced"))?;
    }
    req.lang = match a.lang.as_deref() {
        None => req.lang,
        Some("bn") => Some(Lang::Bn),
        Some("en") => Some(Lang::En),
        Some(o) => bail!("--lang {o}: bn or en"),
    };
    for name in &a.section {
        let found = bundle.sections.iter().find(|s| s.heading().eq_ignore_ascii_case(name.trim()) || s.heading_path.join(" ▸ ") == name.trim());
        match found {
            Some(s) => req.sections.push(s.id),
            None => bail!("--section {name:?} is not a heading of this course (index-builder info lists them)"),
        }
    }
    for path in &a.avoid {
        let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("--avoid {}: {e}", path.display()))?;
        let more = author::Avoid::from_json_records(&text).map_err(|e| anyhow::anyhow!("--avoid {}: {e}", path.display()))?;
        req.avoid.evidence.extend(more.evidence);
        req.avoid.questions.extend(more.questions);
    }
    let cfg = AuthorConfig { verify: !a.no_verify, ..AuthorConfig::default() };
    let mut session = super::chat_session(&a.model)?;
    let mut env = AuthorEnv { bundle: &bundle, encoder: encoder.as_ref(), session: &mut session };
    let query = request.clone();
    let t0 = Instant::now();
    let prepared = match now(author::prepare(&mut env, req.clone(), &cfg)) {
        Ok(p) => p,
        Err(author::AuthorError::BadInput(m)) => bail!("{m}"),
        Err(e) => return Err(e.into()),
    };
    let write_report = |v: &serde_json::Value| -> Result<()> {
        if let Some(path) = &a.report {
            std::fs::write(path, serde_json::to_string_pretty(v)? + "\n")?;
        }
        Ok(())
    };
    let mut job = match prepared {
        Prepared::Ready(job) => job,
        Prepared::Refused { reason, message } => {
            eprintln!("refused ({reason}): {message}");
            return write_report(&json!({"query": query, "refused": reason, "message": message, "items": 0}));
        }
        Prepared::Clarify { question, options } => {
            eprintln!("{question}");
            for o in &options {
                eprintln!("  - {o}");
            }
            return write_report(&json!({"query": query, "clarify": question, "options": options, "items": 0}));
        }
        Prepared::NotCovered { message, nearest } => {
            eprintln!("{message}");
            let names: Vec<String> = nearest.iter().map(|&s| bundle.sections[s as usize].heading_path.join(" ▸ ")).collect();
            for n in &names {
                eprintln!("  - {n}");
            }
            return write_report(&json!({"query": query, "not_covered": message, "nearest": names, "items": 0}));
        }
    };
    eprintln!("{} ▸ {} ({} passages, {}; {:.0} ms)", job.chapter, job.concept, job.passages.len(), if job.language == Lang::Bn { "Bangla" } else { "English" }, t0.elapsed().as_secs_f64() * 1000.0);
    let tasks = job.tasks();
    let mut items = Vec::new();
    let mut missing = Vec::new();
    let mut times = Vec::new();
    for task in &tasks {
        let t = Instant::now();
        match now(job.make(&mut env, *task, &cfg))? {
            Made::Item(mut item) => {
                let write_ms = t.elapsed().as_secs_f64() * 1000.0;
                if cfg.verify {
                    now(job.verify(&mut env, &mut item, &cfg))?;
                }
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                eprintln!("{} {:?} ({:?}, {} attempt(s), {:.0} s{})", item.question_id, item.task, item.ladder, item.attempts, ms / 1000.0, item.verification.as_ref().map_or(String::new(), |v| format!(", faith {:.2} rel {:.2} hall {:.2}{}", v.faithfulness, v.relevance, v.hallucination, if v.accepted { "" } else { " ⚠" })));
                times.push(json!({"id": item.question_id, "task": item.task, "write_ms": write_ms, "ms": ms}));
                items.push(*item);
            }
            Made::Missing { task, reason, attempts } => {
                eprintln!("missing {task:?} after {attempts} attempt(s): {reason}");
                missing.push(json!({"task": task, "reason": reason, "attempts": attempts}));
            }
        }
    }
    author::review_order(&mut items);
    print!("{}", export::export(&items, format));
    let asked = |t: Task| tasks.iter().filter(|&&x| x == t).count();
    let got = |t: Task| items.iter().filter(|i| i.task == t).count();
    let summary = json!({
        "query": query,
        "chapter": job.chapter,
        "concept": job.concept,
        "language": job.language,
        "difficulty": job.request.difficulty,
        "asked": {"mcq": asked(Task::Mcq), "cq": asked(Task::Cq)},
        "written": {"mcq": got(Task::Mcq), "cq": got(Task::Cq)},
        "missing": missing,
        "ladder": {
            "strict": items.iter().filter(|i| i.ladder == author::Ladder::Strict).count(),
            "retry": items.iter().filter(|i| i.ladder == author::Ladder::Retry).count(),
            "relaxed": items.iter().filter(|i| i.ladder == author::Ladder::Relaxed).count(),
        },
        "accepted": items.iter().filter(|i| i.verification.as_ref().is_some_and(|v| v.accepted)).count(),
        "flagged": items.iter().filter(|i| i.verification.as_ref().is_some_and(|v| !v.accepted)).count(),
        "times": times,
        "total_ms": t0.elapsed().as_secs_f64() * 1000.0,
    });
    eprintln!("{summary}");
    write_report(&summary)
}

/// A labelled item of an evaluation set (see tests/eval/data/own/README.md).
#[derive(serde::Deserialize)]
struct Labelled {
    id: String,
    kind: String,
    file: String,
    heading: String,
    request: String,
    difficulty: String,
    #[serde(default)]
    question: String,
    #[serde(default)]
    options: Vec<String>,
    #[serde(default)]
    answer_index: usize,
    #[serde(default)]
    headline: String,
    #[serde(default)]
    clue: String,
    #[serde(default)]
    parts: Vec<String>,
    fault: Option<String>,
    label: String,
}

/// Runs verification on hand-written items: the evidence is the chunk of the named section
/// sharing most words with the item, as if the item had been written from it.
fn verify_items(bundle: &inference::bundle::Bundle, encoder: Option<&inference::embed::SentenceEncoder>, model: &std::path::Path, path: &std::path::Path) -> Result<()> {
    use author::{Authored, Body, Creative, Mcq, Part, verify};
    use inference::agent::quiz::ItemEvidence;
    use inference::agent::ask::verify::terms;
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut session = super::chat_session(model)?;
    let mut cal = verify::Calibration::default();
    let th = author::Thresholds::for_judge(session.parameters());
    let plain = |s: &str| s.replace('`', "").trim().to_string();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let l: Labelled = serde_json::from_str(line).map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), n + 1))?;
        let Some(section) = bundle.sections.iter().find(|s| s.file == l.file && plain(s.heading()) == plain(&l.heading)) else {
            bail!("{}:{}: no section {:?} in {}", path.display(), n + 1, l.heading, l.file);
        };
        let lang = if inference::agent::route::rules::language(&l.question).eq(&Lang::Bn) || inference::agent::route::rules::language(&l.clue).eq(&Lang::Bn) { Lang::Bn } else { Lang::En };
        let words = terms(&format!("{} {} {} {}", l.question, l.options.join(" "), l.clue, l.parts.join(" ")));
        let chunk = bundle
            .chunks
            .iter()
            .filter(|c| c.section == section.id)
            .max_by_key(|c| terms(bundle.chunk_text(c.id)).intersection(&words).count())
            .map(|c| c.id)
            .ok_or_else(|| anyhow::anyhow!("section {:?} has no text", l.heading))?;
        let body = if l.kind == "cq" {
            let parts = l.parts.iter().enumerate().map(|(i, q)| {
                let (label, skill, marks) = author::part_meta(i, lang);
                Part { label: label.into(), skill: skill.into(), question: q.clone(), marks, answer: String::new() }
            });
            Body::Cq(Creative { headline: l.headline.clone(), clue: l.clue.clone(), parts: parts.collect() })
        } else {
            Body::Mcq(Mcq { question: l.question.clone(), options: l.options.clone(), answer_index: l.answer_index, rationales: vec![] })
        };
        let sources = vec![ItemEvidence { chunk, section: section.id, file: section.file.clone(), heading_path: section.heading_path.clone(), quote: String::new() }];
        let chapter = section.heading_path.first().cloned().unwrap_or_default();
        let difficulty = Difficulty::parse(&l.difficulty).unwrap_or(Difficulty::Intermediate);
        let item = Authored::new(l.id.clone(), body, chapter, section.heading().to_string(), sources, difficulty, lang);
        let t = Instant::now();
        let mut env = verify::VerifyEnv { bundle, encoder, session: &mut session };
        let v = now(verify::verify(&mut env, &item, &l.request, true, &th, &mut cal))?;
        let out = json!({"id": l.id, "kind": l.kind, "label": l.label, "fault": l.fault, "faithfulness": v.faithfulness, "relevance": v.relevance,
            "hallucination": v.hallucination, "accepted": v.accepted, "detail": v.detail, "ms": t.elapsed().as_secs_f64() * 1000.0});
        println!("{out}");
    }
    Ok(())
}
