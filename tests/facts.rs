//! The instruction facts (`amdpcode::machine::facts`) of every entry of every arch that has a
//! database, checked against expectations per family: memory kind, loads and stores,
//! atomics and their return rule, the counter each memory instruction increments, the
//! counters each wait decodes (with llvm-mc-22's encodings), lane-mask operand widths by
//! wave size, and the executor's control class of the instructions it treats itself.

mod common;

use amdpcode::machine::{
    Barrier, Branch, Control, Counter, Event, Facts, Family, InstFacts, LaneOp, MemKind, Native,
    Refusal, Rtn,
};
use amdpcode::spec::{Arch, SpecDb, Wheel};

/// Every arch with a database, each with its database and facts.
fn arches() -> Vec<(Arch, &'static SpecDb, std::sync::Arc<Facts>)> {
    let spec = common::spec();
    let out: Vec<_> = Arch::ALL
        .iter()
        .filter_map(|&a| spec.get(a).ok().map(|db| (a, db, Facts::of(db))))
        .collect();
    // Every named arch: the wheel's three and the generations derived from them.
    let missing: Vec<Arch> = Arch::ALL
        .into_iter()
        .filter(|a| !out.iter().any(|(b, _, _)| a == b))
        .collect();
    assert!(missing.is_empty(), "no database for {missing:?}");
    out
}

/// The facts of entry `name` in encoding `family` of `db`.
fn fact<'a>(db: &SpecDb, facts: &'a Facts, family: &str, name: &str) -> &'a InstFacts {
    let i = db
        .instructions()
        .iter()
        .position(|i| i.name == name && i.encoding == family)
        .unwrap_or_else(|| panic!("{}: no {family} {name}", db.arch()));
    &facts.all()[i]
}

/// The counter vector loads increment on `arch`, and stores.
fn vmem_counters(arch: Arch) -> (Counter, Counter) {
    match arch.wheel() {
        Wheel::Rdna4 => (Counter::Load, Counter::Store),
        Wheel::Rdna3 => (Counter::Vm, Counter::Vs),
        Wheel::Cdna => (Counter::Vm, Counter::Vm),
    }
}

#[test]
fn every_entry_has_facts_of_its_own_family_and_index() {
    for (arch, db, facts) in arches() {
        assert_eq!(facts.all().len(), db.instructions().len(), "{arch}");
        for (i, (inst, f)) in db.instructions().iter().zip(facts.all()).enumerate() {
            assert_eq!(f.index as usize, i, "{arch} {}", inst.name);
            assert_eq!(f.family.name(), inst.encoding, "{arch} {}", inst.name);
            assert_ne!(f.family, Family::Other, "{arch} {}", inst.name);
            let found = facts.find(&inst.encoding, inst.opcode).unwrap();
            assert_eq!(found.index as usize, i, "{arch} {} by opcode", inst.name);
            assert_eq!(facts.operands(f.index).len(), inst.operands.len());
        }
    }
}

#[test]
fn every_global_load_returns_data_and_increments_the_vector_load_counter() {
    for (arch, db, facts) in arches() {
        let (load, _) = vmem_counters(arch);
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            let global = matches!(inst.encoding.as_str(), "GLOBAL" | "VGLOBAL");
            if !global || !inst.name.starts_with("GLOBAL_LOAD_") {
                continue;
            }
            n += 1;
            assert_eq!(f.mem, MemKind::Global, "{arch} {}", inst.name);
            assert_eq!(f.rtn, Rtn::Always, "{arch} {}", inst.name);
            assert!(f.loads && !f.stores && !f.atomic, "{arch} {}", inst.name);
            assert!(f.returns_data(|_| None), "{arch} {}", inst.name);
            assert_eq!(
                f.event(arch, true, false),
                Some((load, Event::VmemLoad)),
                "{arch} {}",
                inst.name
            );
        }
        assert!(n >= 10, "{arch}: {n} global loads");
    }
}

#[test]
fn every_global_store_writes_memory_and_increments_the_store_counter() {
    for (arch, db, facts) in arches() {
        let (_, store) = vmem_counters(arch);
        // CDNA counts stores with loads, as one in-order stream.
        let event = if arch.wheel() == Wheel::Cdna {
            Event::VmemLoad
        } else {
            Event::VmemStore
        };
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if !inst.name.starts_with("GLOBAL_STORE_") {
                continue;
            }
            n += 1;
            assert_eq!(f.rtn, Rtn::Never, "{arch} {}", inst.name);
            assert!(f.stores && !f.loads && !f.atomic, "{arch} {}", inst.name);
            assert_eq!(
                f.event(arch, false, false),
                Some((store, event)),
                "{arch} {}",
                inst.name
            );
        }
        assert!(n >= 6, "{arch}: {n} global stores");
    }
}

