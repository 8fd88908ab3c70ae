//! The launch description (`LAUNCH.json`, one line of `dispatch --batch`): which code runs,
//! over which grid, with which memory. Two forms share the grid and memory keys:
//!
//! - code object: `code_object` (a path, relative to the launch file's folder) and `kernel`;
//!   `kernarg_hex` holds the explicit arguments, the loader places it and fills the hidden
//!   arguments the metadata lists.
//! - raw (what a command processor sees): `code_hex` mapped at `code_addr` (the entry point),
//!   `rsrc1`/`rsrc2`/`rsrc3`, `user_sgprs`, `wave`, `lds_bytes`, `scratch_bytes`.
//!
//! Numbers are JSON numbers or strings in decimal or `0x` hex. Every error names its key.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::DispatchError;
use crate::spec::Arch;

/// Where the code comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Code {
    /// A code object and the kernel to run.
    Object {
        /// The code object's bytes.
        bytes: Vec<u8>,
        /// Where they were read from (for messages).
        path: String,
        /// The kernel name.
        kernel: String,
        /// The explicit kernel arguments.
        kernarg: Vec<u8>,
    },
    /// Raw code and the registers a command processor would set.
    Raw {
        /// The code bytes (the entry point is their first byte).
        bytes: Vec<u8>,
        /// Where they are mapped.
        addr: u64,
        /// COMPUTE_PGM_RSRC1.
        rsrc1: u32,
        /// COMPUTE_PGM_RSRC2.
        rsrc2: u32,
        /// COMPUTE_PGM_RSRC3.
        rsrc3: u32,
        /// COMPUTE_USER_DATA values, loaded into s0, s1, ...
        user_sgprs: Vec<u32>,
    },
}

/// What happens on an access to memory the launch did not map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unmapped {
    /// The dispatch stops with a fault naming the wave, PC, instruction and address.
    #[default]
    Fault,
    /// Reads give zero and writes create memory, reported after the run.
    Zero,
}

/// One launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The arch (required for raw code; checked against a code object's).
    pub arch: Option<Arch>,
    /// The code.
    pub code: Code,
    /// The number of workgroups in x, y, z.
    pub grid: [u32; 3],
    /// The workgroup size in work-items.
    pub block: [u32; 3],
    /// The grid size in work-items, when it is not `grid * block` (the last workgroups in a
    /// dimension are then partial).
    pub grid_items: Option<[u32; 3]>,
    /// The wave size (default: the code object's, or 32 on RDNA and 64 on CDNA).
    pub wave: Option<u32>,
    /// LDS bytes per workgroup (default: the descriptor's, or RSRC2's LDS_SIZE * 512).
    pub lds_bytes: Option<u64>,
    /// Scratch bytes per lane (default: the descriptor's private segment size).
    pub scratch_bytes: Option<u64>,
    /// Memory ranges and their initial bytes.
    pub memory: Vec<(u64, Vec<u8>)>,
    /// The access policy outside mapped memory.
    pub unmapped: Unmapped,
    /// The most instructions one wave may execute.
    pub step_budget: Option<u64>,
}

fn bad(key: &str, message: impl std::fmt::Display) -> DispatchError {
    DispatchError::Launch(format!("{key}: {message}"))
}

/// The arch a launch runs on: its `arch`, or its code object's.
///
/// # Errors
/// A [`DispatchError`] when neither says.
pub fn launch_arch(l: &Launch) -> Result<Arch, DispatchError> {
    match (&l.code, l.arch) {
        (Code::Object { bytes, path, .. }, _) => super::CodeObject::parse(bytes)
            .map(|c| c.arch)
            .map_err(|e| DispatchError::CodeObject(format!("{path}: {e}"))),
        (Code::Raw { .. }, Some(a)) => Ok(a),
        (Code::Raw { .. }, None) => Err(DispatchError::Launch("arch: missing".into())),
    }
}

/// Reads a number given as a JSON number or a decimal or `0x` hex string.
pub fn number(key: &str, v: &Value) -> Result<u64, DispatchError> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| bad(key, format!("{n} is not a non-negative integer"))),
        Value::String(s) => {
            let t = s.trim().replace('_', "");
            let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => t.parse::<u64>(),
            };
            r.map_err(|_| bad(key, format!("`{s}` is not a number (decimal or 0x hex)")))
        }
        other => Err(bad(key, format!("expected a number, found {other}"))),
    }
}

fn number32(key: &str, v: &Value) -> Result<u32, DispatchError> {
    let n = number(key, v)?;
    u32::try_from(n).map_err(|_| bad(key, format!("{n:#x} does not fit in 32 bits")))
}

