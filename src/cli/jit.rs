//! `amdpcode jit`: compile instructions with the Cranelift JIT, one dumped or a whole arch.

use clap::Args;

use amdpcode::spec::{Arch, Spec};
use amdpcode::{exec, jit};

use super::common::{
    arch_db, find_inst, parse_arch, print_out, render_front_error, Failure, Wheel,
};

#[derive(Args)]
pub struct Jit {
    /// rdna1 .. rdna4, cdna1 .. cdna5 (cdna = cdna4), or a processor name such as gfx942.
    #[arg(long)]
    arch: String,
    /// The instruction (omit with --all).
    inst: Option<String>,
    /// Print the IR, the Cranelift IR and the machine-code size.
    #[arg(long)]
    dump: bool,
    /// Compile every ALU entry of the arch and report.
    #[arg(long, conflicts_with = "inst")]
    all: bool,
}

pub fn run(c: Jit, wheel: &Wheel) -> Result<(), Failure> {
    let arch = parse_arch(&c.arch)?;
    let spec = wheel.load()?;
    jit_command(spec, arch, c.inst.as_deref(), c.dump, c.all)
}

fn jit_command(
    spec: &Spec,
    arch: Arch,
    inst: Option<&str>,
    dump: bool,
    all: bool,
) -> Result<(), Failure> {
    let jit = jit::Jit::new().map_err(|e| Failure(format!("error: {e}")))?;
    let jit = if dump { jit.with_disasm() } else { jit };
    if all {
        let start = std::time::Instant::now();
        let (mut ok, mut total, mut bytes) = (0, 0, 0);
        let mut text = String::new();
        for i in arch_db(spec, arch)?.with_pcode() {
            if !exec::ALU_ENCODINGS.contains(&i.encoding.as_str()) {
                continue;
            }
            total += 1;
            match exec::prepare(arch, i) {
                Err(e) => text.push_str(&format!("  {}: {}\n", i.name, e.diagnostic.summary())),
                Ok(p) => match jit.compile(&p) {
                    Ok(k) => {
                        ok += 1;
                        bytes += k.code_size;
                    }
                    Err(e) => text.push_str(&format!("  {}: {e}\n", i.name)),
                },
            }
        }
        text.push_str(&format!(
            "{arch}: compiled {ok} of {total} ALU entries, {bytes} bytes of machine code, in {:.2?}\n",
            start.elapsed()
        ));
        return print_out(&text);
    }
    let name = inst.ok_or_else(|| Failure("error: name an instruction, or give --all".into()))?;
    let i = find_inst(spec, arch, name)?;
    let p = exec::prepare(arch, i).map_err(render_front_error)?;
    let k = jit
        .compile(&p)
        .map_err(|e| Failure(format!("error: {arch}:{}: {e}", i.name)))?;
    let mut text = format!("{}: {} bytes of machine code\n", i.name, k.code_size);
    if dump {
        text.push_str("\n== IR (optimised, as compiled)\n");
        text.push_str(&amdpcode::ir::print_function(&amdpcode::ir::opt::optimize(
            &p.function,
        )));
        text.push_str("\n== Cranelift IR\n");
        text.push_str(&k.clif);
        text.push_str("\n== Machine code\n");
        text.push_str(&k.asm);
    }
    print_out(&text)
}
