//! The JSON shape of a wave's state, read by `amdpcode run --state` and printed by `--json`:
//!
//! ```json
//! {"sgpr": {"s0": "0x1", "s[2:3]": "0x1122334455667788", "vcc": "0x0", "exec": "0xffffffff",
//!           "m0": 0, "scc": 1},
//!  "vgpr": {"v0": "0x5", "v1": ["0x0", "0x1"], "v255": "lane_id"},
//!  "memory": [{"addr": "0x10000", "hex": "00112233"}],
//!  "lds": [{"addr": "0x0", "hex": "..."}],
//!  "mode": "0x3c0"}
//! ```
//!
//! `mode` is the MODE register (hardware layout: `wave::mode`); without it a wave starts with
//! `wave::default_mode` of its arch.
//!
//! Values are JSON integers or strings (`0x` hex or decimal). A register range takes one value
//! as wide as the range; a VGPR takes one value for every lane, a list with one per lane, or
//! `"lane_id"`. Registers not set are zero, EXEC is all ones.

use serde_json::{json, Map, Value};

use super::state::{code, m0_code, n_sgprs, WaveState};

/// A malformed state file: the key (or `memory[i]`) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError {
    /// The offending key, e.g. `sgpr.s[2:3]` or `memory[0].hex`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

impl std::error::Error for StateError {}

fn err<T>(key: &str, message: impl Into<String>) -> Result<T, StateError> {
    Err(StateError {
        key: key.to_string(),
        message: message.into(),
    })
}

/// Parses a number given as a JSON integer or a `0x`/decimal string, up to 128 bits.
fn number(key: &str, v: &Value) -> Result<u128, StateError> {
    match v {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Ok(u as u128),
            (None, Some(i)) => Ok(i as i128 as u128 & u64::MAX as u128),
            _ => err(key, format!("`{n}` is not an integer")),
        },
        Value::Bool(b) => Ok(*b as u128),
        Value::String(s) => {
            let t = s.trim().replace('_', "");
            let parsed = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                u128::from_str_radix(h, 16).ok()
            } else if let Some(neg) = t.strip_prefix('-') {
                neg.parse::<i64>()
                    .ok()
                    .map(|x| (-(x as i128)) as u128 & u64::MAX as u128)
            } else {
                t.parse::<u128>().ok()
            };
            parsed.map_or_else(|| err(key, format!("`{s}` is not a number")), Ok)
        }
        _ => err(key, "expected a number or a string"),
    }
}

fn check_width(key: &str, v: u128, bits: u32) -> Result<u128, StateError> {
    if bits < 128 && v >> bits != 0 {
        return err(key, format!("value 0x{v:x} is wider than {bits} bits"));
    }
    Ok(v)
}

/// Parses `s5`, `s[2:3]`, `ttmp4`, `v7`, `v[2:3]` into (first, count).
fn reg_range(name: &str, prefix: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix(prefix)?;
    if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = inner.split_once(':')?;
        let (a, b) = (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?);
        return (b >= a).then_some((a, b - a + 1));
    }
    rest.parse::<u32>().ok().map(|n| (n, 1))
}

fn parse_hex_bytes(key: &str, s: &str) -> Result<Vec<u8>, StateError> {
    let digits: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return err(key, "not an even number of hex digits");
    }
    Ok((0..digits.len() / 2)
        .map(|i| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect())
}

/// Applies a state file to a fresh wave.
///
/// # Errors
/// A [`StateError`] naming the first bad key.
pub fn apply(wave: &mut WaveState, text: &str) -> Result<(), StateError> {
    let root: Value = serde_json::from_str(text).map_err(|e| StateError {
        key: format!("line {}", e.line()),
        message: format!("not JSON: {e}"),
    })?;
    let obj = match root.as_object() {
        Some(o) => o,
        None => return err("(root)", "expected an object"),
    };
    for (k, v) in obj {
        match k.as_str() {
            "sgpr" => apply_sgprs(wave, v)?,
            "vgpr" => apply_vgprs(wave, v)?,
            "memory" | "lds" => apply_memory(wave, k, v)?,
            "mode" => wave.mode = check_width("mode", number("mode", v)?, 32)? as u32,
            _ => {
                return err(
                    k,
                    "unknown section (expected sgpr, vgpr, memory, lds, mode)",
                )
            }
        }
    }
    Ok(())
}

fn apply_sgprs(wave: &mut WaveState, v: &Value) -> Result<(), StateError> {
    let Some(map) = v.as_object() else {
        return err("sgpr", "expected an object");
    };
    let arch = wave.arch;
    for (name, val) in map {
        let key = format!("sgpr.{name}");
        let lname = name.to_ascii_lowercase();
        let (first, count) = match lname.as_str() {
            "scc" => {
                wave.scc = check_width(&key, number(&key, val)?, 1)? == 1;
                continue;
            }
            "pc" => {
                wave.pc = check_width(&key, number(&key, val)?, 64)? as u64;
                continue;
            }
            "mode" => {
                wave.mode = check_width(&key, number(&key, val)?, 32)? as u32;
                continue;
            }
            "vcc" => (code::VCC_LO, 2),
            "vcc_lo" => (code::VCC_LO, 1),
            "vcc_hi" => (code::VCC_HI, 1),
            "exec" => (code::EXEC_LO, 2),
            "exec_lo" => (code::EXEC_LO, 1),
            "exec_hi" => (code::EXEC_HI, 1),
            "m0" => (m0_code(arch), 1),
            _ => {
                if let Some((a, n)) = reg_range(&lname, "ttmp") {
                    if a + n > 16 {
                        return err(&key, "ttmp registers are ttmp0..ttmp15");
                    }
                    (code::TTMP0 + a, n)
                } else if let Some((a, n)) = reg_range(&lname, "s") {
                    if a + n > n_sgprs(arch) {
                        return err(
                            &key,
                            format!(
                                "unknown register (this arch has s0..s{})",
                                n_sgprs(arch) - 1
                            ),
                        );
                    }
                    (a, n)
                } else {
                    return err(&key, "unknown register");
                }
            }
        };
        let value = check_width(&key, number(&key, val)?, 32 * count)?;
        for i in 0..count {
            wave.write_sgpr(first + i, (value >> (32 * i)) as u32);
        }
    }
    Ok(())
}

