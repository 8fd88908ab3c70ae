//! IR optimisations for code AMD wrote for clarity, not speed: constant folding, unrolling of
//! loops with constant bounds (`for i in 0 : 63`), folding of the constant slices and
//! part-selects that unrolling exposes, and removal of stores to locals nobody reads.
//!
//! The passes preserve meaning exactly: folding evaluates with the built-in library's
//! operators (`builtins::ops`, which the interpreter and the JIT use too), and only integer
//! operations are folded (float results may depend on the rounding mode at run time). The JIT
//! compiles optimised IR; tests check that optimised and unoptimised IR agree.

mod idiom;

use std::collections::HashSet;

use super::{Conv, Expr, ExprKind, Function, LocalId, Place, Stmt, Ty};
use crate::builtins::ops::{eval_binary, eval_compare, eval_convert};
use crate::builtins::FpEnv;
use crate::value::Bits;

/// Innermost loops with at most this many iterations, without memory accesses or built-in
/// calls, are unrolled...
pub const UNROLL_LIMIT: u64 = 64;
/// ...when the unrolled code stays within this many IR nodes.
pub const UNROLL_BUDGET: u64 = 1024;

fn has_loop(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::For { .. } | Stmt::While { .. } => true,
        Stmt::If {
            then, otherwise, ..
        } => has_loop(then) || has_loop(otherwise),
        _ => false,
    })
}

/// Whether statements access memory or registers by index, or call a built-in: work that
/// costs far more than the loop around it, so unrolling such a loop only grows the code.
fn has_heavy(body: &[Stmt]) -> bool {
    fn expr(e: &Expr) -> bool {
        if matches!(e.kind, ExprKind::Load { .. } | ExprKind::Call { .. }) {
            return true;
        }
        let mut heavy = false;
        let _ = map_children(e, &mut |x| {
            heavy |= expr(x);
            x.clone()
        });
        heavy
    }
    fn place(p: &Place) -> bool {
        match p {
            Place::Store { .. } => true,
            Place::Slice { base, .. } => place(base),
            _ => false,
        }
    }
    body.iter().any(|s| match s {
        Stmt::Assign {
            place: p, value, ..
        } => place(p) || expr(value),
        Stmt::AssignConcat { places, value, .. } => {
            places.iter().any(|(p, _)| place(p)) || expr(value)
        }
        Stmt::If {
            cond,
            then,
            otherwise,
            ..
        } => expr(cond) || has_heavy(then) || has_heavy(otherwise),
        Stmt::For { body, .. } | Stmt::While { body, .. } => has_heavy(body),
        Stmt::Effect { .. } => true,
        _ => false,
    })
}

/// The number of IR nodes in statements.
fn size(body: &[Stmt]) -> u64 {
    fn expr(e: &Expr) -> u64 {
        let mut n = 1;
        let _ = map_children(e, &mut |x| {
            n += expr(x);
            x.clone()
        });
        n
    }
    body.iter()
        .map(|s| match s {
            Stmt::Assign { value, .. } => 1 + expr(value),
            Stmt::AssignConcat { value, .. } => 1 + expr(value),
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => 1 + expr(cond) + size(then) + size(otherwise),
            Stmt::For { body, .. } | Stmt::While { body, .. } => 1 + size(body),
            Stmt::Effect { args, .. } => 1 + args.iter().map(expr).sum::<u64>(),
            _ => 1,
        })
        .sum()
}

/// Optimises a function (see the module docs).
pub fn optimize(f: &Function) -> Function {
    let mut out = f.clone();
    out.body = block(&f.body);
    remove_dead_stores(&mut out);
    out
}

fn block(body: &[Stmt]) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in body {
        stmt(s, &mut out);
    }
    out
}

fn has_loop_exit(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break { .. } | Stmt::Continue { .. } => true,
        Stmt::If {
            then, otherwise, ..
        } => has_loop_exit(then) || has_loop_exit(otherwise),
        _ => false,
    })
}

