//! The status line (`data-testid="status"`, `data-state` loading | ready | error), download
//! progress with rate and time left, the Retry button and the WebGPU line.

use crate::i18n::{Lang, Texts};
use crate::protocol::{Phase as LoadPhase, Progress};
use crate::ui::lazy::Python;
use crate::ui::state::{Gpu, Load};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub load: Load,
    pub gpu: Gpu,
    pub note: Option<String>,
    /// The sandbox's files, fetched in the background after the first visit.
    pub python: Python,
    pub lang: Lang,
    pub on_retry: Callback<()>,
}

fn duration(s: f64) -> String {
    let s = s.round() as u64;
    if s >= 60 { format!("{} min {} s", s / 60, s % 60) } else { format!("{s} s") }
}

/// "Downloading models/x.gguf: 12.0 MB / 491.4 MB · 5.1 MB/s · 1 min 34 s left" (or checking,
/// preparing): one file's progress, for the status line and the Code view.
pub fn progress_line(t: Texts, pr: &Progress) -> String {
    let what = match pr.phase {
        LoadPhase::Checking => t.checking(),
        LoadPhase::Downloading => t.downloading(),
        LoadPhase::Preparing => t.preparing(),
    };
    let mut line = format!("{what} {}", pr.name);
    if pr.phase == LoadPhase::Downloading && pr.total > 0 {
        line.push_str(&format!(": {} / {}", t.mb(pr.done as f64), t.mb(pr.total as f64)));
        if pr.rate > 0.0 {
            line.push_str(&format!(" · {}/s", t.mb(pr.rate)));
        }
        if let Some(eta) = pr.eta_s {
            line.push_str(&format!(" · {} {}", duration(eta), t.left()));
        }
    }
    line
}

/// The sandbox's download (`python-progress`, `data-state` fetching | failed); nothing once done.
pub fn python_line(t: Texts, python: &Python) -> Html {
    match python {
        Python::Fetching { done, total } => html! {
            <p class="note" data-testid="python-progress" data-state="fetching">
                { format!("{} {} / {}", t.python_fetching(), t.mb(*done as f64), t.mb(*total as f64)) }{ " " }
                <progress value={done.to_string()} max={(*total).max(1).to_string()}></progress>
            </p>
        },
        Python::Failed(why) => html! { <p class="note" data-testid="python-progress" data-state="failed">{ format!("{} {why}", t.python_failed()) }</p> },
        Python::Idle | Python::Ready => html! {},
    }
}

#[function_component]
pub fn StatusLine(p: &Props) -> Html {
    let t = Texts(p.lang);
    let (state, body) = match &p.load {
        Load::Loading(progress) => {
            let detail = progress.as_ref().map(|pr| {
                let line = progress_line(t, pr);
                let (value, max) = (pr.all_done as f64, pr.all_total.max(1) as f64);
                html! {
                    <div class="progress">
                        <progress data-testid="progress" value={value.to_string()} max={max.to_string()}></progress>
                        <span data-testid="progress-text">{ line }</span>
                        <span class="total">{ format!(" ({} / {})", t.mb(value), t.mb(max)) }</span>
                    </div>
                }
            });
            ("loading", html! { <>{ t.loading() }{ for detail }</> })
        }
        Load::Ready(info) => {
            let how = if info.from_cache { t.ready_cached().to_string() } else { format!("{} ({})", t.ready_downloaded(), t.mb(info.downloaded_bytes as f64)) };
            let timings = info.timings.iter().map(|(step, ms)| format!("{step}: {ms:.0} ms")).collect::<Vec<_>>().join("\n");
            ("ready", html! {
                <span title={format!("{}\n{timings}", info.llm)} data-llm={info.llm.clone()} data-load-ms={format!("{:.0}", info.load_ms)}
                      data-timings={serde_json::to_string(&info.timings).unwrap_or_default()}>
                    { format!("{} — {} {} · {how} · {:.1} s", info.title, info.sections, t.sections(), info.load_ms / 1000.0) }
                </span>
            })
        }
        Load::Error { message, retry } => {
            let on_retry = p.on_retry.reform(|_: MouseEvent| ());
            ("error", html! {
                <>
                    <span data-testid="error-message">{ message.clone() }</span>
                    if *retry { <button data-testid="retry" onclick={on_retry}>{ t.retry() }</button> }
                </>
            })
        }
    };
    let gpu = match &p.gpu {
        Gpu::Checking => html! { <span data-testid="gpu" data-state="checking">{ t.gpu_checking() }</span> },
        Gpu::Available { name, software: false } => html! { <span data-testid="gpu" data-state="available" title={name.clone()}>{ t.gpu_found() }</span> },
        Gpu::Available { name, software: true } => html! { <span data-testid="gpu" data-state="software" title={name.clone()}>{ t.gpu_software() }</span> },
        Gpu::Missing(why) => html! { <span data-testid="gpu" data-state="missing" title={why.clone()}>{ t.cpu_only() }</span> },
    };
    // The CPU runtime's threads (the threaded worker build runs only on a cross-origin isolated page).
    let threads = match &p.load {
        Load::Ready(info) => {
            let cores = crate::ui::bridge::cores();
            let text = if info.threads <= 1 && cores > 1 && !crate::ui::bridge::isolated() { t.one_core().to_string() } else { format!("{} {}", t.cpu_threads(), info.threads) };
            html! { <span data-testid="threads" data-threads={info.threads.to_string()} data-cores={cores.to_string()}>{ format!(" {text}") }</span> }
        }
        _ => html! {},
    };
    html! {
        <section class="status">
            <div data-testid="status" data-state={state} role="status">{ body }</div>
            if let Some(note) = &p.note { <p class="note" data-testid="load-note">{ note.clone() }</p> }
            { python_line(t, &p.python) }
            <p class="gpu">{ gpu }{ threads }</p>
        </section>
    }
}