fn apply_vgprs(wave: &mut WaveState, v: &Value) -> Result<(), StateError> {
    let Some(map) = v.as_object() else {
        return err("vgpr", "expected an object");
    };
    for (name, val) in map {
        let key = format!("vgpr.{name}");
        let Some((first, count)) = reg_range(&name.to_ascii_lowercase(), "v") else {
            return err(&key, "unknown register");
        };
        if first + count > 256 {
            return err(&key, "unknown register (VGPRs are v0..v255)");
        }
        let lanes = wave.wave_size;
        let per_lane: Vec<u128> = match val {
            Value::String(s) if s == "lane_id" || s == "tid" => (0..lanes as u128).collect(),
            Value::Array(items) => {
                if items.len() != lanes as usize {
                    return err(
                        &key,
                        format!("{} values for a wave of {lanes} lanes", items.len()),
                    );
                }
                let mut out = Vec::new();
                for (i, it) in items.iter().enumerate() {
                    let k = format!("{key}[{i}]");
                    out.push(check_width(&k, number(&k, it)?, 32 * count)?);
                }
                out
            }
            _ => {
                let x = check_width(&key, number(&key, val)?, 32 * count)?;
                vec![x; lanes as usize]
            }
        };
        for (lane, x) in per_lane.iter().enumerate() {
            for i in 0..count {
                wave.set_vgpr(lane as u32, first + i, (x >> (32 * i)) as u32);
            }
        }
    }
    Ok(())
}

fn apply_memory(wave: &mut WaveState, section: &str, v: &Value) -> Result<(), StateError> {
    let Some(items) = v.as_array() else {
        return err(section, "expected a list of {\"addr\", \"hex\"}");
    };
    for (i, it) in items.iter().enumerate() {
        let key = format!("{section}[{i}]");
        let Some(o) = it.as_object() else {
            return err(&key, "expected {\"addr\", \"hex\"}");
        };
        for k in o.keys() {
            if k != "addr" && k != "hex" {
                return err(&format!("{key}.{k}"), "unknown key (expected addr, hex)");
            }
        }
        let addr_key = format!("{key}.addr");
        let addr = check_width(
            &addr_key,
            number(&addr_key, o.get("addr").unwrap_or(&Value::Null))?,
            64,
        )? as u64;
        let hex_key = format!("{key}.hex");
        let Some(hex) = o.get("hex").and_then(Value::as_str) else {
            return err(&hex_key, "expected a hex string");
        };
        let bytes = parse_hex_bytes(&hex_key, hex)?;
        let target = if section == "lds" {
            &mut wave.lds
        } else {
            &mut wave.memory
        };
        for (j, b) in bytes.iter().enumerate() {
            target.set(addr.wrapping_add(j as u64), *b);
        }
    }
    Ok(())
}

fn hex(v: u64) -> Value {
    Value::String(format!("0x{v:x}"))
}

/// The final state in the same shape: every SGPR, vcc, exec, m0, scc, pc, every VGPR that
/// is non-zero in some lane, and the memory ranges the program wrote.
pub fn to_json(wave: &WaveState) -> Value {
    let mut sgpr = Map::new();
    for c in 0..n_sgprs(wave.arch) {
        sgpr.insert(format!("s{c}"), hex(wave.read_sgpr(c) as u64));
    }
    let mask = |v: u64| {
        if wave.wave_size == 32 {
            v & 0xffff_ffff
        } else {
            v
        }
    };
    sgpr.insert("vcc".into(), hex(mask(wave.vcc())));
    sgpr.insert("exec".into(), hex(mask(wave.sgpr_pair(code::EXEC_LO))));
    sgpr.insert("m0".into(), hex(wave.read_sgpr(m0_code(wave.arch)) as u64));
    sgpr.insert("scc".into(), json!(wave.scc as u8));
    sgpr.insert("pc".into(), hex(wave.pc));
    let mut vgpr = Map::new();
    for reg in 0..super::state::N_VGPRS as u32 {
        let vals: Vec<u32> = (0..wave.wave_size).map(|l| wave.vgpr(l, reg)).collect();
        if vals.iter().any(|&x| x != 0) {
            vgpr.insert(
                format!("v{reg}"),
                Value::Array(vals.iter().map(|&x| hex(x as u64)).collect()),
            );
        }
    }
    let memory: Vec<Value> = wave
        .written_ranges()
        .into_iter()
        .map(|(a, bytes)| {
            let h: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            json!({"addr": format!("0x{a:x}"), "hex": h})
        })
        .collect();
    json!({"sgpr": sgpr, "vgpr": vgpr, "memory": memory, "mode": hex(wave.mode as u64)})
}
