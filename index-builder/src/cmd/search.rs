use anyhow::{Context, Result, bail};
use inference::bundle::Bundle;
use inference::embed::{Role, SentenceEncoder};
use inference::retrieve::{FeatureReranker, Fusion, Mode, Query, Reranker, RetrievalConfig, candidate_features, retrieve};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The bundle to search.
    #[arg(long)]
    bundle: PathBuf,
    /// The question (or use --queries).
    question: Option<String>,
    /// JSONL file of questions with fields `id` and `question`.
    #[arg(long, conflicts_with = "question")]
    queries: Option<PathBuf>,
    /// Evidence items per question.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// One JSON line per question instead of text.
    #[arg(long)]
    json: bool,
    /// `hybrid`, `bm25` or `dense`.
    #[arg(long, default_value = "hybrid")]
    mode: String,
    /// `rrf` (weighted reciprocal rank fusion) or `union`.
    #[arg(long, default_value = "rrf")]
    fusion: String,
    /// Fusion weight of the BM25 list.
    #[arg(long, default_value_t = 1.0)]
    w_lexical: f32,
    /// Fusion weight of the chunk-vector list.
    #[arg(long, default_value_t = 1.0)]
    w_dense: f32,
    /// Fusion weight of the heading-vector list.
    #[arg(long, default_value_t = 1.0)]
    w_heading: f32,
    /// Candidates per list before fusion.
    #[arg(long, default_value_t = 20)]
    k: usize,
    /// Skip the reranking stage.
    #[arg(long)]
    no_rerank: bool,
    /// Fail closed when coverage of the question's key terms is below this.
    #[arg(long)]
    min_coverage: Option<f32>,
    /// Fail closed when the best dense cosine is below this.
    #[arg(long)]
    min_dense: Option<f32>,
    /// Cosine calibration `FLOOR,STRETCH[,nogate]` (default: the encoder's; for tuning).
    #[arg(long)]
    calibration: Option<String>,
    /// Encoder (`minilm`, `e5-small`, a folder or file; default: the one the bundle records);
    /// must match the bundle's.
    #[arg(long)]
    encoder: Option<String>,
    /// The course LLM (GGUF): runs Ask's evidence-sufficiency check on every question the gate
    /// lets through or only doubted, on the passages Ask would give the model.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Least yes-minus-no margin of the check for a question the gate let through (default: Ask's).
    #[arg(long, requires = "model")]
    min_margin: Option<f64>,
    /// Least margin for a question the gate doubted (default: Ask's).
    #[arg(long, requires = "model")]
    min_margin_uncertain: Option<f64>,
    /// With --json: also list every fused candidate before reranking, with what the reranker
    /// reads of it (for fitting its weights, `tests/eval/rerank_fit.py`).
    #[arg(long, requires = "json")]
    features: bool,
}


#[derive(Serialize)]
struct ResultLine<'a> {
    id: &'a serde_json::Value,
    /// The bundle's encoder (`null`: BM25 only).
    encoder: Option<&'a str>,
    /// The coverage gate's decision (without the course LLM).
    abstained: bool,
    /// The gate abstained only for low coverage: with the LLM, its check decides.
    uncertain: bool,
    /// The sufficiency check's verdict and margin (`null`: no `--model`, or the gate refused).
    sufficient: Option<bool>,
    sufficiency_margin: Option<f64>,
    /// Time of the check, milliseconds (`null` when it did not run).
    llm_ms: Option<f64>,
    coverage: f32,
    best_dense: Option<f32>,
    /// Wall time of this query (embedding + retrieval), milliseconds.
    ms: f64,
    missing_terms: &'a [String],
    unknown_terms: &'a [String],
    jargon_terms: &'a [String],
    /// Key terms that stood for course terms sounding alike or meaning the same in the other
    /// script: `[term, [course terms]]`.
    alike_terms: &'a [(String, Vec<String>)],
    results: Vec<Hit<'a>>,
    /// `--features`: the fused candidates, best first.
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<Vec<Scored<'a>>>,
}

