//! One run in one fresh RustPython interpreter, on the current thread. No threads, no
//! `std::time` — usable from a Web Worker. Limits that need a second thread (the time limit
//! natively, the memory guard) live in `native.rs`.

use super::syntax::hint_for;
use super::{PROGRAM_NAME, PyError, RunOptions, RunResult, RunStatus};
use rustpython_vm::builtins::{PyBaseExceptionRef, PyStrRef, PyType};
use rustpython_vm::compiler::Mode;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::signal::UserSignalReceiver;
use rustpython_vm::{AsObject, Interpreter, PyObjectRef, PyResult, Settings, VirtualMachine};
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Top-level modules the learner's code may import. Everything else raises
/// `ImportError: module 'x' is not available in the Pathshala sandbox`.
pub const ALLOWED_MODULES: &[&str] = &[
    "__future__",
    "abc",
    "array",
    "ast",
    "base64",
    "binascii",
    "bisect",
    "calendar",
    "cmath",
    "collections",
    "colorsys",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fractions",
    "functools",
    "graphlib",
    "hashlib",
    "heapq",
    "io",
    "itertools",
    "json",
    "keyword",
    "math",
    "numbers",
    "operator",
    "pprint",
    "random",
    "re",
    "reprlib",
    "statistics",
    "string",
    "struct",
    "sys",
    "textwrap",
    "time",
    "types",
    "typing",
    "unicodedata",
    "zlib",
];

/// State shared between the running program and whoever waits for it.
pub(crate) struct Control {
    pub output: Mutex<Captured>,
    pub max_output: usize,
    pub output_killed: AtomicBool,
    pub timed_out: AtomicBool,
    pub memory_killed: AtomicBool,
    /// Set when the learner's code starts (after interpreter start-up).
    pub started: AtomicBool,
}

#[derive(Default)]
pub(crate) struct Captured {
    pub stdout: String,
    pub stderr: String,
}

impl Control {
    pub fn new(opts: &RunOptions) -> Self {
        Control {
            output: Mutex::new(Captured::default()),
            max_output: opts.max_output_bytes,
            output_killed: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            memory_killed: AtomicBool::new(false),
            started: AtomicBool::new(false),
        }
    }

    /// The result, given how the program ended (`None`: it did not end by itself).
    pub fn result(&self, exception: Option<PyError>, duration_ms: u64, stuck: bool) -> RunResult {
        // A worker that is still running may hold the lock (even forever, when parked by the
        // memory guard); never wait for it then.
        let (stdout, stderr) = match if stuck {
            self.output.try_lock().ok()
        } else {
            self.output.lock().ok()
        } {
            Some(c) => (c.stdout.clone(), c.stderr.clone()),
            None => (String::new(), String::new()),
        };
        let status = if self.memory_killed.load(Ordering::SeqCst) {
            RunStatus::Killed("memory limit".into())
        } else if self.output_killed.load(Ordering::SeqCst) {
            RunStatus::Killed("output limit".into())
        } else if self.timed_out.load(Ordering::SeqCst) || stuck {
            RunStatus::Timeout
        } else if exception.is_some() {
            RunStatus::Error
        } else {
            RunStatus::Ok
        };
        let exception = if matches!(status, RunStatus::Error) {
            exception
        } else {
            None
        };
        RunResult {
            stdout,
            stderr,
            exception,
            status,
            duration_ms,
            memory_guarded: false,
        }
    }
}

/// Runs `source` on the current thread in a fresh interpreter: the wasm entry point.
///
/// `clock` (milliseconds, any origin — e.g. `performance.now()`) enables the in-VM time limit:
/// a trace hook checks the deadline on every call and line change and raises
/// `KeyboardInterrupt` once it has passed. Without a clock there is no time limit here (the
/// caller terminates the worker). There is no memory limit here either. Natively prefer
/// [`super::run`], which also stops single-line loops and native code.
pub fn run_in_place(
    source: &str,
    opts: &RunOptions,
    clock: Option<Rc<dyn Fn() -> f64>>,
) -> RunResult {
    let control = std::sync::Arc::new(Control::new(opts));
    let t0 = clock.as_ref().map(|c| c());
    let exception = execute(source, opts, &control, clock.clone(), None);
    let duration = match (clock, t0) {
        (Some(c), Some(t0)) => (c() - t0).max(0.0) as u64,
        _ => 0,
    };
    control.result(exception, duration, false)
}

