use anyhow::{Context, Result};
use inference::bundle::Bundle;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The bundle file.
    #[arg(long)]
    bundle: PathBuf,
    /// Also print every "what does Python show?" question as the quiz shows it, with the "why"
    /// item a wrong answer to its first wrong option leads to and its "judge" item (Markdown, for
    /// a hand audit).
    #[arg(long)]
    predictions: bool,
    /// Also print every "why" item made from a reason the book gives ("… কেন?"), as the quiz and
    /// authoring show it, with which check refuses it (Markdown, for a hand audit).
    #[arg(long)]
    reasons: bool,
    /// Also print every "which is a member of this kind?" item made from the members the book
    /// lists ("নিচের কোনটি …?"), as the quiz and authoring show it, with which check refuses it
    /// (Markdown, for a hand audit).
    #[arg(long)]
    examples: bool,
    /// Also print every "how do these two differ?" item made from a row of a table the book
    /// compares two things in, as the quiz and authoring show it, with which check refuses it
    /// (Markdown, for a hand audit).
    #[arg(long)]
    contrasts: bool,
    /// Also print every "which of these three hold?" item (the board's multiple completion)
    /// made from a list of members or, for each of its two things, a comparison table the book
    /// gives, as the quiz and authoring show it, with which check refuses it (Markdown, for a
    /// hand audit).
    #[arg(long)]
    completions: bool,
    /// Also print every "is a classmate's answer right?" item made from a reason the book gives
    /// and from a row of a comparison table (a classmate's answer to the "why" or "respectively"
    /// item: mostly one of its misreadings), as the quiz and authoring show it, with which check
    /// refuses it (Markdown, for a hand audit).
    #[arg(long)]
    judges: bool,
    /// Also print every "which of these statements is true?" item made from a claim the book
    /// makes (English), three claims of its section and those around it turned or swapped as
    /// the wrong options, as the quiz shows it, with which check refuses it (Markdown, for a
    /// hand audit).
    #[arg(long)]
    statements: bool,
}