fn assigns(body: &[Stmt], var: LocalId) -> bool {
    fn place_is(p: &Place, var: LocalId) -> bool {
        match p {
            Place::Local(l) => *l == var,
            Place::Slice { base, .. } => place_is(base, var),
            _ => false,
        }
    }
    body.iter().any(|s| match s {
        Stmt::Assign { place, .. } => place_is(place, var),
        Stmt::AssignConcat { places, .. } => places.iter().any(|(p, _)| place_is(p, var)),
        Stmt::If {
            then, otherwise, ..
        } => assigns(then, var) || assigns(otherwise, var),
        Stmt::For { var: v, body, .. } => *v == var || assigns(body, var),
        Stmt::While { body, .. } => assigns(body, var),
        _ => false,
    })
}

fn stmt(s: &Stmt, out: &mut Vec<Stmt>) {
    match s {
        Stmt::Assign { place, value, span } => out.push(Stmt::Assign {
            place: fold_place(place),
            value: fold(value),
            span: *span,
        }),
        Stmt::AssignConcat {
            places,
            value,
            span,
        } => out.push(Stmt::AssignConcat {
            places: places.iter().map(|(p, w)| (fold_place(p), *w)).collect(),
            value: fold(value),
            span: *span,
        }),
        Stmt::If {
            cond,
            then,
            otherwise,
            span,
        } => {
            let c = fold(cond);
            match c.as_const_u64() {
                Some(0) => out.extend(block(otherwise)),
                Some(_) => out.extend(block(then)),
                None => out.push(Stmt::If {
                    cond: c,
                    then: block(then),
                    otherwise: block(otherwise),
                    span: *span,
                }),
            }
        }
        Stmt::For {
            var,
            start,
            end,
            body,
            span,
        } => {
            let (s, e) = (fold(start), fold(end));
            if let (Some(a), Some(b), Some(ty)) = (s.as_const_u64(), e.as_const_u64(), int_ty(&s)) {
                let signed = ty.is_signed();
                let (a_v, b_v) = if signed {
                    (sext(a, ty.width()), sext(b, ty.width()))
                } else {
                    (a as i128, b as i128)
                };
                if a_v > b_v {
                    // No iteration, and the variable is not touched, as in the interpreter.
                    return;
                }
                let trips = (b_v - a_v + 1) as u64;
                if a_v >= 0 {
                    if let Some(stmts) =
                        idiom::bit_count_loop(*var, (a_v as u64, b_v as u64), &e, body, *span)
                    {
                        out.extend(block(&stmts));
                        return;
                    }
                }
                if trips <= UNROLL_LIMIT
                    && trips * size(body) <= UNROLL_BUDGET
                    && !has_loop(body)
                    && !has_heavy(body)
                    && !has_loop_exit(body)
                    && !assigns(body, *var)
                {
                    let mut i = Bits::from_u64(ty.width(), a);
                    for _ in 0..trips {
                        let c = Expr {
                            ty,
                            kind: ExprKind::Const(i.clone()),
                            span: *span,
                        };
                        let copy: Vec<Stmt> =
                            body.iter().map(|st| subst_stmt(st, *var, &c)).collect();
                        out.extend(block(&copy));
                        i = i.add(&Bits::from_u64(ty.width(), 1));
                    }
                    // The variable ends at `end`, as after the last iteration.
                    out.push(Stmt::Assign {
                        place: Place::Local(*var),
                        value: e,
                        span: *span,
                    });
                    return;
                }
            }
            out.push(Stmt::For {
                var: *var,
                start: s,
                end: e,
                body: block(body),
                span: *span,
            });
        }
        Stmt::While { cond, body, span } => out.push(Stmt::While {
            cond: fold(cond),
            body: block(body),
            span: *span,
        }),
        Stmt::Effect {
            builtin,
            args,
            span,
        } => out.push(Stmt::Effect {
            builtin: *builtin,
            args: args.iter().map(fold).collect(),
            span: *span,
        }),
        other => out.push(other.clone()),
    }
}

