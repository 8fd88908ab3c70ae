//! Loops that spell out an operation the machine has: a loop counting the set bits of a value
//! one bit per iteration (`for i in 0 : 63 do tmp += S0.u64[i] ? 1 : 0 endfor`, AMD's
//! `S_BCNT1_*`) becomes one `CountBits` of the bits the loop visits.

use super::super::builtins::{Builtin, Func};
use super::super::{CmpOp, Conv, Expr, ExprKind, LocalId, Place, Stmt, Ty};
use crate::value::Bits;

/// The statements replacing `for var in a ..= b do body endfor` when the body counts the set
/// bits `a..=b` of a value into a local; `None` when it does something else. `a <= b` are the
/// bounds' values (non-negative).
pub(super) fn bit_count_loop(
    var: LocalId,
    (a, b): (u64, u64),
    end: &Expr,
    body: &[Stmt],
    span: crate::syntax::ast::Span,
) -> Option<Vec<Stmt>> {
    let [Stmt::Assign {
        place: Place::Local(acc),
        value,
        ..
    }] = body
    else {
        return None;
    };
    if *acc == var || !value.ty.is_int() || b >= u32::MAX as u64 {
        return None;
    }
    // acc = acc + <one bit of x at var, as 0 or 1>
    let ExprKind::Binary {
        op: super::super::BinOp::Add,
        lhs,
        rhs,
    } = &value.kind
    else {
        return None;
    };
    if !matches!(lhs.kind, ExprKind::Local(l) if l == *acc) {
        return None;
    }
    let x = counted_bit(rhs, var)?;
    if mentions(x, var) || mentions(x, *acc) || !is_plain(x) {
        return None;
    }
    let n = (b - a + 1) as u32;
    let bits_ty = x.ty.with_width(n);
    let slice = Expr {
        ty: bits_ty,
        kind: ExprKind::Slice {
            arg: Box::new(x.clone()),
            lo: Box::new(Expr {
                ty: Ty::U(32),
                kind: ExprKind::Const(Bits::from_u64(32, a)),
                span,
            }),
            width: n,
            reversed: false,
        },
        span,
    };
    let count = Expr {
        ty: Ty::U(32),
        kind: ExprKind::Call {
            builtin: Builtin {
                func: Func::CountBits,
                ty: bits_ty,
                aux: bits_ty,
            },
            args: vec![slice],
        },
        span,
    };
    // Adding the count once wraps like adding 1 that many times.
    let count = Expr {
        ty: value.ty,
        kind: ExprKind::Convert {
            conv: Conv::Resize,
            arg: Box::new(count),
        },
        span,
    };
    Some(vec![
        Stmt::Assign {
            place: Place::Local(*acc),
            value: Expr {
                ty: value.ty,
                kind: ExprKind::Binary {
                    op: super::super::BinOp::Add,
                    lhs: lhs.clone(),
                    rhs: Box::new(count),
                },
                span,
            },
            span,
        },
        // The variable ends at `end`, as after the last iteration.
        Stmt::Assign {
            place: Place::Local(var),
            value: end.clone(),
            span,
        },
    ])
}

/// `x` when `e` is bit `var` of `x` as 0 or 1: `x[var] ? 1 : 0` in one of the forms the
/// front end produces (`x[var] == 1`, `x[var] != 0`, a bool test, or the bit widened).
fn counted_bit(e: &Expr, var: LocalId) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } if then.as_const_u64() == Some(1) && otherwise.as_const_u64() == Some(0) => {
            bit_test(cond, var)
        }
        ExprKind::Convert {
            conv: Conv::Resize | Conv::Bitcast,
            arg,
        } if !arg.ty.is_signed() => bit_of(arg, var),
        _ => None,
    }
}

/// `x` when `c` is true exactly when bit `var` of `x` is set.
fn bit_test(c: &Expr, var: LocalId) -> Option<&Expr> {
    match &c.kind {
        ExprKind::Cmp { op, lhs, rhs } => {
            let want = match op {
                CmpOp::Eq => 1,
                CmpOp::Ne => 0,
                _ => return None,
            };
            (rhs.as_const_u64() == Some(want))
                .then(|| bit_of(lhs, var))
                .flatten()
        }
        ExprKind::Convert {
            conv: Conv::ToBool,
            arg,
        } => bit_of(arg, var),
        _ => None,
    }
}

/// `x` when `e` is the one-bit slice `x[var +: 1]`.
fn bit_of(e: &Expr, var: LocalId) -> Option<&Expr> {
    let ExprKind::Slice {
        arg, lo, width: 1, ..
    } = &e.kind
    else {
        return None;
    };
    if !arg.ty.is_int() || !is_var(lo, var) {
        return None;
    }
    Some(arg)
}

/// Whether `e` is the loop variable, possibly re-typed (bounds are small and non-negative,
/// so a resize or bitcast keeps the value).
fn is_var(e: &Expr, var: LocalId) -> bool {
    match &e.kind {
        ExprKind::Local(l) => *l == var,
        ExprKind::Convert {
            conv: Conv::Resize | Conv::Bitcast,
            arg,
        } => arg.ty.width() >= 32 && e.ty.width() >= 32 && is_var(arg, var),
        _ => false,
    }
}

