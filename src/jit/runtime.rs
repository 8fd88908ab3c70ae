//! The `extern "C"` helpers compiled kernels call for what is not emitted inline: built-ins,
//! soft-float operations (f16/bf16/fp8, non-default rounding), conversions, wide divisions and
//! memory accesses. Each helper runs the interpreter's own evaluation functions, so the JIT and
//! the interpreter agree bit for bit on everything routed here.
//!
//! Values cross the boundary as pairs of little-endian `u64` words (128 bits), with the width
//! of every argument and result fixed in the [`Helper`] descriptor.

use crate::builtins::{self, FpEnv};
use crate::interp::{self, Memory};
use crate::ir::{BinOp, Builtin, CmpOp, Conv, Space, Ty};
use crate::value::Bits;

/// What one helper id computes.
#[derive(Clone, Debug)]
pub enum Helper {
    /// A built-in with a value.
    Builtin {
        /// Which.
        builtin: Builtin,
        /// The argument types.
        args: Vec<Ty>,
        /// The result type.
        ret: Ty,
    },
    /// A built-in run for its effect.
    Effect {
        /// Which.
        builtin: Builtin,
        /// The argument types.
        args: Vec<Ty>,
    },
    /// A binary operator.
    Binary {
        /// The operator.
        op: BinOp,
        /// The operand and result type.
        ty: Ty,
    },
    /// A comparison.
    Compare {
        /// The operator.
        op: CmpOp,
        /// The operand type.
        ty: Ty,
    },
    /// A conversion.
    Convert {
        /// How.
        conv: Conv,
        /// From.
        from: Ty,
        /// To.
        to: Ty,
    },
    /// A memory load: args (lane, address) → value.
    Load {
        /// The space.
        space: Space,
        /// Bits loaded.
        width: u32,
    },
    /// A memory store: args (lane, address, value).
    Store {
        /// The space.
        space: Space,
        /// Bits stored.
        width: u32,
    },
    /// Sets the rounding mode from a `ROUND_MODE` value: args (mode).
    SetRound,
}

/// Status codes kernels return (0 is success).
pub mod status {
    /// Success.
    pub const OK: u32 = 0;
    /// The loop budget ran out.
    pub const BUDGET: u32 = 1;
    /// An array index out of range.
    pub const OUT_OF_RANGE: u32 = 2;
    /// A helper failed; the message is in the context.
    pub const HELPER: u32 = 3;
    /// A memory or register-file access failed; the message is in the context.
    pub const MEMORY: u32 = 4;
}

/// What a running kernel's helpers need.
pub struct Ctx<'a> {
    /// The memories.
    pub memory: &'a mut dyn Memory,
    /// The float environment.
    pub fp: FpEnv,
    /// The helper table of the kernel.
    pub helpers: &'a [Helper],
    /// The message of the last failing helper.
    pub error: Option<String>,
}

fn read(words: &[u64], ty: Ty) -> Bits {
    Bits::from_words(ty.width(), words)
}

fn write(out: &mut [u64], b: &Bits) {
    let w = b.words();
    out[0] = w[0];
    out[1] = w.get(1).copied().unwrap_or(0);
}

fn round_of(mode: u64) -> crate::float::Round {
    use crate::float::Round;
    match mode & 3 {
        0 => Round::NearestEven,
        1 => Round::Up,
        2 => Round::Down,
        _ => Round::TowardZero,
    }
}

/// The one entry point of all helpers.
///
/// # Safety
/// `ctx` must point to a live [`Ctx`], `args` to `2 * n` readable words for the helper's `n`
/// arguments, and `out` to two writable words; compiled kernels guarantee this.
pub unsafe extern "C" fn amdp_helper(
    ctx: *mut Ctx<'_>,
    id: u32,
    args: *const u64,
    out: *mut u64,
) -> u32 {
    // SAFETY: the kernel passes the context it was given by `abi::call`, which outlives it.
    let ctx = unsafe { &mut *ctx };
    let helpers = ctx.helpers;
    let Some(helper) = helpers.get(id as usize) else {
        ctx.error = Some(format!("bug: helper {id} out of range"));
        return status::HELPER;
    };
    let n_args = match helper {
        Helper::Builtin { args, .. } | Helper::Effect { args, .. } => args.len(),
        Helper::Binary { .. } | Helper::Compare { .. } => 2,
        Helper::Convert { .. } | Helper::SetRound => 1,
        Helper::Load { .. } => 2,
        Helper::Store { .. } => 3,
    };
    // SAFETY: the kernel stores 2 words per argument in a stack slot at `args`.
    let words = unsafe { std::slice::from_raw_parts(args, 2 * n_args) };
    // SAFETY: the kernel passes a two-word stack slot for the result.
    let out = unsafe { std::slice::from_raw_parts_mut(out, 2) };
    let arg = |i: usize| &words[2 * i..2 * i + 2];
    let memory = matches!(helper, Helper::Load { .. } | Helper::Store { .. });
    let result: Result<Option<Bits>, String> = match *helper {
        Helper::Builtin {
            ref builtin,
            ref args,
            ret,
        } => {
            let vals: Vec<Bits> = args
                .iter()
                .enumerate()
                .map(|(i, t)| read(arg(i), *t))
                .collect();
            builtins::call(builtin, &vals, ret, &mut ctx.fp).map(Some)
        }
        Helper::Effect {
            ref builtin,
            ref args,
        } => {
            let vals: Vec<Bits> = args
                .iter()
                .enumerate()
                .map(|(i, t)| read(arg(i), *t))
                .collect();
            builtins::effect(builtin, &vals).map(|()| None)
        }
        Helper::Binary { op, ty } => {
            let (a, b) = (read(arg(0), ty), read(arg(1), ty));
            let b = if matches!(op, BinOp::Shl | BinOp::Shr) {
                Bits::from_words(128, arg(1))
            } else {
                b
            };
            interp::eval_binary(op, ty, &a, &b, &mut ctx.fp)
                .map(Some)
                .map_err(|e| e.to_string())
        }
        Helper::Compare { op, ty } => {
            let (a, b) = (read(arg(0), ty), read(arg(1), ty));
            let r = interp::eval_compare(op, ty, &a, &b, &mut ctx.fp);
            Ok(Some(Bits::from_u64(1, r as u64)))
        }
        Helper::Convert { conv, from, to } => {
            let a = read(arg(0), from);
            Ok(Some(interp::eval_convert(conv, from, to, &a, &mut ctx.fp)))
        }
        Helper::Load { space, width } => {
            let (lane, addr) = (arg(0)[0] as u32, arg(1)[0]);
            ctx.memory.load(space, lane, addr, width).map(Some)
        }
        Helper::Store { space, width } => {
            let (lane, addr) = (arg(0)[0] as u32, arg(1)[0]);
            let v = Bits::from_words(width, arg(2));
            ctx.memory.store(space, lane, addr, &v).map(|()| None)
        }
        Helper::SetRound => {
            ctx.fp.round = round_of(arg(0)[0]);
            Ok(None)
        }
    };
    match result {
        Ok(Some(b)) => {
            write(out, &b);
            status::OK
        }
        Ok(None) => status::OK,
        Err(m) => {
            ctx.error = Some(m);
            if memory {
                status::MEMORY
            } else {
                status::HELPER
            }
        }
    }
}
