use crate::ingest;
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use inference::embed::{Role, SentenceEncoder};
use inference::index::build::{BuildOptions, EmbedMode, Embeddings, finish, prepare};
use inference::index::{ChunkConfig, TierWindow};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the bundle.
    #[arg(long)]
    out: PathBuf,
    /// Course title (default: the first input's name).
    #[arg(long)]
    title: Option<String>,
    /// A subject the course teaches, e.g. "introductory Python programming" (repeatable): the
    /// router sends messages outside every subject to a fixed off-topic reply.
    #[arg(long = "subject")]
    subjects: Vec<String>,
    /// The course's language.
    #[arg(long, value_parser = ["en", "bn"])]
    lang: Option<String>,
    /// Sentence encoder: `minilm` (all-MiniLM-L6-v2, English), `e5-small` (multilingual-e5-small,
    /// 4-bit; reads Bengali), or a folder/file. Recorded in the bundle; search, ask and the app use it.
    #[arg(long, default_value = "minilm")]
    encoder: String,
    /// Skip embeddings: a lexical-only bundle (fast, small, no dense search).
    #[arg(long)]
    no_embed: bool,
    /// Text embedded per chunk: `plain` (the chunk; its heading is embedded separately) or
    /// `contextual` (heading path + chunk). Plain scored higher on the dev set (docs/EVALUATION.md).
    #[arg(long, default_value = "plain")]
    embed_mode: String,
    /// Macro tier window/overlap in characters.
    #[arg(long, default_value = "3600/650", value_parser = parse_window)]
    macro_window: TierWindow,
    #[arg(long, default_value = "1900/320", value_parser = parse_window)]
    meso_window: TierWindow,
    #[arg(long, default_value = "1100/180", value_parser = parse_window)]
    micro_window: TierWindow,
    /// Also write the text embedded for each chunk to this JSONL file (field `text`), e.g. to
    /// measure another encoder on exactly the same input.
    #[arg(long)]
    dump_embed_texts: Option<PathBuf>,
    /// Do not reuse or store chunk embeddings in the embedding cache.
    #[arg(long)]
    no_cache: bool,
    /// Chunks per encoder batch (sorted by length; 2 to 16 embedded alike, 32 and 128 ~10 %
    /// slower on 2 cores: docs/BENCHMARKS.md).
    #[arg(long, default_value_t = 16)]
    batch_size: usize,
    /// Name files relative to this folder (default: the input folder, or the common folder of
    /// several inputs).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Files or folders to ingest.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

fn parse_window(s: &str) -> Result<TierWindow, String> {
    let (w, o) = s.split_once('/').ok_or("expected WINDOW/OVERLAP, e.g. 1100/180")?;
    let window: usize = w.parse().map_err(|_| format!("bad window `{w}`"))?;
    let overlap: usize = o.parse().map_err(|_| format!("bad overlap `{o}`"))?;
    if overlap >= window {
        return Err("overlap must be smaller than the window".into());
    }
    Ok(TierWindow { window, overlap })
}