/// The signal a watchdog sends to stop the program.
pub(crate) fn interrupt(vm: &VirtualMachine, why: &str) -> PyBaseExceptionRef {
    vm.new_exception_msg(vm.ctx.exceptions.keyboard_interrupt.to_owned(), why.into())
}

/// Stops the program at its next instruction from a watchdog's signal.
///
/// A signal handler runs between any two instructions, and RustPython 0.5 sends an exception
/// raised there through the frame's exception table at whatever instruction it reached; when
/// the program catches it (`except BaseException: pass` in a loop) the frame can resume with a
/// broken value stack and the process crashes (seen as SIGSEGV / refcount aborts when two
/// interpreters ran at once). So the handler raises nothing: it sets an opcode tracer on every
/// frame. The tracer's `KeyboardInterrupt` leaves the frame it fires in without running that
/// frame's handlers, and each caller, traced too, stops at its next instruction: the program
/// ends whatever it catches. Native only: the browser's worker checks its clock in the VM.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn interrupt_soon(vm: &VirtualMachine, why: &'static str) {
    let tracer: PyObjectRef = vm
        .new_function(
            "_pathshala_interrupt",
            move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
                // Arguments (frame, event, arg); "return" and "exception" events pass.
                let event = args.args.get(1).and_then(|e| e.downcast_ref::<rustpython_vm::builtins::PyStr>());
                match event.and_then(|e| e.to_str()) {
                    Some("call" | "line" | "opcode") => Err(interrupt(vm, why)),
                    _ => Ok(vm.trace_func.borrow().clone()),
                }
            },
        )
        .into();
    let mut frame = vm.current_frame();
    while let Some(f) = frame {
        *f.trace.lock() = tracer.clone();
        *f.trace_opcodes.lock() = true;
        frame = f.f_back(vm);
    }
    *vm.trace_func.borrow_mut() = tracer;
    vm.use_tracing.set(true);
}

fn settings(argv0: &str) -> Settings {
    let mut s = Settings::default();
    s.install_signal_handlers = false;
    s.import_site = false;
    s.isolated = true;
    s.ignore_environment = true;
    s.user_site_directory = false;
    s.write_bytecode = false;
    s.allow_external_library = false;
    s.safe_path = true;
    s.quiet = true;
    // A fixed hash seed: interpreters in one process must share it, and set order is reproducible.
    s.hash_seed = Some(0);
    s.argv = vec![argv0.to_owned()];
    s
}

fn new_interpreter(opts: &RunOptions, signals: Option<UserSignalReceiver>) -> Interpreter {
    let builder = Interpreter::builder(settings(PROGRAM_NAME));
    let defs = rustpython_stdlib::stdlib_module_defs(&builder.ctx);
    let limit = opts.max_recursion_depth.max(10);
    builder
        .add_native_modules(&defs)
        .add_frozen_modules(rustpython_pylib::FROZEN_STDLIB)
        .init_hook(move |vm| {
            if let Some(rx) = signals {
                vm.set_user_signal_channel(rx);
            }
            vm.recursion_limit.set(limit);
        })
        .build()
}

/// Interns the name of every static type reachable from `object`.
///
/// RustPython 0.5's `type.__name__` expects a static type's name in the interpreter's string
/// pool and panics when it is not (`async_generator_wrapped_value` is not), so a learner
/// walking `object.__subclasses__()` crashed the run. The types the interpreter makes at start
/// are the ones affected: a module's classes, made on import, intern their names themselves.
/// Heap types (classes the program defines) keep their own names and are skipped.
fn intern_static_type_names(vm: &VirtualMachine) {
    let mut stack = vec![vm.ctx.types.object_type.to_owned()];
    let mut seen = std::collections::HashSet::new();
    while let Some(t) = stack.pop() {
        if !seen.insert(t.get_id()) {
            continue;
        }
        if t.heaptype_ext.is_none() {
            let name = t.name();
            vm.ctx.intern_str(&*name);
        }
        stack.extend(t.subclasses.read().iter().filter_map(|w| w.upgrade()).filter_map(|o| o.downcast::<PyType>().ok()));
    }
}

