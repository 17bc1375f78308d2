//! Exports of authored items: JSON records in TeachMateGPT's schema (one per line), Moodle XML
//! and GIFT (both import into Moodle's question bank: an MCQ with feedback per option, each CQ
//! part an essay question with its marks as the grade).

use super::{Authored, Body, Creative, FromBook, Mcq, Part, option_label};
use crate::agent::route::Lang;
use serde_json::{Value, json};

/// The export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON record per line.
    Json,
    MoodleXml,
    Gift,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "json" | "jsonl" => Some(Format::Json),
            "moodle-xml" | "moodle" | "xml" => Some(Format::MoodleXml),
            "gift" => Some(Format::Gift),
            _ => None,
        }
    }
}

/// Items in `format`.
pub fn export(items: &[Authored], format: Format) -> String {
    match format {
        Format::Json => items.iter().map(|i| record(i).to_string() + "\n").collect(),
        Format::MoodleXml => moodle_xml(items),
        Format::Gift => gift(items),
    }
}

/// One item as TeachMateGPT's record (Table 8: `query` and `selected_tasks` are the request it
/// was written for) plus the verification report, the teacher's decision, the gates, the ladder
/// rung, the attempts and why each attempt before the kept one was rejected.
pub fn record(item: &Authored) -> Value {
    let (mcq, creative, rationales) = match &item.body {
        Body::Mcq(m) => (json!({"question": m.question, "options": m.options, "answer_index": m.answer_index}), Value::Null, json!(m.rationales)),
        Body::Cq(c) => (Value::Null, json!({"headline": c.headline, "clue": c.clue, "parts": c.parts}), Value::Null),
    };
    let sources: Vec<Value> = item.sources.iter().map(|s| json!({"file": s.file, "heading_path": s.heading_path, "excerpt": s.quote})).collect();
    let verification = item.verification.as_ref().map_or(Value::Null, |v| {
        json!({"faithfulness": v.faithfulness, "relevance": v.relevance, "hallucination": v.hallucination, "accepted": v.accepted, "reasons": v.reasons})
    });
    json!({
        "question_id": item.question_id,
        "query": item.query,
        "selected_tasks": item.selected_tasks,
        "chapter": item.chapter,
        "concept": item.concept,
        "sources": sources,
        "mcq": mcq,
        "creative": creative,
        "rationales": rationales,
        "difficulty": item.difficulty,
        "language": item.language,
        "verification": verification,
        "decision": item.decision,
        "gates": item.gates,
        "ladder": item.ladder,
        "attempts": item.attempts,
        "rejected": item.rejected,
        // An item turned from the book's own definition, reason, examples or comparison table, or made by running its code,
        // was not written by a model.
        "ai_assisted": item.from_book().is_none(),
        "from_definition": item.by_definition,
        "from_running": item.by_running,
        "from_reason": item.by_reason,
        "from_example": item.by_example,
        "from_contrast": item.by_contrast,
        "from_statement": item.by_statement,
    })
}

/// How an item was made, as the exports tag it.
fn origin(item: &Authored) -> &'static str {
    match item.from_book() {
        Some(FromBook::Definition) => "from the book's definition",
        Some(FromBook::Running) => "from the book's code, run",
        Some(FromBook::Reason) => "from a reason the book gives",
        Some(FromBook::Example) => "from examples the book gives",
        Some(FromBook::Contrast) => "from the book's comparison table",
        Some(FromBook::Statement) => "from the book's own statements",
        None => "AI-assisted",
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// Text as Moodle's HTML: escaped, paragraphs per line.
fn html(s: &str) -> String {
    s.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("<p>{}</p>", xml_escape(l))).collect()
}

/// Code as Moodle shows it: one block, its lines and indentation kept.
fn html_code(s: &str) -> String {
    format!("<pre>{}</pre>", xml_escape(s))
}

