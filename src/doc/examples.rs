//! Worked examples: inputs chosen by operand type (zero, an ordinary value, NaN and overflow
//! for floats, wrap-around for integers, EXEC partly set for vector instructions), run by the
//! interpreter when the site is built. Each example is shown with the `amdpcode eval` command
//! that reproduces it, and its output in the same form `eval` prints.

use crate::exec::{self, Machine, Prepared};
use crate::inputs;
use crate::ir::RegRole;
use crate::spec::Instruction;

/// One worked example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// A short title (`zero`, `NaN`, ...).
    pub title: String,
    /// What the inputs probe.
    pub why: String,
    /// The wave size.
    pub wave: u32,
    /// The `--set` argument, e.g. `S0=0x3fc00000,S1=0x40000000`.
    pub set: String,
    /// What `amdpcode eval` prints (`NAME = value` lines), or its error message.
    pub output: Result<String, String>,
}

/// The data type class of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// IEEE binary16, binary32 or binary64, or bfloat16 (`bf`), or two packed halves.
    Float {
        bits: u32,
        bf: bool,
        packed: bool,
    },
    Signed,
    Unsigned,
}

/// The operand-table format behind a pseudocode operand name (`S0` is `src0`, `ssrc0` or
/// `vsrc0`, ...), as `FMT_NUM_F32` etc.
fn format_of<'a>(inst: &'a Instruction, name: &str) -> Option<&'a str> {
    let fields: &[&str] = match name {
        "S0" => &["src0", "ssrc0", "vsrc0"],
        "S1" => &["src1", "ssrc1", "vsrc1"],
        "S2" => &["src2", "vsrc2"],
        "D0" => &["vdst", "sdst", "vdstx"],
        _ => &[],
    };
    fields
        .iter()
        .find_map(|f| inst.operands.iter().find(|o| o.field == *f))
        .map(|o| o.format.as_str())
}

fn class_of(format: Option<&str>) -> Class {
    let f = format
        .unwrap_or("")
        .trim_start_matches("FMT_")
        .trim_start_matches("NUM_");
    let packed = f.starts_with("PK");
    let base = f.rsplit('_').next().unwrap_or(f);
    if let Some(n) = base.strip_prefix("BF") {
        if n.parse::<u32>().is_ok() {
            return Class::Float {
                bits: 16,
                bf: true,
                packed,
            };
        }
    }
    if let Some(n) = base.strip_prefix('F') {
        if let Ok(bits @ (16 | 32 | 64)) = n.parse::<u32>() {
            return Class::Float {
                bits,
                bf: false,
                packed,
            };
        }
    }
    if base.starts_with('I') {
        Class::Signed
    } else {
        Class::Unsigned
    }
}

fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// The kinds of example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Typical,
    Zero,
    Nan,
    Overflow,
}

/// The value of operand number `k` (0 for S0, ...) of `class` in `case`, `width` bits.
fn value(class: Class, case: Case, k: usize, width: u32) -> u128 {
    let v: u128 = match class {
        Class::Float { bits, bf, packed } => {
            // (typical values 1.5, 2.0, -0.75), quiet NaN, largest finite.
            let (typical, nan, max): ([u128; 3], u128, u128) = match (bits, bf) {
                (16, true) => ([0x3fc0, 0x4000, 0xbf40], 0x7fc0, 0x7f7f),
                (16, false) => ([0x3e00, 0x4000, 0xba00], 0x7e00, 0x7bff),
                (64, _) => (
                    [
                        0x3ff8_0000_0000_0000,
                        0x4000_0000_0000_0000,
                        0xbfe8_0000_0000_0000,
                    ],
                    0x7ff8_0000_0000_0000,
                    0x7fef_ffff_ffff_ffff,
                ),
                _ => (
                    [0x3fc0_0000, 0x4000_0000, 0xbf40_0000],
                    0x7fc0_0000,
                    0x7f7f_ffff,
                ),
            };
            let one = match (bits, bf) {
                (16, true) => 0x3f80,
                (16, false) => 0x3c00,
                (64, _) => 0x3ff0_0000_0000_0000,
                _ => 0x3f80_0000,
            };
            let x = match case {
                Case::Typical => typical[k % 3],
                Case::Zero => 0,
                Case::Nan if k == 0 => nan,
                Case::Nan => one,
                Case::Overflow if k < 2 => max,
                Case::Overflow => one,
            };
            if packed {
                // The high half a different value in the typical case.
                let hi = if case == Case::Typical {
                    typical[(k + 1) % 3]
                } else {
                    x
                };
                (hi << bits) | x
            } else {
                x
            }
        }
        Class::Signed => match case {
            Case::Typical => [(-5i128) as u128, 3, 2][k % 3],
            Case::Zero => 0,
            Case::Overflow if k == 0 => mask(width) >> 1,
            Case::Overflow | Case::Nan => 1,
        },
        Class::Unsigned => match case {
            Case::Typical => [0x10f0_0305, 0x7, 0x3][k % 3],
            Case::Zero => 0,
            Case::Overflow if k == 0 => u128::MAX,
            Case::Overflow | Case::Nan => 1,
        },
    };
    v & mask(width)
}

