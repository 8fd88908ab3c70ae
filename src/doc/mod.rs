//! `amdpcode doc --out DIR`: a static, executable ISA reference generated from the spec
//! database and the wheel the user has.
//!
//! One page per instruction per generation shows AMD's pseudocode (quoted from the wheel at
//! build time), how amdpcode executes it (the `spec fidelity` class and reason), its operands,
//! its encoding in every generation that has it (the bit layout as a table), an example in
//! LLVM syntax made by the assembler with its bytes, the typed IR, worked examples computed
//! by the interpreter, and how it differs across generations (`spec diff`: random inputs, and
//! the solver with `--prove`). Index pages list the instructions by generation and encoding;
//! `search.html` searches a JSON index with a small script. The site is plain HTML, CSS and
//! JavaScript with relative links: it needs no server and no network.

mod encoding;
mod examples;
mod html;
mod page;
mod proof;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::smt::diff::{self, Kind};
use crate::smt::Solver;
use crate::spec::{Arch, Instruction, Spec, SpecDb};
use crate::wave::fidelity::{self, How, Row};

pub use examples::{run as run_example, Example};

use html::esc;

/// What to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// The output folder (created if missing).
    pub out: PathBuf,
    /// The generations (default: every one).
    pub archs: Vec<Arch>,
    /// Ask the solver about cross-generation differences that random inputs do not show.
    pub prove: bool,
    /// The solver (default: z3 on PATH).
    pub solver: Option<PathBuf>,
    /// The solver's time limit per instruction, in milliseconds.
    pub timeout_ms: u64,
}

/// Why the site could not be built.
#[derive(Debug)]
pub struct DocError(pub String);

impl std::fmt::Display for DocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DocError {}

/// What was built.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Instruction pages written.
    pub instruction_pages: usize,
    /// All pages written (instruction, index and search pages).
    pub pages: usize,
    /// Worked examples computed.
    pub examples: usize,
    /// Instruction pairs compared across generations (text not identical).
    pub compared: usize,
    /// Distinct comparisons among them (a derived generation repeats its base's questions).
    pub distinct: usize,
    /// Seconds spent comparing generations.
    pub diff_seconds: f64,
    /// Seconds in total.
    pub seconds: f64,
}

/// One generation's data, shared by the page builders.
pub(crate) struct ArchData<'a> {
    pub arch: Arch,
    pub db: &'a SpecDb,
    /// Fidelity rows, in `db.instructions()` order.
    pub rows: Vec<Row>,
    /// Page file name (without `.html`) of each instruction, in `db.instructions()` order.
    pub files: Vec<String>,
}

impl ArchData<'_> {
    fn index_of(&self, inst: &Instruction) -> Option<usize> {
        self.db
            .instructions()
            .iter()
            .position(|i| std::ptr::eq(i, inst))
    }
}

/// The wave size the generation's examples and comparisons use.
pub(crate) fn default_wave(arch: Arch) -> u32 {
    arch.default_wave()
}

/// How an instruction compares with its counterpart on another generation.
#[derive(Clone, Debug)]
pub(crate) struct Across {
    /// The other generation.
    pub arch: Arch,
    /// The counterpart's index there.
    pub index: usize,
    /// The comparison, for ALU instructions with text on both.
    pub kind: Option<Kind>,
}

/// The counterpart of `inst` in `db`: the same name or alias in the same encoding, else the
/// same name in another encoding.
fn counterpart<'a>(db: &'a SpecDb, inst: &Instruction) -> Option<&'a Instruction> {
    let names = std::iter::once(&inst.name).chain(&inst.aliases);
    let mut any: Option<&Instruction> = None;
    for n in names {
        let mut cands = db.get_all(n);
        if let Some(c) = crate::isa::tables::mnemonic_alias(db.arch(), n) {
            cands.extend(db.get_all(&c));
        }
        if let Some(c) = cands.iter().find(|c| c.encoding == inst.encoding) {
            return Some(c);
        }
        any = any.or(cands.first().copied());
    }
    any
}

fn file_names(db: &SpecDb) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for i in db.instructions() {
        *count.entry(i.name.as_str()).or_default() += 1;
    }
    db.instructions()
        .iter()
        .map(|i| {
            if count[i.name.as_str()] > 1 {
                format!("{}.{}", i.name, i.encoding)
            } else {
                i.name.clone()
            }
        })
        .collect()
}

fn write(path: &Path, text: &str) -> Result<(), DocError> {
    std::fs::write(path, text)
        .map_err(|e| DocError(format!("cannot write {}: {e}", path.display())))
}

