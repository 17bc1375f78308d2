pub mod ask;
pub mod build;
pub mod generate;
pub mod hnsw_recall;
pub mod info;
pub mod judge;
pub mod sandbox;
pub mod search;
pub mod tutor_eval;

use anyhow::{Context, Result, bail};
use std::io::BufRead;
use std::path::Path;

/// One question of a `--queries` file (`search`, `ask`).
#[derive(serde::Deserialize)]
pub struct QueryLine {
    pub id: serde_json::Value,
    pub question: String,
}

/// The question given on the command line (id 1), or every line of a JSONL `--queries` file.
pub fn questions(question: Option<&str>, queries: Option<&Path>) -> Result<Vec<QueryLine>> {
    match (question, queries) {
        (Some(q), None) => Ok(vec![QueryLine { id: serde_json::Value::from(1), question: q.to_string() }]),
        (None, Some(path)) => {
            let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            std::io::BufReader::new(f)
                .lines()
                .enumerate()
                .filter(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
                .map(|(n, l)| {
                    let l = l?;
                    serde_json::from_str(&l).with_context(|| format!("{}:{}: expected {{\"id\", \"question\"}}", path.display(), n + 1))
                })
                .collect()
        }
        _ => bail!("give a question, or --queries FILE.jsonl"),
    }
}
