use anyhow::{Context, Result};
use inference::llm::{ChatMessage, GenerateOptions, Generator, JsonDecoder, LoadOptions, Runtime, Sampling, Schema, Session, now};
use inference::kernels::timing;
use inference::model::llama::WeightFormat;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// How the Burn model (`--device flex|wgpu`) keeps its matmul weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WeightsArg {
    /// Dequantized to f32.
    F32,
    /// Burn per-block quantization: symmetric 8-bit, one f32 scale per 32 values.
    Q8,
    /// Burn per-block quantization: symmetric 4-bit (−7..7), one f32 scale per 32 values.
    Q4,
}

impl From<WeightsArg> for WeightFormat {
    fn from(w: WeightsArg) -> Self {
        match w {
            WeightsArg::F32 => WeightFormat::F32,
            WeightsArg::Q8 => WeightFormat::Q8,
            WeightsArg::Q4 => WeightFormat::Q4,
        }
    }
}

/// Where the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceArg {
    /// Quantized CPU kernels (weights stay Q4/Q8; llama.cpp's numerics; all threads).
    Cpu,
    /// Burn on its pure-Rust CPU backend, weights as --weights says (llama only).
    Flex,
    /// Burn on wgpu (Vulkan/Metal/DX12 natively), weights as --weights says (llama only;
    /// needs a build with `--features wgpu`).
    Wgpu,
}

/// Generate text with a GGUF model (llama or qwen2 architecture), streaming tokens.
#[derive(clap::Args)]
pub struct Args {
    /// The GGUF model file (e.g. models/cache/SmolLM2-135M-Instruct.Q4_1.gguf).
    #[arg(long)]
    model: PathBuf,
    #[arg(long, default_value = "")]
    prompt: String,
    /// Token ids of the prompt, comma-separated, instead of --prompt (bypasses the tokenizer).
    #[arg(long, value_delimiter = ',')]
    prompt_ids: Vec<u32>,
    /// After the text, print the generated token ids as a JSON array on stderr.
    #[arg(long)]
    print_ids: bool,
    /// Wrap the prompt as one user turn of the model's own chat template.
    #[arg(long)]
    chat: bool,
    /// System message for --chat.
    #[arg(long)]
    system: Option<String>,
    #[arg(long, default_value_t = 64)]
    max_tokens: usize,
    /// Prompt-lookup drafts of up to this many tokens (greedy only; `GenerateOptions::draft`).
    #[arg(long, default_value_t = 0)]
    draft: usize,
    /// 0 is greedy (deterministic).
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    /// Sample among the k most likely tokens (0: all).
    #[arg(long, default_value_t = 40)]
    top_k: usize,
    /// Nucleus sampling: the most likely tokens up to this total probability (1: off).
    #[arg(long, default_value_t = 0.95)]
    top_p: f32,
    /// Drop tokens below this fraction of the most likely one's probability (0: off).
    #[arg(long, default_value_t = 0.05)]
    min_p: f32,
    /// llama.cpp's repetition penalty over the last --repeat-last-n tokens (1: off).
    #[arg(long, default_value_t = 1.0)]
    repeat_penalty: f32,
    #[arg(long, default_value_t = 64)]
    repeat_last_n: usize,
    /// Stop when the text contains this (not printed); repeatable.
    #[arg(long = "stop", value_name = "TEXT")]
    stop: Vec<String>,
    /// Constrain the output to JSON of this schema (a JSON Schema subset; see `inference::llm::constrain`).
    #[arg(long, value_name = "S.json")]
    json_schema: Option<PathBuf>,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print load time, prefill and decode speed after the text.
    #[arg(long)]
    bench: bool,
    #[arg(long, value_enum, default_value_t = DeviceArg::Cpu)]
    device: DeviceArg,
    /// Matmul weights of the Burn model (--device flex|wgpu): f32, or kept quantized by Burn.
    #[arg(long, value_enum, default_value_t = WeightsArg::F32)]
    weights: WeightsArg,
    /// Positions the cache holds (prompt + output).
    #[arg(long, default_value_t = 4096)]
    context: usize,
}

