//! The author's prompts: the MCQ task for each difficulty (the quiz's item writer writes the
//! item), and the creative-question specialist (system turn and one worked example per
//! language, kept in the session as prefix [`CQ_PREFIX`] + language).

use super::Difficulty;
use crate::agent::route::Lang;
use crate::llm::inert;

/// Name of the CQ writer's kept prompt prefix (the language's code is appended).
pub const CQ_PREFIX: &str = "author_cq";

/// The MCQ writer's task for a difficulty, with the cue words of TeachMateGPT's prompt.
pub fn mcq_task(d: Difficulty) -> String {
    let what = match d {
        Difficulty::Beginner => {
            "Write one beginner question: it asks the learner to recall a fact, a name or a definition that the key fact states \
(question words such as what, which, what is called; in Bangla কী, কাকে বলে, কোনটি)."
        }
        Difficulty::Intermediate => {
            "Write one intermediate question: it asks why something happens, what the difference between two things is, or asks \
the learner to explain an idea of the key fact (question words such as why, difference, explain; in Bangla কেন, পার্থক্য, ব্যাখ্যা)."
        }
        Difficulty::Advanced => {
            "Write one advanced question: it describes a short concrete situation, with numbers where the passage has them, and \
asks the learner to work out the result in two or more steps using the key fact (determine, find; in Bangla নির্ণয় করো). \
Begin the question with the situation."
        }
    };
    format!("{what} Its correct answer follows from the key fact.")
}

/// The CQ writer's system turn (the same for every course).
pub const CQ_SYSTEM: &str = "You write creative questions in the style of Bangladesh's secondary school board exams. \
A creative question has a stimulus: 5 to 8 short sentences telling a realistic situation from daily life that a student could \
see or do. The stimulus involves the idea of the passage but never names it, never defines it and never copies the passage's sentences. \
Then four questions: knowledge (recall a fact or definition from the passage; answerable without the stimulus), comprehension \
(explain why or how; answerable without the stimulus), application (use the idea to explain or work out something in the \
stimulus; it mentions the stimulus) and higher order (analyse, compare, judge or predict something about the situation in the \
stimulus; it mentions the stimulus). Everything is written in the language asked for. Reply with JSON only.";

/// The JSON a CQ is written as: the stimulus as a list of sentences (the schema asks for 5–8, so
/// the structure holds the sentence count the board format needs), the four questions by skill.
pub const CQ_SCHEMA: &str = r#"{"type": "object", "properties": {
  "headline": {"type": "string", "minLength": 3, "maxLength": 80},
  "stimulus": {"type": "array", "minItems": 5, "maxItems": 8, "items": {"type": "string", "minLength": 15, "maxLength": 220}},
  "knowledge": {"type": "string", "minLength": 8, "maxLength": 200},
  "comprehension": {"type": "string", "minLength": 8, "maxLength": 250},
  "application": {"type": "string", "minLength": 8, "maxLength": 300},
  "higher_order": {"type": "string", "minLength": 8, "maxLength": 300}
}, "required": ["headline", "stimulus", "knowledge", "comprehension", "application", "higher_order"]}"#;

/// What each difficulty asks of a CQ's application and higher-order parts.
fn cq_level(d: Difficulty) -> &'static str {
    match d {
        Difficulty::Beginner => "Keep the situation simple and the questions direct.",
        Difficulty::Intermediate => "The application and higher-order questions ask why, and for differences.",
        Difficulty::Advanced => "The application question needs two or more steps; the higher-order question asks for a judgement or a prediction with reasons.",
    }
}

/// The CQ writer's user turn: the passage, where it is from, the concept, the difficulty, the
/// language, and the reason a previous attempt was rejected.
pub fn cq_turn(place: &str, passage: &str, concept: &str, d: Difficulty, lang: Lang, rejected: Option<&str>) -> String {
    let language = if lang == Lang::Bn { "Bangla (only Bangla letters; formulas and numbers may stay as they are)" } else { "English" };
    let mut s = format!("Passage (from {}):\n\"\"\"\n{}\n\"\"\"\n\n", inert(place), inert(passage));
    s.push_str(&format!(
        "Write one creative question on \"{}\" at the {} level. {} The stimulus must not name \"{}\". Write everything in {language}.",
        inert(concept),
        d.name(),
        cq_level(d),
        inert(concept)
    ));
    if let Some(r) = rejected {
        s.push_str(&format!("\n\nYour previous question was rejected because {r}. Write a better one."));
    }
    s
}

