//! Exports of authored items: JSON records in TeachMateGPT's schema (one per line), Moodle XML
//! and GIFT (both import into Moodle's question bank: an MCQ with feedback per option, each CQ
//! part an essay question with its marks as the grade).

use super::{Authored, Body, option_label};
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
/// rung and the attempts.
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
        "ai_assisted": true,
    })
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// Text as Moodle's HTML: escaped, paragraphs per line.
fn html(s: &str) -> String {
    s.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("<p>{}</p>", xml_escape(l))).collect()
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
                out.push_str(&format!("    {}\n", text_el("questiontext", Some("html"), &html(&m.question))));
                let key = format!("{}) {}", option_label(m.answer_index, item.language), m.options.get(m.answer_index).map_or("", |s| s));
                out.push_str(&format!("    {}\n", text_el("generalfeedback", Some("html"), &html(&key))));
                out.push_str("    <defaultgrade>1</defaultgrade>\n    <penalty>0.3333333</penalty>\n    <hidden>0</hidden>\n");
                out.push_str(&format!("    <single>true</single>\n    <shuffleanswers>0</shuffleanswers>\n    <answernumbering>{numbering}</answernumbering>\n"));
                for (i, o) in m.options.iter().enumerate() {
                    let fraction = if i == m.answer_index { 100 } else { 0 };
                    let shown = if item.language == Lang::Bn { format!("{}) {o}", option_label(i, item.language)) } else { o.clone() };
                    out.push_str(&format!(
                        "    <answer fraction=\"{fraction}\" format=\"html\"><text>{}</text>{}</answer>\n",
                        xml_escape(&html(&shown)),
                        text_el("feedback", Some("html"), &html(m.rationales.get(i).map_or("", |s| s)))
                    ));
                }
                out.push_str(&format!("    <tags><tag><text>{}</text></tag><tag><text>AI-assisted</text></tag></tags>\n", xml_escape(item.difficulty.name())));
                out.push_str("  </question>\n");
            }
            Body::Cq(c) => {
                for p in &c.parts {
                    out.push_str("  <question type=\"essay\">\n");
                    out.push_str(&format!("    {}\n", text_el("name", None, &format!("{name} {}", p.label))));
                    let body = format!("{}\n{}\n{}) {} ({} {})", c.headline, c.clue, p.label, p.question, p.marks, if item.language == Lang::Bn { "নম্বর" } else { "marks" });
                    out.push_str(&format!("    {}\n", text_el("questiontext", Some("html"), &html(&body))));
                    out.push_str(&format!("    {}\n", text_el("generalfeedback", Some("html"), "")));
                    out.push_str(&format!("    <defaultgrade>{}</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n", p.marks));
                    out.push_str("    <responseformat>editor</responseformat>\n    <responserequired>1</responserequired>\n    <responsefieldlines>10</responsefieldlines>\n    <attachments>0</attachments>\n");
                    out.push_str(&format!("    {}\n", text_el("graderinfo", Some("html"), &html(&p.skill))));
                    out.push_str(&format!("    {}\n", text_el("responsetemplate", Some("html"), "")));
                    out.push_str(&format!("    <tags><tag><text>{}</text></tag><tag><text>AI-assisted</text></tag></tags>\n", xml_escape(&p.skill)));
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

/// GIFT: one question per blank-line-separated block; MCQ options with `=` (right) and `~`,
/// each with `#feedback`; each CQ part an essay (`{}`).
pub fn gift(items: &[Authored]) -> String {
    let mut out = String::new();
    let mut chapter: Option<&str> = None;
    for item in items {
        if chapter != Some(item.chapter.as_str()) {
            chapter = Some(&item.chapter);
            out.push_str(&format!("$CATEGORY: $course$/Pathshala/{}\n\n", item.chapter.replace(['/', '\n'], "-")));
        }
        let name = format!("{} ({})", item.question_id, item.concept);
        match &item.body {
            Body::Mcq(m) => {
                out.push_str(&format!("// {} · {} · AI-assisted\n", item.chapter.replace('\n', " "), item.difficulty.name()));
                out.push_str(&format!("::{}::{} {{\n", gift_escape(&name), gift_escape(&m.question)));
                for (i, o) in m.options.iter().enumerate() {
                    let mark = if i == m.answer_index { '=' } else { '~' };
                    out.push_str(&format!("\t{mark}{}#{}\n", gift_escape(o), gift_escape(m.rationales.get(i).map_or("", |s| s))));
                }
                out.push_str("}\n\n");
            }
            Body::Cq(c) => {
                for p in &c.parts {
                    let text = format!("{}\n{}\n{}) {} ({})", c.headline, c.clue, p.label, p.question, p.marks);
                    out.push_str(&format!("::{} {}::{} {{}}\n\n", gift_escape(&name), gift_escape(&p.label), gift_escape(&text)));
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
        let parts = (0..4).map(|i| Part { label: ["a", "b", "c", "d"][i].into(), skill: "knowledge".into(), question: format!("Q{i}: why?"), marks: i as u32 + 1 }).collect();
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

    #[test]
    fn gift_escapes_its_special_characters() {
        let g = gift(&items());
        assert!(g.starts_with("$CATEGORY: $course$/Pathshala/Ch 4: <Light> & {life}\n"));
        assert!(g.contains("::x-Mcq (Light)::What does 2 \\= 2 \\{always\\} mean\\: a \\~ b? \\# not {"));
        assert!(g.contains("\t=x\\:y#r2\n") && g.contains("\t~back\\\\slash#r3\n") && g.contains("~A & B#r0"));
        assert!(g.contains("#r1 \\= ok"));
        // Each question block: no blank line inside; four essays for the CQ.
        let blocks: Vec<&str> = g.split("\n\n").filter(|b| !b.trim().is_empty()).collect();
        assert_eq!(blocks.len(), 1 + 1 + 4, "category, MCQ, four essays: {blocks:?}");
        assert!(blocks.iter().skip(2).all(|b| b.ends_with("{}")));
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
        assert_eq!(recs[0]["decision"], "pending");
        assert!(recs[0]["question_id"].is_string());
    }
}
