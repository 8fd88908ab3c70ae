//! The command line as a user runs it: exit codes, diagnostics, output shapes.

mod common;

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs the binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("amdpcode-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

#[test]
fn show_ir_of_s_wqm_b64() {
    let (code, out, err) = run(&["show", "--arch", "rdna3", "S_WQM_B64", "--ir"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("for $i:u6"), "{out}");
    assert!(out.contains("+: 4]"), "{out}");
}

#[test]
fn check_text_missing_endif() {
    let p = temp_file(
        "missing_endif.pcode",
        "if S0.u32 > 1U then\n  D0.u32 = 1U\n",
    );
    let (code, _, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error: [parse]"), "{err}");
    assert!(err.contains("missing_endif.pcode:2:14"), "{err}");
    assert!(err.contains('^'), "no caret: {err}");
}

#[test]
fn check_text_unknown_operator() {
    let p = temp_file("bad_op.pcode", "D0.u32 = S0.u32 @ S1.u32\n");
    let (code, _, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad_op.pcode:1:17"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn check_text_unknown_identifier() {
    let p = temp_file("unknown.pcode", "D0.u32 = S0.u32;\nD0.u32 = bogus + 1U\n");
    let (code, _, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error: [type]"), "{err}");
    assert!(err.contains("unknown identifier `bogus`"), "{err}");
    assert!(err.contains("unknown.pcode:2:10"), "{err}");
}

#[test]
fn check_text_accepts_good_text() {
    let p = temp_file(
        "good.pcode",
        "tmp = S0.u32 + S1.u32\nD0.u32 = tmp; SCC = tmp < S0.u32\n",
    );
    let (code, out, err) = run(&["check-text", p.to_str().expect("utf8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ok:"), "{out}");
}

#[test]
fn check_text_missing_file() {
    let (code, _, err) = run(&["check-text", "/nonexistent/file.pcode"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn unknown_instruction_and_arch() {
    let (code, _, err) = run(&["show", "--arch", "rdna3", "S_NOT_A_THING"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown instruction `S_NOT_A_THING`"), "{err}");
    let (code, _, err) = run(&["show", "--arch", "gfx8", "S_WQM_B64"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown arch"), "{err}");
}

/// Every arch name the command line accepts either works or, while its database is not
/// built, says so: the same message from each command, a non-zero exit, never a panic.
#[test]
fn every_arch_runs_or_says_its_database_is_missing() {
    let names = [
        "rdna1", "gfx1010", "rdna2", "gfx1030", "rdna3", "rdna4", "cdna1", "gfx908", "cdna2",
        "gfx90a", "cdna3", "gfx942", "cdna", "cdna4", "gfx950", "cdna5", "gfx1250",
    ];
    let mut missing = Vec::new();
    for name in names {
        let cmds: [&[&str]; 3] = [
            &["spec", "list", "--arch", name],
            &["show", "--arch", name, "S_NOP"],
            &["run", "--arch", name, "s_endpgm"],
        ];
        for args in cmds {
            let (code, out, err) = run(args);
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            if code == 0 {
                assert!(!out.is_empty(), "{args:?}: no output");
                continue;
            }
            let canonical = amdpcode_arch_name(name);
            let want = format!("arch {canonical}: instruction database not available yet");
            assert!(err.contains(&want), "{args:?}: exit {code}: {err}");
            missing.push(canonical);
        }
    }
    // The wheel's own arches always have a database.
    for own in ["rdna3", "rdna4", "cdna"] {
        assert!(!missing.contains(&own), "{own} has no database");
    }
}

/// The canonical name of an arch name in the test above.
fn amdpcode_arch_name(name: &str) -> &'static str {
    match name {
        "rdna1" | "gfx1010" => "rdna1",
        "rdna2" | "gfx1030" => "rdna2",
        "rdna3" => "rdna3",
        "rdna4" => "rdna4",
        "cdna1" | "gfx908" => "cdna1",
        "cdna2" | "gfx90a" => "cdna2",
        "cdna3" | "gfx942" => "cdna3",
        "cdna" | "cdna4" | "gfx950" => "cdna",
        "cdna5" | "gfx1250" => "cdna5",
        other => panic!("no canonical name for {other}"),
    }
}

#[test]
fn spec_stats_json_shape() {
    let (code, out, err) = run(&["spec", "stats", "--json", "--samples", "2"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    for arch in ["rdna3", "rdna4", "cdna"] {
        let a = &v["archs"][arch];
        for key in [
            "total",
            "parsed",
            "typed",
            "lowered",
            "errata",
            "alu_total",
            "executes",
        ] {
            assert!(a[key].as_u64().is_some(), "{arch}.{key} missing");
        }
        let failures = a["failures"].as_array().expect("failures array");
        for f in failures {
            assert!(f["inst"].is_string() && f["error"].is_string());
            assert!(["parse", "type", "lower"].contains(&f["stage"].as_str().unwrap_or("")));
        }
    }
    assert_eq!(v["archs"]["rdna3"]["total"], 1392);
}

#[test]
fn spec_list_json_has_seed() {
    let (code, out, err) = run(&["spec", "list", "--arch", "cdna", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let wqm = v
        .as_array()
        .expect("array")
        .iter()
        .find(|i| i["inst"] == "S_WQM_B64")
        .expect("S_WQM_B64 listed");
    assert_eq!(wqm["encoding"], "SOP1");
    assert_eq!(wqm["opcode"], 7);
    assert!(wqm["operands"].as_array().is_some_and(|o| !o.is_empty()));
}

#[test]
fn offline_without_wheel_explains() {
    let out = Command::new(common::bin())
        .args(["--offline", "spec", "stats"])
        .env("AMDPCODE_SPEC", "/nonexistent/x.whl")
        .env("AMDPCODE_CACHE", "/nonexistent/cache")
        .current_dir(std::env::temp_dir())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("spec fetch") || err.contains("pip download"),
        "{err}"
    );
}

/// Known answers (AMD's notes and hand-worked values) through `eval --batch` under every
/// engine; bad lines give an error line naming the line and the batch goes on.
#[test]
fn eval_batch_known_answers_under_every_engine() {
    let mut cases = Vec::new();
    let mut want = Vec::new();
    let mut case = |line: String, out: &str| {
        cases.push(line);
        want.push(out.to_string());
    };
    for (s0, d0) in [
        (0xaaaa_aaaau64, "0x1"),
        (0x5555_5555, "0x0"),
        (0, "0xffffffff"),
        (0xffff_ffff, "0x0"),
        (0x0001_0000, "0x10"),
    ] {
        case(
            format!(r#"{{"arch":"rdna3","inst":"S_CTZ_I32_B32","set":{{"S0":"{s0:#x}"}}}}"#),
            &format!(r#"{{"outputs":{{"D0":"{d0}"}}}}"#),
        );
    }
    for (s0, d0) in [
        (0u64, "0xffffffff"),
        (0x0000_cccc, "0x10"),
        (0x8000_0000, "0x0"),
    ] {
        case(
            format!(r#"{{"arch":"rdna3","inst":"S_CLZ_I32_U32","set":{{"S0":{s0}}}}}"#),
            &format!(r#"{{"outputs":{{"D0":"{d0}"}}}}"#),
        );
    }
    // A carry out of S_ADD_U32; on rdna4 the name resolves to S_ADD_CO_U32.
    for arch in ["rdna3", "rdna4", "cdna"] {
        case(
            format!(
                r#"{{"arch":"{arch}","inst":"S_ADD_U32","set":{{"S0":"0xfffffff0","S1":32}}}}"#
            ),
            r#"{"outputs":{"D0":"0x10","SCC":"0x1"}}"#,
        );
    }
    case(
        r#"{"arch":"cdna","inst":"S_WQM_B64","wave":64,"set":{"S0":"0x0100000000000012"}}"#.into(),
        r#"{"outputs":{"D0":"0xf000000000000ff","SCC":"0x1"}}"#,
    );
    case(
        r#"{"arch":"rdna3","inst":"S_BCNT1_I32_B64","set":{"S0":"0xffff00000000000f"}}"#.into(),
        r#"{"outputs":{"D0":"0x14","SCC":"0x1"}}"#,
    );
    case(
        r#"{"arch":"rdna3","inst":"S_BREV_B32","set":{"S0":"0x00000003"}}"#.into(),
        r#"{"outputs":{"D0":"0xc0000000"}}"#,
    );
    // 1.0 + 1.0 and 1.0 + 2.0 in lanes 0 and 1; the other lanes are inactive and keep D0.
    let mut lanes = vec![r#""0x40000000""#.to_string(), r#""0x40400000""#.to_string()];
    lanes.extend((2..32).map(|_| r#""0x0""#.to_string()));
    case(
        r#"{"arch":"rdna3","inst":"V_ADD_F32","set":{"S0":"0x3f800000","S1":[1065353216,"0x40000000"],"EXEC":"0x3"}}"#.into(),
        &format!(r#"{{"outputs":{{"D0":[{}]}}}}"#, lanes.join(",")),
    );
    case(
        "not json".into(),
        r#"{"error":"line LINE: not JSON: expected ident at line 1 column 2"}"#,
    );
    case(
        r#"{"arch":"rdna3","inst":"S_NOPE"}"#.into(),
        r#"{"error":"line LINE: unknown instruction `S_NOPE` for rdna3"}"#,
    );
    case(
        r#"{"arch":"rdna3","inst":"S_ADD_U32","wave":48}"#.into(),
        r#"{"error":"line LINE: \"wave\" must be 32 or 64, not 48"}"#,
    );
    case(
        r#"{"arch":"rdna3","inst":"S_ADD_U32","set":{"S0":"0xzz"}}"#.into(),
        r#"{"error":"line LINE: set S0: `0xzz` is not a hex value"}"#,
    );
    let file = temp_file("known.jsonl", &(cases.join("\n") + "\n"));
    let path = file.to_str().expect("utf-8 path");
    for engine in ["interp", "jit", "auto"] {
        let (code, out, err) = run(&["eval", "--batch", path, "--engine", engine]);
        assert_eq!(code, 0, "{engine}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), want.len(), "{engine}: {out}");
        for (n, (got, w)) in lines.iter().zip(&want).enumerate() {
            let w = w.replace("LINE", &(n + 1).to_string());
            assert_eq!(*got, w, "{engine}, line {}: {}", n + 1, cases[n]);
        }
    }
}

#[test]
fn eval_single_instruction_and_its_errors() {
    for engine in ["interp", "jit", "auto"] {
        let (code, out, err) = run(&[
            "eval",
            "--arch",
            "rdna3",
            "S_ADD_U32",
            "--set",
            "S0=0xfffffff0,S1=0x20",
            "--engine",
            engine,
        ]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, "SCC = 0x1\nD0 = 0x10\n", "{engine}");
    }
    let (code, _, err) = run(&[
        "eval",
        "--arch",
        "rdna3",
        "S_ADD_U32",
        "--set",
        "S0=zz",
        "--engine",
        "jit",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("`zz` is not a number"), "{err}");
    // An entry the JIT does not compile: an error naming why, unless the user asks for auto.
    let args = [
        "eval",
        "--arch",
        "rdna3",
        "V_TRIG_PREOP_F64",
        "--set",
        "S0=1,S1=0",
    ];
    let (code, _, err) = run(&[&args[..], &["--engine", "jit"]].concat());
    assert_eq!(code, 1);
    assert!(
        err.contains("V_TRIG_PREOP_F64") && err.contains("1201-bit"),
        "{err}"
    );
    let (code, out, err) = run(&[&args[..], &["--engine", "auto"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("D0 = [0x"), "{out}");
}