/// Whether `e` reads the local `l`.
fn mentions(e: &Expr, l: LocalId) -> bool {
    let mut found = matches!(e.kind, ExprKind::Local(x) if x == l)
        || matches!(&e.kind, ExprKind::Elem { local, .. } if *local == l);
    let _ = super::map_children(e, &mut |x| {
        found |= mentions(x, l);
        x.clone()
    });
    found
}

/// Whether evaluating `e` once gives what evaluating it on every iteration would: no memory
/// reads and no built-in calls, only registers, locals, constants and operators.
fn is_plain(e: &Expr) -> bool {
    if matches!(e.kind, ExprKind::Load { .. } | ExprKind::Call { .. }) {
        return false;
    }
    let mut plain = true;
    let _ = super::map_children(e, &mut |x| {
        plain &= is_plain(x);
        x.clone()
    });
    plain
}

#[cfg(test)]
mod tests {
    use crate::exec::{self, Machine, Prepared};
    use crate::interp::RegValue;
    use crate::ir::{ExprKind, Stmt};
    use crate::value::Bits;

    fn compile(text: &str) -> crate::ir::Function {
        crate::frontend::compile_text("test", "TEXT", text, &crate::ir::OperandWidths::uniform(64))
            .expect("compiles")
            .function
    }

    fn has_loop(f: &crate::ir::Function) -> bool {
        f.body.iter().any(|s| matches!(s, Stmt::For { .. }))
    }

    fn calls(s: &Stmt) -> bool {
        let Stmt::Assign { value, .. } = s else {
            return false;
        };
        fn any(e: &crate::ir::Expr) -> bool {
            let mut f = matches!(e.kind, ExprKind::Call { .. });
            let _ = super::super::map_children(e, &mut |x| {
                f |= any(x);
                x.clone()
            });
            f
        }
        any(value)
    }

    fn run(f: &crate::ir::Function, s0: u64, d0: u64) -> u64 {
        let p = Prepared::new(None, "SOP1", f.clone(), None);
        let mut m = Machine::new(32);
        m.values
            .insert("S0".into(), RegValue::Uniform(Bits::from_u64(64, s0)));
        m.values
            .insert("D0".into(), RegValue::Uniform(Bits::from_u64(64, d0)));
        let out = exec::run_interp(&p, &mut m).expect("runs");
        match &out.values.iter().find(|(n, _)| n == "D0").expect("D0").1 {
            RegValue::Uniform(b) => b.low_u64(),
            RegValue::Lanes(l) => l[0].low_u64(),
        }
    }

    #[test]
    fn bit_counting_loops_become_one_count() {
        let texts = [
            // AMD's S_BCNT1_I32_B64 form.
            "tmp = 0; for i in 0 : 63 do tmp += S0.u64[i] == 1'1U ? 1 : 0 endfor; D0.i32 = tmp",
            "tmp = 0; for i in 0 : 31 do tmp += S0.u32[i] != 1'0U ? 1 : 0 endfor; D0.i32 = tmp",
            // A partial range into an accumulator that starts from D0, and a narrow one
            // that wraps.
            "declare t : 64'U; t = D0.u64; for i in 3 : 40 do t += S0.u64[i] ? 1ULL : 0ULL endfor; D0.u64 = t",
            "declare t : 4'U; t = 4'0U; for i in 0 : 63 do t += S0.u64[i] ? 4'1U : 4'0U endfor; D0.u64 = 64'U(t)",
        ];
        for text in texts {
            let f = compile(text);
            let o = crate::ir::opt::optimize(&f);
            assert!(!has_loop(&o), "{text}: loop left");
            assert!(o.body.iter().any(calls), "{text}: no count");
            for (s0, d0) in [
                (0, 0),
                (u64::MAX, 5),
                (0x8000_0000_0000_0001, 1 << 40),
                (0x0123_4567_89ab_cdef, 0),
                (0xffff_0000_0000_fff8, 77),
            ] {
                assert_eq!(run(&o, s0, d0), run(&f, s0, d0), "{text} on {s0:#x}, {d0}");
            }
        }
        assert_eq!(
            run(&crate::ir::opt::optimize(&compile(texts[3])), u64::MAX, 0),
            0
        );
        assert_eq!(
            run(&crate::ir::opt::optimize(&compile(texts[2])), u64::MAX, 2),
            40
        );
    }

    #[test]
    fn other_loops_are_left_alone() {
        for text in [
            // Counts zeros, not ones.
            "tmp = 0; for i in 0 : 63 do tmp += S0.u64[i] == 1'1U ? 0 : 1 endfor; D0.i32 = tmp",
            // The counted value depends on the accumulator.
            "tmp = 0; for i in 0 : 63 do tmp += tmp[i] == 1'1U ? 1 : 0 endfor; D0.i32 = tmp",
            // Two statements.
            "tmp = 0; for i in 0 : 63 do tmp += S0.u64[i] ? 1 : 0; D0.u64 = 1ULL endfor; D0.i32 = tmp",
        ] {
            let o = crate::ir::opt::optimize(&compile(text));
            assert!(!o.body.iter().any(calls), "{text}: rewritten");
        }
    }
}
