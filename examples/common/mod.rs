//! Set-up shared by the dispatch examples and `benches/dispatch.rs` (which includes this file):
//! the spec, and launches of the kernels in the gfx1100 fixture code object
//! (`tests/dispatch/fixture-gfx1100.hsaco`).

// Each example and bench uses part of this file.
#![allow(dead_code)]

use amdpcode::dispatch::{Code, Launch, Unmapped};
use amdpcode::spec::{self, Locate, Spec};

/// Loads the spec wheel, found as the CLI finds it.
pub fn load_spec() -> Spec {
    let path = spec::find_wheel(&Locate::default()).expect("the spec wheel");
    Spec::load(&path).expect("loading the spec")
}

/// The kernel arguments of a kernel whose parameters are the pointers `ptrs`.
pub fn pointer_kernarg(ptrs: &[u64]) -> Vec<u8> {
    ptrs.iter().flat_map(|p| p.to_le_bytes()).collect()
}

/// A one-dimensional launch of the fixture's `kernel`: `groups` groups of `block` work-items,
/// with `memory` mapped and unmapped accesses faulting.
pub fn fixture_launch(
    kernel: &str,
    kernarg: Vec<u8>,
    groups: u32,
    block: u32,
    memory: Vec<(u64, Vec<u8>)>,
) -> Launch {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/dispatch/fixture-gfx1100.hsaco"
    );
    let bytes = std::fs::read(path).expect("the fixture code object");
    object_launch(
        bytes,
        path,
        kernel,
        kernarg,
        [groups, 1, 1],
        [block, 1, 1],
        memory,
    )
}

/// A launch of `kernel` of the code object `bytes` (read from `path`), with `memory` mapped
/// and unmapped accesses faulting; the other settings are the code object's.
pub fn object_launch(
    bytes: Vec<u8>,
    path: &str,
    kernel: &str,
    kernarg: Vec<u8>,
    grid: [u32; 3],
    block: [u32; 3],
    memory: Vec<(u64, Vec<u8>)>,
) -> Launch {
    Launch {
        arch: None,
        code: Code::Object {
            bytes,
            path: path.into(),
            kernel: kernel.into(),
            kernarg,
        },
        grid,
        block,
        grid_items: None,
        wave: None,
        lds_bytes: None,
        scratch_bytes: None,
        memory,
        unmapped: Unmapped::Fault,
        step_budget: None,
    }
}
