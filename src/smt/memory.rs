//! Memory for the symbolic executor: byte-addressed, little-endian, for the `MEM[ADDR]`
//! accesses of global (64-bit addresses) and LDS (32-bit) instructions.
//!
//! The initial contents are one uninterpreted function per space (`|mem|`, `|lds|`: address
//! to byte), so every byte starts unknown. A store appends (address, byte, guard) per byte;
//! a load resolves read-over-write itself, as `ite(guard_n and addr_n = x, byte_n, ...
//! initial(x))` over the stores, newest first. That is the array theory's meaning written
//! out (SMT arrays with `store`/`select` time out on 32 lanes of stores in z3, while the
//! resolved form with an uninterpreted initial memory is decided quickly, by
//! Ackermannisation).
//!
//! Each byte address a load reads or a store writes is recorded: a counterexample needs the
//! initial bytes there (the solver's model of the function is read through them); no other
//! initial byte can influence the outputs or the final contents where they differ.
//!
//! The engines run a memory entry's text once per active lane, in lane order (the whole text
//! for lane 0, then for lane 1, ...), so a 64-bit store's two word statements of a higher
//! lane overwrite a lower lane's overlapping bytes; stores here apply in the same order.

use std::rc::Rc;

use super::term::{self, Sort, Term};
use super::translate::{Unsupported, Val};

/// The initial contents of global memory (an uninterpreted function).
pub const GLOBAL_VAR: &str = "|mem|";
/// The initial contents of LDS.
pub const LDS_VAR: &str = "|lds|";

/// One memory space: the initial contents and the stores since.
#[derive(Clone, Debug, PartialEq)]
pub struct MemState {
    /// Address width (64 for global memory, 32 for LDS).
    pub addr_bits: u32,
    /// Byte stores, oldest first: (address, byte, guard).
    pub writes: Rc<Vec<(Term, Term, Term)>>,
}

impl MemState {
    /// The initial contents of a space.
    pub fn initial(addr_bits: u32) -> MemState {
        MemState {
            addr_bits,
            writes: Rc::new(Vec::new()),
        }
    }

    /// Whether no store happened.
    pub fn untouched(&self) -> bool {
        self.writes.is_empty()
    }

    /// The initial byte at `addr`.
    pub fn initial_byte(addr_bits: u32, addr: &Term) -> Term {
        let f = if addr_bits == 64 { GLOBAL_VAR } else { LDS_VAR };
        Term::app(Sort::Bv(8), f, vec![addr.clone()])
    }

    /// The declaration of a space's initial contents.
    pub fn declaration(addr_bits: u32) -> String {
        let f = if addr_bits == 64 { GLOBAL_VAR } else { LDS_VAR };
        format!("(declare-fun {f} ((_ BitVec {addr_bits})) (_ BitVec 8))\n")
    }

    /// The byte at `addr` now.
    pub fn byte(&self, addr: &Term) -> Term {
        let mut v = MemState::initial_byte(self.addr_bits, addr);
        for (a, b, g) in self.writes.iter() {
            v = term::ite(&term::and(g, &term::eq(a, addr)), b, &v);
        }
        v
    }
}

/// One memory space during one instruction.
#[derive(Clone, Debug)]
pub struct SymMem {
    /// The contents.
    pub state: MemState,
    /// Byte addresses loads read and stores write, in order.
    pub touched: Vec<Term>,
}

impl SymMem {
    /// A space with contents `state`.
    pub fn new(state: MemState) -> SymMem {
        SymMem {
            state,
            touched: Vec::new(),
        }
    }

    fn address(&self, addr: &Val) -> Term {
        let t = addr.term();
        let bits = self.state.addr_bits;
        if t.width() >= bits {
            term::extract(&t, 0, bits)
        } else {
            term::zext(&t, bits)
        }
    }

    fn plus(&self, a: &Term, i: u32) -> Term {
        if i == 0 {
            return a.clone();
        }
        let bits = self.state.addr_bits;
        term::bvop("bvadd", &[a, &Term::bv_u64(bits, i as u64)])
    }

    /// Reads `width` bits at `addr` (little-endian).
    ///
    /// # Errors
    /// A width that is not whole bytes.
    pub fn load(&mut self, addr: &Val, width: u32) -> Result<Val, Unsupported> {
        if !width.is_multiple_of(8) || width == 0 {
            return Err(Unsupported(format!("a {width}-bit memory access")));
        }
        let a = self.address(addr);
        let bytes: Vec<Term> = (0..width / 8)
            .rev()
            .map(|i| {
                let ai = self.plus(&a, i);
                self.touched.push(ai.clone());
                self.state.byte(&ai)
            })
            .collect();
        Ok(Val::of(term::concat(&bytes)))
    }

    /// Writes `value` at `addr` where `guard` holds.
    ///
    /// # Errors
    /// A width that is not whole bytes.
    pub fn store(&mut self, addr: &Val, value: &Val, guard: &Term) -> Result<(), Unsupported> {
        let width = value.width();
        if !width.is_multiple_of(8) || width == 0 {
            return Err(Unsupported(format!("a {width}-bit memory access")));
        }
        if guard.as_bool() == Some(false) {
            return Ok(());
        }
        let a = self.address(addr);
        let v = value.term();
        let writes = Rc::make_mut(&mut self.state.writes);
        for i in 0..width / 8 {
            let ai = if i == 0 {
                a.clone()
            } else {
                term::bvop(
                    "bvadd",
                    &[&a, &Term::bv_u64(self.state.addr_bits, i as u64)],
                )
            };
            self.touched.push(ai.clone());
            writes.push((ai, term::extract(&v, i * 8, 8), guard.clone()));
        }
        Ok(())
    }
}
