//! amdpcode executes the pseudocode of AMD GPU instruction sets (RDNA 3, RDNA 4, CDNA 4)
//! as AMD wrote it.
//!
//! The data flows one way:
//! spec wheel → [`spec`] (instruction database) → [`syntax`] (lexer, parser, AST with spans)
//! → [`ir`] (type checking and lowering to a typed IR) → interpreter / JIT.
#![warn(missing_docs)]

pub mod builtins;
pub mod diag;
pub mod dispatch;
pub mod doc;
pub mod embed;
pub mod exec;
pub mod float;
pub mod frontend;
pub mod fuzz;
pub mod inputs;
pub mod interp;
pub mod ir;
pub mod isa;
pub mod jit;
pub mod machine;
pub mod sanitizer;
pub mod smt;
pub mod sniff;
pub mod sparse;
pub mod spec;
pub mod syntax;
pub mod value;
pub mod wave;