/// Decodes hex text (whitespace ignored).
pub fn hex(key: &str, text: &str) -> Result<Vec<u8>, DispatchError> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let digits = digits.strip_prefix(b"0x".as_slice()).unwrap_or(&digits);
    if digits.len() % 2 != 0 {
        return Err(bad(key, "hex text has an odd number of digits"));
    }
    let val = |c: u8, at: usize| {
        (c as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| bad(key, format!("`{}` at digit {at} is not hex", c as char)))
    };
    let mut out = Vec::with_capacity(digits.len() / 2);
    for (i, pair) in digits.chunks(2).enumerate() {
        out.push(val(pair[0], 2 * i)? << 4 | val(pair[1], 2 * i + 1)?);
    }
    Ok(out)
}

fn dims(key: &str, v: &Value) -> Result<[u32; 3], DispatchError> {
    let list: Vec<&Value> = match v {
        Value::Array(a) => a.iter().collect(),
        single => vec![single],
    };
    if list.is_empty() || list.len() > 3 {
        return Err(bad(key, "expected 1 to 3 sizes"));
    }
    let mut out = [1u32; 3];
    for (i, x) in list.iter().enumerate() {
        out[i] = number32(&format!("{key}[{i}]"), x)?;
        if out[i] == 0 {
            return Err(bad(&format!("{key}[{i}]"), "a size must be at least 1"));
        }
    }
    Ok(out)
}

const KEYS: &[&str] = &[
    "arch",
    "code_object",
    "kernel",
    "kernarg_hex",
    "code_hex",
    "code_addr",
    "rsrc1",
    "rsrc2",
    "rsrc3",
    "user_sgprs",
    "wave",
    "lds_bytes",
    "scratch_bytes",
    "grid",
    "grid_items",
    "block",
    "memory",
    "unmapped",
    "step_budget",
];