/// Runs the program; returns the exception that ended it (if any). Output and flags go to `control`.
pub(crate) fn execute(
    source: &str,
    opts: &RunOptions,
    control: &std::sync::Arc<Control>,
    clock: Option<Rc<dyn Fn() -> f64>>,
    signals: Option<UserSignalReceiver>,
) -> Option<PyError> {
    // Leaked instead of dropped if the run is unwound by the native watchdog.
    let interp = ManuallyDrop::new(new_interpreter(opts, signals));
    let out = interp.enter(|vm| {
        if let Err(e) = install_sandbox(vm, opts, control) {
            let mut s = String::new();
            let _ = vm.write_exception(&mut s, &e);
            return Some(PyError {
                type_name: "SandboxError".into(),
                message: format!("the sandbox could not start (please report this): {s}"),
                line: None,
            });
        }
        let code = match vm.compile(source, Mode::Exec, PROGRAM_NAME.to_owned()) {
            Ok(c) => c,
            Err(e) => {
                let (line, col) = e.python_location();
                let message = e.to_string();
                let hint = hint_for(source, line, &message);
                let text = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
                if let Ok(mut c) = control.output.lock() {
                    c.stderr.push_str(&format!(
                        "  File \"{PROGRAM_NAME}\", line {line}\n    {}\n    {}^\nSyntaxError: {message}\nHint: {hint}\n",
                        text.trim_start(),
                        " ".repeat(col.saturating_sub(1).saturating_sub(text.len() - text.trim_start().len()))
                    ));
                }
                return Some(PyError { type_name: "SyntaxError".into(), message, line: Some(line.max(1)) });
            }
        };
        let scope = match vm.new_scope_with_main() {
            Ok(s) => s,
            Err(_) => vm.new_scope_with_builtins(),
        };
        if let Some(clock) = clock {
            install_deadline(vm, clock, opts.timeout_ms as f64, control.clone());
        }
        control.started.store(true, Ordering::SeqCst);
        let res = vm.run_code_obj(code, scope);
        vm.use_tracing.set(false);
        match res {
            Ok(_) => None,
            Err(exc) => describe(vm, &exc, control),
        }
    });
    drop(ManuallyDrop::into_inner(interp));
    out
}

/// Turns the exception that ended the program into a `PyError` and a traceback on stderr.
fn describe(vm: &VirtualMachine, exc: &PyBaseExceptionRef, control: &Control) -> Option<PyError> {
    let class = exc.class();
    if class.fast_issubclass(vm.ctx.exceptions.system_exit) {
        // sys.exit(): code None or 0 is success; a string is printed like CPython does.
        let code = exc.args().first().cloned();
        let ok = match &code {
            None => true,
            Some(c) if vm.is_none(c) => true,
            Some(c) => c.try_to_value::<i64>(vm).map(|n| n == 0).unwrap_or(false),
        };
        if ok {
            return None;
        }
        let msg = code
            .and_then(|c| c.str(vm).ok())
            .map(|s| s.to_string())
            .unwrap_or_default();
        if let Ok(mut c) = control.output.lock() {
            c.stderr.push_str(&msg);
            c.stderr.push('\n');
        }
        return Some(PyError {
            type_name: "SystemExit".into(),
            message: msg,
            line: None,
        });
    }
    let type_name = class.name().to_string();
    let message = exc
        .as_object()
        .str(vm)
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut line = None;
    let mut tb = exc.__traceback__();
    while let Some(t) = tb {
        if t.frame.code.source_path().as_str() == PROGRAM_NAME {
            line = Some(t.lineno.get());
        }
        tb = t.next.lock().clone();
    }
    if line.is_none() && class.fast_issubclass(vm.ctx.exceptions.syntax_error) {
        // A SyntaxError raised at run time (e.g. by compile()/exec()) carries its own line.
        line = exc
            .as_object()
            .get_attr("lineno", vm)
            .ok()
            .and_then(|l| l.try_to_value::<usize>(vm).ok());
    }
    let killed =
        control.output_killed.load(Ordering::SeqCst) || control.timed_out.load(Ordering::SeqCst);
    if !killed {
        let mut text = String::new();
        let _ = vm.write_exception(&mut text, exc);
        if let Ok(mut c) = control.output.lock() {
            c.stderr.push_str(&text);
        }
    }
    Some(PyError {
        type_name,
        message,
        line,
    })
}

