//! `index-builder route`: the router from a terminal, with the app's defaults.

use anyhow::{Result, bail};
use inference::agent::route::{self, Clarification, DecidedBy, Label, Lang, Route, RouteConfig, RouteEnv, RouteError};
use inference::llm::now;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The course bundle (its subjects: `index-builder build --subject`).
    #[arg(long)]
    bundle: PathBuf,
    /// The course's chat model (GGUF).
    #[arg(long)]
    model: PathBuf,
    /// The message (or use --queries).
    text: Option<String>,
    /// JSONL file of `{"id", "text"}` lines, with an optional `"followup"`: the learner's answer
    /// to a clarifying question, routed as the app does.
    #[arg(long, conflicts_with = "text")]
    queries: Option<PathBuf>,
    /// One JSON line per message instead of text.
    #[arg(long)]
    json: bool,
    /// Folder holding the bundle's encoder (for a clarification's options).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Margin `off_topic` needs over the best course label (default: the app's; for tuning).
    #[arg(long, allow_hyphen_values = true)]
    off_topic_margin: Option<f64>,
    /// Margin `ambiguous` needs over the best course label (default: the app's; for tuning).
    #[arg(long, allow_hyphen_values = true)]
    ambiguous_margin: Option<f64>,
    /// Margin `harmful` needs over the best course label (default: the app's; for tuning).
    #[arg(long, allow_hyphen_values = true)]
    harmful_margin: Option<f64>,
    /// Harmful is chosen first when within this of the best other label (default: the app's;
    /// for tuning).
    #[arg(long, allow_hyphen_values = true)]
    harmful_first: Option<f64>,
    /// The same for each sentence of a message with two or more (default: the app's; for
    /// tuning).
    #[arg(long, allow_hyphen_values = true)]
    harmful_sentence: Option<f64>,
    /// How far harmful must lead for a message that names nothing harmful (default: the app's;
    /// for tuning).
    #[arg(long, allow_hyphen_values = true)]
    harmful_unnamed: Option<f64>,
    /// The weight of the classifier's naive Bayes part (default: the one the classifier was
    /// trained with; for tuning).
    #[arg(long)]
    lexical_weight: Option<f64>,
    /// Score labels with the chat model even where a learned classifier exists for the
    /// bundle's encoder (the router before the classifier; for comparison).
    #[arg(long)]
    no_classifier: bool,

}

#[derive(Deserialize)]
struct Line {
    id: serde_json::Value,
    text: String,
    #[serde(default)]
    followup: Option<String>,
}

#[derive(Serialize)]
struct Out<'a> {
    id: &'a serde_json::Value,
    label: Label,
    decided_by: DecidedBy,
    scores: Option<BTreeMap<&'static str, f64>>,
    lang: Lang,
    reply: Option<&'a str>,
    clarification: Option<&'a Clarification>,
    final_label: Label,
    ms: f64,
}