fn hex(v: u128) -> String {
    format!("{v:#x}")
}

/// Whether the text's first statement naming D0 assigns it (so D0 is read only after it is
/// written, as in `D0.u64 = tmp; SCC = D0.u64 != 0ULL`, and is no input).
fn writes_d0_first(text: &str) -> bool {
    let Some(stmt) = text
        .split([';', '\n'])
        .map(str::trim)
        .find(|s| s.contains("D0"))
    else {
        return false;
    };
    if !stmt.starts_with("D0") {
        return false;
    }
    // The first `=` is a plain assignment: not `==`, `!=`, `<=`, `>=`, `+=`, `|=`, ...
    let b = stmt.as_bytes();
    b.iter().position(|&c| c == b'=').is_some_and(|i| {
        let before = if i > 0 { b[i - 1] } else { b' ' };
        let after = b.get(i + 1).copied().unwrap_or(b' ');
        after != b'='
            && (before.is_ascii_alphanumeric() || matches!(before, b' ' | b']' | b')'))
            && !stmt[i + 1..].contains("D0")
    })
}

/// The registers an example sets: operands and wave state the entry reads, with the
/// operand number used to pick values (`None` for wave state).
fn inputs_of(p: &Prepared, text: &str) -> Vec<(String, u32, Option<usize>)> {
    let mut out = Vec::new();
    let d0_written_first = writes_d0_first(text);
    for r in &p.function.regs {
        if !r.read || (r.name == "D0" && d0_written_first) {
            continue;
        }
        let k = match r.name.as_str() {
            "S0" => Some(0),
            "S1" => Some(1),
            "S2" => Some(2),
            "D0" => Some(2),
            "SIMM16" | "SIMM32" => Some(3),
            "SCC" | "VCC" | "EXEC" | "M0" => None,
            _ => continue,
        };
        if r.role != RegRole::Operand && r.role != RegRole::Wave {
            continue;
        }
        out.push((r.name.clone(), r.width, k));
    }
    out
}

/// Runs `set` as `amdpcode eval` does and returns what it prints.
pub fn run(p: &Prepared, text: &str, wave: u32, set: &str) -> Result<String, String> {
    let values = inputs::parse_assignments(set).map_err(|e| format!("--set: {e}"))?;
    let mut m = Machine::new(wave);
    for (name, v) in values {
        m.values.insert(name, v);
    }
    let out = exec::run_interp(p, &mut m).map_err(|e| exec::describe_error(p, text, &e))?;
    let mut s = String::new();
    for (name, v) in &out.values {
        s.push_str(&format!("{name} = {}\n", inputs::hex(v)));
    }
    Ok(s)
}

