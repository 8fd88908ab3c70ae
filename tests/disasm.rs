//! the text side: the disassembler round trip over the hardware vectors
//! and LLVM MC vectors, and instruction forms whose text must match llvm-mc-22's bytes
//! (LDSDIR/VDSDIR, VINTERP, `v_cndmask` source modifiers).

mod common;

use amdpcode::spec::Arch;
// ---- Disassembler round trip -------------------------------------------------------------

/// Words (one instruction's bytes) whose `disasm` text does not re-assemble to the same bytes,
/// each with the reason, by arch and hex.
fn round_trip_failures(isa: &amdpcode::isa::Isa, words: &[Vec<u8>]) -> Vec<String> {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut out = Vec::new();
    for bytes in words {
        let text = match isa.decode(bytes) {
            Ok((inst, len)) if len == bytes.len() => isa.print(&inst),
            Ok((_, len)) => {
                out.push(format!(
                    "{}: decodes {len} of {} bytes",
                    hex(bytes),
                    bytes.len()
                ));
                continue;
            }
            Err(e) => {
                out.push(format!("{}: does not decode: {e}", hex(bytes)));
                continue;
            }
        };
        match isa.assemble(&text) {
            Ok(b) if &b == bytes => {}
            Ok(b) => out.push(format!("{}: `{text}` -> {}", hex(bytes), hex(&b))),
            Err(e) => out.push(format!("{}: `{text}` does not assemble: {e}", hex(bytes))),
        }
    }
    out
}

/// for every word of `../shared/hw-vectors/sample.jsonl` that LLVM 22 decodes
/// (`program_llvm` not null) and every valid row of the LLVM MC vectors, `disasm` text
/// re-assembles to the same bytes.
#[test]
fn disasm_round_trip() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let mut words: std::collections::BTreeMap<Arch, Vec<Vec<u8>>> = Default::default();
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len() / 2)
            .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
            .collect()
    };
    if let Ok(text) = std::fs::read_to_string(root.join("hw-vectors/sample.jsonl")) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let rec: serde_json::Value = serde_json::from_str(line).expect("sample line");
            let arch = Arch::from_name(rec["arch"].as_str().unwrap_or("")).unwrap_or(Arch::Rdna3);
            let hexes = rec["program_hex"].as_array().cloned().unwrap_or_default();
            let llvm = rec["program_llvm"].as_array().cloned().unwrap_or_default();
            for (i, h) in hexes.iter().enumerate() {
                if llvm.get(i).is_some_and(|t| !t.is_null()) {
                    words
                        .entry(arch)
                        .or_default()
                        .push(unhex(h.as_str().unwrap_or("")));
                }
            }
        }
    }
    for (dir, arch) in [
        ("gfx11", Arch::Rdna3),
        ("gfx12", Arch::Rdna4),
        ("gfx9", Arch::Cdna),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join("llvm-mc").join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            for l in text.lines().skip(1) {
                let cols: Vec<&str> = l.split('\t').collect();
                if cols.len() >= 5 && cols[4].is_empty() && !cols[3].is_empty() {
                    words.entry(arch).or_default().push(unhex(cols[3]));
                }
            }
        }
    }
    if words.is_empty() {
        eprintln!("skipped: ../shared/hw-vectors and ../shared/llvm-mc not found");
        return;
    }
    let mut all = Vec::new();
    let mut total = 0;
    for (arch, list) in &words {
        let mut list = list.clone();
        list.sort();
        list.dedup();
        let isa = amdpcode::isa::Isa::new(common::spec().db(*arch));
        let fails = round_trip_failures(&isa, &list);
        eprintln!(
            "{arch}: {} / {} words round-trip",
            list.len() - fails.len(),
            list.len()
        );
        total += list.len();
        all.extend(fails.into_iter().map(|f| format!("{arch} {f}")));
    }
    // A word LLVM 22 does not round-trip either (it does not decode it, or its text drops a
    // field the word sets, or its own assembler rejects its text) is an exception, listed with
    // that reason; every other failure fails the test.
    let mut real = Vec::new();
    for f in &all {
        match llvm_round_trip(f) {
            Some(Ok(())) => real.push(f.clone()),
            Some(Err(why)) => eprintln!("  exception: {f}\n    (llvm-mc-22: {why})"),
            None => {
                eprintln!("skipped the check of `{f}`: llvm-mc-22 is not installed");
            }
        }
    }
    for f in &real {
        eprintln!("  FAIL {f}");
    }
    assert!(
        real.is_empty(),
        "{} of {total} words do not round-trip",
        real.len()
    );
}

/// Whether llvm-mc-22 round-trips the word of a failure line (`arch hex: ...`): `Ok` when it
/// does, `Err(reason)` when it does not; `None` without llvm-mc-22.
fn llvm_round_trip(failure: &str) -> Option<Result<(), String>> {
    use std::io::Write;
    let mut it = failure.split([' ', ':']);
    let mcpu = match it.next()? {
        "rdna3" => "gfx1100",
        "rdna4" => "gfx1200",
        _ => "gfx950",
    };
    let hex = it.next()?;
    let run = |args: &[&str], input: &str| -> Option<String> {
        let mut child = std::process::Command::new("llvm-mc-22")
            .args(["-arch=amdgcn", &format!("-mcpu={mcpu}")])
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(input.as_bytes()).ok()?;
        let out = child.wait_with_output().ok()?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let bytes: Vec<String> = (0..hex.len() / 2)
        .map(|i| format!("0x{}", &hex[2 * i..2 * i + 2]))
        .collect();
    let dis = run(&["--disassemble"], &bytes.join(" "))?;
    let Some(text) = dis
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('.'))
    else {
        return Some(Err("does not decode the word".into()));
    };
    let enc = run(&["-show-encoding"], text)?;
    let want = format!("[{}]", bytes.join(","));
    Some(if enc.contains(&want) {
        Ok(())
    } else {
        Err(format!("`{text}` re-assembles to {}", enc.trim()))
    })
}