pub fn run(a: Args) -> Result<()> {
    let Some(embed_mode) = EmbedMode::parse(&a.embed_mode) else {
        bail!("unknown --embed-mode `{}`; use `contextual` or `plain`", a.embed_mode);
    };
    let files = ingest::collect(&a.paths, a.root.as_deref());
    if files.is_empty() {
        bail!("no course files found under {:?}; supported: .md .rst .txt .html .pdf", a.paths);
    }
    let bar = ProgressBar::new(files.len() as u64).with_style(ProgressStyle::with_template("parsing   {bar:40} {pos}/{len} {msg}").expect("template"));
    let mut documents = Vec::with_capacity(files.len());
    let mut hasher = Sha256::new();
    for (root, path) in &files {
        bar.set_message(path.display().to_string());
        let doc = ingest::load(root, path)?;
        hasher.update(doc.file.as_bytes());
        hasher.update([0]);
        hasher.update(std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?);
        documents.push(doc);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let encoder = if a.no_embed {
        None
    } else {
        Some(crate::encoder::load(&crate::encoder::resolve(&a.encoder, None))?)
    };
    let title = a.title.clone().unwrap_or_else(|| {
        a.paths[0].file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "Course".into())
    });
    let opts = BuildOptions {
        title,
        chunk_config: ChunkConfig { macro_: a.macro_window, meso: a.meso_window, micro: a.micro_window },
        bm25: Default::default(),
        embed_mode,
        batch_size: a.batch_size,
        builder_version: env!("CARGO_PKG_VERSION").to_string(),
        corpus_checksum: inference::embed::hex(&hasher.finalize()),
        course: inference::bundle::CourseInfo { subjects: a.subjects.clone(), lang: a.lang.clone() },
    };
    let start = std::time::Instant::now();
    let prepared = prepare(&documents, &opts);
    if let Some(path) = &a.dump_embed_texts {
        let lines: Vec<String> = prepared.embed_texts.iter().map(|t| serde_json::json!({ "text": t }).to_string()).collect();
        std::fs::write(path, lines.join("\n") + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    let vectors = match &encoder {
        Some(enc) => Some(Embeddings {
            encoder: enc.id().clone(),
            chunks: embed_with_cache(enc, &prepared.embed_texts, a.batch_size, a.no_cache)?,
            headings: embed_with_cache(enc, &prepared.heading_texts, a.batch_size, a.no_cache)?,
        }),
        None => None,
    };
    let mut bundle = finish(prepared, vectors, &opts);
    if let Some(enc) = &encoder {
        let t0 = std::time::Instant::now();
        bundle.term_vectors = inference::index::build::term_vectors(&bundle, enc, a.batch_size)?;
        if let Some(t) = &bundle.term_vectors {
            eprintln!("embedded {} course terms (matched across scripts by meaning) in {:.1}s", t.terms.len(), t0.elapsed().as_secs_f64());
        }
    }
    let t0 = std::time::Instant::now();
    let (predictions, report) = inference::index::predict::mine(&bundle.sections);
    if report.askable > 0 {
        eprintln!(
            "checked {} interactive outputs in the Python sandbox in {:.1}s: {} reproduced, {} kept as \"what does Python show?\" questions, {} more for \"why\" and \"judge\" items",
            report.askable,
            t0.elapsed().as_secs_f64(),
            report.reproduced,
            report.kept,
            report.kept_explained
        );
    }
    for f in &report.failed_files {
        eprintln!("warning: the sandbox could not run the sessions of {f}");
    }
    bundle.predictions = predictions;
    let bytes = bundle.to_bytes()?;
    std::fs::write(&a.out, &bytes).with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!(
        "wrote {}: {} files, {} sections, {} chunks, {} bytes in {:.1}s",
        a.out.display(),
        bundle.header.files,
        bundle.header.sections,
        bundle.header.chunks,
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Embed every text, reusing cached vectors for texts embedded before by the same encoder.
fn embed_with_cache(enc: &SentenceEncoder, texts: &[String], batch_size: usize, no_cache: bool) -> Result<Vec<Vec<f32>>> {
    let mut cache = if no_cache { None } else { Some(crate::embed_cache::EmbedCache::open(enc.id())) };
    let missing: Vec<&str> = texts
        .iter()
        .filter(|t| cache.as_ref().is_none_or(|c| c.get(t).is_none()))
        .map(String::as_str)
        .collect();
    let bar = ProgressBar::new(missing.len() as u64)
        .with_style(ProgressStyle::with_template("embedding {bar:40} {pos}/{len} chunks {per_sec} eta {eta}").expect("template"));
    let t0 = std::time::Instant::now();
    let fresh = enc.embed_many(&missing, Role::Passage, batch_size, |n| bar.inc(n as u64))?;
    bar.finish_and_clear();
    if !missing.is_empty() {
        let secs = t0.elapsed().as_secs_f64();
        eprintln!("embedded {} chunks in {secs:.1}s ({:.1} chunks/s); {} from cache", missing.len(), missing.len() as f64 / secs, texts.len() - missing.len());
    }
    let mut fresh_map: std::collections::HashMap<&str, Vec<f32>> = missing.iter().copied().zip(fresh).collect();
    let mut out = Vec::with_capacity(texts.len());
    for t in texts {
        let v = match fresh_map.remove(t.as_str()) {
            Some(v) => {
                if let Some(c) = cache.as_mut() {
                    c.insert(t, v.clone());
                }
                v
            }
            None => match cache.as_ref().and_then(|c| c.get(t)) {
                Some(v) => v.clone(),
                // The same text twice: embedded once, cached on first use.
                None => enc.embed(&[t.as_str()], Role::Passage)?.remove(0),
            },
        };
        out.push(v);
    }
    if let Some(c) = cache {
        c.save()?;
    }
    Ok(out)
}