/// The in-VM deadline: a trace function that raises once `clock()` passes the deadline.
fn install_deadline(
    vm: &VirtualMachine,
    clock: Rc<dyn Fn() -> f64>,
    timeout_ms: f64,
    control: std::sync::Arc<Control>,
) {
    let deadline = clock() + timeout_ms;
    let tracer = vm.new_function(
        "_pathshala_deadline",
        move |_args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            if clock() > deadline {
                control.timed_out.store(true, Ordering::SeqCst);
                return Err(interrupt(vm, "time limit exceeded"));
            }
            // Returning the tracer keeps line events coming for this frame.
            Ok(vm.trace_func.borrow().clone())
        },
    );
    *vm.trace_func.borrow_mut() = tracer.into();
    vm.use_tracing.set(true);
}

/// Whether the code calling into `__import__` belongs to the learner (their program, or code
/// they compiled with `exec`/`eval`/`compile`) rather than to the frozen standard library.
fn learner_calling(vm: &VirtualMachine) -> bool {
    match vm.current_frame() {
        None => true,
        Some(f) => {
            let p = f.code.source_path().as_str();
            p == PROGRAM_NAME || p.starts_with('<') || p.is_empty()
        }
    }
}

const BOOTSTRAP: &str = r#"
import sys, builtins, time as _time, _random

class _Out:
    encoding = 'utf-8'
    errors = 'strict'
    mode = 'w'
    def __init__(self, fd, name):
        self._fd = fd
        self.name = name
    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        _write(self._fd, s)
        return len(s)
    def writelines(self, lines):
        for line in lines:
            self.write(line)
    def flush(self): pass
    def isatty(self): return False
    def writable(self): return True
    def readable(self): return False
    def fileno(self):
        raise OSError("there are no file descriptors in the Pathshala sandbox")

class _In:
    encoding = 'utf-8'
    errors = 'strict'
    mode = 'r'
    name = '<stdin>'
    def readline(self, size=-1): return _readline()
    def read(self, size=-1): return _read()
    def readlines(self): return list(iter(_readline, ''))
    def __iter__(self): return self
    def __next__(self):
        line = _readline()
        if not line:
            raise StopIteration
        return line
    def isatty(self): return False
    def readable(self): return True
    def writable(self): return False
    def fileno(self):
        raise OSError("there are no file descriptors in the Pathshala sandbox")

_stdout, _stderr, _stdin = _Out(1, '<stdout>'), _Out(2, '<stderr>'), _In()
sys.stdout = sys.__stdout__ = _stdout
sys.stderr = sys.__stderr__ = _stderr
sys.stdin = sys.__stdin__ = _stdin

def input(prompt=''):
    if prompt != '':
        _stdout.write(str(prompt))
    line = _readline()
    if line == '':
        raise EOFError('EOF when reading a line (the program asked for more input than was given)')
    return line[:-1] if line.endswith('\n') else line
builtins.input = input

def open(*args, **kwargs):
    raise PermissionError("open() is not available in the Pathshala sandbox: programs cannot read or write files. Read input with input() and show results with print().")
builtins.open = open

# Built without host access, _io has no FileIO; io.py (and so inspect, dataclasses) imports it.
import _io
class FileIO(_io._RawIOBase):
    def __init__(self, *args, **kwargs):
        open()
FileIO.__module__ = '_io'
_io.FileIO = FileIO
_io.open = open
_io.open_code = open

_time.sleep = _sleep

# What the standard library may import as 'os': no files, processes or environment.
_os = type(sys)('os', 'Stand-in for os inside the Pathshala sandbox: no files, processes or environment.')
_os.name = 'posix'
_os.sep, _os.altsep, _os.extsep, _os.pathsep, _os.linesep = '/', None, '.', ':', '\n'
_os.curdir, _os.pardir, _os.devnull = '.', '..', '/dev/null'
_os.environ = {}
_os.getenv = lambda key, default=None: default
_os.cpu_count = lambda: 1
def _urandom(n):
    return _random.Random().getrandbits(8 * n).to_bytes(n, 'little') if n > 0 else b''
