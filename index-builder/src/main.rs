//! `index-builder`: the teacher's tool. Builds a course bundle and drives the pipeline from a
//! terminal. The binary stays thin: parsing lives in `ingest`, everything else in `inference`.

mod cmd;
mod embed_cache;
mod encoder;
mod ingest;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "index-builder", version, about = "Build and query Pathshala course bundles")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ingest course files (Markdown, reST, HTML, PDF, text) into one bundle.
    Build(cmd::build::Args),
    /// Search a bundle: one question, or a JSONL file of questions.
    Search(cmd::search::Args),
    /// Show what a bundle holds.
    Info(cmd::info::Args),
    /// Measure the HNSW index's recall against exact search on the bundle's own vectors.
    HnswRecall(cmd::hnsw_recall::Args),
    /// Answer a question from the course book with the Ask agent (the app's defaults), or a
    /// JSONL file of questions (`--json`: one result line each).
    Ask(cmd::ask::Args),
    /// Yes/no judgements by label scoring (for evaluations): does an answer state a fact, does a
    /// passage support a sentence.
    Judge(cmd::judge::Args),
    /// Route messages as the app does (harmful, greeting, off-topic, ambiguous, conceptual,
    /// quiz, code): one message, or a JSONL file (`--json`: one result line each).
    Route(cmd::route::Args),
    /// Train the router's learned classifier on our labelled messages for an encoder.
    RouteTrain(cmd::route::TrainArgs),
    /// An adaptive quiz on a topic (`--learner` answers it; `--json`: one line per item).
    Quiz(cmd::quiz::Args),
    /// Teacher authoring: MCQs and creative questions for a request, with evidence, gates and a
    /// verification report (`--format json|gift|moodle-xml`; `--report FILE`).
    Author(cmd::author::Args),
    /// Generate text with a GGUF model, streaming (`--bench` prints speed).
    Generate(cmd::generate::Args),
    /// Run or check a learner's Python program in the sandbox.
    Sandbox(cmd::sandbox::Args),
    /// Run the Code Tutor (or one-shot generation) on a problems file and score it.
    TutorEval(cmd::tutor_eval::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(a) => cmd::build::run(a),
        Command::Search(a) => cmd::search::run(a),
        Command::Info(a) => cmd::info::run(a),
        Command::HnswRecall(a) => cmd::hnsw_recall::run(a),
        Command::Sandbox(a) => cmd::sandbox::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Ask(a) => cmd::ask::run(a),
        Command::Judge(a) => cmd::judge::run(a),
        Command::Route(a) => cmd::route::run(a),
        Command::RouteTrain(a) => cmd::route::train(a),
        Command::Quiz(a) => cmd::quiz::run(a),
        Command::Author(a) => cmd::author::run(a),
        Command::TutorEval(a) => cmd::tutor_eval::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