#[test]
fn every_atomic_returns_data_only_with_its_return_bit() {
    for (arch, db, facts) in arches() {
        let bit = match arch.wheel() {
            Wheel::Rdna3 => "glc",
            Wheel::Rdna4 => "th",
            Wheel::Cdna => "sc0",
        };
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            // (DS atomics have separate `_RTN` opcodes: checked with the LDS instructions.)
            if !inst.name.contains("_ATOMIC_") || inst.encoding == "DS" {
                continue;
            }
            n += 1;
            assert_eq!(f.rtn, Rtn::ReturnBit, "{arch} {}", inst.name);
            assert!(f.atomic && f.loads && f.stores, "{arch} {}", inst.name);
            // Vector memory atomics run their text lane by lane.
            assert_eq!(
                f.lane_serial,
                f.mem != MemKind::Scalar,
                "{arch} {}",
                inst.name
            );
            assert!(
                f.returns_data(|x| (x == bit).then_some(1)),
                "{arch} {}",
                inst.name
            );
            assert!(
                !f.returns_data(|x| (x == bit).then_some(0)),
                "{arch} {}",
                inst.name
            );
        }
        assert!(n >= 20, "{arch}: {n} atomics");
    }
}

#[test]
fn every_lds_instruction_counts_on_the_lds_counter_and_rtn_forms_return_data() {
    for (arch, db, facts) in arches() {
        let counter = if arch.wheel() == Wheel::Rdna4 {
            Counter::Ds
        } else {
            Counter::Lgkm
        };
        let (mut n, mut rtn) = (0, 0);
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if inst.encoding != "DS" {
                continue;
            }
            n += 1;
            assert_eq!(f.mem, MemKind::Lds, "{arch} {}", inst.name);
            assert_eq!(f.event(arch, false, false), Some((counter, Event::Lds)));
            if inst.name.contains("_RTN") {
                rtn += 1;
                assert_eq!(f.rtn, Rtn::Always, "{arch} {}", inst.name);
            }
            // DS has no return bit: an entry returns data exactly when it lists `vdst`.
            let vdst = inst.operands.iter().any(|o| o.field == "vdst");
            let want = if vdst { Rtn::Always } else { Rtn::Never };
            assert_eq!(f.rtn, want, "{arch} {}", inst.name);
            if inst.name.starts_with("DS_ADD_U32") || inst.name.starts_with("DS_CMPST") {
                assert!(f.atomic, "{arch} {}", inst.name);
            }
            if ["DS_READ_B32", "DS_LOAD_B32", "DS_WRITE_B32", "DS_STORE_B32"]
                .contains(&inst.name.as_str())
            {
                assert!(!f.atomic && !f.lane_serial, "{arch} {}", inst.name);
                assert_eq!(f.bytes, 4);
            }
        }
        assert!(n >= 60 && rtn >= 20, "{arch}: {n} DS, {rtn} _RTN");
    }
}

#[test]
fn scalar_loads_count_on_the_scalar_counter_and_alu_encodings_touch_no_memory() {
    for (arch, db, facts) in arches() {
        let counter = if arch.wheel() == Wheel::Rdna4 {
            Counter::Km
        } else {
            Counter::Lgkm
        };
        let mut loads = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            if inst.encoding == "SMEM" && inst.name.starts_with("S_LOAD_") {
                loads += 1;
                assert_eq!(f.mem, MemKind::Scalar);
                assert_eq!(f.rtn, Rtn::Always, "{arch} {}", inst.name);
                assert_eq!(f.event(arch, true, false), Some((counter, Event::Smem)));
            }
            if inst.encoding.starts_with("VOP") {
                assert!(
                    f.family.is_valu() && !f.family.is_salu(),
                    "{arch} {}",
                    inst.name
                );
                assert_eq!(f.mem, MemKind::None);
                assert_eq!(f.event(arch, false, false), None);
            }
            if inst.encoding.starts_with("SOP") {
                assert!(
                    f.family.is_salu() && !f.family.is_valu(),
                    "{arch} {}",
                    inst.name
                );
                assert_eq!(f.mem, MemKind::None);
            }
        }
        assert!(loads >= 5, "{arch}: {loads} scalar loads");
    }
}