impl Launch {
    /// Reads a launch from its JSON text; `dir` resolves a relative `code_object` path.
    ///
    /// # Errors
    /// [`DispatchError::Launch`] naming the key, or [`DispatchError::Io`] for an unreadable
    /// code object.
    pub fn from_json(text: &str, dir: &Path) -> Result<Launch, DispatchError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| DispatchError::Launch(format!("not JSON: {e}")))?;
        Launch::from_value(&v, dir)
    }

    /// Reads a launch from a JSON value.
    ///
    /// # Errors
    /// As [`Launch::from_json`].
    pub fn from_value(v: &Value, dir: &Path) -> Result<Launch, DispatchError> {
        let obj = v
            .as_object()
            .ok_or_else(|| DispatchError::Launch("a launch is a JSON object".into()))?;
        if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(bad(k, format!("unknown key (known: {})", KEYS.join(", "))));
        }
        let get = |k: &str| obj.get(k);
        let arch = match get("arch") {
            None => None,
            Some(Value::String(s)) => Some(
                Arch::from_name(s)
                    .ok_or_else(|| bad("arch", format!("`{s}` is not one of {}", Arch::names())))?,
            ),
            Some(o) => return Err(bad("arch", format!("expected a string, found {o}"))),
        };
        let text = |k: &str| -> Result<Option<&str>, DispatchError> {
            match get(k) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(o) => Err(bad(k, format!("expected a string, found {o}"))),
            }
        };
        let num = |k: &str| get(k).map(|x| number(k, x)).transpose();
        let num32 = |k: &str| get(k).map(|x| number32(k, x)).transpose();
        let code = match (text("code_object")?, text("code_hex")?) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "code_hex",
                    "give either code_object or code_hex, not both",
                ))
            }
            (None, None) => {
                return Err(DispatchError::Launch(
                    "no code: give code_object + kernel, or code_hex + code_addr".into(),
                ))
            }
            (Some(path), None) => {
                for k in ["code_addr", "rsrc1", "rsrc2", "rsrc3", "user_sgprs"] {
                    if get(k).is_some() {
                        return Err(bad(
                            k,
                            "belongs to the raw form (code_hex), not code_object",
                        ));
                    }
                }
                let kernel = text("kernel")?
                    .ok_or_else(|| bad("kernel", "missing (the kernel to run)"))?
                    .to_string();
                let full: PathBuf = if Path::new(path).is_absolute() {
                    path.into()
                } else {
                    dir.join(path)
                };
                let bytes = std::fs::read(&full).map_err(|e| DispatchError::Io {
                    path: full.display().to_string(),
                    message: e.to_string(),
                })?;
                let kernarg = match text("kernarg_hex")? {
                    Some(h) => hex("kernarg_hex", h)?,
                    None => Vec::new(),
                };
                Code::Object {
                    bytes,
                    path: full.display().to_string(),
                    kernel,
                    kernarg,
                }
            }
            (None, Some(h)) => {
                for k in ["kernel", "kernarg_hex"] {
                    if get(k).is_some() {
                        return Err(bad(
                            k,
                            "belongs to the code-object form; in the raw form put the \
                             kernel arguments in memory and their address in user_sgprs",
                        ));
                    }
                }
                let bytes = hex("code_hex", h)?;
                if bytes.is_empty() {
                    return Err(bad("code_hex", "no code"));
                }
                let user_sgprs = match get("user_sgprs") {
                    None => Vec::new(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .enumerate()
                        .map(|(i, x)| number32(&format!("user_sgprs[{i}]"), x))
                        .collect::<Result<_, _>>()?,
                    Some(o) => {
                        return Err(bad("user_sgprs", format!("expected a list, found {o}")))
                    }
                };
                Code::Raw {
                    bytes,
                    addr: num("code_addr")?.ok_or_else(|| bad("code_addr", "missing"))?,
                    rsrc1: num32("rsrc1")?.unwrap_or(0),
                    rsrc2: num32("rsrc2")?.ok_or_else(|| {
                        bad(
                            "rsrc2",
                            "missing (it gives the user SGPR count and workgroup ids)",
                        )
                    })?,
                    rsrc3: num32("rsrc3")?.unwrap_or(0),
                    user_sgprs,
                }
            }
        };
        if matches!(code, Code::Raw { .. }) && arch.is_none() {
            return Err(bad("arch", "missing (required with code_hex)"));
        }
        let wave = num32("wave")?;
        if let Some(w) = wave {
            if w != 32 && w != 64 {
                return Err(bad("wave", format!("{w} is not 32 or 64")));
            }
        }
        let mut memory = Vec::new();
        match get("memory") {
            None => {}
            Some(Value::Array(a)) => {
                for (i, r) in a.iter().enumerate() {
                    let key = format!("memory[{i}]");
                    let o = r.as_object().ok_or_else(|| {
                        bad(&key, "expected {\"addr\", \"hex\"} or {\"addr\", \"size\"}")
                    })?;
                    let addr = number(
                        &format!("{key}.addr"),
                        o.get("addr").ok_or_else(|| bad(&key, "missing addr"))?,
                    )?;
                    let bytes = match (o.get("hex"), o.get("size")) {
                        (Some(Value::String(h)), None) => hex(&format!("{key}.hex"), h)?,
                        (None, Some(s)) => {
                            let n = number(&format!("{key}.size"), s)?;
                            if n > 1 << 32 {
                                return Err(bad(&format!("{key}.size"), "over 4 GiB"));
                            }
                            vec![0; n as usize]
                        }
                        _ => return Err(bad(&key, "give hex (a string) or size, not both")),
                    };
                    if let Some(k) = o
                        .keys()
                        .find(|k| !["addr", "hex", "size"].contains(&k.as_str()))
                    {
                        return Err(bad(&format!("{key}.{k}"), "unknown key"));
                    }
                    if addr.checked_add(bytes.len() as u64).is_none() {
                        return Err(bad(&key, "range wraps past the end of the address space"));
                    }
                    memory.push((addr, bytes));
                }
            }
            Some(o) => return Err(bad("memory", format!("expected a list, found {o}"))),
        }
        let unmapped = match text("unmapped")? {
            None | Some("fault") => Unmapped::Fault,
            Some("zero") => Unmapped::Zero,
            Some(o) => return Err(bad("unmapped", format!("`{o}` is not fault or zero"))),
        };
        let block = dims(
            "block",
            get("block").ok_or_else(|| bad("block", "missing"))?,
        )?;
        let grid_items = get("grid_items")
            .map(|v| dims("grid_items", v))
            .transpose()?;
        let grid = match (get("grid"), grid_items) {
            (Some(g), items) => {
                let g = dims("grid", g)?;
                if let Some(items) = items {
                    for d in 0..3 {
                        if items[d].div_ceil(block[d]) != g[d] {
                            return Err(bad(
                                "grid_items",
                                format!(
                                    "{} work-items in dimension {d} do not make {} workgroups of {}",
                                    items[d], g[d], block[d]
                                ),
                            ));
                        }
                    }
                }
                g
            }
            (None, Some(items)) => [0, 1, 2].map(|d| items[d].div_ceil(block[d])),
            (None, None) => return Err(bad("grid", "missing (workgroups per dimension)")),
        };
        Ok(Launch {
            arch,
            code,
            grid,
            block,
            grid_items,
            wave,
            lds_bytes: num("lds_bytes")?,
            scratch_bytes: num("scratch_bytes")?,
            memory,
            unmapped,
            step_budget: num("step_budget")?,
        })
    }
}
