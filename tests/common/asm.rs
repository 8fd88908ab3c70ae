//! Hand-written RDNA 3 programs as bytes, for tests that place code in a launch's memory, and
//! the round trip of encoding tests (assemble, compare with llvm-mc-22's bytes, decode, print).

use std::process::Command;

use amdpcode::isa::Isa;
use amdpcode::spec::{self, Arch};

/// The assembler of `arch` from the wheel already on this machine, or `None` (the test
/// skips, saying so) when there is none.
pub fn isa(arch: Arch) -> Option<Isa> {
    let Ok(wheel) = spec::find_wheel(&spec::Locate {
        explicit: None,
        offline: true,
    }) else {
        eprintln!("skipped: spec wheel not found");
        return None;
    };
    Some(Isa::from_wheel(&wheel, arch).expect("wheel loads"))
}

/// Assembles `text`, compares with `bytes`, decodes `bytes` and prints `text` back.
pub fn round_trip(isa: &Isa, text: &str, bytes: &[u8]) {
    assert_eq!(isa.assemble(text).expect(text), bytes, "{text}");
    let (inst, len) = isa.decode(bytes).expect(text);
    assert_eq!(len, bytes.len(), "{text}");
    assert_eq!(isa.print(&inst), text);
}

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

/// The llvm-mc of LLVM 22 (Debian's `llvm-22`), if this machine has it.
pub fn llvm_mc() -> Option<String> {
    ["llvm-mc-22", "/usr/lib/llvm-22/bin/llvm-mc"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_string)
}