#[derive(Serialize)]
struct Scored<'a> {
    file: &'a str,
    heading_path: &'a [String],
    section: u32,
    fused: f32,
    #[serde(flatten)]
    features: inference::retrieve::rerank::Features,
}

#[derive(Serialize)]
struct Hit<'a> {
    file: &'a str,
    heading_path: &'a [String],
    tier: &'a str,
    score: f32,
    text: &'a str,
}

pub fn run(a: Args) -> Result<()> {
    let bytes = std::fs::read(&a.bundle).with_context(|| format!("cannot read bundle {}", a.bundle.display()))?;
    let bundle = Bundle::from_bytes(&bytes)?;
    let mode = match a.mode.as_str() {
        "hybrid" => Mode::Hybrid,
        "bm25" | "lexical" => Mode::Lexical,
        "dense" => Mode::Dense,
        m => bail!("unknown --mode `{m}`; use hybrid, bm25 or dense"),
    };
    let fusion = match a.fusion.as_str() {
        "rrf" => Fusion::Rrf { k: 60.0 },
        "union" => Fusion::Union,
        f => bail!("unknown --fusion `{f}`; use rrf or union"),
    };
    let mut cfg = RetrievalConfig {
        mode,
        fusion,
        k: a.k,
        top_n: a.top,
        rerank: !a.no_rerank,
        w_lexical: a.w_lexical,
        w_dense: a.w_dense,
        w_heading: a.w_heading,
        ..Default::default()
    };
    if let Some(c) = a.min_coverage {
        cfg.min_coverage = c;
    }
    if let Some(d) = a.min_dense {
        cfg.min_dense = d;
    }
    if let Some(c) = &a.calibration {
        let parts: Vec<&str> = c.split(',').map(str::trim).collect();
        let [f, s, rest @ ..] = parts.as_slice() else { bail!("--calibration FLOOR,STRETCH[,nogate]") };
        cfg.calibration = Some(inference::embed::Calibration { floor: f.parse()?, stretch: s.parse()?, gates: rest.first() != Some(&"nogate") });
    }
    let encoder: Option<SentenceEncoder> = if mode != Mode::Lexical && bundle.header.encoder.is_some() {
        let enc = match (&a.encoder, &bundle.header.encoder) {
            (Some(spec), _) => crate::encoder::load(&crate::encoder::resolve(spec, None))?,
            (None, Some(id)) => crate::encoder::for_bundle(id, None)?,
            (None, None) => unreachable!("checked above"),
        };
        bundle.check_encoder(enc.id())?;
        Some(enc)
    } else if mode == Mode::Dense {
        bail!("this bundle has no vectors (built with --no-embed); use --mode bm25 or rebuild it with an encoder");
    } else {
        None
    };
    let mut session = a.model.as_deref().map(super::chat_session).transpose()?;
    let mut sufficiency = inference::agent::ask::Sufficiency { enabled: true, ..Default::default() };
    sufficiency.min_margin = a.min_margin.unwrap_or(sufficiency.min_margin);
    sufficiency.min_margin_uncertain = a.min_margin_uncertain.unwrap_or(sufficiency.min_margin_uncertain);
    let encoder_name = bundle.header.encoder.as_ref().map(|e| e.name.clone());
    let reranker = FeatureReranker::default();
    let questions = super::questions(a.question.as_deref(), a.queries.as_deref())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for q in &questions {
        let t0 = std::time::Instant::now();
        let vector = match &encoder {
            Some(e) if e.can_read(&q.question) => Some(e.embed(&[q.question.as_str()], Role::Query)?.remove(0)),
            _ => None,
        };
        let r = Query::with_encoder(&q.question, vector.as_deref(), encoder.as_ref(), |query| retrieve(&bundle, &cfg, query, Some(&reranker as &dyn Reranker)));
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let (mut sufficient, mut margin, mut llm_ms) = (None, None, None);
        if let Some(session) = session.as_mut() {
            let t1 = std::time::Instant::now();
            if let Some(m) = check(session, &bundle, &q.question, &r)? {
                sufficient = Some(sufficiency.sufficient(m, r.abstained));
                (margin, llm_ms) = (Some(m), Some(t1.elapsed().as_secs_f64() * 1e3));
            }
        }
        if a.json {
            let line = ResultLine {
                id: &q.id,
                encoder: encoder_name.as_deref(),
                abstained: r.abstained,
                uncertain: r.uncertain,
                sufficient,
                sufficiency_margin: margin,
                llm_ms,
                coverage: r.coverage.score,
                best_dense: r.best_dense,
                ms,
                missing_terms: &r.coverage.missing,
                unknown_terms: &r.coverage.unknown,
                jargon_terms: &r.coverage.jargon,
                alike_terms: &r.coverage.alikes,
                results: r
                    .evidence
                    .iter()
                    .map(|e| Hit { file: &e.file, heading_path: &e.heading_path, tier: e.tier, score: e.score, text: &e.text })
                    .collect(),
                candidates: a.features.then(|| {
                    Query::with_encoder(&q.question, vector.as_deref(), encoder.as_ref(), |query| candidate_features(&bundle, &cfg, query))
                        .into_iter()
                        .map(|(chunk, fused, features)| {
                            let s = bundle.section_of(chunk);
                            Scored { file: &s.file, heading_path: &s.heading_path, section: bundle.chunks[chunk as usize].section, fused, features }
                        })
                        .collect()
                }),
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        } else {
            print_text(&mut out, &bundle, &q.question, &r)?;
            if let (Some(s), Some(m)) = (sufficient, margin) {
                writeln!(out, "sufficiency check: {} (margin {m:+.2})\n", if s { "the passages answer it" } else { "they do not answer it" })?;
            }
        }
    }
    Ok(())
}

/// Ask's sufficiency margin for `question`, on the passages Ask would give the model (`None`:
/// the gate refused outright, so Ask would not ask the model).
fn check(session: &mut inference::llm::Session, bundle: &Bundle, question: &str, r: &inference::retrieve::Retrieval) -> Result<Option<f64>> {
    use inference::agent::ask::{AskConfig, AskPrompt, Plan, plan, prompt_tokens, sufficiency};
    let count = |p: &AskPrompt| prompt_tokens(session, p);
    let Plan::Answer(prompt) = plan(&bundle.header.title, question, r, &AskConfig::default(), &count, true) else { return Ok(None) };
    Ok(Some(inference::llm::now(sufficiency::check(session, &prompt))?))
}

fn print_text(out: &mut impl Write, bundle: &Bundle, question: &str, r: &inference::retrieve::Retrieval) -> Result<()> {
    writeln!(out, "Q: {question}")?;
    let dense = r.best_dense.map(|d| format!(", best cosine {d:.2}")).unwrap_or_default();
    writeln!(out, "coverage {:.2}{dense}", r.coverage.score)?;
    if !r.coverage.alikes.is_empty() {
        let alikes: Vec<String> = r.coverage.alikes.iter().map(|(t, found)| format!("{t} → {}", found.join(" / "))).collect();
        writeln!(out, "read as the course's words: {}", alikes.join(", "))?;
    }
    if r.abstained {
        let why = if r.coverage.jargon.is_empty() { r.coverage.missing.join(", ") } else { format!("never mentions {}", r.coverage.jargon.join(", ")) };
        writeln!(out, "→ the course does not cover this ({why}). Nearest sections:")?;
        for &s in &r.nearest_sections {
            let s = &bundle.sections[s as usize];
            writeln!(out, "   {} ({})", s.heading_path.join(" ▸ "), s.file)?;
        }
    }
    for (i, e) in r.evidence.iter().enumerate() {
        let snippet: String = e.text.chars().take(220).collect::<String>().replace('\n', " ");
        writeln!(out, "[{}] {:.3} {:<5} {} ({}:{})", i + 1, e.score, e.tier, e.heading_path.join(" ▸ "), e.file, e.line_start)?;
        writeln!(out, "    {snippet}")?;
    }
    writeln!(out)?;
    Ok(())
}