fn sext(v: u64, w: u32) -> i128 {
    Bits::from_u64(w, v).as_i128()
}

fn int_ty(e: &Expr) -> Option<Ty> {
    e.ty.is_int().then_some(e.ty)
}

fn subst_stmt(s: &Stmt, var: LocalId, c: &Expr) -> Stmt {
    let se = |e: &Expr| subst(e, var, c);
    match s {
        Stmt::Assign { place, value, span } => Stmt::Assign {
            place: subst_place(place, var, c),
            value: se(value),
            span: *span,
        },
        Stmt::AssignConcat {
            places,
            value,
            span,
        } => Stmt::AssignConcat {
            places: places
                .iter()
                .map(|(p, w)| (subst_place(p, var, c), *w))
                .collect(),
            value: se(value),
            span: *span,
        },
        Stmt::If {
            cond,
            then,
            otherwise,
            span,
        } => Stmt::If {
            cond: se(cond),
            then: then.iter().map(|s| subst_stmt(s, var, c)).collect(),
            otherwise: otherwise.iter().map(|s| subst_stmt(s, var, c)).collect(),
            span: *span,
        },
        Stmt::For {
            var: v,
            start,
            end,
            body,
            span,
        } => Stmt::For {
            var: *v,
            start: se(start),
            end: se(end),
            body: body.iter().map(|s| subst_stmt(s, var, c)).collect(),
            span: *span,
        },
        Stmt::While { cond, body, span } => Stmt::While {
            cond: se(cond),
            body: body.iter().map(|s| subst_stmt(s, var, c)).collect(),
            span: *span,
        },
        Stmt::Effect {
            builtin,
            args,
            span,
        } => Stmt::Effect {
            builtin: *builtin,
            args: args.iter().map(se).collect(),
            span: *span,
        },
        other => other.clone(),
    }
}

fn subst_place(p: &Place, var: LocalId, c: &Expr) -> Place {
    match p {
        Place::Elem { local, index } => Place::Elem {
            local: *local,
            index: subst(index, var, c),
        },
        Place::Slice {
            base,
            lo,
            width,
            reversed,
        } => Place::Slice {
            base: Box::new(subst_place(base, var, c)),
            lo: subst(lo, var, c),
            width: *width,
            reversed: *reversed,
        },
        Place::Store {
            space,
            addr,
            lane,
            width,
        } => Place::Store {
            space: *space,
            addr: subst(addr, var, c),
            lane: lane.as_ref().map(|l| subst(l, var, c)),
            width: *width,
        },
        other => other.clone(),
    }
}

fn subst(e: &Expr, var: LocalId, c: &Expr) -> Expr {
    if matches!(e.kind, ExprKind::Local(l) if l == var) {
        return c.clone();
    }
    map_children(e, &mut |x| subst(x, var, c))
}

fn map_children(e: &Expr, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
    let kind = match &e.kind {
        ExprKind::Elem { local, index } => ExprKind::Elem {
            local: *local,
            index: Box::new(f(index)),
        },
        ExprKind::Unary { op, arg } => ExprKind::Unary {
            op: *op,
            arg: Box::new(f(arg)),
        },
        ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
            op: *op,
            lhs: Box::new(f(lhs)),
            rhs: Box::new(f(rhs)),
        },
        ExprKind::Cmp { op, lhs, rhs } => ExprKind::Cmp {
            op: *op,
            lhs: Box::new(f(lhs)),
            rhs: Box::new(f(rhs)),
        },
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => ExprKind::Select {
            cond: Box::new(f(cond)),
            then: Box::new(f(then)),
            otherwise: Box::new(f(otherwise)),
        },
        ExprKind::Convert { conv, arg } => ExprKind::Convert {
            conv: *conv,
            arg: Box::new(f(arg)),
        },
        ExprKind::Slice {
            arg,
            lo,
            width,
            reversed,
        } => ExprKind::Slice {
            arg: Box::new(f(arg)),
            lo: Box::new(f(lo)),
            width: *width,
            reversed: *reversed,
        },
        ExprKind::Concat(parts) => ExprKind::Concat(parts.iter().map(&mut *f).collect()),
        ExprKind::Call { builtin, args } => ExprKind::Call {
            builtin: *builtin,
            args: args.iter().map(&mut *f).collect(),
        },
        ExprKind::Load { space, addr, lane } => ExprKind::Load {
            space: *space,
            addr: Box::new(f(addr)),
            lane: lane.as_ref().map(|l| Box::new(f(l))),
        },
        other => other.clone(),
    };
    Expr {
        ty: e.ty,
        kind,
        span: e.span,
    }
}

