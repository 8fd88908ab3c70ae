//! Raw launches of hand-written programs for the dispatch tests: the hardware-vector harness's
//! launch shape, a run on a new dispatcher, and output bytes as words.

use amdpcode::dispatch::{Code, DispatchError, Dispatcher, Launch, Unmapped};
use amdpcode::isa::Isa;
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;

pub const OUT: u64 = 0x1_0000_0000;
pub const IN: u64 = 0x2_0000_0000;

pub fn assemble(arch: Arch, text: &str) -> Vec<u8> {
    let isa = Isa::new(super::spec().db(arch));
    let lines = isa
        .assemble_lines(text)
        .unwrap_or_else(|e| panic!("{arch:?}: line {}: {}", e.line, e.message));
    lines.into_iter().flat_map(|a| a.bytes).collect()
}

/// The launch of `../shared/hw-vectors/README.md`'s harness: the argument pointer as the
/// only user SGPR pair (s[0:1]), workgroup ids x, y and z enabled, 64 KiB of LDS
/// (RSRC2 LDS_SIZE = 128 blocks of 512 bytes), LLVM's default MODE.
pub fn raw_launch(arch: Arch, code: Vec<u8>, wave: u32, threads: u32, out_bytes: usize) -> Launch {
    let rsrc2 = 2 << 1 | 1 << 7 | 1 << 8 | 1 << 9 | 128 << 15;
    Launch {
        arch: Some(arch),
        code: Code::Raw {
            bytes: code,
            addr: 0x7000_0000,
            rsrc1: 0xc0 << 12 | 1 << 21 | 1 << 23,
            rsrc2,
            rsrc3: 0,
            user_sgprs: vec![OUT as u32, (OUT >> 32) as u32],
        },
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        grid_items: None,
        wave: Some(wave),
        lds_bytes: None,
        scratch_bytes: None,
        memory: vec![(OUT, vec![0; out_bytes])],
        unmapped: Unmapped::Fault,
        step_budget: None,
    }
}

pub fn run(
    arch: Arch,
    engine: Engine,
    l: &Launch,
) -> Result<amdpcode::dispatch::Outcome, DispatchError> {
    let mut d = Dispatcher::new(super::spec().db(arch), engine).expect("engine");
    d.run(l)
}

pub fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
