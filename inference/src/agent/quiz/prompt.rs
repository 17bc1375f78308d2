//! The quiz's prompts: the item writer (system turn and one worked example, kept in the session
//! as prefix [`WRITER_PREFIX`]) and the subtopic picker. The examiner asks Ask's judge
//! ([`super::judge_options`]).

use super::Bloom;
use crate::llm::inert;

/// Name of the item writer's kept prompt prefix (English example; [`WRITER_PREFIX_BN`] with the
/// Bangla one).
pub const WRITER_PREFIX: &str = "quiz";
pub const WRITER_PREFIX_BN: &str = "quiz_bn";

/// The item writer's system turn (the same for every item of every course).
pub const WRITER_SYSTEM: &str = "You write multiple-choice questions that test a learner on a course. \
You use only the passage you are given: the correct answer must be stated or directly implied by it. \
Each question has exactly one correct answer and three wrong options that a learner who half-understands \
the passage might choose; a wrong option must be clearly wrong according to the passage. \
The learner does not see the passage, so never write \"the passage\" or \"the text\"; ask about the subject itself. \
The four options must be different from each other. Never use \"all of the above\" or \"none of the above\". Reply with JSON only.";

/// The longest option and the longest reason [`ITEM_SCHEMA`] allows, in characters: the
/// constraint closes a string that reaches its limit, so one that long may have been cut off
/// mid-sentence ([`super::check::deterministic`] tells).
pub const OPTION_MAX_CHARS: usize = 150;
/// See [`OPTION_MAX_CHARS`].
pub const REASON_MAX_CHARS: usize = 240;

/// The JSON an item is written as (constrained decoding enforces it). The correct answer comes
/// first and the wrong options after it, each with its reason; positions are shuffled later, so
/// the model never has to keep track of an index.
pub const ITEM_SCHEMA: &str = r#"{"type": "object", "properties": {
  "question": {"type": "string", "minLength": 15, "maxLength": 400},
  "answer": {"type": "string", "minLength": 1, "maxLength": 150},
  "why_right": {"type": "string", "minLength": 10, "maxLength": 240},
  "wrong": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "object", "properties": {
    "option": {"type": "string", "minLength": 1, "maxLength": 150},
    "why_wrong": {"type": "string", "minLength": 10, "maxLength": 240}}, "required": ["option", "why_wrong"]}},
  "concepts": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "minLength": 2, "maxLength": 60}}
}, "required": ["question", "answer", "why_right", "wrong", "concepts"]}"#;

/// What a question of each level asks the learner to do (the writer's instruction).
pub fn cue(level: Bloom) -> &'static str {
    match level {
        Bloom::Remember => "It asks the learner to recall a fact, name or rule that the passage states.",
        Bloom::Understand => "It asks the learner to recognise what an idea of the passage means, said in other words.",
        Bloom::Apply => "It describes a short concrete situation (a learner's task or a few lines of code) and asks what happens or which way works, using a rule from the passage.",
        Bloom::Analyse => "It describes a situation or a few lines of code with a problem or a difference, and asks for its cause or for the difference between two cases, using the passage.",
        Bloom::Evaluate => "It describes a choice or a claim a learner made and asks which judgement of it is right, according to the passage.",
        Bloom::Create => "It states a goal and asks which plan, design or piece of code would reach it, using the passage.",
    }
}