fn fold_place(p: &Place) -> Place {
    match p {
        Place::Elem { local, index } => Place::Elem {
            local: *local,
            index: fold(index),
        },
        Place::Slice {
            base,
            lo,
            width,
            reversed,
        } => Place::Slice {
            base: Box::new(fold_place(base)),
            lo: fold(lo),
            width: *width,
            reversed: *reversed,
        },
        Place::Store {
            space,
            addr,
            lane,
            width,
        } => Place::Store {
            space: *space,
            addr: fold(addr),
            lane: lane.as_ref().map(fold),
            width: *width,
        },
        other => other.clone(),
    }
}

fn konst(e: &Expr) -> Option<&Bits> {
    match &e.kind {
        ExprKind::Const(b) => Some(b),
        _ => None,
    }
}

/// Folds integer operations on constants, bottom-up.
pub fn fold(e: &Expr) -> Expr {
    let e = map_children(e, &mut fold);
    let mk = |b: Bits| Expr {
        ty: e.ty,
        kind: ExprKind::Const(b),
        span: e.span,
    };
    let mut fp = FpEnv::default();
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } if e.ty.float().is_none() => {
            if let (Some(a), Some(b)) = (konst(lhs), konst(rhs)) {
                if !matches!(op, super::BinOp::And | super::BinOp::Or) {
                    if let Ok(v) = eval_binary(*op, e.ty, a, b, &mut fp) {
                        return mk(v);
                    }
                } else {
                    let r = match op {
                        super::BinOp::And => !a.is_zero() && !b.is_zero(),
                        _ => !a.is_zero() || !b.is_zero(),
                    };
                    return mk(Bits::from_u64(1, r as u64));
                }
            }
        }
        ExprKind::Cmp { op, lhs, rhs } if lhs.ty.float().is_none() => {
            if let (Some(a), Some(b)) = (konst(lhs), konst(rhs)) {
                let r = eval_compare(*op, lhs.ty, a, b, &mut fp);
                return mk(Bits::from_u64(1, r as u64));
            }
        }
        ExprKind::Convert { conv, arg }
            if matches!(
                conv,
                Conv::Resize | Conv::Bitcast | Conv::FromBool | Conv::ToBool
            ) && e.ty.float().is_none()
                && arg.ty.float().is_none() =>
        {
            if let Some(a) = konst(arg) {
                return mk(eval_convert(*conv, arg.ty, e.ty, a, &mut fp));
            }
        }
        ExprKind::Unary { op, arg } if e.ty.float().is_none() => {
            if let Some(a) = konst(arg) {
                let v = match op {
                    super::UnOp::Neg => a.neg(),
                    super::UnOp::BitNot => a.not(),
                    super::UnOp::Not => Bits::from_u64(1, a.is_zero() as u64),
                };
                return mk(v);
            }
        }
        // A same-width bitcast of a register read or a constant is the leaf itself, typed
        // as the bitcast (their values do not depend on the node's type, only its width).
        ExprKind::Convert {
            conv: Conv::Bitcast,
            arg,
        } if arg.ty.width() == e.ty.width()
            && matches!(arg.kind, ExprKind::Reg(_) | ExprKind::Const(_)) =>
        {
            return Expr {
                ty: e.ty,
                kind: arg.kind.clone(),
                span: e.span,
            };
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            if let Some(c) = konst(cond) {
                return if c.is_zero() {
                    (**otherwise).clone()
                } else {
                    (**then).clone()
                };
            }
        }
        ExprKind::Slice {
            arg,
            lo,
            width,
            reversed,
        } => {
            if let (Some(a), Some(l)) = (konst(arg), konst(lo)) {
                let v = a.extract(l.low_u64(), *width);
                return mk(if *reversed { v.reverse() } else { v });
            }
        }
        ExprKind::Concat(parts) if parts.iter().all(|p| konst(p).is_some()) => {
            let vals: Vec<Bits> = parts.iter().filter_map(|p| konst(p).cloned()).collect();
            return mk(Bits::concat(&vals));
        }
        _ => {}
    }
    e
}