/// Whether an MCQ asks what the book's code shows ([`crate::agent::quiz::predict`]): its code
/// and options are code.
fn asks_code(question: &str) -> bool {
    crate::agent::quiz::predict::asks(question)
}

/// An MCQ's stem: the question, and the code it shows as a code block.
fn question_html(question: &str) -> String {
    match question.split_once("\n\n").filter(|_| crate::agent::quiz::predict::shows_code(question)) {
        Some((ask, code)) => format!("{}{}", html(ask), html_code(code)),
        None => html(question),
    }
}

/// An option as the teacher's paper shows it: Bangla options carry their letter (ক খ গ ঘ, which
/// Moodle's numbering cannot write), English ones get Moodle's A–D.
fn shown_option(i: usize, option: &str, lang: Lang) -> String {
    if lang == Lang::Bn { format!("{}) {option}", option_label(i, lang)) } else { option.to_string() }
}

/// The keyed option with its letter (an MCQ's general feedback).
fn answer_key(m: &Mcq, lang: Lang) -> String {
    format!("{}) {}", option_label(m.answer_index, lang), m.options.get(m.answer_index).map_or("", |s| s))
}

/// One part of a creative question as its own essay: headline, stimulus (its code as code
/// blocks, [`super::code_cq::is_code`]), the part and its marks.
fn cq_part_html(c: &Creative, p: &Part, lang: Lang) -> String {
    let clue: String = c.clue.split("\n\n").map(|para| if super::code_cq::is_code(para) { html_code(&super::code_cq::unindent(para)) } else { html(para) }).collect();
    let part = format!("{}) {} ({} {})", p.label, p.question, p.marks, if lang == Lang::Bn { "নম্বর" } else { "marks" });
    format!("{}{clue}{}", html(&c.headline), html(&part))
}

/// What the marker reads beside a CQ part: its skill, and its answer where the item has one.
fn grader_info(p: &Part, lang: Lang) -> String {
    if p.answer.is_empty() {
        return html(&p.skill);
    }
    format!("{}{}", html(&p.skill), html(&format!("{} {}", if lang == Lang::Bn { "উত্তর:" } else { "Answer:" }, p.answer)))
}

fn text_el(tag: &str, format: Option<&str>, body: &str) -> String {
    match format {
        Some(f) => format!("<{tag} format=\"{f}\"><text>{}</text></{tag}>", xml_escape(body)),
        None => format!("<{tag}><text>{}</text></{tag}>", xml_escape(body)),
    }
}