/// The worked example (a passage no course here holds), as the user turn and the reply; in
/// Bangla for a Bangla quiz (a small model writes in the example's language, whatever the
/// instruction says).
pub fn example(bangla: bool) -> (String, String) {
    if bangla {
        let passage = "থার্মোমিটার দিয়ে তাপমাত্রা মাপা হয়। তরল থার্মোমিটারে তাপ পেলে তরল প্রসারিত হয়ে সরু নলে ওপরে ওঠে; ঠান্ডা হলে সংকুচিত হয়ে নেমে যায়। \
পারদ ও রঙিন অ্যালকোহল সমানভাবে প্রসারিত হয় বলে এগুলো ব্যবহার করা হয়। ডাক্তারি থার্মোমিটারের বাল্বের কাছে একটি বাঁক থাকে, তাই মুখ থেকে বের করার পরও পাঠ ঠিক থাকে।";
        let fact = "ডাক্তারি থার্মোমিটারের বাল্বের কাছে একটি বাঁক থাকে, তাই মুখ থেকে বের করার পরও পাঠ ঠিক থাকে।";
        let user = writer_turn("তাপ ▸ থার্মোমিটার", passage, fact, &level_task(Bloom::Apply), "Bangla", &[], None, &[]);
        let reply = r#"{"question":"একজন নার্স ডাক্তারি থার্মোমিটার দিয়ে রোগীর তাপমাত্রা মাপলেন এবং মুখ থেকে বের করার এক মিনিট পরে পাঠ নিলেন। পাঠটি তখনও ঠিক থাকে কেন?","answer":"বাল্বের কাছের বাঁকটি ঠান্ডা হলে তরলকে নিচে নামতে দেয় না।","why_right":"বাঁকের কারণে মুখ থেকে বের করার পরও পাঠ ঠিক থাকে।","wrong":[{"option":"মুখ থেকে বের করার পরও তরল প্রসারিত হতে থাকে।","why_wrong":"ঠান্ডা হলে তরল সংকুচিত হয়; শুধু প্রসারণ মনে রাখলে এটি ভুল করে বাছা হয়।"},{"option":"ঠান্ডা হলে পারদ সংকুচিত হয় না।","why_wrong":"ঠান্ডা হলে তরল সংকুচিত হয়ে নেমে যায়।"},{"option":"সরু নলের কারণে তরল দ্রুত ওপরে ওঠে।","why_wrong":"নল শুধু ওঠানামা দেখায়, পাঠ ধরে রাখে বাঁকটি।"}],"concepts":["ডাক্তারি থার্মোমিটার","তরলের প্রসারণ"]}"#;
        return (user, reply.to_string());
    }
    let passage = "A thermometer measures temperature. In a liquid thermometer the liquid expands when it is heated \
and rises in the narrow tube; when it cools it contracts and falls. Mercury and coloured alcohol are used because they \
expand evenly. A clinical thermometer has a kink near the bulb, so the reading stays after it is taken out of the mouth.";
    let fact = "A clinical thermometer has a kink near the bulb, so the reading stays after it is taken out of the mouth.";
    let user = writer_turn("Heat ▸ Thermometers", passage, fact, &level_task(Bloom::Apply), "English", &[], None, &[]);
    let reply = r#"{"question":"A nurse takes a patient's temperature with a clinical thermometer and reads it a minute after taking it out of the patient's mouth. Why is the reading still correct?","answer":"The kink near the bulb stops the liquid from falling back when it cools.","why_right":"The passage says the kink keeps the reading after the thermometer is taken out of the mouth.","wrong":[{"option":"The liquid keeps expanding after it leaves the mouth.","why_wrong":"Liquid contracts when it cools; a learner who only remembers that liquids expand may pick it."},{"option":"Mercury does not contract when it cools.","why_wrong":"The passage says the liquid contracts when it cools; mercury is used because it expands evenly."},{"option":"The narrow tube makes the liquid rise faster.","why_wrong":"The tube shows the rise but does not hold the reading; the kink does."}],"concepts":["clinical thermometer","expansion of liquids"]}"#;
    (user, reply.to_string())
}

/// The writer's instruction for a Bloom level: the level, what it asks, and for the levels from
/// Apply up, to begin with the situation.
pub fn level_task(level: Bloom) -> String {
    let mut title = level.name().to_string();
    title[..1].make_ascii_uppercase();
    let mut s = format!("Write one question at the {title} level of Bloom's taxonomy whose correct answer follows from the key fact. {}", cue(level));
    if level >= Bloom::Apply {
        s.push_str(" Begin the question with the situation.");
    }
    s
}

