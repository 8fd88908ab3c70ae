//! Assembly text of the RDNA parameter-interpolation encodings: LDS direct/parameter loads
//! (`lds_param_load v1, attr0.x wait_vdst:0` on RDNA 3, `ds_param_load ... wait_va_vdst:N
//! wait_vm_vsrc:N` on RDNA 4) and VINTERP (`v_interp_p10_f32 v0, -v1, v2, v3 clamp
//! op_sel:[...] wait_exp:N`), in llvm-mc-22's spelling: wait fields are always printed, the
//! attribute channel as `.x/.y/.z/.w`.
//!
//! The formats are recognised by their fields (`attr_chan` for the loads, `waitexp` for
//! VINTERP) rather than by family name, which differs between the archs.

use super::enc::{single_vgpr, Enc};
use super::inst::{AsmError, Inst};
use super::syntax::{Arg, Expr, Statement};
use super::tables::InstInfo;

const CHANNELS: [char; 4] = ['x', 'y', 'z', 'w'];

/// The wait fields of the load format in print order, with their modifier names.
fn load_waits(e_fields: &dyn Fn(&str) -> bool) -> &'static [&'static str] {
    if e_fields("wait_va_vdst") {
        &["wait_va_vdst", "wait_vm_vsrc"]
    } else {
        &["wait_vdst"]
    }
}

/// Whether `inst` is an LDS parameter/direct load.
fn is_load(inst_has: &dyn Fn(&str) -> bool) -> bool {
    inst_has("attr_chan")
}

/// Whether `inst` is VINTERP.
fn is_vinterp(inst_has: &dyn Fn(&str) -> bool) -> bool {
    inst_has("waitexp")
}

/// The text of an LDS load or VINTERP instruction; `None` for other formats.
pub(crate) fn print(info: &InstInfo, inst: &Inst) -> Option<String> {
    let has = |n: &str| inst.field(n).is_some();
    let f = |n: &str| inst.field(n).unwrap_or(0);
    let mut text = info.mnemonic.clone();
    if is_load(&has) {
        text.push_str(&format!(" v{}", f("vdst")));
        if info.mnemonic.contains("param") {
            let chan = CHANNELS[(f("attr_chan") & 3) as usize];
            text.push_str(&format!(", attr{}.{chan}", f("attr")));
        }
        for w in load_waits(&has) {
            text.push_str(&format!(" {w}:{}", f(w)));
        }
        return Some(text);
    }
    if !is_vinterp(&has) {
        return None;
    }
    let neg = f("neg");
    let srcs: Vec<String> = ["src0", "src1", "src2"]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let minus = if neg >> i & 1 != 0 { "-" } else { "" };
            // VINTERP sources are VGPRs (operand codes 256..511).
            format!("{minus}v{}", f(s).wrapping_sub(256) & 0xff)
        })
        .collect();
    text.push_str(&format!(" v{}, {}", f("vdst"), srcs.join(", ")));
    if f("clmp") != 0 {
        text.push_str(" clamp");
    }
    let opsel = f("opsel");
    if opsel != 0 {
        let bits: Vec<String> = (0..4).map(|i| (opsel >> i & 1).to_string()).collect();
        text.push_str(&format!(" op_sel:[{}]", bits.join(",")));
    }
    text.push_str(&format!(" wait_exp:{}", f("waitexp")));
    Some(text)
}

fn vgpr(e: &Enc<'_>, arg: &Arg) -> Result<(bool, u64), AsmError> {
    let (neg, expr) = match &arg.expr {
        Expr::Neg(inner) => (true, inner.as_ref()),
        other => (false, other),
    };
    single_vgpr(expr)
        .map(|v| (neg, u64::from(v)))
        .ok_or_else(|| e.err(arg.col, "invalid operand for instruction"))
}

fn small(e: &Enc<'_>, value: &Option<Expr>, max: i64, col: usize) -> Result<u64, AsmError> {
    match value {
        Some(Expr::Int(v)) if (0..=max).contains(v) => Ok(*v as u64),
        _ => Err(e.err(col, format!("expected an integer 0..{max}"))),
    }
}

