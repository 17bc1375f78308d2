//! What a program did on a step's checks, and whether the learner's version did the same.
//!
//! A check run prints, besides the program's own output, one [`RET_MARK`] line per call of the
//! task's function and one [`PROBE_MARK`] line each time control passes the end of the step (see
//! `code::with_probe`). Two versions behave the same when they print the same, return the same,
//! and every value the reference step gives its variables is held by some variable of the
//! learner's version at the same probe (names may differ).

use super::code::{PROBE_MARK, PROBE_SEP, RET_MARK};
use crate::sandbox::{RunResult, RunStatus};
use serde::{Deserialize, Serialize};

/// Probe lines kept per run; loops over long inputs print many.
pub const MAX_PROBES: usize = 200;

/// How a check run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ended {
    Ok,
    /// An exception: its type, message and line in the checked program.
    Raised { type_name: String, message: String, line: Option<usize> },
    /// Ran out of time (a loop that a later step will finish, or one that never ends).
    Timeout,
    /// Stopped for output or memory.
    Killed { reason: String },
}

/// What one version of the program did on the step's inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Behaviour {
    /// The program's own stdout lines (markers removed).
    pub output: Vec<String>,
    /// `repr` of what the task's function returned, one per input, in order.
    pub returns: Vec<String>,
    /// Variables at each probe: (name, clipped repr), sorted by name.
    pub probes: Vec<Vec<(String, String)>>,
    /// How each run ended (one run per stdin for a script, one in all for a function).
    pub ended: Vec<Ended>,
}

impl Behaviour {
    /// Reads check runs (in input order).
    pub fn observe(runs: &[RunResult]) -> Behaviour {
        let mut b = Behaviour::default();
        for r in runs {
            for line in r.stdout.lines() {
                if let Some(rest) = line.strip_prefix(RET_MARK) {
                    b.returns.push(rest.trim_start().to_string());
                } else if let Some(rest) = line.strip_prefix(PROBE_MARK) {
                    if b.probes.len() < MAX_PROBES {
                        b.probes.push(
                            rest.split(PROBE_SEP)
                                .filter(|f| !f.trim().is_empty())
                                .filter_map(|f| f.split_once('=').map(|(k, v)| (k.trim().to_string(), v.to_string())))
                                .collect(),
                        );
                    }
                } else {
                    b.output.push(line.trim_end().to_string());
                }
            }
            b.ended.push(ended(r));
        }
        b
    }

    /// The first exception, if a run raised one.
    pub fn raised(&self) -> Option<&Ended> {
        self.ended.iter().find(|e| matches!(e, Ended::Raised { .. }))
    }

    /// Whether some run stopped before the program ended (time, output or memory).
    pub fn cut_short(&self) -> bool {
        self.ended.iter().any(|e| matches!(e, Ended::Timeout | Ended::Killed { .. }))
    }
}

fn ended(r: &RunResult) -> Ended {
    match &r.status {
        RunStatus::Ok => Ended::Ok,
        RunStatus::Timeout => Ended::Timeout,
        RunStatus::Killed(reason) => Ended::Killed { reason: reason.clone() },
        RunStatus::Error => match &r.exception {
            Some(e) => Ended::Raised { type_name: e.type_name.clone(), message: e.message.clone(), line: e.line },
            None => Ended::Raised { type_name: "Error".into(), message: r.stderr.lines().last().unwrap_or("").to_string(), line: None },
        },
    }
}

/// The first way the learner's version behaves differently from the reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Difference {
    /// The learner's version raised where the reference did not.
    Raised { type_name: String, message: String, line: Option<usize> },
    /// It printed something else (first differing line; `None` when a line is missing).
    Output { expected: Option<String>, got: Option<String> },
    /// The function returned something else on input `input` (index into the inputs).
    Return { input: usize, expected: String, got: String },
    /// No variable held a value the step should produce, at probe `probe`.
    Value { name: String, expected: String, probe: usize },
    /// The end of the step was reached a different number of times (a loop or a condition).
    Flow { expected: usize, got: usize },
    /// The learner's version ran out of time where the reference finished.
    Timeout,
}

impl Difference {
    /// Whether the visible results (output, returns) agree and only the inner state differs:
    /// the case where a different but valid approach is plausible.
    pub fn inner_only(&self) -> bool {
        matches!(self, Difference::Value { .. } | Difference::Flow { .. })
    }
}

