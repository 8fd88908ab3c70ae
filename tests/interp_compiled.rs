//! The interpreter's prepared form (`interp::compiled`) against the tree walk it replaces on
//! the wave executor's hot path: every entry of every arch that compiles, on edge-biased
//! random registers and EXEC masks, compared register by register and lane by lane
//!. The lane-vectorized form (`Compiled::run_wave`) is compared the same way.

mod common;

use amdpcode::exec::{self, Rng};
use amdpcode::interp::compiled::{Compiled, Scratch, Stop, LANE_SLOTS};
use amdpcode::interp::{Memory, RegValue};
use amdpcode::ir::Space;
use amdpcode::spec::Arch;
use amdpcode::value::Bits;

/// Compiled entries address no memory; the tree walk gets none either.
struct NoMemory;

impl Memory for NoMemory {
    fn load(&mut self, _: Space, _: u32, _: u64, _: u32) -> Result<Bits, String> {
        Err("no memory".into())
    }
    fn store(&mut self, _: Space, _: u32, _: u64, _: &Bits) -> Result<(), String> {
        Err("no memory".into())
    }
}

/// Per arch: entries compiled, entries not compiled, cases compared, cases diverged;
/// entries with the lane form, and cases the lane form ran and matched.
#[derive(Default)]
struct Counts {
    compiled: usize,
    skipped: usize,
    compared: usize,
    diverged: usize,
    lane_entries: usize,
    lane_compared: usize,
}

/// Asserts that every register of `slots` holds the tree walk's value.
fn assert_same(
    what: &str,
    f: &amdpcode::ir::Function,
    c: &Compiled,
    regs: &[RegValue],
    slots: &[u64],
    exec_mask: u64,
) {
    for (i, (r, v)) in f.regs.iter().zip(regs).enumerate() {
        match v {
            RegValue::Uniform(b) => assert_eq!(
                slots[c.slot(i, 0)],
                b.low_u64(),
                "{what} {} (exec {exec_mask:#x})",
                r.name
            ),
            RegValue::Lanes(l) => {
                for (lane, b) in l.iter().enumerate().take(LANE_SLOTS) {
                    assert_eq!(
                        slots[c.slot(i, lane as u32)],
                        b.low_u64(),
                        "{what} {} lane {lane} (exec {exec_mask:#x})",
                        r.name
                    );
                }
            }
        }
    }
}

fn compare_arch(arch: Arch, cases: u32) -> Counts {
    let db = common::spec().db(arch);
    let mut n = Counts::default();
    let mut rng = Rng::new(14);
    let mut scratch = Scratch::default();
    for inst in db.instructions() {
        if inst.pcode.is_none() {
            continue;
        }
        let Ok(p) = exec::prepare(arch, inst) else {
            continue;
        };
        let p = p.optimized();
        let f = &p.function;
        let Some(c) = Compiled::new(f, &p.per_lane) else {
            n.skipped += 1;
            continue;
        };
        n.compiled += 1;
        n.lane_entries += c.has_lane_form() as usize;
        for case in 0..cases {
            let lanes = if case % 2 == 0 { 32 } else { 64 };
            let full = if lanes == 64 { u64::MAX } else { 0xffff_ffff };
            let exec_mask = match case % 4 {
                0 => full,
                1 => 1 << (rng.next_u64() % lanes),
                2 => 0,
                _ => rng.next_u64() & full,
            };
            // The same random values bound both ways.
            let mut regs = Vec::new();
            let mut slots = vec![0u64; c.n_slots()];
            for (i, r) in f.regs.iter().enumerate() {
                if p.per_lane[i] {
                    let vals: Vec<Bits> = (0..lanes).map(|_| rng.edge_value(r.width)).collect();
                    for (lane, v) in vals.iter().enumerate() {
                        slots[c.slot(i, lane as u32)] = v.low_u64();
                    }
                    regs.push(RegValue::Lanes(vals));
                } else {
                    let v = rng.edge_value(r.width);
                    slots[c.slot(i, 0)] = v.low_u64();
                    regs.push(RegValue::Uniform(v));
                }
            }
            let tree =
                exec::run_bound_interp(&p, &mut regs, lanes as u32, exec_mask, &mut NoMemory);
            let run = if p.vector && !p.wave_level {
                exec_mask
            } else {
                1
            };
            let mut wave_slots = slots.clone();
            let fast = c.run_lanes(&mut slots, run, &mut scratch);
            let what = format!("{arch} {}", inst.name);
            // The lane form gives up (`Diverged`) on a fault; otherwise it matches the tree.
            match (&tree, c.run_wave(&mut wave_slots, run, &mut scratch)) {
                (_, Err(Stop::Diverged)) => {}
                (Ok(()), Ok(())) => {
                    assert_same(
                        &format!("{what} run_wave"),
                        f,
                        &c,
                        &regs,
                        &wave_slots,
                        exec_mask,
                    );
                    n.lane_compared += c.uses_lane_form(run) as usize;
                }
                (Err(a), Err(Stop::Fault(b))) => {
                    assert!(!c.uses_lane_form(run), "{what}: the lane form faulted");
                    assert_eq!(a.to_string(), b.to_string(), "{what}");
                }
                (a, b) => panic!("{what}: tree {a:?}, run_wave {b:?}"),
            }
            match (&tree, fast) {
                (_, Err(Stop::Diverged)) => {
                    n.diverged += 1;
                    continue;
                }
                (Ok(()), Ok(())) => {}
                (Err(a), Err(Stop::Fault(b))) => {
                    assert_eq!(a.to_string(), b.to_string(), "{arch} {}", inst.name);
                    continue;
                }
                (a, b) => panic!("{arch} {}: tree {a:?}, compiled {b:?}", inst.name),
            }
            n.compared += 1;
            assert_same(&what, f, &c, &regs, &slots, exec_mask);
        }
    }
    n
}

#[test]
fn compiled_matches_tree_walk_on_every_entry() {
    for arch in [Arch::Rdna3, Arch::Rdna4, Arch::Cdna] {
        let Counts {
            compiled,
            skipped,
            compared,
            diverged,
            lane_entries,
            lane_compared,
        } = compare_arch(arch, 32);
        println!(
            "{arch}: {compiled} entries compiled, {skipped} not; {compared} cases equal, \
             {diverged} handed back to the tree walk; {lane_entries} entries with the lane \
             form, {lane_compared} of its cases equal"
        );
        // Most entries fit 64 bits and touch no memory; nearly every case runs compiled.
        assert!(compiled > 600, "{arch}: only {compiled} entries compiled");
        assert!(
            compared > 32 * compiled / 2,
            "{arch}: {compared} cases compared"
        );
        // Most entries are straight-line code: they have the lane form and run on it.
        assert!(
            lane_entries > compiled / 2,
            "{arch}: {lane_entries} lane-form entries"
        );
        assert!(
            lane_compared > 32 * lane_entries / 2,
            "{arch}: {lane_compared} lane-form cases compared"
        );
    }
}
