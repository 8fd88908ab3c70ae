//! One instruction's page.

use std::fmt::Write;

use crate::exec;
use crate::frontend;
use crate::isa::Isa;
use crate::smt::diff::Kind;
use crate::smt::Solver;

use super::html::{esc, page};
use super::{default_wave, encoding, examples, how_badge, proof, AcrossMap, ArchData};

/// What every page builder reads.
pub(crate) struct Context<'a> {
    pub data: &'a [ArchData<'a>],
    pub across: &'a AcrossMap,
    pub solver: &'a Result<Solver, String>,
    pub prove: bool,
}

fn kind_text(k: &Kind) -> (&'static str, String) {
    match k {
        Kind::Identical => ("identical", "same text".into()),
        Kind::Equivalent => ("equivalent", "different text, proved equivalent".into()),
        Kind::Different { .. } => ("different", "different results".into()),
        Kind::Unknown(r) => ("unknown", format!("not decided: {r}")),
        Kind::OnlyFrom | Kind::OnlyTo => ("unknown", "only on one generation".into()),
    }
}

/// The page of instruction `idx` of generation `k`, and the number of worked examples on it.
pub(crate) fn instruction_page(ctx: &Context<'_>, k: usize, idx: usize) -> (String, usize) {
    let d = &ctx.data[k];
    let arch = d.arch;
    let inst = &d.db.instructions()[idx];
    let row = &d.rows[idx];
    let a = arch.name();
    let mut b = String::with_capacity(16 * 1024);
    let _ = write!(
        b,
        "<p class=\"crumbs\"><a href=\"../index.html\">home</a> / <a href=\"index.html\">{a}</a> / \
         <a href=\"enc-{enc}.html\">{enc}</a></p>\n<h1>{name}</h1>\n\
         <p class=\"sub\">{a} &middot; {enc} &middot; opcode {op} &middot; {badge}</p>\n",
        enc = esc(&inst.encoding),
        name = esc(&inst.name),
        op = inst.opcode,
        badge = how_badge(row.how)
    );
    if !inst.aliases.is_empty() {
        let _ = writeln!(
            b,
            "<p>Also named: {}</p>",
            inst.aliases
                .iter()
                .map(|x| format!("<code>{}</code>", esc(x)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // How it runs.
    let _ = write!(
        b,
        "<h2 id=\"fidelity\">How amdpcode executes it</h2>\n<p>{} ",
        how_badge(row.how)
    );
    let explain = match row.how {
        crate::wave::fidelity::How::AsWritten => "AMD's pseudocode runs as written.",
        crate::wave::fidelity::How::Erratum => {
            "AMD's text is replaced by an erratum (semantics/errata/), for this reason:"
        }
        crate::wave::fidelity::How::Native => "The wave layer models it:",
        crate::wave::fidelity::How::Approximated => {
            "It calls built-ins the hardware only approximates:"
        }
        crate::wave::fidelity::How::NotExecutable => "It does not execute:",
    };
    let _ = writeln!(b, "{explain}</p>");
    if !row.detail.is_empty() {
        let _ = writeln!(b, "<pre class=\"detail\">{}</pre>", esc(&row.detail));
    }
    // AMD's text and the text executed.
    b.push_str("<h2 id=\"pseudocode\">AMD's pseudocode</h2>\n");
    match &inst.pcode {
        Some(t) => {
            let _ = writeln!(b, "<pre class=\"pcode\">{}</pre>", esc(t));
        }
        None => b.push_str("<p>AMD's tables have no pseudocode for this instruction.</p>\n"),
    }
    let entry = frontend::entry_text(arch, inst);
    if let Ok((text, true)) = &entry {
        let _ = writeln!(
            b,
            "<h3>The text amdpcode runs (erratum)</h3>\n<pre class=\"erratum-text\">{}</pre>",
            esc(text.trim_matches('\n'))
        );
    }
    // Operands.
    b.push_str("<h2 id=\"operands\">Operands</h2>\n");
    if inst.operands.is_empty() {
        b.push_str("<p>AMD's operand table lists none.</p>\n");
    } else {
        b.push_str(
            "<table><tr><th>field</th><th>type</th><th>data format</th><th>bits</th></tr>\n",
        );
        for o in &inst.operands {
            let _ = writeln!(
                b,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&o.field.to_ascii_uppercase()),
                esc(o.kind.trim_start_matches("OPR_")),
                esc(o.format.trim_start_matches("FMT_")),
                o.bits
            );
        }
        b.push_str("</table>\n");
    }
    // Encodings, this generation first.
    b.push_str("<h2 id=\"encoding\">Encoding</h2>\n");
    let mut gens: Vec<(usize, usize)> = vec![(k, idx)];
    let across = ctx.across.get(&(arch, idx)).cloned().unwrap_or_default();
    for x in &across {
        if let Some(ok) = ctx.data.iter().position(|o| o.arch == x.arch) {
            gens.push((ok, x.index));
        }
    }
    for &(gk, gi) in &gens {
        let g = &ctx.data[gk];
        let gi_inst = &g.db.instructions()[gi];
        let name = if gk == k {
            String::new()
        } else {
            format!(
                " as <a href=\"../{}/{}.html\"><code>{}</code></a>",
                g.arch.name(),
                g.files[gi],
                esc(&gi_inst.name)
            )
        };
        let _ = writeln!(
            b,
            "<h3>{}{name}: {}, opcode {}</h3>",
            g.arch.name(),
            esc(&gi_inst.encoding),
            gi_inst.opcode
        );
        match g.db.encoding(&gi_inst.encoding) {
            Some(enc) => b.push_str(&encoding::layout_table(enc, gi_inst)),
            None => b.push_str("<p>AMD's tables have no layout for this encoding.</p>\n"),
        }
    }
    let missing: Vec<&str> = ctx
        .data
        .iter()
        .filter(|o| o.arch != arch && !across.iter().any(|x| x.arch == o.arch))
        .map(|o| o.arch.name())
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(b, "<p>Not in: {}.</p>", missing.join(", "));
    }
    // LLVM syntax.
    b.push_str("<h2 id=\"syntax\">LLVM syntax</h2>\n");
    let isa = Isa::new(d.db);
    let example =
        d.db.encoding(&inst.encoding)
            .and_then(|enc| encoding::assembled_example(&isa, enc, inst));
    match example {
        Some((text, bytes)) => {
            let _ = writeln!(
                b,
                "<pre class=\"asm\">{}    ; encoding: {}</pre>\n<p class=\"sub\">An instruction word with \
                 this opcode, printed by amdpcode's disassembler, and the bytes its text assembles \
                 to (<code>amdpcode asm --arch {a} --show-encoding</code>), which disassemble to \
                 the same text.</p>",
                esc(&text),
                crate::isa::encoding_text(&bytes)
            );
        }
        None => b.push_str(
            "<p>No example: amdpcode's assembler has no text for this instruction word that \
             round-trips.</p>\n",
        ),
    }
    // Typed IR and worked examples.
    let prepared = exec::prepare(arch, inst);
    let mut n_examples = 0;
    match &prepared {
        Ok(p) => {
            let _ = writeln!(
                b,
                "<h2 id=\"ir\">Typed IR</h2>\n<details><summary>What the text becomes after parsing \
                 and type checking (<code>amdpcode show --arch {a} {} --ir</code>)</summary>\n\
                 <pre class=\"ir\">{}</pre></details>",
                esc(&inst.name),
                esc(&crate::ir::print_function(&p.function))
            );
        }
        Err(e) => {
            let _ = writeln!(
                b,
                "<h2 id=\"ir\">Typed IR</h2>\n<p>None: {}</p>",
                esc(&e.diagnostic.summary())
            );
        }
    }
    b.push_str("<h2 id=\"examples\">Worked examples</h2>\n");
    // `amdpcode eval` looks names up with a preference; only the instruction it finds gets
    // examples under that name.
    let eval_finds_this = d.db.get(&inst.name).is_some_and(|i| std::ptr::eq(i, inst));
    let alu = exec::ALU_ENCODINGS.contains(&inst.encoding.as_str());
    match (&prepared, &entry) {
        (Ok(p), Ok((text, _))) if alu && eval_finds_this => {
            let wave = default_wave(arch);
            let list = examples::examples(inst, p, text, wave);
            n_examples = list.len();
            b.push_str(
                "<p class=\"sub\">Computed by the interpreter when this page was built; each \
                 command prints the same.</p>\n",
            );
            for e in &list {
                let set = if e.set.is_empty() {
                    String::new()
                } else {
                    format!(" --set '{}'", e.set)
                };
                let wave_arg = if e.wave == 32 {
                    String::new()
                } else {
                    format!(" --wave {}", e.wave)
                };
                let _ = write!(
                    b,
                    "<div class=\"example\" data-arch=\"{a}\" data-inst=\"{n}\" data-wave=\"{w}\" \
                     data-set=\"{s}\">\n<h3>{t}</h3>\n<p class=\"why\">{why}</p>\n\
                     <pre class=\"cmd\">$ amdpcode eval --arch {a} {n}{wave_arg}{set_arg}</pre>\n",
                    n = esc(&inst.name),
                    w = e.wave,
                    s = esc(&e.set),
                    t = esc(&e.title),
                    why = esc(&e.why),
                    set_arg = esc(&set),
                );
                match &e.output {
                    Ok(o) => {
                        let _ = writeln!(b, "<pre class=\"out\">{}</pre>", esc(o));
                    }
                    Err(m) => {
                        let _ = writeln!(b, "<pre class=\"out fault\">error: {}</pre>", esc(m));
                    }
                }
                b.push_str("</div>\n");
            }
        }
        (Ok(_), _) if !alu => {
            let _ = writeln!(
                b,
                "<p>Examples are computed for ALU instructions; run this one in a program with \
                 <code>amdpcode run --arch {a}</code>.</p>"
            );
        }
        (Ok(_), _) => {
            let _ = writeln!(
                b,
                "<p>No examples: <code>amdpcode eval --arch {a} {}</code> finds another \
                 instruction of this name (<code>{}</code>).</p>",
                esc(&inst.name),
                d.db.get(&inst.name)
                    .map_or(String::new(), |i| esc(&i.encoding))
            );
        }
        _ => b.push_str("<p>None: the instruction does not compile (see above).</p>\n"),
    }
    // Across generations.
    b.push_str("<h2 id=\"generations\">Across generations</h2>\n");
    if across.is_empty() {
        b.push_str("<p>No other generation has it.</p>\n");
    } else {
        b.push_str(
            "<table><tr><th>generation</th><th>as</th><th>compared with this one</th></tr>\n",
        );
        for x in &across {
            let Some(g) = ctx.data.iter().find(|o| o.arch == x.arch) else {
                continue;
            };
            let other = &g.db.instructions()[x.index];
            let cmp = match &x.kind {
                None => {
                    "<td>not compared (not an ALU instruction with text on both)</td>".to_string()
                }
                Some(k) => {
                    let (class, text) = kind_text(k);
                    let mut cell = format!(
                        "<td><span class=\"badge {class}\">{}</span> {}",
                        class,
                        esc(&text)
                    );
                    if let Kind::Different { input, outputs } = k {
                        let i: Vec<String> =
                            input.iter().map(|(n, v)| format!("{n}={v}")).collect();
                        let o: Vec<String> = outputs
                            .iter()
                            .map(|(n, (x, y))| format!("{n}: {x} here, {y} on {}", g.arch.name()))
                            .collect();
                        let _ = write!(
                            cell,
                            "<br>witness: <code>{}</code><br>gives <code>{}</code>",
                            esc(&i.join(", ")),
                            esc(&o.join("; "))
                        );
                    }
                    cell.push_str("</td>");
                    cell
                }
            };
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td><a href=\"../{}/{}.html\"><code>{}</code></a></td>{cmp}</tr>",
                g.arch.name(),
                g.arch.name(),
                g.files[x.index],
                esc(&other.name)
            );
        }
        b.push_str("</table>\n");
        if !ctx.prove {
            let _ = writeln!(
                b,
                "<p class=\"sub\">Random inputs only; <code>amdpcode doc --prove</code> asks the \
                 solver too, and <code>amdpcode spec diff {a} OTHER {}</code> compares one pair.</p>",
                esc(&inst.name)
            );
        }
    }
    // Proofs on the seed pages.
    if proof::has_proof(&inst.name) {
        for p in proof::proofs(d.db, &inst.name, ctx.solver) {
            let _ = write!(
                b,
                "<h2 id=\"proof\">{}</h2>\n<p>{}</p>\n<p><span class=\"badge {}\">{}</span> {}</p>\n",
                esc(p.title),
                esc(p.about),
                p.class,
                esc(&p.verdict),
                esc(&p.detail)
            );
            if !p.a.is_empty() {
                let _ = write!(
                    b,
                    "<table><tr><th>A: with {}</th><th>B: without</th></tr><tr><td><pre>{}</pre></td>\
                     <td><pre>{}</pre></td></tr></table>\n<p class=\"sub\">Check it: save the programs as \
                     a.s and b.s, then <code>amdpcode equiv --arch {a} --wave {} --outputs {} a.s b.s</code>.</p>\n",
                    esc(&inst.name.to_ascii_lowercase()),
                    esc(&p.a),
                    esc(&p.b),
                    p.wave,
                    p.outputs
                );
            }
        }
    }
    (page(&format!("{} ({a})", inst.name), "../", &b), n_examples)
}
