//! SMT-LIB 2 terms: a shared DAG of applications over bit-vectors, booleans, floats and
//! rounding modes, printed once per node as `define-fun`s so shared subterms stay shared.

use std::collections::HashMap;
use std::rc::Rc;

use crate::value::Bits;

/// The sort of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    /// `Bool`.
    Bool,
    /// `(_ BitVec n)`.
    Bv(u32),
    /// `(_ FloatingPoint eb sb)`.
    Fp(u32, u32),
    /// `RoundingMode`.
    Rm,
}

impl Sort {
    /// The SMT-LIB spelling.
    pub fn smt(self) -> String {
        match self {
            Sort::Bool => "Bool".into(),
            Sort::Bv(w) => format!("(_ BitVec {w})"),
            Sort::Fp(e, s) => format!("(_ FloatingPoint {e} {s})"),
            Sort::Rm => "RoundingMode".into(),
        }
    }
}

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum Head {
    /// A bit-vector constant.
    Bv(Bits),
    /// `true` / `false`.
    Bool(bool),
    /// A declared constant (an input).
    Var(String),
    /// An application of this function symbol (possibly indexed, `(_ extract 7 0)`).
    App(String),
}

#[derive(Debug)]
struct Node {
    sort: Sort,
    head: Head,
    args: Vec<Term>,
}

/// A term; cloning shares the node.
#[derive(Clone, Debug)]
pub struct Term(Rc<Node>);

impl PartialEq for Term {
    fn eq(&self, o: &Term) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
            || (self.0.args.is_empty() && o.0.args.is_empty() && self.0.head == o.0.head)
    }
}

type Key = (Sort, String, Vec<usize>);

thread_local! {
    /// Hash-consing: structurally equal terms are one node, so equal computations built
    /// twice (once per program) compare equal without the solver.
    static INTERN: std::cell::RefCell<HashMap<Key, std::rc::Weak<Node>>> =
        std::cell::RefCell::new(HashMap::new());
}

fn intern(sort: Sort, head: Head, args: Vec<Term>) -> Term {
    let tag = match &head {
        Head::Bv(b) => format!("#{}", bits_literal(b)),
        Head::Bool(v) => format!("!{v}"),
        Head::Var(n) => format!("${n}"),
        Head::App(op) => op.clone(),
    };
    let key: Key = (
        sort,
        tag,
        args.iter().map(|a| Rc::as_ptr(&a.0) as usize).collect(),
    );
    INTERN.with(|m| {
        let mut m = m.borrow_mut();
        if let Some(t) = m.get(&key).and_then(std::rc::Weak::upgrade) {
            return Term(t);
        }
        if m.len() > 1 << 20 {
            m.retain(|_, w| w.strong_count() > 0);
        }
        let t = Rc::new(Node { sort, head, args });
        m.insert(key, Rc::downgrade(&t));
        Term(t)
    })
}

impl Term {
    /// A bit-vector constant.
    pub fn bv(b: &Bits) -> Term {
        intern(Sort::Bv(b.width()), Head::Bv(b.clone()), vec![])
    }

    /// A bit-vector constant from a `u64`.
    pub fn bv_u64(width: u32, v: u64) -> Term {
        Term::bv(&Bits::from_u64(width, v))
    }

    /// `true` or `false`.
    pub fn bool(v: bool) -> Term {
        intern(Sort::Bool, Head::Bool(v), vec![])
    }

    /// A declared constant.
    pub fn var(name: &str, sort: Sort) -> Term {
        intern(sort, Head::Var(name.to_string()), vec![])
    }

    /// An application.
    pub fn app(sort: Sort, op: impl Into<String>, args: Vec<Term>) -> Term {
        intern(sort, Head::App(op.into()), args)
    }

    /// The sort.
    pub fn sort(&self) -> Sort {
        self.0.sort
    }

    /// The width of a bit-vector term (0 for other sorts).
    pub fn width(&self) -> u32 {
        match self.0.sort {
            Sort::Bv(w) => w,
            _ => 0,
        }
    }

    /// The constant value of a bit-vector constant.
    pub fn as_bv(&self) -> Option<&Bits> {
        match &self.0.head {
            Head::Bv(b) => Some(b),
            _ => None,
        }
    }

