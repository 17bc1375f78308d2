//! Chat prompts: the model's own Jinja template (`tokenizer.chat_template`), rendered with
//! minijinja the way Hugging Face and llama.cpp render it (`trim_blocks`, `lstrip_blocks`,
//! `bos_token`, `eos_token`, `add_generation_prompt`, Python string methods).
//!
//! Roles are `system`, `developer`, `user` and `assistant`. Most templates do not know
//! `developer`; for those (a template whose source never mentions "developer") the developer
//! messages are folded into the system message, see [`ChatTemplate::render`].
//! A file without a template gets ChatML, the format of SmolLM2 and Qwen2.5.

use std::borrow::Cow;
use std::collections::BTreeMap;

use minijinja::{Environment, Error, ErrorKind, Value};

use crate::gguf::{Gguf, GgufError};

/// One chat message.
#[derive(Clone, Debug)]
pub struct ChatMessage<'a> {
    /// `system`, `developer`, `user` or `assistant`.
    pub role: &'a str,
    pub content: &'a str,
}

/// Why a chat prompt could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error(transparent)]
    Gguf(#[from] GgufError),
    #[error("the chat template in the GGUF (tokenizer.chat_template) does not parse: {0:#}; fix the template or remove the key to fall back to ChatML")]
    Syntax(Error),
    #[error("the chat template failed to render: {0:#}; check the roles and the order of the messages")]
    Render(Error),
}

/// Separator between the system message and developer content folded into it.
pub const DEVELOPER_SEPARATOR: &str = "\n\n";

/// ChatML, as llama.cpp writes it for templates it knows only by name.
pub const CHATML_TEMPLATE: &str = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const TEMPLATE_NAME: &str = "chat";

/// A chat template ready to render.
pub struct ChatTemplate {
    env: Environment<'static>,
    bos_token: String,
    eos_token: String,
    knows_developer: bool,
    from_model: bool,
}

impl ChatTemplate {
    /// The template of a GGUF (`tokenizer.chat_template`) with its BOS and EOS token texts, or
    /// ChatML when the file has none.
    pub fn from_gguf(gguf: &Gguf) -> Result<Self, ChatError> {
        let token = |key: &str| -> Result<String, ChatError> {
            let Ok(id) = gguf.get_u32(key) else { return Ok(String::new()) };
            let tokens = gguf.get_str_array("tokenizer.ggml.tokens")?;
            Ok(tokens.get(id as usize).cloned().unwrap_or_default())
        };
        let (bos, eos) = (token("tokenizer.ggml.bos_token_id")?, token("tokenizer.ggml.eos_token_id")?);
        match gguf.get_str("tokenizer.chat_template") {
            Ok(source) => Self::new(source, &bos, &eos),
            Err(GgufError::MissingKey { .. }) => {
                let mut t = Self::chatml();
                (t.bos_token, t.eos_token) = (bos, eos);
                Ok(t)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A template from Jinja source, with the texts of `bos_token` and `eos_token`.
    pub fn new(source: &str, bos_token: &str, eos_token: &str) -> Result<Self, ChatError> {
        let mut env = Environment::new();
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .build()
                .expect("default delimiters"),
        );
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |msg: String| -> Result<Value, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, format!("the template raised: {msg}")))
        });
        env.add_template_owned(TEMPLATE_NAME, source.to_string()).map_err(ChatError::Syntax)?;
        Ok(ChatTemplate {
            env,
            bos_token: bos_token.to_string(),
            eos_token: eos_token.to_string(),
            knows_developer: source.contains("developer"),
            from_model: true,
        })
    }

    /// ChatML ([`CHATML_TEMPLATE`]), the fallback for files without a template.
    pub fn chatml() -> Self {
        let mut t = Self::new(CHATML_TEMPLATE, "", "").expect("ChatML parses");
        t.from_model = false;
        t
    }

    /// Whether the template came from the model (`false`: the ChatML fallback).
    pub fn is_from_model(&self) -> bool {
        self.from_model
    }

    /// The prompt for `messages`, ending with the assistant's turn opened when
    /// `add_generation_prompt`.
    ///
    /// When the template does not know the `developer` role, every developer message is appended
    /// to the first system message, after [`DEVELOPER_SEPARATOR`], in order; with no system
    /// message, the developer content becomes the system message, placed first.
    pub fn render(&self, messages: &[ChatMessage], add_generation_prompt: bool) -> Result<String, ChatError> {
        let messages: Vec<(&str, Cow<str>)> = if self.knows_developer {
            messages.iter().map(|m| (m.role, Cow::Borrowed(m.content))).collect()
        } else {
            fold_developer(messages)
        };
        let messages: Vec<Value> = messages
            .into_iter()
            .map(|(role, content)| Value::from(BTreeMap::from([("role", Value::from(role)), ("content", Value::from(content.as_ref()))])))
            .collect();
        let ctx = minijinja::context! {
            messages => messages,
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos_token.as_str(),
            eos_token => self.eos_token.as_str(),
        };
        let template = self.env.get_template(TEMPLATE_NAME).map_err(ChatError::Render)?;
        template.render(ctx).map_err(ChatError::Render)
    }
}

/// Developer messages folded into the system message (see [`ChatTemplate::render`]).
fn fold_developer<'a>(messages: &[ChatMessage<'a>]) -> Vec<(&'a str, Cow<'a, str>)> {
    let mut out: Vec<(&str, Cow<str>)> = Vec::with_capacity(messages.len() + 1);
    let mut developer: Vec<&str> = Vec::new();
    for m in messages {
        if m.role == "developer" {
            developer.push(m.content);
        } else {
            out.push((m.role, Cow::Borrowed(m.content)));
        }
    }
    if developer.is_empty() {
        return out;
    }
    let developer = developer.join(DEVELOPER_SEPARATOR);
    match out.iter_mut().find(|(role, _)| *role == "system") {
        Some((_, content)) => *content = Cow::Owned(format!("{content}{DEVELOPER_SEPARATOR}{developer}")),
        None => out.insert(0, ("system", Cow::Owned(developer))),
    }
    out
}

/// ChatML rendered by hand, ending with the assistant's turn opened.
///
/// `<|im_start|>{role}\n{content}<|im_end|>\n` per message, then `<|im_start|>assistant\n`.
/// Roles are written as given; [`ChatTemplate`] is the general way.
pub fn chatml_prompt(messages: &[ChatMessage]) -> String {
    let mut s = String::new();
    for m in messages {
        s.push_str("<|im_start|>");
        s.push_str(m.role);
        s.push('\n');
        s.push_str(m.content);
        s.push_str("<|im_end|>\n");
    }
    s.push_str("<|im_start|>assistant\n");
    s
}

/// Text from outside the prompt's author (course text, a learner's message, a model's earlier
/// output) cannot open or close chat turns: `<|…|>` markers (ChatML's `<|im_start|>`,
/// `<|endoftext|>`) get a word joiner after `<`, so the tokenizer reads them as plain text, not
/// as special tokens.
pub fn inert(text: &str) -> String {
    text.replace("<|", "<\u{2060}|")
}
