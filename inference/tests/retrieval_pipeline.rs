//! The retrieval pipeline on a small course embedded with the real encoder.

mod common;
use inference::bundle::Bundle;
use inference::corpus::{Block, BlockKind, Document};
use inference::index::build::{BuildOptions, EmbedMode, build};
use inference::retrieve::{FeatureReranker, Fusion, Query, Reranker, RetrievalConfig, quiz_evidence, retrieve};
use std::sync::OnceLock;

fn para(text: &str, line: u32) -> Block {
    Block::new(BlockKind::Paragraph, text, line)
}

fn course() -> Vec<Document> {
    let mut loops = vec![
        Block::new(BlockKind::Heading(1), "Loops", 1),
        para("Loops repeat a block of code. Python has two loop statements: for and while.", 2),
        Block::new(BlockKind::Heading(2), "The for statement", 3),
    ];
    for i in 0..12 {
        loops.push(para(&format!("A for loop takes each item of a sequence in turn, example {i}: the loop variable names the current item and the body runs once per item."), 4 + i));
    }
    loops.push(Block::new(BlockKind::Code, "for fruit in ['apple', 'pear']:\n    print(fruit)", 20));
    loops.push(Block::new(BlockKind::Heading(2), "Leaving a loop early", 21));
    loops.push(para("The break statement ends the innermost loop at once; continue skips to the next iteration.", 22));
    let dicts = vec![
        Block::new(BlockKind::Heading(1), "Dictionaries", 1),
        para("A dictionary maps keys to values. Keys must be hashable, for example strings or numbers.", 2),
        Block::new(BlockKind::Heading(2), "Looking up values", 3),
        para("Use d[key] to read a value; it raises KeyError when the key is missing. d.get(key, default) returns the default instead.", 4),
    ];
    let files = vec![
        Block::new(BlockKind::Heading(1), "Files", 1),
        para("open() returns a file object. Use a with statement so the file is closed even if an error happens.", 2),
    ];
    vec![
        Document { file: "loops.md".into(), blocks: loops },
        Document { file: "dicts.md".into(), blocks: dicts },
        Document { file: "files.md".into(), blocks: files },
    ]
}

struct Fixture {
    bundle: Bundle,
    encoder: inference::embed::SentenceEncoder,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let encoder = common::encoder();
        let opts = BuildOptions {
            title: "t".into(),
            chunk_config: inference::index::ChunkConfig {
                macro_: inference::index::TierWindow { window: 900, overlap: 150 },
                meso: inference::index::TierWindow { window: 500, overlap: 80 },
                micro: inference::index::TierWindow { window: 250, overlap: 40 },
            },
            bm25: Default::default(),
            embed_mode: EmbedMode::Plain,
            batch_size: 16,
            builder_version: "test".into(),
            corpus_checksum: "x".into(),
            course: Default::default(),
        };
        let bundle = build(&course(), Some(&encoder), &opts, |_, _| {}).unwrap();
        // Through the file format, as the app sees it.
        let bundle = Bundle::from_bytes(&bundle.to_bytes().unwrap()).unwrap();
        bundle.check_encoder(encoder.id()).unwrap();
        Fixture { bundle, encoder }
    })
}

fn ask(question: &str, cfg: &RetrievalConfig) -> inference::retrieve::Retrieval {
    let f = fixture();
    let v = f.encoder.embed(&[question], inference::embed::Role::Query).unwrap().remove(0);
    let common = |w: &str| f.encoder.is_whole_word(w);
    let words = |ws: &[&str]| inference::retrieve::meanings::embed_words(&f.encoder, ws);
    let q = Query { text: question, vector: Some(&v), is_common_word: Some(&common), embed_words: Some(&words) };
    retrieve(&f.bundle, cfg, &q, Some(&FeatureReranker::default() as &dyn Reranker))
}

#[test]
fn finds_the_answering_section_with_its_heading_path() {
    let r = ask("How do I stop a loop before it finishes?", &RetrievalConfig::default());
    assert!(!r.abstained, "{:?}", r.coverage);
    assert_eq!(r.evidence[0].heading_path, vec!["Loops", "Leaving a loop early"]);
    assert_eq!(r.evidence[0].file, "loops.md");
}

#[test]
fn both_fusions_work_and_evidence_never_overlaps() {
    for fusion in [Fusion::Union, Fusion::default()] {
        let cfg = RetrievalConfig { fusion, max_per_section: 3, ..Default::default() };
        let r = ask("What does a for loop do with each item of a list?", &cfg);
        assert_eq!(r.evidence[0].heading_path.last().unwrap(), "The for statement", "{fusion:?}");
        let b = &fixture().bundle;
        for (i, a) in r.evidence.iter().enumerate() {
            for e in &r.evidence[i + 1..] {
                let overlap = inference::retrieve::context::span_overlap(b, a.chunk, e.chunk);
                assert!(overlap <= 0.5, "CCR kept overlapping chunks {} and {}", a.chunk, e.chunk);
            }
        }
    }
}

#[test]
fn cci_gives_a_subsection_its_parent_context() {
    let r = ask("What error do I get reading a missing key from a dictionary?", &RetrievalConfig::default());
    let e = &r.evidence[0];
    assert_eq!(e.heading_path, vec!["Dictionaries", "Looking up values"]);
    let ctx = e.context.as_deref().expect("parent context");
    assert!(ctx.starts_with("Dictionaries:") && ctx.contains("maps keys to values"), "{ctx}");
}

#[test]
fn abstains_on_what_the_course_does_not_cover() {
    for q in ["How do I merge two pandas DataFrames?", "Who painted the Mona Lisa?"] {
        let r = ask(q, &RetrievalConfig::default());
        assert!(r.abstained, "{q}: {:?} best {:?}", r.coverage, r.best_dense);
        assert!(!r.nearest_sections.is_empty());
    }
}

