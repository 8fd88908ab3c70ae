//! The register files an entry's text addresses itself (`VGPR[lane][reg]`, `SGPR[reg]`,
//! `HW_REGISTERS[id]`), read from its IR: the wave layer and the SMT wave steps give such
//! entries the whole file rather than their operands.

use crate::ir::{Expr, ExprKind, Function, Place, Space, Stmt};

/// Which register files a function loads from or stores into by index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegSpaces {
    /// `VGPR[lane][reg]`.
    pub vgpr: bool,
    /// `SGPR[reg]`.
    pub sgpr: bool,
    /// `HW_REGISTERS[id]`.
    pub hwreg: bool,
}

impl RegSpaces {
    /// The register files `f` addresses.
    pub fn of(f: &Function) -> RegSpaces {
        let mut s = RegSpaces::default();
        s.body(&f.body);
        s
    }

    fn note(&mut self, space: Space, lane: bool) {
        match space {
            // A VGPR access without a lane is not one the text can spell.
            Space::Vgpr => self.vgpr |= lane,
            Space::Sgpr => self.sgpr = true,
            Space::HwReg => self.hwreg = true,
            Space::Mem => {}
        }
    }

    fn body(&mut self, body: &[Stmt]) {
        for st in body {
            match st {
                Stmt::Assign { place, value, .. } => {
                    self.place(place);
                    self.expr(value);
                }
                Stmt::AssignConcat { places, value, .. } => {
                    places.iter().for_each(|(p, _)| self.place(p));
                    self.expr(value);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    self.expr(cond);
                    self.body(then);
                    self.body(otherwise);
                }
                Stmt::For {
                    start, end, body, ..
                } => {
                    self.expr(start);
                    self.expr(end);
                    self.body(body);
                }
                Stmt::While { cond, body, .. } => {
                    self.expr(cond);
                    self.body(body);
                }
                Stmt::Effect { args, .. } => args.iter().for_each(|a| self.expr(a)),
                Stmt::Break { .. } | Stmt::Continue { .. } | Stmt::Return { .. } => {}
            }
        }
    }

    fn place(&mut self, p: &Place) {
        match p {
            Place::Elem { index, .. } => self.expr(index),
            Place::Slice { base, lo, .. } => {
                self.place(base);
                self.expr(lo);
            }
            Place::Store {
                space, addr, lane, ..
            } => {
                self.note(*space, lane.is_some());
                self.expr(addr);
                if let Some(l) = lane {
                    self.expr(l);
                }
            }
            Place::Reg(_) | Place::Local(_) => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Elem { index, .. } => self.expr(index),
            ExprKind::Unary { arg, .. } | ExprKind::Convert { arg, .. } => self.expr(arg),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Cmp { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.expr(then);
                self.expr(otherwise);
            }
            ExprKind::Slice { arg, lo, .. } => {
                self.expr(arg);
                self.expr(lo);
            }
            ExprKind::Concat(parts) => parts.iter().for_each(|p| self.expr(p)),
            ExprKind::Call { args, .. } => args.iter().for_each(|p| self.expr(p)),
            ExprKind::Load { space, addr, lane } => {
                self.note(*space, lane.is_some());
                self.expr(addr);
                if let Some(l) = lane {
                    self.expr(l);
                }
            }
            ExprKind::Const(_) | ExprKind::Reg(_) | ExprKind::Local(_) => {}
        }
    }
}
