//! The abstract syntax tree of AMD's pseudocode, as the grammar builds it.
//!
//! The tree is untyped: names are not resolved and `x.u32` is a plain [`Expr::Field`] until
//! `ir::lower` decides whether it is a typed view or a register field. Every node carries the
//! byte [`Span`] of its text so later stages can point at it.

use std::fmt;

/// A byte range `start..end` in one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span as a `Range<usize>`, for diagnostics.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The letter of a sized type: `32'U`, `32'I`, `32'B`, `32'F`, `16'BF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeLetter {
    /// `U`: unsigned integer.
    U,
    /// `I`: signed (two's complement) integer.
    I,
    /// `B`: untyped bits.
    B,
    /// `F`: IEEE float (16, 32 or 64 bits).
    F,
    /// `BF`: bfloat16.
    BF,
}

/// A sized type as written: `6'U`, `64'F`, `16'BF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeSpec {
    /// The width in bits (1 to 1024 in the corpus).
    pub width: u32,
    /// The letter after the tick.
    pub letter: TypeLetter,
}

impl fmt::Display for TypeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = match self.letter {
            TypeLetter::U => "U",
            TypeLetter::I => "I",
            TypeLetter::B => "B",
            TypeLetter::F => "F",
            TypeLetter::BF => "BF",
        };
        write!(f, "{}'{}", self.width, letter)
    }
}

/// How an integer literal was written, which decides its type (see `semantics/LANGUAGE.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSuffix {
    /// A bare number such as `4` or `0xff`.
    None,
    /// `U`: 32-bit unsigned.
    U,
    /// `LL`: 64-bit signed.
    LL,
    /// `ULL`: 64-bit unsigned.
    ULL,
    /// A sized literal `6'60U`, `8'0xff`, `1'1U`, `3'0`: the width, and the letter if one follows
    /// (`None` for `3'0`, which is typed as bits).
    Sized(u32, Option<TypeLetter>),
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `~x`
    BitNot,
    /// `!x`
    Not,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `**`
    Pow,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<>`: ordered less-or-greater (false when a float operand is NaN)
    Lg,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinaryOp {
    /// The operator as the pseudocode writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Pow => "**",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lg => "<>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal; `value` holds its bits (sized literals may be up to 1024 bits wide,
    /// so wider ones keep the digits in `wide`).
    Int {
        /// The value when it fits in 128 bits.
        value: u128,
        /// Hex digits of a literal wider than 128 bits (most significant first), else empty.
        wide: String,
        /// How it was written.
        suffix: IntSuffix,
        /// Written in hex: an unsized hex literal cast to a float type is that float's bit
        /// pattern (`32'F(0xffc00000)`).
        hex: bool,
        /// Where.
        span: Span,
    },
    /// A float literal: `0.5`, `1.0F`, `16'1.0`, `+INF`, `-INF`, `NAN`.
    Float {
        /// The value.
        value: f64,
        /// `Some(32)` for `1.0F`, `Some(16)` for `16'1.0`, `None` for a bare `0.5`.
        width: Option<u32>,
        /// Where.
        span: Span,
    },
    /// A name: `S0`, `tmp`, `laneId`, `WAVE32`, `INF`.
    Ident {
        /// The name as written.
        name: String,
        /// Where.
        span: Span,
    },
    /// `base.field`: a typed view (`S0.u32`) or a field (`WAVE_MODE.IEEE`).
    Field {
        /// The value left of the dot.
        base: Box<Expr>,
        /// The name right of the dot.
        field: String,
        /// Where.
        span: Span,
    },
    /// `base[index]`: one bit, an array element, or a register-file row (`VGPR[lane]`).
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `base[hi : lo]`; when `hi < lo` the bits come out reversed.
    Slice {
        /// The sliced value.
        base: Box<Expr>,
        /// The first bound as written.
        hi: Box<Expr>,
        /// The second bound as written.
        lo: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `base[start +: width]`.
    PartSelect {
        /// The selected value.
        base: Box<Expr>,
        /// The lowest bit.
        start: Box<Expr>,
        /// How many bits (a constant).
        width: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `op operand`.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `lhs op rhs`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `cond ? then : otherwise`.
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `32'U(x)`: a conversion to a sized type.
    Cast {
        /// The target type.
        ty: TypeSpec,
        /// The converted value.
        operand: Box<Expr>,
        /// Where.
        span: Span,
    },
    /// `name(args...)`.
    Call {
        /// The called function.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
        /// Where.
        span: Span,
    },
    /// `{ a, b, ... }`: concatenation, most significant part first.
    Concat {
        /// The parts.
        parts: Vec<Expr>,
        /// Where.
        span: Span,
    },
}

impl Expr {
    /// The span of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            Expr::Int { span, .. }
            | Expr::Float { span, .. }
            | Expr::Ident { span, .. }
            | Expr::Field { span, .. }
            | Expr::Index { span, .. }
            | Expr::Slice { span, .. }
            | Expr::PartSelect { span, .. }
            | Expr::Unary { span, .. }
            | Expr::Binary { span, .. }
            | Expr::Ternary { span, .. }
            | Expr::Cast { span, .. }
            | Expr::Call { span, .. }
            | Expr::Concat { span, .. } => *span,
        }
    }
}

