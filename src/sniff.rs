//! What an input file holds, judged from its bytes rather than its name: the CLI reads every
//! input through here, so a file of the wrong kind is named for what it is
//! (`FILE: not an ELF code object (starts with "junk")`) instead of failing later with a
//! message about something else.

use std::path::Path;

/// The kind of content, from the first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// No bytes, or only white space.
    Empty,
    /// An ELF file (`\x7fELF`).
    Elf,
    /// Text whose first non-blank character opens a JSON object or array.
    Json,
    /// Other UTF-8 text without NUL bytes.
    Text,
    /// Anything else.
    Binary,
}

impl Content {
    /// What the content is, as a message says it ("an ELF file", "JSON text", ...).
    pub fn describe(self) -> &'static str {
        match self {
            Content::Empty => "an empty file",
            Content::Elf => "an ELF file",
            Content::Json => "JSON text",
            Content::Text => "text",
            Content::Binary => "binary data",
        }
    }
}

/// The kind of `bytes`.
pub fn content(bytes: &[u8]) -> Content {
    if bytes.starts_with(b"\x7fELF") {
        return Content::Elf;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Content::Binary;
    };
    if text.contains('\0') {
        return Content::Binary;
    }
    match text.trim_start().chars().next() {
        None => Content::Empty,
        Some('{' | '[') => Content::Json,
        Some(_) => Content::Text,
    }
}

/// How `bytes` start, for a message: `starts with "text"` for printable text (its first
/// line, up to 24 characters), `starts with bytes 7f 45 4c 46 ...` otherwise, `is empty`.
pub fn start(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "is empty".into();
    }
    let head = &bytes[..bytes.len().min(24)];
    let text = std::str::from_utf8(bytes)
        .ok()
        .map(|t| t.trim_start())
        .filter(|t| !t.is_empty());
    if let Some(t) = text {
        let line = t.lines().next().unwrap_or("");
        if !line.is_empty() && line.chars().all(|c| !c.is_control() || c == '\t') {
            let shown: String = line.chars().take(24).collect();
            let more = if shown.len() < line.len() { "..." } else { "" };
            return format!("starts with {shown:?}{more}");
        }
    }
    let hex: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let more = if bytes.len() > 8 { " ..." } else { "" };
    format!("starts with bytes {}{more}", hex.join(" "))
}

/// The message for a file that is not `what`: `FILE: not WHAT: an ELF file (starts with
/// ...)`, or `FILE: not WHAT (starts with ...)` for text and binary data.
pub fn not_a(name: &str, what: &str, bytes: &[u8]) -> String {
    format!("{name}: {}", why_not(what, bytes))
}

/// [`not_a`] without the file's name: `not WHAT (starts with ...)`.
pub fn why_not(what: &str, bytes: &[u8]) -> String {
    match content(bytes) {
        Content::Empty if bytes.is_empty() => format!("not {what}: the file is empty"),
        Content::Empty => format!("not {what}: the file holds only white space"),
        c @ (Content::Elf | Content::Json) => {
            format!("not {what}: {} ({})", c.describe(), start(bytes))
        }
        Content::Text | Content::Binary => format!("not {what} ({})", start(bytes)),
    }
}

/// The bytes of `path`, or a message naming it: a directory is `PATH: a directory, not
/// WHAT`, other errors `cannot read PATH: ...`.
///
/// # Errors
/// The message.
pub fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    if path.is_dir() {
        return Err(format!("{}: a directory, not {what}", path.display()));
    }
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The text of `path` when it is text (or JSON text): an empty file, an ELF file or binary
/// data is refused with [`not_a`]'s message, as [`read`]'s errors are. `empty_ok` accepts an
/// empty file.
///
/// # Errors
/// The message.
pub fn read_text(path: &Path, what: &str, empty_ok: bool) -> Result<String, String> {
    let bytes = read(path, what)?;
    text_of(bytes, &path.display().to_string(), what, empty_ok)
}

/// `bytes` (read from `name`) as text, refused as [`read_text`] refuses them.
///
/// # Errors
/// The message.
pub fn text_of(bytes: Vec<u8>, name: &str, what: &str, empty_ok: bool) -> Result<String, String> {
    match content(&bytes) {
        Content::Elf | Content::Binary => return Err(not_a(name, what, &bytes)),
        Content::Empty if !empty_ok => return Err(not_a(name, what, &bytes)),
        _ => {}
    }
    // `content` found UTF-8 for every kind but the two above.
    String::from_utf8(bytes).map_err(|e| not_a(name, what, e.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_the_first_bytes() {
        assert_eq!(content(b"\x7fELF\x02\x01"), Content::Elf);
        assert_eq!(content(b"  \n{\"a\": 1}"), Content::Json);
        assert_eq!(content(b"[1]"), Content::Json);
        assert_eq!(content(b"s_endpgm\n"), Content::Text);
        assert_eq!(content(b""), Content::Empty);
        assert_eq!(content(b" \n\t"), Content::Empty);
        assert_eq!(content(b"\xff\xfe\x00"), Content::Binary);
        assert_eq!(content(b"abc\0def"), Content::Binary);
    }

    #[test]
    fn start_shows_text_or_bytes() {
        assert_eq!(start(b"junk here\nmore"), "starts with \"junk here\"");
        assert_eq!(
            start(b"0123456789abcdefghijklmnopqrstuvwxyz"),
            "starts with \"0123456789abcdefghijklmn\"..."
        );
        assert_eq!(
            start(b"\x7fELF\x02\x01\x01\x00\x00\x00"),
            "starts with bytes 7f 45 4c 46 02 01 01 00 ..."
        );
        assert_eq!(start(b"\x00\x01"), "starts with bytes 00 01");
        assert_eq!(start(b""), "is empty");
    }

    #[test]
    fn not_a_names_what_the_file_is() {
        assert_eq!(
            not_a("k.hsaco", "an ELF code object", b"junk"),
            "k.hsaco: not an ELF code object (starts with \"junk\")"
        );
        assert_eq!(
            not_a("p.s", "assembly text", b"\x7fELF\x02"),
            "p.s: not assembly text: an ELF file (starts with bytes 7f 45 4c 46 02)"
        );
        assert_eq!(
            not_a("s.json", "a state JSON", b""),
            "s.json: not a state JSON: the file is empty"
        );
    }
}