/// The worked example for a language (a passage no course here holds: expansion by heat), as the
/// user turn and the reply.
pub fn cq_example(lang: Lang) -> (String, String) {
    if lang == Lang::Bn {
        let passage = "তাপ দিলে কঠিন পদার্থের দৈর্ঘ্য, ক্ষেত্রফল ও আয়তন বাড়ে; একে প্রসারণ বলে। ঠান্ডা হলে পদার্থ সংকুচিত হয়। \
তাপ পেলে ধাতুর কণাগুলো বেশি কাঁপে এবং একে অপরের থেকে দূরে সরে যায়, তাই ধাতুর দণ্ড লম্বা হয়। \
এ কারণে রেললাইন ও বিদ্যুতের তার বসানোর সময় প্রসারণের জন্য জায়গা রাখা হয়।";
        let user = cq_turn("তাপ ▸ কঠিন পদার্থের প্রসারণ", passage, "কঠিন পদার্থের প্রসারণ", Difficulty::Intermediate, Lang::Bn, None);
        let reply = r#"{"headline":"গ্রীষ্মে ঝুলে পড়া তার","stimulus":["গ্রীষ্মের এক দুপুরে রাফি দেখল, বাড়ির পাশের দুটি খুঁটির মাঝের বিদ্যুতের তার অনেকটা ঝুলে আছে।","শীতের এক সকালে সে দেখল, একই তার প্রায় টানটান হয়ে আছে।","তার বাবা বললেন, তার লাগানোর সময় শ্রমিকেরা ইচ্ছা করেই তারগুলো একটু ঢিলা রেখেছিলেন।","রেলস্টেশনে গিয়ে রাফি দেখল, দুটি রেললাইনের জোড়ার মাঝে সামান্য ফাঁক রাখা আছে।","একজন রেলকর্মী বললেন, এই ফাঁক না থাকলে খুব গরমের দিনে লাইন বেঁকে যেতে পারে।"],"knowledge":"কঠিন পদার্থের প্রসারণ কাকে বলে?","comprehension":"ধাতুর দণ্ডকে তাপ দিলে তা লম্বা হয় কেন? ব্যাখ্যা করো।","application":"উদ্দীপকের তারগুলো শীতের চেয়ে গ্রীষ্মে বেশি ঝুলে থাকে কেন? ব্যাখ্যা করো।","higher_order":"উদ্দীপকের রেললাইনে কোনো ফাঁক না রাখলে কী ঘটতে পারত? রেলকর্মীর কথাটি যুক্তিসহ মূল্যায়ন করো।"}"#;
        (user, reply.to_string())
    } else {
        let passage = "When a solid is heated, its length, area and volume increase; this is called expansion. When it cools it contracts. \
Heat makes the particles of a metal vibrate more and move further apart, so a metal rod becomes longer. \
For this reason room is left for expansion when railway lines and electric wires are put up.";
        let user = cq_turn("Heat ▸ Expansion of solids", passage, "expansion of solids", Difficulty::Intermediate, Lang::En, None);
        let reply = r#"{"headline":"Wires that sag in summer","stimulus":["On a hot summer afternoon, Rafi noticed that the electric wires between two poles near his house were hanging low.","Early on a winter morning, he saw that the same wires were almost straight.","His father said that the workers had left the wires a little loose on purpose when they put them up.","At the railway station, Rafi saw small gaps between the ends of the rails.","A railway worker told him that without these gaps the line could bend on very hot days."],"knowledge":"What is the expansion of a solid?","comprehension":"Why does a metal rod become longer when it is heated? Explain.","application":"Explain why the wires in the stimulus hang lower in summer than in winter.","higher_order":"What could happen to the railway line in the stimulus if the rails were laid with no gaps? Evaluate the railway worker's statement with reasons."}"#;
        (user, reply.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::author::gates;
    use crate::llm::Schema;

    #[test]
    fn the_examples_fit_the_schema_and_pass_the_gates() {
        let schema = Schema::parse(CQ_SCHEMA).unwrap();
        for lang in [Lang::Bn, Lang::En] {
            let (user, reply) = cq_example(lang);
            assert!(user.contains("must not name"));
            let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
            schema.validate(&v).unwrap();
            let story: Vec<&str> = v["stimulus"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
            let clue = format!("{} {}", gates::marker(lang), story.join(" "));
            let parts: Vec<String> = ["knowledge", "comprehension", "application", "higher_order"].iter().map(|k| v[*k].as_str().unwrap().to_string()).collect();
            let concept = if lang == Lang::Bn { "প্রসারণ" } else { "expansion" };
            let g = gates::cq(&clue, &parts, &[concept.to_string()], lang);
            assert!(g.values().all(|&b| b), "{lang:?}: {g:?}");
        }
    }

    #[test]
    fn each_difficulty_has_its_cue_words() {
        assert!(mcq_task(Difficulty::Beginner).contains("কাকে বলে"));
        assert!(mcq_task(Difficulty::Intermediate).contains("পার্থক্য"));
        assert!(mcq_task(Difficulty::Advanced).contains("নির্ণয় করো"));
    }
}
