//! Tests for the lexer and parser.

use super::*;

/// Splits an extracted corpus file into `(name, text)` entries at its `### ` lines.
fn corpus_entries(text: &str) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("### ") {
            entries.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = entries.last_mut() {
            body.push_str(line);
        }
    }
    entries
}

/// Temporary scaffolding: parses the corpus extracted to `/tmp/{rdna3,rdna4,cdna}.txt` when
/// present and reports the parse rate; skips when the files are absent.
#[test]
fn corpus_parse_rate() {
    let mut rates = Vec::new();
    for arch in ["rdna3", "rdna4", "cdna"] {
        let path = format!("/tmp/{arch}.txt");
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("skipping {arch}: {path} not found");
            continue;
        };
        let entries = corpus_entries(&text);
        let mut failed = Vec::new();
        for (name, body) in &entries {
            if let Err(error) = parse(body) {
                let line = body[..error.span.start as usize].matches('\n').count() + 1;
                failed.push(format!("{name}: line {line}: {}", error.message));
            }
        }
        let ok = entries.len() - failed.len();
        eprintln!("{arch}: {ok}/{} parsed", entries.len());
        for failure in &failed {
            eprintln!("  FAIL {failure}");
        }
        rates.push((arch, ok, entries.len()));
    }
    for (arch, ok, total) in rates {
        assert!(ok * 100 >= total * 98, "{arch}: only {ok} of {total} entries parse");
    }
}
