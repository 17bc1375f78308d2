//! `index-builder judge`: yes/no judgements by label scoring, for evaluations (the judge is the
//! largest local model; the prompts are the Ask agent's own check, `agent::ask::verify`). Each
//! input line names a question kind and two texts; the output line carries the model's
//! yes-minus-no log-probability margin (uncalibrated) and the verdict `margin > min_margin(kind)`.

use anyhow::{Context, Result, bail};
use inference::agent::ask::nearest_sentences;
use inference::agent::ask::verify::{JUDGE_PREFIX, JUDGE_SYSTEM, Judge, judge_question, units};
use inference::llm::{ChatMessage, LoadOptions, Session};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    /// The judge model (GGUF), e.g. models/cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf.
    #[arg(long, required_unless_present = "thresholds")]
    model: Option<PathBuf>,
    /// JSONL of `{"id", "kind": "fact"|"support"|"answerable"|"relevant", "text", "claim"}`: for
    /// `fact`, does the answer `text` state the fact `claim`; for `support`, does the passage
    /// `text` support the sentence `claim`; for `answerable`, can the question `claim` be
    /// answered from the passage `text`; for `relevant`, does the sentence `text` help answer the
    /// question `claim`.
    #[arg(long, required_unless_present = "thresholds")]
    pairs: Option<PathBuf>,
    /// Show the judge only up to this many characters of `text`: its sentences sharing most
    /// words with `claim`, in order (`agent::ask::nearest_sentences`, as the app's own check
    /// does); 0 shows the whole text.
    #[arg(long, default_value_t = EXCERPT)]
    excerpt: usize,
    /// Print each kind's threshold (`{"fact": …, "support": …, …}`) and exit: an evaluation
    /// that kept the margins of an earlier run decides its verdicts again with these.
    #[arg(long)]
    thresholds: bool,
}

#[derive(Deserialize)]
struct Pair {
    id: serde_json::Value,
    kind: String,
    text: String,
    claim: String,
}

/// The judge says "yes" only when log P(Yes) − log P(No) exceeds this. At 0 the 1.5B judge said
/// "yes" to 46 % of what a person labelled "no". `support`: fitted on the 277 hand labels of the
/// first three `tests/eval/data/judge_labels*.jsonl` files (the middle of its best plateau; fitted
/// on any two files, the threshold agrees with the person on the third 0.886, 0.916 and 0.881;
/// docs/EVALUATION.md "Judge agreement"). `fact`: 1.9, with the evaluation's words rule
/// (`tests/eval/answer_eval.py`, `verdict`: the fact's words in one sentence also count), fitted
/// on the 415 `fact` labels of all five files (docs/EVALUATION.md, "The judge on answers that are
/// the book's sentences"). `answerable` and `relevant` keep 0 (measured apart:
/// `tests/eval/relevance_fit.py`).
pub fn min_margin(kind: Judge) -> f64 {
    match kind {
        Judge::Fact => 1.9,
        Judge::Support => 1.15,
        Judge::Answerable | Judge::Relevant => 0.0,
    }
}

/// Characters of `text` the judge reads (`--excerpt`): the app's own check shows 400. On the
/// 151 hand labels of the first two label files, whole texts gave 0.854 agreement, 400 characters
/// 0.894 (both at one threshold of 1.5).
pub const EXCERPT: usize = 400;

#[derive(Serialize)]
struct Judgement<'a> {
    id: &'a serde_json::Value,
    yes: bool,
    margin: f64,
}

/// `text` without its citation markers, code blocks left as they are (`[1]` there is a list).
fn without_citations(text: &str) -> String {
    units(text, usize::MAX).iter().map(|u| u.plain(usize::MAX)).collect::<Vec<_>>().join(" ")
}

pub fn run(a: Args) -> Result<()> {
    if a.thresholds {
        let kinds = [("fact", Judge::Fact), ("support", Judge::Support), ("answerable", Judge::Answerable), ("relevant", Judge::Relevant)];
        let map: serde_json::Map<String, serde_json::Value> = kinds.iter().map(|&(name, kind)| (name.to_string(), min_margin(kind).into())).collect();
        println!("{}", serde_json::Value::Object(map));
        return Ok(());
    }
    let (Some(model), Some(pairs)) = (a.model, a.pairs) else { bail!("--model and --pairs are needed") };
    let bytes = std::fs::read(&model).with_context(|| format!("cannot read {}", model.display()))?;
    let mut session = Session::load(Arc::new(bytes), &LoadOptions::quantized(4096))?;
    let (yes, no) = (session.encode("Yes")?, session.encode("No")?);
    let system = [ChatMessage { role: "system", content: JUDGE_SYSTEM }];
    let f = std::fs::File::open(&pairs).with_context(|| format!("cannot open {}", pairs.display()))?;
    let stdout = std::io::stdout();
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let p: Pair = serde_json::from_str(&line).with_context(|| format!("{}:{}: expected {{\"id\",\"kind\",\"text\",\"claim\"}}", pairs.display(), n + 1))?;
        let kind = match p.kind.as_str() {
            "fact" => Judge::Fact,
            "support" => Judge::Support,
            "answerable" => Judge::Answerable,
            "relevant" => Judge::Relevant,
            k => bail!("{}:{}: unknown judgement kind {k:?}; use fact, support, answerable or relevant", pairs.display(), n + 1),
        };
        // The answer's `[n]` markers are not words of the book: with them, the 1.5B judge gave
        // sentences copied word for word from their passage margins near 0.
        let claim = if kind == Judge::Support { without_citations(&p.claim) } else { p.claim };
        let text = if matches!(kind, Judge::Fact | Judge::Relevant) { without_citations(&p.text) } else { p.text };
        let text = if a.excerpt > 0 { nearest_sentences(&claim, &text, a.excerpt) } else { text };
        let q = judge_question(kind, &text, &claim);
        let (ids, fixed) = session.chat_ids(&system, &[ChatMessage { role: "user", content: &q }])?;
        session.keep_now(JUDGE_PREFIX, &ids[..fixed])?;
        let s = session.score_now(&ids, &[yes.clone(), no.clone()])?;
        let margin = s[0].logprob_sum - s[1].logprob_sum;
        writeln!(stdout.lock(), "{}", serde_json::to_string(&Judgement { id: &p.id, yes: margin > min_margin(kind), margin })?)?;
    }
    Ok(())
}
