//! `amdpcode doc`: the generated site's links, search index, assembled examples and worked
//! examples, checked against the CLI; the seed pages' proofs; and (with headless Chromium)
//! the rendered pages and the search script.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The site, built once per test binary into the target's temporary folder.
fn site() -> &'static Path {
    static SITE: OnceLock<PathBuf> = OnceLock::new();
    SITE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("doc-site");
        let _ = std::fs::remove_dir_all(&dir);
        let out = Command::new(common::bin())
            .args(["doc", "--out"])
            .arg(&dir)
            .output()
            .expect("run amdpcode doc");
        assert!(
            out.status.success(),
            "amdpcode doc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("{}", String::from_utf8_lossy(&out.stdout).trim());
        dir
    })
}

/// Every file under `dir` with extension `ext`, as paths relative to `dir` with `/`.
fn files(dir: &Path, ext: &str) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, ext: &str, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).expect("read site folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, ext, out);
            } else if p.extension().is_some_and(|x| x == ext) {
                let rel = p.strip_prefix(root).expect("under root");
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, ext, &mut out);
    out
}

/// The values of attribute `attr` (`href`, `src`, `action`) in `html`.
fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let pat = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&pat) {
        let after = &rest[i + pat.len()..];
        let end = after.find('"').expect("attribute closes");
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_internal_link_resolves() {
    let dir = site();
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in files(dir, "html") {
        let path = dir.join(&page);
        let html = read(&path);
        for attr in ["href", "src", "action"] {
            for v in attr_values(&html, attr) {
                assert!(
                    !v.starts_with("http:") && !v.starts_with("https:") && !v.starts_with("//"),
                    "{page}: an external link ({v}); the site must work without network"
                );
                let target = v.split(['#', '?']).next().unwrap_or("");
                if target.is_empty() {
                    continue;
                }
                checked += 1;
                let resolved = path.parent().expect("page folder").join(target);
                if !resolved.is_file() {
                    broken.push(format!("{page}: {attr}=\"{v}\""));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken links, e.g. {:?}",
        broken.len(),
        &broken[..broken.len().min(10)]
    );
    // Every instruction page links home, its generation, its encoding and the style sheet.
    assert!(checked > 20_000, "only {checked} links checked");
}

#[test]
fn search_index_lists_every_page() {
    let dir = site();
    let index: serde_json::Value =
        serde_json::from_str(&read(&dir.join("search-index.json"))).expect("index is JSON");
    let urls: Vec<String> = index
        .as_array()
        .expect("index is a list")
        .iter()
        .map(|e| e["url"].as_str().expect("entry has a url").to_string())
        .collect();
    let listed: BTreeSet<String> = urls.iter().cloned().collect();
    assert_eq!(listed.len(), urls.len(), "a page is listed twice");
    let pages = files(dir, "html");
    let missing: Vec<&String> = pages.difference(&listed).collect();
    let extra: Vec<&String> = listed.difference(&pages).collect();
    assert!(missing.is_empty(), "pages not in the index: {missing:?}");
    assert!(extra.is_empty(), "index entries without a page: {extra:?}");
    // The script the search page loads carries the same index.
    let js = read(&dir.join("search-index.js"));
    let json = js
        .trim()
        .strip_prefix("window.AMDPCODE_INDEX = ")
        .and_then(|s| s.strip_suffix(';'))
        .expect("search-index.js assigns the index");
    let from_js: serde_json::Value = serde_json::from_str(json).expect("JSON in the script");
    assert_eq!(from_js, index);
    // One page per instruction per generation.
    let spec = common::spec();
    for arch in amdpcode::spec::Arch::ALL {
        // Arches without a database yet have no pages.
        let Ok(db) = spec.get(arch) else { continue };
        let n = db.instructions().len();
        let on_site = index
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["arch"] == arch.name() && e["encoding"] != "")
            .count();
        assert_eq!(on_site, n, "{arch}: instruction pages");
    }
}

/// The pages whose examples are compared with the CLI: the seed pages and every 61st page of
/// each generation (in name order).
fn sample_pages(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = [
        "rdna3/S_WQM_B64.html",
        "rdna3/S_AND_NOT1_WREXEC_B64.html",
        "cdna/S_ANDN2_WREXEC_B64.html",
        "rdna3/V_ADD_F32_E32.html",
        "rdna4/V_FMA_F32.html",
        "cdna/V_ADD_CO_U32_E32.html",
        "rdna3/S_ADD_U32.html",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for arch in amdpcode::spec::Arch::ALL {
        let pages: Vec<String> = files(dir, "html")
            .into_iter()
            .filter(|p| p.starts_with(&format!("{}/", arch.name())))
            .filter(|p| !p.contains("/enc-") && !p.ends_with("/index.html"))
            .collect();
        out.extend(pages.into_iter().step_by(61));
    }
    out.sort();
    out.dedup();
    out
}

/// A worked example on a page: its `eval` arguments and the output shown.
struct Shown {
    page: String,
    arch: String,
    inst: String,
    wave: String,
    set: String,
    output: String,
    fault: bool,
}

fn examples_on(dir: &Path, page: &str) -> Vec<Shown> {
    let html = read(&dir.join(page));
    let mut out = Vec::new();
    for chunk in html.split("<div class=\"example\"").skip(1) {
        let attr = |name: &str| -> String {
            let pat = format!("{name}=\"");
            let i = chunk.find(&pat).unwrap_or_else(|| panic!("{page}: {name}")) + pat.len();
            let end = chunk[i..].find('"').expect("attribute closes");
            unescape(&chunk[i..i + end])
        };
        let fault = chunk.contains("<pre class=\"out fault\">");
        let open = if fault {
            "<pre class=\"out fault\">"
        } else {
            "<pre class=\"out\">"
        };
        let i = chunk.find(open).expect("example output") + open.len();
        let end = chunk[i..].find("</pre>").expect("output closes");
        out.push(Shown {
            page: page.to_string(),
            arch: attr("data-arch"),
            inst: attr("data-inst"),
            wave: attr("data-wave"),
            set: attr("data-set"),
            output: unescape(&chunk[i..i + end]),
            fault,
        });
    }
    out
}

#[test]
fn worked_examples_show_what_eval_prints() {
    let dir = site();
    let mut compared = 0;
    let mut kinds = BTreeSet::new();
    for page in sample_pages(dir) {
        for e in examples_on(dir, &page) {
            let mut cmd = Command::new(common::bin());
            cmd.args(["eval", "--arch", &e.arch, &e.inst, "--wave", &e.wave]);
            if !e.set.is_empty() {
                cmd.args(["--set", &e.set]);
            }
            let out = cmd.output().expect("run amdpcode eval");
            let ctx = format!(
                "{}: eval --arch {} {} --set {}",
                e.page, e.arch, e.inst, e.set
            );
            if e.fault {
                assert!(
                    !out.status.success(),
                    "{ctx}: the page shows a fault, eval succeeds"
                );
                assert_eq!(
                    String::from_utf8_lossy(&out.stderr).trim(),
                    e.output.trim(),
                    "{ctx}"
                );
            } else {
                assert!(
                    out.status.success(),
                    "{ctx}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(String::from_utf8_lossy(&out.stdout), e.output, "{ctx}");
            }
            if e.set.contains("EXEC=0x5") {
                kinds.insert("exec");
            }
            if e.set.contains("0x7fc00000") {
                kinds.insert("nan");
            }
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} examples compared");
    assert_eq!(
        kinds.len(),
        2,
        "the sample lacks NaN or partial-EXEC examples: {kinds:?}"
    );
}

#[test]
fn seed_example_values_are_the_quad_masks() {
    // S_WQM_B64 of 0x10f00305: quads 0, 2, 4, 5, 7 have a bit set.
    let dir = site();
    let shown = examples_on(dir, "rdna3/S_WQM_B64.html");
    let first = shown.first().expect("an example");
    assert_eq!(first.set, "S0=0x10f00305");
    assert_eq!(first.output, "D0 = 0xf0f00f0f\nSCC = 0x1\n");
}

#[test]
fn assembled_examples_match_the_assembler() {
    let dir = site();
    let mut by_arch: BTreeMap<String, Vec<(String, String, String)>> = BTreeMap::new();
    for page in sample_pages(dir) {
        let html = read(&dir.join(&page));
        let Some(i) = html.find("<pre class=\"asm\">") else {
            continue;
        };
        let rest = &html[i + "<pre class=\"asm\">".len()..];
        let line = unescape(&rest[..rest.find("</pre>").expect("closes")]);
        let (text, enc) = line.split_once(";").expect("text ; encoding");
        let arch = page.split('/').next().expect("arch folder").to_string();
        by_arch.entry(arch).or_default().push((
            page.clone(),
            text.trim().to_string(),
            enc.trim()
                .trim_start_matches("encoding:")
                .trim()
                .to_string(),
        ));
    }
    let mut n = 0;
    for (arch, lines) in &by_arch {
        let input: String = lines.iter().map(|(_, t, _)| format!("{t}\n")).collect();
        let mut child = Command::new(common::bin())
            .args(["asm", "--arch", arch, "--show-encoding"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run amdpcode asm");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write program");
        let out = child.wait_with_output().expect("asm output");
        assert!(
            out.status.success(),
            "{arch}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let got: Vec<&str> = text.lines().collect();
        assert_eq!(got.len(), lines.len(), "{arch}: one line per instruction");
        for ((page, t, enc), g) in lines.iter().zip(got) {
            assert!(
                g.ends_with(&format!("; encoding: {enc}")),
                "{page}: `{t}` is {g}"
            );
            n += 1;
        }
    }
    assert!(n >= 40, "only {n} assembled examples checked");
    // The seed's example: registers in every register field.
    let html = read(&site().join("rdna3/S_WQM_B64.html"));
    assert!(html.contains("s_wqm_b64 s[4:5], s[8:9]    ; encoding: [0x08,0x1d,0x84,0xbe]"));
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

#[test]
fn seed_pages_show_their_proofs_and_layouts() {
    let dir = site();
    let z3 = have("z3");
    if !z3 && under_ci() {
        panic!("CI=true but z3 is not installed");
    }
    for (page, title) in [
        (
            "rdna3/S_WQM_B64.html",
            "Whole quad mode from shifts and masks",
        ),
        (
            "rdna4/S_WQM_B64.html",
            "Whole quad mode from shifts and masks",
        ),
        (
            "cdna/S_WQM_B64.html",
            "Whole quad mode from shifts and masks",
        ),
        ("rdna3/S_AND_NOT1_WREXEC_B64.html", "Waterfall loop"),
        ("rdna4/S_AND_NOT1_WREXEC_B64.html", "Waterfall loop"),
        ("cdna/S_ANDN2_WREXEC_B64.html", "Waterfall loop"),
    ] {
        let html = read(&dir.join(page));
        assert!(html.contains(title), "{page}: no `{title}`");
        if z3 {
            assert!(html.contains("equivalent (proved)"), "{page}: not proved");
        } else {
            assert!(
                html.contains("No proof: z3 is not on PATH"),
                "{page}: no note on z3"
            );
        }
    }
    // The generations link each other although CDNA and RDNA name the instruction differently.
    let rdna = read(&dir.join("rdna3/S_AND_NOT1_WREXEC_B64.html"));
    assert!(rdna.contains("href=\"../cdna/S_ANDN2_WREXEC_B64.html\""));
    let cdna = read(&dir.join("cdna/S_ANDN2_WREXEC_B64.html"));
    assert!(cdna.contains("href=\"../rdna3/S_AND_NOT1_WREXEC_B64.html\""));
    // The bit layout: the fixed SOP1 bits and the opcode, per generation (29 on RDNA, 7 on CDNA).
    let wqm = read(&dir.join("rdna3/S_WQM_B64.html"));
    assert!(wqm.contains("<td colspan=\"9\" class=\"fixed\" title=\"ENCODING\">101111101</td>"));
    assert!(wqm.contains("<td colspan=\"8\" class=\"op\" title=\"OP\">00011101</td>"));
    assert!(wqm.contains("<td colspan=\"8\" class=\"op\" title=\"OP\">00000111</td>"));
    assert!(wqm.contains("<span class=\"badge as_written\">"));
}

#[test]
fn cross_generation_differences_show_a_witness() {
    // CDNA's V_CMPX_* write VCC as well as EXEC, RDNA's only EXEC (`spec diff`): the page shows
    // an input, on every CDNA generation (the derived ones repeat CDNA 4's answer).
    let html = read(&site().join("rdna3/V_CMPX_EQ_U32_E32.html"));
    let section = html
        .split("id=\"generations\"")
        .nth(1)
        .expect("the generations section");
    for arch in ["cdna", "cdna3"] {
        let row = section
            .split("<tr>")
            .find(|r| r.contains(&format!("../{arch}/")))
            .expect("a CDNA row");
        assert!(row.contains("badge different"), "{row}");
        assert!(row.contains("witness: <code>"), "{row}");
    }
    // SOPK texts name the 16-bit immediate SIMM16 (RDNA 3) or S0 (RDNA 4, CDNA): the same
    // field, so the generations do not differ.
    let html = read(&site().join("rdna3/S_MOVK_I32.html"));
    let section = html.split("id=\"generations\"").nth(1).expect("section");
    for arch in ["rdna4", "cdna"] {
        let row = section
            .split("<tr>")
            .find(|r| r.contains(&format!("../{arch}/")))
            .expect("a row");
        assert!(!row.contains("badge different"), "{row}");
    }
}

#[test]
fn an_output_path_that_is_a_file_is_an_error() {
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("doc-site-not-a-folder");
    std::fs::write(&file, "x").expect("write file");
    let out = Command::new(common::bin())
        .args(["doc", "--out"])
        .arg(&file)
        .output()
        .expect("run amdpcode doc");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a folder"), "{err}");
    assert!(err.contains("doc-site-not-a-folder"), "{err}");
    let out = Command::new(common::bin())
        .args(["doc", "--arch", "rdna9", "--out"])
        .arg(&file)
        .output()
        .expect("run amdpcode doc");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown arch `rdna9`"));
}

/// Headless Chromium, if installed (`chromium` from Debian).
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| have(c))
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

#[test]
fn browser_renders_the_seed_page_and_finds_it_by_search() {
    let Some(browser) = chromium() else {
        assert!(!under_ci(), "CI=true but chromium is not installed");
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let dir = site().canonicalize().expect("site path");
    let url = |p: &str| format!("file://{}/{p}", dir.display());
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let headless = |extra: &[String]| {
        let profile = tmp.join("chromium-profile");
        let out = Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--allow-file-access-from-files",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .output()
            .expect("run chromium");
        assert!(
            out.status.success(),
            "chromium: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The page renders: a screenshot of the given size.
    let shot = tmp.join("s_wqm_b64.png");
    let _ = std::fs::remove_file(&shot);
    headless(&[
        format!("--screenshot={}", shot.display()),
        "--window-size=1000,1400".into(),
        url("rdna3/S_WQM_B64.html"),
    ]);
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert_eq!(png_size(&png), (1000, 1400));
    assert!(
        png.len() > 10_000,
        "a blank screenshot ({} bytes)",
        png.len()
    );
    // The DOM after scripts: the page, then the search page with a query.
    let dom = headless(&["--dump-dom".into(), url("rdna3/S_WQM_B64.html")]);
    assert!(dom.contains("<h1>S_WQM_B64</h1>"), "{dom}");
    let dom = headless(&[
        "--dump-dom".into(),
        "--virtual-time-budget=5000".into(),
        url("search.html?q=s_wqm_b64"),
    ]);
    let results = dom
        .split("id=\"results\"")
        .nth(1)
        .expect("the results list");
    assert!(
        results.contains("href=\"rdna3/S_WQM_B64.html\""),
        "{results}"
    );
    assert!(
        results.contains("href=\"cdna/S_WQM_B64.html\""),
        "{results}"
    );
    // One match per generation whose database has the instruction.
    let spec = common::spec();
    let expected = amdpcode::spec::Arch::ALL
        .into_iter()
        .filter(|&a| spec.get(a).is_ok_and(|db| db.get("S_WQM_B64").is_some()))
        .count();
    assert!(expected >= 3, "S_WQM_B64 on {expected} generations");
    assert!(dom.contains(&format!("{expected} matches")), "{dom}");
}
