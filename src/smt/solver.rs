//! The solver: an external SMT-LIB 2 process (z3) fed a script over a pipe, its answers read
//! back as s-expressions. One process per script; a wall-clock limit kills a solver that does
//! not answer, and the caller gets "unknown" with the reason.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::value::Bits;

/// Why the solver could not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolverError {
    /// No solver executable was found.
    NotFound(String),
    /// The process could not be started or talked to.
    Io(String),
    /// It did not answer within the limit.
    Timeout(u64),
    /// It answered with an error (a translation bug, or a resource limit).
    Solver(String),
}

impl std::fmt::Display for SolverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolverError::NotFound(m) => write!(f, "no SMT solver: {m}"),
            SolverError::Io(m) => write!(f, "solver process: {m}"),
            SolverError::Timeout(ms) => write!(f, "solver timeout after {ms} ms"),
            SolverError::Solver(m) => write!(f, "solver error: {m}"),
        }
    }
}

impl std::error::Error for SolverError {}

/// An s-expression of the solver's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    /// A symbol, literal or string (strings keep their quotes).
    Atom(String),
    /// A parenthesised list.
    List(Vec<Sexp>),
}

impl Sexp {
    /// The atom's text.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom(a) => Some(a),
            Sexp::List(_) => None,
        }
    }

    /// A bit-vector literal (`#x..`, `#b..`, `(_ bvN w)`), or a boolean as one bit.
    pub fn bits(&self) -> Option<Bits> {
        match self {
            Sexp::Atom(a) => {
                if let Some(h) = a.strip_prefix("#x") {
                    Bits::from_hex(h.len() as u32 * 4, h)
                } else if let Some(b) = a.strip_prefix("#b") {
                    let w = b.len() as u32;
                    let mut words = vec![0u64; (w as usize).div_ceil(64).max(1)];
                    for (i, c) in b.chars().rev().enumerate() {
                        if c == '1' {
                            words[i / 64] |= 1 << (i % 64);
                        }
                    }
                    Some(Bits::from_words(w, &words))
                } else if a == "true" || a == "false" {
                    Some(Bits::from_u64(1, (a == "true") as u64))
                } else {
                    None
                }
            }
            Sexp::List(l) => match l.as_slice() {
                [Sexp::Atom(u), Sexp::Atom(v), Sexp::Atom(w)] if u == "_" => {
                    let n: u128 = v.strip_prefix("bv")?.parse().ok()?;
                    let w: u32 = w.parse().ok()?;
                    Some(Bits::from_u128(w, n))
                }
                _ => None,
            },
        }
    }
}

/// Parses the solver's output into its top-level s-expressions.
pub fn parse_sexps(text: &str) -> Result<Vec<Sexp>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let mut out = Vec::new();
    let mut stack: Vec<Vec<Sexp>> = Vec::new();
    while pos < chars.len() {
        let c = chars[pos];
        if c.is_whitespace() {
            pos += 1;
        } else if c == '(' {
            stack.push(Vec::new());
            pos += 1;
        } else if c == ')' {
            let list = stack.pop().ok_or("unbalanced `)` in solver output")?;
            pos += 1;
            match stack.last_mut() {
                Some(parent) => parent.push(Sexp::List(list)),
                None => out.push(Sexp::List(list)),
            }
        } else {
            let start = pos;
            if c == '"' || c == '|' {
                pos += 1;
                while pos < chars.len() && chars[pos] != c {
                    pos += 1;
                }
                pos += 1;
            } else {
                while pos < chars.len()
                    && !chars[pos].is_whitespace()
                    && chars[pos] != '('
                    && chars[pos] != ')'
                {
                    pos += 1;
                }
            }
            let atom = Sexp::Atom(chars[start..pos.min(chars.len())].iter().collect());
            match stack.last_mut() {
                Some(parent) => parent.push(atom),
                None => out.push(atom),
            }
        }
    }
    if !stack.is_empty() {
        return Err("unbalanced `(` in solver output".into());
    }
    Ok(out)
}

/// An SMT solver executable and its time limit.
#[derive(Clone, Debug)]
pub struct Solver {
    /// The executable.
    pub path: PathBuf,
    /// The wall-clock limit of one script, in milliseconds.
    pub timeout_ms: u64,
}

