//! The sanitizer's catalogue: every kernel of `tests/sanitizer/*.s` has one
//! planted bug and its fixed twin. Lines ending in `; @bug` exist only in the buggy kernel,
//! lines ending in `; @fix` only in the fixed one. The header says how to run it:
//!
//! ```text
//! # arch: rdna3            rdna3, rdna4 or cdna
//! # wave: 32 64            wave sizes to run (default: 32 on RDNA, 64 on CDNA)
//! # items: 128             work-items in the workgroup (default: one wave)
//! # block: 32 2 1          the workgroup's shape instead of `items`
//! # rsrc2: 0x804           COMPUTE_PGM_RSRC2 (default 0x4: two user SGPRs; 0x800 adds the
//!                          y work-item id, 0x1000 y and z)
//! # check: global-races    optional
//! # expect: missing-wait 0x18 0x10     kind, PC, earlier PC (of the buggy kernel); one
//!                                      line per distinct finding
//! ```
//!
//! Each kernel is a raw launch: code at 0, s[0:1] = 0x10000 (a 4 KiB zeroed buffer), v0 the
//! work-item id, 1 KiB of LDS, 256 bytes of scratch per lane. The buggy kernel must give exactly the expected findings
//! (kind and PCs); the fixed twin none. Then compiler output (clang-22, -O0 and -O2, for
//! gfx1100, gfx1200 and gfx950) must run clean.

mod common;

use std::path::{Path, PathBuf};

use amdpcode::dispatch::{Dispatcher, Launch};
use amdpcode::sanitizer::{Finding, Initial, Options, Sanitizer};
use amdpcode::spec::{Arch, Spec};
use amdpcode::wave::Engine;

struct Case {
    path: PathBuf,
    arch: Arch,
    waves_sizes: Vec<u32>,
    items: Option<u32>,
    block: Option<[u32; 3]>,
    rsrc2: u32,
    options: Options,
    expect: Vec<(String, u64, u64)>,
    text: String,
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .filter_map(|l| l.trim().strip_prefix(key))
        .filter_map(|l| l.strip_prefix(':'))
        .map(str::trim)
        .next()
}

fn parse_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).expect("read case");
    let arch = Arch::from_name(header(&text, "arch").expect("arch header")).expect("arch");
    let waves_sizes = header(&text, "wave")
        .map(|w| {
            w.split_whitespace()
                .map(|x| x.parse().expect("wave"))
                .collect()
        })
        .unwrap_or_else(|| vec![if arch.is_gfx9() { 64 } else { 32 }]);
    let items = header(&text, "items").map(|w| w.parse().expect("items"));
    let block = header(&text, "block").map(|b| {
        let mut dims = [1u32; 3];
        for (d, x) in dims.iter_mut().zip(b.split_whitespace()) {
            *d = x.parse().expect("block");
        }
        dims
    });
    let rsrc2 = header(&text, "rsrc2").map_or(0x4, |r| {
        u32::from_str_radix(r.trim_start_matches("0x"), 16).expect("rsrc2")
    });
    let options = match header(&text, "check") {
        Some("global-races") => Options { global_races: true },
        _ => Options::default(),
    };
    let expect = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .filter_map(|l| l.trim().strip_prefix("expect:"))
        .map(|e| {
            let p: Vec<&str> = e.split_whitespace().collect();
            let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("pc");
            (p[0].to_string(), hex(p[1]), hex(p[2]))
        })
        .collect();
    Case {
        path: path.to_path_buf(),
        arch,
        waves_sizes,
        items,
        block,
        rsrc2,
        options,
        expect,
        text,
    }
}

/// The buggy (`bug = true`) or fixed kernel text.
fn variant(text: &str, bug: bool) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let t = l.trim_end();
        if t.trim_start().starts_with('#') {
            continue;
        }
        if t.ends_with("@bug") && !bug || t.ends_with("@fix") && bug {
            continue;
        }
        let code = t.split(';').next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    out
}

fn arch_name(a: Arch) -> &'static str {
    a.name()
}

fn run_case(spec: &Spec, case: &Case, wave: u32, bug: bool) -> Vec<Finding> {
    run_case_on(spec, case, wave, bug, Engine::Interp)
}