pub fn run(a: Args) -> Result<()> {
    let bytes = std::fs::read(&a.bundle).with_context(|| format!("cannot read {}", a.bundle.display()))?;
    let b = Bundle::from_bytes(&bytes)?;
    let h = &b.header;
    println!("title        {}", h.title);
    println!("format       {} (builder {})", inference::bundle::FORMAT_VERSION, h.builder_version);
    println!("size         {} bytes", bytes.len());
    println!("files        {}", h.files);
    println!("sections     {}", h.sections);
    println!("chunks       {}", h.chunks);
    for tier in inference::index::Tier::ALL {
        println!("  {:<10} {}", tier.name(), b.chunks.iter().filter(|c| c.tier == tier).count());
    }
    match &h.encoder {
        Some(e) => println!("encoder      {} dim {} max {} tokens sha256 {} ({})", e.name, e.dim, e.max_tokens, e.sha256, h.embed_mode),
        None => println!("encoder      none (BM25 only)"),
    }
    match &b.term_vectors {
        Some(t) => println!("word vectors {} (a question's words read as the other script's by meaning)", t.terms.len()),
        None => println!("word vectors none"),
    }
    println!("corpus       sha256 {}", h.corpus_checksum);
    println!(
        "predictions  {} (session lines {}, programs {}; {} with too few wrong outputs for a question, for \"why\" and \"judge\" items)",
        b.predictions.len(),
        b.predictions.iter().filter(|p| !p.program).count(),
        b.predictions.iter().filter(|p| p.program).count(),
        b.predictions.iter().filter(|p| !p.is_multiple_choice()).count()
    );
    if a.predictions {
        use inference::agent::quiz::{ItemEvidence, check, predict};
        let (mut refused, mut wrong, mut why, mut judged) = (0, 0, 0, 0);
        // Lines with too few wrong outputs for an item of their own: their "why" items.
        let (mut explained, mut explained_why) = (0, 0);
        // What the quiz and authoring check before showing it.
        let options = |item: &inference::agent::quiz::Item| {
            for (i, o) in item.options.iter().enumerate() {
                println!("{}. {}{o}", (b'A' + i as u8) as char, if i == item.answer_index { "**key** " } else { "" });
            }
        };
        let shows = |item: &inference::agent::quiz::Item| {
            let (checks, reason) = check::deterministic(item, &[], false);
            reason.map(|r| format!("{r} ({})", checks.iter().filter(|c| !c.1).map(|c| c.0.as_str()).collect::<Vec<_>>().join(", ")))
        };
        for (n, p) in b.predictions.iter().enumerate() {
            let s = &b.sections[p.section as usize];
            let evidence = ItemEvidence { chunk: 0, section: s.id, file: s.file.clone(), heading_path: s.heading_path.clone(), quote: String::new() };
            let nearby = predict::chapter_rules(&b, p);
            if !p.is_multiple_choice() {
                explained += 1;
                let misread: Vec<String> = p.wrong.iter().map(|w| format!("`{}` ({})", w.output.replace('\n', "⏎"), w.rule)).collect();
                println!("\n## {} · why and judge only · {}\n\n```\n{}\n```\n\nShows `{}`; misread: {}", n + 1, s.heading_path.join(" ▸ "), p.transcript(), p.output.replace('\n', "⏎"), misread.join(", "));
                if let Some(w) = predict::why_item(p, None, &nearby, evidence.clone()) {
                    match shows(&w) {
                        Some(reason) => println!("\n\"Why\" not shown: {reason}."),
                        None => explained_why += 1,
                    }
                    println!("\nUnderstand: {}", w.question.lines().next().unwrap_or(""));
                    options(&w);
                }
            } else {
                let item = predict::item(p, evidence.clone());
                println!("\n## {} · {} · {}\n\n```\n{}\n```\n", n + 1, item.bloom.name(), s.heading_path.join(" ▸ "), item.question);
                for (i, o) in item.options.iter().enumerate() {
                    // The key, or the misreading the wrong option comes from.
                    let mark = if i == item.answer_index { "**key**".to_string() } else { p.wrong.iter().find(|w| &w.output == o).map_or(String::new(), |w| format!("({})", w.rule)) };
                    println!("{}. {mark} `{}` — {}", (b'A' + i as u8) as char, o.replace('\n', "⏎"), item.rationales[i]);
                }
                if let Some(reason) = shows(&item) {
                    refused += 1;
                    println!("\nNot shown: {reason}.");
                }
                // After a wrong answer: the "why" item for each wrong option shown.
                for (k, o) in item.options.iter().enumerate().filter(|(i, _)| *i != item.answer_index).map(|(_, o)| o).enumerate() {
                    wrong += 1;
                    let Some(w) = predict::why_item(p, Some(o), &nearby, evidence.clone()) else { continue };
                    match shows(&w) {
                        Some(reason) => println!("\n\"Why\" after `{}` not shown: {reason}.", o.replace('\n', "⏎")),
                        None => why += 1,
                    }
                    if k == 0 {
                        println!("\nAfter `{}`: {}", o.replace('\n', "⏎"), w.question.lines().next().unwrap_or(""));
                        options(&w);
                    }
                }
            }
            // At Evaluate: a classmate's misreading of the line, judged.
            if let Some(j) = predict::judge_item(p, &nearby, evidence) {
                match shows(&j) {
                    Some(reason) => println!("\n\"Judge\" not shown: {reason}."),
                    None => judged += 1,
                }
                println!("\nEvaluate: {}", j.question.lines().next().unwrap_or(""));
                options(&j);
            }
        }
        let items = b.predictions.len() - explained;
        println!("\n{} of {items} questions pass the quiz's checks", items - refused);
        println!("{why} of {wrong} wrong options shown lead to a \"why\" item that passes them");
        println!("{explained_why} of {explained} lines with too few wrong outputs for a question give a \"why\" item (Understand) that passes them");
        println!("{judged} of {} lines give a \"judge\" item (Evaluate) that passes them", b.predictions.len());
    }
    if a.reasons {
        print_reasons(&b);
    }
    if a.examples {
        print_examples(&b);
    }
    if a.contrasts {
        print_contrasts(&b);
    }
    if a.completions {
        print_completions(&b);
    }
    if a.judges {
        print_judges(&b);
    }
    if a.statements {
        print_statements(&b);
    }
    Ok(())
}

/// Every claim the book makes, as the item each makes (see [`Args::statements`]).
fn print_statements(b: &Bundle) {
    use inference::agent::quiz::statement;
    let mut found = Vec::new();
    for s in b.sections.iter().filter(|s| s.kind != inference::index::outline::SectionKind::Exercise) {
        for claim in statement::statements(&s.text) {
            let item = statement::items(b, s.id, claim, None, &[], &[], |quote| evidence(&s.file, s.id, &quote)).next();
            found.push((s.file.as_str(), s.heading().to_string(), claim.to_string(), item));
        }
    }
    print_items(found, "claims");
}

/// Every reason the book gives, as the item each makes (see [`Args::reasons`]).
fn print_reasons(b: &Bundle) {
    use inference::agent::quiz::cause;
    let mut pools = cause::Pools::new(b);
    let found = files(b).into_iter().flat_map(|file| cause::pool(b, &[file]).into_iter().map(move |c| (file, c))).map(|(file, c)| {
        let item = pools.item(&c, evidence(file, c.section, &c.sentence));
        (file, c.heading, c.sentence, item)
    });
    print_items(found.collect(), "reasons");
}

/// Every list of a kind's members the book gives, as the item each makes (see
/// [`Args::examples`]).
fn print_examples(b: &Bundle) {
    use inference::agent::quiz::example;
    let mut pools = example::Pools::new(b);
    let found = files(b).into_iter().flat_map(|file| example::pool(b, &[file]).into_iter().map(move |e| (file, e))).map(|(file, e)| {
        let item = pools.item(&e, evidence(file, e.section, &e.sentence));
        (file, format!("{} ({}: {})", e.heading, e.term, e.examples.join(", ")), e.sentence, item)
    });
    print_items(found.collect(), "lists of members");
}