_os.urandom = _urandom
def _fspath(p):
    if isinstance(p, (str, bytes)):
        return p
    raise TypeError(f"expected str or bytes, not {type(p).__name__}")
_os.fspath = _fspath
def _no_files(*args, **kwargs):
    raise PermissionError("the Pathshala sandbox has no file system")
for _name in ('stat', 'lstat', 'listdir', 'scandir', 'open', 'remove', 'unlink', 'mkdir', 'rmdir',
              'rename', 'replace', 'chdir', 'readlink', 'access', 'utime', 'chmod'):
    setattr(_os, _name, _no_files)
_os.getcwd = lambda: '/'
_os.getpid = lambda: 1
sys.modules['os'] = sys.modules['posix'] = _os
import posixpath
_os.path = sys.modules['os.path'] = posixpath

# The 'sys' the learner sees: no modules, no tracing, a capped recursion limit.
_lsys = type(sys)('sys', sys.__doc__)
for _name in ('argv', 'byteorder', 'exc_info', 'exception', 'float_info', 'float_repr_style',
              'getdefaultencoding', 'getrecursionlimit', 'getsizeof', 'hash_info', 'hexversion',
              'implementation', 'int_info', 'intern', 'maxsize', 'maxunicode', 'platform',
              'version', 'version_info', 'get_int_max_str_digits', 'set_int_max_str_digits'):
    if hasattr(sys, _name):
        setattr(_lsys, _name, getattr(sys, _name))
_lsys.stdin, _lsys.stdout, _lsys.stderr = _stdin, _stdout, _stderr
_lsys.__stdin__, _lsys.__stdout__, _lsys.__stderr__ = _stdin, _stdout, _stderr
_lsys.path = []
_lsys.executable = ''
def _exit(status=None):
    raise SystemExit(status)
_lsys.exit = _exit
def _setrecursionlimit(n):
    if n > _max_recursion:
        raise ValueError(f"the Pathshala sandbox allows a recursion limit of at most {_max_recursion}")
    sys.setrecursionlimit(n)
_lsys.setrecursionlimit = _setrecursionlimit
"#;