pub fn run(a: Args) -> Result<()> {
    let t0 = Instant::now();
    let bytes = std::fs::read(&a.model).with_context(|| format!("cannot read {} — fetch models with `models/fetch.sh llm`", a.model.display()))?;
    let device = match a.device {
        DeviceArg::Cpu => None,
        DeviceArg::Wgpu => Some(wgpu_device()?),
        DeviceArg::Flex => Some(inference::device::default_device()),
    };
    let runtime = match a.device {
        DeviceArg::Cpu => Runtime::Quantized,
        DeviceArg::Flex => Runtime::Burn,
        DeviceArg::Wgpu => Runtime::WebGpu,
    };
    let opts = LoadOptions { runtime, device: device.as_ref(), weights: a.weights.into(), context: a.context };
    let mut session = Session::load(Arc::new(bytes), &opts)?;
    if a.bench {
        eprintln!("{}", session.describe());
    }
    let load_s = t0.elapsed().as_secs_f64();

    let text = if a.chat {
        let mut msgs = Vec::new();
        if let Some(s) = &a.system {
            msgs.push(ChatMessage { role: "system", content: s });
        }
        msgs.push(ChatMessage { role: "user", content: &a.prompt });
        session.template.render(&msgs, true)?
    } else {
        a.prompt.clone()
    };
    let prompt_ids = if a.prompt_ids.is_empty() { session.encode(&text)? } else { a.prompt_ids.clone() };
    let stop_ids = session.stop_ids.clone();
    let sampling = Sampling {
        temperature: a.temperature,
        top_k: a.top_k,
        top_p: a.top_p,
        min_p: a.min_p,
        repeat_penalty: a.repeat_penalty,
        repeat_last_n: a.repeat_last_n,
        seed: a.seed,
    };
    let opts = GenerateOptions { max_new_tokens: a.max_tokens, stop_ids, stop_strings: a.stop.clone(), sampling, draft: a.draft };
    let schema = match &a.json_schema {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read the schema {}", path.display()))?;
            Some(Schema::parse(&text)?)
        }
        None => None,
    };
    let vocab = session.vocab();
    let mut ids: Vec<u32> = Vec::new();
    let mut first_token_s = None;
    let mut prefill_split = None;
    timing::enable(a.bench);
    let t1 = Instant::now();
    let stdout = std::io::stdout();
    // Text arrives whole: characters split across tokens and possible stop strings are held back.
    let on_text = |id: Option<u32>, piece: &str| {
        if let Some(id) = id {
            first_token_s.get_or_insert_with(|| t1.elapsed().as_secs_f64());
            prefill_split.get_or_insert_with(timing::read);
            ids.push(id);
        }
        let mut out = stdout.lock();
        let _ = write!(out, "{piece}");
        let _ = out.flush();
        true
    };
    match &schema {
        Some(schema) => {
            now(JsonDecoder::new(&vocab)?.generate_on(&mut session, schema, &prompt_ids, &opts, on_text))?;
        }
        None => {
            now(Generator::new(&prompt_ids, opts, Some(vocab)).run(&mut session, on_text))?;
        }
    }
    println!();
    if a.print_ids {
        eprintln!("{}", serde_json::to_string(&ids)?);
    }
    let total_s = t1.elapsed().as_secs_f64();
    if a.bench {
        let prefill_s = first_token_s.unwrap_or(total_s);
        let decoded = ids.len().saturating_sub(1);
        let decode_s = (total_s - prefill_s).max(1e-9);
        // Where the time went (quantized CPU runtime; other runtimes time nothing here): shares
        // of the prefill (prompt → first token) and of the decode, the rest being norms, RoPE,
        // sampling and everything else.
        let prefill = prefill_split.unwrap_or_else(timing::read);
        let decode = timing::read() - prefill;
        let shares = |s: timing::Split, secs: f64| {
            let secs = secs.max(1e-9);
            format!(
                "{{\"matmul\": {:.2}, \"attention\": {:.2}, \"other\": {:.2}}}",
                s.matmul_s / secs,
                s.attention_s / secs,
                (1.0 - (s.matmul_s + s.attention_s) / secs).max(0.0)
            )
        };
        eprintln!(
            "{{\"model\": {:?}, \"load_s\": {load_s:.2}, \"prompt_tokens\": {}, \"prefill_tok_s\": {:.1}, \"generated\": {}, \"decode_tok_s\": {:.1}, \"prefill_time\": {}, \"decode_time\": {}, \"peak_rss_mb\": {}}}",
            a.model.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            prompt_ids.len(),
            prompt_ids.len() as f64 / prefill_s,
            ids.len(),
            decoded as f64 / decode_s,
            shares(prefill, prefill_s),
            shares(decode, total_s - prefill_s),
            peak_rss_mb().map_or("null".into(), |m| m.to_string()),
        );
    }
    Ok(())
}

#[cfg(feature = "wgpu")]
fn wgpu_device() -> Result<inference::device::Device> {
    Ok(inference::device::wgpu_device())
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_device() -> Result<inference::device::Device> {
    anyhow::bail!("this index-builder was built without wgpu; rebuild with `cargo build --release -p index-builder --features wgpu`")
}

/// Peak resident memory from /proc (Linux), in MiB.
fn peak_rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
