//! Equivalence checking: the third backend on the typed IR, beside the interpreter and the JIT.
//!
//! This module owns one thing: turning executions into SMT-LIB 2 formulas and asking a solver
//! about them. [`translate`] runs an instruction's optimised IR (errata applied, as the engines
//! run it) symbolically, producing bit-vector terms ([`term`]); floats stay bit-vectors and
//! only the rounded arithmetic goes through the FloatingPoint theory, with the interpreter's
//! NaN rules written out bit for bit ([`fp`]), so the IEEE formats are modelled exactly.
//! [`wave`] does the same for a whole program on one wavefront, reusing the wave layer's
//! decoding ([`crate::wave::Program`]); [`equiv`] compares two programs (random states
//! through the engines, then a proof or a counterexample replayed through the interpreter);
//! [`diff`] compares one instruction across two arches. The solver is an external `z3`
//! process ([`solver`]).
//!
//! The narrow interface others call: [`alu::translate_prepared`] (one instruction),
//! [`equiv::check`] (two programs), [`diff::spec_diff`] (two arches) and [`cli`] for the
//! command line.

pub mod alu;
mod builtins;
pub mod diff;
pub mod equiv;
pub mod fp;
mod lockstep;
pub mod memdiff;
pub mod memory;
pub mod narrow;
pub mod outputs;
mod query;
pub mod regfile;
pub mod solver;
pub mod term;
pub mod translate;
mod unsupported;
pub mod wave;

pub use solver::{Solver, SolverError};
pub use translate::Val;
pub use unsupported::Unsupported;
