//! Values as users write them: `--set S0=0x1f,S1=-1,EXEC=[1,0,1]` on the command line and
//! JSON values in batch files; and outputs as hex text or JSON.

use std::fmt;

use serde_json::{json, Map, Value};

use crate::interp::RegValue;
use crate::value::Bits;

/// A value that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// What was wrong, naming the offending text.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

fn bad(message: String) -> InputError {
    InputError { message }
}

/// Parses one number: decimal (`42`, `-1`, two's complement) or hex (`0x2a`, any length).
///
/// # Errors
/// [`InputError`] naming the text.
pub fn parse_number(text: &str) -> Result<Bits, InputError> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    let v = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if h.is_empty() || h.len() > 512 {
            return Err(bad(format!("`{text}` is not a hex value")));
        }
        let width = (h.len() as u32 * 4).max(128);
        Bits::from_hex(width, h).ok_or_else(|| bad(format!("`{text}` is not a hex value")))?
    } else {
        let n: u128 = digits
            .parse()
            .map_err(|_| bad(format!("`{text}` is not a number (decimal or 0x-hex)")))?;
        Bits::from_u128(128, n)
    };
    Ok(if neg { v.neg() } else { v })
}

/// Parses a value: a number, or a per-lane list `[a, b, ...]` (commas or spaces).
///
/// # Errors
/// [`InputError`] naming the text.
pub fn parse_value(text: &str) -> Result<RegValue, InputError> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| bad(format!("`{text}`: a per-lane list ends with `]`")))?;
        let items = inner
            .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(parse_number)
            .collect::<Result<Vec<_>, _>>()?;
        if items.is_empty() || items.len() > 64 {
            return Err(bad(format!("`{text}`: a per-lane list has 1 to 64 values")));
        }
        return Ok(RegValue::Lanes(items));
    }
    Ok(RegValue::Uniform(parse_number(t)?))
}

/// Splits `A=1,B=[1,2],C=0x3` at the top-level commas.
///
/// # Errors
/// [`InputError`] for an item without `=` or a bad value.
pub fn parse_assignments(text: &str) -> Result<Vec<(String, RegValue)>, InputError> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    let bytes: Vec<char> = text.chars().collect();
    let mut current = String::new();
    for (i, c) in bytes.iter().enumerate() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut current));
                start = i + 1;
                continue;
            }
            _ => {}
        }
        current.push(*c);
    }
    let _ = start;
    items.push(current);
    let mut out = Vec::new();
    for item in items.iter().filter(|s| !s.trim().is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| bad(format!("`{item}`: expected NAME=VALUE")))?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return Err(bad(format!("`{name}` is not a register name")));
        }
        out.push((name.to_string(), parse_value(value)?));
    }
    Ok(out)
}

/// Reads a JSON value: an integer, a decimal or 0x-hex string, or a list of those (per lane).
///
/// # Errors
/// [`InputError`] describing the value.
pub fn json_value(v: &Value) -> Result<RegValue, InputError> {
    match v {
        Value::Array(items) => {
            if items.is_empty() || items.len() > 64 {
                return Err(bad("a per-lane list has 1 to 64 values".into()));
            }
            let vals = items
                .iter()
                .map(json_number)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(RegValue::Lanes(vals))
        }
        other => Ok(RegValue::Uniform(json_number(other)?)),
    }
}

fn json_number(v: &Value) -> Result<Bits, InputError> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(Bits::from_u64(128, u))
            } else if let Some(i) = n.as_i64() {
                Ok(Bits::from_u128(128, i as i128 as u128))
            } else {
                Err(bad(format!("{n} is not an integer")))
            }
        }
        Value::String(s) => parse_number(s),
        Value::Bool(b) => Ok(Bits::from_u64(128, *b as u64)),
        other => Err(bad(format!("{other} is not a value"))),
    }
}

/// Hex text of a value: `0x1f`, or `[0x1, 0x2, ...]` per lane.
pub fn hex(v: &RegValue) -> String {
    match v {
        RegValue::Uniform(b) => b.to_string(),
        RegValue::Lanes(l) => {
            let parts: Vec<String> = l.iter().map(|b| b.to_string()).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The JSON form of outputs: `{"D0": "0x...", "SCC": "0x1", "VCC": [...]}`.
pub fn outputs_json(values: &[(String, RegValue)]) -> Value {
    let mut m = Map::new();
    for (name, v) in values {
        let jv = match v {
            RegValue::Uniform(b) => json!(b.to_string()),
            RegValue::Lanes(l) => json!(l.iter().map(|b| b.to_string()).collect::<Vec<_>>()),
        };
        m.insert(name.clone(), jv);
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("42").expect("ok").low_u64(), 42);
        assert_eq!(
            parse_number("0xFFFF_FFFF").expect("ok").low_u64(),
            0xffff_ffff
        );
        assert_eq!(
            parse_number("-1").expect("ok").zext(32).low_u64(),
            0xffff_ffff
        );
        assert!(parse_number("0xg").is_err());
        assert!(parse_number("1.5").is_err());
        assert!(parse_number("").is_err());
    }

    #[test]
    fn assignments_with_lists() {
        let a = parse_assignments("S0=0x1,S1=[1,2,3],SCC=1").expect("ok");
        assert_eq!(a.len(), 3);
        assert_eq!(a[1].0, "S1");
        assert!(matches!(&a[1].1, RegValue::Lanes(v) if v.len() == 3));
        assert!(parse_assignments("S0").is_err());
        assert!(parse_assignments("S 0=1").is_err());
    }

    #[test]
    fn json_values() {
        assert_eq!(
            json_value(&json!(-1)).map(|v| hex(&v)).expect("ok"),
            format!("{}", Bits::from_u128(128, u128::MAX))
        );
        assert!(matches!(json_value(&json!(["0x1", 2])), Ok(RegValue::Lanes(v)) if v.len() == 2));
        assert!(json_value(&json!({"a": 1})).is_err());
        assert!(json_value(&json!(1.5)).is_err());
    }
}
