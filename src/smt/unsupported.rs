//! The error of every translation: why a text (or a program) cannot be turned into terms.

/// Why a text (or a program) cannot be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl From<String> for Unsupported {
    fn from(m: String) -> Unsupported {
        Unsupported(m)
    }
}