pub fn run(a: Args) -> Result<()> {
    let (bundle, encoder) = super::bundle_and_encoder(&a.bundle, a.models.as_deref())?;
    let mut session = super::chat_session(&a.model)?;
    let mut cfg = RouteConfig::default();
    // The margin flags set whichever decides: the classifier or the chat model.
    for m in [&mut cfg.model, &mut cfg.classifier] {
        m.off_topic = a.off_topic_margin.unwrap_or(m.off_topic);
        m.ambiguous = a.ambiguous_margin.unwrap_or(m.ambiguous);
        m.harmful = a.harmful_margin.unwrap_or(m.harmful);
        m.harmful_first = a.harmful_first.unwrap_or(m.harmful_first);
        m.harmful_sentence = a.harmful_sentence.unwrap_or(m.harmful_sentence);
        m.harmful_unnamed = a.harmful_unnamed.or(m.harmful_unnamed);
    }
    cfg.use_classifier = !a.no_classifier;
    cfg.lexical_weight = a.lexical_weight.or(cfg.lexical_weight);

    let lines: Vec<Result<Line, String>> = match (&a.text, &a.queries) {
        (Some(t), None) => vec![Ok(Line { id: serde_json::Value::from(1), text: t.clone(), followup: None })],
        (None, Some(path)) => super::jsonl_each(path, "{\"id\", \"text\"}")?,
        _ => bail!("give a message, or --queries FILE.jsonl"),
    };
    let stdout = std::io::stdout();
    for line in &lines {
        // A line that is not a message is reported (it has no id) and the run goes on.
        let line = match line {
            Ok(line) => line,
            Err(message) => {
                let mut out = stdout.lock();
                if a.json {
                    writeln!(out, "{}", serde_json::json!({ "id": null, "error": message }))?;
                } else {
                    writeln!(out, "{message}")?;
                }
                continue;
            }
        };
        let t0 = Instant::now();
        let mut env = RouteEnv { bundle: &bundle, encoder: encoder.as_ref(), session: &mut session };
        let first = now(route::route(&mut env, &line.text, None, &cfg));
        // The learner's answer to a clarification is joined to the message and routed again.
        let last = match (&first, &line.followup) {
            (Ok(r), Some(f)) if r.label == Label::Ambiguous => Some(now(route::route(&mut env, &line.text, Some(f), &cfg))),
            _ => None,
        };
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        let mut out = stdout.lock();
        match (first, last) {
            (Ok(r), last) => {
                let final_label = match &last {
                    Some(Ok(l)) => l.label,
                    Some(Err(_)) | None => r.label,
                };
                if a.json {
                    writeln!(out, "{}", serde_json::to_string(&line_out(&line.id, &r, final_label, ms))?)?;
                } else {
                    print_route(&mut out, &r, final_label, ms)?;
                }
            }
            (Err(e), _) => {
                let message = match e {
                    RouteError::BadInput(m) => m,
                    other => other.to_string(),
                };
                if a.json {
                    writeln!(out, "{}", serde_json::json!({ "id": line.id, "error": message }))?;
                } else {
                    writeln!(out, "{message}")?;
                }
            }
        }
    }
    Ok(())
}

fn line_out<'a>(id: &'a serde_json::Value, r: &'a Route, final_label: Label, ms: f64) -> Out<'a> {
    Out {
        id,
        label: r.label,
        decided_by: r.decided_by,
        scores: r.scores.as_ref().map(|s| s.iter().map(|(l, v)| (l.name(), *v)).collect()),
        lang: r.lang,
        reply: r.reply.as_deref(),
        clarification: r.clarification.as_ref(),
        final_label,
        ms,
    }
}

fn print_route(out: &mut impl Write, r: &Route, final_label: Label, ms: f64) -> Result<()> {
    let by = if r.decided_by == DecidedBy::Rule { "a rule" } else { "the model" };
    writeln!(out, "{} (decided by {by}, {:?}, {ms:.0} ms)", r.label.name(), r.lang)?;
    if final_label != r.label {
        writeln!(out, "after the follow-up: {}", final_label.name())?;
    }
    if let Some(s) = &r.scores {
        let mut s = s.clone();
        s.sort_by(|a, b| b.1.total_cmp(&a.1));
        writeln!(out, "scores: {}", s.iter().map(|(l, v)| format!("{} {v:.2}", l.name())).collect::<Vec<_>>().join(", "))?;
    }
    if let Some(reply) = &r.reply {
        writeln!(out, "\n{reply}")?;
    }
    if let Some(c) = &r.clarification {
        for o in &c.options {
            writeln!(out, "  - {o}")?;
        }
    }
    Ok(())
}

/// `index-builder route-train`: trains the router's classifier for an encoder.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// Encoder (`e5-small`, `minilm`, a folder or file).
    #[arg(long, default_value = "e5-small")]
    encoder: String,
    /// Where to write the classifier (JSON); the crate ships inference/src/agent/route/router-e5.json
    /// and router-minilm.json.
    /// With `--cv K`: where to write the out-of-fold log-probabilities (JSONL).
    #[arg(long)]
    out: PathBuf,
    /// K-fold cross-validation instead of training: each message is scored by a classifier
    /// trained on the other folds (message i is in fold i mod K), one JSON line per message,
    /// `{"text", "label", "scores": {"<label>": log-prob}, "pieces": [scores of each sentence],
    /// "pieces_named": whether each sentence names anything harmful, "lexicon": whether the
    /// harmful lexicon fires, "named": whether the message names anything harmful}`,
    /// for choosing margins.
    #[arg(long)]
    cv: Option<usize>,
    /// Training settings other than the shipped ones (for choosing them by `--cv`).
    #[arg(long)]
    scale: Option<f32>,
    #[arg(long)]
    l2: Option<f32>,
    #[arg(long)]
    steps: Option<usize>,
    /// The naive Bayes part's weight (default: the encoder's, `TrainConfig::for_encoder`); kept in
    /// the classifier, and used for the `--cv` scores.
    #[arg(long)]
    lexical_weight: Option<f64>,
}

