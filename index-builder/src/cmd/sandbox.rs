//! `index-builder sandbox`: run or check a learner's Python program in Pathshala's sandbox.

use anyhow::{Context, Result};
use inference::sandbox::{self, RunOptions, RunStatus};
use std::path::PathBuf;

/// The sandbox's memory guard counts allocations on sandbox worker threads only; every other
/// thread of this program pays one thread-local read per allocation.
#[global_allocator]
static ALLOC: sandbox::memory::SandboxAlloc = sandbox::memory::SandboxAlloc;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Run a Python file in the sandbox and print what happened (exit code 0 even when the
    /// program fails: the status says how it ended).
    Run {
        /// The Python program.
        file: PathBuf,
        /// A file whose contents the program reads with input().
        #[arg(long)]
        stdin: Option<PathBuf>,
        /// Wall-clock limit for the program, in milliseconds.
        #[arg(long, default_value_t = 5_000)]
        timeout_ms: u64,
        /// Limit on stdout + stderr together, in bytes.
        #[arg(long, default_value_t = 1 << 20)]
        max_output_bytes: usize,
        /// Heap budget in MiB.
        #[arg(long, default_value_t = 256)]
        max_memory_mib: usize,
        /// Print the whole result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check a Python file's syntax without running it.
    Check {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

fn read(path: &PathBuf) -> Result<String> {
    std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {} (is it a UTF-8 text file?)", path.display()))
}

pub fn run(a: Args) -> Result<()> {
    match a.action {
        Action::Run {
            file,
            stdin,
            timeout_ms,
            max_output_bytes,
            max_memory_mib,
            json,
        } => {
            let source = read(&file)?;
            let stdin = match stdin {
                Some(p) => read(&p)?,
                None => String::new(),
            };
            let opts = RunOptions {
                stdin,
                timeout_ms,
                max_output_bytes,
                max_memory_bytes: Some(max_memory_mib << 20),
                ..RunOptions::default()
            };
            let r = sandbox::run(&source, &opts);
            if json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                print!("{}", r.stdout);
                eprint!("{}", r.stderr);
                let status = match &r.status {
                    RunStatus::Ok => "ok".to_owned(),
                    RunStatus::Error => "error".to_owned(),
                    RunStatus::Timeout => format!("timeout (over {timeout_ms} ms)"),
                    RunStatus::Killed(why) => format!("killed ({why})"),
                };
                eprintln!("--- status: {status}; {} ms", r.duration_ms);
                if let Some(e) = &r.exception {
                    let line = e.line.map(|l| format!(" at line {l}")).unwrap_or_default();
                    eprintln!("--- {}{line}: {}", e.type_name, e.message);
                }
            }
            Ok(())
        }
        Action::Check { file, json } => {
            let source = read(&file)?;
            let r = sandbox::check_syntax(&source);
            if json {
                println!("{}", serde_json::to_string_pretty(&r.as_ref().err())?);
            } else {
                match &r {
                    Ok(()) => println!("ok: no syntax errors"),
                    Err(e) => println!("{}: {e}", file.display()),
                }
            }
            Ok(())
        }
    }
}