#[test]
fn buffer_accesses_count_as_vector_memory_and_format_and_scalar_forms_are_refused() {
    let (mut arches_with_mubuf, mut scalar_buffer) = (0, 0);
    for (arch, db, facts) in arches() {
        let (load, store) = vmem_counters(arch);
        let (mut n, mut format) = (0, 0);
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            let name = inst.name.as_str();
            if inst.encoding == "SMEM" && name.starts_with("S_BUFFER_") {
                scalar_buffer += 1;
                assert_eq!(f.refusal, Some(Refusal::ScalarBuffer), "{arch} {name}");
            }
            if !matches!(inst.encoding.as_str(), "MUBUF" | "MTBUF") {
                assert_ne!(f.refusal, Some(Refusal::BufferFormat), "{arch} {name}");
                continue;
            }
            n += 1;
            assert_eq!(f.mem, MemKind::Buffer, "{arch} {name}");
            assert!(f.family.is_wave_memory(), "{arch} {name}");
            if name.contains("FORMAT") {
                format += 1;
                assert_eq!(f.refusal, Some(Refusal::BufferFormat), "{arch} {name}");
            } else if name.starts_with("BUFFER_LOAD_LDS_") {
                assert_eq!(f.control, Control::Native(Native::LdsDma), "{arch} {name}");
            }
            if name.starts_with("BUFFER_ATOMIC_") {
                assert_eq!(f.rtn, Rtn::ReturnBit, "{arch} {name}");
                assert!(f.atomic && f.lane_serial, "{arch} {name}");
            }
        }
        if n == 0 {
            // RDNA 4 and its derivatives address buffers with VBUFFER, which runs its text.
            assert_eq!(arch.wheel(), Wheel::Rdna4, "{arch} has no MUBUF");
            continue;
        }
        arches_with_mubuf += 1;
        assert!(format >= 8, "{arch}: {format} format accesses");
        let (dword, x4) =
            if arch.wheel() == Wheel::Cdna || matches!(arch, Arch::Rdna1 | Arch::Rdna2) {
                ("BUFFER_LOAD_DWORD", "BUFFER_STORE_DWORDX4")
            } else {
                ("BUFFER_LOAD_B32", "BUFFER_STORE_B128")
            };
        let l = fact(db, &facts, "MUBUF", dword);
        assert!(l.load_only && l.loads && !l.stores && !l.atomic, "{arch}");
        assert_eq!(
            (l.bytes, l.rtn, l.refusal),
            (4, Rtn::Always, None),
            "{arch}"
        );
        assert_eq!(l.event(arch, true, false), Some((load, Event::VmemLoad)));
        let s = fact(db, &facts, "MUBUF", x4);
        assert!(s.stores && !s.loads && !s.load_only, "{arch}");
        assert_eq!((s.bytes, s.rtn), (16, Rtn::Never), "{arch}");
        let stored = if arch.wheel() == Wheel::Cdna {
            Event::VmemLoad
        } else {
            Event::VmemStore
        };
        assert_eq!(s.event(arch, false, false), Some((store, stored)));
    }
    assert!(
        arches_with_mubuf >= 6,
        "{arches_with_mubuf} arches with MUBUF"
    );
    assert!(scalar_buffer > 0);
}

#[test]
fn flat_operations_that_reach_lds_count_as_lds() {
    for (arch, db, facts) in arches() {
        let flat = if arch.wheel() == Wheel::Rdna4 {
            "VFLAT"
        } else {
            "FLAT"
        };
        let name = if arch.wheel() == Wheel::Cdna || matches!(arch, Arch::Rdna1 | Arch::Rdna2) {
            "FLAT_LOAD_DWORD"
        } else {
            "FLAT_LOAD_B32"
        };
        let f = fact(db, &facts, flat, name);
        assert_eq!(f.mem, MemKind::Flat);
        let lds = if arch.wheel() == Wheel::Rdna4 {
            Counter::Ds
        } else {
            Counter::Lgkm
        };
        assert_eq!(f.event(arch, true, true), Some((lds, Event::Lds)), "{arch}");
        assert_eq!(
            f.event(arch, true, false).unwrap().1,
            Event::VmemLoad,
            "{arch}"
        );
    }
}