#[test]
fn quiz_evidence_is_diverse() {
    let f = fixture();
    let q = "loops";
    let v = f.encoder.embed(&[q], inference::embed::Role::Query).unwrap().remove(0);
    let picked = quiz_evidence(&f.bundle, &Query { text: q, vector: Some(&v), is_common_word: None, embed_words: None });
    assert!(!picked.is_empty() && picked.len() <= 25);
    let mut ids: Vec<u32> = picked.iter().map(|e| e.chunk).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), picked.len(), "MMR picks each chunk once");
    // Diversity: with λ = 0.7 the picks span more than one chapter.
    let files: std::collections::HashSet<&str> = picked.iter().map(|e| e.file.as_str()).collect();
    assert!(files.len() >= 2, "{files:?}");
}

#[test]
fn the_passage_is_the_part_of_its_section_about_the_question() {
    use inference::retrieve::context::focus;
    use std::collections::HashSet;
    let b = &fixture().bundle;
    let section_named = |h: &str| b.sections.iter().position(|s| s.heading_path.last().is_some_and(|l| l == h)).unwrap() as u32;
    let terms = |q: &str| -> HashSet<String> { inference::text::query_terms(q).into_iter().collect() };
    let one = |_: &str| 1.0;

    // A section that fits is read whole.
    let early = section_named("Leaving a loop early");
    let chunk = b.chunks.iter().find(|c| c.section == early).unwrap();
    assert_eq!(focus(b, chunk.id, &terms("break"), &one, 1000), b.sections[early as usize].text.trim());

    // A short chunk just before the code is widened to the code the question is about, within
    // the budget and still holding the chunk.
    let fors = section_named("The for statement");
    let section = &b.sections[fors as usize];
    let code_at = section.text.find("for fruit").unwrap() as u32;
    let before = b.chunks.iter().filter(|c| c.section == fors && c.end <= code_at).max_by_key(|c| (c.end, std::cmp::Reverse(c.end - c.start))).unwrap();
    let text = focus(b, before.id, &terms("how do I print each fruit"), &one, 600);
    assert!(text.contains("print(fruit)"), "{text}");
    assert!(text.chars().count() <= 600);
    let last_paragraph = b.chunk_text(before.id).trim().rsplit("\n\n").next().unwrap();
    assert!(text.contains(last_paragraph), "the window overlaps the chunk");

    // A long chunk is narrowed to the blocks that hold the question's words.
    let long = b.chunks.iter().filter(|c| c.section == fors).max_by_key(|c| c.end - c.start).unwrap();
    let last = b.chunk_text(long.id).trim().rsplit("\n\n").find(|p| p.contains("example ")).unwrap();
    let n: String = last.split("example ").nth(1).unwrap().chars().take_while(char::is_ascii_digit).collect();
    let text = focus(b, long.id, &terms(&format!("example {n}")), &one, 300);
    assert!(text.contains(&format!("example {n}:")) && text.chars().count() <= 300, "{text}");
}

#[test]
fn a_lead_sentence_far_from_the_question_does_not_open_the_answer() {
    use inference::agent::ask::{AskSettings, near_question};
    let f = fixture();
    let near = |question: &str, sentence: &str| {
        inference::llm::now(near_question(&f.bundle, Some(&f.encoder), &AskSettings::default(), question, sentence, None)).unwrap()
    };
    // Leads `verify::quote` picked for questions of our English tuning half: one shares only the
    // word "old" with an out-of-course question, the other answers a course question.
    assert!(!near(
        "What's the difference between `++i` and `i++` in Python, and which one gives back the old value?",
        "old-string-formatting: The old formatting operations invoked when strings are the left operand of the % operator are described in more detail here."
    ));
    assert!(near(
        "I typed `s = {}` to start an empty set and then `s.add(3)` gave an error. Why?",
        "Note: to create an empty set you have to use set(), not {}; the latter creates an empty dictionary, a data structure that we discuss in the next section."
    ));
    // Without an encoder every lead is near.
    assert!(inference::llm::now(near_question(&f.bundle, None, &AskSettings::default(), "anything", "old-string-formatting", None)).unwrap());
}

#[test]
fn the_sentence_that_answers_in_other_words_is_nearest_the_question() {
    use inference::agent::ask::{AskSettings, Source, sentence_cosines};
    let f = fixture();
    // Our tuning half's question on braces: the book's sentence holding its words ("C",
    // "braces") is an aside; the one that answers says "begin/end brackets" (MiniLM: 0.44
    // against 0.39, and 0.12 for a sentence on neither).
    let question = "Why doesn't Python use curly braces like C or Java to show where a block starts and ends?";
    let aside = "In C there are many different ways to place the braces.";
    let answer = "Since there are no begin/end brackets there cannot be a disagreement between grouping perceived by the parser and the human reader.";
    let other = "Most people learn to love this feature after a while.";
    let sources = [Source { n: 1, chunk: 0, section: 0, heading_path: vec!["Design".into()], text: format!("{answer} {other} {aside}") }];
    let cosines = inference::llm::now(sentence_cosines(&f.bundle, Some(&f.encoder), &AskSettings::default(), question, &sources)).unwrap();
    assert_eq!(cosines.len(), 3, "{cosines:?}");
    assert!(cosines[answer] > cosines[aside] && cosines[aside] > cosines[other] + 0.1, "{cosines:?}");
    // Without an encoder there is nothing to weigh.
    assert!(inference::llm::now(sentence_cosines(&f.bundle, None, &AskSettings::default(), question, &sources)).unwrap().is_empty());
}