pub fn train(a: TrainArgs) -> Result<()> {
    use inference::agent::route::classify::{Classifier, Lexical, TrainConfig, bank, combined};
    let encoder = crate::encoder::load(&crate::encoder::resolve(&a.encoder, None))?;
    let bank = bank();
    let texts: Vec<&str> = bank.iter().map(|(t, _)| t.as_str()).collect();
    let t0 = Instant::now();
    let vectors = encoder.embed_many(&texts, inference::embed::Role::Query, 16, |_| {})?;
    let labels: Vec<Label> = bank.iter().map(|(_, l)| *l).collect();
    let defaults = TrainConfig::for_encoder(encoder.id());
    let config = TrainConfig {
        scale: a.scale.unwrap_or(defaults.scale),
        l2: a.l2.unwrap_or(defaults.l2),
        steps: a.steps.unwrap_or(defaults.steps),
        lexical_weight: a.lexical_weight.unwrap_or(defaults.lexical_weight),
        ..defaults
    };
    if let Some(k) = a.cv {
        if k < 2 {
            bail!("--cv needs at least 2 folds");
        }
        // Each message's sentences too, scored by the same fold's classifier.
        let pieces: Vec<Vec<&str>> = texts.iter().map(|t| route::classify::pieces(t)).collect();
        let piece_texts: Vec<&str> = pieces.iter().flatten().copied().collect();
        let mut piece_vectors = encoder.embed_many(&piece_texts, inference::embed::Role::Query, 16, |_| {})?.into_iter();
        let piece_vectors: Vec<Vec<Vec<f32>>> = pieces.iter().map(|p| piece_vectors.by_ref().take(p.len()).collect()).collect();
        let named = |scores: Vec<(Label, f64)>| scores.into_iter().map(|(l, s)| (l.name(), s)).collect::<BTreeMap<&str, f64>>();
        let mut out = std::io::BufWriter::new(std::fs::File::create(&a.out)?);
        let mut scored = vec![None; bank.len()];
        for fold in 0..k {
            let train: Vec<usize> = (0..bank.len()).filter(|i| i % k != fold).collect();
            let xs: Vec<Vec<f32>> = train.iter().map(|&i| vectors[i].clone()).collect();
            let ys: Vec<Label> = train.iter().map(|&i| labels[i]).collect();
            let c = Classifier::train(&xs, &ys, encoder.id(), &config);
            let lexical = Lexical::train(train.iter().map(|&i| (texts[i], labels[i])));
            let weight = config.lexical_weight;
            let score = |v: &[f32], text: &str| named(combined(&c.log_probs(v), &lexical.log_probs(text), weight));
            for i in (fold..bank.len()).step_by(k) {
                let pieces: Vec<_> = piece_vectors[i].iter().zip(&pieces[i]).map(|(v, t)| score(v, t)).collect();
                scored[i] = Some((score(&vectors[i], texts[i]), pieces));
            }
        }
        for ((text, label), scores) in bank.iter().zip(scored) {
            let (scores, pieces) = scores.expect("every message is in a fold");
            let names_harm = |t: &str| route::rules::names_harm(t, &|_| false);
            let pieces_named: Vec<bool> = route::classify::pieces(text).into_iter().map(names_harm).collect();
            let (lexicon, named) = (route::rules::harmful(text), names_harm(text));
            let line = serde_json::json!({"text": text, "label": label.name(), "scores": scores, "pieces": pieces, "pieces_named": pieces_named, "lexicon": lexicon, "named": named});
            writeln!(out, "{line}")?;
        }
        eprintln!("{k}-fold scores of {} messages in {:.1} s → {}", bank.len(), t0.elapsed().as_secs_f64(), a.out.display());
        return Ok(());
    }
    let c = Classifier::train(&vectors, &labels, encoder.id(), &config);
    std::fs::write(&a.out, serde_json::to_string(&c)? + "\n")?;
    eprintln!("trained on {} messages in {:.1} s → {}", bank.len(), t0.elapsed().as_secs_f64(), a.out.display());
    Ok(())
}
