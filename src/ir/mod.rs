//! The typed IR: what both the interpreter and the JIT execute.
//!
//! One [`Function`] per pseudocode entry. Control flow stays structured (if / for / while /
//! break / continue / return), as in the source, so both backends can walk it directly.
//! Expressions are trees in which every node carries its [`Ty`]; all implicit conversions of
//! the source language are explicit [`ExprKind::Convert`] nodes. State the instruction touches
//! (operands such as `S0` and `D0`, wave registers such as `SCC`, `VCC`, `EXEC`, mode bits)
//! is listed once in [`Function::regs`] and referenced by [`RegId`].

pub mod builtins;
mod lower;
mod names;
pub mod opt;
mod print;
pub mod types;
mod verify;

use crate::syntax::ast::Span;
use crate::value::Bits;

pub use builtins::Builtin;
pub use lower::{lower_program, LowerError, LowerErrorKind, OperandWidths};
pub use print::print_function;
pub use types::{FloatTy, Ty};
pub use verify::{verify, VerifyError};

/// Index of an entry of [`Function::regs`]; prints as `%name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// Index of an entry of [`Function::locals`]; prints as `$name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// What a state register is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegRole {
    /// An instruction operand (`S0`, `D0`, `SIMM16`, `ADDR`, ...): its width comes from the
    /// instruction's operand table, widened to the widest view the text takes of it.
    Operand,
    /// Wave state (`SCC`, `VCC`, `EXEC`, `M0`, `PC`, ...).
    Wave,
    /// Per-lane values provided by the executor (`laneId`).
    Lane,
    /// Mode and status fields (`WAVE_MODE.IEEE`, `ROUND_MODE`, ...), and wave-size flags.
    Mode,
}

/// A state register the function reads or writes.
#[derive(Clone, Debug, PartialEq)]
pub struct RegInfo {
    /// The name as the pseudocode writes it.
    pub name: String,
    /// The storage width in bits.
    pub width: u32,
    /// What it is.
    pub role: RegRole,
    /// Whether the function reads it.
    pub read: bool,
    /// Whether the function writes it.
    pub written: bool,
}

/// A local variable.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalInfo {
    /// The source name (lambda parameters and temporaries get unique names).
    pub name: String,
    /// The type of the variable, or of each element for arrays.
    pub ty: Ty,
    /// The length, for arrays.
    pub len: Option<u32>,
}

/// Memory spaces reachable from the pseudocode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `MEM[addr]`: the memory the instruction's encoding addresses (global, LDS, scratch).
    Mem,
    /// `VGPR[lane][reg]`: the vector register file.
    Vgpr,
    /// `SGPR[reg]`: the scalar register file.
    Sgpr,
    /// `HW_REGISTERS[id]`: the hardware registers `s_getreg`/`s_setreg` address.
    HwReg,
}

/// A typed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The type of the value.
    pub ty: Ty,
    /// What computes it.
    pub kind: ExprKind,
    /// The source text it came from.
    pub span: Span,
}

/// Unary operators of the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// Two's-complement or float negation.
    Neg,
    /// Bitwise complement.
    BitNot,
    /// Boolean not.
    Not,
}

/// Binary operators of the IR. Both operands have the result type except for shifts (the
/// amount is any integer) and `Pow` on floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// Wrapping or float addition.
    Add,
    /// Wrapping or float subtraction.
    Sub,
    /// Wrapping or float multiplication.
    Mul,
    /// Truncating integer division (by zero gives all ones) or float division.
    Div,
    /// Integer remainder (by zero gives the dividend).
    Rem,
    /// Float power.
    Pow,
    /// Shift left; amounts at or beyond the width give zero.
    Shl,
    /// Shift right, arithmetic for signed types; amounts beyond the width saturate.
    Shr,
    /// Bitwise and.
    BitAnd,
    /// Bitwise or.
    BitOr,
    /// Bitwise xor.
    BitXor,
    /// Boolean and (short-circuit).
    And,
    /// Boolean or (short-circuit).
    Or,
}

/// Comparison operators; operands share one type, the result is `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=` (and `<>` on integers); on floats unordered: true when either is NaN
    Ne,
    /// `<>` on floats: ordered less-or-greater, false when either is NaN
    Lg,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// How a [`ExprKind::Convert`] changes its operand into the node's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    /// Integer to integer: truncate, or extend (sign-extend when the source is signed).
    Resize,
    /// Same bits, another type (bits to float and back, widths equal after resizing).
    Bitcast,
    /// Integer value to float, rounding per the current mode.
    IntToFloat,
    /// Float value to integer, truncating toward zero, saturating, NaN to 0.
    FloatToInt,
    /// Float to another float format, rounding per the current mode.
    FloatToFloat,
    /// Boolean to 0 or 1 (or 0.0 / 1.0).
    FromBool,
    /// Non-zero test (integers) or non-zero test of the bits (floats).
    ToBool,
}

