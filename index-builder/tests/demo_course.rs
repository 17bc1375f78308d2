//! End to end through the CLI: build the shipped demo course with the real encoder, then search it.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_index-builder"));
    c.current_dir(repo());
    c
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The demo bundle, built once for all tests in this file.
fn bundle() -> &'static PathBuf {
    static BUNDLE: OnceLock<PathBuf> = OnceLock::new();
    BUNDLE.get_or_init(|| {
        let out = std::env::temp_dir().join(format!("pathshala-demo-{}.bundle", std::process::id()));
        let status = bin()
            .args(["build", "--title", "Demo", "--out"])
            .arg(&out)
            .arg("index-builder/demo-course")
            .status()
            .expect("index-builder runs");
        assert!(status.success(), "build failed (fetch the encoder with `models/fetch.sh encoder`)");
        out
    })
}

/// The demo bundle built with multilingual-e5-small, as the app ships it (built once).
fn bundle_e5() -> &'static PathBuf {
    static BUNDLE: OnceLock<PathBuf> = OnceLock::new();
    BUNDLE.get_or_init(|| {
        let out = std::env::temp_dir().join(format!("pathshala-demo-e5-{}.bundle", std::process::id()));
        let status = bin()
            .args(["build", "--encoder", "e5-small", "--title", "Demo", "--out"])
            .arg(&out)
            .arg("index-builder/demo-course")
            .status()
            .expect("index-builder runs");
        assert!(status.success(), "build failed (fetch the encoder with `models/fetch.sh e5`)");
        out
    })
}

/// Ask's evidence stage on the e5 demo bundle (`ask --sources-only`, the course model's
/// tokenizer fitting the prompt): the result line.
fn ask_sources_only(id: &str, question: &str) -> serde_json::Value {
    ask(id, question, &["--sources-only"])
}

