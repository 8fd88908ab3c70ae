//! Shared test setup: the spec wheel, found as the CLI finds it (fetched into the user cache
//! when this machine has no copy).
#![allow(dead_code)]

use std::sync::OnceLock;

use amdpcode::spec::{self, Locate, Spec};

/// The spec, loaded once per test binary.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let path = spec::find_wheel(&Locate::default())
            .unwrap_or_else(|e| panic!("test setup: the spec wheel is needed: {e}"));
        Spec::load(&path).unwrap_or_else(|e| panic!("test setup: loading the spec: {e}"))
    })
}

/// The path of the built CLI.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_amdpcode")
}

pub mod asm;
pub mod engines;
pub mod kernels;
pub mod launch;