/// The computation of an [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant.
    Const(Bits),
    /// A state register.
    Reg(RegId),
    /// A scalar local.
    Local(LocalId),
    /// An element of an array local.
    Elem {
        /// The array.
        local: LocalId,
        /// The element index.
        index: Box<Expr>,
    },
    /// A unary operation.
    Unary {
        /// The operator.
        op: UnOp,
        /// The operand.
        arg: Box<Expr>,
    },
    /// A binary operation.
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// A comparison.
    Cmp {
        /// The operator.
        op: CmpOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`, evaluating only the chosen arm.
    Select {
        /// The condition (`Bool`).
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
    },
    /// A conversion to the node's type.
    Convert {
        /// How.
        conv: Conv,
        /// The operand.
        arg: Box<Expr>,
    },
    /// `width` bits of `arg` starting at bit `lo` (bits past the top read as zero); reversed
    /// when `reversed` (bit `lo` becomes the top bit).
    Slice {
        /// The value sliced (an integer).
        arg: Box<Expr>,
        /// The lowest bit index.
        lo: Box<Expr>,
        /// How many bits (the node's width).
        width: u32,
        /// Whether the slice reverses bit order (`x[0 : 31]`).
        reversed: bool,
    },
    /// Concatenation, most significant part first.
    Concat(Vec<Expr>),
    /// A built-in function.
    Call {
        /// Which.
        builtin: Builtin,
        /// The arguments, already converted to the parameter types.
        args: Vec<Expr>,
    },
    /// A load of the node's width from a memory space.
    Load {
        /// Which space.
        space: Space,
        /// Byte address (`Mem`) or register index (`Vgpr`, `Sgpr`).
        addr: Box<Expr>,
        /// The lane, for `Vgpr`.
        lane: Option<Box<Expr>>,
    },
}

/// Where an assignment stores.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A whole state register (the value has the register's width).
    Reg(RegId),
    /// A scalar local.
    Local(LocalId),
    /// An array element.
    Elem {
        /// The array.
        local: LocalId,
        /// The index.
        index: Expr,
    },
    /// Bits `lo .. lo + width` of another place (reversed for `x[0 : 31] = ...`).
    Slice {
        /// The place written into.
        base: Box<Place>,
        /// The lowest bit index.
        lo: Expr,
        /// How many bits.
        width: u32,
        /// Whether bit order is reversed.
        reversed: bool,
    },
    /// A memory store.
    Store {
        /// The space.
        space: Space,
        /// Address or register index.
        addr: Expr,
        /// Lane, for `Vgpr`.
        lane: Option<Expr>,
        /// How many bits are stored.
        width: u32,
    },
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Store `value` (whose width equals the place's) into `place`.
    Assign {
        /// Where.
        place: Place,
        /// What.
        value: Expr,
        /// Source text.
        span: Span,
    },
    /// Store the parts of `value` into several places, most significant first
    /// (`{ a, b } = x`).
    AssignConcat {
        /// The places and their widths, most significant first.
        places: Vec<(Place, u32)>,
        /// The value (its width is the sum).
        value: Expr,
        /// Source text.
        span: Span,
    },
    /// Conditional.
    If {
        /// The condition (`Bool`).
        cond: Expr,
        /// Taken branch.
        then: Vec<Stmt>,
        /// Other branch.
        otherwise: Vec<Stmt>,
        /// Source text.
        span: Span,
    },
    /// `for var in start : end` with inclusive bounds. Runs no iteration when
    /// `start > end`; otherwise stops after the iteration with `var == end`, so a loop up to
    /// the largest value of the variable's type terminates.
    For {
        /// The loop variable.
        var: LocalId,
        /// First value (of the variable's type).
        start: Expr,
        /// Last value (of the variable's type).
        end: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// Source text.
        span: Span,
    },
    /// `while cond do body endwhile`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// Source text.
        span: Span,
    },
    /// Leave the innermost loop.
    Break {
        /// Source text.
        span: Span,
    },
    /// Next iteration of the innermost loop.
    Continue {
        /// Source text.
        span: Span,
    },
    /// Stop executing the entry.
    Return {
        /// Source text.
        span: Span,
    },
    /// A built-in called for its effect (`s_nop(0)`).
    Effect {
        /// Which.
        builtin: Builtin,
        /// The arguments.
        args: Vec<Expr>,
        /// Source text.
        span: Span,
    },
}

/// A lowered pseudocode entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The instruction (or file) name.
    pub name: String,
    /// Every state register it touches.
    pub regs: Vec<RegInfo>,
    /// Its locals, loop variables and lambda temporaries.
    pub locals: Vec<LocalInfo>,
    /// The statements.
    pub body: Vec<Stmt>,
}

impl Function {
    /// The register named `name`, if the function touches it.
    pub fn reg(&self, name: &str) -> Option<RegId> {
        self.regs
            .iter()
            .position(|r| r.name == name)
            .map(|i| RegId(i as u32))
    }
}

impl Expr {
    /// A constant of type `ty`.
    pub fn constant(ty: Ty, value: u64, span: Span) -> Expr {
        Expr {
            ty,
            kind: ExprKind::Const(Bits::from_u64(ty.width(), value)),
            span,
        }
    }

    /// The constant value, when this is a constant of at most 64 bits.
    pub fn as_const_u64(&self) -> Option<u64> {
        match &self.kind {
            ExprKind::Const(b) if b.width() <= 64 => Some(b.low_u64()),
            _ => None,
        }
    }
}