/// Moodle XML: a category per chapter, then the items.
pub fn moodle_xml(items: &[Authored]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n");
    let mut chapter: Option<&str> = None;
    for item in items {
        if chapter != Some(item.chapter.as_str()) {
            chapter = Some(&item.chapter);
            let cat = format!("$course$/Pathshala/{}", item.chapter.replace('/', "-"));
            out.push_str(&format!("  <question type=\"category\"><category><text>{}</text></category></question>\n", xml_escape(&cat)));
        }
        let name = format!("{} ({})", item.question_id, item.concept);
        match &item.body {
            Body::Mcq(m) => {
                let numbering = if item.language == Lang::Bn { "none" } else { "ABCD" };
                out.push_str("  <question type=\"multichoice\">\n");
                out.push_str(&format!("    {}\n", text_el("name", None, &name)));
                out.push_str(&format!("    {}\n", text_el("questiontext", Some("html"), &question_html(&m.question))));
                out.push_str(&format!("    {}\n", text_el("generalfeedback", Some("html"), &html(&answer_key(m, item.language)))));
                out.push_str("    <defaultgrade>1</defaultgrade>\n    <penalty>0.3333333</penalty>\n    <hidden>0</hidden>\n");
                out.push_str(&format!("    <single>true</single>\n    <shuffleanswers>0</shuffleanswers>\n    <answernumbering>{numbering}</answernumbering>\n"));
                for (i, o) in m.options.iter().enumerate() {
                    let fraction = if i == m.answer_index { 100 } else { 0 };
                    out.push_str(&format!(
                        "    <answer fraction=\"{fraction}\" format=\"html\"><text>{}</text>{}</answer>\n",
                        xml_escape(&if asks_code(&m.question) { html_code(o) } else { html(&shown_option(i, o, item.language)) }),
                        text_el("feedback", Some("html"), &html(m.rationales.get(i).map_or("", |s| s)))
                    ));
                }
                out.push_str(&format!("    <tags><tag><text>{}</text></tag><tag><text>{}</text></tag></tags>\n", xml_escape(item.difficulty.name()), origin(item)));
                out.push_str("  </question>\n");
            }
            Body::Cq(c) => {
                for p in &c.parts {
                    out.push_str("  <question type=\"essay\">\n");
                    out.push_str(&format!("    {}\n", text_el("name", None, &format!("{name} {}", p.label))));
                    out.push_str(&format!("    {}\n", text_el("questiontext", Some("html"), &cq_part_html(c, p, item.language))));
                    out.push_str(&format!("    {}\n", text_el("generalfeedback", Some("html"), "")));
                    out.push_str(&format!("    <defaultgrade>{}</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n", p.marks));
                    out.push_str("    <responseformat>editor</responseformat>\n    <responserequired>1</responserequired>\n    <responsefieldlines>10</responsefieldlines>\n    <attachments>0</attachments>\n");
                    out.push_str(&format!("    {}\n", text_el("graderinfo", Some("html"), &grader_info(p, item.language))));
                    out.push_str(&format!("    {}\n", text_el("responsetemplate", Some("html"), "")));
                    out.push_str(&format!("    <tags><tag><text>{}</text></tag><tag><text>{}</text></tag></tags>\n", xml_escape(&p.skill), origin(item)));
                    out.push_str("  </question>\n");
                }
            }
        }
    }
    out.push_str("</quiz>\n");
    out
}

/// GIFT's special characters escaped, line breaks as `\n`.
pub fn gift_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '~' | '=' | '#' | '{' | '}' | ':' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => {}
            _ => out.push(c),
        }
    }
    out
}

