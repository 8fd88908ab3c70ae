//! A stable text form of the IR, for `amdpcode show --ir` and for golden tests.
//!
//! Registers print as `%NAME`, locals as `$name`, every expression node with its type:
//! `add.u64(%S0:b64, 1:u64)`.

use std::fmt::Write;

use super::{BinOp, CmpOp, Conv, Expr, ExprKind, Function, Place, Space, Stmt, UnOp};

/// Prints a function: its registers, locals and body.
pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "function {}", f.name);
    for r in &f.regs {
        let rw = match (r.read, r.written) {
            (true, true) => "read write",
            (true, false) => "read",
            (false, true) => "write",
            (false, false) => "unused",
        };
        let _ = writeln!(out, "  reg %{}: b{} {:?} {rw}", r.name, r.width, r.role);
    }
    for l in &f.locals {
        match l.len {
            Some(n) => {
                let _ = writeln!(out, "  local ${}: {}[{n}]", l.name, l.ty);
            }
            None => {
                let _ = writeln!(out, "  local ${}: {}", l.name, l.ty);
            }
        }
    }
    let p = Printer { f };
    for s in &f.body {
        p.stmt(&mut out, s, 1);
    }
    out
}

struct Printer<'a> {
    f: &'a Function,
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

impl Printer<'_> {
    fn stmt(&self, out: &mut String, s: &Stmt, depth: usize) {
        indent(out, depth);
        match s {
            Stmt::Assign { place, value, .. } => {
                let _ = writeln!(out, "{} = {}", self.place(place), self.expr(value));
            }
            Stmt::AssignConcat { places, value, .. } => {
                let ps: Vec<String> = places
                    .iter()
                    .map(|(p, w)| format!("{}:b{w}", self.place(p)))
                    .collect();
                let _ = writeln!(out, "{{{}}} = {}", ps.join(", "), self.expr(value));
            }
            Stmt::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let _ = writeln!(out, "if {}", self.expr(cond));
                for s in then {
                    self.stmt(out, s, depth + 1);
                }
                if !otherwise.is_empty() {
                    indent(out, depth);
                    out.push_str("else\n");
                    for s in otherwise {
                        self.stmt(out, s, depth + 1);
                    }
                }
                indent(out, depth);
                out.push_str("endif\n");
            }
            Stmt::For {
                var,
                start,
                end,
                body,
                ..
            } => {
                let l = &self.f.locals[var.0 as usize];
                let _ = writeln!(
                    out,
                    "for ${}:{} in {} ..= {}",
                    l.name,
                    l.ty,
                    self.expr(start),
                    self.expr(end)
                );
                for s in body {
                    self.stmt(out, s, depth + 1);
                }
                indent(out, depth);
                out.push_str("endfor\n");
            }
            Stmt::While { cond, body, .. } => {
                let _ = writeln!(out, "while {}", self.expr(cond));
                for s in body {
                    self.stmt(out, s, depth + 1);
                }
                indent(out, depth);
                out.push_str("endwhile\n");
            }
            Stmt::Break { .. } => out.push_str("break\n"),
            Stmt::Continue { .. } => out.push_str("continue\n"),
            Stmt::Return { .. } => out.push_str("return\n"),
            Stmt::Effect { builtin, args, .. } => {
                let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
                let _ = writeln!(out, "call {builtin}({})", a.join(", "));
            }
        }
    }

    fn place(&self, p: &Place) -> String {
        match p {
            Place::Reg(r) => format!("%{}", self.f.regs[r.0 as usize].name),
            Place::Local(l) => format!("${}", self.f.locals[l.0 as usize].name),
            Place::Elem { local, index } => format!(
                "${}[{}]",
                self.f.locals[local.0 as usize].name,
                self.expr(index)
            ),
            Place::Slice {
                base,
                lo,
                width,
                reversed,
            } => format!(
                "{}[{} +: {width}{}]",
                self.place(base),
                self.expr(lo),
                if *reversed { " reversed" } else { "" }
            ),
            Place::Store {
                space,
                addr,
                lane,
                width,
            } => self.memory(*space, addr, lane.as_ref(), *width),
        }
    }

    fn memory(&self, space: Space, addr: &Expr, lane: Option<&Expr>, width: u32) -> String {
        match (space, lane) {
            (Space::Vgpr, Some(l)) => {
                format!("VGPR[{}][{}]:b{width}", self.expr(l), self.expr(addr))
            }
            (Space::Sgpr, _) => format!("SGPR[{}]:b{width}", self.expr(addr)),
            (Space::HwReg, _) => format!("HW_REGISTERS[{}]:b{width}", self.expr(addr)),
            _ => format!("MEM[{}]:b{width}", self.expr(addr)),
        }
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(b) => format!("{b}:{}", e.ty),
            ExprKind::Reg(r) => format!("%{}:{}", self.f.regs[r.0 as usize].name, e.ty),
            ExprKind::Local(l) => format!("${}", self.f.locals[l.0 as usize].name),
            ExprKind::Elem { local, index } => format!(
                "${}[{}]",
                self.f.locals[local.0 as usize].name,
                self.expr(index)
            ),
            ExprKind::Unary { op, arg } => {
                let name = match op {
                    UnOp::Neg => "neg",
                    UnOp::BitNot => "not",
                    UnOp::Not => "lnot",
                };
                format!("{name}.{}({})", e.ty, self.expr(arg))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let name = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::Div => "div",
                    BinOp::Rem => "rem",
                    BinOp::Pow => "pow",
                    BinOp::Shl => "shl",
                    BinOp::Shr => "shr",
                    BinOp::BitAnd => "and",
                    BinOp::BitOr => "or",
                    BinOp::BitXor => "xor",
                    BinOp::And => "land",
                    BinOp::Or => "lor",
                };
                format!("{name}.{}({}, {})", e.ty, self.expr(lhs), self.expr(rhs))
            }
            ExprKind::Cmp { op, lhs, rhs } => {
                let name = match op {
                    CmpOp::Eq => "eq",
                    CmpOp::Ne => "ne",
                    CmpOp::Lg => "lg",
                    CmpOp::Lt => "lt",
                    CmpOp::Le => "le",
                    CmpOp::Gt => "gt",
                    CmpOp::Ge => "ge",
                };
                format!("{name}.{}({}, {})", lhs.ty, self.expr(lhs), self.expr(rhs))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => format!(
                "select.{}({}, {}, {})",
                e.ty,
                self.expr(cond),
                self.expr(then),
                self.expr(otherwise)
            ),
            ExprKind::Convert { conv, arg } => {
                let name = match conv {
                    Conv::Resize => "resize",
                    Conv::Bitcast => "bitcast",
                    Conv::IntToFloat => "itof",
                    Conv::FloatToInt => "ftoi",
                    Conv::FloatToFloat => "ftof",
                    Conv::FromBool => "frombool",
                    Conv::ToBool => "tobool",
                };
                format!("{name}.{}.{}({})", arg.ty, e.ty, self.expr(arg))
            }
            ExprKind::Slice {
                arg,
                lo,
                width,
                reversed,
            } => format!(
                "{}[{} +: {width}{}]",
                self.expr(arg),
                self.expr(lo),
                if *reversed { " reversed" } else { "" }
            ),
            ExprKind::Concat(parts) => {
                let p: Vec<String> = parts.iter().map(|x| self.expr(x)).collect();
                format!("{{{}}}", p.join(", "))
            }
            ExprKind::Call { builtin, args } => {
                let a: Vec<String> = args.iter().map(|x| self.expr(x)).collect();
                format!("{builtin}({})", a.join(", "))
            }
            ExprKind::Load { space, addr, lane } => {
                self.memory(*space, addr, lane.as_deref(), e.ty.width())
            }
        }
    }
}
