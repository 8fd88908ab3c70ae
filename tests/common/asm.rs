//! Hand-written RDNA 3 programs as bytes, for tests that place code in a launch's memory.

use amdpcode::isa::Isa;
use amdpcode::spec::Arch;

/// The machine code of `text` (llvm-mc syntax, RDNA 3).
pub fn assemble(text: &str) -> Vec<u8> {
    let isa = Isa::new(super::spec().db(Arch::Rdna3));
    let lines = isa
        .assemble_lines(text)
        .unwrap_or_else(|e| panic!("line {}: {}: {text}", e.line, e.message));
    lines.into_iter().flat_map(|a| a.bytes).collect()
}

/// The byte offset of the line starting with `marker` in `text`.
pub fn offset_of(text: &str, marker: &str) -> u64 {
    let at = text.find(marker).unwrap_or_else(|| panic!("no {marker}"));
    assemble(&text[..at]).len() as u64
}

/// The one 32-bit word a single-word instruction assembles to.
pub fn word(text: &str) -> u32 {
    let b = assemble(text);
    assert_eq!(b.len(), 4, "{text}");
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}