/// The writer's user turn for one item: the passage and where it is from, the key fact the
/// correct answer must rest on, the task (what kind of question: [`level_task`] or an author's
/// difficulty), the language, the concept to reinforce, questions already asked on this passage,
/// and the reason a previous attempt was rejected.
#[allow(clippy::too_many_arguments)]
pub fn writer_turn(place: &str, passage: &str, fact: &str, task: &str, language: &str, concepts: &[String], rejected: Option<&str>, asked: &[String]) -> String {
    let mut s = format!("Passage (from {}):\n\"\"\"\n{}\n\"\"\"\n\nKey fact: {}\n\n", inert(place), inert(passage), inert(fact));
    s.push_str(task);
    s.push_str(&format!(" Write the question, the options and the reasons in {language}."));
    if !concepts.is_empty() {
        let c: Vec<String> = concepts.iter().map(|c| inert(c)).collect();
        s.push_str(&format!(" The question must test: {}.", c.join(", ")));
    }
    if !asked.is_empty() {
        s.push_str("\nDo not ask these again:\n");
        for q in asked {
            s.push_str(&format!("- {}\n", inert(q)));
        }
    }
    if let Some(r) = rejected {
        s.push_str(&format!("\nYour previous question was rejected because {r}. Write a better one."));
    }
    s
}

/// The subtopic picker's system turn.
pub const PICK_SYSTEM: &str = "You plan quizzes for a course. Reply with JSON only.";

/// The picker's user turn: the learner's topic and the course's sections near it.
pub fn pick_turn(topic: &str, names: &[String], n: usize) -> String {
    let mut s = format!("A learner asked for a quiz on: {}\n\nSections of the course near this topic:\n", inert(topic));
    for name in names {
        s.push_str(&format!("- {}\n", inert(name)));
    }
    s.push_str(&format!("\nChoose the {n} sections that best belong to a quiz on this topic, the most important first."));
    s
}

/// The picker's schema: `n` of the section names, nothing else.
pub fn pick_schema(names: &[String], n: usize) -> String {
    let names: Vec<serde_json::Value> = names.iter().map(|s| serde_json::Value::from(s.as_str())).collect();
    serde_json::json!({
        "type": "object",
        "properties": {"subtopics": {"type": "array", "items": {"enum": names}, "minItems": n, "maxItems": n}},
        "required": ["subtopics"]
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Schema;

    #[test]
    fn the_schemas_compile_and_the_example_fits_its_schema() {
        let s = Schema::parse(ITEM_SCHEMA).unwrap();
        assert_eq!(ITEM_SCHEMA.matches(&format!("\"maxLength\": {OPTION_MAX_CHARS}}}")).count(), 2, "answer and option");
        assert_eq!(ITEM_SCHEMA.matches(&format!("\"maxLength\": {REASON_MAX_CHARS}}}")).count(), 2, "why_right and why_wrong");
        for bangla in [false, true] {
            let (_, reply) = example(bangla);
            s.validate(&serde_json::from_str(&reply).unwrap()).unwrap();
        }
        let names = vec!["Lists".to_string(), "Tuples".to_string()];
        let p = Schema::parse(&pick_schema(&names, 2)).unwrap();
        p.validate(&serde_json::json!({"subtopics": ["Tuples", "Lists"]})).unwrap();
        assert!(p.validate(&serde_json::json!({"subtopics": ["Sets", "Lists"]})).is_err(), "only the course's sections");
    }

    #[test]
    fn the_writer_turn_names_the_level_and_the_rejection() {
        let t = writer_turn("A ▸ B", "text", "A fact.", &level_task(Bloom::Analyse), "Bangla", &["scope".into()], Some("two options were the same"), &["Q1?".into()]);
        assert!(t.contains("Key fact: A fact.") && t.contains("the Analyse level") && t.contains("Begin the question with the situation"));
        assert!(t.contains("in Bangla") && t.contains("must test: scope") && t.contains("- Q1?") && t.contains("two options were the same"));
        assert!(!writer_turn("A", "t", "f", &level_task(Bloom::Remember), "English", &[], None, &[]).contains("situation."));
    }
}
