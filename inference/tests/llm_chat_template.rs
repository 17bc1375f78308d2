//! `ChatTemplate` on the real templates of SmolLM2 and Qwen2.5-Coder, against Hugging Face's own
//! JavaScript renderer (fixture from `tests/reference/chat_reference.mjs`), plus the developer-role
//! rule, the ChatML fallback and the Jinja features templates use.
//! Tests that need a model print a note and pass when it is missing (`models/fetch.sh`).

mod common;

use std::path::PathBuf;

use inference::gguf::Gguf;
use inference::llm::chat::{ChatError, ChatTemplate, DEVELOPER_SEPARATOR};
use inference::llm::{ChatMessage, chatml_prompt};
use serde_json::Value as Json;

const QWEN_DEFAULT_SYSTEM: &str = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
const SMOLLM_DEFAULT_SYSTEM: &str = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

fn models_dir() -> PathBuf {
    std::env::var_os("PATHSHALA_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/cache"))
}

fn load(file: &str) -> Option<Vec<u8>> {
    let path = models_dir().join(file);
    let bytes = std::fs::read(&path).ok();
    if bytes.is_none() {
        common::missing(&path, "models/fetch.sh all");
    }
    bytes
}

fn fixture() -> Json {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llm/chat_templates.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("valid JSON")
}

fn messages(v: &Json) -> Vec<ChatMessage<'_>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| ChatMessage { role: m["role"].as_str().unwrap(), content: m["content"].as_str().unwrap() })
        .collect()
}

const fn msg<'a>(role: &'a str, content: &'a str) -> ChatMessage<'a> {
    ChatMessage { role, content }
}

/// Every fixture conversation renders exactly as Hugging Face's renderer did.
fn matches_reference(key: &str, file: &str) -> Option<ChatTemplate> {
    let bytes = load(file)?;
    let template = ChatTemplate::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap();
    assert!(template.is_from_model());
    let fx = fixture();
    let cases = fx["models"][key]["cases"].as_array().unwrap();
    for case in cases {
        let got = template.render(&messages(&case["messages"]), case["add_generation_prompt"].as_bool().unwrap()).unwrap();
        assert_eq!(got, case["text"].as_str().unwrap(), "{key}: {}", case["messages"]);
    }
    eprintln!("{key}: {} conversations match", cases.len());
    Some(template)
}

#[test]
fn smollm2_template_matches_reference_and_chatml() {
    let Some(t) = matches_reference("smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf") else { return };
    let conversation = [msg("system", "You are Pathshala."), msg("user", "What is a tuple?")];
    assert_eq!(t.render(&conversation, true).unwrap(), chatml_prompt(&conversation));
    // No system message: the template inserts SmolLM's own.
    let got = t.render(&[msg("user", "Hi")], true).unwrap();
    assert_eq!(got, format!("<|im_start|>system\n{SMOLLM_DEFAULT_SYSTEM}<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"));
}

#[test]
fn qwen_template_matches_reference() {
    let Some(bytes) = load("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf") else { return };
    let source = Gguf::parse(&bytes).unwrap().get_str("tokenizer.chat_template").unwrap().to_string();
    assert!(source.contains(QWEN_DEFAULT_SYSTEM), "the default system prompt comes from the template itself");
    let Some(t) = matches_reference("qwen", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf") else { return };
    let got = t.render(&[msg("user", "Hi")], true).unwrap();
    assert_eq!(got, format!("<|im_start|>system\n{QWEN_DEFAULT_SYSTEM}<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"));
    let got = t.render(&[msg("system", "Be brief."), msg("user", "Hi")], false).unwrap();
    assert_eq!(got, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n");
}

#[test]
fn developer_is_folded_into_system_for_templates_without_it() {
    let t = ChatTemplate::chatml();
    let folded = t.render(&[msg("system", "S"), msg("developer", "D1"), msg("user", "U"), msg("developer", "D2")], true).unwrap();
    let joined = format!("S{DEVELOPER_SEPARATOR}D1{DEVELOPER_SEPARATOR}D2");
    assert_eq!(folded, chatml_prompt(&[msg("system", &joined), msg("user", "U")]));
    // No system message: the developer content becomes it, first.
    let folded = t.render(&[msg("user", "U"), msg("developer", "D")], true).unwrap();
    assert_eq!(folded, chatml_prompt(&[msg("system", "D"), msg("user", "U")]));
    // A template that names the role gets it as is.
    let knows = ChatTemplate::new("{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{# developer #}", "", "").unwrap();
    assert_eq!(knows.render(&[msg("system", "S"), msg("developer", "D")], false).unwrap(), "[system:S][developer:D]");
}

#[test]
fn files_without_a_template_get_chatml() {
    let t = ChatTemplate::chatml();
    assert!(!t.is_from_model());
    let conversation = [msg("system", "S"), msg("user", "U")];
    assert_eq!(t.render(&conversation, true).unwrap(), chatml_prompt(&conversation));
    assert_eq!(t.render(&conversation, false).unwrap(), "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n");
    // llama.cpp's GPT-2 vocabulary file has no chat template.
    let Some(bytes) = load("llama-vocab/ggml-vocab-gpt-2.gguf") else { return };
    let t = ChatTemplate::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap();
    assert!(!t.is_from_model());
    assert_eq!(t.render(&conversation, true).unwrap(), chatml_prompt(&conversation));
}

#[test]
fn jinja_features_templates_use() {
    let render = |source: &str| ChatTemplate::new(source, "<s>", "</s>").unwrap().render(&[msg("user", "  Hi there  "), msg("assistant", "ok")], true).unwrap();
    assert_eq!(render("{{ bos_token }}{{ messages[0].content.strip() }}{{ eos_token }}"), "<s>Hi there</s>");
    assert_eq!(render("{{ messages[0]['content'] | trim | tojson }}"), "\"Hi there\"");
    assert_eq!(render("{{ messages[0].content.strip().startswith('Hi') }}"), "True", "Python's spelling, as Jinja2");
    assert_eq!(render("{% for m in messages %}{% if loop.index0 == 1 %}{% break %}{% endif %}{{ m.role }}{% endfor %}"), "user");
    assert_eq!(render("{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}"), "2");
    assert_eq!(render("{% if add_generation_prompt %}\n  yes\n{% endif %}\n"), "  yes\n", "trim_blocks, lstrip_blocks");
    assert_eq!(render("{{ messages[1:] | length }}{{ messages[0].tool_calls is defined }}"), "1False");
}

#[test]
fn template_errors_say_what_to_do() {
    let err = ChatTemplate::new("{% for m in messages %}", "", "").err().expect("unclosed for");
    assert!(matches!(err, ChatError::Syntax(_)));
    assert!(err.to_string().contains("does not parse"), "{err}");
    let t = ChatTemplate::new("{{ raise_exception('Conversation roles must alternate') }}", "", "").unwrap();
    let err = t.render(&[msg("user", "U")], true).unwrap_err().to_string();
    assert!(err.contains("Conversation roles must alternate"), "{err}");
}