/// The examples of one instruction, computed.
pub fn examples(inst: &Instruction, p: &Prepared, text: &str, wave: u32) -> Vec<Example> {
    let regs = inputs_of(p, text);
    let classes: Vec<Class> = regs
        .iter()
        .map(|(n, _, _)| class_of(format_of(inst, n)))
        .collect();
    let has_float = classes
        .iter()
        .zip(&regs)
        .any(|(c, r)| r.2.is_some_and(|k| k < 3) && matches!(c, Class::Float { .. }));
    let has_operand = regs.iter().any(|r| r.2.is_some_and(|k| k < 3));
    let mut cases: Vec<(Case, &str, &str)> = vec![(
        Case::Typical,
        "ordinary values",
        "Ordinary inputs (floats 1.5, 2.0, -0.75; integers 0x10f00305, 7, 3 or -5, 3, 2).",
    )];
    if has_operand {
        cases.push((Case::Zero, "zero", "Every source operand zero."));
    }
    if has_float {
        cases.push((
            Case::Nan,
            "NaN",
            "A quiet NaN in the first source, 1.0 in the others.",
        ));
        cases.push((
            Case::Overflow,
            "overflow",
            "The largest finite value in the first two sources (a sum or product overflows).",
        ));
    } else if has_operand {
        cases.push((
            Case::Overflow,
            "overflow",
            "The largest value of the type in the first source, 1 in the others (wraps, \
             carries or saturates).",
        ));
    }
    let assign = |case: Case, per_lane: bool| -> String {
        let mut parts = Vec::new();
        for ((name, width, k), class) in regs.iter().zip(&classes) {
            let text = match (name.as_str(), k) {
                ("SCC", _) => "1".to_string(),
                ("VCC", _) => "0x5".to_string(),
                ("EXEC", _) => "0xff00ff".to_string(),
                ("M0", _) => "0x0".to_string(),
                (_, Some(3)) => hex(0x1234 & mask(*width)),
                (_, Some(k)) => {
                    let v = value(*class, case, *k, *width);
                    if per_lane && *k == 0 {
                        let w = *width;
                        let lanes: Vec<String> = (0..4u128)
                            .map(|l| match class {
                                Class::Float { .. } => hex(value(*class, case, l as usize, w)),
                                _ => hex(v.wrapping_add(l) & mask(w)),
                            })
                            .collect();
                        format!("[{}]", lanes.join(","))
                    } else {
                        hex(v)
                    }
                }
                _ => continue,
            };
            parts.push(format!("{name}={text}"));
        }
        if per_lane {
            parts.retain(|p| !p.starts_with("EXEC="));
            parts.push("EXEC=0x5".to_string());
        }
        parts.join(",")
    };
    let mut out: Vec<Example> = cases
        .iter()
        .map(|&(case, title, why)| {
            let set = assign(case, false);
            Example {
                title: title.to_string(),
                why: why.to_string(),
                wave,
                output: run(p, text, wave, &set),
                set,
            }
        })
        .collect();
    if p.vector && !p.wave_level {
        let set = assign(Case::Typical, true);
        out.push(Example {
            title: "EXEC partly set".into(),
            why: "Only lanes 0 and 2 active (EXEC=0x5), the first source different in lanes \
                  0..3: inactive lanes keep their old value."
                .into(),
            wave,
            output: run(p, text, wave, &set),
            set,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_formats_pick_their_class() {
        assert_eq!(
            class_of(Some("FMT_NUM_F32")),
            Class::Float {
                bits: 32,
                bf: false,
                packed: false
            }
        );
        assert_eq!(
            class_of(Some("FMT_NUM_BF16")),
            Class::Float {
                bits: 16,
                bf: true,
                packed: false
            }
        );
        assert_eq!(
            class_of(Some("FMT_NUM_PK2_F16")),
            Class::Float {
                bits: 16,
                bf: false,
                packed: true
            }
        );
        assert_eq!(class_of(Some("FMT_NUM_I32")), Class::Signed);
        assert_eq!(class_of(Some("FMT_NUM_B64")), Class::Unsigned);
        assert_eq!(class_of(None), Class::Unsigned);
    }

    #[test]
    fn destination_written_before_read_is_no_input() {
        assert!(writes_d0_first(
            "tmp = 0ULL;\nD0.u64 = tmp;\nSCC = D0.u64 != 0ULL"
        ));
        assert!(!writes_d0_first("D0.f32 = fma(S0.f32, S1.f32, D0.f32)"));
        assert!(!writes_d0_first("tmp = D0.u32;\nD0.u32 = tmp + 1U"));
        assert!(!writes_d0_first("D0.u32 += S0.u32"));
        assert!(!writes_d0_first("SCC = S0.u32 == S1.u32"));
    }

    #[test]
    fn edge_values_fit_their_width() {
        let f32c = Class::Float {
            bits: 32,
            bf: false,
            packed: false,
        };
        assert_eq!(value(f32c, Case::Nan, 0, 32), 0x7fc0_0000);
        assert_eq!(value(f32c, Case::Overflow, 1, 32), 0x7f7f_ffff);
        assert_eq!(value(Class::Signed, Case::Overflow, 0, 32), 0x7fff_ffff);
        assert_eq!(value(Class::Signed, Case::Typical, 0, 32), 0xffff_fffb);
        assert_eq!(
            value(Class::Unsigned, Case::Overflow, 0, 64),
            0xffff_ffff_ffff_ffff
        );
        let pk = Class::Float {
            bits: 16,
            bf: false,
            packed: true,
        };
        assert_eq!(value(pk, Case::Typical, 0, 32), 0x4000_3e00);
    }
}