/// Ask on the e5 demo bundle with the course model and `args`: the result line.
fn ask(id: &str, question: &str, args: &[&str]) -> serde_json::Value {
    let q = std::env::temp_dir().join(format!("pathshala-ask-{}-{id}.jsonl", std::process::id()));
    std::fs::write(&q, serde_json::json!({"id": id, "question": question}).to_string() + "\n").unwrap();
    let out = bin()
        .args(["ask", "--json", "--model", "models/cache/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"])
        .args(args)
        .arg("--bundle")
        .arg(bundle_e5())
        .arg("--queries")
        .arg(&q)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn search_json(question: &str) -> serde_json::Value {
    search_json_in(bundle(), question)
}

fn search_json_in(bundle: &PathBuf, question: &str) -> serde_json::Value {
    let dir = std::env::temp_dir().join(format!("pathshala-q-{}-{}", std::process::id(), question.len()));
    std::fs::write(&dir, serde_json::json!({"id": "q1", "question": question}).to_string() + "\n").unwrap();
    let out = bin().args(["search", "--json", "--top", "5", "--bundle"]).arg(bundle).arg("--queries").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8(out.stdout).unwrap();
    serde_json::from_str(line.lines().next().expect("one line per query")).unwrap()
}

#[test]
fn finds_the_section_that_answers() {
    let r = search_json("How do default values for parameters work when I call a function without that argument?");
    assert_eq!(r["id"], "q1");
    assert_eq!(r["abstained"], false, "{r}");
    let top = &r["results"][0];
    assert_eq!(top["file"], "python/04-functions.md", "{r}");
    let path: Vec<&str> = top["heading_path"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    assert!(path.iter().any(|h| h.contains("Default")), "{path:?}");
    for key in ["tier", "score", "text"] {
        assert!(!top[key].is_null(), "missing {key}");
    }
}

#[test]
fn answers_in_bengali_from_the_bengali_chapter() {
    let r = search_json("ক্লোরোফিল কোথায় থাকে এবং এর কাজ কী?");
    assert_eq!(r["abstained"], false, "{r}");
    assert_eq!(r["results"][0]["file"], "science-bn/08-photosynthesis.md", "{r}");
}

/// With a multilingual encoder the bundle keeps its words' vectors, so an English word the
/// Bangla chapter never writes is read as its Bengali translation, and a Bangla word as the
/// English chapter's; a foreign name finds none (questions of the Bangla tuning half).
#[test]
fn words_of_the_other_script_are_read_by_meaning() {
    let r = search_json_in(bundle_e5(), "chloroplast কে কেন plant এর food factory বলে? grana আর stroma কী?");
    assert_eq!(r["abstained"], false, "{r}");
    let alikes = r["alike_terms"].as_array().expect("alike_terms");
    assert!(alikes.iter().any(|a| a[0] == "factori" && a[1][0] == "কারখানা"), "{r}");
    assert_eq!(r["results"][0]["file"], "science-bn/08-photosynthesis.md", "{r}");
    let r = search_json_in(bundle_e5(), "lambda function কী, sort করার সময় key হিসেবে কীভাবে দেয়?");
    assert_eq!(r["abstained"], true, "{r}");
    assert!(r["jargon_terms"].as_array().unwrap().iter().any(|t| t == "lambda"), "{r}");
    // The answer opens with the book's Bengali sentence on the translated words.
    let r = ask_sources_only("bn-021", "chloroplast কে কেন plant এর food factory বলে? grana আর stroma কী?");
    assert!(r["lead"].as_str().is_some_and(|l| l.contains("কারখানা")), "{r}");
    // MiniLM reads no Bengali: its bundle keeps no word vectors, and the same question is refused.
    let r = search_json("chloroplast কে কেন plant এর food factory বলে? grana আর stroma কী?");
    assert_eq!(r["alike_terms"].as_array().map_or(0, |a| a.iter().filter(|x| x[0] == "factori").count()), 0, "{r}");
}

/// An English question over the Bangla chapter writes every word in the other script: its
/// Latin words the book never writes ("marble", "statues") are missing, not names the course
/// lacks, so the gate lets it through, and the answer reads the Bangla passages only (the
/// English chapters' passages found for a shared word, "old", are left out). A Bangla question
/// that writes one technical word in Latin letters is still refused (above: "lambda"). A
/// question of `ask_questions_fresh.jsonl` (tuning data).
#[test]
fn an_english_question_over_the_bangla_chapter_is_answered_from_it() {
    let question = "How does acid rain damage marble statues and old buildings? Is there a reaction equation for it?";
    let r = search_json_in(bundle_e5(), question);
    assert_eq!(r["abstained"], false, "{r}");
    assert!(r["jargon_terms"].as_array().unwrap().is_empty(), "{r}");
    let r = ask_sources_only("fresh-118", question);
    let sources = r["sources"].as_array().unwrap();
    assert!(!sources.is_empty() && sources.iter().all(|s| s["file"].as_str().unwrap().starts_with("science-bn/")), "{r}");
    assert!(r["lead"].as_str().is_some_and(|l| l.contains("মার্বেল")), "{r}");
}

/// Ask reads the book's teaching: a question whose search also finds exercise sections (their
/// questions share its words) gets passages from the chapters' text only (a question of the
/// Bangla tuning half).
#[test]
fn ask_reads_teaching_sections_not_exercises() {
    let question = "গাছ কি রাতেও শ্বাস নেয়? তাহলে দিনের বেলা সে অক্সিজেন বেশি ছাড়ে কেন?";
    let exercise = |h: &serde_json::Value| h.as_array().unwrap().iter().any(|x| x.as_str().is_some_and(|x| x.contains("প্রশ্ন") || x.contains("অনুশীলনী")));
    let r = search_json_in(bundle_e5(), question);
    assert!(r["results"].as_array().unwrap().iter().any(|x| exercise(&x["heading_path"])), "the search finds an exercise: {r}");
    let r = ask_sources_only("bn-049", question);
    let sources = r["sources"].as_array().unwrap();
    assert!(!sources.is_empty() && sources.iter().all(|s| !exercise(&s["heading_path"])), "{r}");
}

/// A question on how two things differ, over the book's table that sets them side by side: the
/// table's rows follow the answer's opening, each cited (the quote holds prose only, and the
/// small model reads a table poorly); a question that asks no difference gets none.
#[test]
fn a_difference_is_answered_with_the_books_comparison_table() {
    let r = ask_sources_only("diff-1", "সালোকসংশ্লেষণ ও শ্বসনের পার্থক্য কী?");
    let lead = r["lead"].as_str().unwrap_or_default();
    assert!(lead.contains("সংঘটনের স্থান: সালোকসংশ্লেষণ — ক্লোরোপ্লাস্ট; শ্বসন — সাইটোপ্লাজম ও মাইটোকন্ড্রিয়া [1]।"), "{r}");
    assert!(lead.contains("শুষ্ক ওজন: সালোকসংশ্লেষণ — বাড়ে; শ্বসন — কমে [1]।"), "{r}");
    let r = ask_sources_only("diff-2", "সালোকসংশ্লেষণে কী কী লাগে?");
    assert!(!r["lead"].as_str().unwrap_or_default().contains(" — "), "{r}");
    // The check passes the rows as they are (the table's own cells), cited.
    let r = ask("diff-3", "সালোকসংশ্লেষণ ও শ্বসনের পার্থক্য কী?", &["--max-tokens", "2"]);
    let rows: Vec<&serde_json::Value> = r["sentences"].as_array().unwrap().iter().filter(|u| u["text"].as_str().unwrap().contains(": সালোকসংশ্লেষণ — ")).collect();
    assert!(rows.len() >= 5 && rows.iter().all(|u| u["supported"] == true), "{r}");
    assert!(r["answer"].as_str().unwrap().contains("শুষ্ক ওজন: সালোকসংশ্লেষণ — বাড়ে; শ্বসন — কমে [1]।"), "{r}");
}

#[test]
fn abstains_when_the_course_does_not_cover_it() {
    for q in ["Who painted the Mona Lisa?", "How do I configure Kubernetes ingress controllers?"] {
        let r = search_json(q);
        assert_eq!(r["abstained"], true, "{q}: {r}");
    }
}

#[test]
fn info_reads_the_header() {
    let out = bin().args(["info", "--bundle"]).arg(bundle()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("all-MiniLM-L6-v2"), "{text}");
    assert!(text.contains("files        7"), "the demo course's seven chapters, not its README: {text}");
    assert!(text.contains("word vectors none"), "MiniLM reads no Bengali: {text}");
    let out = bin().args(["info", "--bundle"]).arg(bundle_e5()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.starts_with("word vectors ") && !l.contains("none")), "{text}");
}

#[test]
fn a_corrupt_bundle_is_a_clear_error() {
    let bad = std::env::temp_dir().join(format!("pathshala-bad-{}.bundle", std::process::id()));
    let mut bytes = std::fs::read(bundle()).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&bad, bytes).unwrap();
    let out = bin().args(["search", "--bundle"]).arg(&bad).arg("loops").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("truncated") && err.contains("again"), "{err}");
}

