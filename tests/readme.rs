//! The README's commands run as shown: every indented `$ ...` line of README.md is run with
//! bash in one scratch folder (in order, so later commands see the files earlier ones wrote),
//! with the built `amdpcode` first on PATH, and its standard output is compared with the lines
//! shown under it. A shown line `...` stands for any number of lines; a shown line ending in
//! `...` matches any line that starts with the rest. A command whose program is not installed
//! (clang-22, ld.lld-22) skips the rest of its block, except under `CI=true`, where it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$` command of the README with the output shown under it.
struct Step {
    /// The README line of the `$`.
    line: usize,
    /// The command, with a heredoc's lines when it has one.
    command: String,
    /// The lines shown under it.
    expected: Vec<String>,
}

/// The README's indented blocks that hold `$` commands, as steps.
fn blocks(readme: &str) -> Vec<Vec<Step>> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut current: Vec<Step> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(text) = lines[i].strip_prefix("    ") else {
            if lines[i].trim().is_empty() && current.last().is_some() {
                // A blank line ends the output of a step, but not its block.
                i += 1;
                continue;
            }
            if !current.is_empty() {
                blocks.push(std::mem::take(&mut current));
            }
            i += 1;
            continue;
        };
        if let Some(command) = text.strip_prefix("$ ") {
            let mut command = command.to_string();
            let line = i + 1;
            // A heredoc (`<<'END'`) takes the lines up to its end marker.
            if let Some(pos) = command.find("<<'") {
                let marker = command[pos + 3..].trim_end_matches('\'').to_string();
                i += 1;
                while i < lines.len() {
                    let body = lines[i].strip_prefix("    ").unwrap_or(lines[i]);
                    command.push('\n');
                    command.push_str(body);
                    if body == marker {
                        break;
                    }
                    i += 1;
                }
            }
            current.push(Step {
                line,
                command,
                expected: Vec::new(),
            });
        } else if let Some(step) = current.last_mut() {
            step.expected.push(text.trim_end().to_string());
        }
        i += 1;
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    blocks
}

/// Whether `actual` has the lines `expected` shows (with `...` as described above).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => match actual.split_first() {
            None => false,
            Some((line, more)) => {
                let line = line.trim_end();
                let same = match first.strip_suffix("...") {
                    Some(prefix) => line.starts_with(prefix),
                    None => line == first,
                };
                same && matches(rest, more)
            }
        },
    }
}

fn installed(program: &str) -> bool {
    Command::new("bash")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating the scratch folder");
    dir
}

#[test]
fn readme_commands_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("reading README.md");
    let blocks = blocks(&readme);
    let steps: usize = blocks.iter().map(Vec::len).sum();
    assert!(
        steps >= 10,
        "README.md shows {steps} `$` commands; expected the recipes' ten or more"
    );

    // The wheel as the tests find it, so commands run in the scratch folder use the same one.
    let wheel = amdpcode::spec::find_wheel(&amdpcode::spec::Locate::default())
        .expect("test setup: the spec wheel is needed");
    let bin_dir = Path::new(common::bin())
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = scratch();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let mut ran = 0;
    let mut failures = Vec::new();
    'blocks: for block in &blocks {
        for step in block {
            let program = step.command.split_whitespace().next().unwrap_or("");
            if program != "amdpcode" && !installed(program) {
                assert!(
                    !ci,
                    "README.md:{}: `{program}` is not installed (CI=true)",
                    step.line
                );
                eprintln!(
                    "skipped README.md:{}..: `{program}` is not installed",
                    step.line
                );
                continue 'blocks;
            }
            let out = Command::new("bash")
                .args(["-c", &step.command])
                .current_dir(&dir)
                .env("PATH", &path)
                .env("AMDPCODE_SPEC", &wheel)
                .env("NO_COLOR", "1")
                .output()
                .expect("running bash");
            ran += 1;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let actual: Vec<&str> = stdout.lines().collect();
            if !matches(&step.expected, &actual) {
                failures.push(format!(
                    "README.md:{}: `{}`\nexpected:\n{}\nprinted (exit {:?}):\n{}\nstderr:\n{}",
                    step.line,
                    step.command.lines().next().unwrap_or(""),
                    step.expected.join("\n"),
                    out.status.code(),
                    stdout,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 8, "only {ran} README commands ran");
}

#[test]
fn shown_output_matching_understands_ellipses() {
    let exp = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(matches(&exp(&["a", "...", "z"]), &["a", "b", "c", "z"]));
    assert!(matches(&exp(&["a", "..."]), &["a"]));
    assert!(matches(&exp(&["arg 2: [0, 3, ..."]), &["arg 2: [0, 3, 6]"]));
    assert!(!matches(&exp(&["a", "z"]), &["a", "b", "z"]));
    assert!(!matches(&exp(&["a"]), &["a", "b"]));
    assert!(!matches(&exp(&["arg 2: [1, ..."]), &["arg 2: [0, 3, 6]"]));
}