fn run_case_on(spec: &Spec, case: &Case, wave: u32, bug: bool, engine: Engine) -> Vec<Finding> {
    let db = spec.db(case.arch);
    let mut d = Dispatcher::new(db, engine).expect("dispatcher");
    let isa = d.executor().isa().clone();
    let text = variant(&case.text, bug);
    let bytes = isa
        .assemble(&text)
        .unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.path.display()));
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // RSRC2 (default): USER_SGPR_COUNT = 2 (bits 5:1).
    let block = case.block.unwrap_or([case.items.unwrap_or(wave), 1, 1]);
    let launch = serde_json::json!({
        "arch": arch_name(case.arch),
        "code_hex": hex,
        "code_addr": "0x0",
        "rsrc1": "0x0",
        "rsrc2": format!("0x{:x}", case.rsrc2),
        "user_sgprs": ["0x10000", "0x0"],
        "wave": wave,
        "lds_bytes": 1024,
        "scratch_bytes": 256,
        "grid": [1, 1, 1],
        "block": block,
        "memory": [{"addr": "0x10000", "size": 4096}],
    });
    let launch = Launch::from_json(&launch.to_string(), Path::new(".")).expect("launch");
    let mut san = Sanitizer::new(db, &isa, case.options);
    san.set_initial(Initial::launch(&mut d, &launch).expect("initial registers"));
    d.executor_mut().trace_after_only = true;
    let mut t = |wg: [u32; 3],
                 w: u32,
                 dec: &amdpcode::wave::Decoded,
                 a: &amdpcode::wave::WaveState,
                 b: &amdpcode::wave::WaveState| san.observe(wg, w, dec, a, b);
    d.run_traced(&launch, Some(&mut t))
        .unwrap_or_else(|e| panic!("{} (bug={bug}): {e}", case.path.display()));
    san.findings().to_vec()
}

fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sanitizer");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/sanitizer")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse_case(p)).collect()
}