fn mkdir(path: &Path) -> Result<(), DocError> {
    std::fs::create_dir_all(path)
        .map_err(|e| DocError(format!("cannot create {}: {e}", path.display())))
}

/// Builds the site into `opts.out`.
///
/// # Errors
/// [`DocError`] when the output folder cannot be created or written.
pub fn build(spec: &Spec, opts: &Options) -> Result<Summary, DocError> {
    let start = Instant::now();
    if opts.out.exists() && !opts.out.is_dir() {
        return Err(DocError(format!(
            "{} exists and is not a folder",
            opts.out.display()
        )));
    }
    mkdir(&opts.out)?;
    // Every arch with a database by default; a named arch without one is an error.
    let archs: Vec<Arch> = if opts.archs.is_empty() {
        Arch::ALL
            .into_iter()
            .filter(|&a| spec.get(a).is_ok())
            .collect()
    } else {
        for &a in &opts.archs {
            spec.get(a).map_err(|e| DocError(e.to_string()))?;
        }
        opts.archs.clone()
    };
    let solver: Result<Solver, String> = match Solver::find(opts.solver.as_deref()) {
        Ok(mut s) => {
            s.timeout_ms = opts.timeout_ms;
            Ok(s)
        }
        Err(e) => Err(e.to_string()),
    };
    let data: Vec<ArchData<'_>> = std::thread::scope(|s| {
        let hs: Vec<_> = archs
            .iter()
            .map(|&arch| {
                s.spawn(move || {
                    let db = spec.db(arch);
                    ArchData {
                        arch,
                        db,
                        rows: fidelity::report(db),
                        files: file_names(db),
                    }
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    // Cross-generation comparisons, once per pair of generations.
    let t = Instant::now();
    let diff_solver = if opts.prove {
        solver.as_ref().ok()
    } else {
        None
    };
    if opts.prove {
        if let Err(e) = &solver {
            return Err(DocError(format!("--prove needs a solver: {e}")));
        }
    }
    let (across, compared, distinct) = compare_all(&data, diff_solver);
    let diff_seconds = t.elapsed().as_secs_f64();
    let mut summary = Summary {
        diff_seconds,
        compared,
        distinct,
        ..Summary::default()
    };
    // Instruction pages, one thread per generation.
    let ctx = page::Context {
        data: &data,
        across: &across,
        solver: &solver,
        prove: opts.prove,
    };
    let results: Vec<Result<(usize, usize), DocError>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..data.len())
            .map(|k| {
                let ctx = &ctx;
                let out = &opts.out;
                let data = &data;
                s.spawn(move || -> Result<(usize, usize), DocError> {
                    let d = &data[k];
                    let dir = out.join(d.arch.name());
                    mkdir(&dir)?;
                    let mut examples = 0;
                    for (idx, _) in d.db.instructions().iter().enumerate() {
                        let (text, n) = page::instruction_page(ctx, k, idx);
                        examples += n;
                        write(&dir.join(format!("{}.html", d.files[idx])), &text)?;
                    }
                    Ok((d.db.instructions().len(), examples))
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for r in results {
        let (pages, examples) = r?;
        summary.instruction_pages += pages;
        summary.examples += examples;
    }
    let mut index: Vec<serde_json::Value> = Vec::new();
    let others = index_pages(&opts.out, &data, &across, &mut index)?;
    summary.pages = summary.instruction_pages + others;
    for d in &data {
        for (idx, inst) in d.db.instructions().iter().enumerate() {
            let mut key = format!("{} {}", inst.name, inst.aliases.join(" "));
            let _ = write!(key, " {} {}", d.arch.name(), inst.encoding);
            index.push(serde_json::json!({
                "name": inst.name,
                "arch": d.arch.name(),
                "encoding": inst.encoding,
                "how": d.rows[idx].how.name(),
                "url": format!("{}/{}.html", d.arch.name(), d.files[idx]),
                "key": key.to_ascii_lowercase(),
            }));
        }
    }
    let json = serde_json::to_string(&index).map_err(|e| DocError(format!("bug: {e}")))?;
    write(&opts.out.join("search-index.json"), &json)?;
    write(
        &opts.out.join("search-index.js"),
        &format!("window.AMDPCODE_INDEX = {json};\n"),
    )?;
    write(&opts.out.join("search.js"), html::SEARCH_JS)?;
    write(&opts.out.join("style.css"), html::CSS)?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Every generation pair's comparisons, keyed by (generation, instruction index).
pub(crate) type AcrossMap = BTreeMap<(Arch, usize), Vec<Across>>;

fn compare_all(data: &[ArchData<'_>], solver: Option<&Solver>) -> (AcrossMap, usize, usize) {
    // Counterpart links, found from either side (an alias may be known on one generation
    // only: `s_andn2_wrexec_b64` is an RDNA name for `s_and_not1_wrexec_b64`), one link per
    // (instruction, other generation).
    let mut links: BTreeMap<(usize, usize, usize), usize> = BTreeMap::new();
    for (ka, a) in data.iter().enumerate() {
        for (kb, b) in data.iter().enumerate() {
            if ka == kb {
                continue;
            }
            let positions: std::collections::HashMap<*const Instruction, usize> =
                b.db.instructions()
                    .iter()
                    .enumerate()
                    .map(|(i, x)| (x as *const Instruction, i))
                    .collect();
            for (ia, inst) in a.db.instructions().iter().enumerate() {
                let Some(other) = counterpart(b.db, inst) else {
                    continue;
                };
                let Some(&ib) = positions.get(&(other as *const Instruction)) else {
                    continue;
                };
                links.entry((ka, ia, kb)).or_insert(ib);
                links.entry((kb, ib, ka)).or_insert(ia);
            }
        }
    }
    let mut map: AcrossMap = BTreeMap::new();
    // The work: (generation a, index, generation b, index) for every counterpart pair.
    let mut work: Vec<(usize, usize, usize, usize)> = Vec::new();
    let alu = |i: &Instruction| {
        crate::exec::ALU_ENCODINGS.contains(&i.encoding.as_str()) && i.pcode.is_some()
    };
    for (&(ka, ia, kb), &ib) in &links {
        let (a, b) = (&data[ka], &data[kb]);
        map.entry((a.arch, ia)).or_default().push(Across {
            arch: b.arch,
            index: ib,
            kind: None,
        });
        let back = links.get(&(kb, ib, ka)) == Some(&ia);
        if ka < kb && back && alu(&a.db.instructions()[ia]) && alu(&b.db.instructions()[ib]) {
            work.push((ka, ia, kb, ib));
        }
    }
    // A derived generation carries its base's text and operands, so the same comparison recurs
    // for many generation pairs (RDNA 1, 2 and 3 against CDNA 1 to 4 are one question per
    // instruction). Each distinct question is answered once: the answer depends only on the
    // two entries' texts after errata, names, encodings and operands, and the wave size.
    let mut unique: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut slot_of_key: std::collections::HashMap<CompareKey, usize> =
        std::collections::HashMap::new();
    let slots: Vec<usize> = work
        .iter()
        .map(|&(ka, ia, kb, ib)| {
            let key = compare_key(&data[ka], ia, &data[kb], ib);
            *slot_of_key.entry(key).or_insert_with(|| {
                unique.push((ka, ia, kb, ib));
                unique.len() - 1
            })
        })
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = unique.len().div_ceil(threads).max(1);
    let answers: Vec<Kind> = std::thread::scope(|s| {
        let hs: Vec<_> = unique
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&(ka, ia, kb, ib)| {
                            let (a, b) = (&data[ka], &data[kb]);
                            diff::compare_with(
                                a.arch,
                                &a.db.instructions()[ia],
                                b.arch,
                                &b.db.instructions()[ib],
                                compare_wave(a.arch, b.arch),
                                solver,
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let results: Vec<((usize, usize, usize, usize), Kind)> = work
        .iter()
        .zip(&slots)
        .map(|(&w, &slot)| (w, answers[slot].clone()))
        .collect();
    let compared = results
        .iter()
        .filter(|(_, k)| *k != Kind::Identical)
        .count();
    for ((ka, ia, kb, ib), k) in results {
        let (a, b) = (data[ka].arch, data[kb].arch);
        for (arch, idx, other) in [(a, ia, b), (b, ib, a)] {
            if let Some(list) = map.get_mut(&(arch, idx)) {
                if let Some(x) = list.iter_mut().find(|x| x.arch == other) {
                    // Seen from the other side, FROM and TO swap.
                    x.kind = Some(if arch == a { k.clone() } else { swap(&k) });
                }
            }
        }
    }
    let distinct = answers.iter().filter(|k| **k != Kind::Identical).count();
    (map, compared, distinct)
}

/// What a cross-generation comparison depends on: each side's text after errata, name,
/// encoding and operands (they decide which operands are per lane), and the wave size.
type CompareKey = (EntryKey, EntryKey, u32);
type EntryKey = (
    Option<String>,
    String,
    String,
    Vec<(String, String, u32, String)>,
);

fn entry_key(d: &ArchData<'_>, idx: usize) -> EntryKey {
    let inst = &d.db.instructions()[idx];
    (
        crate::frontend::entry_text(d.arch, inst).ok().map(|t| t.0),
        inst.name.clone(),
        inst.encoding.clone(),
        inst.operands
            .iter()
            .map(|o| (o.field.clone(), o.format.clone(), o.bits, o.kind.clone()))
            .collect(),
    )
}

fn compare_key(a: &ArchData<'_>, ia: usize, b: &ArchData<'_>, ib: usize) -> CompareKey {
    (
        entry_key(a, ia),
        entry_key(b, ib),
        compare_wave(a.arch, b.arch),
    )
}

/// The wave size a pair of generations is compared at: the larger default.
fn compare_wave(a: Arch, b: Arch) -> u32 {
    default_wave(a).max(default_wave(b))
}

/// A comparison seen from the other generation: the output pairs swap.
fn swap(k: &Kind) -> Kind {
    match k {
        Kind::Different { input, outputs } => Kind::Different {
            input: input.clone(),
            outputs: outputs
                .iter()
                .map(|(n, (x, y))| (n.clone(), (y.clone(), x.clone())))
                .collect(),
        },
        Kind::OnlyFrom => Kind::OnlyTo,
        Kind::OnlyTo => Kind::OnlyFrom,
        other => other.clone(),
    }
}

/// The fidelity class as a badge.
pub(crate) fn how_badge(how: How) -> String {
    format!(
        "<span class=\"badge {}\">{}</span>",
        how.name(),
        how.name().replace('_', " ")
    )
}

/// Writes `index.html`, `search.html` and each generation's index and encoding pages; adds
/// them to the search index; returns how many pages it wrote.
fn index_pages(
    out: &Path,
    data: &[ArchData<'_>],
    across: &AcrossMap,
    index: &mut Vec<serde_json::Value>,
) -> Result<usize, DocError> {
    let mut pages = 0;
    let mut add = |name: &str, url: &str, key: &str| {
        index.push(serde_json::json!({
            "name": name, "arch": "", "encoding": "", "how": "", "url": url,
            "key": key.to_ascii_lowercase(),
        }));
    };
    // The home page.
    let mut body = String::from(
        "<h1>AMD GPU instructions, executable</h1>\n<p class=\"sub\">Every instruction of every \
         generation amdpcode reads, with AMD's pseudocode, how amdpcode executes it, its \
         encodings, an assembled example, worked examples computed by the interpreter, and how \
         it differs between generations.</p>\n<table><tr><th>generation</th><th>instructions</th>",
    );
    let hows = [
        How::AsWritten,
        How::Erratum,
        How::Native,
        How::Approximated,
        How::NotExecutable,
    ];
    for h in hows {
        let _ = write!(body, "<th>{}</th>", h.name().replace('_', " "));
    }
    body.push_str("</tr>\n");
    for d in data {
        let totals = fidelity::totals(&d.rows);
        let _ = write!(
            body,
            "<tr><td><a href=\"{a}/index.html\">{a}</a></td><td>{}</td>",
            d.rows.len(),
            a = d.arch.name()
        );
        for (_, n) in totals {
            let _ = write!(body, "<td>{n}</td>");
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</table>\n<h2>Start here</h2>\n<ul>\n");
    for d in data {
        for name in ["S_WQM_B64", "S_AND_NOT1_WREXEC_B64", "S_ANDN2_WREXEC_B64"] {
            if let Some(i) = d.db.get(name).filter(|i| i.name == name) {
                if let Some(idx) = d.index_of(i) {
                    let _ = writeln!(
                        body,
                        "<li><a href=\"{a}/{f}.html\">{n}</a> ({a}): with an equivalence proof</li>",
                        a = d.arch.name(),
                        f = d.files[idx],
                        n = i.name
                    );
                }
            }
        }
    }
    body.push_str(
        "<li><a href=\"search.html\">Search</a> by name, alias, generation or encoding</li>\n</ul>\n\
         <h2>Classes</h2>\n<p><b>as written</b>: AMD's text runs unchanged. <b>erratum</b>: \
         AMD's text is wrong or incomplete and amdpcode runs a corrected text (the page gives \
         the reason). <b>native</b>: the wave layer models it. <b>approximated</b>: a built-in \
         the hardware only approximates. <b>not executable</b>: the reason is on the page.</p>\n",
    );
    write(
        &out.join("index.html"),
        &html::page("amdpcode ISA reference", "", &body),
    )?;
    add("Home", "index.html", "home index generations");
    pages += 1;
    let search = "<h1>Search</h1>\n<p class=\"sub\">Words separated by spaces must all occur \
                  in the name, an alias, the generation or the encoding.</p>\n\
                  <p><input id=\"q\" type=\"search\" autofocus placeholder=\"e.g. wqm, v_add f32 rdna4\" \
                  style=\"width:24rem;padding:.35rem\"> <span id=\"count\" class=\"sub\"></span></p>\n\
                  <ul id=\"results\" class=\"results\"></ul>\n\
                  <script src=\"search-index.js\"></script>\n<script src=\"search.js\"></script>\n";
    write(&out.join("search.html"), &html::page("Search", "", search))?;
    add("Search", "search.html", "search");
    pages += 1;
    for d in data {
        let a = d.arch.name();
        let mut by_enc: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (idx, i) in d.db.instructions().iter().enumerate() {
            by_enc.entry(i.encoding.as_str()).or_default().push(idx);
        }
        let mut body = format!(
            "<p class=\"crumbs\"><a href=\"../index.html\">home</a></p>\n<h1>{a}</h1>\n\
             <p class=\"sub\">{} instructions in {} encodings.</p>\n<h2>By encoding</h2>\n\
             <table><tr><th>encoding</th><th>instructions</th>",
            d.rows.len(),
            by_enc.len()
        );
        for h in hows {
            let _ = write!(body, "<th>{}</th>", h.name().replace('_', " "));
        }
        body.push_str("</tr>\n");
        for (enc, list) in &by_enc {
            let _ = write!(
                body,
                "<tr><td><a href=\"enc-{enc}.html\">{enc}</a></td><td>{}</td>",
                list.len()
            );
            for h in hows {
                let n = list.iter().filter(|&&i| d.rows[i].how == h).count();
                let _ = write!(body, "<td>{n}</td>");
            }
            body.push_str("</tr>\n");
        }
        body.push_str(
            "</table>\n<h2>Across generations</h2>\n<table><tr><th>compared with</th>\
            <th>same text</th><th>equivalent</th><th>different</th><th>not decided</th></tr>\n",
        );
        for other in data.iter().filter(|o| o.arch != d.arch) {
            let mut t = [0usize; 4];
            for idx in 0..d.rows.len() {
                let Some(list) = across.get(&(d.arch, idx)) else {
                    continue;
                };
                for x in list.iter().filter(|x| x.arch == other.arch) {
                    match &x.kind {
                        Some(Kind::Identical) => t[0] += 1,
                        Some(Kind::Equivalent) => t[1] += 1,
                        Some(Kind::Different { .. }) => t[2] += 1,
                        Some(_) => t[3] += 1,
                        None => {}
                    }
                }
            }
            let _ = writeln!(
                body,
                "<tr><td><a href=\"../{o}/index.html\">{o}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                t[0],
                t[1],
                t[2],
                t[3],
                o = other.arch.name()
            );
        }
        body.push_str("</table>\n");
        write(
            &out.join(a).join("index.html"),
            &html::page(&format!("{a} instructions"), "../", &body),
        )?;
        add(
            &format!("{a} index"),
            &format!("{a}/index.html"),
            &format!("{a} index generation"),
        );
        pages += 1;
        for (enc, list) in &by_enc {
            let mut body = format!(
                "<p class=\"crumbs\"><a href=\"../index.html\">home</a> / <a href=\"index.html\">{a}</a></p>\n\
                 <h1>{a} {enc}</h1>\n<p class=\"sub\">{} instructions.</p>\n<table><tr><th>instruction</th>\
                 <th>opcode</th><th>executed</th></tr>\n",
                list.len()
            );
            for &idx in list {
                let i = &d.db.instructions()[idx];
                let _ = writeln!(
                    body,
                    "<tr><td><a href=\"{f}.html\"><code>{n}</code></a></td><td>{op}</td><td>{b}</td></tr>",
                    f = d.files[idx],
                    n = esc(&i.name),
                    op = i.opcode,
                    b = how_badge(d.rows[idx].how)
                );
            }
            body.push_str("</table>\n");
            write(
                &out.join(a).join(format!("enc-{enc}.html")),
                &html::page(&format!("{a} {enc}"), "../", &body),
            )?;
            add(
                &format!("{a} {enc}"),
                &format!("{a}/enc-{enc}.html"),
                &format!("{a} {enc} encoding"),
            );
            pages += 1;
        }
    }
    Ok(pages)
}