/// Compares the learner's behaviour with the reference's; `step_vars` are the names the reference
/// step assigns (`code::assigned_names`). `None` means the same behaviour.
///
/// When either version was cut short (a loop a later step finishes), only what both printed before
/// the cut is compared, less the last line, which may be partial.
pub fn compare(reference: &Behaviour, learner: &Behaviour, step_vars: &[String]) -> Option<Difference> {
    if reference.raised().is_none() {
        if let Some(Ended::Raised { type_name, message, line }) = learner.raised() {
            return Some(Difference::Raised { type_name: type_name.clone(), message: message.clone(), line: *line });
        }
    }
    let cut = reference.cut_short() || learner.cut_short();
    if learner.cut_short() && !reference.cut_short() && learner.ended.iter().any(|e| *e == Ended::Timeout) {
        return Some(Difference::Timeout);
    }
    let span = |a: usize, b: usize| if cut { a.min(b).saturating_sub(1) } else { a.max(b) };

    let n = span(reference.output.len(), learner.output.len());
    for i in 0..n {
        let (e, g) = (reference.output.get(i), learner.output.get(i));
        if e != g {
            return Some(Difference::Output { expected: e.cloned(), got: g.cloned() });
        }
    }
    let n = span(reference.returns.len(), learner.returns.len());
    for i in 0..n {
        let (e, g) = (reference.returns.get(i), learner.returns.get(i));
        if e != g {
            return Some(Difference::Return { input: i, expected: e.cloned().unwrap_or_default(), got: g.cloned().unwrap_or_default() });
        }
    }
    if !cut && reference.probes.len() != learner.probes.len() && reference.probes.len() < MAX_PROBES {
        return Some(Difference::Flow { expected: reference.probes.len(), got: learner.probes.len() });
    }
    let n = if cut || reference.probes.len() >= MAX_PROBES { span(reference.probes.len(), learner.probes.len()) } else { reference.probes.len() };
    for p in 0..n {
        let (Some(r), Some(l)) = (reference.probes.get(p), learner.probes.get(p)) else { break };
        for (name, value) in r.iter().filter(|(k, _)| step_vars.contains(k)) {
            if !l.iter().any(|(_, v)| v == value) {
                return Some(Difference::Value { name: name.clone(), expected: value.clone(), probe: p });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stdout: &str, status: RunStatus) -> RunResult {
        RunResult { stdout: stdout.into(), stderr: String::new(), exception: None, status, duration_ms: 1, memory_guarded: false }
    }

    fn probe(vars: &[(&str, &str)]) -> String {
        let fields: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{PROBE_MARK}{PROBE_SEP}{}\n", fields.join(&PROBE_SEP.to_string()))
    }

    #[test]
    fn observe_separates_output_returns_and_probes() {
        let out = format!("hello\n{}{}{RET_MARK} 3\n", probe(&[("t", "1"), ("x", "'a=b'")]), probe(&[]));
        let b = Behaviour::observe(&[run(&out, RunStatus::Ok)]);
        assert_eq!(b.output, ["hello"]);
        assert_eq!(b.returns, ["3"]);
        assert_eq!(b.probes, vec![vec![("t".to_string(), "1".to_string()), ("x".into(), "'a=b'".into())], vec![]]);
        assert_eq!(b.ended, [Ended::Ok]);
    }

    fn behaviour(probes: &[&[(&str, &str)]], ret: &str) -> Behaviour {
        let out: String = probes.iter().map(|p| probe(p)).collect::<String>() + &format!("{RET_MARK} {ret}\n");
        Behaviour::observe(&[run(&out, RunStatus::Ok)])
    }

    #[test]
    fn renamed_variables_with_the_same_values_behave_the_same() {
        let vars = vec!["total".to_string()];
        let r = behaviour(&[&[("total", "0"), ("xs", "[1]")], &[("total", "1"), ("xs", "[1]")]], "None");
        let same = behaviour(&[&[("s", "0"), ("xs", "[1]")], &[("s", "1"), ("xs", "[1]")]], "None");
        assert_eq!(compare(&r, &same, &vars), None);
        let wrong = behaviour(&[&[("s", "0"), ("xs", "[1]")], &[("s", "2"), ("xs", "[1]")]], "None");
        assert_eq!(compare(&r, &wrong, &vars), Some(Difference::Value { name: "total".into(), expected: "1".into(), probe: 1 }));
        let fewer = behaviour(&[&[("s", "0")]], "None");
        assert_eq!(compare(&r, &fewer, &vars), Some(Difference::Flow { expected: 2, got: 1 }));
        let ret = behaviour(&[&[("total", "0"), ("xs", "[1]")], &[("total", "1"), ("xs", "[1]")]], "1");
        assert!(matches!(compare(&r, &ret, &vars), Some(Difference::Return { input: 0, .. })));
        assert!(compare(&r, &wrong, &vars).unwrap().inner_only());
    }

    #[test]
    fn errors_and_timeouts_are_differences_and_cut_runs_compare_their_common_part() {
        let r = Behaviour::observe(&[run("a\nb\n", RunStatus::Ok)]);
        let mut raised = run("a\n", RunStatus::Error);
        raised.exception = Some(crate::sandbox::PyError { type_name: "NameError".into(), message: "name 'y' is not defined".into(), line: Some(3) });
        let d = compare(&r, &Behaviour::observe(&[raised]), &[]);
        assert!(matches!(d, Some(Difference::Raised { ref type_name, line: Some(3), .. }) if type_name == "NameError"));
        assert_eq!(compare(&r, &Behaviour::observe(&[run("a\n", RunStatus::Timeout)]), &[]), Some(Difference::Timeout));
        let out = Behaviour::observe(&[run("a\nc\n", RunStatus::Ok)]);
        assert_eq!(compare(&r, &out, &[]), Some(Difference::Output { expected: Some("b".into()), got: Some("c".into()) }));
        // Both loop until the time limit: the common part agrees, the last (partial) line is ignored.
        let a = Behaviour::observe(&[run("1\n2\n3\n", RunStatus::Timeout)]);
        let b = Behaviour::observe(&[run("1\n2\n3\n4\n5", RunStatus::Timeout)]);
        assert_eq!(compare(&a, &b, &[]), None);
    }
}