/// GIFT as Moodle's importer reads it (`question/format/gift`): one question per block of lines
/// between blank lines; the texts in its `[html]` format, escaped as the Moodle XML export's are
/// (so a `<` in a program stays a `<`, not a tag), with GIFT's special characters escaped after;
/// MCQ options with `=` (right) and `~`, each with its `#feedback`, the key as `####` general
/// feedback; each CQ part an essay (`{####…}`) whose general feedback is what Moodle XML's
/// grader information holds (the skill, and the marking guide where there is one).
pub fn gift(items: &[Authored]) -> String {
    let text = |s: &str| gift_escape(&html(s));
    let mut out = String::new();
    let mut chapter: Option<&str> = None;
    for item in items {
        if chapter != Some(item.chapter.as_str()) {
            chapter = Some(&item.chapter);
            // Moodle takes the rest of the line as the category path, unescaped.
            out.push_str(&format!("$CATEGORY: $course$/Pathshala/{}\n\n", item.chapter.replace(['/', '\n', '\r'], "-")));
        }
        let name = format!("{} ({})", item.question_id, item.concept);
        match &item.body {
            Body::Mcq(m) => {
                out.push_str(&format!("// {} · {} · {}\n", item.chapter.replace(['\n', '\r'], " "), item.difficulty.name(), origin(item)));
                out.push_str(&format!("::{}::[html]{} {{\n", gift_escape(&name), gift_escape(&question_html(&m.question))));
                for (i, o) in m.options.iter().enumerate() {
                    let mark = if i == m.answer_index { '=' } else { '~' };
                    let option = if asks_code(&m.question) { gift_escape(&html_code(o)) } else { text(&shown_option(i, o, item.language)) };
                    out.push_str(&format!("\t{mark}{option}#{}\n", text(m.rationales.get(i).map_or("", |s| s))));
                }
                out.push_str(&format!("\t####{}\n}}\n\n", text(&answer_key(m, item.language))));
            }
            Body::Cq(c) => {
                for p in &c.parts {
                    // GIFT has no grader information: the skill and the marking guide go in the
                    // part's general feedback (`####`), which Moodle shows after an attempt.
                    let guide = gift_escape(&grader_info(p, item.language));
                    out.push_str(&format!("::{} {}::[html]{} {{####{guide}}}\n\n", gift_escape(&name), gift_escape(&p.label), gift_escape(&cq_part_html(c, p, item.language))));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::author::{Creative, Difficulty, Mcq, Part, Task};
    use crate::agent::quiz::ItemEvidence;
    use xml::reader::{EventReader, XmlEvent};

    fn items() -> Vec<Authored> {
        let src = vec![ItemEvidence { chunk: 0, section: 0, file: "bio.md".into(), heading_path: vec!["Ch 4".into(), "Light".into()], quote: "Plants need light.".into() }];
        let base = |body| Authored::new("x".into(), body, "Ch 4: <Light> & {life}".into(), "Light".into(), src.clone(), Difficulty::Beginner, Lang::En);
        let mcq = Mcq {
            question: "What does 2 = 2 {always} mean: a ~ b? # not".into(),
            options: vec!["A & B".into(), "<b>bold</b>".into(), "x:y".into(), "back\\slash".into()],
            answer_index: 2,
            rationales: vec!["r0".into(), "r1 = ok".into(), "r2".into(), "r3".into()],
        };
        let parts = (0..4).map(|i| Part { label: ["a", "b", "c", "d"][i].into(), skill: "knowledge".into(), question: format!("Q{i}: why?"), marks: i as u32 + 1, answer: String::new() }).collect();
        let cq = Creative { headline: "H".into(), clue: "Stimulus: one. two.".into(), parts };
        let mut items = vec![base(Body::Mcq(mcq)), base(Body::Cq(cq))];
        items[0].question_id = "x-Mcq".into();
        items[1].question_id = "x-Cq".into();
        for i in &mut items {
            i.query = "light".into();
            i.selected_tasks = vec![Task::Mcq, Task::Cq];
        }
        items
    }

    #[test]
    fn moodle_xml_parses_with_moodles_structure() {
        let xml = moodle_xml(&items());
        let mut stack: Vec<String> = Vec::new();
        let (mut questions, mut answers, mut right, mut grades) = (Vec::new(), 0, 0, Vec::new());
        let mut text = String::new();
        for e in EventReader::from_str(&xml) {
            match e.expect("well-formed XML") {
                XmlEvent::StartElement { name, attributes, .. } => {
                    if name.local_name == "question" {
                        questions.push(attributes.iter().find(|a| a.name.local_name == "type").unwrap().value.clone());
                    }
                    if name.local_name == "answer" {
                        answers += 1;
                        right += attributes.iter().any(|a| a.name.local_name == "fraction" && a.value == "100") as usize;
                        assert_eq!(stack.last().map(String::as_str), Some("question"));
                    }
                    stack.push(name.local_name);
                    text.clear();
                }
                XmlEvent::Characters(t) => text.push_str(&t),
                XmlEvent::EndElement { name } => {
                    if name.local_name == "defaultgrade" {
                        grades.push(text.clone());
                    }
                    if name.local_name == "text" && stack.iter().any(|s| s == "questiontext") && stack.len() >= 3 {
                        assert!(text.starts_with("<p>"), "question text is HTML: {text}");
                    }
                    stack.pop();
                }
                _ => {}
            }
        }
        assert_eq!(questions, ["category", "multichoice", "essay", "essay", "essay", "essay"]);
        assert_eq!((answers, right), (4, 1));
        assert_eq!(grades, ["1", "1", "2", "3", "4"]);
        assert!(xml.contains("&lt;p&gt;A &amp;amp; B&lt;/p&gt;"), "option text escaped twice: as HTML, then as XML");
    }

    /// One question as Moodle's GIFT importer reads it (`qformat_gift::readquestion`): its
    /// type, name, text and format, options as (text, right, feedback), general feedback.
    #[derive(Debug, Default)]
    struct GiftQuestion {
        qtype: &'static str,
        name: String,
        text: String,
        format: String,
        options: Vec<(String, bool, String)>,
        general: String,
    }

    /// GIFT read the way Moodle's importer reads it, step by step: blocks between blank lines
    /// (lines trimmed), `//` lines dropped, escaped characters hidden before parsing and
    /// restored after, `$CATEGORY:`, `::name::`, the text before the first `{`, the answers up
    /// to the first `}`, a `[format]` prefix, `####` general feedback, then the type from the
    /// answers (empty: essay; a `~`: multichoice, each answer split at `#`).
    fn moodle_reads_gift(gift: &str) -> Vec<GiftQuestion> {
        const HIDDEN: [(&str, &str, char); 7] =
            [("\\:", "&&058;", ':'), ("\\#", "&&035;", '#'), ("\\=", "&&061;", '='), ("\\{", "&&123;", '{'), ("\\}", "&&125;", '}'), ("\\~", "&&126;", '~'), ("\\n", "&&010", '\n')];
        let hide = |s: &str| {
            let mut s = s.replace("\\\\", "&&092;");
            for (esc, ph, _) in HIDDEN {
                s = s.replace(esc, ph);
            }
            s.replace("&&092;", "\\")
        };
        let restore = |s: &str| HIDDEN.iter().fold(s.to_string(), |s, (_, ph, c)| s.replace(ph, &c.to_string()));
        let with_format = |s: &str, default: &str| -> (String, String) {
            let s = s.trim();
            if let Some(rest) = s.strip_prefix('[')
                && let Some(end) = rest.find(']')
                && ["html", "moodle", "plain", "markdown"].contains(&&rest[..end])
            {
                return (restore(&rest[end + 1..]).trim().to_string(), rest[..end].to_string());
            }
            (restore(s).trim().to_string(), default.to_string())
        };
        let mut blocks: Vec<Vec<&str>> = vec![vec![]];
        for line in gift.lines().map(str::trim) {
            if line.is_empty() {
                blocks.push(vec![]);
            } else {
                blocks.last_mut().unwrap().push(line);
            }
        }
        let mut out = Vec::new();
        for lines in blocks.into_iter().filter(|b| !b.is_empty()) {
            let text: Vec<&str> = lines.iter().map(|l| if l.starts_with("//") { " " } else { l }).collect();
            let mut text = hide(text.join("\n").trim());
            if text.is_empty() {
                continue;
            }
            if let Some(cat) = text.strip_prefix("$CATEGORY:") {
                out.push(GiftQuestion { qtype: "category", text: cat.trim().to_string(), ..Default::default() });
                continue;
            }
            let mut q = GiftQuestion::default();
            if let Some(rest) = text.strip_prefix("::") {
                let end = rest.find("::").expect("a name ends with ::");
                q.name = restore(&rest[..end]);
                text = rest[end + 2..].trim().to_string();
            }
            let (open, close) = (text.find('{').expect("an answer part"), text.find('}').expect("its end"));
            let mut answers = text[open + 1..close].trim().to_string();
            let mut question = text.clone();
            question.replace_range(open..=close, "");
            if let Some(g) = answers.rfind("####") {
                q.general = answers[g + 4..].to_string();
                answers = answers[..g].trim().to_string();
            }
            (q.text, q.format) = with_format(&question, "moodle");
            q.general = with_format(&q.general, &q.format).0;
            if answers.is_empty() {
                q.qtype = "essay";
            } else {
                assert!(answers.contains('~'), "only a multichoice is exported: {answers}");
                q.qtype = "multichoice";
                for a in answers.replace('=', "~=").split('~').map(str::trim).filter(|a| !a.is_empty()) {
                    let (right, a) = a.strip_prefix('=').map_or((false, a), |a| (true, a));
                    let (text, feedback) = a.split_once('#').unwrap_or((a, ""));
                    q.options.push((with_format(text, &q.format).0, right, with_format(feedback, &q.format).0));
                }
            }
            out.push(q);
        }
        out
    }

    /// What a learner sees of Moodle's HTML text: tags out, entities back, paragraphs as lines.
    fn shown(html: &str) -> String {
        let text = html.replace("</p><p>", "\n").replace("<p>", "").replace("</p>", "");
        assert!(!text.contains('<'), "a tag is left in {html}");
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
    }

    #[test]
    fn gift_reads_back_in_moodle_as_written() {
        let mut all = items();
        // A Python item: a program in the stem (braces, a comparison, a comment, a line break), an
        // option that starts like a format name, and a Bangla item with its own letters.
        let code = Mcq {
            question: "What does this print?\nd = {'a': 1}  # a dict\nprint(d['a'] < 2)".into(),
            options: vec!["[True]".into(), "True".into(), "{'a': 1}".into(), "1 == 1 ~ 2".into()],
            answer_index: 1,
            rationales: vec!["a list is not printed".into(), "1 < 2 is True".into(), "the dict is not printed".into(), "not Python".into()],
        };
        all.push(Authored::new("x-code".into(), Body::Mcq(code.clone()), "Ch 5".into(), "Dicts".into(), vec![], Difficulty::Beginner, Lang::En));
        let bn = Mcq { question: "পাতা সবুজ কেন?".into(), options: vec!["ক্লোরোফিল".into(), "পানি".into(), "আলো".into(), "মাটি".into()], answer_index: 0, rationales: vec!["সঠিক".into(), String::new(), String::new(), String::new()] };
        all.push(Authored::new("x-bn".into(), Body::Mcq(bn), "অধ্যায় ৮".into(), "পাতা".into(), vec![], Difficulty::Beginner, Lang::Bn));

        let read = moodle_reads_gift(&gift(&all));
        let kinds: Vec<&str> = read.iter().map(|q| q.qtype).collect();
        assert_eq!(kinds, ["category", "multichoice", "essay", "essay", "essay", "essay", "category", "multichoice", "category", "multichoice"]);
        assert_eq!(read[0].text, "$course$/Pathshala/Ch 4: <Light> & {life}");
        for (q, item) in read.iter().filter(|q| q.qtype == "multichoice").zip(all.iter().filter(|i| i.task == Task::Mcq)) {
            let Body::Mcq(m) = &item.body else { unreachable!() };
            assert_eq!(q.name, format!("{} ({})", item.question_id, item.concept));
            assert_eq!(q.format, "html", "Moodle's HTML, so a < in a program stays a <");
            assert_eq!(shown(&q.text), m.question, "the stem as written");
            let options: Vec<(String, bool, String)> = q.options.iter().map(|(t, r, f)| (shown(t), *r, shown(f))).collect();
            let want: Vec<(String, bool, String)> = m.options.iter().enumerate().map(|(i, o)| (shown_option(i, o, item.language), i == m.answer_index, m.rationales[i].clone())).collect();
            assert_eq!(options, want, "every option, the right one marked, each with its feedback");
            assert_eq!(shown(&q.general), answer_key(m, item.language));
        }
        assert_eq!(read[9].options[0].0, "<p>ক) ক্লোরোফিল</p>", "Bangla options carry their letters");
        let Body::Cq(c) = &all[1].body else { unreachable!() };
        for (q, p) in read[2..6].iter().zip(&c.parts) {
            assert_eq!((q.name.clone(), q.format.as_str()), (format!("x-Cq (Light) {}", p.label), "html"));
            assert_eq!(shown(&q.text), format!("{}\n{}\n{}) {} ({} marks)", c.headline, c.clue, p.label, p.question, p.marks));
            assert_eq!(shown(&q.general), p.skill, "the part's grader information, as its general feedback");
        }
    }

    #[test]
    fn a_stimulus_shows_its_code_as_code_and_the_marker_reads_each_answer() {
        let parts = (0..4).map(|i| Part { label: ["a", "b", "c", "d"][i].into(), skill: "knowledge".into(), question: format!("Q{i}?"), marks: i as u32 + 1, answer: format!("A{i} <ok>") }).collect();
        let c = Creative { headline: "H".into(), clue: "Stimulus: Rina typed:\n\n    >>> if x < 2:\n    ...     print(x)\n\nThen she ran it.".into(), parts };
        let html = cq_part_html(&c, &c.parts[0], Lang::En);
        assert_eq!(html, "<p>H</p><p>Stimulus: Rina typed:</p><pre>&gt;&gt;&gt; if x &lt; 2:\n...     print(x)</pre><p>Then she ran it.</p><p>a) Q0? (1 marks)</p>");
        assert_eq!(grader_info(&c.parts[3], Lang::En), "<p>knowledge</p><p>Answer: A3 &lt;ok&gt;</p>");
        let xml = moodle_xml(&[Authored { by_running: true, ..Authored::new("x".into(), Body::Cq(c.clone()), "Ch".into(), "Co".into(), vec![], Difficulty::Beginner, Lang::En) }]);
        assert!(xml.contains("&lt;p&gt;Answer: A0 &amp;lt;ok&amp;gt;&lt;/p&gt;") && xml.contains("<tag><text>from the book's code, run</text></tag>"), "{xml}");
        // GIFT carries the same marking guide, as each part's general feedback.
        let read = moodle_reads_gift(&gift(&[Authored::new("x".into(), Body::Cq(c), "Ch".into(), "Co".into(), vec![], Difficulty::Beginner, Lang::En)]));
        assert_eq!(read.iter().map(|q| shown(&q.general)).collect::<Vec<_>>()[1..], ["knowledge\nAnswer: A0 <ok>", "knowledge\nAnswer: A1 <ok>", "knowledge\nAnswer: A2 <ok>", "knowledge\nAnswer: A3 <ok>"]);
    }

    #[test]
    fn json_records_follow_the_schema() {
        let lines = export(&items(), Format::Json);
        let recs: Vec<Value> = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0]["selected_tasks"], json!(["mcq", "cq"]));
        assert_eq!(recs[1]["query"], "light", "each record carries the request it was written for");
        assert_eq!(recs[0]["mcq"]["answer_index"], 2);
        assert!(recs[0]["creative"].is_null() && recs[1]["mcq"].is_null());
        assert_eq!(recs[1]["creative"]["parts"].as_array().unwrap().len(), 4);
        assert_eq!(recs[1]["creative"]["parts"][3]["marks"], 4);
        assert_eq!(recs[0]["sources"][0], json!({"file": "bio.md", "heading_path": ["Ch 4", "Light"], "excerpt": "Plants need light."}));
        assert_eq!(recs[0]["ladder"], "strict");
        assert_eq!(recs[0]["rejected"], json!([]), "no attempt was rejected");
        assert_eq!(recs[0]["decision"], "pending");
        assert!(recs[0]["question_id"].is_string());
        assert_eq!((recs[0]["ai_assisted"].as_bool(), recs[0]["from_reason"].as_bool()), (Some(true), Some(false)));
        // An item asking a reason the book gives was not written by a model, and says so.
        let mut from_book = items();
        from_book[0].by_reason = true;
        let rec = record(&from_book[0]);
        assert_eq!((rec["ai_assisted"].as_bool(), rec["from_reason"].as_bool()), (Some(false), Some(true)));
        assert!(gift(&from_book).contains("from a reason the book gives"));
        assert!(moodle_xml(&from_book).contains("<tag><text>from a reason the book gives</text></tag>"));
    }
}