/// Wires stdin/stdout/stderr, `input`, `open`, `time.sleep`, the `os` stand-in, the learner's
/// `sys` and the import allow-list into a fresh interpreter.
fn install_sandbox(
    vm: &VirtualMachine,
    opts: &RunOptions,
    control: &std::sync::Arc<Control>,
) -> PyResult<()> {
    intern_static_type_names(vm);
    let scope = vm.new_scope_with_builtins();
    let g = &scope.globals;

    let c = control.clone();
    let write = vm.new_function(
        "_write",
        move |fd: i32, s: PyStrRef, vm: &VirtualMachine| -> PyResult<()> {
            write_output(&c, fd, &s.to_string_lossy(), vm)
        },
    );
    g.set_item("_write", write.into(), vm)?;

    let stdin = Rc::new(RefCell::new((opts.stdin.clone(), 0usize)));
    let s1 = stdin.clone();
    let readline = vm.new_function("_readline", move |vm: &VirtualMachine| -> PyResult {
        let mut st = s1.borrow_mut();
        let (text, pos) = &mut *st;
        let rest = &text[*pos..];
        let n = rest.find('\n').map(|i| i + 1).unwrap_or(rest.len());
        let line = rest[..n].to_owned();
        *pos += n;
        Ok(vm.ctx.new_str(line).into())
    });
    g.set_item("_readline", readline.into(), vm)?;
    let s2 = stdin;
    let read = vm.new_function("_read", move |vm: &VirtualMachine| -> PyResult {
        let mut st = s2.borrow_mut();
        let (text, pos) = &mut *st;
        let rest = text[*pos..].to_owned();
        *pos = text.len();
        Ok(vm.ctx.new_str(rest).into())
    });
    g.set_item("_read", read.into(), vm)?;

    let sleep = vm.new_function(
        "sleep",
        |secs: rustpython_vm::function::ArgIntoFloat, vm: &VirtualMachine| -> PyResult<()> {
            sandbox_sleep(secs.into_float(), vm)
        },
    );
    g.set_item("_sleep", sleep.into(), vm)?;
    g.set_item(
        "_max_recursion",
        vm.ctx.new_int(opts.max_recursion_depth.max(10)).into(),
        vm,
    )?;

    let code = vm
        .compile(BOOTSTRAP, Mode::Exec, "<pathshala-sandbox>".to_owned())
        .map_err(|e| vm.new_runtime_error(format!("sandbox bootstrap does not compile: {e}")))?;
    vm.run_code_obj(code, scope.clone())?;
    let learner_sys: PyObjectRef = g.get_item("_lsys", vm)?;

    // sys.setrecursionlimit can only lower the limit from here on.
    let orig_import = vm.builtins.get_attr("__import__", vm)?;
    let hook = vm.new_function("__import__", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let name = args
            .args
            .first()
            .and_then(|n| n.downcast_ref::<rustpython_vm::builtins::PyStr>().map(|s| s.to_string_lossy().into_owned()))
            .ok_or_else(|| vm.new_type_error("__import__() argument 1 must be str"))?;
        let level = args
            .args
            .get(4)
            .or_else(|| args.kwargs.get("level"))
            .and_then(|l| l.try_to_value::<i64>(vm).ok())
            .unwrap_or(0);
        if level == 0 && learner_calling(vm) {
            let top = name.split('.').next().unwrap_or("");
            if top == "sys" {
                return Ok(learner_sys.clone());
            }
            if !ALLOWED_MODULES.contains(&top) {
                let hint = match top {
                    "os" | "pathlib" | "shutil" | "glob" | "tempfile" | "io" => " Programs here cannot use files; read input with input() and print results.",
                    "socket" | "urllib" | "http" | "requests" | "ssl" | "smtplib" => " Programs here cannot use the network.",
                    "subprocess" | "multiprocessing" | "threading" | "signal" | "ctypes" => " Programs here cannot start processes or threads.",
                    "importlib" | "builtins" | "gc" | "inspect" => " Import the modules you need directly with 'import'.",
                    _ => "",
                };
                return Err(vm.new_import_error(
                    format!("module '{top}' is not available in the Pathshala sandbox.{hint} Available modules: {}", ALLOWED_MODULES.join(", ")),
                    vm.ctx.new_str(top),
                ));
            }
        }
        orig_import.call(args, vm)
    });
    vm.builtins.set_attr("__import__", hook, vm)?;
    Ok(())
}

fn write_output(control: &Control, fd: i32, s: &str, vm: &VirtualMachine) -> PyResult<()> {
    if control.output_killed.load(Ordering::Relaxed) {
        return Err(interrupt(vm, "output limit exceeded"));
    }
    let mut c = control
        .output
        .lock()
        .map_err(|_| vm.new_runtime_error("output buffer poisoned"))?;
    let used = c.stdout.len() + c.stderr.len();
    let room = control.max_output.saturating_sub(used);
    let target = if fd == 2 {
        &mut c.stderr
    } else {
        &mut c.stdout
    };
    if s.len() <= room {
        target.push_str(s);
        return Ok(());
    }
    let mut cut = room;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    target.push_str(&s[..cut]);
    drop(c);
    control.output_killed.store(true, Ordering::SeqCst);
    Err(interrupt(vm, "output limit exceeded"))
}

#[cfg(not(target_arch = "wasm32"))]
fn sandbox_sleep(secs: f64, vm: &VirtualMachine) -> PyResult<()> {
    if !(secs >= 0.0) {
        return Err(vm.new_value_error("sleep length must be non-negative"));
    }
    // In short slices so the watchdog's interrupt is noticed.
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs.min(1e6));
    loop {
        vm.check_signals()?;
        let now = std::time::Instant::now();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep((end - now).min(std::time::Duration::from_millis(10)));
    }
}

#[cfg(target_arch = "wasm32")]
fn sandbox_sleep(secs: f64, vm: &VirtualMachine) -> PyResult<()> {
    if !(secs >= 0.0) {
        return Err(vm.new_value_error("sleep length must be non-negative"));
    }
    if secs == 0.0 {
        return Ok(());
    }
    Err(vm.new_runtime_error("time.sleep() is not available in the browser sandbox"))
}
