//! Facts about the machine shared by every layer that executes, checks or reasons about
//! instructions (the wave layer, the SMT wave steps, the sanitizer, dispatch).
//!
//! [`facts`] decides once per database entry what kind an instruction is (its encoding
//! family, memory kind, atomicity, the counters it increments and waits on, ...); its builder
//! (`machine/build.rs`) is the only place that looks at instruction-name strings.

mod build;
pub mod facts;
mod spaces;

pub use facts::{
    Barrier, BitOp, Branch, ClampOp, Control, Counter, DsLanes, ElemType, Encoding, Event, Facts,
    Family, InstFacts, IntClamp, LaneOp, Matrix, MemKind, Native, OperandFacts, Refusal, Rtn, Wait,
};
pub use spaces::RegSpaces;
