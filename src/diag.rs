//! Diagnostics: the library builds them (message, source, span, notes); only the CLI renders
//! them, through codespan-reporting, with a caret under the offending text.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};

use crate::syntax::ast::Span;

/// An error about a piece of pseudocode text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The one-line message.
    pub message: String,
    /// The name shown for the text: a file path, or `rdna3:S_WQM_B64`.
    pub origin: String,
    /// The text the span points into.
    pub source: String,
    /// The offending bytes.
    pub span: Span,
    /// Extra lines of explanation.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// The 1-based line and column of the span's start.
    pub fn line_col(&self) -> (usize, usize) {
        line_col(&self.source, self.span.start as usize)
    }

    /// A one-line summary: `origin:line:col: message`.
    pub fn summary(&self) -> String {
        let (l, c) = self.line_col();
        format!("{}:{l}:{c}: {}", self.origin, self.message)
    }

    /// Renders the diagnostic with the source line and a caret, colourless unless `color`.
    pub fn render(&self, color: bool) -> String {
        let file = SimpleFile::new(self.origin.clone(), self.source.clone());
        let start = (self.span.start as usize).min(self.source.len());
        let end = (self.span.end as usize).clamp(start, self.source.len());
        let diag = CsDiagnostic::error()
            .with_message(&self.message)
            .with_labels(vec![Label::primary((), start..end)])
            .with_notes(self.notes.clone());
        let mut buf = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let config = term::Config::default();
        if term::emit(&mut buf, &config, &file, &diag).is_err() {
            return self.summary();
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `src`.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = src.get(..offset).unwrap_or(src);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab", 0), (1, 1));
        assert_eq!(line_col("ab", 99), (1, 3));
    }

    #[test]
    fn render_has_caret() {
        let d = Diagnostic {
            message: "unknown identifier `foo`".into(),
            origin: "t.pcode".into(),
            source: "D0 = 1\nD0 = foo\n".into(),
            span: Span::new(12, 15),
            notes: vec![],
        };
        let text = d.render(false);
        assert!(text.contains("t.pcode:2:6"), "{text}");
        assert!(text.contains("^^^"), "{text}");
        assert_eq!(d.summary(), "t.pcode:2:6: unknown identifier `foo`");
    }
}
