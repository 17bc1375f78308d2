//! The Python sandbox: runs a learner's program in RustPython 0.5 and reports what happened.
//!
//! One API, natively and (later) in a browser Web Worker:
//!
//! - [`run`] — a fresh interpreter per call, with the limits in [`RunOptions`]; returns a
//!   [`RunResult`] (captured stdout/stderr, the exception, a [`RunStatus`], the time taken).
//! - [`check_syntax`] — parse only, with a plain-language hint for common mistakes.
//!
//! # How each limit is enforced
//!
//! - **Capabilities.** The interpreter is compiled *without* RustPython's `host_env` feature, so
//!   the modules that reach the host (`posix`/`os`, `_socket`, `select`, `_posixsubprocess`,
//!   `mmap`, `fcntl`, `_io.FileIO`, …) do not exist in the binary at all; no Python trick
//!   (`__subclasses__`, `sys.modules`, importers) can reach code that is not there. On top of
//!   that, for clear messages: `import`/`__import__` from the learner's code is checked against
//!   [`ALLOWED_MODULES`] (`ImportError: module 'os' is not available in the Pathshala sandbox`),
//!   `open` raises `PermissionError`, `sys` is a reduced copy (no `modules`, `settrace`, …), and
//!   `importlib` is not importable. The Python standard library is frozen into the binary
//!   (`rustpython-pylib`), so nothing is read from disk. Standard-library modules may import
//!   helpers the learner may not (e.g. `random` imports `os`, which here is a harmless shim with
//!   `urandom` and an empty `environ`).
//! - **Time.** RustPython has no preemption. Natively ([`run`]) the program runs on its own
//!   worker thread while the calling thread watches the clock; at the deadline it sends the VM a
//!   *user signal* (`rustpython_vm::signal::user_signal_channel`), which the interpreter polls
//!   between bytecode instructions (`check_signals`) and which raises `KeyboardInterrupt` inside
//!   the program — this stops `while True: pass`. It is re-sent every 10 ms in case the program
//!   catches it. If the program still has not stopped one second later (it swallows the
//!   interrupt, or it is stuck inside one long native operation such as `10**10**8`), the
//!   caller gets `Timeout` anyway and the worker thread is *abandoned*: it is sent a final signal
//!   that unwinds it (its interpreter is leaked, not dropped); a thread stuck in native code
//!   keeps running until that operation ends or the process exits. In the browser
//!   `check_signals` is a no-op, so [`run_in_place`] takes a clock and checks the deadline from
//!   a trace hook on every call and line change; a loop that never changes line
//!   (`while True: pass` on one line) is stopped there by terminating the Web Worker.
//! - **Recursion.** `max_recursion_depth` sets the VM's recursion limit (`RecursionError`);
//!   `sys.setrecursionlimit` cannot raise it. The worker thread has a 256 MiB stack and
//!   RustPython also checks the native stack, so deep recursion is an error, not a crash.
//! - **Output.** stdout and stderr are captured; once together they pass `max_output_bytes`,
//!   the program is interrupted and the status is `Killed("output limit")`.
//! - **Memory.** Rust aborts the process when an allocation fails, and RustPython happily asks
//!   for 8 GB for `[0] * 10**9`; there is no hook inside the VM to refuse it. The guard is
//!   therefore a counting global allocator, [`memory::SandboxAlloc`], that the *binary* installs
//!   (`#[global_allocator]`; `index-builder` and the sandbox tests do). It counts only on sandbox
//!   worker threads; when a run would pass `max_memory_bytes`, the allocation never returns
//!   (the worker thread parks forever, holding at most the budget) and the caller gets
//!   `Killed("memory limit")`. Without the allocator installed there is no memory limit
//!   ([`RunResult::memory_guarded`] says which). In the browser, wasm memory is bounded and a
//!   failed allocation traps the worker.
//! - **Clean state.** Every [`run`] builds a new interpreter; nothing survives a run.

pub mod memory;
#[cfg(not(target_arch = "wasm32"))]
mod native;
mod syntax;
mod vm;

pub use syntax::{SyntaxIssue, check_syntax};
pub use vm::{ALLOWED_MODULES, run_in_place};

use serde::{Deserialize, Serialize};

/// The file name the learner's program has in tracebacks.
pub const PROGRAM_NAME: &str = "main.py";

/// Limits and input for one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOptions {
    /// What `input()` and `sys.stdin` read.
    pub stdin: String,
    /// Wall-clock limit for the program (interpreter start-up not included).
    pub timeout_ms: u64,
    /// stdout + stderr together; past this the run is `Killed("output limit")`.
    pub max_output_bytes: usize,
    /// Python call depth; deeper recursion raises `RecursionError`.
    pub max_recursion_depth: usize,
    /// Heap budget for the run, in bytes (needs [`memory::SandboxAlloc`] installed; see module docs).
    pub max_memory_bytes: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            stdin: String::new(),
            timeout_ms: 5_000,
            max_output_bytes: 1 << 20,
            max_recursion_depth: 1_000,
            max_memory_bytes: Some(256 << 20),
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "reason", rename_all = "snake_case")]
pub enum RunStatus {
    /// The program finished (including `sys.exit(0)`).
    Ok,
    /// The program raised an exception (see [`RunResult::exception`]) or had a syntax error.
    Error,
    /// The program ran past `timeout_ms`.
    Timeout,
    /// The sandbox stopped the program: `"output limit"` or `"memory limit"`.
    Killed(String),
}

/// The exception that ended the program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PyError {
    /// `ZeroDivisionError`, `SyntaxError`, …
    pub type_name: String,
    pub message: String,
    /// 1-based line in the learner's program where it was raised, when known.
    pub line: Option<usize>,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResult {
    pub stdout: String,
    /// Includes the traceback when the program raised.
    pub stderr: String,
    pub exception: Option<PyError>,
    pub status: RunStatus,
    /// Wall-clock time of the run including interpreter start-up (0 where no clock was given).
    pub duration_ms: u64,
    /// Whether the memory budget was enforced (the binary installed [`memory::SandboxAlloc`]).
    pub memory_guarded: bool,
}

/// Runs `source` in a fresh sandboxed interpreter on a worker thread and waits for it (at most
/// `timeout_ms` plus one second of grace). Never panics on hostile programs; see the module
/// docs for how each limit is enforced.
#[cfg(not(target_arch = "wasm32"))]
pub fn run(source: &str, opts: &RunOptions) -> RunResult {
    native::run(source, opts)
}