/// One `if`/`elsif` arm.
#[derive(Clone, Debug, PartialEq)]
pub struct CondArm {
    /// The condition.
    pub cond: Expr,
    /// The statements run when it holds.
    pub body: Vec<Stmt>,
}

/// One arm of a `case` statement.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseArm {
    /// The values that select this arm.
    pub values: Vec<Expr>,
    /// The statements run.
    pub body: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `target = value` or `target op= value`.
    Assign {
        /// The l-value: a name, view, slice, index, `MEM[..].b32`, or a concatenation.
        target: Expr,
        /// `Some(op)` for a compound assignment such as `+=`.
        op: Option<BinaryOp>,
        /// The assigned value.
        value: Expr,
        /// Where.
        span: Span,
    },
    /// `declare name : 32'U;` or `declare name : 32'B[64];`.
    Declare {
        /// The declared name.
        name: String,
        /// The element type.
        ty: TypeSpec,
        /// The array length, for arrays.
        len: Option<u32>,
        /// Where.
        span: Span,
    },
    /// `if c then ... elsif c then ... else ... endif`.
    If {
        /// The `if` arm then each `elsif` arm.
        arms: Vec<CondArm>,
        /// The `else` body.
        otherwise: Option<Vec<Stmt>>,
        /// Where.
        span: Span,
    },
    /// `for var in start : end do ... endfor` (both bounds inclusive).
    For {
        /// The loop variable.
        var: String,
        /// First value.
        start: Expr,
        /// Last value (inclusive).
        end: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// Where.
        span: Span,
    },
    /// `while cond do ... endwhile`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
        /// Where.
        span: Span,
    },
    /// `case scrutinee of value: ... default: ... endcase`.
    Case {
        /// The value switched on.
        scrutinee: Expr,
        /// The arms.
        arms: Vec<CaseArm>,
        /// The `default` body.
        default: Option<Vec<Stmt>>,
        /// Where.
        span: Span,
    },
    /// `break`.
    Break {
        /// Where.
        span: Span,
    },
    /// `continue`.
    Continue {
        /// Where.
        span: Span,
    },
    /// `return` or `return value`.
    Return {
        /// The returned value.
        value: Option<Expr>,
        /// Where.
        span: Span,
    },
    /// `NAME = lambda(a, b) (expr)`.
    Lambda {
        /// The lambda's name.
        name: String,
        /// Parameter names.
        params: Vec<String>,
        /// The body.
        body: Expr,
        /// Where.
        span: Span,
    },
    /// `NAME = lambda(a, b) ( statements )`: a lambda whose body is a statement list that
    /// ends in `return`s, such as `BYTE_PERMUTE` in `V_PERM_B32`. A body that is one expression
    /// is a [`Stmt::Lambda`] instead.
    LambdaBlock {
        /// The lambda's name.
        name: String,
        /// Parameter names.
        params: Vec<String>,
        /// The statements.
        body: Vec<Stmt>,
        /// Where.
        span: Span,
    },
    /// An expression evaluated for its effect, such as `s_nop(16'0U)`.
    Expr {
        /// The expression.
        expr: Expr,
        /// Where.
        span: Span,
    },
}

impl Stmt {
    /// The span of the whole statement.
    pub fn span(&self) -> Span {
        match self {
            Stmt::Assign { span, .. }
            | Stmt::Declare { span, .. }
            | Stmt::If { span, .. }
            | Stmt::For { span, .. }
            | Stmt::While { span, .. }
            | Stmt::Case { span, .. }
            | Stmt::Break { span }
            | Stmt::Continue { span }
            | Stmt::Return { span, .. }
            | Stmt::Lambda { span, .. }
            | Stmt::LambdaBlock { span, .. }
            | Stmt::Expr { span, .. } => *span,
        }
    }
}

/// A parsed pseudocode entry: its statements in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The top-level statements.
    pub body: Vec<Stmt>,
}
