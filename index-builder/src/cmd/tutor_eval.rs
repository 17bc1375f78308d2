//! `index-builder tutor-eval`: the Code Tutor (or one-shot generation) on a problems file, with
//! the model as tutor and a learner who types the tutor's lines (ACE-TA's evaluation).
//!
//! Problems are JSONL: `id`, optional `tier` (easy/medium/hard), the `inference::agent::tutor::Task`
//! fields (`description`, `starter`, `entry_point`, `inputs`, `tests`) and, for `--mode reference`,
//! `reference` (the canonical body). `tests/reference/humaneval_fetch.sh` writes HumanEval so.

use anyhow::{Context, Result, bail};
use inference::agent::tutor::{self, SandboxRunner, Task, TutorConfig, TutorModel, TutorReport, TutorSession};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Plan, step code checked by running, the learner's steps, final tests.
    Tutor,
    /// The whole program in one generation, then the final tests.
    Oneshot,
    /// The problems' own reference solutions (checks the problems file and the sandbox; no model).
    Reference,
    /// Only the tutor's plan, for reading its step texts: each row's `program` is the steps'
    /// comments, each over its part of the draft (`--draft-steps`); nothing is run or tested.
    Plan,
}

#[derive(clap::Args)]
pub struct Args {
    /// The GGUF chat model (e.g. models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Problems, one JSON object a line (see `tests/reference/humaneval_fetch.sh`).
    #[arg(long)]
    problems: PathBuf,
    /// Print the per-problem results and totals as one JSON document.
    #[arg(long)]
    json: bool,
    /// Only the first N problems of the file.
    #[arg(long)]
    limit: Option<usize>,
    #[arg(long, value_enum, default_value_t = Mode::Tutor)]
    mode: Mode,
    /// Final test runs per problem, each after a rewrite with the failure (default: 3 for tutor,
    /// 1 for oneshot).
    #[arg(long)]
    attempts: Option<usize>,
    /// Append each problem's result to this JSONL file as it finishes.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Skip problems whose id is already in --out (continue an interrupted run); totals cover
    /// the whole file.
    #[arg(long, requires = "out")]
    resume: bool,
    /// No model-written hints (the scripted learner never needs them).
    #[arg(long)]
    no_hints: bool,
    /// Tutor: the model writes a whole solution first (hidden from the learner) and plans from it.
    #[arg(long)]
    draft_first: bool,
    /// Tutor: the draft is cut into steps at its statements; each step's first try is the
    /// draft's own lines (implies --draft-first).
    #[arg(long)]
    draft_steps: bool,
}

#[derive(Deserialize)]
struct Problem {
    id: String,
    #[serde(default)]
    tier: Option<String>,
    #[serde(default)]
    reference: Option<String>,
    #[serde(flatten)]
    task: Task,
}

/// One problem's line of output.
#[derive(Clone, Serialize, Deserialize)]
struct Row {
    id: String,
    tier: Option<String>,
    mode: String,
    // `passed` is the report's (flattened): a second field of that name would write the key
    // twice, and the row would not read back for --resume.
    passed_first: bool,
    seconds: f64,
    #[serde(flatten)]
    report: TutorReport,
}

/// The row of a problem whose run ended in an error: failed, the error as its problem.
fn gave_up(e: tutor::TutorError) -> TutorReport {
    TutorReport { problem: Some(format!("the tutor stopped: {e}")), stuck: Some(e.to_string()), ..TutorReport::default() }
}

#[derive(Default, Serialize)]
struct Tally {
    problems: usize,
    passed: usize,
    passed_first: usize,
    rate: f64,
    rate_first: f64,
    seconds: f64,
}