#[test]
fn waitcnt_fields_decode_llvm_mc_encodings_per_arch() {
    let id = |x: u32| x;
    for (arch, db, facts) in arches() {
        let has = |n: &str| db.instructions().iter().any(|i| i.name == n);
        if has("S_WAITCNT") && arch.wheel() != Wheel::Rdna4 {
            let f = fact(db, &facts, "SOPP", "S_WAITCNT");
            // `s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)`: gfx1100 0x0432, gfx1030 and gfx9xx
            // 0x0321 (llvm-mc-22 -show-encoding).
            let imm = match arch {
                Arch::Rdna3 => 0x0432,
                _ => 0x0321,
            };
            let mut got = f.wait_thresholds(arch, imm, &id);
            got.sort_by_key(|&(c, _)| c.name());
            assert_eq!(
                got,
                vec![(Counter::Exp, 2), (Counter::Lgkm, 3), (Counter::Vm, 1)],
                "{arch}"
            );
            if arch.is_gfx9() {
                // vmcnt 63 sets bits 15:14 too.
                let all = f.wait_thresholds(arch, 0xc00f, &id);
                assert!(all.contains(&(Counter::Vm, 63)), "{arch}");
            }
        } else {
            assert_eq!(arch.wheel(), Wheel::Rdna4, "{arch} has no s_waitcnt");
            // GFX12's table lists S_WAITCNT, which the hardware does not have: no wait.
            if has("S_WAITCNT") {
                assert_eq!(fact(db, &facts, "SOPP", "S_WAITCNT").wait, None);
            }
        }
        if arch.wheel() == Wheel::Rdna4 {
            // gfx1200 `s_wait_loadcnt_dscnt 0x302`, `s_wait_kmcnt 1`.
            let f = fact(db, &facts, "SOPP", "S_WAIT_LOADCNT_DSCNT");
            assert_eq!(
                f.wait_thresholds(arch, 0x302, &id),
                vec![(Counter::Load, 3), (Counter::Ds, 2)]
            );
            let f = fact(db, &facts, "SOPP", "S_WAIT_KMCNT");
            assert_eq!(f.wait_thresholds(arch, 1, &id), vec![(Counter::Km, 1)]);
            assert_eq!(f.control, Control::Noop);
        }
        if has("S_WAITCNT_VSCNT") {
            // gfx1100 `s_waitcnt_vscnt null, 0x5`; a non-null SGPR adds its value.
            let f = fact(db, &facts, "SOPK", "S_WAITCNT_VSCNT");
            assert_eq!(f.wait_thresholds(arch, 5, &id), vec![(Counter::Vs, 5)]);
            assert_eq!(
                f.wait_thresholds(arch, 5, &|x| x + 2),
                vec![(Counter::Vs, 7)]
            );
        }
        let nop = fact(db, &facts, "SOPP", "S_NOP");
        assert!(nop.wait.is_none() && nop.nop && nop.control == Control::Noop);
    }
}

#[test]
fn lane_mask_operands_span_one_sgpr_in_wave32_and_two_in_wave64() {
    for (arch, db, facts) in arches() {
        let mut n = 0;
        for (inst, f) in db.instructions().iter().zip(facts.all()) {
            // Every VOP3 compare writes a lane mask (CDNA's table types it as a plain
            // 64-bit number).
            let vop3_cmp = inst.encoding == "VOP3" && inst.name.starts_with("V_CMP_");
            let cndmask = inst.name == "V_CNDMASK_B32_E64";
            if !vop3_cmp && !cndmask {
                continue;
            }
            let field = if cndmask { "src2" } else { "sdst" };
            let ops = facts.operands(f.index);
            let Some(o) = ops
                .iter()
                .find(|o| o.field == field || !cndmask && o.field == "vdst")
            else {
                panic!("{arch} {}: no {field}", inst.name)
            };
            n += 1;
            assert!(o.lane_mask, "{arch} {} {}", inst.name, o.field);
            assert_eq!((o.regs(32), o.regs(64)), (1, 2), "{arch} {}", inst.name);
            assert!(f.compare || cndmask);
        }
        assert!(n >= 20, "{arch}: {n} lane-mask instructions");
        let add = fact(db, &facts, "VOP2", "V_AND_B32_E32");
        let src0 = &facts.operands(add.index)[0];
        assert!(!src0.lane_mask && src0.regs(64) == 1, "{arch}");
    }
}

#[test]
fn control_instructions_have_their_executor_class() {
    for (arch, db, facts) in arches() {
        let f = |n: &str| fact(db, &facts, "SOPP", n);
        assert_eq!(f("S_ENDPGM").control, Control::End, "{arch}");
        if arch.wheel() == Wheel::Rdna4 {
            let signal = fact(db, &facts, "SOP1", "S_BARRIER_SIGNAL");
            assert_eq!(signal.control, Control::Barrier(Barrier::Signal));
            assert_eq!(f("S_BARRIER_WAIT").control, Control::Barrier(Barrier::Wait));
        } else {
            assert_eq!(
                f("S_BARRIER").control,
                Control::Barrier(Barrier::SignalWait)
            );
        }
        assert_eq!(f("S_BRANCH").branch, Branch::Jump);
        assert_eq!(f("S_CBRANCH_SCC0").branch, Branch::Conditional);
        assert_eq!(f("S_NOP").branch, Branch::None);
        let v = |n: &str| fact(db, &facts, "VOP3", n);
        assert_eq!(v("V_READLANE_B32").lane, LaneOp::ReadLane, "{arch}");
        assert_eq!(v("V_WRITELANE_B32").lane, LaneOp::WriteLane, "{arch}");
        assert!(v("V_READLANE_B32").cross_lane);
        let mov = fact(db, &facts, "SOP1", "S_MOV_B32");
        assert!(mov.smov && mov.control == Control::Execute && mov.mem == MemKind::None);
    }
}
