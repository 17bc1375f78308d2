//! The terms a course bundle defines, as the quiz's and authoring's recall items read them
//! (`agent::quiz::define`): one JSON line per definition, with its chapter and the question an
//! item would ask (none for a line that only names its term), for auditing the patterns.
//!
//!     cargo run --release -p inference --example definitions -- COURSE.bundle

use inference::agent::quiz::define;
use inference::bundle::Bundle;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: definitions COURSE.bundle")?;
    let bundle = Bundle::from_bytes(&std::fs::read(path)?)?;
    let mut files: Vec<&str> = bundle.sections.iter().map(|s| s.file.as_str()).collect();
    files.dedup();
    for file in files {
        for d in define::pool(&bundle, &[file]) {
            let line = serde_json::json!({"file": file, "term": d.term, "question": d.question, "naming": d.naming, "sentence": d.sentence});
            println!("{line}");
        }
    }
    Ok(())
}