    /// The value of a boolean constant.
    pub fn as_bool(&self) -> Option<bool> {
        match &self.0.head {
            Head::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The head.
    pub fn head(&self) -> &Head {
        &self.0.head
    }

    /// The arguments.
    pub fn args(&self) -> &[Term] {
        &self.0.args
    }

    fn key(&self) -> *const Node {
        Rc::as_ptr(&self.0)
    }
}

// ----- boolean builders with constant folding -----

/// `(not a)`.
pub fn not(a: &Term) -> Term {
    if let Some(v) = a.as_bool() {
        return Term::bool(!v);
    }
    if let Head::App(op) = a.head() {
        if op == "not" {
            return a.args()[0].clone();
        }
    }
    Term::app(Sort::Bool, "not", vec![a.clone()])
}

/// `(and a b)`.
pub fn and(a: &Term, b: &Term) -> Term {
    match (a.as_bool(), b.as_bool()) {
        (Some(false), _) | (_, Some(false)) => Term::bool(false),
        (Some(true), _) => b.clone(),
        (_, Some(true)) => a.clone(),
        _ if a == b => a.clone(),
        _ => Term::app(Sort::Bool, "and", vec![a.clone(), b.clone()]),
    }
}

/// `(or a b)`.
pub fn or(a: &Term, b: &Term) -> Term {
    match (a.as_bool(), b.as_bool()) {
        (Some(true), _) | (_, Some(true)) => Term::bool(true),
        (Some(false), _) => b.clone(),
        (_, Some(false)) => a.clone(),
        _ if a == b => a.clone(),
        _ => Term::app(Sort::Bool, "or", vec![a.clone(), b.clone()]),
    }
}

/// The parts of `(ite c x y)`.
fn ite_parts(t: &Term) -> Option<(&Term, &Term, &Term)> {
    match (t.head(), t.args()) {
        (Head::App(op), [c, x, y]) if op == "ite" => Some((c, x, y)),
        _ => None,
    }
}

/// Whether `a` is `(not b)` or `b` is `(not a)`.
fn negates(a: &Term, b: &Term) -> bool {
    let is_not_of = |x: &Term, y: &Term| matches!((x.head(), x.args()), (Head::App(op), [z]) if op == "not" && z == y);
    is_not_of(a, b) || is_not_of(b, a)
}

/// `(ite c a b)`, simplified when an arm is an `ite` on the same condition or its negation.
pub fn ite(c: &Term, a: &Term, b: &Term) -> Term {
    match c.as_bool() {
        Some(true) => return a.clone(),
        Some(false) => return b.clone(),
        None => {}
    }
    let mut a = a;
    let mut b = b;
    if let Some((ca, x, y)) = ite_parts(a) {
        if ca == c {
            a = x;
        } else if negates(ca, c) {
            a = y;
        }
    }
    if let Some((cb, x, y)) = ite_parts(b) {
        if cb == c {
            b = y;
        } else if negates(cb, c) {
            b = x;
        }
    }
    if a == b {
        return a.clone();
    }
    Term::app(a.sort(), "ite", vec![c.clone(), a.clone(), b.clone()])
}

/// `t` where `cond` is known to hold: each `(ite cond x y)` inside (down to a small depth)
/// is `x`. Used on memory addresses, which are only formed in the lanes that run.
pub fn assuming(t: &Term, cond: &Term) -> Term {
    fn go(t: &Term, cond: &Term, depth: u32) -> Term {
        if depth == 0 || t.args().is_empty() {
            return t.clone();
        }
        if let (Head::App(op), [c, x, _]) = (t.head(), t.args()) {
            if op == "ite" && c == cond {
                return go(x, cond, depth - 1);
            }
        }
        let args: Vec<Term> = t.args().iter().map(|a| go(a, cond, depth - 1)).collect();
        if args.iter().zip(t.args()).all(|(a, b)| a == b) {
            return t.clone();
        }
        let Head::App(op) = t.head() else {
            return t.clone();
        };
        match (op.as_str(), args.as_slice()) {
            ("bvadd", [a, b]) => bvop("bvadd", &[a, b]),
            ("concat", _) => concat(&args),
            _ => Term::app(t.sort(), op.clone(), args),
        }
    }
    go(t, cond, 6)
}

/// `(= a b)`.
pub fn eq(a: &Term, b: &Term) -> Term {
    if let (Some(x), Some(y)) = (a.as_bv(), b.as_bv()) {
        return Term::bool(x == y);
    }
    if a == b {
        return Term::bool(true);
    }
    Term::app(Sort::Bool, "=", vec![a.clone(), b.clone()])
}

// ----- bit-vector builders -----

/// A bit-vector operation whose result has the first argument's width.
///
/// Additions are kept in one shape, constants last and folded (`(x + 4) + 12` is `x + 16`,
/// `16 + x` is `x + 16`), so addresses formed in different orders are one term.
pub fn bvop(op: &str, args: &[&Term]) -> Term {
    let w = args[0].width();
    if let ("bvadd", [a, b]) = (op, args) {
        match (a.as_bv(), b.as_bv()) {
            (Some(x), Some(y)) => return Term::bv(&x.add(y)),
            (Some(x), None) if x.is_zero() => return (*b).clone(),
            (None, Some(y)) if y.is_zero() => return (*a).clone(),
            (Some(_), None) => return bvop(op, &[b, a]),
            (None, Some(y)) => {
                if let (Head::App(inner), [p, q]) = (a.head(), a.args()) {
                    if let (true, Some(c)) = (inner == "bvadd", q.as_bv()) {
                        return bvop(op, &[p, &Term::bv(&c.add(y))]);
                    }
                }
            }
            _ => {}
        }
    }
    Term::app(Sort::Bv(w), op, args.iter().map(|t| (*t).clone()).collect())
}

/// A bit-vector predicate (`bvult`, ...).
pub fn bvpred(op: &str, a: &Term, b: &Term) -> Term {
    Term::app(Sort::Bool, op, vec![a.clone(), b.clone()])
}

/// Bits `lo .. lo + width` of `a` (constant positions inside `a`).
pub fn extract(a: &Term, lo: u32, width: u32) -> Term {
    debug_assert!(lo + width <= a.width(), "bug: extract out of range");
    if lo == 0 && width == a.width() {
        return a.clone();
    }
    if let Some(b) = a.as_bv() {
        return Term::bv(&b.extract(lo as u64, width));
    }
    // The low bits of a sum are the sum of the low bits; the low bits of an extension are
    // the value (so `extract(zext(x) + 16)` is `x + 16`, one term with the narrow form).
    if let (0, Head::App(op)) = (lo, a.head()) {
        match a.args() {
            [p, q] if op == "bvadd" => {
                return bvop("bvadd", &[&extract(p, 0, width), &extract(q, 0, width)])
            }
            [x] if op.starts_with("(_ zero_extend") && x.width() >= width => {
                return extract(x, 0, width)
            }
            _ => {}
        }
    }
    Term::app(
        Sort::Bv(width),
        format!("(_ extract {} {lo})", lo + width - 1),
        vec![a.clone()],
    )
}

/// `a` zero-extended or truncated to `width`.
pub fn zext(a: &Term, width: u32) -> Term {
    let w = a.width();
    if width == w {
        a.clone()
    } else if width < w {
        extract(a, 0, width)
    } else if let Some(b) = a.as_bv() {
        Term::bv(&b.zext(width))
    } else {
        Term::app(
            Sort::Bv(width),
            format!("(_ zero_extend {})", width - w),
            vec![a.clone()],
        )
    }
}

/// `a` sign-extended or truncated to `width`.
pub fn sext(a: &Term, width: u32) -> Term {
    let w = a.width();
    if width <= w {
        zext(a, width)
    } else if let Some(b) = a.as_bv() {
        Term::bv(&b.sext(width))
    } else {
        Term::app(
            Sort::Bv(width),
            format!("(_ sign_extend {})", width - w),
            vec![a.clone()],
        )
    }
}

/// Concatenation, most significant first.
pub fn concat(parts: &[Term]) -> Term {
    if parts.len() == 1 {
        return parts[0].clone();
    }
    if parts.iter().all(|p| p.as_bv().is_some()) {
        let bits: Vec<Bits> = parts.iter().map(|p| p.as_bv().unwrap().clone()).collect();
        return Term::bv(&Bits::concat(&bits));
    }
    let w = parts.iter().map(Term::width).sum();
    Term::app(Sort::Bv(w), "concat", parts.to_vec())
}

/// A boolean as a 1-bit vector.
pub fn bool_to_bv(b: &Term) -> Term {
    match b.as_bool() {
        Some(v) => Term::bv_u64(1, v as u64),
        None => {
            // `(= x #b1)` back to x.
            if let (Head::App(op), [x, one]) = (b.head(), b.args()) {
                if op == "=" && x.width() == 1 && one.as_bv().map(|c| c.low_u64()) == Some(1) {
                    return x.clone();
                }
            }
            ite(b, &Term::bv_u64(1, 1), &Term::bv_u64(1, 0))
        }
    }
}

/// A non-zero test of a bit-vector.
pub fn bv_to_bool(a: &Term) -> Term {
    if let Some(b) = a.as_bv() {
        return Term::bool(!b.is_zero());
    }
    // `(ite c #b1 #b0)` back to c.
    if let (Head::App(op), [c, x, y]) = (a.head(), a.args()) {
        if op == "ite"
            && x.as_bv().map(|v| v.low_u64()) == Some(1)
            && y.as_bv().is_some_and(|v| v.is_zero())
        {
            return c.clone();
        }
    }
    if a.width() == 1 {
        return eq(a, &Term::bv_u64(1, 1));
    }
    not(&eq(a, &Term::bv(&Bits::zero(a.width()))))
}

// ----- printing -----

fn bits_literal(b: &Bits) -> String {
    let w = b.width();
    let mut s = String::with_capacity(w as usize + 2);
    if w.is_multiple_of(4) {
        s.push_str("#x");
        for i in (0..w / 4).rev() {
            let nib = b.extract(i as u64 * 4, 4).low_u64();
            s.push(char::from_digit(nib as u32, 16).unwrap_or('0'));
        }
    } else {
        s.push_str("#b");
        for i in (0..w).rev() {
            s.push(if b.bit(i as u64) { '1' } else { '0' });
        }
    }
    s
}

/// Writes terms as one SMT-LIB expression: shared application nodes are bound by nested
/// `let`s, one `let` per height of the DAG (z3 parses long chains of `define-fun`s in
/// quadratic time; a `let` per level keeps both size and nesting small). `body` receives the
/// texts naming `roots` and returns the innermost expression.
pub fn let_expr(roots: &[Term], body: &dyn Fn(&[String]) -> String) -> String {
    let mut names: HashMap<*const Node, (String, usize)> = HashMap::new();
    let mut keep: Vec<Term> = Vec::new();
    let mut levels: Vec<Vec<String>> = Vec::new();
    let text = |t: &Term, names: &HashMap<*const Node, (String, usize)>| -> String {
        leaf(t).unwrap_or_else(|| names[&t.key()].0.clone())
    };
    for root in roots {
        let mut stack: Vec<(Term, bool)> = vec![(root.clone(), false)];
        while let Some((node, expanded)) = stack.pop() {
            if names.contains_key(&node.key()) || leaf(&node).is_some() {
                continue;
            }
            if !expanded {
                stack.push((node.clone(), true));
                for a in node.args().iter().rev() {
                    if leaf(a).is_none() && !names.contains_key(&a.key()) {
                        stack.push((a.clone(), false));
                    }
                }
                continue;
            }
            let Head::App(op) = node.head() else {
                continue;
            };
            let mut level = 0;
            let mut b = format!("({op}");
            for a in node.args() {
                b.push(' ');
                b.push_str(&text(a, &names));
                if let Some((_, l)) = names.get(&a.key()) {
                    level = level.max(l + 1);
                }
            }
            b.push(')');
            let name = format!("?t{}", names.len());
            if levels.len() <= level {
                levels.resize(level + 1, Vec::new());
            }
            levels[level].push(format!("({name} {b})"));
            names.insert(node.key(), (name, level));
            keep.push(node);
        }
    }
    let root_texts: Vec<String> = roots.iter().map(|r| text(r, &names)).collect();
    let mut out = body(&root_texts);
    for binds in levels.iter().rev() {
        out = format!("(let ({}) {out})", binds.join(" "));
    }
    out
}

fn leaf(t: &Term) -> Option<String> {
    match t.head() {
        Head::Bv(b) => Some(bits_literal(b)),
        Head::Bool(v) => Some(v.to_string()),
        Head::Var(n) => Some(n.clone()),
        Head::App(op) if t.args().is_empty() => Some(op.clone()),
        Head::App(_) => None,
    }
}

/// The SMT-LIB literal of a constant.
pub fn literal(b: &Bits) -> String {
    bits_literal(b)
}

/// Collects the declared constants (inputs) of terms, with their sorts, in first-seen order.
pub fn collect_vars(roots: &[Term]) -> Vec<(String, Sort)> {
    let mut seen = std::collections::HashSet::new();
    let mut names = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut stack: Vec<Term> = roots.to_vec();
    while let Some(t) = stack.pop() {
        if !seen.insert(t.key()) {
            continue;
        }
        if let Head::Var(n) = t.head() {
            if names.insert(n.clone()) {
                out.push((n.clone(), t.sort()));
            }
        }
        stack.extend(t.args().iter().cloned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_nodes_print_once_and_literals_inline() {
        let x = Term::var("x", Sort::Bv(8));
        let s = bvop("bvadd", &[&x, &Term::bv_u64(8, 3)]);
        let m = bvop("bvmul", &[&s, &s]);
        let out = let_expr(&[m], &|r| r[0].clone());
        assert_eq!(
            out,
            "(let ((?t0 (bvadd x #x03))) (let ((?t1 (bvmul ?t0 ?t0))) ?t1))"
        );
        assert_eq!(bits_literal(&Bits::from_u64(5, 5)), "#b00101");
    }

    #[test]
    fn boolean_folding() {
        let x = Term::var("x", Sort::Bv(1));
        let b = bv_to_bool(&x);
        assert_eq!(bool_to_bv(&b), x);
        assert_eq!(and(&b, &Term::bool(false)).as_bool(), Some(false));
        assert_eq!(or(&b, &Term::bool(false)), b);
        assert_eq!(not(&not(&b)), b);
    }
}