pub fn run(a: Args) -> Result<()> {
    let text = std::fs::read_to_string(&a.problems)
        .with_context(|| format!("cannot read {} — write HumanEval's with tests/reference/humaneval_fetch.sh", a.problems.display()))?;
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let p: Problem = serde_json::from_str(line).with_context(|| format!("{} line {}: not a problem object", a.problems.display(), i + 1))?;
        problems.push(p);
    }
    problems.truncate(a.limit.unwrap_or(usize::MAX));
    let mut cfg = TutorConfig { model_hints: !a.no_hints, draft_first: a.draft_first, draft_steps: a.draft_steps, ..TutorConfig::default() };
    let attempts = a.attempts.unwrap_or(if a.mode == Mode::Tutor { cfg.final_attempts } else { 1 });
    cfg.final_attempts = attempts;
    let mut model = match (a.mode, &a.model) {
        (Mode::Reference, _) => None,
        (_, None) => bail!("--model is needed for --mode {:?}; e.g. --model models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", a.mode),
        (_, Some(path)) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {} — fetch models with `models/fetch.sh llm`", path.display()))?;
            Some(TutorModel::load(Arc::new(bytes))?)
        }
    };
    let mut done: Vec<Row> = Vec::new();
    if a.resume {
        let out = a.out.as_ref().expect("clap requires --out");
        if let Ok(text) = std::fs::read_to_string(out) {
            done = text.lines().filter_map(|l| serde_json::from_str::<Row>(l).ok()).collect();
        }
    }
    let seen: HashSet<String> = done.iter().map(|r| r.id.clone()).collect();
    let mut out = match &a.out {
        Some(p) => Some(
            std::fs::OpenOptions::new().create(true).append(true).open(p).with_context(|| format!("cannot write {}", p.display()))?,
        ),
        None => None,
    };
    let mut runner = SandboxRunner;
    let total = problems.len();
    let mut rows: Vec<Row> = done.into_iter().filter(|r| problems.iter().any(|p| p.id == r.id)).collect();
    for (i, p) in problems.iter().enumerate() {
        if seen.contains(&p.id) {
            continue;
        }
        let t0 = Instant::now();
        let report = match (a.mode, model.as_mut()) {
            (Mode::Reference, _) => {
                let Some(body) = &p.reference else { bail!("problem {} has no `reference` for --mode reference", p.id) };
                let mut r = TutorReport { program: format!("{}{body}", p.task.start_code()), ..TutorReport::default() };
                let t = TutorSession::test(&p.task, &mut runner, &cfg, &r.program);
                (r.passed, r.passed_at, r.final_attempts, r.problem) = (t.passed, t.passed.then_some(1), 1, t.problem);
                r
            }
            // A problem the tutor cannot finish (e.g. its prompt outgrows the model's context)
            // is a failed problem, not the end of the run.
            (Mode::Tutor, Some(m)) => tutor::run_tutor(m, &mut runner, &p.task, &cfg, &mut |s| {
                // The learner types the tutor's lines (ACE-TA's evaluation).
                s.steps[s.current].reference.clone().unwrap_or_default()
            })
            .unwrap_or_else(gave_up),
            (Mode::Oneshot, Some(m)) => tutor::one_shot(m, &mut runner, &p.task, &cfg, attempts).unwrap_or_else(gave_up),
            (Mode::Plan, Some(m)) => match TutorSession::start(m, p.task.clone(), &cfg) {
                Err(e) => gave_up(e),
                Ok(s) => {
                    let program = s.steps.iter().enumerate().map(|(k, st)| {
                        let lines = st.draft_lines.clone().unwrap_or_default();
                        let indent = tutor::code::base_indent(&lines).unwrap_or(0);
                        format!("{}{lines}", tutor::prompt::step_comment(k + 1, &st.text, indent))
                    });
                    TutorReport { plan: s.plan(), program: program.collect(), generations: s.generations, ..TutorReport::default() }
                }
            },
            (_, None) => unreachable!("the model is loaded for every mode but reference"),
        };
        let row = Row {
            id: p.id.clone(),
            tier: p.tier.clone(),
            mode: format!("{:?}{}", a.mode, match (a.mode, a.draft_steps, a.draft_first) {
                (Mode::Tutor | Mode::Plan, true, _) => "+draftsteps",
                (Mode::Tutor | Mode::Plan, false, true) => "+draft",
                _ => "",
            }).to_lowercase(),
            passed_first: report.passed_at == Some(1),
            seconds: t0.elapsed().as_secs_f64(),
            report,
        };
        let r = &row.report;
        let what = match a.mode {
            Mode::Plan => format!("{:.1} s\n{}", row.seconds, r.program),
            _ => format!(
                "{}{} — steps {}/{}, generations {}, refinements {}, replans {}, {:.1} s{}",
                if r.passed { "pass" } else { "FAIL" },
                r.passed_at.map(|n| format!(" (attempt {n})")).unwrap_or_default(),
                r.steps_done,
                r.plan.len(),
                r.generations,
                r.refinements,
                r.replans,
                row.seconds,
                r.stuck.as_ref().map(|s| format!("; stuck at {s}")).unwrap_or_default(),
            ),
        };
        eprintln!("[{}/{total}] {} {}: {what}", i + 1, row.id, row.tier.as_deref().unwrap_or("-"));
        if let Some(f) = out.as_mut() {
            writeln!(f, "{}", serde_json::to_string(&row)?)?;
        }
        rows.push(row);
    }

    if a.mode == Mode::Plan {
        // Nothing was run: the rows are the result.
        if a.json {
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
        return Ok(());
    }
    let mut tiers: BTreeMap<String, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    for r in &rows {
        for t in [Some(&mut all), r.tier.as_ref().map(|t| tiers.entry(t.clone()).or_default())].into_iter().flatten() {
            t.problems += 1;
            t.passed += r.report.passed as usize;
            t.passed_first += r.passed_first as usize;
            t.seconds += r.seconds;
        }
    }
    for t in tiers.values_mut().chain([&mut all]) {
        t.rate = t.passed as f64 / t.problems.max(1) as f64;
        t.rate_first = t.passed_first as f64 / t.problems.max(1) as f64;
    }
    let dwpm = |first: bool| -> Option<f64> {
        let rate = |name: &str| tiers.get(name).map(|t| if first { t.rate_first } else { t.rate });
        Some(2.0 * rate("easy")? + 3.0 * rate("medium")? + 5.0 * rate("hard")?)
    };
    let (dwpm_final, dwpm_first) = (dwpm(false), dwpm(true));
    if a.json {
        #[derive(Serialize)]
        struct Totals<'a> {
            mode: Mode,
            draft_first: bool,
            draft_steps: bool,
            model: Option<String>,
            attempts: usize,
            problems: &'a [Row],
            tiers: &'a BTreeMap<String, Tally>,
            all: &'a Tally,
            dwpm: Option<f64>,
            dwpm_first_attempt: Option<f64>,
        }
        let model_name = a.model.as_ref().and_then(|m| m.file_name()).map(|n| n.to_string_lossy().into_owned());
        let doc = Totals { mode: a.mode, draft_first: a.draft_first || a.draft_steps, draft_steps: a.draft_steps, model: model_name, attempts, problems: &rows, tiers: &tiers, all: &all, dwpm: dwpm_final, dwpm_first_attempt: dwpm_first };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        for (name, t) in tiers.iter().map(|(n, t)| (n.as_str(), t)).chain([("all", &all)]) {
            println!(
                "{name:>6}: {}/{} passed ({:.2}); first attempt {}/{} ({:.2}); {:.0} s",
                t.passed, t.problems, t.rate, t.passed_first, t.problems, t.rate_first, t.seconds
            );
        }
        if let (Some(d), Some(f)) = (dwpm_final, dwpm_first) {
            println!("  DWPM: {d:.2} (first attempt {f:.2}) = 2·A_easy + 3·A_medium + 5·A_hard");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_for_resume() {
        let row = Row {
            id: "HumanEval/2".into(),
            tier: Some("easy".into()),
            mode: "tutor".into(),
            passed_first: false,
            seconds: 1.5,
            report: TutorReport { final_attempts: 3, plan: vec!["a".into()], problem: Some("x".into()), ..TutorReport::default() },
        };
        let line = serde_json::to_string(&row).unwrap();
        assert_eq!(line.matches("\"passed\"").count(), 1, "{line}");
        let back: Row = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(back.report, row.report);
    }
}