/// `attrN.c`: the attribute number and channel.
fn attr(e: &Enc<'_>, arg: &Arg) -> Result<(u64, u64), AsmError> {
    let bad = || e.err(arg.col, "expected an attribute such as attr0.x");
    let Expr::Ident(name) = &arg.expr else {
        return Err(bad());
    };
    let rest = name.to_ascii_lowercase();
    let (num, chan) = rest
        .strip_prefix("attr")
        .and_then(|r| r.split_once('.'))
        .ok_or_else(bad)?;
    let num: u64 = num.parse().ok().filter(|n| *n < 64).ok_or_else(bad)?;
    let mut chars = chan.chars();
    let chan = match (chars.next(), chars.next()) {
        (Some(c), None) => CHANNELS.iter().position(|&x| x == c).ok_or_else(bad)?,
        _ => return Err(bad()),
    };
    Ok((num, chan as u64))
}

/// Encodes an LDS load or VINTERP statement; `None` if `e`'s format is neither.
pub(crate) fn encode(
    e: &mut Enc<'_>,
    info: &InstInfo,
    stmt: &Statement,
) -> Option<Result<(), AsmError>> {
    let fields: Vec<String> = ["attr_chan", "waitexp", "wait_va_vdst"]
        .iter()
        .filter(|n| e.has_field(n))
        .map(|n| n.to_string())
        .collect();
    let has = |n: &str| fields.iter().any(|f| f == n);
    if is_load(&has) {
        Some(encode_load(e, info, stmt, load_waits(&has)))
    } else if is_vinterp(&has) {
        Some(encode_vinterp(e, stmt))
    } else {
        None
    }
}

fn arity(e: &Enc<'_>, stmt: &Statement, n: usize) -> Result<(), AsmError> {
    if stmt.args.len() == n {
        return Ok(());
    }
    let col = stmt.args.get(n).map_or(stmt.col, |a| a.col);
    Err(e.err(col, format!("expected {n} operands")))
}

fn encode_load(
    e: &mut Enc<'_>,
    info: &InstInfo,
    stmt: &Statement,
    waits: &[&str],
) -> Result<(), AsmError> {
    let param = info.mnemonic.contains("param");
    arity(e, stmt, if param { 2 } else { 1 })?;
    let (neg, vdst) = vgpr(e, &stmt.args[0])?;
    if neg {
        return Err(e.err(stmt.args[0].col, "invalid operand for instruction"));
    }
    e.set("vdst", vdst);
    if param {
        let (num, chan) = attr(e, &stmt.args[1])?;
        e.set("attr", num);
        e.set("attr_chan", chan);
    }
    for m in &stmt.mods {
        if !waits.contains(&m.name.as_str()) {
            return Err(e.err(m.col, "invalid modifier for instruction"));
        }
        let max = if m.name == "wait_vm_vsrc" { 1 } else { 15 };
        let v = small(e, &m.value, max, m.col)?;
        e.set(&m.name, v);
    }
    Ok(())
}

fn encode_vinterp(e: &mut Enc<'_>, stmt: &Statement) -> Result<(), AsmError> {
    arity(e, stmt, 4)?;
    let (neg, vdst) = vgpr(e, &stmt.args[0])?;
    if neg {
        return Err(e.err(stmt.args[0].col, "invalid operand for instruction"));
    }
    e.set("vdst", vdst);
    let mut negs = 0;
    for (i, field) in ["src0", "src1", "src2"].iter().enumerate() {
        let (neg, v) = vgpr(e, &stmt.args[i + 1])?;
        negs |= u64::from(neg) << i;
        e.set(field, 256 + v);
    }
    e.set("neg", negs);
    for m in &stmt.mods {
        match m.name.as_str() {
            "clamp" if m.value.is_none() => e.set("clmp", 1),
            "wait_exp" => {
                let v = small(e, &m.value, 7, m.col)?;
                e.set("waitexp", v);
            }
            "op_sel" => {
                let bad = || e.err(m.col, "op_sel takes four bits: op_sel:[a,b,c,d]");
                let Some(Expr::List(items)) = &m.value else {
                    return Err(bad());
                };
                if items.len() != 4 {
                    return Err(bad());
                }
                let mut bits = 0;
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Expr::Int(b @ 0..=1) => bits |= (*b as u64) << i,
                        _ => return Err(bad()),
                    }
                }
                e.set("opsel", bits);
            }
            _ => return Err(e.err(m.col, "invalid modifier for instruction")),
        }
    }
    Ok(())
}