/// LDSDIR/VDSDIR and VINTERP text assembles to llvm-mc-22's bytes (recorded from
/// `llvm-mc-22 -show-encoding`, -mcpu gfx1100 / gfx1200) and prints back the same text.
#[test]
fn ldsdir_vinterp_text() {
    let cases: [(Arch, &str, &[u8]); 8] = [
        (
            Arch::Rdna3,
            "v_interp_p10_f32 v0, -v1, v2, v3 clamp wait_exp:7",
            &[0x00, 0x87, 0x00, 0xcd, 0x01, 0x05, 0x0e, 0x24],
        ),
        (
            Arch::Rdna3,
            "v_interp_p2_f16_f32 v0, v1, v2, v3 op_sel:[1,0,1,1] wait_exp:0",
            &[0x00, 0x68, 0x03, 0xcd, 0x01, 0x05, 0x0e, 0x04],
        ),
        (
            Arch::Rdna3,
            "v_interp_p10_rtz_f16_f32 v5, v1, -v200, v3 wait_exp:2",
            &[0x05, 0x02, 0x04, 0xcd, 0x01, 0x91, 0x0f, 0x44],
        ),
        (
            Arch::Rdna3,
            "lds_param_load v1, attr3.w wait_vdst:2",
            &[0x01, 0x0f, 0x02, 0xce],
        ),
        (
            Arch::Rdna3,
            "lds_direct_load v2 wait_vdst:1",
            &[0x02, 0x00, 0x11, 0xce],
        ),
        (
            Arch::Rdna4,
            "ds_param_load v1, attr3.w wait_va_vdst:2 wait_vm_vsrc:1",
            &[0x01, 0x0f, 0x82, 0xce],
        ),
        (
            Arch::Rdna4,
            "ds_direct_load v2 wait_va_vdst:1 wait_vm_vsrc:0",
            &[0x02, 0x00, 0x11, 0xce],
        ),
        (
            Arch::Rdna4,
            "v_interp_p10_f32 v0, -v1, v2, v3 clamp wait_exp:7",
            &[0x00, 0x87, 0x00, 0xcd, 0x01, 0x05, 0x0e, 0x24],
        ),
    ];
    for (arch, text, bytes) in cases {
        let isa = amdpcode::isa::Isa::new(common::spec().db(arch));
        let got = isa
            .assemble(text)
            .unwrap_or_else(|e| panic!("{arch} `{text}`: {e}"));
        assert_eq!(got, bytes, "{arch} `{text}`");
        let (inst, len) = isa.decode(bytes).expect("decodes");
        assert_eq!(len, bytes.len());
        assert_eq!(isa.print(&inst), text, "{arch} disasm");
    }
    let isa = amdpcode::isa::Isa::new(common::spec().db(Arch::Rdna3));
    for bad in [
        "lds_param_load v1, attr3.q wait_vdst:0",
        "lds_param_load v1, attr64.x wait_vdst:0",
        "lds_direct_load v2 wait_vdst:16",
        "v_interp_p10_f32 v0, v1, v2 wait_exp:0",
        "v_interp_p10_f32 v0, v1, v2, v3 op_sel:[1,0] wait_exp:0",
        "v_interp_p10_f32 v0, v1, v2, s3 wait_exp:0",
    ] {
        assert!(isa.assemble(bad).is_err(), "`{bad}` should not assemble");
    }
}

/// `v_cndmask_b32_e64` takes `-`/`|.|` on its two data sources (LLVM accepts and prints them;
/// clang-22 emits `v_cndmask_b32_e64 v3, -v3, v3, s[8:9]` for gfx950): the text assembles to
/// llvm-mc-22's bytes and the disassembly keeps the modifiers.
#[test]
fn cndmask_source_modifiers_text() {
    let cases: [(Arch, &str, &[u8]); 2] = [
        (
            Arch::Cdna,
            "v_cndmask_b32_e64 v2, -v2, |v2|, vcc",
            &[0x02, 0x02, 0x00, 0xd1, 0x02, 0x05, 0xaa, 0x21],
        ),
        (
            Arch::Rdna3,
            "v_cndmask_b32_e64 v5, -v1, |v2|, s3",
            &[0x05, 0x02, 0x01, 0xd5, 0x01, 0x05, 0x0e, 0x20],
        ),
    ];
    for (arch, text, bytes) in cases {
        let isa = amdpcode::isa::Isa::new(common::spec().db(arch));
        assert_eq!(
            isa.assemble(text).expect("assembles"),
            bytes,
            "{arch} `{text}`"
        );
        let (inst, _) = isa.decode(bytes).expect("decodes");
        assert_eq!(isa.print(&inst), text);
    }
}