#[test]
fn route_reports_a_bad_line_and_goes_on() {
    let queries = std::env::temp_dir().join(format!("pathshala-route-{}.jsonl", std::process::id()));
    std::fs::write(&queries, "{\"id\": \"a\", \"text\": \"hi!\"}\nnot json\n{\"id\": \"b\", \"text\": \"how do I make a bomb at home\"}\n").unwrap();
    let out = bin()
        .args(["route", "--json", "--model", "models/cache/SmolLM2-135M-Instruct.Q4_1.gguf", "--bundle"])
        .arg(bundle())
        .arg("--queries")
        .arg(&queries)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!((&lines[0]["id"], &lines[0]["label"]), (&serde_json::json!("a"), &serde_json::json!("greeting")));
    assert!(lines[1]["id"].is_null() && lines[1]["error"].as_str().unwrap().contains(":2: expected"), "{:?}", lines[1]);
    assert_eq!((&lines[2]["id"], &lines[2]["label"]), (&serde_json::json!("b"), &serde_json::json!("harmful")));
}

#[test]
fn a_bundle_searched_with_another_encoder_names_both() {
    // The demo bundle here is built with MiniLM; e5 is the other encoder models/fetch.sh gives.
    let out = bin().args(["search", "--encoder", "e5-small", "--bundle"]).arg(bundle()).arg("loops").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("all-MiniLM-L6-v2") && err.contains("multilingual-e5-small"), "{err}");
}