#[test]
fn sanitizer_catalogue_kernels_report_their_bug() {
    let spec = common::spec();
    let cases = cases();
    assert!(cases.len() >= 20, "only {} kernels", cases.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    for case in &cases {
        assert!(
            !case.expect.is_empty(),
            "{}: no expectation",
            case.path.display()
        );
        for &wave in &case.waves_sizes {
            runs += 1;
            let name = format!(
                "{} ({} wave{wave})",
                case.path.file_name().unwrap_or_default().to_string_lossy(),
                arch_name(case.arch)
            );
            let got = run_case(spec, case, wave, true);
            let mut got_keys: Vec<(String, u64, u64)> = got
                .iter()
                .map(|f| {
                    (
                        f.kind.name().to_string(),
                        f.pc,
                        f.earlier.as_ref().map_or(0, |e| e.1),
                    )
                })
                .collect();
            // Several waves (or lanes' registers) may hit the same planted bug: compare
            // the distinct (kind, PC, earlier PC) triples.
            got_keys.sort();
            got_keys.dedup();
            let mut expect = case.expect.clone();
            expect.sort();
            if got_keys != expect {
                failures.push(format!(
                    "{name}: buggy: expected {expect:x?}, got {got_keys:x?}: {}",
                    got.iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                ));
            }
            let fixed = run_case(spec, case, wave, false);
            if !fixed.is_empty() {
                failures.push(format!("{name}: fixed twin flagged: {fixed:#?}"));
            }
            // The JIT runs the same instructions: the same findings.
            for (bug, want) in [(true, &got), (false, &fixed)] {
                let jit = run_case_on(spec, case, wave, bug, Engine::Jit);
                if jit != *want {
                    failures.push(format!(
                        "{name} (bug={bug}): the JIT's findings differ: {jit:#?}"
                    ));
                }
            }
        }
    }
    println!("{runs} runs of {} kernels", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every wheel (and both RDNA wave sizes), and the GFX10 and gfx908/gfx90a specifics, are
    // covered.
    for (arch, wave) in [
        (Arch::Rdna3, 32),
        (Arch::Rdna3, 64),
        (Arch::Rdna4, 32),
        (Arch::Rdna4, 64),
        (Arch::Cdna, 64),
        (Arch::Rdna2, 32),
        (Arch::Rdna2, 64),
        (Arch::Cdna1, 64),
        (Arch::Cdna2, 64),
    ] {
        assert!(
            cases
                .iter()
                .any(|c| c.arch == arch && c.waves_sizes.contains(&wave)),
            "no kernel for {} wave{wave}",
            arch_name(arch)
        );
    }
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(common::bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run amdpcode");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_exit_status_and_json() {
    let dir = std::env::temp_dir().join(format!("amdpcode-san-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let case =
        parse_case(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sanitizer/r3_load_use.s"));
    for (bug, want) in [(true, 3), (false, 0)] {
        let path = dir.join(format!("k{bug}.s"));
        std::fs::write(&path, variant(&case.text, bug)).expect("write");
        let p = path.to_str().expect("utf8");
        let (code, out, err) = cli(&["run", "--arch", "rdna3", "--check", "--json", p]);
        assert_eq!(code, want, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        let f = v["findings"].as_array().expect("findings");
        if bug {
            assert_eq!(f.len(), 1, "{out}");
            assert_eq!(f[0]["kind"], "missing-wait");
            assert_eq!(f[0]["pc"], "0xc");
            assert_eq!(f[0]["earlier"]["pc"], "0x4");
            assert_eq!(f[0]["location"], "v2");
        } else {
            assert!(f.is_empty(), "{out}");
        }
        // Text form: the count line.
        let (code, out, _) = cli(&["run", "--arch", "rdna3", "--check", p]);
        assert_eq!(code, want);
        let n = if bug { 1 } else { 0 };
        assert!(out.contains(&format!("sanitizer: {n} finding(s)")), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// clang-22-compiled kernels (-O0 and -O2; gfx1100, gfx1200, gfx950) run clean under
/// `--check`. Without clang-22 the test says so and passes, except under CI=true.
#[test]
fn compiler_output_is_clean() {
    let have = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("clang-22") || !have("ld.lld-22") {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "clang-22 and ld.lld-22 are required under CI"
        );
        eprintln!("notice: clang-22/ld.lld-22 not found; compiler-output check skipped");
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sanitizer/compiler.cl");
    let dir = std::env::temp_dir().join(format!("amdpcode-san-cc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let runs: [&[&str]; 4] = [
        &[
            "--kernel",
            "vadd",
            "--grid",
            "4",
            "--block",
            "64",
            "--arg",
            "buf=f32x256:iota",
            "--arg",
            "buf=f32x256:iota",
            "--arg",
            "buf=f32x256:zero",
            "--arg",
            "u32=250",
        ],
        &[
            "--kernel",
            "lds_sum",
            "--grid",
            "2",
            "--block",
            "64",
            "--arg",
            "buf=i32x128:iota",
            "--arg",
            "buf=i32x2:zero",
        ],
        &[
            "--kernel",
            "mix",
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "buf=i32x256:iota",
            "--arg",
            "buf=i32x2:zero",
            "--arg",
            "u32=256",
        ],
        &[
            "--kernel",
            "f64_where",
            "--grid",
            "2",
            "--block",
            "64",
            "--arg",
            "buf=f64x128:zero",
            "--arg",
            "buf=f64x128:iota",
            "--arg",
            "buf=i32x128:iota",
        ],
    ];
    let mut clean = 0;
    let mut failures = Vec::new();
    for cpu in ["gfx1100", "gfx1200", "gfx950"] {
        for opt in ["-O0", "-O2"] {
            let obj = dir.join(format!("k-{cpu}{opt}.o"));
            let hsaco = dir.join(format!("k-{cpu}{opt}.hsaco"));
            let ok = std::process::Command::new("clang-22")
                .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"])
                .arg(format!("-mcpu={cpu}"))
                .args([
                    "-nogpulib",
                    "-Xclang",
                    "-finclude-default-header",
                    opt,
                    "-c",
                ])
                .arg(&src)
                .arg("-o")
                .arg(&obj)
                .output()
                .expect("clang-22")
                .status
                .success()
                && std::process::Command::new("ld.lld-22")
                    .arg("-shared")
                    .arg(&obj)
                    .arg("-o")
                    .arg(&hsaco)
                    .output()
                    .expect("ld.lld-22")
                    .status
                    .success();
            assert!(ok, "compiling for {cpu} {opt} failed");
            for run in runs {
                let mut args = vec!["dispatch", hsaco.to_str().expect("utf8")];
                args.extend_from_slice(run);
                args.push("--check");
                let (code, out, err) = cli(&args);
                let what = format!("{cpu} {opt} {}", run[1]);
                if code == 1 && err.contains("no executable pseudocode") {
                    // The emulator cannot run it (not a sanitizer matter); say so.
                    eprintln!("notice: {what}: not executable here: {}", err.trim());
                    continue;
                }
                if code != 0 || !out.contains("sanitizer: 0 finding(s)") {
                    failures.push(format!("{what}: exit {code}\n{out}{err}"));
                } else {
                    clean += 1;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{clean} compiled kernels ran clean under --check");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every kernel on every target at both levels.
    assert!(clean >= 24, "only {clean} kernels ran");
}

/// Findings name scalar codes past the numbered SGPRs as the assembler does: the wave32
/// lane-mask kernel's two late reads are of `s8` and `vcc_hi` (not `s107`).
#[test]
fn findings_name_special_registers_as_the_assembler() {
    let spec = common::spec();
    for file in ["r3_lane_masks_wave32.s", "r4_lane_masks_wave32.s"] {
        let case = parse_case(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/sanitizer")
                .join(file),
        );
        let mut got: Vec<String> = run_case(spec, &case, 32, true)
            .iter()
            .map(|f| f.location.clone())
            .collect();
        got.sort();
        assert_eq!(got, ["s8", "vcc_hi"], "{file}");
    }
}

/// `lds_direct_load` (RDNA 3) and `ds_direct_load` (RDNA 4) read LDS at M0[15:0] with the data
/// type in M0[18:16] and write every lane of each quad with an active lane, under both engines.
#[test]
fn lds_direct_loads_read_lds_at_m0() {
    let spec = common::spec();
    for (arch, load, wait) in [
        (Arch::Rdna3, "lds_direct_load", "wait_vdst:0"),
        (
            Arch::Rdna4,
            "ds_direct_load",
            "wait_va_vdst:0 wait_vm_vsrc:0",
        ),
    ] {
        let text = format!(
            "v_mov_b32 v1, 0x8234abcd\n\
             v_mov_b32 v0, 0\n\
             ds_store_b32 v0, v1 offset:8\n\
             s_mov_b32 m0, 0x20008\n\
             {load} v2 {wait}\n\
             s_mov_b32 m0, 0x5000a\n\
             {load} v3 {wait}\n\
             s_mov_b32 m0, 0x40009\n\
             {load} v4 {wait}\n\
             s_mov_b32 exec_lo, 0x10\n\
             s_mov_b32 m0, 0x8\n\
             {load} v5 {wait}\n\
             s_endpgm\n"
        );
        for engine in [Engine::Interp, Engine::Jit] {
            let db = spec.db(arch);
            let mut d = Dispatcher::new(db, engine).expect("dispatcher");
            let isa = d.executor().isa().clone();
            let hex: String = isa
                .assemble(&text)
                .expect("assemble")
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let launch = serde_json::json!({
                "arch": arch.name(), "code_hex": hex, "code_addr": "0x0",
                "rsrc1": "0x0", "rsrc2": "0x0", "wave": 32, "lds_bytes": 64,
                "grid": [1, 1, 1], "block": [32, 1, 1],
                "memory": [{"addr": "0x10000", "size": 256}],
            });
            let launch = Launch::from_json(&launch.to_string(), Path::new(".")).expect("launch");
            let mut regs = std::collections::HashMap::new();
            let mut t = |_: [u32; 3],
                         _: u32,
                         dec: &amdpcode::wave::Decoded,
                         _: &amdpcode::wave::WaveState,
                         after: &amdpcode::wave::WaveState| {
                if dec.inst.name.ends_with("DIRECT_LOAD") {
                    let v = dec.inst.field("vdst").expect("vdst") as u32;
                    regs.insert(v, (0..32).map(|l| after.vgpr(l, v)).collect::<Vec<u32>>());
                }
            };
            d.run_traced(&launch, Some(&mut t)).expect("run");
            let what = format!("{} {engine:?}", arch.name());
            // A dword, a signed short at byte 10, a signed byte at byte 9.
            assert_eq!(regs[&2], vec![0x8234_abcd; 32], "{what}");
            assert_eq!(regs[&3], vec![0xffff_8234; 32], "{what}");
            assert_eq!(regs[&4], vec![0xffff_ffab; 32], "{what}");
            // EXEC = lane 4 only: lanes 4..7 (its quad) get the unsigned byte at 8.
            let quad: Vec<u32> = (0..32).map(|l| if l / 4 == 1 { 0xcd } else { 0 }).collect();
            assert_eq!(regs[&5], quad, "{what}");
        }
    }
}