impl Solver {
    /// The solver at `explicit`, or `z3` on `PATH`.
    ///
    /// # Errors
    /// [`SolverError::NotFound`] when there is none.
    pub fn find(explicit: Option<&Path>) -> Result<Solver, SolverError> {
        let path = match explicit {
            Some(p) => {
                if !p.is_file() {
                    return Err(SolverError::NotFound(format!(
                        "{} is not a file",
                        p.display()
                    )));
                }
                p.to_path_buf()
            }
            None => std::env::var_os("PATH")
                .and_then(|paths| {
                    std::env::split_paths(&paths)
                        .map(|d| d.join("z3"))
                        .find(|p| p.is_file())
                })
                .ok_or_else(|| {
                    SolverError::NotFound(
                        "z3 is not on PATH (install the Debian package `z3`, or pass --solver)"
                            .into(),
                    )
                })?,
        };
        Ok(Solver {
            path,
            timeout_ms: 30_000,
        })
    }

    /// Runs `script` (which should end with the commands whose answers are wanted) and
    /// returns the solver's answers.
    ///
    /// # Errors
    /// Process failures, the time limit, or an `(error ...)` answer.
    pub fn run(&self, script: &str) -> Result<Vec<Sexp>, SolverError> {
        if let Some(path) = std::env::var_os("AMDPCODE_SMT_DUMP") {
            let _ = std::fs::write(path, script);
        }
        let secs = self.timeout_ms.div_ceil(1000).max(1);
        let mut child = Command::new(&self.path)
            .arg("-in")
            .arg("-smt2")
            .arg(format!("-T:{}", secs + 1))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| SolverError::Io(format!("{}: {e}", self.path.display())))?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or(SolverError::Io("no stdin".into()))?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or(SolverError::Io("no stdout".into()))?;
        let text = format!(
            "(set-option :print-success false)\n(set-option :timeout {})\n{script}\n(exit)\n",
            self.timeout_ms
        );
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        });
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let r = stdout.read_to_string(&mut s).map(|_| s);
            let _ = tx.send(r);
        });
        let out = match rx.recv_timeout(Duration::from_millis(self.timeout_ms + 2_000)) {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SolverError::Io(e.to_string()));
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SolverError::Timeout(self.timeout_ms));
            }
        };
        let _ = writer.join();
        let _ = child.wait();
        let sexps = parse_sexps(&out).map_err(SolverError::Solver)?;
        let mut answers = Vec::with_capacity(sexps.len());
        for s in sexps {
            if let Sexp::List(l) = &s {
                if l.first().and_then(Sexp::atom) == Some("error") {
                    let msg = l
                        .get(1)
                        .and_then(Sexp::atom)
                        .unwrap_or("?")
                        .trim_matches('"');
                    // `get-value` after `unsat` has no model to read: not a failure.
                    if msg.contains("model is not available") {
                        continue;
                    }
                    return Err(SolverError::Solver(msg.to_string()));
                }
            }
            answers.push(s);
        }
        Ok(answers)
    }
}

/// The value of the `i`-th pair of a `get-value` answer `((t v) ...)`.
pub fn value_of(answer: &Sexp, i: usize) -> Option<Bits> {
    match answer {
        Sexp::List(pairs) => match pairs.get(i)? {
            Sexp::List(pv) if pv.len() == 2 => pv[1].bits(),
            _ => None,
        },
        Sexp::Atom(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_answers() {
        let s = parse_sexps("sat\n((x #x0f) (y #b101) (z (_ bv7 8)) (b true))").unwrap();
        assert_eq!(s[0], Sexp::Atom("sat".into()));
        assert_eq!(value_of(&s[1], 0).unwrap().low_u64(), 15);
        let y = value_of(&s[1], 1).unwrap();
        assert_eq!((y.width(), y.low_u64()), (3, 5));
        assert_eq!(value_of(&s[1], 2).unwrap().low_u64(), 7);
        assert_eq!(value_of(&s[1], 3).unwrap().low_u64(), 1);
        assert!(parse_sexps("((a)").is_err());
    }
}