/// Removes assignments to scalar locals that are never read.
fn remove_dead_stores(f: &mut Function) {
    let mut read = HashSet::new();
    fn expr_reads(e: &Expr, read: &mut HashSet<u32>) {
        if let ExprKind::Local(l) | ExprKind::Elem { local: l, .. } = &e.kind {
            read.insert(l.0);
        }
        let _ = map_children(e, &mut |x| {
            expr_reads(x, read);
            x.clone()
        });
    }
    fn place_reads(p: &Place, read: &mut HashSet<u32>) {
        match p {
            Place::Elem { index, .. } => expr_reads(index, read),
            Place::Slice { base, lo, .. } => {
                // A slice store reads the rest of its base.
                if let Place::Local(l) = base.as_ref() {
                    read.insert(l.0);
                }
                place_reads(base, read);
                expr_reads(lo, read);
            }
            Place::Store { addr, lane, .. } => {
                expr_reads(addr, read);
                if let Some(l) = lane {
                    expr_reads(l, read);
                }
            }
            _ => {}
        }
    }
    fn walk(body: &[Stmt], read: &mut HashSet<u32>) {
        for s in body {
            match s {
                Stmt::Assign { place, value, .. } => {
                    place_reads(place, read);
                    expr_reads(value, read);
                }
                Stmt::AssignConcat { places, value, .. } => {
                    for (p, _) in places {
                        place_reads(p, read);
                    }
                    expr_reads(value, read);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    expr_reads(cond, read);
                    walk(then, read);
                    walk(otherwise, read);
                }
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                    ..
                } => {
                    read.insert(var.0);
                    expr_reads(start, read);
                    expr_reads(end, read);
                    walk(body, read);
                }
                Stmt::While { cond, body, .. } => {
                    expr_reads(cond, read);
                    walk(body, read);
                }
                Stmt::Effect { args, .. } => args.iter().for_each(|a| expr_reads(a, read)),
                _ => {}
            }
        }
    }
    walk(&f.body, &mut read);
    fn prune(body: Vec<Stmt>, read: &HashSet<u32>) -> Vec<Stmt> {
        body.into_iter()
            .filter_map(|s| match s {
                // Values are pure except calls and loads, which may fault: keep those.
                Stmt::Assign {
                    place: Place::Local(l),
                    ref value,
                    ..
                } if !read.contains(&l.0) && is_pure(value) => None,
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                    span,
                } => Some(Stmt::If {
                    cond,
                    then: prune(then, read),
                    otherwise: prune(otherwise, read),
                    span,
                }),
                Stmt::For {
                    var,
                    start,
                    end,
                    body,
                    span,
                } => Some(Stmt::For {
                    var,
                    start,
                    end,
                    body: prune(body, read),
                    span,
                }),
                Stmt::While { cond, body, span } => Some(Stmt::While {
                    cond,
                    body: prune(body, read),
                    span,
                }),
                other => Some(other),
            })
            .collect()
    }
    f.body = prune(std::mem::take(&mut f.body), &read);
}

fn is_pure(e: &Expr) -> bool {
    let mut pure = !matches!(e.kind, ExprKind::Call { .. } | ExprKind::Load { .. });
    let _ = map_children(e, &mut |x| {
        pure &= is_pure(x);
        x.clone()
    });
    pure
}