/// Every row of a comparison table the book gives, as the item each makes (see
/// [`Args::contrasts`]).
fn print_contrasts(b: &Bundle) {
    use inference::agent::quiz::contrast;
    let mut found = Vec::new();
    for s in b.sections.iter().filter(|s| s.kind != inference::index::outline::SectionKind::Exercise) {
        for t in contrast::contrasts(&s.text, s.id) {
            for row in 0..t.rows.len() {
                let quote = contrast::quote(&t, row);
                let item = contrast::item(&t, row, evidence(&s.file, s.id, &quote));
                found.push((s.file.as_str(), s.heading().to_string(), quote.replace('\n', " ⏎ "), item));
            }
        }
    }
    print_items(found, "table rows");
}

/// Every multiple-completion item the book's lists and tables make (see
/// [`Args::completions`]).
fn print_completions(b: &Bundle) {
    use inference::agent::quiz::{completion, contrast, example};
    let mut pools = example::Pools::new(b);
    let mut found: Vec<_> = files(b)
        .into_iter()
        .flat_map(|file| example::pool(b, &[file]).into_iter().map(move |e| (file, e)))
        .map(|(file, e)| {
            let item = pools.completion(&e, evidence(file, e.section, &e.sentence));
            (file, format!("{} ({}: {})", e.heading, e.term, e.examples.join(", ")), e.sentence, item)
        })
        .collect();
    for s in b.sections.iter().filter(|s| s.kind != inference::index::outline::SectionKind::Exercise) {
        for t in contrast::contrasts(&s.text, s.id) {
            for side in 0..2 {
                let quote = completion::table_quote(&t, side).unwrap_or_else(|| contrast::quote(&t, 0));
                let item = completion::from_table(&t, side, evidence(&s.file, s.id, &quote));
                found.push((s.file.as_str(), format!("{} ({})", s.heading(), t.sides[side]), quote.replace('\n', " ⏎ "), item));
            }
        }
    }
    print_items(found, "lists and tables' sides");
}

/// Every "judge" item the book's reasons and table rows make (see [`Args::judges`]).
fn print_judges(b: &Bundle) {
    use inference::agent::quiz::{cause, contrast, judge};
    let judged = |item: Option<inference::agent::quiz::Item>, misreading: Option<&str>| item.and_then(|i| judge::item(&i, judge::answer(&i, misreading)?));
    let mut pools = cause::Pools::new(b);
    let mut found: Vec<_> = files(b)
        .into_iter()
        .flat_map(|file| cause::pool(b, &[file]).into_iter().map(move |c| (file, c)))
        .map(|(file, c)| {
            let item = judged(pools.item(&c, evidence(file, c.section, &c.sentence)), Some(cause::TURNED));
            (file, c.heading, c.sentence, item)
        })
        .collect();
    for s in b.sections.iter().filter(|s| s.kind != inference::index::outline::SectionKind::Exercise) {
        for t in contrast::contrasts(&s.text, s.id) {
            for row in 0..t.rows.len() {
                let quote = contrast::quote(&t, row);
                let item = judged(contrast::item(&t, row, evidence(&s.file, s.id, &quote)), None);
                found.push((s.file.as_str(), s.heading().to_string(), quote.replace('\n', " ⏎ "), item));
            }
        }
    }
    print_items(found, "reasons and table rows");
}

fn files(b: &Bundle) -> Vec<&str> {
    let mut files: Vec<&str> = b.sections.iter().map(|s| s.file.as_str()).collect();
    files.dedup();
    files
}

fn evidence(file: &str, section: u32, quote: &str) -> inference::agent::quiz::ItemEvidence {
    inference::agent::quiz::ItemEvidence { chunk: 0, section, file: file.to_string(), heading_path: vec![], quote: quote.to_string() }
}

/// Each (file, heading, the book's sentence, the item it makes), with which check refuses the
/// item (Markdown), and the counts; `what` names what was found.
fn print_items(found: Vec<(&str, String, String, Option<inference::agent::quiz::Item>)>, what: &str) {
    use inference::agent::quiz::check;
    let (mut made, mut shown) = (0, 0);
    for (file, heading, sentence, item) in &found {
        println!("\n## {file} ▸ {heading}\n\n> {sentence}\n");
        let Some(item) = item else {
            println!("No item: too few wrong options or statements.");
            continue;
        };
        made += 1;
        let bangla = item.question.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c));
        let (checks, reason) = check::deterministic(item, &[], bangla);
        match reason {
            Some(r) => println!("Not shown: {r} ({}).\n", checks.iter().filter(|c| !c.1).map(|c| c.0.as_str()).collect::<Vec<_>>().join(", ")),
            None => shown += 1,
        }
        println!("{}", item.question);
        for (i, o) in item.options.iter().enumerate() {
            let letters = if bangla { ["ক", "খ", "গ", "ঘ"] } else { ["A", "B", "C", "D"] };
            println!("{}. {}{o} — {}", letters[i], if i == item.answer_index { "**key** " } else { "" }, item.rationales[i]);
        }
    }
    println!("\n{} {what} found, {made} make an item, {shown} pass the quiz's checks", found.len());
}
